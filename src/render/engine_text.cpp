// Engine summary, layers, lint and compare as text, json, csv and markdown.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/internal.h"
#include "render/engine_render.h"
#include "render/escape.h"
#include "render/table.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"
#include "util/utf8.h"

using json = nlohmann::ordered_json;

namespace trtlens {

using engine_detail::dims_text;
using engine_detail::ms_text;
using engine_detail::percent_text;

OutputFormat parse_output_format(const std::string& s) {
  if (s == "text") return OutputFormat::Text;
  if (s == "json") return OutputFormat::Json;
  if (s == "csv") return OutputFormat::Csv;
  if (s == "markdown" || s == "md") return OutputFormat::Markdown;
  throw UsageError("unknown format " + s + "; known: text, json, csv, markdown");
}

LayersView parse_layers_view(const std::string& s) {
  if (s == "default") return LayersView::Default;
  if (s == "compute") return LayersView::Compute;
  if (s == "memory") return LayersView::Memory;
  throw UsageError("unknown view " + s + "; known: default, compute, memory");
}

namespace {

std::string fixed(double v, int digits = 6) { return fmt::format("{:.{}f}", v, digits); }

std::string table_out(const Table& t, OutputFormat f) {
  switch (f) {
    case OutputFormat::Csv: return to_csv(t);
    case OutputFormat::Markdown: return to_markdown_text(t);  // names from the engine: md_escape
    default: return to_text(t);
  }
}

json parse_or_empty(const std::string& s) {
  try {
    return json::parse(s);
  } catch (...) {
    return json::object();
  }
}

json tensor_json(const EngineTensor& t) {
  return {{"name", t.name},           {"dims", t.dims},     {"format", t.format},
          {"precision", t.precision}, {"layout", t.layout}, {"size_bytes", t.size_bytes()}};
}

std::string tensors_text(const std::vector<EngineTensor>& ts) {
  std::string s;
  for (const auto& t : ts) {
    if (!s.empty()) s += ", ";
    s += t.short_format();
    if (!t.dims.empty()) s += " " + dims_text(t.dims);
  }
  return s;
}

std::string tensors_long(const std::vector<EngineTensor>& ts) {
  std::string s;
  for (const auto& t : ts) {
    if (!s.empty()) s += "; ";
    s += fmt::format("{}: {} {}", t.name, t.short_format(), dims_text(t.dims));
  }
  return s;
}

std::string shorten(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 3) + "...";
}

Table group_table(const std::vector<GroupStat>& g, const char* key) {
  Table t{{key, "count", "ms", "% time"}, {}, {false, true, true, true}};
  for (const auto& x : g) t.rows.push_back({x.key, std::to_string(x.count), ms_text(x.latency_ms), percent_text(x.percent)});
  return t;
}

json group_json(const std::vector<GroupStat>& g, const char* key) {
  json a = json::array();
  for (const auto& x : g)
    a.push_back({{key, x.key}, {"count", x.count}, {"latency_ms", x.latency_ms}, {"percent", x.percent}});
  return a;
}

json kv_json(const KeyValues& kv) {
  json o = json::object();
  for (const auto& [k, v] : kv) o[k] = v;
  return o;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

json peaks_json(const DevicePeaks& d) {
  json c = json::object();
  for (const auto& [p, v] : d.compute_gflops) c[p] = v;
  return {{"device", d.device},         {"source", d.source},          {"memory_gbps", opt(d.memory_gbps)},
          {"memory_basis", d.memory_basis}, {"compute_gflops", c}, {"compute_basis", d.compute_basis}};
}

json compute_json(const std::optional<LayerCompute>& c) {
  if (!c) return nullptr;
  return {{"macs", c->macs},
          {"gemm_m", opt(c->gemm_m)},
          {"gemm_n", opt(c->gemm_n)},
          {"gemm_k", opt(c->gemm_k)},
          {"bytes", c->bytes},
          {"arithmetic_intensity", c->arithmetic_intensity},
          {"gflops", opt(c->gflops)},
          {"compute_efficiency", opt(c->compute_efficiency)}};
}

json stat_json(const std::optional<TrtexecStat>& st) {
  if (!st) return nullptr;
  json p = json::object();
  for (const auto& [pct, v] : st->percentiles) p[fmt::format("{:g}", pct)] = v;
  return {{"min", opt(st->min)}, {"max", opt(st->max)}, {"mean", opt(st->mean)}, {"median", opt(st->median)},
          {"percentiles", p}};
}

json performance_json(const std::optional<TrtexecPerformance>& perf) {
  if (!perf) return nullptr;
  const auto& p = *perf;
  return {{"throughput_qps", opt(p.throughput_qps)}, {"latency_ms", stat_json(p.latency)},
          {"enqueue_ms", stat_json(p.enqueue)},       {"h2d_ms", stat_json(p.h2d)},
          {"gpu_compute_ms", stat_json(p.gpu_compute)}, {"d2h_ms", stat_json(p.d2h)},
          {"host_walltime_s", opt(p.host_walltime_s)}, {"gpu_compute_total_s", opt(p.gpu_compute_total_s)},
          {"warnings", p.warnings}, {"warnings_left_out", p.warnings_left_out}};
}

// The convolutions and GEMMs of an analysis, slowest first, at most `n`.
std::vector<const LayerStats*> slowest_compute(const LayerAnalysis& a, size_t n) {
  std::vector<const LayerStats*> v;
  for (const auto& s : a.layers)
    if (s.compute) v.push_back(&s);
  std::stable_sort(v.begin(), v.end(), [](const LayerStats* x, const LayerStats* y) { return x->layer->avg_ms > y->layer->avg_ms; });
  if (v.size() > n) v.resize(n);
  return v;
}

std::string opt_text(const std::optional<double>& v, const char* f = "{:.0f}") {
  return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
}
std::string opt_text(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("-"); }

// "1.82 G", "950 M": counts for people.
std::string si(double v) {
  const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 6) v /= 1000, ++i;
  return i == 0 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g} {}", v, units[i]);
}

