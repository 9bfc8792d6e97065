// A small pull reader for the large JSON files trtexec writes (graph.json,
// profile.json). nlohmann's parser reads ~50 MB/s, too slow for a
// 20,000-layer graph (25 MB) within the 0.3 s budget; this reader walks the
// text once, hands out string views into it and decodes escapes only where
// present. Small values (attributes, metadata) still go through nlohmann.
#pragma once
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace trtlens::engine_detail {

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  // Thrown on malformed text; offset() says where.
  struct Error {
    size_t offset;
    std::string what;
  };

  char peek();                     // next non-space character, '\0' at the end
  void expect(char c);             // consumes c (after spaces) or throws
  bool consume(char c);            // consumes c if next, returns whether it did
  std::string_view string();       // a JSON string; escapes decoded (view stays valid while the reader lives)
  double number();                 // a JSON number
  std::string_view skip();         // any value; returns its raw text
  // Iterates an object: begin_object(), bool first = true; while (next_key(first, k)) { read the value }.
  void begin_object() { expect('{'); }
  bool next_key(bool& first, std::string_view& key);
  // Iterates an array: begin_array(), bool first = true; while (next_item(first)) { read the value }.
  void begin_array() { expect('['); }
  bool next_item(bool& first);
  bool at_end();                   // only spaces remain
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }

 private:
  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  [[noreturn]] void fail(const char* what);
  const char* begin_;
  const char* p_;
  const char* end_;
  std::deque<std::string> decoded_;  // strings that held escapes
};

// Raw JSON text without the spaces and newlines between tokens.
std::string compact_json(std::string_view raw);
void compact_json_append(std::string_view raw, std::string& out);

}  // namespace trtlens::engine_detail
