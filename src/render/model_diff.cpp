#include "render/model_diff.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "render/html.h"

namespace trtlens {

namespace {

using json = nlohmann::ordered_json;

std::string verdict_of(const NodeVerdict* v) { return v ? std::string(verdict_name(v->verdict)) : "-"; }
std::string first_reason(const NodeVerdict* v) { return v && !v->reasons.empty() ? v->reasons[0].message : ""; }

}  // namespace

std::string model_diff_json(const ModelDiffView& v) {
  const ModelDiff& d = *v.diff;
  json doc = {{"schema_version", kModelDiffSchemaVersion},
              {"trtlens_version", trtlens_version()},
              {"kb_fingerprint", KnowledgeBase::builtin().fingerprint()},
              {"runtime", v.runtime},
              {"before", {{"label", v.before_label}, {"converts", v.converts_before}}},
              {"after", {{"label", v.after_label}, {"converts", v.converts_after}}},
              {"kept", d.kept}};
  auto one_side = [](const std::vector<ModelDiffEntry>& entries, bool added) {
    json out = json::array();
    for (const ModelDiffEntry& e : entries)
      out.push_back({{"graph", e.graph}, {"node", e.node}, {"op_type", e.op_type},
                     {"verdict", verdict_of(added ? e.after : e.before)}});
    return out;
  };
  doc["added"] = one_side(d.added, true);
  doc["removed"] = one_side(d.removed, false);
  json changed = json::array();
  for (const ModelDiffEntry& e : d.changed)
    changed.push_back({{"graph", e.graph}, {"node", e.node}, {"op_type", e.op_type}, {"before", verdict_of(e.before)},
                       {"after", verdict_of(e.after)}, {"reason", first_reason(e.after ? e.after : e.before)}});
  doc["changed"] = std::move(changed);
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string model_diff_html(const ModelDiffView& v) {
  const ModelDiff& d = *v.diff;
  auto badge = [](const std::string& verdict) {
    return fmt::format("<span class=\"verdict v-{0}\">{0}</span>", html_escape(verdict));
  };
  std::string out = fmt::format(
      "<section class=\"diff\"><h2>{} → {} at {}</h2>\n<p>converts: {} → {}. {} nodes kept, {} added, {} removed, "
      "{} with a changed verdict.</p>\n",
      html_escape(v.before_label), html_escape(v.after_label), html_escape(v.runtime),
      v.converts_before ? "yes" : "no", v.converts_after ? "yes" : "no", d.kept, d.added.size(), d.removed.size(),
      d.changed.size());
  auto table = [&](const char* title, const std::vector<ModelDiffEntry>& entries, bool changed, bool added) {
    if (entries.empty()) return;
    out += fmt::format("<h3>{} ({})</h3>\n<table class=\"diff-{}\"><tr><th>graph</th><th>node</th><th>op_type</th>",
                       title, entries.size(), title);
    out += changed ? "<th>before</th><th>after</th><th>reason</th></tr>\n" : "<th>verdict</th></tr>\n";
    for (const ModelDiffEntry& e : entries) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>", html_escape(e.graph.empty() ? "main" : e.graph),
                         html_escape(e.node), html_escape(e.op_type));
      if (changed)
        out += fmt::format("<td>{}</td><td>{}</td><td>{}</td></tr>\n", badge(verdict_of(e.before)),
                           badge(verdict_of(e.after)), html_escape(first_reason(e.after)));
      else
        out += fmt::format("<td>{}</td></tr>\n", badge(verdict_of(added ? e.after : e.before)));
    }
    out += "</table>\n";
  };
  table("changed", d.changed, true, false);
  table("added", d.added, false, true);
  table("removed", d.removed, false, false);
  return out + "</section>\n";
}

}  // namespace trtlens