// trtlens_version and kb_fingerprint, as every JSON output carries them (an
// engine is judged with the built-in knowledge base, where it is judged at all).
void append_provenance(json& j) {
  j["trtlens_version"] = trtlens_version();
  j["kb_fingerprint"] = KnowledgeBase::builtin().fingerprint();
}

json summary_json(const EnginePlan& plan, const EngineSummary& s, const std::vector<Finding>* findings) {
  json j;
  j["schema_version"] = kEngineSchemaVersion;
  append_provenance(j);
  j["plan"] = plan.name;
  j["files"] = {{"graph", plan.files.graph},
                {"profile", plan.files.profile},
                {"timing", plan.files.timing},
                {"profile_metadata", plan.files.profile_metadata},
                {"build_metadata", plan.files.build_metadata}};
  j["layout"] = plan.layout;
  j["layout_detail"] = {{"release", plan.layout_detail.release},
                        {"layer_list", plan.layout_detail.layer_list},
                        {"tensor_fields", plan.layout_detail.tensor_fields},
                        {"layer_fields", plan.layout_detail.layer_fields},
                        {"io", plan.layout_detail.io}};
  j["detailed"] = plan.detailed;
  j["partial"] = plan.partial();
  j["notes"] = plan.notes;
  j["layers"] = s.layers;
  j["noops_folded"] = plan.noops_folded;
  j["constants"] = plan.constants.size();
  j["optimization_profile"] = plan.profile_id;
  j["optimization_profiles"] = plan.profiles;
  j["profile_join"] = plan.profile_join;
  j["untimed_layers"] = plan.untimed_layers;
  j["total_latency_ms"] = s.total_latency_ms;
  j["by_type"] = group_json(s.by_type, "type");
  j["by_precision"] = group_json(s.by_precision, "precision");
  json rl = json::array();
  for (const auto& r : s.reformats)
    rl.push_back({{"name", r.layer->name},
                  {"origin", r.layer->origin},
                  {"from", r.from},
                  {"to", r.to},
                  {"latency_ms", r.layer->avg_ms},
                  {"percent", r.layer->percent},
                  {"reason", r.reason}});
  j["reformat"] = {{"count", s.reformat_count}, {"latency_ms", s.reformat_ms}, {"percent", s.reformat_percent},
                   {"by_origin", group_json(s.reformats_by_origin, "origin")}, {"layers", rl}};
  j["by_tactic"] = group_json(s.by_tactic, "tactic");
  json pw = json::array();
  for (const auto& p : s.pointwise)
    pw.push_back({{"n_operations", p.n_operations < 0 ? json(nullptr) : json(p.n_operations)},
                  {"count", p.count},
                  {"latency_ms", p.latency_ms},
                  {"percent", p.percent},
                  {"ms_per_operation", p.ms_per_operation}});
  j["pointwise"] = pw;
  const auto& a = s.analysis;
  json top = json::array();
  for (const auto* x : slowest_compute(a, s.slowest.size()))
    top.push_back({{"name", x->layer->name},
                   {"type", x->layer->type},
                   {"precision", x->layer->precision},
                   {"latency_ms", x->layer->avg_ms},
                   {"footprint_bytes", x->footprint_bytes},
                   {"gbps", opt(x->gbps)},
                   {"memory_efficiency", opt(x->memory_efficiency)},
                   {"compute", compute_json(x->compute)}});
  json skipped = json::array();
  for (const auto& [l, why] : a.skipped) skipped.push_back({{"name", l->name}, {"reason", why}});
  j["compute"] = {{"layers", a.compute_layers}, {"macs", a.macs},       {"latency_ms", a.compute_ms},
                  {"gflops", opt(a.gflops)},    {"slowest", top},       {"skipped", skipped}};
  j["device_peaks"] = peaks_json(a.peaks);
  json sl = json::array();
  for (const auto* l : s.slowest)
    sl.push_back({{"name", l->name}, {"type", l->type}, {"precision", l->precision}, {"latency_ms", l->avg_ms},
                  {"percent", l->percent}});
  j["slowest"] = sl;
  json fl = json::array();
  for (const auto* l : s.fused) fl.push_back({{"name", l->name}, {"onnx_nodes", l->onnx_nodes}});
  j["fused"] = {{"count", s.fused.size()}, {"layers", fl}};
  j["weights_bytes"] = s.weights_bytes;
  j["bias_bytes"] = s.bias_bytes;
  j["layer_io_bytes"] = s.layer_io_bytes;
  j["tensor_bytes"] = s.tensor_bytes;
  j["activations_bytes"] = s.layer_io_bytes;  // the old name of layer_io_bytes, kept for scripts
  json io = json::array();
  for (const auto& t : plan.io)
    io.push_back({{"name", t.name}, {"mode", t.mode}, {"data_type", t.data_type}, {"dims", t.dims}, {"format", t.format}});
  j["io"] = io;
  j["device"] = parse_or_empty(plan.device_json);
  j["builder"] = parse_or_empty(plan.builder_json);
  j["performance"] = parse_or_empty(plan.performance_json);
  j["sources"] = {{"device", plan.device_source}, {"builder", plan.builder_source},
                  {"performance", plan.performance_source}};
  j["trtexec_performance"] = performance_json(plan.perf);
  json logs = json::array();
  for (const auto& l : plan.logs)
    logs.push_back({{"file", l.file},
                    {"tensorrt_version", l.tensorrt_version},
                    {"command", l.command},
                    {"result", l.result},
                    {"build_time_s", l.build_time_s ? json(*l.build_time_s) : json(nullptr)},
                    {"inference_options", kv_json(l.inference_options)},
                    {"notes", l.notes}});
  j["trtexec_logs"] = logs;
  if (plan.timing) {
    const auto& t = *plan.timing;
    j["timing"] = {{"iterations", t.iterations}, {"mean_ms", t.mean_ms}, {"median_ms", t.median_ms},
                   {"p90_ms", t.p90_ms},         {"p99_ms", t.p99_ms},   {"min_ms", t.min_ms},
                   {"max_ms", t.max_ms}};
  } else {
    j["timing"] = nullptr;
  }
  if (findings) {
    int w = 0, i = 0, e = 0;
    for (const auto& f : *findings) (f.severity == Severity::Warning ? w : f.severity == Severity::Info ? i : e)++;
    j["lint"] = {{"findings", findings->size()}, {"error", e}, {"warning", w}, {"info", i}};
  }
  return j;
}

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::Error: return "31";
    case Severity::Warning: return "33";
    default: return "36";
  }
}

