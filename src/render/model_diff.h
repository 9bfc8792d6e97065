// The comparison of two versions of a model (`trtlens serve`'s compare view):
// JSON for the API (schema_version 1), an HTML fragment for the page, and the
// graph view of what changed through Graphviz.
#pragma once
#include <string>

#include "render/graphviz.h"
#include "trtlens/compat.h"

namespace trtlens {

inline constexpr int kModelDiffSchemaVersion = 1;

struct ModelDiffView {
  const ModelDiff* diff = nullptr;
  std::string before_label, after_label;  // e.g. "version 2"
  std::string runtime;                    // e.g. "10.16 fp16"
  bool converts_before = false, converts_after = false;
  const DiffGraph* graph = nullptr;  // the graph view (diff_graph of the same rows); null: none
  // The report page of each version (paths such as "/projects/p/models/m/versions/2/report";
  // "" = no links): a drawn node links to the page of the version holding it, the newer
  // one when both do, at that node and `runtime` (report_anchor).
  std::string before_link{}, after_link{};
};

// {"schema_version":1,"runtime":..,"before":{"label","converts"},"after":{..},
//  "kept":N,"added":[{"graph","node","op_type","verdict"}],"removed":[..],
//  "changed":[{"graph","node","op_type","before","after","reason","edits"}],
//  "edited":[{"graph","node","op_type","edits","before","after"}],
//  "graph":{"changed","drawn_changed","not_drawn":[{"op_type","count"}],"context_not_drawn",
//           "nodes":[{"graph","node","op_type","kind","verdict","in_before","in_after","edits"}],
//           "edges":[{"from","to","before","after"}]}} ("graph" only with a graph view).
// Strings from the model are kept as written, invalid UTF-8 replaced.
std::string model_diff_json(const ModelDiffView& v);
// A <section> with the counts and the tables, then (with a graph view) a <section
// class="diff-graph"> with its SVG inline; every model string escaped.
std::string model_diff_html(const ModelDiffView& v);
// The graph view for Graphviz: added nodes green, removed red, edited amber, context
// grey; edges in both versions grey, only in the newer green, only in the older red
// and dashed. Node ids "dg<i>" (i into g.nodes), classes "dg_node dg_<kind>" (Graphviz writes
// a '-' in a class as "&#45;"), edges "dg_edge dg_both|dg_after|dg_before". With links, each
// node's URL is its version's link + report_anchor(node, graph, runtime), its '&'s as "&amp;".
DotGraph diff_dot_graph(const DiffGraph& g, const std::string& before_link = "", const std::string& after_link = "",
                        const std::string& runtime = "");

}  // namespace trtlens
