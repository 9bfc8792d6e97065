#include "render/report_html.h"

#include <stdexcept>
#include <vector>

#include "util/embedded.h"

namespace trtlens {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string json_for_script(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    // These bytes occur in JSON only inside strings, where \u escapes are valid.
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' && (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      out += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
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
