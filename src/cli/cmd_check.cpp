// trtlens check MODEL --trt R --precision P: per-node verdicts for one runtime.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>

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
  std::string min_dla_share, max_dla_loadables;
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
  cmd->add_option("--fail-on", opt->fail_on,
                  "exit 1 when a node has one of these verdicts: unsupported, unknown, fallback, implicit_cast, "
                  "supported, or (a DLA --target) gpu_fallback: a node falls back from the DLA to the GPU "
                  "(comma-separated), or none")
      ->capture_default_str();
  CLI::Option* min_share = cmd->add_option(
      "--min-dla-share", opt->min_dla_share,
      "a DLA --target: exit 1 when fewer than PCT percent of the placed nodes run on the DLA (0 to 100)");
  CLI::Option* max_loadables = cmd->add_option(
      "--max-dla-loadables", opt->max_dla_loadables,
      "a DLA --target: exit 1 when the placement needs more than N DLA loadables");
  cmd->add_option("-o,--output", opt->output, "write to this file instead of stdout");
  add_plugin_option(cmd, opt->plugins);
  add_model_options(cmd, opt->model_options);
  add_target_option(cmd, opt->target);
  cmd->callback([opt, min_share, max_loadables, &exit_code]() {
    const KnowledgeBase& kb = knowledge_base(opt->plugins);
    Runtime runtime = runtime_of(kb, opt->release, opt->precision);
    set_target(runtime, kb, opt->target, opt->release);
    refuse_plugins_without_fallback(kb, opt->plugins, *runtime.release);
    FailOn fail_on = check_fail_on(opt->fail_on);
    CheckView view{color_for(opt->output), parse_verdicts(opt->only), fail_on.verdicts};
    DlaGates gates;
    gates.gpu_fallback = fail_on.gpu_fallback;
    if (min_share->count() > 0) gates.min_share = parse_share("--min-dla-share", opt->min_dla_share);
    if (max_loadables->count() > 0) gates.max_loadables = parse_count("--max-dla-loadables", opt->max_dla_loadables);
    if (gates.any() && !(runtime.target && runtime.target->dla)) {
      std::string_view gate = fail_on.gpu_fallback ? "--fail-on gpu_fallback"
                              : min_share->count() ? "--min-dla-share"
                                                   : "--max-dla-loadables";
      throw UsageError(fmt::format("{} needs a DLA --target (orin-dla, xavier-dla): nothing is placed on a DLA without one",
                                   gate));
    }
    bool unknown_unsupported = unknown_as_unsupported(opt->model_options);
    const Model& model = keep_until_exit(load_with_options(opt->model, opt->model_options));
    Annotations& a = keep_until_exit(annotate_runtime(model, kb, runtime));
    if (unknown_unsupported) count_unknown_as_unsupported(a);
    OutputStream out(opt->output);
    auto write = [&out](std::string_view s) { out.write(s); };
    if (opt->format == "json") check_json(model, a, kb, write);
    else if (opt->format == "sarif") check_sarif(model, a, kb, write);
    else if (opt->format == "junit") out.write(check_junit(model, a, view, gates));
    else out.write(opt->format == "markdown" ? check_markdown(model, a, view) : check_text(model, a, view));
    out.commit();
    // A failed DLA gate says so on stderr (junit says it in the test case), and fails as a verdict does.
    std::vector<std::string> failed = failed_dla_gates(a, gates);
    if (opt->format != "junit")
      for (const auto& g : failed) fmt::print(stderr, "trtlens check: {}\n", g);
    exit_code = has_verdict(a, view.fail_on) || !failed.empty() ? kExitFailOn : kExitOk;
  });
}

}  // namespace trtlens::cli
