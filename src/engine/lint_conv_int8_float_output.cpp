// Quantized convolutions with float outputs (TREx ConvLinter.mixed_precision_lint).
#include <fmt/format.h>

#include "trtlens/engine.h"

namespace trtlens::lint_impl {

void conv_int8_float_output(const EnginePlan& plan, const PlanIndex& /*index*/, std::vector<Finding>& out) {
  for (const auto& l : plan.layers) {
    if (l.type != "Convolution" || l.precision != "INT8" || l.outputs.empty()) continue;
    const auto& o = l.outputs[0];
    if (o.precision == "INT8") continue;
    out.push_back({"conv-int8-float-output", l.name, Severity::Warning,
                   fmt::format("quantized convolution (INT8 input) writes {} output ({})",
                               o.precision.empty() ? "non-INT8" : o.precision, o.short_format()),
                   "add a Quantize after the convolution so it writes INT8; float outputs cost memory "
                   "bandwidth in memory-bound convolutions"});
  }
}

}  // namespace trtlens::lint_impl
