#include "render/check_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <functional>
#include <unordered_map>
#include <nlohmann/json.hpp>

#include "render/html.h"
#include "render/table.h"
#include "util/sha256.h"
#include "util/strings.h"
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
  const DlaShare share = dla_share(d);
  auto many = [](int n, std::string_view one, std::string_view more) { return fmt::format("{} {}", n, n == 1 ? one : more); };
  // With nodes whose MACs are unknown (dynamic shapes) the total is a lower bound: no share, the count instead.
  std::string macs = d.macs_unknown_nodes == 0
                         ? fmt::format("{:.1f}% of MACs", share.mac_percent())
                         : fmt::format("MACs on the DLA: {} of at least {} known; {} MACs unknown (dynamic shapes): pass "
                                       "--shapes",
                                       count_text(d.dla_macs), count_text(d.total_macs),
                                       many(d.macs_unknown_nodes, "node's", "nodes'"));
  return fmt::format("DLA (TensorRT {} DLA rules): {} of {} nodes ({:.1f}%), {}; {} GPU fallback, {} unsupported; {}; {} "
                     "(at most {} per core)",
                     d.release, d.dla_nodes, share.placed_nodes(), share.node_percent(), macs, d.gpu_nodes,
                     d.unsupported_nodes,
                     many(d.transitions, "DLA<->GPU transition", "DLA<->GPU transitions"),
                     many(d.loadables, "DLA loadable", "DLA loadables"), d.max_loadables);
}

// The nodes off the DLA; nodes sharing an outcome are one row ("b0_1 and 16499 more") when more than
// kGroupAfter share it, as the verdict table groups rows.
std::string dla_text(const Model& m, const DlaPlacement& d) {
  auto off = [](const DlaNode& n) { return n.verdict == DlaVerdict::GPU_FALLBACK || n.verdict == DlaVerdict::UNSUPPORTED; };
  auto group_of = [&d](const DlaNode& n) { return n.outcome >= 0 && static_cast<size_t>(n.outcome) < d.outcomes.size(); };
  const Graph& g = m.graphs[0];
  // Per outcome, in one pass: how many nodes off the DLA share it, the first, and their op_types.
  struct Group {
    size_t count = 0;
    const DlaNode* first = nullptr;
    std::vector<std::string_view> ops;
  };
  std::vector<Group> groups(d.outcomes.size());
  for (const auto& n : d.nodes) {
    if (!off(n) || !group_of(n)) continue;
    Group& gr = groups[static_cast<size_t>(n.outcome)];
    if (gr.count++ == 0) gr.first = &n;
    std::string_view op = g.nodes[static_cast<size_t>(n.index)].op_type;
    if (std::find(gr.ops.begin(), gr.ops.end(), op) == gr.ops.end()) gr.ops.push_back(op);
  }
  Table t{{"node", "op_type", "DLA", "layers", "why not on the DLA"}, {}, {}};
  for (const auto& n : d.nodes) {
    if (!off(n)) continue;
    const Node& node = g.nodes[static_cast<size_t>(n.index)];
    if (!group_of(n) || groups[static_cast<size_t>(n.outcome)].count <= kGroupAfter) {
      t.rows.push_back(
          {node_label(node), node.op_type, std::string(dla_verdict_name(n.verdict)), std::string(n.layers), std::string(n.reason)});
      continue;
    }
    const Group& group = groups[static_cast<size_t>(n.outcome)];
    if (group.first != &n) continue;
    t.rows.push_back({fmt::format("{} and {} more", node_label(node), group.count - 1),
                      fmt::format("{}", fmt::join(group.ops, ", ")), std::string(dla_verdict_name(n.verdict)),
                      std::string(n.layers), std::string(n.reason)});
  }
  std::string out = "\n" + dla_summary_line(d) + "\n";
  if (!t.rows.empty()) out += to_text(t);
  return out;
}

// Each distinct citation of the placement's outcomes once, in first-use order, with its position (outcomes cite by
// position: a few dozen page addresses, each cited by many outcomes).
struct DlaSources {
  std::vector<std::string_view> list;
  std::unordered_map<const char*, int> index;  // texts are interned: one address per distinct text
  explicit DlaSources(const DlaPlacement& d) {
    for (const auto& o : d.outcomes)
      if (!o.source.empty() && index.emplace(o.source.data(), static_cast<int>(list.size())).second)
        list.push_back(o.source);
  }
  int of(std::string_view source) const { return source.empty() ? -1 : index.at(source.data()); }
};

// The DLA summary with each distinct outcome once; each main-graph node cites its outcome (append_dla_json).
json dla_json(const DlaPlacement& d, const DlaSources& sources) {
  json outcomes = json::array();
  for (const auto& o : d.outcomes)
    outcomes.push_back({{"verdict", dla_verdict_name(o.verdict)},
                        {"layers", o.layers},
                        {"reason", o.reason},
                        {"source", sources.of(o.source)}});
  return {{"release", d.release},
          {"sources", sources.list},
          {"outcomes", std::move(outcomes)},
          {"dla_nodes", d.dla_nodes},
          {"gpu_fallback_nodes", d.gpu_nodes},
          {"unsupported_nodes", d.unsupported_nodes},
          {"dla_macs", d.dla_macs},
          {"total_macs", d.total_macs},
          {"macs_unknown_nodes", d.macs_unknown_nodes},
          {"transitions", d.transitions},
          {"loadables", d.loadables},
          {"max_loadables", d.max_loadables}};
}

