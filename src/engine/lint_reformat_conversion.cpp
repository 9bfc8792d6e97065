// Reformat layers converting precision (TREx ReformatLinter), and layout-only
// reformats whose cost is visible (>= 1% of the engine's time).
#include <fmt/format.h>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens::lint_impl {

void reformat_conversion(const EnginePlan& plan, std::vector<Finding>& out) {
  for (const auto& l : plan.layers) {
    if (!l.is_reformat() || l.inputs.empty() || l.outputs.empty()) continue;
    const auto& a = l.inputs[0];
    const auto& b = l.outputs[0];
    std::string cost = l.timed ? fmt::format("; costs {} ms ({} of time)", engine_detail::ms_text(l.avg_ms),
                                             engine_detail::percent_text(l.percent))
                               : std::string("; no timing");
    if (a.precision != b.precision) {
      bool int8 = a.precision == "INT8" || b.precision == "INT8";
      out.push_back({"reformat-conversion", l.name, Severity::Warning,
                     fmt::format("reformat converts {} to {} ({} → {}){}{}", a.precision.empty() ? "?" : a.precision,
                                 b.precision.empty() ? "?" : b.precision, a.short_format(), b.short_format(), cost,
                                 l.origin.empty() ? "" : ", Origin " + l.origin),
                     int8 ? std::string("add quantization around the float operations so neighbours stay in INT8")
                          : std::string("conversions between FP32 and FP16 are a red flag: keep neighbouring layers "
                                        "at one precision, or give the I/O formats (--inputIOFormats/--outputIOFormats)")});
    } else if (l.percent >= 1.0) {
      out.push_back({"reformat-conversion", l.name, Severity::Info,
                     fmt::format("layout-only reformat {} → {}{}", a.short_format(), b.short_format(), cost),
                     "neighbouring layers want different layouts; an I/O format that matches the first layer "
                     "(e.g. --inputIOFormats=fp16:hwc8) can remove an input reformat"});
    }
  }
}

}  // namespace trtlens::lint_impl