std::string kv_block(const char* title, const KeyValues& kv, bool device = false) {
  if (kv.empty()) return "";
  std::string s = fmt::format("{}:\n", title);
  for (const auto& [k, v] : kv)
    s += fmt::format("  {}: {}\n", escape_controls(k), escape_controls(device ? device_value_text(k, v) : v));
  return s;
}

}  // namespace

std::string device_value_text(const std::string& key, const std::string& value) {
  double v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v)) return value;  // text keeps its own unit
  // Units as trtexec prints them (release/10.16:samples/common/sampleDevice.cpp:98-105): clocks in GHz, bus width in bits.
  std::string unit = key.find("Clock Rate") != std::string::npos ? " GHz"
                     : key == "Memory Bus Width"                  ? " bits"
                                                                  : "";
  if (key == "Compute Capability") return fmt::format("{:.1f}", v);
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}{}", static_cast<int64_t>(v), unit);
  return fmt::format("{}{}", v, unit);
}

std::string render_engine_summary(const EnginePlan& plan, const EngineSummary& s, const std::vector<Finding>* findings,
                                  OutputFormat f, bool color) {
  if (f == OutputFormat::Json) return summary_json(plan, s, findings).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (f == OutputFormat::Csv) {
    Table t{{"section", "name", "count", "latency_ms", "percent"}, {}, {}};
    t.rows.push_back({"total", plan.name, std::to_string(s.layers), fixed(s.total_latency_ms), "100"});
    for (const auto& g : s.by_type)
      t.rows.push_back({"type", g.key, std::to_string(g.count), fixed(g.latency_ms), fixed(g.percent, 3)});
    for (const auto& g : s.by_precision)
      t.rows.push_back({"precision", g.key, std::to_string(g.count), fixed(g.latency_ms), fixed(g.percent, 3)});
    t.rows.push_back({"reformat", "", std::to_string(s.reformat_count), fixed(s.reformat_ms), fixed(s.reformat_percent, 3)});
    for (const auto* l : s.slowest) t.rows.push_back({"slowest", l->name, "1", fixed(l->avg_ms), fixed(l->percent, 3)});
    for (const auto& g : s.reformats_by_origin)
      t.rows.push_back({"reformat_origin", g.key, std::to_string(g.count), fixed(g.latency_ms), fixed(g.percent, 3)});
    for (const auto& g : s.by_tactic)
      t.rows.push_back({"tactic", g.key, std::to_string(g.count), fixed(g.latency_ms), fixed(g.percent, 3)});
    for (const auto& p : s.pointwise)
      t.rows.push_back({"pointwise_operations", p.n_operations < 0 ? "" : std::to_string(p.n_operations),
                        std::to_string(p.count), fixed(p.latency_ms), fixed(p.percent, 3)});
    const double tot = s.total_latency_ms;
    t.rows.push_back({"compute", "", std::to_string(s.analysis.compute_layers), fixed(s.analysis.compute_ms),
                      fixed(tot > 0 ? 100 * s.analysis.compute_ms / tot : 0.0, 3)});
    return to_csv(t);
  }
  const bool md = f == OutputFormat::Markdown;
  // Names and file contents written into a line: markdown text (md_escape) or one text line (escape_controls).
  auto say = [md](std::string_view s) { return md ? md_escape(s) : escape_controls(s); };
  auto h = [&](const std::string& title) { return md ? "\n## " + title + "\n\n" : "\n" + title + "\n"; };
  std::string o;
  o += md ? fmt::format("# Engine {}\n\n", say(plan.name)) : fmt::format("Engine {}\n", say(plan.name));
  std::string sep = md ? "  \n" : "\n";
  o += fmt::format("Layers: {} ({} NoOps folded{}){}", s.layers, plan.noops_folded,
                   plan.constants.empty() ? "" : fmt::format(", {} constants set aside", plan.constants.size()), sep);
  o += fmt::format("Total latency: {} ms (sum of layer averages{}){}", ms_text(s.total_latency_ms),
                   plan.has_profile ? ", profile joined by " + plan.profile_join : ", no profile", sep);
  if (plan.timing)
    o += fmt::format("Iterations: {}, mean {} ms, median {} ms, p99 {} ms (timing.json){}", plan.timing->iterations,
                     ms_text(plan.timing->mean_ms), ms_text(plan.timing->median_ms), ms_text(plan.timing->p99_ms), sep);
  o += fmt::format("Layout: {}{}{}", say(plan.layout_detail.describe()),
                   plan.profiles > 1 ? fmt::format(", optimization profile {} of {}", plan.profile_id, plan.profiles) : "",
                   sep);
  if (s.weights_bytes || s.layer_io_bytes)
    o += fmt::format("Weights: {} (bias {} more); activation tensors: {}, each once (layer inputs+outputs summed: "
                     "{}){}",
                     mib(s.weights_bytes), mib(s.bias_bytes), mib(s.tensor_bytes), mib(s.layer_io_bytes), sep);
  for (const char* mode : {"Input", "Output"}) {
    std::string list;
    for (const auto& t : plan.io)
      if (t.mode == mode)
        list += fmt::format("{}{} {}{}", list.empty() ? "" : "; ", say(t.name), say(dims_text(t.dims)),
                            t.format.empty() ? "" : " " + say(t.format));
    if (!list.empty()) o += fmt::format("{}s: {}{}", mode, list, sep);
  }
  for (const auto& l : plan.logs)
    o += fmt::format("trtexec log: {}{}{}{}{}", say(l.file), l.tensorrt_version.empty() ? "" : ", TensorRT " + say(l.tensorrt_version),
                     l.result.empty() ? "" : ", " + say(l.result),
                     l.build_time_s ? fmt::format(", engine built in {:g} s", *l.build_time_s) : "", sep);
  o += h("Latency by layer type");
  o += table_out(group_table(s.by_type, "type"), f);
  o += h("Layers by precision");
  o += table_out(group_table(s.by_precision, "precision"), f);
  o += h(fmt::format("Slowest {} layers", s.slowest.size()));
  Table sl{{"layer", "type", "precision", "ms", "% time"}, {}, {false, false, false, true, true}};
  for (const auto* l : s.slowest)
    sl.rows.push_back({md ? l->name : shorten(l->name, 70), l->type, l->precision, ms_text(l->avg_ms), percent_text(l->percent)});
  o += table_out(sl, f);
  o += h(fmt::format("Reformats: {} layers, {} ms, {} of time", s.reformat_count, ms_text(s.reformat_ms),
                     percent_text(s.reformat_percent)));
  if (!s.reformats.empty()) {
    Table rt{{"layer", "origin", "conversion", "ms", "why"}, {}, {false, false, false, true, false}};
    // People read the costly ones; JSON and CSV of `engine layers` have them all.
    std::vector<const ReformatInfo*> order;
    for (const auto& r : s.reformats) order.push_back(&r);
    std::stable_sort(order.begin(), order.end(),
                     [](const ReformatInfo* a, const ReformatInfo* b) { return a->layer->avg_ms > b->layer->avg_ms; });
    const size_t cap = 20;
    for (size_t i = 0; i < order.size() && i < cap; ++i) {
      const auto& r = *order[i];
      rt.rows.push_back({md ? r.layer->name : shorten(r.layer->name, 60), r.layer->origin, r.from + " -> " + r.to,
                         ms_text(r.layer->avg_ms), r.reason});
    }
    o += table_out(rt, f);
    if (order.size() > cap)
      o += fmt::format("... {} more reformats (--format json, or engine layers --filter type=Reformat)\n",
                       order.size() - cap);
  }
  if (!s.reformats_by_origin.empty()) {
    o += h("Reformats by origin");
    o += table_out(group_table(s.reformats_by_origin, "origin"), f);
  }
  const size_t top = std::max<size_t>(s.slowest.size(), 1);
  o += h(s.by_tactic.size() > top ? fmt::format("Latency by tactic (top {} of {})", top, s.by_tactic.size())
                                  : std::string("Latency by tactic"));
  Table tt = group_table(s.by_tactic, "tactic");
  if (tt.rows.size() > top) tt.rows.resize(top);
  if (!md)
    for (auto& r : tt.rows) r[0].text = shorten(r[0].text, 90);
  o += table_out(tt, f);
  const auto& a = s.analysis;
  std::string macs_text = si(static_cast<double>(a.macs));
  macs_text += a.macs >= 1000 ? "MAC" : " MAC";
  o += h(fmt::format("Convolutions and GEMMs: {} layers, {}, {} ms{}", a.compute_layers, macs_text,
                     ms_text(a.compute_ms), a.gflops ? fmt::format(", {:.0f} GFLOP/s achieved", *a.gflops) : ""));
  o += fmt::format("Peak compute: {}{}", [&] {
    std::string v;
    for (const auto& [p, g] : a.peaks.compute_gflops) v += fmt::format("{}{} {:.0f} GFLOP/s", v.empty() ? "" : ", ", p, g);
    return v.empty() ? std::string("unknown") : v;
  }(), sep);
  o += fmt::format("  from: {}{}", a.peaks.compute_basis, sep);
  o += fmt::format("Peak memory bandwidth: {}{}", a.peaks.memory_gbps ? fmt::format("{:.1f} GB/s", *a.peaks.memory_gbps) : "unknown", sep);
  o += fmt::format("  from: {}{}", a.peaks.memory_basis, sep);
  auto convs = slowest_compute(a, top);
  if (!convs.empty()) {
    o += md ? "\n" : "";
    Table ct{{"layer", "type", "prec", "M", "N", "K", "MACs", "MAC/B", "ms", "GFLOP/s", "% peak", "GB/s", "% peak"},
             {},
             {false, false, false, true, true, true, true, true, true, true, true, true, true}};
    for (const auto* x : convs) {
      const auto& c = *x->compute;
      ct.rows.push_back({md ? x->layer->name : shorten(x->layer->name, 50), x->layer->type, x->layer->precision,
                         opt_text(c.gemm_m), opt_text(c.gemm_n), opt_text(c.gemm_k), si(static_cast<double>(c.macs)),
                         fmt::format("{:.1f}", c.arithmetic_intensity), ms_text(x->layer->avg_ms), opt_text(c.gflops),
                         opt_text(c.compute_efficiency, "{:.1f}%"), opt_text(x->gbps, "{:.1f}"), opt_text(x->memory_efficiency, "{:.1f}%")});
    }
    o += table_out(ct, f);
    bool past_peak = false;
    for (const auto* x : convs) past_peak |= x->memory_efficiency && *x->memory_efficiency > 100;
    if (past_peak)
      o += "GB/s counts whole tensors (TREx's footprint): a strided layer reads part of its input and caches serve "
           "reuse, so it can pass the peak\n";
    if (a.compute_layers > static_cast<int>(convs.size()))
      o += fmt::format("... {} more (engine layers --view compute)\n", a.compute_layers - static_cast<int>(convs.size()));
  }
  if (!a.skipped.empty())
    o += fmt::format("{} convolution/GEMM layers without figures (first: {}: {})\n", a.skipped.size(),
                     say(a.skipped[0].first->name), say(a.skipped[0].second));
  if (!s.pointwise.empty()) {
    o += h("PointWise layers by number of fused operations");
    Table pt{{"operations", "count", "ms", "% time", "ms per operation"}, {}, {true, true, true, true, true}};
    for (const auto& p : s.pointwise)
      pt.rows.push_back({p.n_operations < 0 ? "?" : std::to_string(p.n_operations), std::to_string(p.count),
                         ms_text(p.latency_ms), percent_text(p.percent), p.n_operations > 0 ? ms_text(p.ms_per_operation) : "-"});
    o += table_out(pt, f);
  }
  o += h(fmt::format("Fused layers: {} of {}", s.fused.size(), s.layers));
  size_t shown = 0;
  for (const auto* l : s.fused) {
    if (shown++ == 10) {
      o += fmt::format("{}... and {} more (engine layers --filter fused=yes)\n", md ? "- " : "  ", s.fused.size() - 10);
      break;
    }
    o += fmt::format("{}{}{}\n", md ? "- " : "  ", say(l->name),
                     l->onnx_nodes.size() > 1 ? fmt::format(" ({} ONNX nodes)", l->onnx_nodes.size()) : "");
  }
  auto from = [](const std::string& src) { return src.empty() ? std::string() : " (" + src + ")"; };
  std::string dev = kv_block(("Device" + from(plan.device_source)).c_str(), plan.device, true);
  std::string bld = kv_block(("Builder" + from(plan.builder_source)).c_str(), plan.builder);
  std::string perf = kv_block(("Performance (trtexec" + (plan.performance_source.empty() ? std::string(")")
                                                         : "; " + plan.performance_source + ")")).c_str(),
                              plan.performance);
  if (plan.perf) {
    for (const auto& w : plan.perf->warnings) perf += "  warning: " + escape_controls(w) + "\n";
    if (plan.perf->warnings_left_out > 0)
      perf += fmt::format("  warning: ... and {} more (the first {} are kept)\n", plan.perf->warnings_left_out,
                          plan.perf->warnings.size());
  }
  if (!dev.empty() || !bld.empty() || !perf.empty())
    o += md ? "\n" + md_code_block(dev + bld + perf) : "\n" + dev + bld + perf;
  else
    o += "\nDevice and builder settings: no metadata files (profile.metadata.json, build.metadata.json) and no "
         "trtexec log (--log)\n";
  if (findings) {
    int w = 0, i = 0, e = 0;
    for (const auto& fd : *findings) (fd.severity == Severity::Warning ? w : fd.severity == Severity::Info ? i : e)++;
    o += fmt::format("\nLint: {} findings ({} errors, {} warnings, {} info); see `trtlens engine lint`\n",
                     findings->size(), e, w, i);
  }
  if (plan.partial()) {
    o += h(colorize("Partial results", "33", color && !md));
    for (const auto& n : plan.notes) o += fmt::format("{}{}\n", md ? "- " : "  - ", say(n));
  }
  return o;
}