// Adds `"dla":{"outcome":N,"macs":M}` to a node object `out` ends with: a position in dla.outcomes, not the
// outcome's texts (a 100k-node model off the DLA would otherwise write its few dozen reasons 100k times). `macs`
// is null where unknown (a Conv with a dynamic dimension), never a 0 that sums as if known.
void append_dla_json(std::string& out, const DlaNode& n) {
  // One append of a stack buffer: this runs for every node of the model.
  char buf[96], *end = buf + sizeof buf;
  auto put = [](char* at, std::string_view s) { return std::copy(s.begin(), s.end(), at); };
  char* at = put(buf, R"(,"dla":{"outcome":)");
  at = std::to_chars(at, end, n.outcome).ptr;
  at = put(at, R"(,"macs":)");
  at = n.macs < 0 ? put(at, "null") : std::to_chars(at, end, n.macs).ptr;
  at = put(at, "}}");
  out.pop_back();  // the node object's closing brace
  out.append(buf, static_cast<size_t>(at - buf));
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
  json out = {{"path", m.path},
              {"ir_version", m.ir_version},
              {"producer", m.producer_name + (m.producer_version.empty() ? "" : " " + m.producer_version)},
              {"opset_imports", opsets_json(m)},
              {"node_count", m.node_count()},
              {"graph_count", m.graphs.size()}};
  // The input shapes the analysis assumed (--shapes, --minShapes/--optShapes/--maxShapes).
  if (!m.input_shapes.empty()) out["input_shapes"] = input_shapes_json(m);
  return out;
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

nlohmann::json input_shapes_json(const Model& m) {
  json shapes = json::array();
  for (const InputShape& s : m.input_shapes)
    shapes.push_back({{"name", s.name}, {"min", s.min}, {"opt", s.opt}, {"max", s.max}});
  return shapes;
}

void append_json_string(std::string& out, std::string_view s) { append_quoted(out, s); }

std::string node_id(const Model& m, int graph, int index) {
  return fmt::format("{}/{}", m.graphs[static_cast<size_t>(graph)].path, index);
}

namespace {

// The kind of a reason: its fact name ("status", "int64", ...) or the name of its
// rule ("rank" of "rank(0,3..5)@opset(>=11)"). SARIF rule ids and grouping use it.
std::string reason_kind(const Reason& r) {
  return r.rule.substr(0, r.rule.find_first_of("(@"));
}

// Rows for people: a node, or a group of more than kGroupAfter nodes sharing
// verdict, reason kinds and hints (640 INT64 rows of one model say one thing).
struct Row {
  std::vector<const NodeVerdict*> nodes;  // one, or the group in node order
};

std::vector<Row> group_rows(const std::vector<const NodeVerdict*>& shown_nodes) {
  std::map<std::string, std::vector<const NodeVerdict*>> by_key;
  auto key_of = [](const NodeVerdict& v) {
    std::string key(verdict_name(v.verdict));
    for (const auto& r : v.reasons) key += '\0' + reason_kind(r);
    key += '\1';
    for (const auto& h : v.hints) key += '\0' + h;
    return key;
  };
  for (const NodeVerdict* v : shown_nodes)
    if (!v->reasons.empty()) by_key[key_of(*v)].push_back(v);
  std::vector<Row> rows;
  for (const NodeVerdict* v : shown_nodes) {
    if (v->reasons.empty()) {
      rows.push_back({{v}});
      continue;
    }
    const auto& members = by_key[key_of(*v)];
    if (members.size() <= kGroupAfter) rows.push_back({{v}});
    else if (members.front() == v) rows.push_back({members});
  }
  return rows;
}

// What a group's nodes share, in words: "narrow INT64 data of unknown range" for
// the kinds that say the same thing on every node, else the first node's reasons.
std::vector<std::string> group_reasons(const Model& m, const Row& row) {
  const NodeVerdict& first = *row.nodes.front();
  std::vector<std::string> out;
  if (row.nodes.size() == 1) {
    for (const auto& r : first.reasons) out.push_back(r.message);
    return out;
  }
  for (const auto& r : first.reasons) {
    std::string kind = reason_kind(r);
    if (kind == "int64") out.push_back(fmt::format("{} nodes narrow INT64 data of unknown range to INT32", row.nodes.size()));
    else if (kind == "double") out.push_back(fmt::format("{} nodes narrow DOUBLE data to FP32", row.nodes.size()));
    else out.push_back(fmt::format("{} nodes, e.g. {}: {}", row.nodes.size(), node_label(node_of(m, first)), r.message));
  }
  return out;
}

std::string row_node_cell(const Model& m, const Row& row) {
  if (row.nodes.size() == 1) return graph_cell(m, *row.nodes.front());
  return fmt::format("{} nodes", row.nodes.size());
}

// The first `shown` names of a row's nodes and how many more (text shows one: its table has no
// wrapping, and a long exporter path per name made the column 190 characters wide).
std::string row_name_cell(const Model& m, const Row& row, size_t shown = kGroupAfter) {
  std::string names;
  for (size_t i = 0; i < row.nodes.size() && i < shown; ++i)
    names += (i ? ", " : "") + node_label(node_of(m, *row.nodes[i]));
  if (row.nodes.size() > shown) names += fmt::format(" and {} more", row.nodes.size() - shown);
  return names;
}

std::string row_op_cell(const Model& m, const Row& row) {
  std::vector<std::string> ops;
  for (const NodeVerdict* v : row.nodes) {
    const Node& n = node_of(m, *v);
    std::string op = n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type;
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
  std::string out;
  for (size_t i = 0; i < ops.size() && i < 4; ++i) out += (i ? ", " : "") + ops[i];
  if (ops.size() > 4) out += fmt::format(" and {} more", ops.size() - 4);
  return out;
}

std::string row_precision_cell(const Row& row) {
  for (const NodeVerdict* v : row.nodes)
    if (v->precision != row.nodes.front()->precision) return "mixed";
  return std::string(row.nodes.front()->precision);
}

std::vector<const NodeVerdict*> nodes_where(const Annotations& a, const std::function<bool(const NodeVerdict&)>& keep) {
  std::vector<const NodeVerdict*> out;
  for (const auto& v : a.nodes)
    if (keep(v)) out.push_back(&v);
  return out;
}

// JSON string literal of `s` (invalid UTF-8 replaced).
std::string json_quoted(std::string_view s) {
  std::string out;
  append_quoted(out, s);
  return out;
}

void append_provenance(json& doc, const KnowledgeBase& kb) {
  doc["trtlens_version"] = trtlens_version();
  doc["kb_fingerprint"] = kb.fingerprint();
}

}  // namespace

std::string check_text(const Model& m, const Annotations& a, const CheckView& view) {
  std::string out = fmt::format("{} — {}\n\n", escape_controls(m.path), runtime_label(a));
  Table t{{"node", "name", "op_type", "verdict", "precision", "reasons and hints"}, {}, {}};
  // What to act on first (UNSUPPORTED, UNKNOWN), then FALLBACK and IMPLICIT_CAST, then SUPPORTED,
  // each in node order; SUPPORTED rows only for small models or when --only asks, as in markdown.
  auto band_of = [](Verdict v) {
    return v == Verdict::UNSUPPORTED || v == Verdict::UNKNOWN ? 0 : v == Verdict::SUPPORTED ? 2 : 1;
  };
  const bool list_supported = a.nodes.size() <= kSupportedRowsUpTo || !view.only.empty();
  size_t unlisted = 0;
  for (int band = 0; band < 3; ++band) {
    auto in_band = [&](const NodeVerdict& v) { return band_of(v.verdict) == band && shown(view, v.verdict); };
    if (band == 2 && !list_supported) {
      for (const auto& v : a.nodes) unlisted += in_band(v);
      continue;
    }
    for (const Row& row : group_rows(nodes_where(a, in_band))) {
      const NodeVerdict& v = *row.nodes.front();
      Cell verdict(std::string(verdict_name(v.verdict)), view.color ? verdict_color(v.verdict) : nullptr);
      std::vector<std::string> lines = group_reasons(m, row);
      for (const auto& h : v.hints) lines.push_back("hint: " + h);
      t.rows.push_back({row_node_cell(m, row), row_name_cell(m, row, 1), row_op_cell(m, row), verdict,
                        row_precision_cell(row), lines.empty() ? "" : lines[0]});
      for (size_t i = 1; i < lines.size(); ++i) t.rows.push_back({"", "", "", "", "", lines[i]});
    }
  }
  if (!t.rows.empty()) out += to_text(t);
  else if (unlisted == 0) out += "(no node matches the filter)\n";
  if (unlisted > 0)
    out += fmt::format("{}({} SUPPORTED node{} not listed: --only SUPPORTED or --format json lists them)\n",
                       t.rows.empty() ? "" : "\n", unlisted, unlisted == 1 ? "" : "s");
  if (a.dla) out += dla_text(m, *a.dla);
  out += "\n" + summary_line(a) + "\n";
  for (const auto& note : a.notes) out += "note: " + escape_controls(note) + "\n";
  out += fmt::format("converts: {}\n", a.converts ? colorize("yes", "32", view.color) : colorize("no", "1;31", view.color));
  return out;
}

void check_json(const Model& m, const Annotations& a, const KnowledgeBase& kb,
                const std::function<void(std::string_view)>& write) {
  json doc = {{"schema_version", kCheckSchemaVersion}, {"tool", "trtlens"}};
  append_provenance(doc, kb);
  doc["model"] = model_json(m);
  doc["runtime"] = {{"type", "TensorRT"},
                    {"release", a.release->name},
                    {"precision", precision_name(a.precision)},
                    {"source", a.release->citation()}};
  doc["converts"] = a.converts;
  doc["summary"] = summary_json(a.summary);
  doc["notes"] = a.notes;
  if (a.target) doc["runtime"]["target"] = target_json(*a.target);
  if (a.dla) doc["dla"] = dla_json(*a.dla, DlaSources(*a.dla));
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
      append_dla_json(line, a.dla->nodes[static_cast<size_t>(v.index)]);
    write(line);
    sep = ",\n    ";
  }
  write(a.nodes.empty() ? "]" : "\n  ]");
  write(std::string_view(head).substr(close + 2));
  write("\n");
}

std::string check_json(const Model& m, const Annotations& a, const KnowledgeBase& kb) {
  std::string out;
  check_json(m, a, kb, [&out](std::string_view s) { out += s; });
  return out;
}

std::string check_markdown(const Model& m, const Annotations& a, const CheckView& view) {
  std::string out = fmt::format("### trtlens: {} on {} — converts: **{}**\n\n", md_code(m.path), runtime_label(a),
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
  auto table_of = [&](const std::vector<Row>& rows) {
    Table t{{"node", "name", "op_type", "verdict", "precision", "reasons", "hints"}, {}, {}};
    for (const Row& row : rows) {
      const NodeVerdict& v = *row.nodes.front();
      std::string reasons, hints;
      for (const auto& r : group_reasons(m, row)) reasons += (reasons.empty() ? "" : "<br>") + md_escape(r);
      for (const auto& h : v.hints) hints += (hints.empty() ? "" : "<br>") + md_escape(h);
      t.rows.push_back({md_code(row_node_cell(m, row)), md_escape(row_name_cell(m, row)), md_escape(row_op_cell(m, row)),
                        std::string(verdict_name(v.verdict)), row_precision_cell(row), reasons, hints});
    }
    return t;
  };
  // Rows are added while they fit: the budget keeps room for the closing lines.
  constexpr size_t kTail = 400;
  size_t left_out = 0;
  auto add_table = [&](const std::vector<Row>& rows) {
    std::string text = to_markdown(table_of(rows));
    size_t pos = 0;
    for (int line = 0; pos < text.size(); ++line) {
      size_t end = text.find('\n', pos) + 1;
      if (line >= 2 && out.size() + (end - pos) + kTail > kMarkdownMaxBytes) {
        left_out += static_cast<size_t>(std::count(text.begin() + static_cast<long>(pos), text.end(), '\n'));
        break;
      }
      out.append(text, pos, end - pos);
      pos = end;
    }
  };
  auto serious = [&](const NodeVerdict& v) {
    return (v.verdict == Verdict::UNSUPPORTED || v.verdict == Verdict::UNKNOWN) && shown(view, v.verdict);
  };
  std::vector<Row> first = group_rows(nodes_where(a, serious));
  std::vector<Row> rest = group_rows(nodes_where(a, [&](const NodeVerdict& v) {
    return !serious(v) && v.verdict != Verdict::SUPPORTED && shown(view, v.verdict);
  }));
  if (first.empty() && rest.empty()) out += "Every node is SUPPORTED.\n";
  if (!first.empty()) add_table(first);
  // Rows of SUPPORTED nodes for small models or when asked for (--only): else the summary counts them.
  std::vector<Row> supported;
  if (a.nodes.size() <= kSupportedRowsUpTo || !view.only.empty()) supported = group_rows(nodes_where(a, [&](const NodeVerdict& v) {
    return v.verdict == Verdict::SUPPORTED && shown(view, v.verdict);
  }));
  for (const auto* part : {&rest, &supported}) {
    if (part->empty()) continue;
    size_t nodes = 0;
    for (const Row& r : *part) nodes += r.nodes.size();
    bool fallback = part == &rest;
    out += fmt::format("\n<details><summary>{} {} node{}</summary>\n\n", nodes,
                       fallback ? "FALLBACK and IMPLICIT_CAST" : "SUPPORTED", nodes == 1 ? "" : "s");
    add_table(*part);
    out += "\n</details>\n";
  }
  if (left_out)
    out += fmt::format("\n{} more row{} in the JSON (`--format json`).\n", left_out, left_out == 1 ? "" : "s");
  return out;
}

bool has_verdict(const Annotations& a, const std::vector<Verdict>& verdicts) {
  for (Verdict v : verdicts)
    if (a.summary[static_cast<size_t>(v)] > 0) return true;
  return false;
}

std::vector<std::string> failed_dla_gates(const Annotations& a, const DlaGates& gates) {
  std::vector<std::string> out;
  if (!a.dla) return out;
  const DlaPlacement& d = *a.dla;
  if (gates.gpu_fallback && d.gpu_nodes > 0)
    out.push_back(fmt::format("--fail-on gpu_fallback: {} node{} fall{} back from the DLA to the GPU", d.gpu_nodes,
                              d.gpu_nodes == 1 ? "" : "s", d.gpu_nodes == 1 ? "s" : ""));
  const DlaShare s = dla_share(d);
  if (gates.min_share >= 0 && s.node_percent() < gates.min_share)
    out.push_back(fmt::format("--min-dla-share {:g}: {} of {} placed nodes ({:.1f}%) run on the DLA", gates.min_share,
                              d.dla_nodes, s.placed_nodes(), s.node_percent()));
  if (gates.max_loadables >= 0 && d.loadables > gates.max_loadables)
    out.push_back(fmt::format("--max-dla-loadables {}: the placement needs {} DLA loadable{}", gates.max_loadables,
                              d.loadables, d.loadables == 1 ? "" : "s"));
  return out;
}

// ---------------------------------------------------------------- SARIF

namespace {

// GitHub code scanning refuses a run with more results than this.
constexpr size_t kSarifMaxResults = 25000;

const char* sarif_level(Verdict v) {
  switch (v) {
    case Verdict::UNSUPPORTED: return "error";
    case Verdict::UNKNOWN: return "warning";
    case Verdict::IMPLICIT_CAST: return "warning";
    default: return "note";
  }
}

// Words for the rule of each reason kind (docs/check-json.md lists the kinds).
std::pair<std::string, std::string> kind_description(const std::string& kind) {
  static const std::map<std::string, std::pair<std::string, std::string>> facts = {
      {"status", {"The op does not import in this TensorRT release",
                  "The release's support matrix or importer does not list the op, or marks it not supported."}},
      {"importer", {"The release's ONNX importer refuses the node",
                    "The importer code of the release rejects this op or this use of it."}},
      {"types", {"An element type the release does not accept",
                 "An input or output has an element type the release's importer or support matrix does not accept."}},
      {"int64", {"INT64 data narrowed to INT32",
                 "The release has no native INT64: values outside the INT32 range would be clamped."}},
      {"double", {"DOUBLE data narrowed to FP32", "The release computes DOUBLE tensors in FP32."}},
      {"uint8", {"UINT8 tensor inside the network", "The release accepts UINT8 only at the network's inputs and outputs."}},
      {"ignored", {"An input or attribute the importer ignores",
                   "The node sets an input or attribute that the release's importer never reads: it imports but computes "
                   "something else."}},
      {"precision", {"The node runs at another precision than asked",
                     "The release has no kernel for the op at the asked precision; it runs wider, with reformats."}},
      {"domain", {"An op of a custom domain without a plugin",
                  "Ops outside the ONNX domains import only through a plugin of the same name."}},
      {"function", {"A local function whose body does not import", "A node of the function's body does not import."}},
      {"plugin", {"The op imports through a TensorRT plugin", "The node becomes a plugin layer."}},
      {"plugin_library", {"The op needs a plugin library", "The plugin must be loaded at build and run time."}},
  };
  auto it = facts.find(kind);
  if (it != facts.end()) return it->second;
  return {fmt::format("A condition of the release's importer ({}) fails or cannot be decided", kind),
          fmt::format("The knowledge base's rule '{}' (data/trt/README.md) restricts how the op imports in this release; "
                      "the result's message says what the node does and what would help.",
                      kind)};
}

// A URI reference for a file path (RFC 3986): unreserved characters and '/' kept, the rest percent-encoded.
std::string uri_of(std::string_view path) { return percent_encode(path, "/"); }

std::string result_kind(const NodeVerdict& v) {
  if (v.reasons.empty()) {
    std::string kind(verdict_name(v.verdict));
    std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return std::tolower(c); });
    return kind;
  }
  return reason_kind(v.reasons.front());
}

}  // namespace

