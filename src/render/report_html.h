// Assembly of the self-contained report page: the embedded template
// (web/report.html) with its CSS, JS and the page data inlined.
#pragma once
#include <string>
#include <string_view>

namespace trtlens {

// Text safe inside HTML element content and quoted attribute values.
std::string html_escape(std::string_view text);

// JSON made safe to sit inside <script type="application/json">: every '<',
// '>' and '&' becomes a \u escape (so "</script>" or "<!--" in a model string
// cannot end or alter the script element), as do U+2028 and U+2029.
std::string json_for_script(std::string_view json);

// The whole page: web/report.html with web/report.css, web/report.js and
// `data_json` (ReportBuilder::json()) inlined. `title` is plain text.
std::string assemble_report_page(std::string_view title, std::string_view data_json);

}  // namespace trtlens
