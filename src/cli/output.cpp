#include "cli/output.h"

#include <CLI/CLI.hpp>

#include <cstdio>

#include "render/table.h"
#include "util/files.h"

namespace trtlens::cli {

void emit(const std::string& text, const std::string& path) {
  if (!path.empty()) {
    write_file_atomic(path, text);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void add_format_option(CLI::App* cmd, std::string& format) {
  cmd->add_option("--format", format, "text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
}

bool color_for(const std::string& path) { return path.empty() && stdout_wants_color(); }

}  // namespace trtlens::cli