void check_sarif(const Model& m, const Annotations& a, const KnowledgeBase& kb,
                 const std::function<void(std::string_view)>& write) {
  // The most severe results when there are more than GitHub takes: errors, then warnings, then notes.
  std::vector<const NodeVerdict*> results = nodes_where(a, [](const NodeVerdict& v) { return v.verdict != Verdict::SUPPORTED; });
  auto severity = [](const NodeVerdict* v) {
    std::string_view l = sarif_level(v->verdict);
    return l == "error" ? 0 : l == "warning" ? 1 : 2;
  };
  size_t omitted = 0;
  if (results.size() > kSarifMaxResults) {
    std::stable_sort(results.begin(), results.end(), [&](auto* x, auto* y) { return severity(x) < severity(y); });
    omitted = results.size() - kSarifMaxResults;
    results.resize(kSarifMaxResults);
    std::sort(results.begin(), results.end());  // back to node order (pointers into one array)
  }
  std::vector<std::string> kinds;
  for (const NodeVerdict* v : results) {
    std::string kind = result_kind(*v);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  std::sort(kinds.begin(), kinds.end());
  json rules = json::array();
  for (const auto& kind : kinds) {
    auto [short_text, full_text] = kind_description(kind);
    rules.push_back({{"id", kind},
                     {"name", kind},
                     {"shortDescription", {{"text", short_text}}},
                     {"fullDescription", {{"text", full_text}}},
                     {"help", {{"text", full_text + " Each result names the node, the reason and, when one exists, a hint."}}},
                     {"properties", {{"tags", {"tensorrt", "onnx"}}}}});
  }
  json run_properties = {{"trtlens_version", trtlens_version()},
                         {"kb_fingerprint", kb.fingerprint()},
                         {"runtime", {{"release", a.release->name}, {"precision", precision_name(a.precision)}}},
                         {"summary", summary_json(a.summary)},
                         {"converts", a.converts},
                         {"results_omitted", omitted}};
  json doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs",
               {{{"tool",
                  {{"driver",
                    {{"name", "trtlens"},
                     {"version", trtlens_version()},
                     {"semanticVersion", trtlens_version()},
                     {"rules", rules}}}}},
                 // Separates the analyses of one model at several runtimes (GitHub's "category").
                 {"automationDetails",
                  {{"id", fmt::format("trtlens/TensorRT-{}/{}/", a.release->name, precision_name(a.precision))}}},
                 {"artifacts", {{{"location", {{"uri", uri_of(m.path)}}}}}},
                 {"properties", run_properties},
                 {"results", json::array()}}}}};
  std::string head = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  size_t close = head.rfind("[]");
  write(std::string_view(head).substr(0, close));
  write("[");
  const std::string uri = json_quoted(uri_of(m.path));
  std::string line;
  const char* sep = "\n        ";
  for (const NodeVerdict* v : results) {
    const Node& n = node_of(m, *v);
    std::string kind = result_kind(*v);
    size_t rule_index = static_cast<size_t>(std::lower_bound(kinds.begin(), kinds.end(), kind) - kinds.begin());
    std::string text = fmt::format("{} node {} ({}, {}): ", verdict_name(v->verdict), node_label(n),
                                   n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type, graph_cell(m, *v));
    for (size_t i = 0; i < v->reasons.size(); ++i) text += (i ? " " : "") + v->reasons[i].message + ".";
    if (v->reasons.empty()) text += "no reason recorded.";
    for (const auto& h : v->hints) text += " Hint: " + h + ".";
    // The node's identity, stable across commits: GitHub matches alerts of the same
    // file and rule by it (every node shares the file's one "line").
    std::string identity = sha256_hex(fmt::format("{}\n{}\n{}\n{}", m.graphs[static_cast<size_t>(v->graph)].path,
                                                  n.name.empty() ? std::to_string(v->index) : n.name, n.op_type, kind));
    line = sep;
    line += R"({"ruleId":)" + json_quoted(kind) + R"(,"ruleIndex":)" + std::to_string(rule_index) + R"(,"level":")" +
            sarif_level(v->verdict) + R"(","message":{"text":)" + json_quoted(text) +
            R"(},"locations":[{"physicalLocation":{"artifactLocation":{"uri":)" + uri +
            R"(,"index":0},"region":{"startLine":1}},"logicalLocations":[{"name":)" + json_quoted(n.name) +
            R"(,"fullyQualifiedName":)" + json_quoted(node_id(m, v->graph, v->index)) + R"(,"kind":"function"}]}],)" +
            R"("partialFingerprints":{"primaryLocationLineHash":")" + identity.substr(0, 16) + R"(:1"},)" +
            R"("properties":{"verdict":")" + std::string(verdict_name(v->verdict)) + R"(","op_type":)" + json_quoted(n.op_type) +
            R"(,"precision":)" + json_quoted(v->precision) + "}}";
    write(line);
    sep = ",\n        ";
  }
  write(results.empty() ? "]" : "\n      ]");
  write(std::string_view(head).substr(close + 2));
  write("\n");
}

