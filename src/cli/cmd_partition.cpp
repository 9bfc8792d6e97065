// trtlens partition MODEL --trt R --precision P [-o DIR]: the regions TensorRT
// would take, and optionally each part written as an ONNX model.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>

#include "cli/app.h"
#include "cli/knowledge.h"
#include "cli/model_options.h"
#include "cli/output.h"
#include "render/check_output.h"
#include "render/partition_output.h"
#include "trtlens/error.h"
#include "trtlens/partition.h"
#include "util/files.h"
#include "util/strings.h"

namespace trtlens::cli {
namespace {

struct PartitionCliOptions {
  std::string model, release, precision = "fp32", format = "text", dir, fail_on = "unsupported", target;
  int min_nodes = 1;
  std::string exclude_ops;
  bool force = false;
  std::vector<std::string> plugins;
  ModelOptions model_options;
};

}  // namespace

void add_partition_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<PartitionCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "partition", "Split an ONNX model into the regions TensorRT would take and the rest; optionally write each "
                   "part as an ONNX model (exit 0: no node has a --fail-on verdict, 1: some node has one, 2: bad input or usage)");
  add_model_runtime_options(cmd, opt->model, opt->release, opt->precision);
  cmd->add_option("--min-nodes", opt->min_nodes, "leave TensorRT regions with fewer nodes to the other runtime")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI::Option* exclude = cmd->add_option(
      "--exclude-ops", opt->exclude_ops,
      "op_types left to the other runtime even when they import, comma-separated, as ONNX Runtime's "
      "trt_op_types_to_exclude (default: the provider's, NonMaxSuppression,NonZero,RoiAlign from TensorRT 8.5 on; "
      "\"\" for none)");
  add_format_option(cmd, opt->format);
  add_fail_on_option(cmd, opt->fail_on);
  cmd->add_option("-o,--output", opt->dir, "write every part as an ONNX model, the weights and manifest.json into this folder");
  cmd->add_flag("--force", opt->force, "replace the output folder when it exists and is not empty");
  add_plugin_option(cmd, opt->plugins);
  add_model_options(cmd, opt->model_options);
  add_target_option(cmd, opt->target);
  cmd->callback([opt, exclude, &exit_code]() {
    const KnowledgeBase& kb = knowledge_base(opt->plugins);
    Runtime runtime = runtime_of(kb, opt->release, opt->precision);
    set_target(runtime, kb, opt->target, opt->release);
    refuse_plugins_without_fallback(kb, opt->plugins, *runtime.release);
    std::vector<Verdict> fail_on = fail_on_verdicts(opt->fail_on);
    bool unknown_unsupported = unknown_as_unsupported(opt->model_options);
    const Model& model = keep_until_exit(load_with_options(opt->model, opt->model_options));
    Annotations& a = keep_until_exit(annotate_runtime(model, kb, runtime));
    if (unknown_unsupported) count_unknown_as_unsupported(a);
    PartitionOptions po{opt->min_nodes, default_exclude_ops(*runtime.release), true};
    if (exclude->count() > 0) {
      po.exclude_ops.clear();
      for (std::string_view op : split(opt->exclude_ops, ',')) {
        while (!op.empty() && op.front() == ' ') op.remove_prefix(1);
        while (!op.empty() && op.back() == ' ') op.remove_suffix(1);
        if (!op.empty()) po.exclude_ops.emplace_back(op);
      }
    }
    const Partition& p = keep_until_exit(partition_model(model, a, po));
    if (!opt->dir.empty()) {
      Progress progress("partition");
      progress.stage(fmt::format("writing {} parts to {}", p.parts.size(), opt->dir));
      write_partition(model, p, partition_json(model, a, p, kb, true), opt->dir, opt->force);
    }
    // The loadable limit is a warning on stderr too, where json and markdown readers see it.
    if (p.dla && p.dla->loadables > p.dla->max_loadables && opt->format != "text")
      fmt::print(stderr, "trtlens partition: warning: {} DLA loadables, more than the {} TensorRT loads per DLA core\n",
                 p.dla->loadables, p.dla->max_loadables);
    OutputStream out("");
    if (opt->format == "json") partition_json(model, a, p, kb, false, [&out](std::string_view s) { out.write(s); });
    else out.write(opt->format == "markdown" ? partition_markdown(model, a, p) : partition_text(model, a, p, color_for("")));
    out.commit();
    exit_code = has_verdict(a, fail_on) ? kExitFailOn : kExitOk;
  });
}

}  // namespace trtlens::cli
