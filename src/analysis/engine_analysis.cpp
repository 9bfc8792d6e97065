#include "trtlens/analysis.h"

namespace trtlens {

EngineAnalysis analyze_engine(const EnginePlan& plan, const Model* model, const KnowledgeBase& kb, std::string_view trt,
                              std::optional<Precision> precision, int slowest) {
  EngineAnalysis out;
  out.plan = &plan;
  out.summary = summarize(plan, slowest);
  out.findings = lint(plan);
  if (model) {
    out.model = model;
    out.overlay = overlay_and_check(*model, plan, kb, trt, precision);
  }
  return out;
}

}  // namespace trtlens
