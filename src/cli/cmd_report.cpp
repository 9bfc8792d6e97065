#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/app.h"
#include "cli/knowledge.h"
#include "cli/model_options.h"
#include "cli/output.h"
#include "render/overlay_output.h"
#include "render/report.h"
#include "trtlens/compat.h"
#include "util/utf8.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"
#include "trtlens/model.h"
#include "trtlens/overlay.h"
#include "util/files.h"

namespace trtlens::cli {

namespace {

struct ReportArgs {
  std::string model, output, release, precision = "fp32", engine, format = "html", target;
  bool precision_given = false;
  std::vector<std::string> plugins;
  size_t region_nodes = 500;
  ModelOptions model_options;
};

int run_report(const ReportArgs& a) {
  const KnowledgeBase& kb = knowledge_base(a.plugins);
  ReportOptions options;
  // Usage is checked before any file is read, so a typo fails fast.
  if (!a.release.empty()) kb.resolve(a.release);
  std::optional<Precision> precision;
  if (a.precision_given) precision = parse_precision(a.precision);
  if (a.format != "html" && a.engine.empty())
    throw UsageError("report --format " + a.format + " describes an engine overlay: give --engine PLAN");
  Runtime targeted{a.release.empty() ? &kb.releases().back() : &kb.resolve(a.release), precision.value_or(Precision::FP32)};
  set_target(targeted, kb, a.target, a.release);  // an unknown target, or a release it does not run: usage errors
  refuse_plugins_without_fallback(kb, a.plugins, *targeted.release);
  if (targeted.target && !a.engine.empty())
    throw UsageError("report --target judges the model on a device; --engine compares with a built engine: give one");
  if (a.format == "html" && a.output == "-") throw UsageError("report: the page is written to a file, not stdout (-o page.html)");

  // The engine first: a wrong prefix is reported before the model is loaded.
  std::optional<EnginePlan> plan;
  if (!a.engine.empty()) plan = load_plan(find_plan_files(a.engine));
  Model model = load_with_options(a.model, a.model_options);

  std::optional<EngineOverlay> eo;
  ReportEngine engine;
  Precision initial_precision = precision.value_or(Precision::FP32);
  const Release* initial_release = a.release.empty() && !targeted.target ? nullptr : targeted.release;
  options.target = targeted.target;
  if (plan) {
    eo = overlay_and_check(model, *plan, kb, a.release, precision);
    engine = {&*plan, &eo->overlay, &eo->check};
    options.engine = &engine;
    // The page opens on the runtime the engine is compared with.
    initial_release = eo->check.runtime.release;
    initial_precision = eo->check.runtime.precision;
  }
  if (a.format != "html") {
    OverlayView view{&model, &*plan, &eo->overlay, &eo->check, &eo->predicted, &kb};
    std::string out = a.format == "json"       ? overlay_json(view)
                      : a.format == "markdown" ? overlay_markdown(view)
                                               : overlay_text(view, color_for(a.output == "-" ? "" : a.output));
    emit(out, a.output == "-" ? "" : a.output);
    return kExitOk;
  }
  options.initial_release = initial_release;
  options.initial_precision = initial_precision;
  options.region_nodes = a.region_nodes;
  options.title = std::filesystem::path(a.model).filename().string();
  std::string page;
  const auto started = std::chrono::steady_clock::now();
  {
    // The sweep over every runtime takes seconds on a large model: say how far it is, on a terminal.
    Progress progress("report");
    ReportPage report(model, kb, options);
    AnalysisRequest request = report.request(2);
    if (progress.on()) request.progress = [&progress](size_t done, size_t total) { progress.update(done, total); };
    ModelAnalysis analysis = analyze_model(model, kb, request);
    progress.stage("laying out and writing the page");
    page = report.html(analysis);
  }
  // Without -o: MODEL.html beside the model, as a first run expects something to open.
  const std::string output =
      a.output.empty() ? std::filesystem::path(a.model).replace_extension(".html").string() : a.output;
  write_file_atomic(output, page);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print(stderr, "trtlens: wrote {} ({} nodes, {:.1f} MB, {:.1f} s)\n", escape_controls(output), model.node_count(),
             static_cast<double>(page.size()) / 1e6, seconds);
  // A DLA core opened at a precision it lacks shows nothing on it: say why here too (each such runtime's notes on
  // the page say it, as check and partition do).
  if (targeted.target && targeted.target->dla && initial_precision != Precision::FP16 &&
      initial_precision != Precision::INT8 && initial_precision != Precision::BEST)
    fmt::print(stderr,
               "trtlens: note: DLA runs FP16 and INT8 only: at {} every node runs on the GPU; pass --precision fp16 "
               "or int8\n",
               precision_name(initial_precision));
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write a self-contained HTML page: the model's graph with a TensorRT verdict on every node "
                "(with --engine: overlaid with the engine built from it).");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("-o,--output", args->output, "file to write (HTML: default MODEL.html beside the model; for --format text/json/markdown: default stdout)");
  cmd->add_option("--trt", args->release,
                  "TensorRT release selected when the page opens (default: newest; with --engine: the engine's, "
                  "when its metadata records it)");
  auto* prec = cmd->add_option("--precision", args->precision,
                               "precision selected when the page opens: fp32, fp16, bf16, int8, fp8, best (with "
                               "--engine: default the engine's build precision)")
                   ->capture_default_str();
  cmd->add_option("--engine", args->engine,
                  "overlay this engine: trtexec's files by path prefix (resnet.onnx.engine), graph.json or folder");
  cmd->add_option("--format", args->format,
                  "html (the page), or the engine overlay as text, json or markdown (needs --engine)")
      ->check(CLI::IsMember({"html", "text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--region-nodes", args->region_nodes,
                  "graphs with more nodes are shown one region of this many nodes at a time")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  add_plugin_option(cmd, args->plugins);
  add_target_option(cmd, args->target);
  add_model_options(cmd, args->model_options, false);  // the page shows every verdict as it is
  cmd->callback([args, prec, &exit_code] {
    args->precision_given = prec->count() > 0;
    exit_code = run_report(*args);
  });
}

}  // namespace trtlens::cli
