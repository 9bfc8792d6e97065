#include "render/check_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <nlohmann/json.hpp>

#include "render/table.h"
#include "trtlens/target.h"
#include "util/utf8.h"

namespace trtlens {
namespace {

using json = nlohmann::ordered_json;

const char* verdict_color(Verdict v) {
  switch (v) {
    case Verdict::SUPPORTED: return "32";      // green
    case Verdict::FALLBACK: return "33";       // yellow
    case Verdict::IMPLICIT_CAST: return "33";
    case Verdict::UNSUPPORTED: return "1;31";  // bold red
    case Verdict::UNKNOWN: return "90";        // grey
  }
  return "0";
}

const Node& node_of(const Model& m, const NodeVerdict& v) {
  return m.graphs[static_cast<size_t>(v.graph)].nodes[static_cast<size_t>(v.index)];
}

bool shown(const CheckView& view, Verdict v) {
  return view.only.empty() || std::find(view.only.begin(), view.only.end(), v) != view.only.end();
}

std::string runtime_label(const Annotations& a) {
  return fmt::format("TensorRT {}, {}{}", a.release->name, precision_name(a.precision),
                     a.target ? ", target " + a.target->label() : "");
}

// Where a DLA target runs the model (a.dla): shares, transitions, loadables, then each node off the DLA.
std::string dla_summary_line(const DlaPlacement& d) {
  int counted = d.dla_nodes + d.gpu_nodes + d.unsupported_nodes;
  auto pct = [](double a, double b) { return b > 0 ? 100.0 * a / b : 0.0; };
  return fmt::format("DLA (TensorRT {} DLA rules): {} of {} nodes ({:.1f}%), {:.1f}% of MACs; {} GPU fallback, {} "
                     "unsupported; {} DLA<->GPU transitions; {} DLA loadables (at most {} per core)",
                     d.release, d.dla_nodes, counted, pct(d.dla_nodes, counted),
                     pct(static_cast<double>(d.dla_macs), static_cast<double>(d.total_macs)), d.gpu_nodes,
                     d.unsupported_nodes, d.transitions, d.loadables, d.max_loadables);
}

std::string dla_text(const Model& m, const DlaPlacement& d) {
  Table t{{"node", "op_type", "DLA", "layers", "why not on the DLA"}, {}, {}};
  for (const auto& n : d.nodes) {
    if (n.verdict == DlaVerdict::DLA || n.verdict == DlaVerdict::NONE) continue;
    const Node& node = m.graphs[0].nodes[static_cast<size_t>(n.index)];
    t.rows.push_back(
        {node_label(node), node.op_type, std::string(dla_verdict_name(n.verdict)), std::string(n.layers), n.reason});
  }
  std::string out = "\n" + dla_summary_line(d) + "\n";
  if (!t.rows.empty()) out += to_text(t);
  return out;
}

// Each distinct citation of the DLA placement once, in first-use order, with its position (nodes cite by position:
// a 100k-node model would otherwise repeat a few dozen page addresses 100k times).
struct DlaSources {
  std::vector<std::string_view> list;
  std::unordered_map<const char*, int> index;  // texts are interned: one address per distinct text
  explicit DlaSources(const DlaPlacement& d) {
    for (const auto& n : d.nodes)
      if (!n.source.empty() && index.emplace(n.source.data(), static_cast<int>(list.size())).second)
        list.push_back(n.source);
  }
  int of(const DlaNode& n) const { return n.source.empty() ? -1 : index.at(n.source.data()); }
};

// The DLA summary; each main-graph node's placement is streamed with the node (append_dla_json).
json dla_json(const DlaPlacement& d, const DlaSources& sources) {
  return {{"release", d.release},
          {"sources", sources.list},
          {"dla_nodes", d.dla_nodes},
          {"gpu_fallback_nodes", d.gpu_nodes},
          {"unsupported_nodes", d.unsupported_nodes},
          {"dla_macs", d.dla_macs},
          {"total_macs", d.total_macs},
          {"transitions", d.transitions},
          {"loadables", d.loadables},
          {"max_loadables", d.max_loadables}};
}

void append_quoted(std::string& out, std::string_view s);

// Adds `"dla":{...}` to a node object `out` ends with.
void append_dla_json(std::string& out, const DlaNode& n, const DlaSources& sources) {
  out.pop_back();  // the node object's closing brace
  out += R"(,"dla":{"verdict":")";
  out += dla_verdict_name(n.verdict);
  out += R"(","layers":)";
  append_quoted(out, n.layers);
  out += R"(,"reason":)";
  append_quoted(out, n.reason);
  out += R"(,"source":)";
  out += std::to_string(sources.of(n));
  out += R"(,"macs":)";
  out += std::to_string(n.macs);
  out += "}}";
}

