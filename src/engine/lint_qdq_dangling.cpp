// Quantization that does not reach the next layer: a layer produces INT8 from
// float input, and a consumer of that INT8 tensor does not run in INT8 (it
// dequantizes right away) or nothing consumes it.
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens::lint_impl {

namespace {
bool quantizes(const EngineLayer& l) {
  return !l.inputs.empty() && !l.outputs.empty() && engine_detail::is_float_precision(l.inputs[0].precision) &&
         l.outputs[0].precision == "INT8";
}
}  // namespace

void qdq_dangling(const EnginePlan& plan, const PlanIndex& index, std::vector<Finding>& out) {
  std::unordered_set<std::string> io;
  for (const auto& t : plan.io) io.insert(t.name);
  for (const auto& l : plan.layers) {
    if (!quantizes(l)) continue;
    const auto& t = l.outputs[0];
    static const std::vector<int> kNone;
    auto found = index.readers.find(t.name);
    const auto& readers = found == index.readers.end() ? kNone : found->second;
    if (readers.empty()) {
      if (io.count(t.name)) continue;
      out.push_back({"qdq-dangling", l.name, Severity::Warning,
                     fmt::format("quantized tensor '{}' is consumed by no layer", t.name),
                     "remove the Quantize or connect it to the INT8 layer it was meant for"});
      continue;
    }
    for (int c : readers) {
      const auto& cl = plan.layers[c];
      // The consumer's precision is that of its first input; judge the port that reads t.
      std::string seen;
      for (const auto& in : cl.inputs)
        if (in.name == t.name) seen = in.precision;
      bool back_to_float = cl.outputs.size() == 1 && engine_detail::is_float_precision(cl.outputs[0].precision) &&
                           (cl.is_reformat() || cl.type == "Scale");
      if (seen == "INT8" && !back_to_float) continue;
      out.push_back({"qdq-dangling", l.name, Severity::Warning,
                     fmt::format("quantization does not reach the next layer: '{}' ({}) {}", cl.name, cl.type,
                                 back_to_float ? "converts the INT8 tensor straight back to " + cl.outputs[0].precision
                                               : "reads it as " + (seen.empty() ? std::string("?") : seen)),
                     "move the Quantize next to an op that runs in INT8, or drop the Q/DQ pair; a quantize followed "
                     "by a dequantize only adds two conversions"});
    }
  }
}

}  // namespace trtlens::lint_impl
