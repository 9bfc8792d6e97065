// Where a command's output goes: stdout, or a file written all-or-nothing.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace trtlens::cli {

// Prints `text` to stdout, or writes it to `path` (write_file_atomic) when
// `path` is non-empty. Throws InputError when the file cannot be written.
void emit(const std::string& text, const std::string& path);

// Adds --format (text, json or markdown; `format` holds the default) to `cmd`.
void add_format_option(CLI::App* cmd, std::string& format);

// Colour for text output going to stdout (a terminal, NO_COLOR unset).
bool color_for(const std::string& path);

}  // namespace trtlens::cli
