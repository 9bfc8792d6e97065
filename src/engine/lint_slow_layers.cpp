// Layers taking a large share of the engine's time.
#include <fmt/format.h>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens::lint_impl {

// 10% of an engine's time in one layer is worth a look; 25% dominates it.
constexpr double kSlowPercent = 10.0;
constexpr double kDominantPercent = 25.0;

void slow_layers(const EnginePlan& plan, const PlanIndex& /*index*/, std::vector<Finding>& out) {
  if (plan.layers.size() < 2) return;
  for (const auto& l : plan.layers) {
    if (l.percent < kSlowPercent) continue;
    bool dominant = l.percent >= kDominantPercent;
    out.push_back({"slow-layer", l.name, dominant ? Severity::Warning : Severity::Info,
                   fmt::format("{} layer takes {} ms, {} of the engine's time{}", l.type,
                               engine_detail::ms_text(l.avg_ms), engine_detail::percent_text(l.percent),
                               l.precision.empty() ? "" : fmt::format(" (runs in {})", l.precision)),
                   l.precision == "FP32" ? "allow reduced precision (--fp16, --int8 with Q/DQ) for this layer"
                   : l.is_reformat()     ? "find why the neighbouring layers disagree on format"
                                         : "check its tactic and shapes; compare with an engine built at another "
                                           "precision (trtlens engine compare)"});
  }
}

}  // namespace trtlens::lint_impl
