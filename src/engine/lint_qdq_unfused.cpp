// Quantize/Dequantize left unfused (TREx QDQLinter, plus Q/DQ run as reformats).
#include <fmt/format.h>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens::lint_impl {

void qdq_unfused(const EnginePlan& plan, const PlanIndex& /*index*/, std::vector<Finding>& out) {
  for (const auto& l : plan.layers) {
    if (!engine_detail::is_unfused_qdq(l)) continue;
    const bool scale = l.type == "Scale";
    const bool in8 = l.inputs[0].precision == "INT8";
    const char* role = in8 ? "Dequantize" : "Quantize";
    std::string cost = l.timed ? fmt::format(", {} ms ({} of time)", engine_detail::ms_text(l.avg_ms),
                                             engine_detail::percent_text(l.percent))
                               : std::string();
    // A Quantize of an engine input has nothing to fuse into: report it as info.
    bool engine_input = false;
    for (const auto& io : plan.io) engine_input |= io.name == l.inputs[0].name;
    std::string io_format = engine_detail::trtexec_io_format(l.outputs[0]);
    out.push_back({"qdq-unfused", l.name, engine_input && !in8 ? Severity::Info : Severity::Warning,
                   fmt::format("unfused {} layer ({} {} → {}){}", role, scale ? "Scale" : "Q/DQ reformat",
                               l.inputs[0].short_format(), l.outputs[0].short_format(), cost),
                   engine_input && !in8
                       ? fmt::format("quantizing the engine input is expected; feed INT8 input{} to remove it",
                                     io_format.empty() ? "" : " (--inputIOFormats=" + io_format + ")")
                       : fmt::format("check why the {} is not fused: place Q/DQ so each pair surrounds an op "
                                     "TensorRT can run in INT8 (Conv, MatMul, Add after Conv)",
                                     role)});
  }
}

}  // namespace trtlens::lint_impl