json target_json(const Target& t) {
  return {{"name", t.name}, {"device", t.device}, {"compute_capability", t.cc}, {"dla", t.dla},
          {"family", t.family}, {"source", t.source}};
}

std::string summary_line(const Annotations& a) {
  std::string s = fmt::format("{} nodes:", a.nodes.size());
  for (Verdict v : kAllVerdicts) s += fmt::format(" {} {}", verdict_name(v), a.summary[static_cast<size_t>(v)]);
  return s;
}

json opsets_json(const Model& m) {
  json out = json::array();
  for (const auto& o : m.opsets) out.push_back({{"domain", o.domain}, {"version", o.version}});
  return out;
}

json model_json(const Model& m) {
  return {{"path", m.path},
          {"ir_version", m.ir_version},
          {"producer", m.producer_name + (m.producer_version.empty() ? "" : " " + m.producer_version)},
          {"opset_imports", opsets_json(m)},
          {"node_count", m.node_count()},
          {"graph_count", m.graphs.size()}};
}

json summary_json(const std::array<int, 5>& summary) {
  json s = json::object();
  for (Verdict v : kAllVerdicts) s[std::string(verdict_name(v))] = summary[static_cast<size_t>(v)];
  return s;
}


// Appends `s` as a JSON string literal. Plain printable ASCII, what nearly every
// name and message is, is copied as is; anything else is escaped by nlohmann-json
// (invalid UTF-8 replaced), so the bytes match a DOM dump either way.
void append_quoted(std::string& out, std::string_view s) {
  bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
  });
  if (!plain) {
    out += json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

// One node's JSON object (docs/check-json.md), written without building a DOM:
// this runs for every node of the model.
void append_node_json(std::string& out, const Model& m, const NodeVerdict& v) {
  const Node& n = node_of(m, v);
  out += R"({"graph":)";
  append_quoted(out, m.graphs[static_cast<size_t>(v.graph)].path);
  out += R"(,"index":)";
  out += std::to_string(v.index);
  out += R"(,"name":)";
  append_quoted(out, n.name);
  out += R"(,"op_type":)";
  append_quoted(out, n.op_type);
  out += R"(,"domain":)";
  append_quoted(out, n.domain);
  out += R"(,"verdict":")";
  out += verdict_name(v.verdict);
  out += R"(","precision":)";
  append_quoted(out, v.precision);
  out += R"(,"reasons":[)";
  for (size_t i = 0; i < v.reasons.size(); ++i) {
    out += i ? R"(,{"rule":)" : R"({"rule":)";
    append_quoted(out, v.reasons[i].rule);
    out += R"(,"message":)";
    append_quoted(out, v.reasons[i].message);
    out += R"(,"source":)";
    append_quoted(out, v.reasons[i].source);
    out += '}';
  }
  out += R"(],"hints":[)";
  for (size_t i = 0; i < v.hints.size(); ++i) {
    if (i) out += ',';
    append_quoted(out, v.hints[i]);
  }
  out += "]}";
}

// The same object as a DOM, for documents that pick fields from it (diff).
json node_json(const Model& m, const NodeVerdict& v) {
  std::string text;
  append_node_json(text, m, v);
  return json::parse(text);
}

std::string graph_cell(const Model& m, const NodeVerdict& v) {
  const std::string& path = m.graphs[static_cast<size_t>(v.graph)].path;
  return fmt::format("{}/{}", path, v.index);
}

}  // namespace

std::string md_escape(std::string s) {
  std::string out;
  for (char c : escape_controls(s)) {
    if (c == '|' || c == '<' || c == '>' || c == '`' || c == '*' || c == '_') out += '\\';
    out += c;
  }
  return out;
}

std::string node_id(const Model& m, int graph, int index) {
  return fmt::format("{}/{}", m.graphs[static_cast<size_t>(graph)].path, index);
}

