// The engine report card: one self-contained HTML page (template, CSS and JS
// from web/engine_report.*, embedded at build time; data inlined as JSON).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "engine/internal.h"
#include "render/engine_render.h"
#include "render/html.h"
#include "util/embedded.h"

using nlohmann::json;

namespace trtlens {

namespace {


// JSON inside <script>: "</" would close the element early.
std::string script_safe(std::string s) {
  size_t p = 0;
  while ((p = s.find("</", p)) != std::string::npos) {
    s.replace(p, 2, "<\\/");
    p += 3;
  }
  return s;
}


// Fills {{NAME}} placeholders of the template in one pass, so substituted
// text (layer names, SVG) is never scanned for placeholders again.
std::string fill(std::string_view tpl, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  out.reserve(tpl.size());
  size_t p = 0;
  while (p < tpl.size()) {
    size_t a = tpl.find("{{", p);
    if (a == std::string_view::npos) break;
    size_t b = tpl.find("}}", a + 2);
    if (b == std::string_view::npos) break;
    std::string_view key = tpl.substr(a + 2, b - a - 2);
    const std::string* v = nullptr;
    for (const auto& [k, val] : values)
      if (k == key) v = &val;
    out.append(tpl.substr(p, a - p));
    if (v) out += *v;
    else out.append(tpl.substr(a, b + 2 - a));
    p = b + 2;
  }
  out.append(tpl.substr(p));
  return out;
}

json plan_data(const EnginePlan& plan, const std::string& label, size_t graph_max_layers, std::string& svg_out) {
  auto s = summarize(plan, 15);
  auto findings = lint(plan);
  json j;
  j["name"] = label;
  j["plan"] = plan.name;
  j["layout"] = plan.layout;
  j["partial"] = plan.partial();
  j["notes"] = plan.notes;
  j["layers_count"] = s.layers;
  j["noops_folded"] = plan.noops_folded;
  j["total_ms"] = s.total_latency_ms;
  j["has_profile"] = plan.has_profile;
  auto groups = [](const std::vector<GroupStat>& g) {
    json a = json::array();
    for (const auto& x : g) a.push_back({x.key, x.count, x.latency_ms, x.percent});
    return a;
  };
  j["by_type"] = groups(s.by_type);
  j["by_precision"] = groups(s.by_precision);
  json layers = json::array();
  for (const auto& l : plan.layers)
    layers.push_back({l.name, l.type, l.precision, l.avg_ms, l.percent, l.outputs.empty() ? "" : l.outputs[0].precision,
                      l.tactic});
  j["layers"] = std::move(layers);
  json rf = json::array();
  for (const auto& r : s.reformats) rf.push_back({r.layer->name, r.layer->origin, r.from, r.to, r.layer->avg_ms, r.reason});
  j["reformats"] = rf;
  j["reformat"] = {s.reformat_count, s.reformat_ms, s.reformat_percent};
  json sl = json::array();
  for (const auto* l : s.slowest) sl.push_back({l->name, l->type, l->precision, l->avg_ms, l->percent});
  j["slowest"] = sl;
  j["fused"] = s.fused.size();
  json fd = json::array();
  for (const auto& f : findings) fd.push_back({severity_name(f.severity), f.linter, f.layer, f.message, f.suggestion});
  j["findings"] = fd;
  json kv = json::array();
  for (const auto& [k, v] : plan.device) kv.push_back({k, v});
  j["device"] = kv;
  kv = json::array();
  for (const auto& [k, v] : plan.builder) kv.push_back({k, v});
  j["builder"] = kv;
  kv = json::array();
  for (const auto& [k, v] : plan.performance) kv.push_back({k, v});
  j["performance"] = kv;
  if (plan.layers.size() <= graph_max_layers) {
    try {
      svg_out = render_svg(engine_dot_graph(plan));
      // Drop the XML prolog and DOCTYPE: the SVG is inlined in HTML.
      auto p = svg_out.find("<svg");
      if (p != std::string::npos) svg_out = svg_out.substr(p);
      j["graph"] = "";
    } catch (const std::exception& e) {
      j["graph"] = std::string("the graph could not be drawn: ") + e.what();
    }
  } else {
    j["graph"] = fmt::format("the graph is not drawn for plans of more than {} layers (this one has {}); use "
                             "--graph-max-layers or `trtlens engine graph`",
                             graph_max_layers, plan.layers.size());
  }
  return j;
}

}  // namespace

std::string render_engine_report(const std::vector<const EnginePlan*>& plans, size_t graph_max_layers,
                                 const std::vector<std::string>& labels, const std::vector<std::string>& overlays) {
  const auto names = plan_labels(plans, labels);
  json data;
  data["schema_version"] = kEngineSchemaVersion;
  json ps = json::array();
  std::string graphs;
  for (size_t i = 0; i < plans.size(); ++i) {
    std::string svg;
    ps.push_back(plan_data(*plans[i], names[i], graph_max_layers, svg));
    if (i < overlays.size() && !overlays[i].empty()) ps.back()["overlay"] = json::parse(overlays[i]);
    if (!svg.empty())
      graphs += fmt::format("<template id=\"graph-{}\">{}</template>\n", i, svg);
  }
  data["plans"] = std::move(ps);
  std::string title = plans.size() == 1 ? "Engine report: " + names[0]
                                        : fmt::format("Engine report: {} plans", plans.size());
  return fill(embedded_file("web/engine_report.html"),
              {{"TITLE", html_escape(title)},
               {"CSS", std::string(embedded_file("web/engine_report.css"))},
               {"JS", script_safe(std::string(embedded_file("web/engine_report.js")))},
               {"GRAPHS", graphs},
               {"DATA", json_for_script(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))}});
}

}  // namespace trtlens
