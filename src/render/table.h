// Tables for people and programs: aligned text (optionally coloured), markdown, CSV.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trtlens {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each row has header.size() cells
  // Columns whose cells are numbers: right-aligned in text.
  std::vector<bool> numeric;
};

// Columns padded to their widest cell (display width, UTF-8 aware, ANSI colour
// codes not counted), two spaces between columns, header underlined with '-'.
std::string to_text(const Table& t);
// GitHub-flavoured markdown; '|' in cells is escaped.
std::string to_markdown(const Table& t);
// RFC 4180 CSV: cells quoted when they hold ',', '"' or a newline.
std::string to_csv(const Table& t);

// A byte count for people: "22.3 MiB", "41.0 KiB", "80 B"; "overflow" for INT64_MAX
// (a sum that saturated).
std::string mib(int64_t bytes);

// True when colour should be used on stdout: a terminal and NO_COLOR unset.
bool stdout_wants_color();
// Wraps `text` in the ANSI colour `code` (e.g. "32" green) when `on`.
std::string colorize(const std::string& text, const char* code, bool on);

}  // namespace trtlens
