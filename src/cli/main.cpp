#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/app.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"
#include "util/utf8.h"

namespace trtlens::cli {

int run(const std::vector<std::string>& args) {
  CLI::App app{"trtlens: TensorRT compatibility of ONNX models and analysis of built engines, offline.", "trtlens"};
  app.set_version_flag("--version", "trtlens " + std::string(trtlens_version()));
  app.require_subcommand(1);
  int exit_code = kExitOk;
  for (CommandAdder add : commands()) add(app, exit_code);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // trtexec's precision flags are a habit: say what trtlens takes instead.
    for (const char* flag : {"--fp16", "--bf16", "--int8", "--fp8", "--fp4", "--best"})
      if (dynamic_cast<const CLI::ExtrasError*>(&e) && std::find(args.begin(), args.end(), flag) != args.end()) {
        fmt::print(stderr, "trtlens: {} is trtexec's flag; trtlens takes --precision {}\n", flag, flag + 2);
        return kExitBadInput;
      }
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitBadInput;  // --help, --version
    // One line, as every usage error (CLI11's own adds "Run with --help for more information." on a second).
    std::string where = "trtlens";
    for (const CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
    fmt::print(stderr, "{}: {} (see {} --help)\n", where, escape_controls(e.what()), where);
    return kExitBadInput;
  } catch (const InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "trtlens: {}\n", escape_controls(e.what()));  // names in it may hold newlines or escapes
    return kExitBadInput;
  } catch (const UsageError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "trtlens: {}\n", escape_controls(e.what()));
    return kExitBadInput;
  }
  return exit_code;
}

}  // namespace trtlens::cli

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f), write() then fails with EFBIG, which
  // the writers report as one line, instead of the process dying silently.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  int code = 3;
  try {
    code = trtlens::cli::run(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "trtlens: internal error: {}\n", trtlens::escape_controls(e.what()));
  }
  // Output is flushed; what is left in memory is not worth freeing (keep_until_exit).
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}
