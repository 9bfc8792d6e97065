// Finding trtexec and reading its log.
#include <filesystem>
#include <regex>
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

const std::vector<std::pair<std::string, std::string>>* TrtexecLog::section(std::string_view name) const {
  for (const auto& [n, kv] : sections)
    if (n == name) return &kv;
  return nullptr;
}

TrtexecLog parse_trtexec_log(const std::string& text) {
  TrtexecLog log;
  static const std::regex banner(R"(\[TensorRT v(\d+)\])");
  static const std::regex section(R"(^=== (.+) ===$)");
  std::istringstream in(text);
  std::string line;
  bool open = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (log.trt_version.empty() && std::regex_search(line, m, banner))
      log.trt_version = decode_trt_version_number(std::stol(m[1])).str();
    // Strip "[date-time] " and "[I] " prefixes.
    std::string s = line;
    for (int i = 0; i < 2 && !s.empty() && s[0] == '['; ++i) {
      size_t close = s.find("] ");
      if (close == std::string::npos) break;
      s = s.substr(close + 2);
    }
    if (std::regex_match(s, m, section)) {
      log.sections.push_back({m[1], {}});
      open = true;
      continue;
    }
    if (s.rfind("TensorRT version: ", 0) == 0 && log.trt_version.empty()) log.trt_version = s.substr(18);
    if (!open) continue;
    // A section ends at the first line that is not "Key: value".
    size_t colon = s.find(": ");
    if (s.empty() || colon == std::string::npos || s.rfind("[TRT]", 0) == 0) {
      open = false;
      continue;
    }
    log.sections.back().second.push_back({s.substr(0, colon), s.substr(colon + 2)});
  }
  return log;
}

}  // namespace trtlens
