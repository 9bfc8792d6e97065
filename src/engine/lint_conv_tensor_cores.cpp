// Reduced-precision convolutions not run on Tensor Cores (TREx ConvLinter.tc_lint).
#include <fmt/format.h>


#include "trtlens/engine.h"

namespace trtlens::lint_impl {

void conv_tensor_cores(const EnginePlan& plan, const PlanIndex& /*index*/, std::vector<Finding>& out) {
  for (const auto& l : plan.layers) {
    if (l.type != "Convolution" || l.precision == "FP32" || l.precision.empty()) continue;
    // Tensor-Core kernels name their MMA instruction family in the tactic name.
    // TREx looks for imma|hmma|xmma|i88|884; Ampere/Hopper kernels spell the MMA
    // shape (h16816, s1688, i8816) or use gmma, so those count too.
    const std::string& t = l.tactic;
    bool tc = false;
    for (const char* k : {"imma", "hmma", "xmma", "i88", "884", "16816", "1688", "8816", "gmma", "tensorop"})
      tc |= t.find(k) != std::string::npos;
    if (tc) continue;
    bool small = !l.inputs.empty() && l.inputs[0].dims.size() == 4 && l.inputs[0].dims[1] < 32;
    // Depthwise convolutions run on CUDA cores by design (TREx reports them as warnings).
    bool depthwise = l.subtype.find("Depthwise") != std::string::npos;
    std::string why = t.empty() ? "no TacticName; kernel family " + (l.subtype.empty() ? std::string("?") : l.subtype)
                                : "tactic " + t;
    out.push_back({"conv-tensor-cores", l.name, small || depthwise ? Severity::Info : Severity::Warning,
                   fmt::format("{} convolution is not accelerated by Tensor Cores ({})", l.precision, why),
                   depthwise ? std::string("depthwise convolutions have no Tensor-Core kernels; expected, and "
                                           "usually memory-bound")
                   : small   ? std::string("it has few input channels (< 32), so acceleration may not be possible")
                             : std::string("Tensor Cores accelerate large convolutions and GEMMs; check channel "
                                           "alignment and that the precision allows a Tensor-Core tactic")});
  }
}

}  // namespace trtlens::lint_impl
