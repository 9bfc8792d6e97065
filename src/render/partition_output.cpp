#include "render/partition_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "render/check_output.h"
#include "render/report_data.h"
#include "render/table.h"
#include "trtlens/target.h"
#include "util/utf8.h"

namespace trtlens {
namespace {

using json = nlohmann::ordered_json;

std::string share(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole)) : "-";
}

std::string tensor_text(const Model& m, const std::string& name) {
  const TensorInfo* t = m.graphs[0].local(name);
  return fmt::format("{} {} {}", escape_controls(name), t ? elem_type_name(t->type) : "UNDEFINED", t ? format_shape(*t) : "?");
}

std::string part_label(const Partition& p, size_t k) {
  const Part& part = p.parts[k];
  if (!part.tensorrt) return "other runtime";
  if (!p.dla) return fmt::format("TensorRT region {}", part.region);
  return part.dla ? fmt::format("DLA loadable {}, region {}", part.loadable, part.region)
                  : fmt::format("GPU, region {}", part.region);
}

// The device a part runs on, with a DLA cut: "dla", "gpu" or "onnxruntime".
std::string_view part_device(const Part& part) { return !part.tensorrt ? "onnxruntime" : part.dla ? "dla" : "gpu"; }

size_t tensorrt_parts(const Partition& p) {
  return static_cast<size_t>(std::count_if(p.parts.begin(), p.parts.end(), [](const Part& part) { return part.tensorrt; }));
}

// More DLA loadables than TensorRT loads on one core: one sentence naming both counts; "" otherwise.
std::string loadables_warning(const Partition& p) {
  if (!p.dla || p.dla->loadables <= p.dla->max_loadables) return {};
  return fmt::format("{} DLA loadables, more than the {} TensorRT loads per DLA core ({}): the chain cannot keep "
                     "them all loaded on one core; fewer DLA<->GPU cuts (layers the DLA runs) or a larger --min-nodes "
                     "give fewer",
                     p.dla->loadables, p.dla->max_loadables, p.dla->max_loadables_source);
}

// Which part produces each boundary tensor, and which parts read it.
struct Wiring {
  std::unordered_map<std::string, int> from;
  std::unordered_map<std::string, std::vector<int>> to;
};

Wiring wiring(const Partition& p) {
  Wiring w;
  for (size_t k = 0; k < p.parts.size(); ++k) {
    for (const auto& o : p.parts[k].outputs) w.from[o] = static_cast<int>(k);
    for (const auto& i : p.parts[k].inputs) w.to[i].push_back(static_cast<int>(k));
  }
  return w;
}

std::string runtime_label(const Annotations& a, const Partition& p) {
  std::string label = fmt::format("TensorRT {}, {}", a.release->name, precision_name(a.precision));
  if (p.dla) label += fmt::format(", target {}", p.dla->target);
  return label;
}

// "A of B (S%)", or with MAC nodes of unknown shapes (p.macs_unknown) "A of at least B known; N nodes' MACs unknown
// (...)": their MACs are in neither count, so a share would pretend to cover them.
std::string macs_share(const Partition& p, int64_t part) {
  if (!p.macs_unknown) return fmt::format("{} of {} ({})", count_text(part), count_text(p.macs), share(part, p.macs));
  return fmt::format("{} of at least {} known; {} Conv/MatMul/Gemm node{} MACs unknown (dynamic shapes, {} of their "
                     "weights): pass --shapes",
                     count_text(part), count_text(p.macs), p.macs_unknown, p.macs_unknown == 1 ? "'s" : "s'",
                     share(p.mac_weights_unknown, p.mac_weights));
}

// TensorRT engines: one per region (and per region of an If/Loop/Scan body). With a DLA cut and GPU fallback,
// TensorRT builds one engine per region holding its DLA loadables and GPU parts; parts are not engines.
size_t engines(const Partition& p) { return static_cast<size_t>(p.regions + p.body_regions); }

