// The bad ONNX inputs issue 2 names, written by tests.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace trtlens::test {

struct BadModel {
  std::string name;     // test-name friendly: "empty", "random", ...
  std::string problem;  // part of the expected one-line message
  // Writes the model into `dir` and returns its path.
  std::string (*make)(const std::string& dir);
};

// empty file, random bytes, truncated model, missing external data file,
// external location escaping the folder, absolute external location, cycle,
// unproduced input.
const std::vector<BadModel>& bad_models();

// GoogleTest prints a parameter by its name (not its bytes) in test names and messages.
inline void PrintTo(const BadModel& b, std::ostream* os) { *os << b.name; }

}  // namespace trtlens::test