// ---------------------------------------------------------------- JUnit

namespace {

// xml_escape (render/escape.h) for element text of several lines: the line breaks kept.
std::string xml_escape_lines(std::string_view s) {
  std::vector<std::string_view> lines = split(s, '\n');
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + xml_escape(lines[i]);
  return out;
}

}  // namespace

std::string junit_testcase(const Model& m, const Annotations& a, const CheckView& view, std::string_view command,
                           bool& failed, const DlaGates& dla_gates) {
  std::string name = fmt::format("TensorRT {} {}{}", a.release->name, precision_name(a.precision),
                                 a.target ? " on " + a.target->name : "");
  std::string out = fmt::format("    <testcase classname=\"trtlens.{}\" name=\"{}\" file=\"{}\" time=\"0\"", command,
                                xml_escape(name), xml_escape(m.path));
  const bool verdict_failed = has_verdict(a, view.fail_on);
  const std::vector<std::string> gates = failed_dla_gates(a, dla_gates);
  failed = verdict_failed || !gates.empty();
  // A DLA target: where the DLA runs the model, whether the case fails or not.
  std::string placement =
      a.dla ? fmt::format("      <system-out>{}</system-out>\n", xml_escape(dla_summary_line(*a.dla))) : "";
  if (!failed) return out + (placement.empty() ? "/>\n" : ">\n" + placement + "    </testcase>\n");
  if (!verdict_failed) {
    // Only DLA gates failed: the message names them, the text lists the nodes off the DLA.
    std::string message, listed;
    for (const auto& g : gates) message += (message.empty() ? "" : "; ") + g;
    size_t n = 0, off = 0;
    const Graph& g = m.graphs[0];
    for (const DlaNode& d : a.dla->nodes) {
      if (d.verdict != DlaVerdict::GPU_FALLBACK) continue;
      ++off;
      if (n++ >= kJunitMaxNodes) continue;
      const Node& node = g.nodes[static_cast<size_t>(d.index)];
      listed += fmt::format("{} {} ({}) GPU fallback: {}\n", node_id(m, 0, d.index), node_label(node), node.op_type,
                            d.reason);
    }
    if (off > kJunitMaxNodes) listed += fmt::format("{} more nodes in the JSON\n", off - kJunitMaxNodes);
    return out + fmt::format(">\n      <failure message=\"{}\" type=\"trtlens.dla\">{}</failure>\n{}    </testcase>\n",
                             xml_escape(message), xml_escape_lines(listed), placement);
  }
  std::string counts, listed;
  size_t n = 0, failing = 0;
  for (Verdict v : view.fail_on) {
    int c = a.summary[static_cast<size_t>(v)];
    if (c) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", c, verdict_name(v));
  }
  for (const auto& v : a.nodes) {
    if (std::find(view.fail_on.begin(), view.fail_on.end(), v.verdict) == view.fail_on.end()) continue;
    ++failing;
    if (n++ >= kJunitMaxNodes) continue;
    const Node& node = node_of(m, v);
    listed += fmt::format("{} {} ({}) {}: {}\n", graph_cell(m, v), node_label(node), node.op_type, verdict_name(v.verdict),
                          v.reasons.empty() ? "" : v.reasons.front().message);
    for (const auto& h : v.hints) listed += "  hint: " + h + "\n";
    // Where a failing node that imports runs on a DLA target (one that does not import says so above).
    if (a.dla && v.graph == 0 && static_cast<size_t>(v.index) < a.dla->nodes.size())
      if (const DlaNode& d = a.dla->nodes[static_cast<size_t>(v.index)]; d.verdict == DlaVerdict::GPU_FALLBACK)
        listed += fmt::format("  DLA: GPU fallback: {}\n", d.reason);
  }
  if (failing > kJunitMaxNodes) listed += fmt::format("{} more nodes in the JSON\n", failing - kJunitMaxNodes);
  // DLA gates that failed too: named after the verdicts, in the message and the text.
  for (const auto& g : gates) {
    counts += "; " + g;
    listed += g + "\n";
  }
  return out + fmt::format(">\n      <failure message=\"{} node{}: {}\" type=\"{}\">{}</failure>\n{}    </testcase>\n",
                           failing, failing == 1 ? "" : "s", xml_escape(counts), "trtlens.verdict",
                           xml_escape_lines(listed), placement);
}

