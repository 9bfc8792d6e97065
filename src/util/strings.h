// Small string helpers shared by the parsers.
#pragma once
#include <string_view>
#include <vector>

namespace trtlens {

// Pieces of `s` between occurrences of `sep` (empty pieces kept; "" gives {""}).
// The views point into `s`.
std::vector<std::string_view> split(std::string_view s, char sep);

// `s` without leading spaces and tabs and trailing spaces, tabs and CRs (a view into `s`):
// a header value or a log line's field as the writer padded it.
std::string_view trim_blanks(std::string_view s);

// Deepest nesting of JSON arrays and objects in `text` (brackets inside strings
// do not count), scanning no further than one level past `limit`. Lets a reader
// refuse deep JSON before a recursive parser or printer sees it.
int json_nesting_depth(std::string_view text, int limit);

}  // namespace trtlens
