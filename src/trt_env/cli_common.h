// Command-line pieces shared by env, plan, calib and build: where to look for
// TensorRT, which release to judge against, verdict colours. Included only by
// src/cli/cmd_{env,plan,calib,build}.cpp.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"

namespace trtlens::cli {

struct SearchFlags {
  std::vector<std::string> paths;
  std::string sysroot;
  bool no_system = false;
};

inline void add_search_flags(CLI::App* cmd, SearchFlags& f) {
  cmd->add_option("--path", f.paths, "a TensorRT install root or library folder to search first (repeatable)");
  cmd->add_option("--sysroot", f.sysroot,
                  "look for system installs under this root (e.g. a mounted Jetson image); default $TRTLENS_SYSROOT or /");
  cmd->add_flag("--no-system", f.no_system,
                "skip the ldconfig cache and the system folders (also: TRTLENS_ENV_SYSTEM_PATHS=0)");
}

// Environment first, flags over it.
inline SearchOptions search_options(const SearchFlags& f) {
  SearchOptions o = search_options_from_environment();
  o.paths = f.paths;
  if (!f.sysroot.empty()) o.sysroot = f.sysroot;
  if (f.no_system) o.system = false;
  return o;
}

// --trt text -> version; UsageError for anything else.
inline TrtVersion parse_target(const std::string& text) {
  auto v = parse_trt_version(text);
  if (!v) throw UsageError("--trt " + text + ": not a TensorRT version (e.g. 10.3, 8.6.1 or 8.6.1.6)");
  return *v;
}

// The release `plan` and `calib` judge against.
struct Target {
  TrtVersion version;
  std::string from;  // "--trt", or the library `env` found first
  // "TensorRT 10.3" or "TensorRT 10.3.0.26 (found at /usr/lib/...)"
  std::string describe() const {
    return "TensorRT " + version.str() + (from == "--trt" ? "" : " (found at " + from + ")");
  }
};

// --trt when given, else the first install with a known version; nullopt when neither.
inline std::optional<Target> pick_target(const std::string& trt, const SearchFlags& flags) {
  if (!trt.empty()) return Target{parse_target(trt), "--trt"};
  SearchOptions o = search_options(flags);
  o.query_gpus = false;
  for (const auto& in : discover_trt(o).installs)
    if (in.version.known()) return Target{in.version, in.library};
  return std::nullopt;
}

// ANSI colour of a verdict word: green yes, red no, yellow depends.
inline const char* verdict_color(LoadVerdict::Kind k) {
  return k == LoadVerdict::Yes ? "32" : k == LoadVerdict::No ? "31" : "33";
}

// Every line of `text` prefixed with `pad`.
inline std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out += pad + text.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  return out;
}

}  // namespace trtlens::cli