// The headline figures, shared by text and markdown.
std::vector<std::pair<std::string, std::string>> figures(const Partition& p) {
  std::string macs = macs_share(p, p.macs_in_tensorrt);
  std::string engines_text = std::to_string(engines(p));
  if (p.body_regions)
    engines_text += fmt::format(" ({} in the main graph, {} inside If/Loop/Scan bodies)", p.regions, p.body_regions);
  if (p.dla)
    engines_text += fmt::format("; one per TensorRT region, holding its DLA loadables and GPU parts ({} and {} below)",
                                p.dla->loadables, p.dla->gpu_regions);
  std::string excluded;
  for (const auto& op : p.exclude_ops) excluded += (excluded.empty() ? "" : ",") + op;
  std::vector<std::pair<std::string, std::string>> out = {
      {"TensorRT engines", engines_text},
      {"parts in the chain", fmt::format("{} ({} left to another runtime)", p.parts.size(), p.parts.size() - tensorrt_parts(p))},
      {"nodes in TensorRT", fmt::format("{} of {} ({})", p.nodes_in_tensorrt, p.nodes, share(p.nodes_in_tensorrt, p.nodes))},
      {"MACs in TensorRT", macs},
      {"parameters in TensorRT", fmt::format("{} of {} ({})", count_text(p.parameters_in_tensorrt), count_text(p.parameters),
                                             share(p.parameters_in_tensorrt, p.parameters))},
      {"ops excluded", excluded.empty() ? "none" : excluded},
  };
  if (p.dla) {
    const DlaCut& d = *p.dla;
    out.insert(out.end(), {
        {"DLA loadables", fmt::format("{} ({} the {} per DLA core TensorRT loads)", d.loadables,
                                      d.loadables > d.max_loadables ? "MORE THAN" : "within", d.max_loadables)},
        {"GPU parts", fmt::format("{} (TensorRT on the GPU, inside the regions' engines)", d.gpu_regions)},
        {"DLA<->GPU transitions", fmt::format("{} (tensors into or out of a DLA loadable, each a reformat)", d.transitions)},
        {"nodes on the DLA", fmt::format("{} of {} placed ({})", d.nodes_on_dla, d.placed_nodes, share(d.nodes_on_dla, d.placed_nodes))},
        {"MACs on the DLA", macs_share(p, d.macs_on_dla)},
    });
  }
  return out;
}

// The notes to print: with a DLA cut, the placement's loadable count (connected groups of DLA
// nodes, as `check` estimates it) gives way to the cut's own.
std::vector<std::string> notes(const Annotations& a, const Partition& p) {
  std::vector<std::string> out;
  for (const auto& note : a.notes)
    if (!p.dla || !a.dla || std::find(a.dla->notes.begin(), a.dla->notes.end(), note) == a.dla->notes.end())
      out.push_back(note);
  if (p.dla && !p.dla->max_loadables_source.empty())
    out.push_back(fmt::format("at most {} DLA loadables per core: {}", p.dla->max_loadables, p.dla->max_loadables_source));
  if (p.dla && a.dla && a.dla->loadables != p.dla->loadables)
    out.push_back(fmt::format("`check` estimates {} DLA loadable{} from the placement alone (connected DLA nodes); "
                              "partition cuts each TensorRT region, splitting where a loadable would make a cycle "
                              "with GPU layers or crosses a region boundary, so it counts {}",
                              a.dla->loadables, a.dla->loadables == 1 ? "" : "s", p.dla->loadables));
  return out;
}

json shape_json(const TensorInfo* t) {
  if (!t || t->rank < 0) return nullptr;
  json dims = json::array();
  for (const Dim& d : t->dims) dims.push_back(d.fixed() ? json(d.value) : d.param.empty() ? json(nullptr) : json(d.param));
  return dims;
}

json tensor_json(const Model& m, const std::string& name) {
  const TensorInfo* t = m.graphs[0].local(name);
  return {{"name", name}, {"type", t ? elem_type_name(t->type) : "UNDEFINED"}, {"shape", shape_json(t)}};
}

