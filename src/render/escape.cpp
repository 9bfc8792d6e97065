#include "render/escape.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "util/utf8.h"

namespace trtlens {
namespace {

constexpr std::string_view kWordJoiner = "\xE2\x81\xA0";  // U+2060

bool starts_with_ci(std::string_view s, size_t at, std::string_view prefix) {
  if (s.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[at + i])) != prefix[i]) return false;
  return true;
}

}  // namespace

std::string md_escape(std::string_view s) {
  const std::string text = escape_controls(s);
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
      case '\\': case '`': case '*': case '_': case '[': case ']': case '<': case '>': case '|': case '~': case '&':
        out += '\\';
        out += c;
        break;
      case '@':  // a mention (and an e-mail autolink): the word joiner keeps the name from being read after it
        out += c;
        out += kWordJoiner;
        break;
      case ':':  // "scheme://": GitHub's extended autolinks
        out += c;
        if (text.compare(i + 1, 2, "//") == 0) out += kWordJoiner;
        break;
      default:
        // "www.": the other extended autolink
        if ((c == 'w' || c == 'W') && starts_with_ci(text, i, "www.")) {
          out.append(text, i, 3);
          out += kWordJoiner;
          i += 2;
          break;
        }
        out += c;
    }
  }
  return out;
}

std::string md_code(std::string_view s) {
  // Inside a code span nothing is markup (no HTML, mention or link); only a backtick would end it.
  const std::string text = escape_controls(s);
  if (text != s || text.find('`') != std::string::npos) return md_escape(s);
  return "`" + text + "`";
}

std::string md_code_block(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string out = fence + "\n";
  // Line by line: escape_controls would show the newlines themselves as \x0a.
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    out += escape_controls(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out + fence + "\n";
}

std::string xml_escape(std::string_view s) {
  std::string out;
  const std::string text = escape_controls(s);
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\xEF':
        // U+FFFE (EF BF BE) and U+FFFF (EF BF BF): valid UTF-8, not XML 1.0 characters.
        if (i + 2 < text.size() && text[i + 1] == '\xBF' && (text[i + 2] == '\xBE' || text[i + 2] == '\xBF')) {
          out += text[i + 2] == '\xBE' ? "\\uFFFE" : "\\uFFFF";
          i += 2;
          break;
        }
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

std::string csv_cell(std::string_view s, bool numeric) {
  // TAB and CR start a formula too (OWASP): look at the raw first byte, before they become \x09 and \x0d.
  const bool formula_lead = !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' ||
                                           s[0] == '\t' || s[0] == '\r');
  std::string text = escape_controls(s);
  if (formula_lead) {
    // A number as trtlens writes one (-1, -0.5, -1e-05): digits, sign, point and exponent only, no "-inf".
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    const bool plain_number = numeric && ec == std::errc() && end == s.data() + s.size() &&
                              s.find_first_not_of("0123456789.eE+-") == std::string_view::npos;
    if (!plain_number) text.insert(0, 1, '\'');
  }
  if (text.find_first_of(",\"'") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace trtlens
