#include "render/model_diff.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "render/html.h"
#include "render/report_html.h"
#include "util/utf8.h"

namespace trtlens {

namespace {

using json = nlohmann::ordered_json;

std::string verdict_of(const NodeVerdict* v) { return v ? std::string(verdict_name(v->verdict)) : "-"; }
std::string first_reason(const NodeVerdict* v) { return v && !v->reasons.empty() ? v->reasons[0].message : ""; }
std::string joined(const std::vector<std::string>& words) { return fmt::format("{}", fmt::join(words, ", ")); }

// `s` cut in the middle to at most `max` code points ("/features/fea…/Conv"): the ends of
// exporter paths tell nodes apart, their common start does not.
std::string clip_middle(const std::string& s, size_t max) {
  std::vector<size_t> starts;  // of each code point
  for (size_t i = 0; i < s.size();) {
    starts.push_back(i);
    i += std::max<size_t>(1, utf8_sequence_length(s, i));
  }
  if (starts.size() <= max) return s;
  const size_t head = (max - 1) / 2, tail = max - 1 - head;
  return s.substr(0, starts[head]) + "\u2026" + s.substr(starts[starts.size() - tail]);
}

struct KindStyle {
  const char* fill;
  const char* border;
  const char* text;
};
KindStyle style_of(DiffGraphNode::Kind k) {
  switch (k) {
    case DiffGraphNode::Kind::Added: return {"#d4f5d0", "#2e8b2e", "#12380f"};
    case DiffGraphNode::Kind::Removed: return {"#fbd5d5", "#b22222", "#5a0d0d"};
    case DiffGraphNode::Kind::Edited: return {"#fde6b0", "#c98a00", "#4d3500"};
    case DiffGraphNode::Kind::Context: break;
  }
  return {"#f2f2f2", "#b5b5b5", "#777777"};
}

json graph_json(const DiffGraph& g) {
  json not_drawn = json::array(), nodes = json::array(), edges = json::array();
  for (const auto& [op, count] : g.not_drawn) not_drawn.push_back({{"op_type", op}, {"count", count}});
  for (const DiffGraphNode& n : g.nodes)
    nodes.push_back({{"graph", n.graph}, {"node", n.node}, {"op_type", n.op_type},
                     {"kind", std::string(diff_node_kind_name(n.kind))}, {"verdict", verdict_of(n.verdict)},
                     {"in_before", n.in_before}, {"in_after", n.in_after}, {"edits", n.edits}});
  for (const DiffGraphEdge& e : g.edges)
    edges.push_back({{"from", e.from}, {"to", e.to}, {"before", e.in_before}, {"after", e.in_after}});
  return {{"changed", g.changed},   {"drawn_changed", g.drawn_changed}, {"not_drawn", not_drawn},
          {"context_not_drawn", g.context_not_drawn}, {"nodes", nodes}, {"edges", edges}};
}

// The graph view's section: a legend, what was left out, and Graphviz's SVG inline.
std::string graph_html(const ModelDiffView& v) {
  const DiffGraph& g = *v.graph;
  std::string out = "<section class=\"diff-graph\"><h3>Graph of the changes</h3>\n";
  if (g.changed == 0) return out + "<p>No node added, removed or edited.</p></section>\n";
  out += "<p class=\"legend\"><span class=\"dg-key dg_added\">added</span> <span class=\"dg-key dg_removed\">"
         "removed</span> <span class=\"dg-key dg_edited\">edited (op_type, attributes or inputs)</span> "
         "<span class=\"dg-key dg_context\">unchanged neighbour</span> · a node opens the report of the version "
         "holding it</p>\n";
  if (!g.not_drawn.empty() || g.context_not_drawn) {
    std::string left;
    for (const auto& [op, count] : g.not_drawn) left += fmt::format("{}{} {}", left.empty() ? "" : ", ", count, html_escape(op));
    out += fmt::format("<p class=\"not-drawn\">{} of {} changed nodes drawn (the largest op_type groups first, each node with the changed nodes connected to it)",
                       g.drawn_changed, g.changed);
    if (!left.empty()) out += "; not drawn: " + left;
    if (g.context_not_drawn) out += fmt::format("; {} unchanged neighbours not drawn", g.context_not_drawn);
    out += ". The tables above list every node.</p>\n";
  }
  std::string svg;
  try {
    svg = render_svg(diff_dot_graph(g, v.before_link, v.after_link, v.runtime));
  } catch (const std::exception& e) {
    return out + "<p class=\"error\">The graph could not be drawn: " + html_escape(e.what()) + "</p></section>\n";
  }
  // Inline: the XML prologue and DOCTYPE Graphviz writes before <svg> are not HTML.
  size_t at = svg.find("<svg");
  return out + "<div class=\"dg-canvas\">" + (at == std::string::npos ? "" : svg.substr(at)) + "</div></section>\n";
}

}  // namespace

DotGraph diff_dot_graph(const DiffGraph& g, const std::string& before_link, const std::string& after_link,
                        const std::string& runtime) {
  DotGraph d;
  d.graph_attrs = {{"rankdir", "TB"}, {"nodesep", "0.25"}, {"ranksep", "0.35"}, {"fontname", "Helvetica"}};
  d.node_defaults = {{"shape", "box"}, {"style", "rounded,filled"}, {"fontname", "Helvetica"}, {"fontsize", "10"}};
  d.edge_defaults = {{"arrowsize", "0.6"}};
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const DiffGraphNode& n = g.nodes[i];
    const KindStyle st = style_of(n.kind);
    std::string label = n.op_type + "\n" + clip_middle(n.node, 36);
    if (!n.graph.empty()) label += "\n[" + clip_middle(n.graph, 30) + "]";
    if (!n.edits.empty()) label += "\n~ " + joined(n.edits);
    std::string tip = fmt::format("{}: {} ({}){}\nverdict: {}", diff_node_kind_name(n.kind), n.node, n.op_type,
                                  n.graph.empty() ? "" : "\ngraph: " + n.graph, verdict_of(n.verdict));
    if (!n.edits.empty()) tip += "\nchanged: " + joined(n.edits);
    DotAttrs a{{"id", fmt::format("dg{}", i)},
               {"class", fmt::format("dg_node dg_{}", diff_node_kind_name(n.kind))},
               {"label", dot_escape(label)},
               {"tooltip", dot_escape(tip)},
               {"fillcolor", st.fill},
               {"color", st.border},
               {"fontcolor", st.text}};
    if (n.kind != DiffGraphNode::Kind::Context) a.push_back({"penwidth", "1.6"});
    const std::string& link = n.in_after ? after_link : before_link;
    if (!link.empty()) {
      // The path percent-encoded and the anchor's '&' written "&amp;": Graphviz (2.43) copies a
      // URL into the SVG unescaped, so no quote or bare '&' may reach its attribute.
      a.push_back({"URL", dot_escape(percent_encode(link, "/") + html_escape(report_anchor(n.node, n.graph, runtime)))});
      a.push_back({"target", "_top"});
    }
    d.nodes.push_back({fmt::format("n{}", i), std::move(a)});
  }
  for (const DiffGraphEdge& e : g.edges) {
    DotAttrs a;
    if (e.in_before && e.in_after) a = {{"color", "#8a8f98"}, {"class", "dg_edge dg_both"}};
    else if (e.in_after) a = {{"color", "#2e8b2e"}, {"penwidth", "1.4"}, {"class", "dg_edge dg_after"}};
    else a = {{"color", "#b22222"}, {"style", "dashed"}, {"class", "dg_edge dg_before"}};
    d.edges.push_back({fmt::format("n{}", e.from), fmt::format("n{}", e.to), std::move(a)});
  }
  return d;
}

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
                       {"after", verdict_of(e.after)}, {"reason", first_reason(e.after ? e.after : e.before)},
                       {"edits", e.edits}});
  doc["changed"] = std::move(changed);
  json edited = json::array();
  for (const ModelDiffEntry& e : d.edited)
    edited.push_back({{"graph", e.graph}, {"node", e.node}, {"op_type", e.op_type}, {"edits", e.edits},
                      {"before", verdict_of(e.before)}, {"after", verdict_of(e.after)}});
  doc["edited"] = std::move(edited);
  if (v.graph) doc["graph"] = graph_json(*v.graph);
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string model_diff_html(const ModelDiffView& v) {
  const ModelDiff& d = *v.diff;
  auto badge = [](const std::string& verdict) {
    return fmt::format("<span class=\"verdict v-{0}\">{0}</span>", html_escape(verdict));
  };
  std::string out = fmt::format(
      "<section class=\"diff\"><h2>{} → {} at {}</h2>\n<p>converts: {} → {}. {} nodes kept, {} added, {} removed, "
      "{} with a changed verdict, {} edited (op_type, attributes or inputs).</p>\n",
      html_escape(v.before_label), html_escape(v.after_label), html_escape(v.runtime),
      v.converts_before ? "yes" : "no", v.converts_after ? "yes" : "no", d.kept, d.added.size(), d.removed.size(),
      d.changed.size(), d.edited.size());
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
  if (!d.edited.empty()) {
    out += fmt::format("<h3>edited ({})</h3>\n<table class=\"diff-edited\"><tr><th>graph</th><th>node</th>"
                       "<th>op_type</th><th>what changed</th><th>verdict</th></tr>\n",
                       d.edited.size());
    for (const ModelDiffEntry& e : d.edited)
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} → {}</td></tr>\n",
                         html_escape(e.graph.empty() ? "main" : e.graph), html_escape(e.node), html_escape(e.op_type),
                         html_escape(joined(e.edits)), badge(verdict_of(e.before)), badge(verdict_of(e.after)));
    out += "</table>\n";
  }
  out += "</section>\n";
  return v.graph ? out + graph_html(v) : out;
}

}  // namespace trtlens
