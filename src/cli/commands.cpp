#include "cli/app.h"

namespace trtlens::cli {

// One line per subcommand; each is defined in src/cli/cmd_<name>.cpp.
void add_check_command(CLI::App&, int&);
void add_ops_command(CLI::App&, int&);
void add_matrix_command(CLI::App&, int&);
void add_report_command(CLI::App&, int&);
void add_engine_command(CLI::App&, int&);
void add_env_command(CLI::App&, int&);
void add_plan_command(CLI::App&, int&);
void add_calib_command(CLI::App&, int&);
void add_build_command(CLI::App&, int&);
void add_partition_command(CLI::App&, int&);
void add_serve_command(CLI::App&, int&);
void add_admin_command(CLI::App&, int&);
void add_push_command(CLI::App&, int&);

const std::vector<CommandAdder>& commands() {
  static const std::vector<CommandAdder> list = {
      add_check_command, add_ops_command,  add_matrix_command, add_partition_command, add_report_command,
      add_engine_command, add_env_command, add_plan_command,   add_calib_command,     add_build_command,
      add_serve_command, add_push_command, add_admin_command,
  };
  return list;
}

}  // namespace trtlens::cli
