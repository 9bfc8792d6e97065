// The linter registry: one file per linter (lint_*.cpp), listed here once.
#include <algorithm>
#include <unordered_map>

#include "trtlens/engine.h"
#include "trtlens/error.h"

namespace trtlens {

namespace lint_impl {
void conv_int8_float_output(const EnginePlan&, std::vector<Finding>&);
void conv_channel_alignment(const EnginePlan&, std::vector<Finding>&);
void conv_tensor_cores(const EnginePlan&, std::vector<Finding>&);
void qdq_unfused(const EnginePlan&, std::vector<Finding>&);
void qdq_dangling(const EnginePlan&, std::vector<Finding>&);
void reformat_conversion(const EnginePlan&, std::vector<Finding>&);
void slice_conversion(const EnginePlan&, std::vector<Finding>&);
void slow_layers(const EnginePlan&, std::vector<Finding>&);
}  // namespace lint_impl

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
  for (const auto& l : linters()) {
    if (!only.empty() && std::find(only.begin(), only.end(), l.name) == only.end()) continue;
    l.run(plan, out);
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
