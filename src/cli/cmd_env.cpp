#include <CLI/CLI.hpp>

#include "cli/app.h"

namespace trtlens::cli {

// Placeholder until the env subcommand lands.
void add_env_command(CLI::App& app, int& exit_code) {
  (void)app;
  (void)exit_code;
}

}  // namespace trtlens::cli
