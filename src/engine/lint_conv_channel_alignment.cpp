// Convolution channel counts that are not Tensor-Core friendly (TREx ConvLinter.alignment_lint).
#include <fmt/format.h>

#include "trtlens/engine.h"

namespace trtlens::lint_impl {

void conv_channel_alignment(const EnginePlan& plan, const PlanIndex& /*index*/, std::vector<Finding>& out) {
  for (const auto& l : plan.layers) {
    // The shapes and precision as graph.json wrote them, before NoOp folding,
    // as TREx reads them (its DataFrame keeps the raw tensors): a classifier
    // whose [N,1000,1,1] output a NoOp squeezes to [N,1000] is still a 4-D
    // convolution (release/10.16:tools/experimental/trt-engine-explorer/trex/lint.py:96).
    const auto& ins = l.inputs_as_written();
    const auto& outs = l.outputs_as_written();
    if (l.type != "Convolution" || ins.empty() || outs.empty()) continue;
    const auto& in = ins[0].dims;
    const auto& o = outs[0].dims;
    if (in.size() != 4 || o.size() != 4) continue;  // TREx checks NCHW convolutions only
    const int64_t c = in[1], k = o[1];
    const std::string& precision = ins[0].precision;
    const int64_t align = precision == "INT8" ? 16 : 8;
    if (c % align == 0 && k % align == 0) continue;
    // A network's first convolution (3 colour channels) cannot be aligned; say so.
    Severity sev = c <= 4 ? Severity::Info : Severity::Warning;
    out.push_back({"conv-channel-alignment", l.name, sev,
                   fmt::format("channels not aligned for Tensor Cores: C={} K={} ({} wants multiples of {})", c, k,
                               precision.empty() ? "this precision" : precision, align),
                   c <= 4 ? fmt::format("an input layer with {} channels is expected to be unaligned; padding the "
                                        "input to {} channels may still help",
                                        c, align <= 8 ? 4 : align)
                          : fmt::format("change the model so both channel counts are multiples of {}", align)});
  }
}

}  // namespace trtlens::lint_impl
