// trtlens partition MODEL --trt R --precision P [-o DIR]: the regions TensorRT
// would take, and optionally each part written as an ONNX model.
#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "cli/knowledge.h"
#include "cli/output.h"
#include "render/partition_output.h"
#include "trtlens/error.h"
#include "trtlens/partition.h"

namespace trtlens::cli {
namespace {

struct PartitionCliOptions {
  std::string model, release, precision = "fp32", format = "text", dir, target;
  int min_nodes = 1;
  bool force = false;
  std::vector<std::string> plugins;
};

}  // namespace

void add_partition_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<PartitionCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "partition", "Split an ONNX model into the regions TensorRT would take and the rest; optionally write each "
                   "part as an ONNX model (exit 0: the model converts, 1: it does not, 2: bad input)");
  add_model_runtime_options(cmd, opt->model, opt->release, opt->precision);
  cmd->add_option("--min-nodes", opt->min_nodes, "leave TensorRT regions with fewer nodes to the other runtime")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_format_option(cmd, opt->format);
  cmd->add_option("-o,--output", opt->dir, "write every part as an ONNX model, the weights and manifest.json into this folder");
  cmd->add_flag("--force", opt->force, "replace the output folder when it exists and is not empty");
  add_plugin_option(cmd, opt->plugins);
  add_target_option(cmd, opt->target);
  cmd->callback([opt, &exit_code]() {
    const KnowledgeBase& kb = knowledge_base(opt->plugins);
    Runtime runtime = runtime_of(kb, opt->release, opt->precision);
    set_target(runtime, kb, opt->target, opt->release);
    Model model = load_model(opt->model);
    Annotations a = annotate_runtime(model, kb, runtime);
    Partition p = partition_model(model, a, PartitionOptions{opt->min_nodes});
    if (!opt->dir.empty()) write_partition(model, p, partition_json(model, a, p, true), opt->dir, opt->force);
    std::string text = opt->format == "json"       ? partition_json(model, a, p, false)
                       : opt->format == "markdown" ? partition_markdown(model, a, p)
                                                   : partition_text(model, a, p, color_for(""));
    emit(text, "");
    exit_code = a.converts ? kExitOk : kExitNotConverting;
  });
}

}  // namespace trtlens::cli