std::string render_engine_layers(const EnginePlan& plan, const LayerAnalysis& a, const std::vector<size_t>& rows,
                                 OutputFormat f, LayersView view) {
  if (f == OutputFormat::Json) {
    json arr = json::array();
    for (size_t i : rows) {
      const auto& l = plan.layers[i];
      const auto& st = a.layers[i];
      json ins = json::array(), outs = json::array();
      for (const auto& t : l.inputs) ins.push_back(tensor_json(t));
      for (const auto& t : l.outputs) outs.push_back(tensor_json(t));
      arr.push_back({{"index", i},
                     {"name", l.name},
                     {"type", l.type},
                     {"subtype", l.subtype},
                     {"precision", l.precision},
                     {"origin", l.origin},
                     {"tactic", l.tactic},
                     {"tactic_value", l.tactic_value},
                     {"inputs", ins},
                     {"outputs", outs},
                     {"onnx_nodes", l.onnx_nodes},
                     {"attributes", parse_or_empty(l.attributes_json)},
                     {"timed", l.timed},
                     {"latency_ms", l.avg_ms},
                     {"median_ms", l.median_ms},
                     {"percent", l.percent},
                     {"weights_bytes", l.weights_bytes},
                     {"bias_bytes", l.bias_bytes},
                     {"input_bytes", st.input_bytes},
                     {"output_bytes", st.output_bytes},
                     {"footprint_bytes", st.footprint_bytes},
                     {"gbps", opt(st.gbps)},
                     {"memory_efficiency", opt(st.memory_efficiency)},
                     {"compute", compute_json(st.compute)}});
    }
    json j = {{"schema_version", kEngineSchemaVersion}};
    append_provenance(j);
    j.update(json{{"plan", plan.name}, {"partial", plan.partial()}, {"notes", plan.notes},
                  {"device_peaks", peaks_json(a.peaks)}, {"layers", arr}});
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const bool wide = f != OutputFormat::Text;
  auto latency = [&](const EngineLayer& l, double v) {
    return l.timed || !plan.has_profile ? (wide ? fixed(v) : ms_text(v)) : std::string("-");
  };
  Table t;
  if (f == OutputFormat::Csv) {
    // One table with every column, for spreadsheets; numbers unformatted.
    t.header = {"#", "layer", "type", "precision", "inputs", "outputs", "tactic", "avg ms", "median ms", "% time",
                "weights_bytes", "bias_bytes", "input_bytes", "output_bytes", "footprint_bytes", "gbps",
                "memory_efficiency", "macs", "gemm_m", "gemm_n", "gemm_k", "arithmetic_intensity", "gflops",
                "compute_efficiency"};
    auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); };
    auto cnt = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string(); };
    for (size_t i : rows) {
      const auto& l = plan.layers[i];
      const auto& st = a.layers[i];
      const auto& c = st.compute;
      t.rows.push_back({std::to_string(i), l.name, l.type, l.precision, tensors_long(l.inputs), tensors_long(l.outputs),
                        l.tactic.empty() ? l.tactic_value : l.tactic, latency(l, l.avg_ms), latency(l, l.median_ms),
                        fixed(l.percent, 3), std::to_string(l.weights_bytes), std::to_string(l.bias_bytes),
                        std::to_string(st.input_bytes), std::to_string(st.output_bytes),
                        std::to_string(st.footprint_bytes), num(st.gbps), num(st.memory_efficiency),
                        c ? std::to_string(c->macs) : "", c ? cnt(c->gemm_m) : "", c ? cnt(c->gemm_n) : "",
                        c ? cnt(c->gemm_k) : "", c ? fmt::format("{:.6g}", c->arithmetic_intensity) : "",
                        c ? num(c->gflops) : "", c ? num(c->compute_efficiency) : ""});
    }
    return to_csv(t);
  }
  auto name = [&](const EngineLayer& l) { return wide ? l.name : shorten(l.name, 60); };
  if (view == LayersView::Compute) {
    t = {{"#", "layer", "type", "precision", "M", "N", "K", "MACs", "MAC/B", "avg ms", "GFLOP/s", "% peak", "GB/s",
          "% peak"},
         {},
         {true, false, false, false, true, true, true, true, true, true, true, true, true, true}};
    for (size_t i : rows) {
      const auto& l = plan.layers[i];
      const auto& st = a.layers[i];
      if (!st.compute) continue;
      const auto& c = *st.compute;
      t.rows.push_back({std::to_string(i), name(l), l.type, l.precision, opt_text(c.gemm_m), opt_text(c.gemm_n),
                        opt_text(c.gemm_k), wide ? std::to_string(c.macs) : si(static_cast<double>(c.macs)),
                        fmt::format("{:.1f}", c.arithmetic_intensity), latency(l, l.avg_ms), opt_text(c.gflops),
                        opt_text(c.compute_efficiency, "{:.1f}%"), opt_text(st.gbps, "{:.1f}"),
                        opt_text(st.memory_efficiency, "{:.1f}%")});
    }
  } else if (view == LayersView::Memory) {
    t = {{"#", "layer", "type", "precision", "weights", "bias", "inputs", "outputs", "footprint", "avg ms", "GB/s",
          "% peak"},
         {},
         {true, false, false, false, true, true, true, true, true, true, true, true}};
    auto bytes = [&](int64_t b) { return wide ? std::to_string(b) : b == 0 ? std::string("0") : si(static_cast<double>(b)) + "B"; };
    for (size_t i : rows) {
      const auto& l = plan.layers[i];
      const auto& st = a.layers[i];
      t.rows.push_back({std::to_string(i), name(l), l.type, l.precision, bytes(l.weights_bytes), bytes(l.bias_bytes),
                        bytes(st.input_bytes), bytes(st.output_bytes), bytes(st.footprint_bytes),
                        latency(l, l.avg_ms), opt_text(st.gbps, "{:.1f}"), opt_text(st.memory_efficiency, "{:.1f}%")});
    }
  } else {
    t = {{"#", "layer", "type", "precision", "inputs", "outputs", "tactic", "avg ms", "median ms", "% time"},
         {},
         {true, false, false, false, false, false, false, true, true, true}};
    for (size_t i : rows) {
      const auto& l = plan.layers[i];
      std::string tactic = l.tactic.empty() ? l.tactic_value : l.tactic;
      t.rows.push_back({std::to_string(i), name(l), l.type, l.precision,
                        wide ? tensors_long(l.inputs) : tensors_text(l.inputs),
                        wide ? tensors_long(l.outputs) : tensors_text(l.outputs), wide ? tactic : shorten(tactic, 40),
                        latency(l, l.avg_ms), latency(l, l.median_ms), wide ? fixed(l.percent, 3) : percent_text(l.percent)});
    }
  }
  std::string o = table_out(t, f);
  if (view != LayersView::Default && f == OutputFormat::Text) {
    o += fmt::format("peak compute: {}\npeak memory: {}\n", a.peaks.compute_basis, a.peaks.memory_basis);
    if (view == LayersView::Compute && t.rows.empty())
      o += "no Convolution, Deconvolution, FullyConnected or MatrixMultiply layer with known shapes among these\n";
  }
  if (f == OutputFormat::Text && plan.partial())
    for (const auto& n : plan.notes) o += "note: " + escape_controls(n) + "\n";
  return o;
}

