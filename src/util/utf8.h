// UTF-8 repair for names copied byte for byte from models and engines.
#pragma once
#include <string>
#include <string_view>

namespace trtlens {

// Length of the valid UTF-8 sequence starting at s[i] (1-4), 0 when the bytes
// there are not one (bad lead byte, missing or bad continuation, overlong form,
// surrogate, past U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i);

// `s` with every byte that does not start a valid UTF-8 sequence replaced by
// U+FFFD; valid text is returned unchanged.
std::string to_valid_utf8(std::string_view s);

// `s` made valid UTF-8 with every control character (newline, tab, ESC, DEL,
// ...) shown as \xNN: a name from a model or an engine printed in text,
// markdown or an error line stays on its line and cannot drive the terminal.
std::string escape_controls(std::string_view s);

// `s` as one printable line for a message: the first `max_bytes` bytes, made
// valid UTF-8, with control characters (newlines, NUL, DEL, ...) shown as \xNN,
// and "..." when `s` was longer. Lets a hostile name or server reply be quoted
// in a one-line error.
std::string printable_line(std::string_view s, size_t max_bytes = 200);

}  // namespace trtlens
