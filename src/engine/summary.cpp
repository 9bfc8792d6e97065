// Engine summary: the figures of TREx's summary and report card, grouped.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens {

namespace {

// Layers grouped by `key_of` (layers it maps to nullptr are left out), by
// latency, then count, descending.
template <class KeyOf>
std::vector<GroupStat> group(const EnginePlan& plan, double total, KeyOf key_of) {
  std::map<std::string_view, GroupStat> m;
  for (const auto& l : plan.layers) {
    const std::string* key = key_of(l);
    if (!key) continue;
    auto& g = m[*key];
    g.key = *key;
    ++g.count;
    g.latency_ms += l.avg_ms;
  }
  std::vector<GroupStat> v;
  v.reserve(m.size());
  for (auto& [k, g] : m) {
    g.percent = total > 0 ? 100.0 * g.latency_ms / total : 0.0;
    v.push_back(std::move(g));
  }
  std::stable_sort(v.begin(), v.end(), [](const GroupStat& a, const GroupStat& b) {
    if (a.latency_ms != b.latency_ms) return a.latency_ms > b.latency_ms;
    return a.count > b.count;
  });
  return v;
}

// Why a reformat layer exists, from what the file says: its Origin and the
// name TensorRT gives inserted copies ("Reformatting CopyNode for Input Tensor 0 to X").
std::string reformat_reason(const EngineLayer& l, const std::string& from, const std::string& to) {
  std::string conv = from == to ? fmt::format("copies {}", from) : fmt::format("converts {} to {}", from, to);
  if (l.origin == "QDQ") {
    bool q = !l.outputs.empty() && l.outputs[0].precision == "INT8";
    bool dq = !l.inputs.empty() && l.inputs[0].precision == "INT8";
    const char* role = q && !dq ? "a Quantize" : dq && !q ? "a Dequantize" : "a Quantize/Dequantize";
    return fmt::format("{} node of the ONNX graph left unfused, run as a reformat; {}", role, conv);
  }
  static constexpr std::string_view in_tag = "Reformatting CopyNode for Input Tensor ";
  static constexpr std::string_view out_tag = "Reformatting CopyNode for Output Tensor ";
  std::string_view n = l.name;
  for (auto [tag, what] : {std::pair{in_tag, "input"}, std::pair{out_tag, "output"}}) {
    if (n.rfind(tag, 0) != 0) continue;
    std::string_view rest = n.substr(tag.size());
    auto sp = rest.find(" to ");
    if (sp == std::string_view::npos) break;
    return fmt::format("inserted by TensorRT{}: {} {} of '{}' needs {} (producer gives {})",
                       l.origin.empty() ? "" : " (Origin " + l.origin + ")", what, rest.substr(0, sp),
                       rest.substr(sp + 4), to, from);
  }
  if (!l.origin.empty()) return fmt::format("Origin {}: {}", l.origin, conv);
  return conv;
}

}  // namespace

EngineSummary summarize(const EnginePlan& plan, int slowest) {
  EngineSummary s;
  s.layers = static_cast<int>(plan.layers.size());
  s.total_latency_ms = plan.total_latency_ms();
  static const std::string none = "none", trex_default_tactic = "TensorRT";
  s.by_type = group(plan, s.total_latency_ms, [](const EngineLayer& l) { return &l.type; });
  s.by_precision = group(plan, s.total_latency_ms,
                         [](const EngineLayer& l) { return l.precision.empty() ? &none : &l.precision; });
  // TREx names the tactic of layers without TacticName "TensorRT".
  s.by_tactic = group(plan, s.total_latency_ms,
                      [](const EngineLayer& l) { return l.tactic.empty() ? &trex_default_tactic : &l.tactic; });
  s.reformats_by_origin = group(plan, s.total_latency_ms, [](const EngineLayer& l) {
    return !l.is_reformat() ? nullptr : l.origin.empty() ? &none : &l.origin;
  });
  std::map<int, PointwiseStat> pw;
  for (const auto& l : plan.layers) {
    if (l.type != "PointWise") continue;
    auto& p = pw[l.n_operations];
    p.n_operations = l.n_operations;
    ++p.count;
    p.latency_ms += l.avg_ms;
  }
  for (auto& [n, p] : pw) {
    p.percent = s.total_latency_ms > 0 ? 100.0 * p.latency_ms / s.total_latency_ms : 0.0;
    p.ms_per_operation = n > 0 ? p.latency_ms / (p.count * static_cast<double>(n)) : 0.0;
    s.pointwise.push_back(p);
  }
  s.analysis = analyze_layers(plan);
  std::vector<const EngineLayer*> order;
  order.reserve(plan.layers.size());
  std::unordered_map<std::string_view, int64_t> tensors;
  tensors.reserve(plan.layers.size() * 2);
  for (const auto& l : plan.layers) {
    order.push_back(&l);
    for (const auto* ts : {&l.inputs, &l.outputs})
      for (const auto& t : *ts) {
        int64_t b = t.size_bytes();
        s.layer_io_bytes = engine_detail::saturating_add(s.layer_io_bytes, b);
        auto& m = tensors[t.name];
        m = std::max(m, b);
      }
    s.weights_bytes = engine_detail::saturating_add(s.weights_bytes, l.weights_bytes);
    s.bias_bytes = engine_detail::saturating_add(s.bias_bytes, l.bias_bytes);
    if (l.is_fused()) s.fused.push_back(&l);
    if (l.is_reformat()) {
      ReformatInfo r;
      r.layer = &l;
      r.from = l.inputs.empty() ? "?" : l.inputs[0].short_format();
      r.to = l.outputs.empty() ? "?" : l.outputs[0].short_format();
      r.reason = reformat_reason(l, r.from, r.to);
      s.reformats.push_back(std::move(r));
      ++s.reformat_count;
      s.reformat_ms += l.avg_ms;
    }
  }
  for (const auto& [name, b] : tensors) s.tensor_bytes = engine_detail::saturating_add(s.tensor_bytes, b);
  s.reformat_percent = s.total_latency_ms > 0 ? 100.0 * s.reformat_ms / s.total_latency_ms : 0.0;
  size_t n = std::min<size_t>(static_cast<size_t>(std::max(slowest, 0)), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(n), order.end(),
                    [](const EngineLayer* a, const EngineLayer* b) {
                      if (a->avg_ms != b->avg_ms) return a->avg_ms > b->avg_ms;
                      return a->file_index < b->file_index;
                    });
  s.slowest.assign(order.begin(), order.begin() + static_cast<long>(n));
  return s;
}

}  // namespace trtlens
