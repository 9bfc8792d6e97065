// One escaping helper per output format, used by every writer of that format (check, matrix, partition, engine,
// overlay): names come byte for byte from models and engines and must stay inert text wherever they are written.
#pragma once
#include <string>
#include <string_view>

namespace trtlens {

// Markdown text (a table cell, a note, a list item; not inside a code span): valid UTF-8, control characters as
// \xNN (escape_controls), markdown and HTML punctuation backslash-escaped (\ ` * _ [ ] < > | ~ &, so `<script>`,
// `[a](b)` and `a|b` stay text), and what GitHub would turn live broken with U+2060 WORD JOINER: an @mention
// ("@user" becomes "@\u2060user"), an extended autolink ("https://x" becomes "https:\u2060//x", "www.x" becomes
// "www\u2060.x"). Renders as the name did; a PR bot posting it notifies no one and links nothing.
std::string md_escape(std::string_view s);

// `s` as an inline code span (`name`), where nothing is markup (no HTML, mention or link); md_escape(s) instead when
// `s` holds a backtick (which would end the span), a control character or invalid UTF-8.
std::string md_code(std::string_view s);

// `text` as a fenced markdown code block: the fence is one backtick longer than the longest run of backticks in
// `text` (at least three), so no line of it closes the block early. Control characters as in md_escape.
std::string md_code_block(std::string_view text);

// Text for XML 1.0 element content and attribute values (JUnit): valid UTF-8 (invalid bytes, lone surrogates
// included, become U+FFFD), control characters as \xNN (XML 1.0 cannot carry most of them), the non-characters
// U+FFFE and U+FFFF, which XML 1.0 does not allow either, as the text \uFFFE and \uFFFF, and & < > " ' as entities.
std::string xml_escape(std::string_view s);

// One CSV cell (RFC 4180, as written by to_csv): valid UTF-8, control characters as \xNN (a raw ESC or NUL reaches
// no spreadsheet or terminal), and a cell whose text starts with = + - @ (or, before escaping, TAB or CR) prefixed
// with ' so a spreadsheet reads it as text, not a formula (OWASP "CSV Injection"); quoted when it holds , " or '
// after that. A `numeric` cell (a number trtlens wrote in a numeric column) that parses whole as a decimal
// number keeps its sign: -1 stays -1 there.
std::string csv_cell(std::string_view s, bool numeric = false);

}  // namespace trtlens
