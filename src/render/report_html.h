// Assembly of the self-contained report page: the embedded template
// (web/report.html) with its CSS, JS and the page data inlined.
#pragma once
#include <string>
#include <string_view>

#include "render/html.h"

namespace trtlens {

// The whole page: web/report.html with web/report.css, web/report.js and
// `data_json` (ReportBuilder::json()) inlined. `title` is plain text.
std::string assemble_report_page(std::string_view title, std::string_view data_json);

}  // namespace trtlens