std::string junit_document(const std::string& suite, const Model& m, const std::vector<std::string>& testcases,
                           size_t failures) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"trtlens\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"0\" time=\"0\">\n",
                     testcases.size(), failures);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"0\">\n",
                     xml_escape(suite + " " + m.path), testcases.size(), failures);
  out += fmt::format("    <properties>\n      <property name=\"trtlens_version\" value=\"{}\"/>\n    </properties>\n",
                     xml_escape(trtlens_version()));
  for (const auto& t : testcases) out += t;
  return out + "  </testsuite>\n</testsuites>\n";
}

std::string check_junit(const Model& m, const Annotations& a, const CheckView& view, const DlaGates& gates) {
  bool failed = false;
  std::string testcase = junit_testcase(m, a, view, "check", failed, gates);
  return junit_document("trtlens check", m, {testcase}, failed ? 1 : 0);
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

std::string percent(double p) { return fmt::format("{:.1f}%", p); }

// The share of MACs on the DLA, or "unknown" when some placed nodes' MACs are (a share of a lower bound says nothing).
std::string mac_share_text(const DlaShare& d) {
  return d.macs_unknown_nodes > 0 ? "unknown" : percent(d.mac_percent());
}

std::string loadables_text(const DlaShare& d) {
  return d.loadables > d.max_loadables ? fmt::format("{} (> {} per core)", d.loadables, d.max_loadables)
                                       : std::to_string(d.loadables);
}

// A DLA target's placement, one row per matrix cell (a cell per column would be 150 characters wide), and the
// cell with the most nodes on the DLA (the oldest release among equals). "" when no cell was placed.
std::string matrix_dla_section(const Matrix& mx, bool markdown) {
  Table t{{"release", "precision", "on the DLA", "share", "MACs on the DLA", "GPU fallback", "unsupported",
           "loadables", "transitions"},
          {},
          {false, false, true, true, true, true, true, true, true}};
  if (mx.dla.empty() || mx.dla.size() != mx.cells.size()) return "";
  size_t best = 0;
  for (size_t i = 0; i < mx.cells.size(); ++i) {
    const MatrixCell& c = mx.cells[i];
    const DlaShare& d = mx.dla[i];
    t.rows.push_back({c.release->name, std::string(precision_name(c.precision)),
                      fmt::format("{} of {}", d.dla_nodes, d.placed_nodes()), percent(d.node_percent()),
                      mac_share_text(d), std::to_string(d.gpu_fallback_nodes), std::to_string(d.unsupported_nodes),
                      loadables_text(d), std::to_string(d.transitions)});
    if (d.node_percent() > mx.dla[best].node_percent()) best = i;
  }
  std::string b = markdown ? "**" : "";
  std::string out = fmt::format("\n{}DLA placement on {}{} (nodes placed: every main-graph node but Constants and "
                                "nodes the builder folds; transitions: DLA<->GPU data edges)\n\n",
                                b, mx.target->name, b);
  out += markdown ? to_markdown(t) : to_text(t);
  const DlaShare& most = mx.dla[best];
  out += fmt::format("\nmost nodes on the DLA: TensorRT {} {}, {} of {} ({})\n", mx.cells[best].release->name,
                     precision_name(mx.cells[best].precision), most.dla_nodes, most.placed_nodes(),
                     percent(most.node_percent()));
  return out;
}

json dla_share_json(const DlaShare& d) {
  // Percentages to one decimal, as the text prints them (a double's 17 digits say nothing more).
  auto one_decimal = [](double p) { return std::round(p * 10.0) / 10.0; };
  return {{"dla_nodes", d.dla_nodes},
          {"gpu_fallback_nodes", d.gpu_fallback_nodes},
          {"unsupported_nodes", d.unsupported_nodes},
          {"dla_node_percent", one_decimal(d.node_percent())},
          {"dla_macs", d.dla_macs},
          {"total_macs", d.total_macs},
          {"macs_unknown_nodes", d.macs_unknown_nodes},
          {"dla_mac_percent", d.macs_unknown_nodes > 0 ? json(nullptr) : json(one_decimal(d.mac_percent()))},
          {"transitions", d.transitions},
          {"loadables", d.loadables},
          {"max_loadables", d.max_loadables}};
}

}  // namespace

