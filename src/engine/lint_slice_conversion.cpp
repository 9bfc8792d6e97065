// Slice layers converting precision (TREx SliceLinter).
#include <fmt/format.h>

#include "trtlens/engine.h"

namespace trtlens::lint_impl {

void slice_conversion(const EnginePlan& plan, const PlanIndex& /*index*/, std::vector<Finding>& out) {
  for (const auto& l : plan.layers) {
    if (l.type != "Slice" || l.inputs.empty() || l.outputs.empty()) continue;
    const auto& a = l.inputs[0];
    const auto& b = l.outputs[0];
    if (a.precision == b.precision) continue;
    bool int8 = a.precision == "INT8" || b.precision == "INT8";
    out.push_back({"slice-conversion", l.name, Severity::Warning,
                   fmt::format("slice converts {} to {} ({} → {})", a.precision, b.precision, a.short_format(),
                               b.short_format()),
                   int8 ? "add quantization around the float operations"
                        : "conversions between FP32 and FP16 are a red flag; keep both sides at one precision"});
  }
}

}  // namespace trtlens::lint_impl
