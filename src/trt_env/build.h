// `trtlens build`: an engine built and profiled by trtexec, with an engine
// cache keyed by model content, TensorRT version, GPU and build flags.
// Internal to src/trt_env and the CLI.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "trtlens/engine.h"
#include "trtlens/trt_env.h"

namespace trtlens {

struct BuildRequest {
  std::string model;                    // .onnx path
  std::string precision = "fp16";       // fp32, fp16, bf16, int8, fp8, best; comma-separated for several
  std::string shapes;                   // trtexec --shapes spec, or ""
  std::vector<std::string> extra_args;  // passed to trtexec as given
  std::string prefix;                   // plan path; JSON files are <prefix>.graph.json ...; "" = <model>.engine
  std::string trtexec;                  // --trtexec, or "" to search
  std::string cache_dir;                // "" = $XDG_CACHE_HOME/trtlens or ~/.cache/trtlens
  bool force = false;                   // rebuild even when the cache holds the engine
  SearchOptions search;
};

struct BuildOutcome {
  bool cached = false;        // reused from the engine cache, trtexec not run
  std::string prefix;
  std::string trtexec;        // the trtexec that ran (or would have)
  std::string key;            // cache key (hex SHA-256)
  std::string cache_entry;    // folder of the entry
  std::string trt_version;    // TensorRT the key was made with ("unknown" when none found)
  std::string gpu;            // GPU names the key was made with ("none" when none found)
  std::string trtexec_reports;  // TensorRT version in trtexec's log ("" when it names none)
  std::vector<std::string> files;  // written beside the model
  std::string warning;        // e.g. trtexec reported another TensorRT version than discovery found
};

// The file suffixes of one built engine, plan first ("" is the plan itself).
const std::vector<std::string>& engine_file_suffixes();

// Default engine-cache folder.
std::string default_cache_dir();

// trtexec flags for a precision list; throws UsageError for an unknown one.
std::vector<std::string> precision_flags(const std::string& precision);

// Builds (or reuses). `on_line` sees every trtexec output line. Throws
// UsageError when trtexec is missing, InputError(model, ...) when the model is
// unreadable or trtexec fails (naming the log file).
BuildOutcome build_engine(const BuildRequest& request, const std::function<void(const std::string&)>& on_line);

// Metadata JSON files in the layout TREx writes, from a trtexec log.
std::string build_metadata_json(const TrtexecLog& log);
std::string profile_metadata_json(const TrtexecLog& log);

}  // namespace trtlens