Table outside_table(const Model& m, const Partition& p, bool markdown) {
  Table t{{"node", "name", "op_type", "verdict", "why not in TensorRT"}, {}, {}};
  for (const auto& o : p.outside) {
    const Node& n = m.graphs[0].nodes[static_cast<size_t>(o.index)];
    auto cell = [&](const std::string& s) { return markdown ? md_escape(s) : s; };
    t.rows.push_back({node_id(m, 0, o.index), cell(node_label(m.graphs[0].nodes[static_cast<size_t>(o.index)])), cell(n.op_type),
                      std::string(verdict_name(o.verdict)), cell(o.reason)});
  }
  return t;
}

Table parts_table(const Partition& p) {
  Table t{{"part", "runtime", "nodes", "MACs", "parameters", "inputs", "outputs"}, {}, {false, false, true, true, true, true, true}};
  for (size_t k = 0; k < p.parts.size(); ++k) {
    const Part& part = p.parts[k];
    t.rows.push_back({std::to_string(k), part_label(p, k), std::to_string(part.nodes.size()), count_text(part.macs),
                      count_text(part.parameters), std::to_string(part.inputs.size()), std::to_string(part.outputs.size())});
  }
  return t;
}

}  // namespace

std::string partition_text(const Model& m, const Annotations& a, const Partition& p, bool color) {
  std::string out = fmt::format("{} — {}, regions of at least {} node{}\n\n", escape_controls(m.path), runtime_label(a, p), p.min_nodes,
                                p.min_nodes == 1 ? "" : "s");
  for (const auto& [k, v] : figures(p)) out += fmt::format("{:<28}{}\n", k + ":", v);
  if (std::string w = loadables_warning(p); !w.empty()) out += colorize("warning: " + w, "31", color) + "\n";
  if (p.parts.empty()) return out + "\nthe main graph has no nodes\n";
  out += "\n" + to_text(parts_table(p));
  Wiring w = wiring(p);
  for (size_t k = 0; k < p.parts.size(); ++k) {
    const Part& part = p.parts[k];
    out += fmt::format("\npart {}: {}, {} node{} ({} .. {})\n", k,
                       colorize(part_label(p, k), part.dla ? "36" : part.tensorrt ? "32" : "33", color),
                       part.nodes.size(), part.nodes.size() == 1 ? "" : "s",
                       escape_controls(node_label(m.graphs[0].nodes[static_cast<size_t>(part.nodes.front())])),
                       escape_controls(node_label(m.graphs[0].nodes[static_cast<size_t>(part.nodes.back())])));
    for (const auto& i : part.inputs) {
      auto from = w.from.find(i);
      out += fmt::format("  in   {}  (from {})\n", tensor_text(m, i),
                         from == w.from.end() ? std::string("graph input") : fmt::format("part {}", from->second));
    }
    for (const auto& o : part.outputs) {
      auto to = w.to.find(o);
      std::string readers;
      if (to != w.to.end())
        for (int r : to->second) readers += fmt::format("{}part {}", readers.empty() ? "" : ", ", r);
      bool graph_output = std::find(m.graphs[0].outputs.begin(), m.graphs[0].outputs.end(), o) != m.graphs[0].outputs.end();
      if (graph_output) readers += readers.empty() ? "graph output" : ", graph output";
      out += fmt::format("  out  {}  (to {})\n", tensor_text(m, o), readers);
    }
  }
  if (!p.outside.empty()) out += "\nnodes left outside TensorRT:\n" + to_text(outside_table(m, p, false));
  for (const auto& note : notes(a, p)) out += "note: " + escape_controls(note) + "\n";
  return out;
}

