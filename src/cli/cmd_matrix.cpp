// trtlens matrix MODEL [--diff A B]: every release × precision, or the verdict
// changes between two releases.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/app.h"
#include "cli/knowledge.h"
#include "cli/model_options.h"
#include "cli/output.h"
#include "render/check_output.h"
#include "trtlens/analysis.h"
#include "trtlens/error.h"

namespace trtlens::cli {
namespace {

struct MatrixOptions {
  std::string model, precision = "fp32", format = "text", output, fail_on = "unsupported", target;
  std::vector<std::string> diff, plugins;
  ModelOptions model_options;
};

// Models this large show progress on a terminal.
constexpr size_t kProgressNodes = 10000;

}  // namespace

void add_matrix_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<MatrixOptions>();
  CLI::App* cmd = app.add_subcommand(
      "matrix", "Verdict counts for every TensorRT release × precision, the minimum release that converts the "
                "model, or (--diff A B) the nodes whose verdict changes between two releases (exit 0: some "
                "release × precision has no node with a --fail-on verdict, or --diff; 1: none has; 2: bad input). With a DLA "
                "--target, each cell's DLA placement, and with --diff the nodes that move on or off the DLA");
  cmd->add_option("model", opt->model, "the .onnx file")->required();
  cmd->add_option("--diff", opt->diff, "two releases to compare, e.g. --diff 8.6 10.0")->expected(2);
  cmd->add_option("--precision", opt->precision, "precision for --diff")->capture_default_str();
  add_format_option(cmd, opt->format, {"junit"});
  add_fail_on_option(cmd, opt->fail_on);
  cmd->add_option("-o,--output", opt->output, "write to this file instead of stdout");
  add_plugin_option(cmd, opt->plugins);
  add_model_options(cmd, opt->model_options);
  add_target_option(cmd, opt->target);
  cmd->callback([opt, &exit_code]() {
    const KnowledgeBase& kb = knowledge_base(opt->plugins);
    bool unknown_unsupported = unknown_as_unsupported(opt->model_options);
    std::vector<Verdict> fail_on = fail_on_verdicts(opt->fail_on);
    const Target* target = opt->target.empty() ? nullptr : &TargetCatalog::builtin().resolve(opt->target);
    if (!opt->diff.empty()) {
      if (opt->format == "junit") throw UsageError("matrix --diff: --format junit is for the matrix; use text, json or markdown");
      const Release& from = kb.resolve(opt->diff[0]);
      const Release& to = kb.resolve(opt->diff[1]);
      Precision p = parse_precision(opt->precision);
      Model model = load_with_options(opt->model, opt->model_options);
      Runtime ra{&from, p}, rb{&to, p};
      set_target(ra, kb, opt->target, opt->diff[0]);
      set_target(rb, kb, opt->target, opt->diff[1]);
      refuse_plugins_without_fallback(kb, opt->plugins, from);
      refuse_plugins_without_fallback(kb, opt->plugins, to);
      Annotations a = annotate_runtime(model, kb, ra), b = annotate_runtime(model, kb, rb);
      if (unknown_unsupported) {
        count_unknown_as_unsupported(a);
        count_unknown_as_unsupported(b);
      }
      std::string text = opt->format == "json"       ? diff_json(model, a, b, kb)
                         : opt->format == "markdown" ? diff_markdown(model, a, b)
                                                     : diff_text(model, a, b, color_for(opt->output));
      emit(text, opt->output);
      exit_code = kExitOk;
      return;
    }
    Progress progress("matrix");
    const Model& model = keep_until_exit(load_with_options(opt->model, opt->model_options));
    bool show = progress.on() && model.node_count() > kProgressNodes;
    if (opt->format == "junit") {
      // One test case per runtime, with the failing nodes: every runtime's annotations, from the sweep. With a
      // target, the runtimes it runs (the cells of compute_target_matrix), each narrowed to it (and placed on
      // its DLA core): the sweep hands those a second time, after the plain one, which is not a case here.
      CheckView view{false, {}, fail_on};
      std::vector<std::string> cases;
      size_t failures = 0;
      AnalysisRequest request;
      request.sweep_target = target;
      request.sweep = [&](size_t, Precision, const Annotations& a) {
        if (target && !a.target) return;
        bool failed = false;
        if (unknown_unsupported) {
          Annotations counted = a;
          count_unknown_as_unsupported(counted);
          cases.push_back(junit_testcase(model, counted, view, "matrix", failed));
        } else {
          cases.push_back(junit_testcase(model, a, view, "matrix", failed));
        }
        failures += failed;
      };
      if (show) request.progress = [&](size_t done, size_t total) { progress.update(done, total); };
      analyze_model(model, kb, request);
      emit(junit_document("trtlens matrix", model, cases, failures), opt->output);
      exit_code = failures == cases.size() ? kExitFailOn : kExitOk;
      return;
    }
    if (show)
      progress.stage(fmt::format("judging {} nodes at {} runtimes", model.node_count(),
                                 kb.releases().size() * kAllPrecisions.size()));
    // A DLA target places each cell on its DLA core (MatrixCell::dla); a GPU target narrows the precisions only.
    Matrix mx = target ? compute_dla_matrix(model, kb, *target) : compute_matrix(model, kb);
    if (unknown_unsupported) count_unknown_as_unsupported(mx);
    std::string text = opt->format == "json"       ? matrix_json(model, mx, kb)
                       : opt->format == "markdown" ? matrix_markdown(model, mx)
                                                   : matrix_text(model, mx, color_for(opt->output));
    emit(text, opt->output);
    bool some_passes = false;
    for (const auto& c : mx.cells) {
      bool fails = false;
      for (Verdict v : fail_on) fails = fails || c.summary[static_cast<size_t>(v)] > 0;
      some_passes = some_passes || !fails;
    }
    exit_code = some_passes ? kExitOk : kExitFailOn;
  });
}

}  // namespace trtlens::cli
