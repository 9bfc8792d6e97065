// trtlens check MODEL --trt R --precision P: per-node verdicts for one runtime.
#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "cli/knowledge.h"
#include "cli/output.h"
#include "render/check_output.h"
#include "util/files.h"
#include "trtlens/error.h"

namespace trtlens::cli {
namespace {

struct CheckOptions {
  std::string model, release, precision = "fp32", format = "text", output, target;
  std::vector<std::string> only, plugins;
};

std::vector<Verdict> parse_verdicts(const std::vector<std::string>& names) {
  std::vector<Verdict> out;
  for (const auto& name : names) {
    bool found = false;
    for (Verdict v : kAllVerdicts) {
      std::string upper = name;
      for (auto& c : upper) c = static_cast<char>(std::toupper(c));
      if (verdict_name(v) == upper) {
        out.push_back(v);
        found = true;
      }
    }
    if (!found)
      throw UsageError("unknown verdict '" + name + "'; use SUPPORTED, FALLBACK, IMPLICIT_CAST, UNSUPPORTED or UNKNOWN");
  }
  return out;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Annotate every node of an ONNX model for one TensorRT release and precision "
               "(exit 0: converts, 1: does not, 2: bad input)");
  add_model_runtime_options(cmd, opt->model, opt->release, opt->precision);
  add_format_option(cmd, opt->format);
  cmd->add_option("--only", opt->only, "text/markdown: list only nodes with these verdicts (e.g. UNSUPPORTED,FALLBACK)")
      ->delimiter(',');
  cmd->add_option("-o,--output", opt->output, "write to this file instead of stdout");
  add_plugin_option(cmd, opt->plugins);
  add_target_option(cmd, opt->target);
  cmd->callback([opt, &exit_code]() {
    const KnowledgeBase& kb = knowledge_base(opt->plugins);
    Runtime runtime = runtime_of(kb, opt->release, opt->precision);
    set_target(runtime, kb, opt->target, opt->release);
    CheckView view{color_for(opt->output), parse_verdicts(opt->only)};
    const Model& model = keep_until_exit(load_model(opt->model));
    const Annotations& a = keep_until_exit(annotate_runtime(model, kb, runtime));
    OutputStream out(opt->output);
    if (opt->format == "json") check_json(model, a, [&out](std::string_view s) { out.write(s); });
    else out.write(opt->format == "markdown" ? check_markdown(model, a, view) : check_text(model, a, view));
    out.commit();
    exit_code = a.converts ? kExitOk : kExitNotConverting;
  });
}

}  // namespace trtlens::cli
