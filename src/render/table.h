// Tables for people and programs: aligned text (optionally coloured), markdown, CSV.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trtlens {

// A table cell: its text (names come byte for byte from models and engines)
// and, for text output, a colour (an ANSI SGR code such as "32", or null).
// Colour is kept apart from the text so that escape codes inside a name are
// shown escaped, never sent to the terminal.
struct Cell {
  std::string text;
  const char* color = nullptr;
  Cell(std::string t, const char* c = nullptr) : text(std::move(t)), color(c) {}
  Cell(const char* t) : text(t) {}
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;  // each row has header.size() cells
  // Columns whose cells are numbers: right-aligned in text.
  std::vector<bool> numeric;
};

// Columns padded to their widest cell (display width, UTF-8 aware, ANSI colour
// codes not counted), two spaces between columns, header underlined with '-'.
// Control characters in cells are shown as \xNN (escape_controls): one row, one line.
std::string to_text(const Table& t);
// GitHub-flavoured markdown; '|' in cells is escaped, control characters as in to_text. Cells are markdown
// already: a writer escapes the names it puts in them with md_escape (render/escape.h).
std::string to_markdown(const Table& t);
// The same for a table of plain text: every cell and header escaped with md_escape.
std::string to_markdown_text(const Table& t);
// CSV, each cell through csv_cell (render/escape.h): RFC 4180 quoting, control characters as \xNN, a formula's
// lead character (= + - @ TAB CR) neutralised with ' except on a plain number in a numeric column.
std::string to_csv(const Table& t);

// A byte count for people: "22.3 MiB", "41.0 KiB", "80 B"; "overflow" for INT64_MAX
// (a sum that saturated).
std::string mib(int64_t bytes);
// A MAC or parameter count for people: 1234567 -> "1.23 M", 999 -> "999".
std::string count_text(int64_t v);

// True when colour should be used on stdout: a terminal and NO_COLOR unset.
bool stdout_wants_color();
// Wraps `text` in the ANSI colour `code` (e.g. "32" green) when `on`.
std::string colorize(const std::string& text, const char* code, bool on);

}  // namespace trtlens
