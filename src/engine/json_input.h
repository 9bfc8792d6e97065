// Reading trtexec's JSON files (graph, profile, timing, metadata) through
// simdjson's On-Demand API: it validates what it reads, never recurses, and
// reads a 25 MB graph.json well inside the 0.3 s budget. What we keep as raw
// JSON (layer attributes, metadata values) is compacted here under the
// nesting limit, so no later walk over it can recurse without bound.
#pragma once
#include <simdjson.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "util/mapped_file.h"

namespace trtlens::engine_detail {

namespace od = simdjson::ondemand;

// Input past one of our limits (nesting depth); read_json reports it as bad input.
struct JsonLimit {
  std::string what;
};

// The text of a JSON file, readable for simdjson's padding past its end: a
// memory map of the file when its last page has room for the padding
// (file-backed pages fault in many at a time: a 25 MB graph.json loads in a
// fifth of the time a copy takes on our VM), else a padded copy.
class JsonText {
 public:
  // Maps a regular file of at most kMaxInputBytes (src/util/files.h). Throws
  // InputError(path, ...) for anything else: not a regular file, past the cap.
  static JsonText load(const std::string& path);
  // A padded copy of `text`.
  explicit JsonText(std::string_view text) : copy_(text) {}
  std::string_view text() const;
  simdjson::padded_string_view padded() const;
  void replace(std::string_view text);  // by a padded copy of `text`

 private:
  std::unique_ptr<MappedFile> map_;
  simdjson::padded_string copy_;
};

// Parses `text` and runs `read` over the document. Invalid UTF-8 in `text`
// is replaced by U+FFFD first (trtexec copies names byte for byte). `read`
// must read the whole document and let simdjson's errors propagate (after one,
// the document cannot be read further). Throws InputError(file, "invalid JSON
// (byte N): ...") for simdjson's errors and for text after the document, and
// InputError(file, "refused (byte N): ...") for JsonLimit; InputError thrown
// by `read` passes through.
void read_json(JsonText& text, const std::string& file,
               const std::function<void(od::document&)>& read);

// A field's key and a string value's text: views into the document when they
// hold no escape (no copy: most of a 25 MB graph.json is strings), else
// simdjson's unescaped copy. Valid while the document lives.
std::string_view key_of(od::field& f);
std::string_view string_of(od::value v);

// A value as written: containers whole, scalars without the spaces after them.
std::string_view raw_json(od::value v);

// Appends raw JSON text without the spaces and newlines between tokens.
// `level` is the nesting level of the value's parent (the document's outer
// object is level 1); throws JsonLimit when a container sits deeper than
// kMaxNestingDepth.
void append_compact(std::string_view raw, std::string& out, int level);

// A string's text, or the compact JSON of any other value (see append_compact).
std::string text_of(od::value v, int level);

// Appends `s` as a JSON string literal (quotes, backslashes and control characters escaped).
void append_quoted(std::string_view s, std::string& out);

// A JSON number as a double; NaN for null, a string, or a number past
// double's range (1e400): the callers' "not a finite number".
double number_or_nan(od::value v);

// trtexec writes profile.json layer names without JSON escaping, and C++
// streams write non-finite latencies as nan/inf. Records have a fixed shape,
// { "name" : "<raw>", "timeMs" : t, "averageMs" : a, ... }, so this pre-pass
// escapes each name up to the '", "timeMs"' that ends it and turns bare
// nan/inf/NaN/Infinity values into null. Used only when strict parsing fails;
// returns `text` unchanged when it finds nothing to repair.
std::string repair_profile_text(std::string_view text);

}  // namespace trtlens::engine_detail
