// trtlens check MODEL --trt R --precision P: per-node verdicts for one runtime.
#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "cli/knowledge.h"
#include "cli/model_options.h"
#include "cli/output.h"
#include "render/check_output.h"
#include "util/files.h"
#include "trtlens/error.h"

namespace trtlens::cli {
namespace {

struct CheckOptions {
  std::string model, release, precision = "fp32", format = "text", output, fail_on = "unsupported", target;
  std::vector<std::string> only, plugins;
  ModelOptions model_options;
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
               "(exit 0: no node has a --fail-on verdict, 1: some node has one, 2: bad input or usage)");
  add_model_runtime_options(cmd, opt->model, opt->release, opt->precision);
  add_format_option(cmd, opt->format, {"sarif", "junit"});
  cmd->add_option("--only", opt->only, "text/markdown: list only nodes with these verdicts (e.g. UNSUPPORTED,FALLBACK)")
      ->delimiter(',');
  add_fail_on_option(cmd, opt->fail_on);
  cmd->add_option("-o,--output", opt->output, "write to this file instead of stdout");
  add_plugin_option(cmd, opt->plugins);
  add_model_options(cmd, opt->model_options);
  add_target_option(cmd, opt->target);
  cmd->callback([opt, &exit_code]() {
    const KnowledgeBase& kb = knowledge_base(opt->plugins);
    Runtime runtime = runtime_of(kb, opt->release, opt->precision);
    set_target(runtime, kb, opt->target, opt->release);
    CheckView view{color_for(opt->output), parse_verdicts(opt->only), fail_on_verdicts(opt->fail_on)};
    bool unknown_unsupported = unknown_as_unsupported(opt->model_options);
    const Model& model = keep_until_exit(load_with_options(opt->model, opt->model_options));
    Annotations& a = keep_until_exit(annotate_runtime(model, kb, runtime));
    if (unknown_unsupported) count_unknown_as_unsupported(a);
    OutputStream out(opt->output);
    auto write = [&out](std::string_view s) { out.write(s); };
    if (opt->format == "json") check_json(model, a, kb, write);
    else if (opt->format == "sarif") check_sarif(model, a, kb, write);
    else if (opt->format == "junit") out.write(check_junit(model, a, view));
    else out.write(opt->format == "markdown" ? check_markdown(model, a, view) : check_text(model, a, view));
    out.commit();
    exit_code = has_verdict(a, view.fail_on) ? kExitFailOn : kExitOk;
  });
}

}  // namespace trtlens::cli
