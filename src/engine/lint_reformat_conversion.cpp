// Reformat layers converting precision (TREx ReformatLinter), and layout-only
// reformats whose cost is visible (>= 1% of the engine's time). Unfused Q/DQ
// reformats are qdq-unfused's. Suggestions name a trtexec I/O format only for
// reformats at the engine's boundary; inside the engine they name the two
// layers that disagree.
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens::lint_impl {

void reformat_conversion(const EnginePlan& plan, const PlanIndex& index, std::vector<Finding>& out) {
  std::unordered_set<std::string> io;
  for (const auto& t : plan.io) io.insert(t.name);
  for (const auto& l : plan.layers) {
    if (!l.is_reformat() || l.inputs.empty() || l.outputs.empty() || engine_detail::is_unfused_qdq(l)) continue;
    const auto& a = l.inputs[0];
    const auto& b = l.outputs[0];
    const bool conversion = a.precision != b.precision;
    if (!conversion && l.percent < 1.0) continue;
    std::string cost = l.timed ? fmt::format("; costs {} ms ({} of time)", engine_detail::ms_text(l.avg_ms),
                                             engine_detail::percent_text(l.percent))
                               : std::string("; no timing");
    // What to do depends on where the reformat sits.
    std::string suggestion;
    const bool from_input = io.count(a.name) > 0, to_output = io.count(b.name) > 0;
    if (from_input || to_output) {
      const auto& want = from_input ? b : a;  // what the first layer reads / the last layer writes
      std::string fmt_name = engine_detail::trtexec_io_format(want);
      suggestion = fmt::format("the engine {} is given as {} but its {} layer {} {}; {} removes this reformat",
                               from_input ? "input" : "output", from_input ? a.short_format() : b.short_format(),
                               from_input ? "first" : "last", from_input ? "reads" : "writes", want.short_format(),
                               fmt_name.empty() ? std::string(from_input ? "an input format that matches"
                                                                         : "an output format that matches")
                                                : fmt::format("--{}IOFormats={}", from_input ? "input" : "output", fmt_name));
    } else {
      // The layer writing the reformat's input (the last, as TREx) and the first reading its output.
      auto p = index.writer.find(a.name);
      auto c = index.readers.find(b.name);
      std::string pn = p != index.writer.end() ? "'" + plan.layers[static_cast<size_t>(p->second)].name + "'" : "its producer";
      std::string cn = c != index.readers.end() ? "'" + plan.layers[static_cast<size_t>(c->second[0])].name + "'" : "its consumer";
      suggestion = conversion
                       ? fmt::format("{} writes {} and {} reads {}; {}", pn, a.precision, cn, b.precision,
                                     a.precision == "INT8" || b.precision == "INT8"
                                         ? "add quantization around the float operation so both stay in INT8"
                                         : "let both run at one precision (a layer forced to FP32, or a missing "
                                           "FP16 kernel, causes this)")
                       : fmt::format("{} writes {} and {} reads {}; both layers chose tactics with different "
                                     "layouts, so no trtexec I/O option applies; compare with a build at another "
                                     "precision or with more builder workspace",
                                     pn, a.short_format(), cn, b.short_format());
    }
    if (conversion)
      out.push_back({"reformat-conversion", l.name, Severity::Warning,
                     fmt::format("reformat converts {} to {} ({} → {}){}{}", a.precision.empty() ? "?" : a.precision,
                                 b.precision.empty() ? "?" : b.precision, a.short_format(), b.short_format(), cost,
                                 l.origin.empty() ? "" : ", Origin " + l.origin),
                     suggestion});
    else
      out.push_back({"reformat-conversion", l.name, Severity::Info,
                     fmt::format("layout-only reformat {} → {}{}", a.short_format(), b.short_format(), cost),
                     suggestion});
  }
}

}  // namespace trtlens::lint_impl