std::string render_engine_lint(const EnginePlan& plan, const std::vector<Finding>& findings, OutputFormat f, bool color) {
  if (f == OutputFormat::Json) {
    json a = json::array();
    for (const auto& x : findings)
      a.push_back({{"linter", x.linter}, {"layer", x.layer}, {"severity", severity_name(x.severity)},
                   {"message", x.message}, {"suggestion", x.suggestion}});
    json j = {{"schema_version", kEngineSchemaVersion}};
    append_provenance(j);
    j.update(json{{"plan", plan.name}, {"partial", plan.partial()}, {"notes", plan.notes}, {"findings", a}});
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (f != OutputFormat::Text) {
    Table t{{"severity", "linter", "layer", "message", "suggestion"}, {}, {}};
    for (const auto& x : findings) t.rows.push_back({severity_name(x.severity), x.linter, x.layer, x.message, x.suggestion});
    return table_out(t, f);
  }
  std::string o;
  for (const auto& x : findings) {
    o += fmt::format("{} [{}] {}\n    {}\n    suggestion: {}\n",
                     colorize(fmt::format("{:<7}", severity_name(x.severity)), severity_color(x.severity), color),
                     x.linter, escape_controls(x.layer), escape_controls(x.message), escape_controls(x.suggestion));
  }
  int w = 0, i = 0, e = 0;
  for (const auto& x : findings) (x.severity == Severity::Warning ? w : x.severity == Severity::Info ? i : e)++;
  o += fmt::format("{} findings: {} errors, {} warnings, {} info ({} layers checked)\n", findings.size(), e, w, i,
                   plan.layers.size());
  for (const auto& n : plan.notes) o += "note: " + escape_controls(n) + "\n";
  return o;
}

namespace {

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Speedup of plan p over the first plan that has the row: its latency over p's.
std::optional<double> speedup(const LayerMatch& m, size_t p) {
  std::optional<double> ref;
  for (const auto& x : m.avg_ms)
    if (x) {
      ref = x;
      break;
    }
  if (!ref || !m.avg_ms[p] || *m.avg_ms[p] <= 0) return std::nullopt;
  return *ref / *m.avg_ms[p];
}

// "FP16 HWC8 → INT8 CHW32": input 0 and output 0 of a layer.
std::string io_formats(const EngineLayer& l) {
  return fmt::format("{} → {}", l.inputs.empty() ? "-" : l.inputs[0].short_format(),
                     l.outputs.empty() ? "-" : l.outputs[0].short_format());
}

// The per-plan values of a row, "a / b", or the one value when all agree.
template <class F>
std::string per_plan(const PlanComparison& c, const LayerMatch& m, bool differs, F value) {
  std::string s;
  for (size_t p = 0; p < c.plans.size(); ++p) {
    if (!differs && m.index[p] < 0) continue;
    std::string v = m.index[p] < 0 ? "-" : value(c.plans[p]->layers[m.index[p]]);
    if (!differs) return v;
    s += (p ? " / " : "") + (v.empty() ? std::string("?") : v);
  }
  return s;
}

}  // namespace

std::string render_engine_compare(const PlanComparison& c, OutputFormat f, size_t max_layers) {
  const size_t n = c.plans.size();
  auto tactic = [](const EngineLayer& l) { return l.tactic.empty() ? l.tactic_value : l.tactic; };
  // "INT8 → FP16": input and output precisions, as TREx's in-p and out-p.
  auto precision = [](const EngineLayer& l) { return input_precisions(l) + " → " + output_precisions(l); };
  if (f == OutputFormat::Json) {
    json j;
    j["schema_version"] = kEngineSchemaVersion;
    append_provenance(j);
    json plans = json::array();
    for (size_t p = 0; p < n; ++p) {
      const auto& e = c.end_to_end[p];
      plans.push_back({{"plan", c.plans[p]->name},
                       {"label", c.labels[p]},
                       {"layers", c.layer_counts[p]},
                       {"total_latency_ms", c.total_ms[p]},
                       {"end_to_end",
                        {{"layers_sum_ms", e.layers_ms},
                         {"timing_median_ms", opt_json(e.median_ms)},
                         {"timing_mean_ms", opt_json(e.mean_ms)},
                         {"trtexec_mean_ms", opt_json(e.trtexec_mean_ms)},
                         {"trtexec_median_ms", opt_json(e.trtexec_median_ms)},
                         {"throughput_qps", opt_json(e.throughput_qps)}}},
                       {"partial", c.plans[p]->partial()},
                       {"notes", c.plans[p]->notes}});
    }
    j["plans"] = plans;
    json bt = json::array();
    for (size_t t = 0; t < c.types.size(); ++t)
      bt.push_back({{"type", c.types[t]}, {"count", c.type_count[t]}, {"latency_ms", c.type_ms[t]}});
    j["by_type"] = bt;
    json bp = json::array();
    for (size_t t = 0; t < c.precisions.size(); ++t)
      bp.push_back({{"precision", c.precisions[t]}, {"count", c.precision_count[t]}, {"latency_ms", c.precision_ms[t]}});
    j["by_precision"] = bp;
    json ls = json::array();
    for (const auto& m : c.layers) {
      json v = json::array(), sp = json::array(), per = json::array();
      for (size_t p = 0; p < n; ++p) {
        v.push_back(opt_json(m.avg_ms[p]));
        sp.push_back(opt_json(speedup(m, p)));
        if (m.index[p] < 0) {
          per.push_back(nullptr);
          continue;
        }
        const auto& l = c.plans[p]->layers[m.index[p]];
        json ins = json::array(), outs = json::array();
        for (const auto& t : l.inputs) ins.push_back(t.short_format());
        for (const auto& t : l.outputs) outs.push_back(t.short_format());
        per.push_back({{"index", m.index[p]}, {"name", l.name}, {"precision", l.precision},
                       {"input_precisions", input_precisions(l)}, {"output_precisions", output_precisions(l)},
                       {"tactic", tactic(l)}, {"inputs", ins}, {"outputs", outs}});
      }
      ls.push_back({{"name", m.name},
                    {"type", m.type},
                    {"matched_by", m.matched_by},
                    {"latency_ms", v},
                    {"speedup", sp},
                    {"differs",
                     {{"precision", m.precision_differs},
                      {"input_precision", m.input_precision_differs},
                      {"output_precision", m.output_precision_differs},
                      {"tactic", m.tactic_differs},
                      {"format", m.format_differs}}},
                    {"plans", per}});
    }
    j["layers"] = ls;
    j["matched_in_all"] = c.matched_in_all;
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (f == OutputFormat::Csv) {
    // One long-form table: a row per (section, key, plan).
    Table t{{"section", "name", "plan", "count", "latency_ms"}, {}, {}};
    for (size_t p = 0; p < n; ++p)
      t.rows.push_back({"total", "", c.labels[p], std::to_string(c.layer_counts[p]), fixed(c.total_ms[p])});
    for (size_t i = 0; i < c.types.size(); ++i)
      for (size_t p = 0; p < n; ++p)
        t.rows.push_back({"type", c.types[i], c.labels[p], std::to_string(c.type_count[i][p]), fixed(c.type_ms[i][p])});
    for (size_t i = 0; i < c.precisions.size(); ++i)
      for (size_t p = 0; p < n; ++p)
        t.rows.push_back({"precision", c.precisions[i], c.labels[p], std::to_string(c.precision_count[i][p]),
                          fixed(c.precision_ms[i][p])});
    for (const auto& m : c.layers)
      for (size_t p = 0; p < n; ++p)
        t.rows.push_back({"layer", m.index[p] < 0 ? m.name : c.plans[p]->layers[m.index[p]].name, c.labels[p],
                          m.index[p] < 0 ? "0" : "1", m.avg_ms[p] ? fixed(*m.avg_ms[p]) : ""});
    return to_csv(t);
  }
  const bool md = f == OutputFormat::Markdown;
  auto h = [&](const std::string& title) { return md ? "\n## " + title + "\n\n" : "\n" + title + "\n"; };
  std::vector<bool> num(n + 1, true);
  num[0] = false;
  std::vector<std::string> head{"metric"};
  for (const auto& l : c.labels) head.push_back(l);
  std::string o;
  Table tot{head, {}, num};
  auto row = [&](const char* what, auto cell) {
    std::vector<Cell> r{what};
    for (size_t p = 0; p < n; ++p) r.push_back(cell(p));
    tot.rows.push_back(std::move(r));
  };
  auto opt_ms = [](const std::optional<double>& v) { return v ? ms_text(*v) : std::string("-"); };
  row("layers", [&](size_t p) { return std::to_string(c.layer_counts[p]); });
  row("sum of layers, ms (profile.json)", [&](size_t p) { return ms_text(c.total_ms[p]); });
  row("vs first", [&](size_t p) {
    return c.total_ms[0] > 0 ? fmt::format("{:.2f}x", c.total_ms[p] / c.total_ms[0]) : std::string("-");
  });
  row("end-to-end median, ms (timing.json)", [&](size_t p) { return opt_ms(c.end_to_end[p].median_ms); });
  row("end-to-end mean, ms (trtexec summary)", [&](size_t p) { return opt_ms(c.end_to_end[p].trtexec_mean_ms); });
  row("end-to-end median, ms (trtexec summary)", [&](size_t p) { return opt_ms(c.end_to_end[p].trtexec_median_ms); });
  row("throughput, qps (trtexec summary)", [&](size_t p) {
    const auto& q = c.end_to_end[p].throughput_qps;
    return q ? fmt::format("{:.1f}", *q) : std::string("-");
  });
  o += h("Totals") + table_out(tot, f);
  auto head_with = [&](const char* first) {
    auto x = head;
    x[0] = first;
    return x;
  };
  Table ty{head_with("type (ms / count)"), {}, num};
  for (size_t t = 0; t < c.types.size(); ++t) {
    std::vector<Cell> r{c.types[t]};
    for (size_t p = 0; p < n; ++p) r.push_back(fmt::format("{} / {}", ms_text(c.type_ms[t][p]), c.type_count[t][p]));
    ty.rows.push_back(r);
  }
  o += h("Latency per layer type") + table_out(ty, f);
  Table pr{head_with("precision (layers)"), {}, num};
  for (size_t t = 0; t < c.precisions.size(); ++t) {
    std::vector<Cell> r{c.precisions[t]};
    for (size_t p = 0; p < n; ++p)
      r.push_back(fmt::format("{} ({} ms)", c.precision_count[t][p], ms_text(c.precision_ms[t][p])));
    pr.rows.push_back(r);
  }
  o += h("Layers per precision") + table_out(pr, f);
  // Plans are numbered in the column heads: labels are long.
  Table ly{{"layer", "type", "matched"}, {}, {false, false, false}};
  for (size_t p = 0; p < n; ++p) ly.header.push_back(fmt::format("ms [{}]", p + 1)), ly.numeric.push_back(true);
  for (size_t p = 1; p < n; ++p) ly.header.push_back(fmt::format("speedup [{}]", p + 1)), ly.numeric.push_back(true);
  for (const char* x : {"precision in → out", "tactic", "input 0 → output 0"}) ly.header.push_back(x), ly.numeric.push_back(false);
  size_t shown = 0;
  for (const auto& m : c.layers) {
    if (shown++ >= max_layers) break;
    std::vector<Cell> r{md ? m.name : shorten(m.name, 60), m.type, m.matched_by.empty() ? "-" : m.matched_by};
    for (const auto& x : m.avg_ms) r.push_back(x ? ms_text(*x) : "-");
    for (size_t p = 1; p < n; ++p) {
      auto s = speedup(m, p);
      r.push_back(s ? fmt::format("{:.2f}x", *s) : "-");
    }
    r.push_back(per_plan(c, m, m.precision_differs, precision));
    r.push_back(m.tactic_differs ? "differs" : "");
    r.push_back(per_plan(c, m, m.format_differs, io_formats));
    ly.rows.push_back(r);
  }
  int by_sig = 0, by_name = 0;
  for (const auto& m : c.layers) {
    by_sig += m.matched_by == "signature";
    by_name += m.matched_by == "name";
  }
  o += h(fmt::format("Layers ({} rows; {} in every plan; matched by type and shapes: {}, by name: {})", c.layers.size(),
                     c.matched_in_all, by_sig, by_name));
  for (size_t p = 0; p < n; ++p)
    o += fmt::format("{}[{}] {}{}", md ? "- " : "", p + 1, md ? md_escape(c.labels[p]) : escape_controls(c.labels[p]),
                     md ? "\n" : "  ");
  o += md ? "\n" : "\n\n";
  o += table_out(ly, f);
  if (f == OutputFormat::Text && c.layers.size() > max_layers)
    o += fmt::format("... {} more layers (--max-layers, or --format json)\n", c.layers.size() - max_layers);
  return o;
}

}  // namespace trtlens