std::string check_text(const Model& m, const Annotations& a, const CheckView& view) {
  std::string out = fmt::format("{} — {}\n\n", escape_controls(m.path), runtime_label(a));
  Table t{{"node", "name", "op_type", "verdict", "precision", "reasons and hints"}, {}, {}};
  for (const auto& v : a.nodes) {
    if (!shown(view, v.verdict)) continue;
    const Node& n = node_of(m, v);
    std::string op = n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type;
    Cell verdict(std::string(verdict_name(v.verdict)), view.color ? verdict_color(v.verdict) : nullptr);
    std::vector<std::string> lines;
    for (const auto& r : v.reasons) lines.push_back(r.message);
    for (const auto& h : v.hints) lines.push_back("hint: " + h);
    t.rows.push_back({graph_cell(m, v), node_label(node_of(m, v)), op, verdict, std::string(v.precision), lines.empty() ? "" : lines[0]});
    for (size_t i = 1; i < lines.size(); ++i) t.rows.push_back({"", "", "", "", "", lines[i]});
  }
  if (!t.rows.empty()) out += to_text(t);
  else out += "(no node matches the filter)\n";
  if (a.dla) out += dla_text(m, *a.dla);
  out += "\n" + summary_line(a) + "\n";
  for (const auto& note : a.notes) out += "note: " + escape_controls(note) + "\n";
  out += fmt::format("converts: {}\n", a.converts ? colorize("yes", "32", view.color) : colorize("no", "1;31", view.color));
  return out;
}

void check_json(const Model& m, const Annotations& a, const std::function<void(std::string_view)>& write) {
  json doc = {{"schema_version", kCheckSchemaVersion},
              {"tool", "trtlens"},
              {"model", model_json(m)},
              {"runtime",
               {{"type", "TensorRT"},
                {"release", a.release->name},
                {"precision", precision_name(a.precision)},
                {"source", a.release->citation()}}},
              {"converts", a.converts},
              {"summary", summary_json(a.summary)},
              {"notes", a.notes}};
  if (a.target) doc["runtime"]["target"] = target_json(*a.target);
  std::optional<DlaSources> sources;
  if (a.dla) doc["dla"] = dla_json(*a.dla, sources.emplace(*a.dla));
  doc["nodes"] = json::array();  // last: its "[]" is where the streamed nodes go
  // The nodes are streamed one compact object per line: a DOM of every node
  // of a 100k-node model would cost more than the analysis itself.
  std::string head = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  size_t close = head.rfind("[]");
  write(std::string_view(head).substr(0, close));
  write("[");
  std::string line;
  const char* sep = "\n    ";
  for (const auto& v : a.nodes) {
    line = sep;
    append_node_json(line, m, v);
    if (a.dla && v.graph == 0 && static_cast<size_t>(v.index) < a.dla->nodes.size())
      append_dla_json(line, a.dla->nodes[static_cast<size_t>(v.index)], *sources);
    write(line);
    sep = ",\n    ";
  }
  write(a.nodes.empty() ? "]" : "\n  ]");
  write(std::string_view(head).substr(close + 2));
  write("\n");
}

std::string check_json(const Model& m, const Annotations& a) {
  std::string out;
  check_json(m, a, [&out](std::string_view s) { out += s; });
  return out;
}