// Everything but each part's node and initializer lists is a small DOM; those lists
// (99,001 node ids in one part of the wide graph) are streamed, as check streams its
// nodes, in the bytes nlohmann-json's dump(2) would write.
void partition_json(const Model& m, const Annotations& a, const Partition& p, const KnowledgeBase& kb, bool with_files,
                    const std::function<void(std::string_view)>& write) {
  Wiring w = wiring(p);
  json graph_inputs = json::array(), graph_outputs = json::array(), outside = json::array();
  for (const auto& i : m.graphs[0].inputs)
    if (const TensorInfo* t = m.graphs[0].local(i); t && t->origin == TensorOrigin::GraphInput) graph_inputs.push_back(tensor_json(m, i));
  for (const auto& o : m.graphs[0].outputs) {
    json t = tensor_json(m, o);
    auto from = w.from.find(o);
    t["from_part"] = from == w.from.end() ? json(nullptr) : json(from->second);
    graph_outputs.push_back(std::move(t));
  }
  for (const auto& o : p.outside) {
    const Node& n = m.graphs[0].nodes[static_cast<size_t>(o.index)];
    outside.push_back({{"node", node_id(m, 0, o.index)}, {"name", n.name}, {"op_type", n.op_type}, {"domain", n.domain},
                       {"verdict", verdict_name(o.verdict)}, {"reason", o.reason}});
  }
  json doc = {{"schema_version", kPartitionSchemaVersion},
              {"tool", "trtlens"},
              {"trtlens_version", trtlens_version()},
              {"kb_fingerprint", kb.fingerprint()},
              {"model", m.path},
              {"runtime", {{"type", "TensorRT"}, {"release", a.release->name}, {"precision", precision_name(a.precision)}}},
              {"min_nodes", p.min_nodes},
              {"exclude_ops", p.exclude_ops},
              {"summary",
               {{"regions", p.regions},
                {"engines", engines(p)},
                {"body_regions", p.body_regions},
                {"parts", p.parts.size()},
                {"nodes", p.nodes},
                {"nodes_in_tensorrt", p.nodes_in_tensorrt},
                {"macs", p.macs},
                {"macs_in_tensorrt", p.macs_in_tensorrt},
                {"macs_unknown_nodes", p.macs_unknown},
                {"mac_weights", p.mac_weights},
                {"mac_weights_unknown", p.mac_weights_unknown},
                {"parameters", p.parameters},
                {"parameters_in_tensorrt", p.parameters_in_tensorrt}}},
              {"graph_inputs", graph_inputs},
              {"graph_outputs", graph_outputs},
              {"parts", json::array()},  // its "[]" is where the streamed parts go
              {"outside", outside},
              {"notes", notes(a, p)}};
  if (with_files) doc["weights_file"] = kPartitionWeightsFile;
  if (p.dla) {
    const DlaCut& d = *p.dla;
    doc["runtime"]["target"] = d.target;
    doc["dla"] = {{"release", d.release},
                  {"loadables", d.loadables},
                  {"max_loadables_per_core", d.max_loadables},
                  {"max_loadables_source", d.max_loadables_source},
                  {"over_limit", d.loadables > d.max_loadables},
                  {"gpu_regions", d.gpu_regions},
                  {"transitions", d.transitions},
                  {"placed_nodes", d.placed_nodes},
                  {"nodes_on_dla", d.nodes_on_dla},
                  {"macs_on_dla", d.macs_on_dla}};
  }
  // The input shapes the partition assumed (--shapes, --minShapes/--optShapes/--maxShapes), as check records them.
  if (!m.input_shapes.empty()) doc["input_shapes"] = input_shapes_json(m);
  // Invalid UTF-8 in names becomes U+FFFD rather than an exception.
  auto dump = [](const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); };
  std::string head = dump(doc);
  constexpr std::string_view kParts = "\n  \"parts\": []";  // a raw newline: never inside a dumped string
  size_t at = head.find(kParts) + kParts.size() - 2;  // its "["
  write(std::string_view(head).substr(0, at));
  // A list of strings at depth 3 ("nodes": [...] of a part), as dump(2) writes it.
  auto list = [](std::string& out, const std::vector<std::string>& items) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    const char* sep = "[\n        ";
    for (const auto& s : items) {
      out += sep;
      append_json_string(out, s);
      sep = ",\n        ";
    }
    out += "\n      ]";
  };
  std::string text, ids;
  std::vector<std::string> node_ids;
  for (size_t k = 0; k < p.parts.size(); ++k) {
    const Part& part = p.parts[k];
    json inputs = json::array(), outputs = json::array();
    for (const auto& i : part.inputs) {
      json t = tensor_json(m, i);
      auto from = w.from.find(i);
      t["from_part"] = from == w.from.end() ? json(nullptr) : json(from->second);
      inputs.push_back(std::move(t));
    }
    for (const auto& o : part.outputs) {
      json t = tensor_json(m, o);
      auto to = w.to.find(o);
      t["to_parts"] = to == w.to.end() ? json::array() : json(to->second);
      t["graph_output"] = std::find(m.graphs[0].outputs.begin(), m.graphs[0].outputs.end(), o) != m.graphs[0].outputs.end();
      outputs.push_back(std::move(t));
    }
    json j = {{"index", k}, {"runtime", part.tensorrt ? "tensorrt" : "other"},
              {"region", part.region < 0 ? json(nullptr) : json(part.region)}};
    if (p.dla) {
      j["device"] = part_device(part);
      j["loadable"] = part.loadable < 0 ? json(nullptr) : json(part.loadable);
    }
    if (with_files) j["file"] = part_file_name(p, k);
    j["node_count"] = part.nodes.size();
    j["macs"] = part.macs;
    j["parameters"] = part.parameters;
    j["inputs"] = std::move(inputs);
    j["outputs"] = std::move(outputs);
    // The object at depth 2: its own dump indented by 4, without the closing "\n}".
    std::string own = dump(j);
    text = k == 0 ? "[\n    " : ",\n    ";
    for (size_t i = 0; i + 2 < own.size(); ++i) {
      text += own[i];
      if (own[i] == '\n') text += "    ";
    }
    text += ",\n      \"initializers\": ";
    list(text, part.initializers);
    text += ",\n      \"nodes\": ";
    write(text);
    node_ids.clear();
    for (int n : part.nodes) node_ids.push_back(node_id(m, 0, n));
    ids.clear();
    list(ids, node_ids);
    ids += "\n    }";
    write(ids);
  }
  write(p.parts.empty() ? "[]" : "\n  ]");
  write(std::string_view(head).substr(at + 2));
  write("\n");
}

