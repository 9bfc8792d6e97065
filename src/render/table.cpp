#include "render/table.h"

#include "render/escape.h"
#include "util/utf8.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>

namespace trtlens {
namespace {

// Display width: UTF-8 code points, ANSI escape sequences excluded.
size_t display_width(const std::string& s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++w;
  }
  return w;
}

// Cells come byte for byte from models and engines: a table with invalid UTF-8 or a control character is printed
// from a copy made valid and escaped (escape_controls).
const Table& repaired(const Table& t, Table& storage) {
  auto clean = [&](const std::string& s) {
    for (size_t i = 0; i < s.size();) {
      size_t n = utf8_sequence_length(s, i);
      if (n == 0 || (n == 1 && (static_cast<unsigned char>(s[i]) < 0x20 || s[i] == 0x7f))) return false;
      i += n;
    }
    return true;
  };
  bool ok = std::all_of(t.header.begin(), t.header.end(), clean) &&
            std::all_of(t.rows.begin(), t.rows.end(), [&](const auto& row) {
              return std::all_of(row.begin(), row.end(), [&](const Cell& c) { return clean(c.text); });
            });
  if (ok) return t;
  storage = t;
  for (auto& h : storage.header) h = escape_controls(h);
  for (auto& row : storage.rows)
    for (auto& cell : row) cell.text = escape_controls(cell.text);
  return storage;
}

}  // namespace

std::string to_text(const Table& table) {
  Table storage;
  const Table& t = repaired(table, storage);
  std::vector<size_t> width(t.header.size(), 0);
  for (size_t c = 0; c < t.header.size(); ++c) width[c] = display_width(t.header[c]);
  for (const auto& row : t.rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], display_width(row[c].text));
  auto line = [&](const std::vector<Cell>& cells) {
    std::string out;
    for (size_t c = 0; c < width.size(); ++c) {
      const Cell empty("");
      const Cell& cell = c < cells.size() ? cells[c] : empty;
      std::string pad(width[c] - std::min(width[c], display_width(cell.text)), ' ');
      std::string text = cell.color ? colorize(cell.text, cell.color, true) : cell.text;
      bool right = c < t.numeric.size() && t.numeric[c];
      bool last = c + 1 == width.size();
      out += right ? pad + text : (last ? text : text + pad);
      if (!last) out += "  ";
    }
    out += '\n';
    return out;
  };
  std::string out = line({t.header.begin(), t.header.end()});
  std::vector<Cell> rule;
  for (size_t w : width) rule.emplace_back(std::string(w, '-'));
  out += line(rule);
  for (const auto& row : t.rows) out += line(row);
  return out;
}

std::string to_markdown(const Table& table) {
  Table storage;
  const Table& t = repaired(table, storage);
  auto cell = [](const std::string& s) {
    std::string out;
    for (char ch : s) {
      if (ch == '|') out += "\\|";
      else out += ch;
    }
    return out;
  };
  std::string out = "|";
  for (const auto& h : t.header) out += " " + cell(h) + " |";
  out += "\n|";
  for (size_t c = 0; c < t.header.size(); ++c)
    out += (c < t.numeric.size() && t.numeric[c]) ? " ---: |" : " --- |";
  out += '\n';
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& v : row) out += " " + cell(v.text) + " |";
    out += '\n';
  }
  return out;
}

std::string to_markdown_text(const Table& table) {
  Table t = table;
  for (auto& h : t.header) h = md_escape(h);
  for (auto& row : t.rows)
    for (auto& cell : row) cell.text = md_escape(cell.text);
  return to_markdown(t);
}

std::string to_csv(const Table& t) {
  auto line = [&](const std::vector<Cell>& cells, bool header) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c)
      out += (c ? "," : "") + csv_cell(cells[c].text, !header && c < t.numeric.size() && t.numeric[c]);
    return out + "\r\n";
  };
  std::string out = line({t.header.begin(), t.header.end()}, true);
  for (const auto& row : t.rows) out += line(row, false);
  return out;
}

bool stdout_wants_color() {
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  return ::isatty(STDOUT_FILENO) != 0;
}

std::string colorize(const std::string& text, const char* code, bool on) {
  if (!on) return text;
  return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
}

std::string mib(int64_t bytes) {
  if (bytes == INT64_MAX) return "overflow";
  if (bytes >= 1048576) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{} B", bytes);
}

std::string count_text(int64_t v) {
  const char* units[] = {"", " k", " M", " G", " T"};
  double x = static_cast<double>(v);
  size_t u = 0;
  while (x >= 1000 && u + 1 < std::size(units)) {
    x /= 1000;
    ++u;
  }
  return u == 0 ? std::to_string(v) : fmt::format("{:.2f}{}", x, units[u]);
}

}  // namespace trtlens
