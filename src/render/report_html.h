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

// The page's anchor at a node (docs/report.md, "Linking to a node"):
// "#node=NAME[&graph=PATH][&trt=R&precision=P[&target=T]]". `node` is a node name (the page
// opens the first node of that name, in graph `graph` when it is not ""), a page id "<graph
// path>/<index>", or the version diff's key of an unnamed node; "" leaves the node out.
// `runtime` is a pin as the dashboard writes it, "RELEASE PRECISION[ TARGET]" ("" = the
// page's own). Each value is percent-encoded but [A-Za-z0-9-._~/:] (invalid UTF-8 replaced
// first, as in the page's data), so no '&', '#', quote or '<' of a name ends its field; the
// '&'s between fields still need html_escape inside an HTML attribute.
std::string report_anchor(std::string_view node, std::string_view graph = {}, std::string_view runtime = {});

}  // namespace trtlens
