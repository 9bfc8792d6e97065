#include "render/report_html.h"

#include <stdexcept>
#include <vector>

#include "render/html.h"
#include "util/embedded.h"

namespace trtlens {

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
