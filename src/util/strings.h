// Small string helpers shared by the parsers.
#pragma once
#include <string_view>
#include <vector>

namespace trtlens {

// Pieces of `s` between occurrences of `sep` (empty pieces kept; "" gives {""}).
// The views point into `s`.
std::vector<std::string_view> split(std::string_view s, char sep);

}  // namespace trtlens
