// Locations and helpers shared by the tests.
#pragma once
#include <string>
#include <vector>

namespace trtlens::test {

// A fresh empty folder under the build tree for one test, named after it.
std::string temp_dir(const std::string& name);

// ../shared beside the checkout, or "" when absent (tests that need it skip).
std::string shared_dir();

// Result of running the trtlens binary.
struct RunResult {
  int exit_code = -1;
  std::string out, err;
};
// Runs the built trtlens with `args` (no shell), capturing stdout and stderr.
// `env` entries ("NAME=value") are added to the environment.
RunResult run_trtlens(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

// Writes `contents` to `path` (creating folders).
void write_text(const std::string& path, const std::string& contents);

}  // namespace trtlens::test
