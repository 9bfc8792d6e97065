#include "engine/json_reader.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace trtlens::engine_detail {

void JsonReader::fail(const char* what) { throw Error{offset(), what}; }

char JsonReader::peek() {
  ws();
  return p_ < end_ ? *p_ : '\0';
}

void JsonReader::expect(char c) {
  ws();
  if (p_ >= end_ || *p_ != c) {
    static thread_local char msg[32];
    std::snprintf(msg, sizeof msg, "expected '%c'", c);
    fail(msg);
  }
  ++p_;
}

bool JsonReader::consume(char c) {
  ws();
  if (p_ < end_ && *p_ == c) {
    ++p_;
    return true;
  }
  return false;
}

bool JsonReader::at_end() {
  ws();
  return p_ >= end_;
}

namespace {
void put_utf8(std::string& s, unsigned cp) {
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
}
}  // namespace

std::string_view JsonReader::string() {
  expect('"');
  const char* start = p_;
  while (p_ < end_ && *p_ != '"' && *p_ != '\\') ++p_;
  if (p_ >= end_) fail("unterminated string");
  if (*p_ == '"') return std::string_view(start, static_cast<size_t>(p_++ - start));
  // Escapes: decode into a string owned by the reader.
  std::string s(start, static_cast<size_t>(p_ - start));
  while (p_ < end_ && *p_ != '"') {
    if (*p_ != '\\') {
      s += *p_++;
      continue;
    }
    if (++p_ >= end_) fail("unterminated string");
    char e = *p_++;
    switch (e) {
      case '"': s += '"'; break;
      case '\\': s += '\\'; break;
      case '/': s += '/'; break;
      case 'b': s += '\b'; break;
      case 'f': s += '\f'; break;
      case 'n': s += '\n'; break;
      case 'r': s += '\r'; break;
      case 't': s += '\t'; break;
      case 'u': {
        auto hex4 = [&]() {
          if (end_ - p_ < 4) fail("bad \\u escape");
          unsigned v = 0;
          auto r = std::from_chars(p_, p_ + 4, v, 16);
          if (r.ptr != p_ + 4) fail("bad \\u escape");
          p_ += 4;
          return v;
        };
        unsigned cp = hex4();
        if (cp >= 0xD800 && cp < 0xDC00 && end_ - p_ >= 6 && p_[0] == '\\' && p_[1] == 'u') {
          p_ += 2;
          unsigned lo = hex4();
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        put_utf8(s, cp);
        break;
      }
      default: fail("bad escape");
    }
  }
  if (p_ >= end_) fail("unterminated string");
  ++p_;
  decoded_.push_back(std::move(s));
  return decoded_.back();
}

double JsonReader::number() {
  ws();
  const char* start = p_;
  if (p_ < end_ && (*p_ == '-' || *p_ == '+')) ++p_;
  while (p_ < end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E' || *p_ == '-' || *p_ == '+'))
    ++p_;
  if (p_ == start) fail("expected a number");
  double v = 0;
  auto r = std::from_chars(start, p_, v);
  if (r.ptr != p_) fail("bad number");
  return v;
}

std::string_view JsonReader::skip() {
  char c = peek();
  const char* start = p_;
  if (c == '"') {
    string();
  } else if (c == '{' || c == '[') {
    // Match brackets, stepping over strings.
    int depth = 0;
    while (p_ < end_) {
      char x = *p_;
      if (x == '"') {
        string();
        continue;
      }
      ++p_;
      if (x == '{' || x == '[') ++depth;
      else if (x == '}' || x == ']') {
        if (--depth == 0) break;
      }
    }
    if (depth != 0) fail("unterminated object or array");
  } else if (c == 't' || c == 'f' || c == 'n') {
    std::string_view rest(p_, static_cast<size_t>(end_ - p_));
    size_t n = rest.rfind("true", 0) == 0 ? 4 : rest.rfind("false", 0) == 0 ? 5 : rest.rfind("null", 0) == 0 ? 4 : 0;
    if (n == 0) fail("unexpected literal");
    p_ += n;
  } else {
    number();
  }
  return std::string_view(start, static_cast<size_t>(p_ - start));
}

bool JsonReader::next_key(bool& first, std::string_view& key) {
  if (consume('}')) return false;
  if (!first) expect(',');
  first = false;
  key = string();
  expect(':');
  return true;
}

bool JsonReader::next_item(bool& first) {
  if (consume(']')) return false;
  if (!first) expect(',');
  first = false;
  return true;
}

std::string compact_json(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  compact_json_append(raw, out);
  return out;
}

void compact_json_append(std::string_view raw, std::string& out) {
  bool in_str = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (in_str) {
      out += c;
      if (c == '\\' && i + 1 < raw.size()) out += raw[++i];
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
      out += c;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out += c;
    }
  }
}

}  // namespace trtlens::engine_detail
