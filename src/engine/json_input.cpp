#include "engine/json_input.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <filesystem>
#include <limits>

#include "trtlens/error.h"
#include "util/files.h"
#include "util/limits.h"
#include "util/utf8.h"

namespace trtlens::engine_detail {

namespace {
constexpr std::string_view kSpaces = " \t\r\n";

std::string_view trim_end(std::string_view s) {
  size_t e = s.find_last_not_of(kSpaces);
  return e == std::string_view::npos ? std::string_view() : s.substr(0, e + 1);
}

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}
}  // namespace

JsonText JsonText::load(const std::string& path) {
  regular_file_size(path, kMaxInputBytes);  // refuses what is not a regular file, or is past the cap, by name
  auto map = std::make_unique<MappedFile>(path);
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE)), tail = map->size() % page;
  if (tail == 0 || page - tail < simdjson::SIMDJSON_PADDING) return JsonText(map->view());
  JsonText t{std::string_view()};
  t.map_ = std::move(map);  // the rest of the last page (zeros) is the padding
  return t;
}

std::string_view JsonText::text() const { return map_ ? map_->view() : std::string_view(copy_); }

simdjson::padded_string_view JsonText::padded() const {
  if (map_) return simdjson::padded_string_view(map_->view(), map_->size() + simdjson::SIMDJSON_PADDING);
  return copy_;
}

void JsonText::replace(std::string_view text) {
  copy_ = simdjson::padded_string(text);
  map_.reset();
}

void read_json(JsonText& text, const std::string& file,
               const std::function<void(od::document&)>& read) {
  // One parser per thread: its buffers, sized by the largest file (graph.json),
  // serve the profile, timing and metadata files after it.
  static thread_local od::parser parser;
  od::document doc;
  bool started = false;
  // Where the reader stopped, when simdjson can say.
  auto where = [&]() -> std::string {
    const char* at = nullptr;
    std::string_view t = text.text();
    if (started && !doc.current_location().get(at) && at >= t.data() && at <= t.data() + t.size())
      return fmt::format(" (byte {})", at - t.data());
    return "";
  };
  try {
    auto parsed = parser.iterate(text.padded());
    if (parsed.error() == simdjson::UTF8_ERROR) {
      text.replace(to_valid_utf8(text.text()));
      parsed = parser.iterate(text.padded());
    }
    doc = std::move(parsed).value();
    started = true;
    read(doc);
    // Every reader reads its whole document: text after it (a stray bracket, a
    // second document) means the file is not what it claims to be.
    const char* after = nullptr;
    if (!doc.current_location().get(after))
      throw InputError(file, fmt::format("invalid JSON{}: text after the end of the document", where()));
  } catch (const simdjson::simdjson_error& e) {
    throw InputError(file, fmt::format("invalid JSON{}: {}", where(), e.what()));
  } catch (const JsonLimit& e) {
    throw InputError(file, fmt::format("refused{}: {}", where(), e.what));
  }
}

namespace {
// The text from `p` (just after an opening quote) to the closing quote;
// empty optional when it holds a backslash. Valid JSON has a closing quote.
std::optional<std::string_view> unescaped_text(const char* p) {
  const char* q = static_cast<const char*>(std::strchr(p, '"'));
  std::string_view t(p, static_cast<size_t>(q - p));
  if (t.find('\\') != std::string_view::npos) return std::nullopt;
  return t;
}
}  // namespace

std::string_view key_of(od::field& f) {
  if (auto t = unescaped_text(f.key().raw())) return *t;
  return f.unescaped_key();
}

std::string_view string_of(od::value v) {
  if (auto t = unescaped_text(std::string_view(v.raw_json_token()).data() + 1)) return *t;
  return v.get_string();
}

std::string_view raw_json(od::value v) {
  switch (v.type()) {
    case od::json_type::object: return trim_end(od::object(v.get_object()).raw_json());
    case od::json_type::array: return trim_end(od::array(v.get_array()).raw_json());
    default: return trim_end(v.raw_json_token());
  }
}

