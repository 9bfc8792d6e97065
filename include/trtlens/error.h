// Errors that reach the user. The CLI prints each as one line and exits 2.
#pragma once
#include <stdexcept>
#include <string>

namespace trtlens {

// The input (a model, a JSON file, a cache, a plan) is unreadable or malformed.
// what() is "<file>: <problem>", the one line the user sees.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& problem)
      : std::runtime_error(file + ": " + problem), file_(file), problem_(problem) {}
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, problem_;
};

// The command line asks for something that does not exist (an unknown release,
// an unknown precision, a missing tool). what() is the line the user sees.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace trtlens