std::string partition_json(const Model& m, const Annotations& a, const Partition& p, const KnowledgeBase& kb,
                           bool with_files) {
  std::string out;
  partition_json(m, a, p, kb, with_files, [&out](std::string_view s) { out += s; });
  return out;
}

std::string partition_markdown(const Model& m, const Annotations& a, const Partition& p) {
  std::string out = fmt::format("### trtlens partition: {} on {}\n\n", md_code(m.path), runtime_label(a, p));
  Table f{{"", ""}, {}, {}};
  for (const auto& [k, v] : figures(p)) f.rows.push_back({k, v});
  out += to_markdown(f);
  if (std::string w = loadables_warning(p); !w.empty()) out += "\n> **Warning:** " + md_escape(w) + "\n";
  if (!p.parts.empty()) out += "\n" + to_markdown(parts_table(p));
  for (size_t k = 0; k < p.parts.size(); ++k) {
    const Part& part = p.parts[k];
    if (!part.tensorrt) continue;
    Table b{{"direction", "tensor", "type", "shape"}, {}, {}};
    auto rows = [&](const char* direction, const std::vector<std::string>& names) {
      for (const auto& name : names) {
        const TensorInfo* t = m.graphs[0].local(name);
        b.rows.push_back({direction, md_code(name), t ? std::string(elem_type_name(t->type)) : "UNDEFINED",
                          t ? format_shape(*t) : "?"});
      }
    };
    rows("in", part.inputs);
    rows("out", part.outputs);
    std::string title = !p.dla     ? fmt::format("Region {}", part.region)
                        : part.dla ? fmt::format("DLA loadable {}", part.loadable)
                                   : fmt::format("GPU, region {}", part.region);
    std::string where = p.dla && part.dla ? fmt::format("region {}, part {}", part.region, k) : fmt::format("part {}", k);
    out += fmt::format("\n**{}** ({}, {} nodes)\n\n", title, where, part.nodes.size()) + to_markdown(b);
  }
  if (!p.outside.empty()) out += "\n**Nodes left outside TensorRT**\n\n" + to_markdown(outside_table(m, p, true));
  std::vector<std::string> said = notes(a, p);
  if (!said.empty()) out += "\n";
  for (const auto& note : said) out += "> " + md_escape(note) + "\n";
  return out;
}

}  // namespace trtlens
