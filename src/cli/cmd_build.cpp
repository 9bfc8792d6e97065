// trtlens build MODEL: build and profile an engine with trtexec, cached, then summarise it.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>

#include "cli/app.h"
#include "trt_env/build.h"
#include "trt_env/cli_common.h"
#include "trtlens/model.h"

namespace trtlens::cli {
namespace {

struct BuildOptions {
  BuildRequest req;
  SearchFlags search;
  bool verbose = false;
};

// Progress: one line per trtexec phase, recognised from its log.
struct Progress {
  std::string phase;
  void see(const std::string& line) {
    const char* next = nullptr;
    if (line.find("Start parsing network model") != std::string::npos) next = "parsing the ONNX model";
    else if (line.find("Finished parsing network model") != std::string::npos) next = "building the engine (can take minutes)";
    else if (line.find("Engine built in") != std::string::npos) next = "engine built; saving it";
    else if (line.find("Starting inference") != std::string::npos) next = "profiling";
    else if (line.find("=== Performance summary ===") != std::string::npos) next = "writing the results";
    if (next && phase != next) {
      phase = next;
      fmt::print(stderr, "trtexec: {}\n", phase);
      std::fflush(stderr);
    }
  }
};

}  // namespace

void add_build_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<BuildOptions>();
  CLI::App* cmd = app.add_subcommand(
      "build", "Build and profile an engine with trtexec (cached by model, TensorRT, GPU and flags); writes the plan "
               "and its graph/profile/timing/metadata JSON, then prints `trtlens engine summary`");
  cmd->add_option("model", opt->req.model, "the .onnx file")->required();
  cmd->add_option("--precision", opt->req.precision, "fp32, fp16, bf16, int8, fp8 or best; several with commas")
      ->capture_default_str();
  cmd->add_option("--shapes", opt->req.shapes, "input shapes for trtexec --shapes, e.g. input:1x3x224x224");
  cmd->add_option("--trtexec", opt->req.trtexec, "the trtexec to run (default: PATH, then /usr/src/tensorrt/bin)");
  cmd->add_option("-o,--output", opt->req.prefix, "plan path; JSON files get it as prefix (default: MODEL.engine)");
  cmd->add_option("--cache-dir", opt->req.cache_dir, "engine cache (default: $XDG_CACHE_HOME/trtlens or ~/.cache/trtlens)");
  cmd->add_option("--trtexec-arg", opt->req.extra_args, "one more trtexec argument, e.g. --trtexec-arg=--useCudaGraph")
      ->allow_extra_args(false);
  cmd->add_flag("--force", opt->req.force, "rebuild even when the cache holds this engine");
  cmd->add_flag("-v,--verbose", opt->verbose, "pass trtexec's output through (to stderr)");
  add_search_flags(cmd, opt->search);
  cmd->callback([opt, &exit_code]() {
    opt->req.search = search_options(opt->search);
    if (!opt->req.shapes.empty()) parse_shape_list(opt->req.shapes, "--shapes");  // the one parser; trtexec gets the text
    Progress progress;
    bool verbose = opt->verbose;
    BuildOutcome b = build_engine(opt->req, [&](const std::string& line) {
      if (verbose) {
        fmt::print(stderr, "{}\n", line);
        std::fflush(stderr);
      } else {
        progress.see(line);
      }
    });
    std::string key = b.key.substr(0, 12);
    std::string trt = b.trt_version;
    if (trt == "unknown" && !b.trtexec_reports.empty()) trt = b.trtexec_reports + " (as trtexec reports it)";
    if (b.cached)
      fmt::print("unchanged: reused the cached engine {} (same model, TensorRT {}, GPU {}, flags); trtexec not run\n", key, trt,
                 b.gpu);
    else
      fmt::print("built {} with {} (TensorRT {}, GPU {}); cached as {}\n", b.prefix, b.trtexec, trt, b.gpu, key);
    fmt::print("wrote: {}\n", [&] {
      std::string s;
      for (const auto& f : b.files) s += (s.empty() ? "" : ", ") + f;
      return s;
    }());
    if (!b.warning.empty()) fmt::print(stderr, "trtlens: warning: {}\n", b.warning);
    fmt::print("\n");
    std::fflush(stdout);
    exit_code = run({"engine", "summary", b.prefix});
  });
}

}  // namespace trtlens::cli
