// Command-line options shared by env, plan, calib and build: where to look for
// TensorRT. Included only by src/cli/cmd_{env,plan,calib,build}.cpp.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>

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

}  // namespace trtlens::cli
