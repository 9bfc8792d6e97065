#include <CLI/CLI.hpp>

#include "cli/app.h"

namespace trtlens::cli {

// Placeholder until the calib subcommand lands.
void add_calib_command(CLI::App& app, int& exit_code) {
  (void)app;
  (void)exit_code;
}

}  // namespace trtlens::cli
