// The command-line front end: one file per subcommand, registered in commands.cpp.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace trtlens::cli {

// Exit codes (DESIGN.md): 0 ok / converts, 1 analysed and does not convert,
// 2 bad input or usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitNotConverting = 1;
// check, matrix, partition, engine lint: analysed, and what --fail-on names was found.
inline constexpr int kExitFailOn = 1;
inline constexpr int kExitBadInput = 2;

// Adds one subcommand to `app`. Its callback stores the command's exit code in
// `exit_code`; it throws InputError / UsageError for bad input.
using CommandAdder = void (*)(CLI::App& app, int& exit_code);

// Every subcommand, in the order `trtlens --help` lists them.
const std::vector<CommandAdder>& commands();

// One-shot commands hand their large results (a model, its annotations) here:
// main() ends the process with _Exit, so they are never freed. Freeing a
// million-node model costs a tenth of a run (clang's -disable-free, for the same reason).
template <typename T>
T& keep_until_exit(T&& value) {
  return *new T(std::forward<T>(value));
}

// Runs trtlens with `args` (without the program name), as main() does:
// prints errors as one line on stderr and returns the exit code. Lets one
// command run another (`build` prints `engine summary`).
int run(const std::vector<std::string>& args);

}  // namespace trtlens::cli