namespace {
// Inside a JSON string: copies text[i] to `out` (with the character a backslash
// escapes, moving `i` past it); false when it was the closing quote.
bool copy_string_char(std::string_view text, size_t& i, std::string& out) {
  char c = text[i];
  out += c;
  if (c == '\\' && i + 1 < text.size()) out += text[++i];
  return c != '"';
}
}  // namespace

void append_compact(std::string_view raw, std::string& out, int level) {
  bool in_str = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (in_str) {
      in_str = copy_string_char(raw, i, out);
    } else if (c == '"') {
      in_str = true;
      out += c;
    } else if (c == '{' || c == '[') {
      if (++level > kMaxNestingDepth)
        throw JsonLimit{fmt::format("JSON nested deeper than {} levels", kMaxNestingDepth)};
      out += c;
    } else if (c == '}' || c == ']') {
      --level;
      out += c;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      // Readers downstream refuse numbers past double's range: refuse them here, with the file's name.
      size_t e = i;
      while (e < raw.size() && is_number_char(raw[e])) ++e;
      std::string number(raw.substr(i, e - i));
      if (!std::isfinite(std::strtod(number.c_str(), nullptr)))
        throw JsonLimit{fmt::format("the number {} is past the range of a double", number.substr(0, 40))};
      out += number;
      i = e - 1;
    } else if (kSpaces.find(c) == std::string_view::npos) {
      out += c;
    }
  }
}

std::string text_of(od::value v, int level) {
  if (v.type() == od::json_type::string) return std::string(string_of(v));
  std::string out;
  append_compact(raw_json(v), out, level);
  return out;
}

void append_quoted(std::string_view s, std::string& out) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  out += '"';
}

double number_or_nan(od::value v) {
  double d = 0;
  if (v.type() == od::json_type::number && !v.get_double().get(d)) return d;
  return std::numeric_limits<double>::quiet_NaN();
}

namespace {

// Step 1 of repair_profile_text: escape each record's name.
std::string escape_profile_names(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 64);
  size_t pos = 0;  // text before pos is in out
  for (size_t at = text.find("\"name\""); at != std::string_view::npos;
       at = text.find("\"name\"", std::max(at + 6, pos))) {
    size_t colon = text.find_first_not_of(kSpaces, at + 6);
    if (colon == std::string_view::npos || text[colon] != ':') continue;
    size_t open = text.find_first_not_of(kSpaces, colon + 1);
    if (open == std::string_view::npos || text[open] != '"') continue;
    size_t next = text.find("\"timeMs\"", open + 1);
    if (next == std::string_view::npos) break;
    // back from "timeMs" over spaces, the comma and spaces to the name's closing quote
    size_t comma = text.find_last_not_of(kSpaces, next - 1);
    if (text[comma] != ',') continue;
    size_t close = text.find_last_not_of(kSpaces, comma - 1);
    if (close <= open || text[close] != '"') continue;
    out.append(text.substr(pos, open + 1 - pos));
    for (char c : text.substr(open + 1, close - open - 1)) {
      if (c == '"' || c == '\\') out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
      else out += c;
    }
    pos = close;
  }
  out.append(text.substr(pos));
  return out;
}

// Step 2: bare nan/inf/infinity (any case, signed or not) outside strings become null.
std::string null_non_finite(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_str) {
      in_str = copy_string_char(text, i, out);
      continue;
    }
    if (c == '"') in_str = true;
    size_t w = (c == '-' || c == '+') ? i + 1 : i;
    size_t e = w;
    while (e < text.size() && std::isalpha(static_cast<unsigned char>(text[e]))) ++e;
    if (e == w) {
      out += c;
      continue;
    }
    std::string word;
    for (size_t k = w; k < e; ++k) word += static_cast<char>(std::tolower(static_cast<unsigned char>(text[k])));
    if (word == "nan" || word == "inf" || word == "infinity") out += "null";
    else out.append(text.substr(i, e - i));
    i = e - 1;
  }
  return out;
}

}  // namespace

std::string repair_profile_text(std::string_view text) { return null_non_finite(escape_profile_names(text)); }

}  // namespace trtlens::engine_detail
