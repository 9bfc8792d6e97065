// Escaping for the self-contained HTML pages (model report, engine report).
#pragma once
#include <string>
#include <string_view>

namespace trtlens {

// Text safe inside HTML element content and quoted attribute values; invalid
// UTF-8 becomes U+FFFD.
std::string html_escape(std::string_view text);

// JSON made safe to sit inside a <script> element: every '<', '>' and '&'
// becomes a \u escape (so "</script>" or "<!--" in a model string cannot end
// or alter the script element), as do U+2028 and U+2029.
std::string json_for_script(std::string_view json);

// Every byte of `text` percent-encoded (%2F) but ASCII letters, digits, "-._~" and the
// characters of `keep` (say "/" for a path).
std::string percent_encode(std::string_view text, std::string_view keep = {});

}  // namespace trtlens