std::string matrix_text(const Model& m, const Matrix& mx, bool color) {
  return fmt::format("{} — {} nodes, TensorRT releases × precisions{}\n\n", escape_controls(m.path), m.node_count(),
                     mx.target ? " on " + mx.target->label() : "") +
         to_text(matrix_table(mx, color)) + "\n" + matrix_footer(mx, false) + matrix_dla_section(mx, false);
}

std::string matrix_json(const Model& m, const Matrix& mx, const KnowledgeBase& kb) {
  json cells = json::array();
  for (size_t i = 0; i < mx.cells.size(); ++i) {
    const MatrixCell& c = mx.cells[i];
    cells.push_back({{"release", c.release->name},
                     {"precision", precision_name(c.precision)},
                     {"converts", c.converts},
                     {"summary", summary_json(c.summary)}});
    if (i < mx.dla.size()) cells.back()["dla"] = dla_share_json(mx.dla[i]);
  }
  json by_precision = json::object();
  for (Precision p : kAllPrecisions) {
    const Release* r = min_release(mx, p);
    by_precision[std::string(precision_name(p))] = r ? json(r->name) : json(nullptr);
  }
  json doc = {{"schema_version", kCheckSchemaVersion}, {"tool", "trtlens"}};
  append_provenance(doc, kb);
  doc["model"] = model_json(m);
  doc["min_converting_release"] = mx.min_converting ? json(mx.min_converting->name) : json(nullptr);
  doc["min_converting_release_by_precision"] = by_precision;
  doc["cells"] = cells;
  if (mx.target) doc["target"] = target_json(*mx.target);
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string matrix_markdown(const Model& m, const Matrix& mx) {
  return fmt::format("### trtlens matrix: {} ({} nodes)\n\n", md_code(m.path), m.node_count()) +
         to_markdown(matrix_table(mx, false)) + "\n" + matrix_footer(mx, true) + matrix_dla_section(mx, true);
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

std::string diff_header_target(const Annotations& a) { return a.target ? " on " + a.target->label() : ""; }

// Both runtimes of a diff placed on a DLA core (a DLA --target): their placements; null otherwise.
std::pair<const DlaPlacement*, const DlaPlacement*> placements(const Annotations& a, const Annotations& b) {
  if (!a.dla || !b.dla) return {nullptr, nullptr};
  return {a.dla.get(), b.dla.get()};
}

// 0: moves off the DLA, 1: moves onto it, 2: neither (starts or stops importing, off the DLA either way).
int direction(const PlacementChange& c) {
  return c.before->verdict == DlaVerdict::DLA ? 0 : c.after->verdict == DlaVerdict::DLA ? 1 : 2;
}

const char* dla_color(DlaVerdict v) {
  switch (v) {
    case DlaVerdict::DLA: return "32";
    case DlaVerdict::GPU_FALLBACK: return "33";
    case DlaVerdict::UNSUPPORTED: return "1;31";
    case DlaVerdict::NONE: break;
  }
  return "90";
}

// The nodes whose DLA placement changes: off the DLA first (with the new reason), then onto it (with the old
// reason, "(8.5) ..."), then the rest. Changes that share both outcomes (verdict, layers, reason, source before and
// after) are one row ("b0 and 41 more") when more than kGroupAfter do, as check groups its rows.
Table placement_table(const Model& m, const Annotations& a, const Annotations& b, bool color, bool markdown) {
  auto [pa, pb] = placements(a, b);
  Table t{{"node", "name", "op_type", "DLA " + a.release->name, "DLA " + b.release->name, "why"}, {}, {}};
  std::vector<PlacementChange> changes = diff_placements(*pa, *pb);
  std::stable_sort(changes.begin(), changes.end(),
                   [](const PlacementChange& x, const PlacementChange& y) { return direction(x) < direction(y); });
  struct Group {
    size_t count = 0;
    const PlacementChange* first = nullptr;
    std::vector<std::string_view> ops;
  };
  const Graph& g = m.graphs[0];
  std::map<std::pair<int, int>, Group> groups;
  for (const auto& c : changes) {
    Group& gr = groups[{c.before->outcome, c.after->outcome}];
    if (gr.count++ == 0) gr.first = &c;
    std::string_view op = g.nodes[static_cast<size_t>(c.index)].op_type;
    if (std::find(gr.ops.begin(), gr.ops.end(), op) == gr.ops.end()) gr.ops.push_back(op);
  }
  auto cell = [&](DlaVerdict v) { return Cell(std::string(dla_verdict_name(v)), color ? dla_color(v) : nullptr); };
  auto text = [&](std::string s) { return markdown ? md_escape(std::move(s)) : s; };
  for (const auto& c : changes) {
    const Group& gr = groups[{c.before->outcome, c.after->outcome}];
    bool grouped = gr.count > kGroupAfter;
    if (grouped && gr.first != &c) continue;
    const Node& n = g.nodes[static_cast<size_t>(c.index)];
    std::string why(c.after->reason);
    if (why.empty() && !c.before->reason.empty()) why = fmt::format("({}) {}", a.release->name, c.before->reason);
    t.rows.push_back({fmt::format("{}/{}", g.path, c.index),
                      text(grouped ? fmt::format("{} and {} more", node_label(n), gr.count - 1) : node_label(n)),
                      grouped ? fmt::format("{}", fmt::join(gr.ops, ", ")) : n.op_type, cell(c.before->verdict),
                      cell(c.after->verdict), text(why)});
  }
  return t;
}

// "3 node(s) change DLA placement (1 off the DLA, 2 onto it); nodes on the DLA 2 of 5 (40.0%) → 4 of 5 (80.0%), ..."
std::string placement_summary(const Annotations& a, const Annotations& b) {
  auto [pa, pb] = placements(a, b);
  std::vector<PlacementChange> changes = diff_placements(*pa, *pb);
  size_t off = 0, onto = 0;
  for (const auto& c : changes) off += direction(c) == 0, onto += direction(c) == 1;
  DlaShare x = dla_share(*pa), y = dla_share(*pb);
  return fmt::format("{} node(s) change DLA placement ({} off the DLA, {} onto it); nodes on the DLA: {} {} of {} ({}) "
                     "→ {} {} of {} ({}); MACs on the DLA {} → {}; loadables {} → {}; transitions {} → {}\n",
                     changes.size(), off, onto, a.release->name, x.dla_nodes, x.placed_nodes(), percent(x.node_percent()),
                     b.release->name, y.dla_nodes, y.placed_nodes(), percent(y.node_percent()), mac_share_text(x),
                     mac_share_text(y), loadables_text(x), loadables_text(y), x.transitions, y.transitions);
}

json dla_node_json(const DlaNode& n) {
  return {{"verdict", dla_verdict_name(n.verdict)}, {"layers", n.layers}, {"reason", n.reason}, {"source", n.source}};
}

}  // namespace

std::string diff_text(const Model& m, const Annotations& a, const Annotations& b, bool color) {
  Table t = diff_table(m, a, b, color, false);
  std::string out = fmt::format("{} — verdict changes from TensorRT {} to {} at {}{}\n\n", escape_controls(m.path),
                                a.release->name, b.release->name, precision_name(a.precision), diff_header_target(a));
  out += t.rows.empty() ? "no node changes verdict\n" : to_text(t);
  out += fmt::format("\n{} node(s) change; converts: {} {} → {} {}\n", t.rows.size(), a.release->name,
                     a.converts ? "yes" : "no", b.release->name, b.converts ? "yes" : "no");
  if (placements(a, b).first) {
    Table p = placement_table(m, a, b, color, false);
    out += fmt::format("\nDLA placement changes on {}, TensorRT {} → {} DLA rules\n\n", a.target->name, a.release->name,
                       b.release->name);
    out += p.rows.empty() ? "no node changes DLA placement\n" : to_text(p);
    out += "\n" + placement_summary(a, b);
  }
  return out;
}

std::string diff_json(const Model& m, const Annotations& a, const Annotations& b, const KnowledgeBase& kb) {
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
  json doc = {{"schema_version", kCheckSchemaVersion}, {"tool", "trtlens"}};
  append_provenance(doc, kb);
  doc.update(json{{"model", model_json(m)},
              {"precision", precision_name(a.precision)},
              {"from", {{"release", a.release->name}, {"converts", a.converts}, {"summary", summary_json(a.summary)}}},
              {"to", {{"release", b.release->name}, {"converts", b.converts}, {"summary", summary_json(b.summary)}}},
              {"changes", changes}});
  if (a.target) doc["target"] = target_json(*a.target);
  if (auto [pa, pb] = placements(a, b); pa) {
    doc["from"]["dla"] = dla_share_json(dla_share(*pa));
    doc["to"]["dla"] = dla_share_json(dla_share(*pb));
    json moved = json::array();
    const Graph& g = m.graphs[0];
    for (const auto& c : diff_placements(*pa, *pb)) {
      const Node& n = g.nodes[static_cast<size_t>(c.index)];
      moved.push_back({{"index", c.index},
                       {"name", n.name},
                       {"op_type", n.op_type},
                       {"before", dla_node_json(*c.before)},
                       {"after", dla_node_json(*c.after)}});
    }
    doc["placement_changes"] = std::move(moved);
  }
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string diff_markdown(const Model& m, const Annotations& a, const Annotations& b) {
  Table t = diff_table(m, a, b, false, true);
  std::string out = fmt::format("### trtlens: verdict changes in {}, TensorRT {} → {} ({}{})\n\n", md_code(m.path),
                                a.release->name, b.release->name, precision_name(a.precision),
                                a.target ? ", target " + md_escape(a.target->name) : "");
  out += t.rows.empty() ? "No node changes verdict.\n" : to_markdown(t);
  if (placements(a, b).first) {
    Table p = placement_table(m, a, b, false, true);
    out += fmt::format("\n#### DLA placement changes on {}, TensorRT {} → {} DLA rules\n\n", md_escape(a.target->name),
                       a.release->name, b.release->name);
    out += p.rows.empty() ? "No node changes DLA placement.\n" : to_markdown(p);
    out += "\n" + placement_summary(a, b);
  }
  return out;
}

}  // namespace trtlens