std::string check_markdown(const Model& m, const Annotations& a, const CheckView& view) {
  std::string out = fmt::format("### trtlens: `{}` on {} — converts: **{}**\n\n", escape_controls(m.path), runtime_label(a),
                                a.converts ? "yes" : "no");
  Table s{{}, {{}}, {}};
  for (Verdict v : kAllVerdicts) {
    s.header.emplace_back(verdict_name(v));
    s.rows[0].push_back(std::to_string(a.summary[static_cast<size_t>(v)]));
    s.numeric.push_back(true);
  }
  out += to_markdown(s) + "\n";
  if (a.dla) out += "> " + md_escape(dla_summary_line(*a.dla)) + "\n";
  for (const auto& note : a.notes) out += "> " + md_escape(note) + "\n";
  if (!a.notes.empty()) out += "\n";
  auto rows = [&](bool (*keep)(const NodeVerdict&, const CheckView&)) {
    Table t{{"node", "name", "op_type", "verdict", "precision", "reasons", "hints"}, {}, {}};
    for (const auto& v : a.nodes) {
      if (!keep(v, view)) continue;
      std::string reasons, hints;
      for (const auto& r : v.reasons) reasons += (reasons.empty() ? "" : "<br>") + md_escape(r.message);
      for (const auto& h : v.hints) hints += (hints.empty() ? "" : "<br>") + md_escape(h);
      const Node& n = node_of(m, v);
      t.rows.push_back({"`" + graph_cell(m, v) + "`", md_escape(node_label(node_of(m, v))), md_escape(n.op_type),
                        std::string(verdict_name(v.verdict)), std::string(v.precision), reasons, hints});
    }
    return t;
  };
  Table issues = rows([](const NodeVerdict& v, const CheckView& cv) {
    return v.verdict != Verdict::SUPPORTED && shown(cv, v.verdict);
  });
  if (issues.rows.empty()) out += "Every node is SUPPORTED.\n";
  else out += to_markdown(issues);
  constexpr size_t kMaxDetailsRows = 500;
  if (a.nodes.size() <= kMaxDetailsRows) {
    Table all = rows([](const NodeVerdict& v, const CheckView& cv) { return shown(cv, v.verdict); });
    out += "\n<details><summary>All " + std::to_string(all.rows.size()) + " nodes</summary>\n\n" + to_markdown(all) +
           "\n</details>\n";
  }
  return out;
}

// ---------------------------------------------------------------- matrix

namespace {

std::string cell_text(const MatrixCell& c) {
  auto count = [&](Verdict v) { return c.summary[static_cast<size_t>(v)]; };
  std::string s = c.converts ? "yes" : "no";
  if (count(Verdict::UNSUPPORTED)) s += fmt::format(" {}U", count(Verdict::UNSUPPORTED));
  if (count(Verdict::UNKNOWN)) s += fmt::format(" {}?", count(Verdict::UNKNOWN));
  if (count(Verdict::FALLBACK)) s += fmt::format(" {}F", count(Verdict::FALLBACK));
  if (count(Verdict::IMPLICIT_CAST)) s += fmt::format(" {}C", count(Verdict::IMPLICIT_CAST));
  return s;
}

Table matrix_table(const Matrix& mx, bool color) {
  Table t{{"release"}, {}, {}};
  for (Precision p : kAllPrecisions) t.header.emplace_back(precision_name(p));
  const Release* row_release = nullptr;
  for (const auto& c : mx.cells) {
    if (c.release != row_release) {
      t.rows.push_back({c.release->name});
      row_release = c.release;
    }
    t.rows.back().push_back(Cell(cell_text(c), color ? (c.converts ? "32" : "31") : nullptr));
  }
  return t;
}

// Oldest release converting at precision p, or null.
const Release* min_release(const Matrix& mx, Precision p) {
  for (const auto& c : mx.cells)
    if (c.precision == p && c.converts) return c.release;
  return nullptr;
}

std::string matrix_footer(const Matrix& mx, bool markdown) {
  std::string out;
  std::string b = markdown ? "**" : "";
  out += fmt::format("minimum release that converts the model: {}{}{}\n", b,
                     mx.min_converting ? mx.min_converting->name : "none", b);
  std::string per;
  for (Precision p : kAllPrecisions) {
    const Release* r = min_release(mx, p);
    per += fmt::format("{}{} {}", per.empty() ? "" : ", ", precision_name(p), r ? r->name : "none");
  }
  out += (markdown ? "\n" : "") + std::string("by precision: ") + per + "\n";
  out += std::string(markdown ? "\n" : "") +
         "cells: converts yes/no, then counts of U unsupported, ? unknown, F fallback, C implicit cast nodes\n";
  return out;
}

}  // namespace

std::string matrix_text(const Model& m, const Matrix& mx, bool color) {
  return fmt::format("{} — {} nodes, TensorRT releases × precisions{}\n\n", escape_controls(m.path), m.node_count(),
                     mx.target ? " on " + mx.target->label() : "") +
         to_text(matrix_table(mx, color)) + "\n" + matrix_footer(mx, false);
}

