// The linter registry: one file per linter (lint_*.cpp), listed here once.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "trtlens/engine.h"
#include "trtlens/error.h"

namespace trtlens {

namespace lint_impl {
void conv_int8_float_output(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
void conv_channel_alignment(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
void conv_tensor_cores(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
void qdq_unfused(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
void qdq_dangling(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
void reformat_conversion(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
void slice_conversion(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
void slow_layers(const EnginePlan&, const PlanIndex&, std::vector<Finding>&);
}  // namespace lint_impl

PlanIndex index_plan(const EnginePlan& plan) {
  PlanIndex ix;
  std::unordered_set<std::string_view> io_names;
  for (const auto& t : plan.io) io_names.insert(t.name);
  std::unordered_map<std::string_view, int> last_writer;  // as of the layer being read
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const auto& l = plan.layers[i];
    for (const auto& t : l.inputs) {
      ix.readers[t.name].push_back(static_cast<int>(i));
      auto w = last_writer.find(t.name);
      if (w != last_writer.end()) ix.edges.push_back({w->second, static_cast<int>(i), &t});
      else if (io_names.count(t.name) || plan.io.empty()) ix.edges.push_back({-1, static_cast<int>(i), &t});
    }
    for (const auto& t : l.outputs) last_writer[t.name] = static_cast<int>(i);
  }
  // The last writer of an engine output feeds the output.
  for (size_t i = 0; i < plan.layers.size(); ++i)
    for (const auto& t : plan.layers[i].outputs)
      if (io_names.count(t.name) && last_writer[t.name] == static_cast<int>(i)) ix.edges.push_back({static_cast<int>(i), -1, &t});
  ix.writer = std::move(last_writer);
  return ix;
}

const std::vector<Linter>& linters() {
  static const std::vector<Linter> list = {
      {"conv-int8-float-output", "quantized convolutions (INT8 input) that write float outputs",
       lint_impl::conv_int8_float_output},
      {"conv-channel-alignment", "convolution channels not aligned for Tensor Cores (8 for FP16/FP32, 16 for INT8)",
       lint_impl::conv_channel_alignment},
      {"conv-tensor-cores", "reduced-precision convolutions whose tactic does not use Tensor Cores",
       lint_impl::conv_tensor_cores},
      {"qdq-unfused", "Quantize/Dequantize left unfused (Scale layers, Q/DQ run as reformats)", lint_impl::qdq_unfused},
      {"qdq-dangling", "quantization that does not reach the next layer in INT8", lint_impl::qdq_dangling},
      {"reformat-conversion", "reformat layers converting precision (and costly layout-only reformats)",
       lint_impl::reformat_conversion},
      {"slice-conversion", "slice layers converting precision", lint_impl::slice_conversion},
      {"slow-layer", "layers taking a large share of the engine's time", lint_impl::slow_layers},
  };
  return list;
}

std::vector<Finding> lint(const EnginePlan& plan, const std::vector<std::string>& only) {
  std::vector<Finding> out;
  for (const auto& name : only) {
    bool known = std::any_of(linters().begin(), linters().end(), [&](const Linter& l) { return name == l.name; });
    if (!known) {
      std::string names;
      for (const auto& l : linters()) names += std::string(names.empty() ? "" : ", ") + l.name;
      throw UsageError("unknown linter " + name + "; known: " + names);
    }
  }
  const PlanIndex index = index_plan(plan);
  for (const auto& l : linters()) {
    if (!only.empty() && std::find(only.begin(), only.end(), l.name) == only.end()) continue;
    l.run(plan, index, out);
  }
  std::unordered_map<std::string, int> order;
  for (size_t i = 0; i < plan.layers.size(); ++i) order.emplace(plan.layers[i].name, static_cast<int>(i));
  auto pos = [&](const Finding& f) {
    auto it = order.find(f.layer);
    return it == order.end() ? -1 : it->second;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    return pos(a) < pos(b);
  });
  return out;
}

}  // namespace trtlens
