// Locations and helpers shared by the tests.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace trtlens::test {

// A fresh empty folder under the build tree for one test, named after it.
std::string temp_dir(const std::string& name);

// ../shared beside the checkout, or "" when absent (tests that need it skip).
std::string shared_dir();

// Bounds on one run of the binary: wall-clock seconds (SIGALRM ends it),
// address space in bytes (RLIMIT_AS: an allocation past it fails) and the size
// of any file it writes (RLIMIT_FSIZE, as `ulimit -f`: SIGXFSZ, or EFBIG when
// ignored). 0: none.
// A run that hits either ends with exit code 128+signal or 3 (internal error),
// which a test expecting 0, 1 or 2 reports. Not for sanitizer builds (ASan
// reserves terabytes of address space).
struct RunLimits {
  unsigned seconds = 0;
  unsigned long long memory_bytes = 0;
  unsigned long long file_bytes = 0;
};

// Result of running the trtlens binary.
struct RunResult {
  int exit_code = -1;
  std::string out, err;
};
// Runs the built trtlens with `args` (no shell), capturing stdout and stderr.
// `env` entries ("NAME=value") are added to the environment.
RunResult run_trtlens(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                      const RunLimits& limits = {});

// Contents of `path` ("" when it cannot be read).
std::string read_text(const std::string& path);

// Names of the entries of folder `dir`, sorted.
std::vector<std::string> folder_entries(const std::string& dir);

// The JSON a page embeds in its <script> element whose id is `id`; null when
// the page has none.
nlohmann::json embedded_json(const std::string& page, const std::string& id);

// Writes `contents` to `path` (creating folders).
void write_text(const std::string& path, const std::string& contents);

}  // namespace trtlens::test