std::string matrix_json(const Model& m, const Matrix& mx) {
  json cells = json::array();
  for (const auto& c : mx.cells)
    cells.push_back({{"release", c.release->name},
                     {"precision", precision_name(c.precision)},
                     {"converts", c.converts},
                     {"summary", summary_json(c.summary)}});
  json by_precision = json::object();
  for (Precision p : kAllPrecisions) {
    const Release* r = min_release(mx, p);
    by_precision[std::string(precision_name(p))] = r ? json(r->name) : json(nullptr);
  }
  json doc = {{"schema_version", kCheckSchemaVersion},
              {"tool", "trtlens"},
              {"model", model_json(m)},
              {"min_converting_release", mx.min_converting ? json(mx.min_converting->name) : json(nullptr)},
              {"min_converting_release_by_precision", by_precision},
              {"cells", cells}};
  if (mx.target) doc["target"] = target_json(*mx.target);
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string matrix_markdown(const Model& m, const Matrix& mx) {
  return fmt::format("### trtlens matrix: `{}` ({} nodes)\n\n", escape_controls(m.path), m.node_count()) +
         to_markdown(matrix_table(mx, false)) + "\n" + matrix_footer(mx, true);
}

// ---------------------------------------------------------------- diff

namespace {

Table diff_table(const Model& m, const Annotations& a, const Annotations& b, bool color, bool markdown) {
  Table t{{"node", "name", "op_type", a.release->name, b.release->name, "why (" + b.release->name + ")"}, {}, {}};
  for (const auto& c : diff_annotations(a, b)) {
    const NodeVerdict& after = *c.after;
    const NodeVerdict& before = *c.before;
    const NodeVerdict& explain = after.reasons.empty() ? before : after;
    std::string why = explain.reasons.empty() ? "" : explain.reasons.front().message;
    if (&explain == &before && !why.empty()) why = "(" + a.release->name + ") " + why;
    const Node& n = node_of(m, after);
    auto v = [&](Verdict x) { return Cell(std::string(verdict_name(x)), color ? verdict_color(x) : nullptr); };
    t.rows.push_back({graph_cell(m, after), markdown ? md_escape(node_label(node_of(m, after))) : node_label(node_of(m, after)),
                      n.op_type, v(before.verdict), v(after.verdict), markdown ? md_escape(why) : why});
  }
  return t;
}

}  // namespace

std::string diff_text(const Model& m, const Annotations& a, const Annotations& b, bool color) {
  Table t = diff_table(m, a, b, color, false);
  std::string out = fmt::format("{} — verdict changes from TensorRT {} to {} at {}\n\n", escape_controls(m.path), a.release->name,
                                b.release->name, precision_name(a.precision));
  out += t.rows.empty() ? "no node changes verdict\n" : to_text(t);
  out += fmt::format("\n{} node(s) change; converts: {} {} → {} {}\n", t.rows.size(), a.release->name,
                     a.converts ? "yes" : "no", b.release->name, b.converts ? "yes" : "no");
  return out;
}

std::string diff_json(const Model& m, const Annotations& a, const Annotations& b) {
  json changes = json::array();
  for (const auto& c : diff_annotations(a, b)) {
    json before = node_json(m, *c.before), after = node_json(m, *c.after);
    json entry = {{"graph", after["graph"]}, {"index", after["index"]}, {"name", after["name"]},
                  {"op_type", after["op_type"]}};
    entry["before"] = {{"verdict", before["verdict"]}, {"precision", before["precision"]}, {"reasons", before["reasons"]}};
    entry["after"] = {{"verdict", after["verdict"]}, {"precision", after["precision"]}, {"reasons", after["reasons"]},
                      {"hints", after["hints"]}};
    changes.push_back(std::move(entry));
  }
  json doc = {{"schema_version", kCheckSchemaVersion},
              {"tool", "trtlens"},
              {"model", model_json(m)},
              {"precision", precision_name(a.precision)},
              {"from", {{"release", a.release->name}, {"converts", a.converts}, {"summary", summary_json(a.summary)}}},
              {"to", {{"release", b.release->name}, {"converts", b.converts}, {"summary", summary_json(b.summary)}}},
              {"changes", changes}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string diff_markdown(const Model& m, const Annotations& a, const Annotations& b) {
  Table t = diff_table(m, a, b, false, true);
  std::string out = fmt::format("### trtlens: verdict changes in `{}`, TensorRT {} → {} ({})\n\n", escape_controls(m.path),
                                a.release->name, b.release->name, precision_name(a.precision));
  out += t.rows.empty() ? "No node changes verdict.\n" : to_markdown(t);
  return out;
}

}  // namespace trtlens
