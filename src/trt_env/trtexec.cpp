// Finding trtexec and reading its log.
#include <filesystem>
#include <sstream>
#include <unistd.h>

#include "trt_env/process.h"
#include "trtlens/error.h"
#include "trtlens/trt_env.h"

namespace fs = std::filesystem;

namespace trtlens {

std::string find_trtexec(const std::string& explicit_path, const SearchOptions& o) {
  if (!explicit_path.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(explicit_path, ec) || ::access(explicit_path.c_str(), X_OK) != 0)
      throw UsageError("--trtexec " + explicit_path + ": no such executable file");
    return explicit_path;
  }
  std::string p = find_in_path("trtexec");
  if (!p.empty()) return p;
  if (o.system) {
    // Where the Debian packages and NGC containers put it.
    fs::path root = o.sysroot.empty() ? fs::path("/") : fs::path(o.sysroot);
    for (const char* rel : {"usr/src/tensorrt/bin/trtexec", "usr/local/tensorrt/bin/trtexec"}) {
      std::string c = (root / rel).string();
      if (::access(c.c_str(), X_OK) == 0) return c;
    }
  }
  return "";
}

}  // namespace trtlens
