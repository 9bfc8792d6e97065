// libFuzzer target: the output writers' escaping (render/escape.h, to_csv, to_markdown_text, the streamed JSON
// strings) on names made of arbitrary bytes, as models and engines carry them.
// Input: names separated by the input's first byte.
// Contract, checked on every name (any violation aborts, a finding):
//   JSON   the string parses (nlohmann), back to the name when it was valid UTF-8; no C0 control byte in it;
//   XML    only XML 1.0 characters, no raw < or >, every & an entity;
//   CSV    valid UTF-8, no control byte but the CRLF row ends, no cell a spreadsheet reads as a formula;
//   md     valid UTF-8, no control byte, no unescaped < [ ] or live @mention / scheme:// ;
//   none of them holds ESC (JSON may hold DEL raw, as the format allows).
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "render/check_output.h"
#include "render/escape.h"
#include "render/table.h"
#include "util/utf8.h"

namespace {

using trtlens::utf8_sequence_length;

void require(bool ok) {
  if (!ok) std::abort();
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// The code points of valid UTF-8 `s`.
std::vector<uint32_t> code_points(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
    uint32_t c = n == 1 ? b(0)
                 : n == 2 ? (b(0) & 0x1F) << 6 | (b(1) & 0x3F)
                 : n == 3 ? (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F)
                          : (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
    out.push_back(c);
    i += n;
  }
  return out;
}

bool has_control(std::string_view s, bool allow_crlf) {
  for (size_t i = 0; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    if (allow_crlf && s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (u < 0x20 || u == 0x7f) return true;
  }
  return false;
}

void check_json(const std::string& name) {
  std::string out;
  trtlens::append_json_string(out, name);
  // JSON escapes every C0 control (ESC as \u001b); DEL it may carry raw.
  for (char c : out) require(static_cast<unsigned char>(c) >= 0x20);
  nlohmann::json back = nlohmann::json::parse(out);  // throws (a finding) when not well-formed
  // Valid UTF-8 comes back as it was (invalid sequences become U+FFFD, one per maximal subpart).
  require(!valid_utf8(name) || back.get<std::string>() == name);
}

void check_xml(const std::string& name) {
  const std::string x = trtlens::xml_escape(name);
  require(valid_utf8(x));
  for (uint32_t c : code_points(x))
    require(c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
            (c >= 0x10000 && c <= 0x10FFFF));
  require(x.find_first_of("<>\x1b") == std::string::npos);
  for (size_t at = x.find('&'); at != std::string::npos; at = x.find('&', at + 1)) {
    std::string_view rest = std::string_view(x).substr(at);
    require(rest.starts_with("&amp;") || rest.starts_with("&lt;") || rest.starts_with("&gt;") ||
            rest.starts_with("&quot;") || rest.starts_with("&apos;"));
  }
}

// The cells of one CSV row ending in CRLF, unquoted.
std::vector<std::string> csv_cells(std::string_view row) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < row.size(); ++i) {
    char c = row[i];
    if (quoted) {
      if (c == '"' && i + 1 < row.size() && row[i + 1] == '"') cells.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else cells.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

void check_csv(const std::vector<std::string>& names) {
  trtlens::Table t;
  t.header = {"name", "number"};
  t.numeric = {false, true};
  for (const auto& n : names) t.rows.push_back({n, n});
  const std::string csv = trtlens::to_csv(t);
  require(valid_utf8(csv) && !has_control(csv, true));
  size_t row = 0;
  for (size_t start = 0; start < csv.size(); ++row) {
    size_t end = csv.find("\r\n", start);
    require(end != std::string::npos);
    std::vector<std::string> cells = csv_cells(std::string_view(csv).substr(start, end - start));
    require(cells.size() == 2);
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string& cell = cells[c];
      if (cell.empty() || std::string_view("=+-@").find(cell[0]) == std::string_view::npos) continue;
      // Only a plain number in the numeric column keeps its sign.
      char* stop = nullptr;
      std::strtod(cell.c_str(), &stop);
      require(c == 1 && row > 0 && stop == cell.c_str() + cell.size() &&
              cell.find_first_not_of("0123456789.eE+-") == std::string::npos);
    }
    start = end + 2;
  }
}

// The number of backslashes right before s[at].
size_t backslashes_before(std::string_view s, size_t at) {
  size_t n = 0;
  while (n < at && s[at - n - 1] == '\\') ++n;
  return n;
}

void check_markdown(const std::string& name) {
  static constexpr std::string_view kJoiner = "\xE2\x81\xA0";
  for (const std::string& md : {trtlens::md_escape(name), trtlens::md_code(name)}) {
    require(valid_utf8(md) && !has_control(md, false));
    if (md.size() >= 2 && md.front() == '`' && md.back() == '`' && md.find('`', 1) == md.size() - 1) continue;  // a span
    for (size_t i = 0; i < md.size(); ++i) {
      char c = md[i];
      if (c == '<' || c == '>' || c == '[' || c == ']' || c == '`' || c == '|') require(backslashes_before(md, i) % 2 == 1);
      if (c == '@') require(std::string_view(md).substr(i + 1).starts_with(kJoiner));
      if (c == ':' && std::string_view(md).substr(i + 1).starts_with("//")) require(false);
    }
  }
  const std::string table = trtlens::to_markdown_text({{name}, {{name}}, {}});
  require(valid_utf8(table) && table.find('\x1b') == std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  const char sep = static_cast<char>(data[0]);
  std::vector<std::string> names;
  for (size_t start = 0; start <= in.size() && names.size() < 64;) {
    size_t end = std::min(in.find(sep, start), in.size());
    names.emplace_back(in.substr(start, end - start));
    start = end + 1;
  }
  for (const auto& n : names) {
    check_json(n);
    check_xml(n);
    check_markdown(n);
  }
  check_csv(names);
  return 0;
}
