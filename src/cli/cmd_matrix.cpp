// trtlens matrix MODEL [--diff A B]: every release × precision, or the verdict
// changes between two releases.
#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "cli/knowledge.h"
#include "cli/output.h"
#include "render/check_output.h"
#include "trtlens/error.h"

namespace trtlens::cli {
namespace {

struct MatrixOptions {
  std::string model, precision = "fp32", format = "text", output, target;
  std::vector<std::string> diff, plugins;
};

}  // namespace

void add_matrix_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<MatrixOptions>();
  CLI::App* cmd = app.add_subcommand(
      "matrix", "Verdict counts for every TensorRT release × precision, the minimum release that converts the "
                "model, or (--diff A B) the nodes whose verdict changes between two releases");
  cmd->add_option("model", opt->model, "the .onnx file")->required();
  cmd->add_option("--diff", opt->diff, "two releases to compare, e.g. --diff 8.6 10.0")->expected(2);
  cmd->add_option("--precision", opt->precision, "precision for --diff")->capture_default_str();
  add_format_option(cmd, opt->format);
  cmd->add_option("-o,--output", opt->output, "write to this file instead of stdout");
  add_plugin_option(cmd, opt->plugins);
  add_target_option(cmd, opt->target);
  cmd->callback([opt, &exit_code]() {
    const KnowledgeBase& kb = knowledge_base(opt->plugins);
    const Target* target = opt->target.empty() ? nullptr : &TargetCatalog::builtin().resolve(opt->target);
    if (!opt->diff.empty()) {
      const Release& from = kb.resolve(opt->diff[0]);
      const Release& to = kb.resolve(opt->diff[1]);
      Precision p = parse_precision(opt->precision);
      Model model = load_model(opt->model);
      Runtime ra{&from, p}, rb{&to, p};
      set_target(ra, kb, opt->target, opt->diff[0]);
      set_target(rb, kb, opt->target, opt->diff[1]);
      Annotations a = annotate_runtime(model, kb, ra), b = annotate_runtime(model, kb, rb);
      std::string text = opt->format == "json"       ? diff_json(model, a, b)
                         : opt->format == "markdown" ? diff_markdown(model, a, b)
                                                     : diff_text(model, a, b, color_for(opt->output));
      emit(text, opt->output);
      exit_code = kExitOk;
      return;
    }
    const Model& model = keep_until_exit(load_model(opt->model));
    Matrix mx = target ? compute_target_matrix(model, kb, *target) : compute_matrix(model, kb);
    std::string text = opt->format == "json"       ? matrix_json(model, mx)
                       : opt->format == "markdown" ? matrix_markdown(model, mx)
                                                   : matrix_text(model, mx, color_for(opt->output));
    emit(text, opt->output);
    exit_code = mx.min_converting ? kExitOk : kExitNotConverting;
  });
}

}  // namespace trtlens::cli
