#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>

#include "cli/app.h"
#include "render/report.h"
#include "trtlens/compat.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"
#include "trtlens/model.h"
#include "util/files.h"

namespace trtlens::cli {

namespace {

struct ReportArgs {
  std::string model, output, release, precision = "fp32";
  size_t region_nodes = 500;
};

int run_report(const ReportArgs& a) {
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  ReportOptions options;
  // Usage is checked before the model is read, so a typo fails fast.
  if (!a.release.empty()) {
    const Release& chosen = kb.resolve(a.release);
    for (size_t i = 0; i < kb.releases().size(); ++i)
      if (&kb.releases()[i] == &chosen) options.initial_release = static_cast<int>(i);
  }
  options.initial_precision = parse_precision(a.precision);
  options.region_nodes = a.region_nodes;
  if (a.output.empty()) throw UsageError("report: an output file is needed (-o page.html)");
  Model model = load_model(a.model);
  options.title = std::filesystem::path(a.model).filename().string();
  std::string page = render_report(model, kb, options);
  write_file_atomic(a.output, page);
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write a self-contained HTML page: the model's graph with a TensorRT verdict on every node.");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("-o,--output", args->output, "HTML file to write")->required();
  cmd->add_option("--trt", args->release, "TensorRT release selected when the page opens (default: newest)");
  cmd->add_option("--precision", args->precision,
                  "precision selected when the page opens: fp32, fp16, bf16, int8, fp8, best")
      ->capture_default_str();
  cmd->add_option("--region-nodes", args->region_nodes,
                  "graphs with more nodes are shown one region of this many nodes at a time")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->callback([args, &exit_code] { exit_code = run_report(*args); });
}

}  // namespace trtlens::cli
