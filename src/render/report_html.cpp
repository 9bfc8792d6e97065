#include "render/report_html.h"

#include <stdexcept>
#include <vector>

#include "render/html.h"
#include "util/embedded.h"
#include "util/utf8.h"

namespace trtlens {

std::string report_anchor(std::string_view node, std::string_view graph, std::string_view runtime) {
  std::string out = "#";
  auto field = [&out](std::string_view name, std::string_view value) {
    out += (out.size() > 1 ? "&" : "") + std::string(name) + "=" + percent_encode(to_valid_utf8(value), "/:");
  };
  if (!node.empty()) {
    field("node", node);
    if (!graph.empty()) field("graph", graph);
  }
  // "RELEASE PRECISION[ TARGET]"
  const size_t sp = runtime.find(' '), sp2 = sp == std::string_view::npos ? sp : runtime.find(' ', sp + 1);
  if (sp != std::string_view::npos) {
    field("trt", runtime.substr(0, sp));
    field("precision", runtime.substr(sp + 1, sp2 == std::string_view::npos ? sp2 : sp2 - sp - 1));
    if (sp2 != std::string_view::npos) field("target", runtime.substr(sp2 + 1));
  }
  return out;
}

std::string assemble_report_page(std::string_view title, std::string_view data_json) {
  std::string_view tpl = embedded_file("web/report.html");
  const std::string css(embedded_file("web/report.css"));
  const std::string js(embedded_file("web/report.js"));
  // The inlined assets must not be able to close their own elements.
  if (css.find("</style") != std::string::npos || js.find("</script") != std::string::npos)
    throw std::runtime_error("report: web assets contain a closing tag");
  const std::string title_html = html_escape(title);
  const std::string data = json_for_script(data_json);
  struct Slot {
    std::string_view mark;
    const std::string* value;
  };
  const std::vector<Slot> slots = {
      {"{{TITLE}}", &title_html}, {"{{CSS}}", &css}, {"{{JS}}", &js}, {"{{DATA}}", &data}};
  // One pass over the template: inserted text is never searched for marks.
  std::string out;
  out.reserve(tpl.size() + css.size() + js.size() + data.size() + 2 * title_html.size());
  size_t pos = 0;
  while (pos < tpl.size()) {
    size_t best = std::string_view::npos;
    const Slot* which = nullptr;
    for (const Slot& s : slots) {
      size_t at = tpl.find(s.mark, pos);
      if (at < best) {
        best = at;
        which = &s;
      }
    }
    if (!which) {
      out.append(tpl.substr(pos));
      break;
    }
    out.append(tpl.substr(pos, best - pos));
    out += *which->value;
    pos = best + which->mark.size();
  }
  return out;
}

}  // namespace trtlens
