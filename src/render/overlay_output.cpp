#include "render/overlay_output.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "engine/internal.h"
#include "render/check_output.h"
#include "render/table.h"
#include "util/utf8.h"

namespace trtlens {

namespace {

using json = nlohmann::ordered_json;
using engine_detail::ms_text;
using engine_detail::percent_text;

const Node& node_of(const Model& m, const NodeOverlay& n) {
  return m.graphs[static_cast<size_t>(n.graph)].nodes[static_cast<size_t>(n.index)];
}

// Verdict of each node for the check runtime, by its position in Overlay::nodes.
std::vector<const NodeVerdict*> verdicts_by_node(const OverlayView& v) {
  std::unordered_map<uint64_t, const NodeVerdict*> by_key;
  auto key = [](int g, int i) { return (static_cast<uint64_t>(static_cast<uint32_t>(g)) << 32) | static_cast<uint32_t>(i); };
  if (v.predicted)
    for (const NodeVerdict& nv : v.predicted->nodes) by_key.emplace(key(nv.graph, nv.index), &nv);
  std::vector<const NodeVerdict*> out;
  for (const NodeOverlay& n : v.overlay->nodes) {
    auto it = by_key.find(key(n.graph, n.index));
    out.push_back(it == by_key.end() ? nullptr : it->second);
  }
  return out;
}

std::string runtime_text(const PredictionCheck& c) {
  return fmt::format("TensorRT {} {}", c.runtime.release ? c.runtime.release->name : "?",
                     precision_name(c.runtime.precision));
}

// How a node is placed, for people: "metadata", "ForeignNode range", "constant-folded into 'X'".
std::string fate_text(const OverlayView& v, const NodeOverlay& n) {
  const auto& L = v.plan->layers;
  switch (n.vanished) {
    case Vanished::ConstantFolded:
      return n.folded_into >= 0 ? fmt::format("constant-folded (read by '{}')", L[static_cast<size_t>(n.folded_into)].name)
                                : std::string("constant-folded");
    case Vanished::NotFound: return "not found: no layer names it";
    case Vanished::ForeignNode:
      return fmt::format("in a Myelin ForeignNode region (by {})", overlay_match_name(n.match));
    default: return fmt::format("by {}", overlay_match_name(n.match));
  }
}

// The figures the three formats share.
std::vector<std::pair<std::string, std::string>> figures(const OverlayView& v) {
  const Overlay& o = *v.overlay;
  int by[5] = {};
  for (const auto& n : o.nodes) ++by[static_cast<int>(n.match)];
  return {
      {"runtime compared", fmt::format("{} (release: {}; precision: {})", runtime_text(*v.check),
                                       v.check->runtime.release_source, v.check->runtime.precision_source)},
      {"nodes in engine layers",
       fmt::format("{} of {} (metadata {}, name {}, ForeignNode range {}, Q/DQ neighbours {})", o.in_layers,
                   o.nodes.size(), by[1], by[2], by[3], by[4])},
      {"vanished", fmt::format("{} inside Myelin ForeignNode regions, {} constant-folded, {} not found", o.foreign_node,
                               o.constant_folded, o.not_found)},
      {"layers holding nodes", fmt::format("{} of {}", o.layers_with_nodes, v.plan->layers.size())},
      {"disagreements with check", fmt::format("{} of {} nodes compared", v.check->disagreements.size(),
                                               v.check->compared)},
  };
}

Table node_table(const OverlayView& v, bool markdown) {
  const Model& m = *v.model;
  auto cell = [&](const std::string& s) { return markdown ? md_escape(s) : s; };
  auto verdicts = verdicts_by_node(v);
  Table t{{"node", "name", "op_type", "layer", "how", "precision", "ms", "% time", "predicted"}, {},
          {false, false, false, false, false, false, true, true, false}};
  for (size_t k = 0; k < v.overlay->nodes.size(); ++k) {
    const NodeOverlay& n = v.overlay->nodes[k];
    const Node& node = node_of(m, n);
    std::string layer = n.layer >= 0 ? v.plan->layers[static_cast<size_t>(n.layer)].name : "-";
    if (n.layers.size() > 1) layer += fmt::format(" (and {} more)", n.layers.size() - 1);
    const NodeVerdict* nv = verdicts[k];
    std::string predicted = nv ? fmt::format("{} {}", verdict_name(nv->verdict), nv->precision) : "";
    t.rows.push_back({node_id(m, n.graph, n.index), cell(node_label(node_of(m, n))), cell(node.op_type), cell(layer),
                      fate_text(v, n), n.precision.empty() ? "-" : n.precision,
                      n.layer < 0 ? "-" : n.timed ? ms_text(n.latency_ms) : "untimed",
                      n.layer < 0 || !n.timed ? "-" : percent_text(n.percent), predicted});
  }
  return t;
}

Table disagreement_table(const OverlayView& v, bool markdown) {
  const Model& m = *v.model;
  auto cell = [&](const std::string& s) { return markdown ? md_escape(s) : s; };
  Table t{{"node", "name", "kind", "predicted", "ran at", "why"}, {}, {}};
  for (const auto& d : v.check->disagreements) {
    const NodeOverlay& n = v.overlay->nodes[static_cast<size_t>(d.node)];
    t.rows.push_back({node_id(m, n.graph, n.index), cell(node_label(node_of(m, n))), d.kind,
                      fmt::format("{} {}", verdict_name(d.predicted), d.predicted_precision),
                      d.measured_precision.empty() ? "-" : d.measured_precision, cell(d.message)});
  }
  return t;
}

std::vector<std::string> all_notes(const OverlayView& v) {
  std::vector<std::string> notes = v.plan->notes;
  notes.insert(notes.end(), v.overlay->notes.begin(), v.overlay->notes.end());
  return notes;
}

}  // namespace

std::string overlay_json(const OverlayView& v) {
  return overlay_document(v).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

json overlay_document(const OverlayView& v) {
  const Model& m = *v.model;
  const EnginePlan& plan = *v.plan;
  const Overlay& o = *v.overlay;
  json doc;
  doc["schema_version"] = kOverlaySchemaVersion;
  doc["trtlens_version"] = trtlens_version();
  doc["kb_fingerprint"] = v.kb ? v.kb->fingerprint() : KnowledgeBase::builtin().fingerprint();
  doc["model"] = m.path;
  doc["plan"] = plan.name;
  doc["graph_json"] = plan.files.graph;
  doc["layout"] = plan.layout;
  doc["partial"] = plan.partial();
  doc["notes"] = all_notes(v);
  doc["runtime"] = {{"release", v.check->runtime.release ? json(v.check->runtime.release->name) : json()},
                    {"release_source", v.check->runtime.release_source},
                    {"precision", precision_name(v.check->runtime.precision)},
                    {"precision_source", v.check->runtime.precision_source}};
  int by[5] = {};
  for (const auto& n : o.nodes) ++by[static_cast<int>(n.match)];
  doc["summary"] = {{"nodes", o.nodes.size()},
                    {"in_layers", o.in_layers},
                    {"by_metadata", by[static_cast<int>(OverlayMatch::Metadata)]},
                    {"by_name", by[static_cast<int>(OverlayMatch::Name)]},
                    {"by_foreign_node_range", by[static_cast<int>(OverlayMatch::ForeignRange)]},
                    {"by_neighbours", by[static_cast<int>(OverlayMatch::Neighbours)]},
                    {"foreign_node", o.foreign_node},
                    {"constant_folded", o.constant_folded},
                    {"not_found", o.not_found},
                    {"layers", plan.layers.size()},
                    {"layers_with_nodes", o.layers_with_nodes},
                    {"unmatched_layers", o.unmatched_layers.size()},
                    {"total_latency_ms", plan.total_latency_ms()},
                    {"compared", v.check->compared},
                    {"disagreements", v.check->disagreements.size()}};
  auto verdicts = verdicts_by_node(v);
  auto id = [&](const NodeOverlay& n) { return node_id(m, n.graph, n.index); };
  auto layer_name = [&](int li) { return li < 0 ? json() : json(plan.layers[static_cast<size_t>(li)].name); };
  json nodes = json::array();
  for (size_t k = 0; k < o.nodes.size(); ++k) {
    const NodeOverlay& n = o.nodes[k];
    const Node& node = node_of(m, n);
    json layers = json::array();
    for (int li : n.layers) layers.push_back(plan.layers[static_cast<size_t>(li)].name);
    bool in = n.layer >= 0;
    json jn = {{"id", id(n)},
               {"name", node.name},
               {"op_type", node.op_type},
               {"layer", layer_name(n.layer)},
               {"precision", in && !n.precision.empty() ? json(n.precision) : json()},
               {"latency_ms", in && n.timed ? json(n.latency_ms) : json()},
               {"percent", in && n.timed ? json(n.percent) : json()},
               {"layers", layers},
               {"match", n.match == OverlayMatch::None ? json() : json(overlay_match_name(n.match))},
               {"fused_with", in ? o.layers[static_cast<size_t>(n.layer)].nodes.size() - 1 : 0},
               {"vanished", n.vanished == Vanished::None ? json() : json(vanished_name(n.vanished))},
               {"folded_into", layer_name(n.folded_into)}};
    if (verdicts[k]) jn["predicted"] = {{"verdict", verdict_name(verdicts[k]->verdict)}, {"precision", verdicts[k]->precision}};
    nodes.push_back(std::move(jn));
  }
  doc["nodes"] = std::move(nodes);
  json layers = json::array();
  for (size_t li = 0; li < plan.layers.size(); ++li) {
    const EngineLayer& l = plan.layers[li];
    json members = json::array();
    for (int k : o.layers[li].nodes) members.push_back(id(o.nodes[static_cast<size_t>(k)]));
    layers.push_back({{"index", li},
                      {"name", l.name},
                      {"type", l.type},
                      {"precision", l.precision.empty() ? json() : json(l.precision)},
                      {"latency_ms", l.timed ? json(l.avg_ms) : json()},
                      {"percent", l.timed ? json(l.percent) : json()},
                      {"nodes", members}});
  }
  doc["layers"] = std::move(layers);
  json dis = json::array();
  for (const auto& d : v.check->disagreements) {
    const NodeOverlay& n = o.nodes[static_cast<size_t>(d.node)];
    dis.push_back({{"node", id(n)},
                   {"name", node_of(m, n).name},
                   {"op_type", node_of(m, n).op_type},
                   {"layer", layer_name(n.layer)},
                   {"kind", d.kind},
                   {"predicted_verdict", verdict_name(d.predicted)},
                   {"predicted_precision", d.predicted_precision},
                   {"measured_precision", d.measured_precision},
                   {"message", d.message}});
  }
  doc["disagreements"] = std::move(dis);
  return doc;
}

std::string overlay_text(const OverlayView& v, bool color) {
  std::string out = fmt::format("{} on engine {}\n", escape_controls(v.model->path), escape_controls(v.plan->name));
  for (const auto& [k, val] : figures(v)) out += fmt::format("{}: {}\n", k, escape_controls(val));
  out += "\n" + to_text(node_table(v, false));
  if (!v.check->disagreements.empty()) {
    out += "\n" + colorize(fmt::format("Disagreements with check ({})", runtime_text(*v.check)), "33", color) + "\n";
    out += to_text(disagreement_table(v, false));
  }
  for (const auto& n : all_notes(v)) out += "note: " + escape_controls(n) + "\n";
  return out;
}

std::string overlay_markdown(const OverlayView& v) {
  std::string out = fmt::format("### {} on engine {}\n\n", md_code(v.model->path), md_code(v.plan->name));
  for (const auto& [k, val] : figures(v)) out += fmt::format("- {}: {}\n", k, md_escape(val));
  for (const auto& n : all_notes(v)) out += "\n> " + md_escape(n) + "\n";
  if (!v.check->disagreements.empty())
    out += fmt::format("\n#### Disagreements with check ({})\n\n", runtime_text(*v.check)) +
           to_markdown(disagreement_table(v, true));
  out += "\n<details><summary>Every node</summary>\n\n" + to_markdown(node_table(v, true)) + "\n</details>\n";
  return out;
}

}  // namespace trtlens
