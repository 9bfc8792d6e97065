#include "render/report_data.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include "render/graphviz.h"

namespace trtlens {

using Json = nlohmann::json;

std::string format_shape(const TensorInfo& t) {
  if (t.rank < 0) return "?";
  std::string s = "[";
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (i) s += ", ";
    const Dim& d = t.dims[i];
    if (d.fixed()) s += std::to_string(d.value);
    else if (!d.param.empty()) s += d.param;
    else s += "?";
  }
  return s + "]";
}

namespace {

std::string format_double(double v) { return fmt::format("{:g}", v); }

template <class T, class F>
std::string format_list(const std::vector<T>& v, size_t max_items, F one) {
  std::string s = "[";
  for (size_t i = 0; i < v.size() && i < max_items; ++i) {
    if (i) s += ", ";
    s += one(v[i]);
  }
  if (v.size() > max_items) s += fmt::format(", ... ({} in all)", v.size());
  return s + "]";
}

}  // namespace

std::string format_attribute(const Attribute& a, size_t max_items) {
  using K = Attribute::Kind;
  // Long strings (embedded configs, base64 blobs) are cut: the page shows, not stores.
  auto quote = [](const std::string& s) {
    constexpr size_t kMax = 256;
    if (s.size() <= kMax) return "\"" + s + "\"";
    return "\"" + s.substr(0, kMax) + fmt::format("\" ... ({} bytes in all)", s.size());
  };
  switch (a.kind) {
    case K::Int: return std::to_string(a.i);
    case K::Float: return format_double(a.f);
    case K::String: return quote(a.s);
    case K::Ints: return format_list(a.ints, max_items, [](int64_t x) { return std::to_string(x); });
    case K::Floats: return format_list(a.floats, max_items, format_double);
    case K::Strings: return format_list(a.strings, max_items, quote);
    case K::Tensor: {
      std::string s = fmt::format("tensor {} [", elem_type_name(a.tensor_type));
      for (size_t i = 0; i < a.tensor_dims.size(); ++i) s += (i ? ", " : "") + std::to_string(a.tensor_dims[i]);
      s += "]";
      if (a.tensor_values) s += " = " + format_list(*a.tensor_values, max_items, format_double);
      return s;
    }
    case K::Graph: return "graph";
    case K::Graphs: return fmt::format("{} graphs", a.graphs.size());
    case K::Tensors: return "tensors";
    default: return "?";
  }
}

namespace {

constexpr size_t kPrecisions = kAllPrecisions.size();

// Items a region's drawing is made of (the page knows these codes).
enum ItemKind { kItemNode = 0, kItemInput = 1, kItemOutput = 2, kItemFromRegion = 3, kItemToRegion = 4 };

// Box sizes in points, estimated from label lengths so Graphviz needs no fonts.
double node_width(const Node& n) {
  double op = static_cast<double>(n.op_type.size()) * 8.2 + 40;  // bold 12px, and room for the badge
  double name = static_cast<double>(std::min<size_t>(n.name.size(), 30)) * 6.1 + 18;
  return std::clamp(std::max(op, name), 84.0, 210.0);
}
double tensor_width(const std::string& name) {
  return std::clamp(static_cast<double>(std::min<size_t>(name.size(), 30)) * 6.1 + 22, 60.0, 200.0);
}

// A region-link box fits its label, "↑ <name> (region k)": the page cuts the
// name in the middle to this many characters, so neighbouring links never overlap.
constexpr size_t kLinkNameChars = 22;
double link_width(const std::string& name, int region) {
  size_t chars = 2 + std::min(name.size(), kLinkNameChars) + 9 + std::to_string(region + 1).size() + 1;
  return static_cast<double>(chars) * 6.3 + 14;
}

// The first few values of a constant, as the Inputs/Outputs tab shows them: the page
// carries a preview, never the tensor (its size stays that of the graph, not the weights).
constexpr size_t kValuePreview = 8;
std::string value_preview(const TensorInfo& t) {
  const std::vector<double>& v = *t.values;
  auto one = [&](double x) -> std::string {
    if (is_float(t.type)) return format_double(x);
    // INT64 sentinels (PyTorch's "to the end" slice bound) do not survive a double exactly.
    if (x >= 9.2e18) return "2^63-1 (INT64 max)";
    if (x <= -9.2e18) return "-2^63 (INT64 min)";
    return fmt::format("{:.0f}", x);
  };
  return format_list(v, kValuePreview, one);
}

const char* origin_name(TensorOrigin o) {
  switch (o) {
    case TensorOrigin::GraphInput: return "input";
    case TensorOrigin::Initializer: return "initializer";
    case TensorOrigin::ConstantNode: return "constant";
    case TensorOrigin::Computed: return "computed";
    case TensorOrigin::OuterScope: return "outer";
    default: return "unknown";
  }
}

class Interner {
 public:
  int id(const std::string& s) {
    auto [it, fresh] = ids_.try_emplace(s, static_cast<int>(list_.size()));
    if (fresh) list_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> list_;
};

}  // namespace

struct ReportBuilder::Impl {
  const Model& model;
  std::vector<const Release*> releases;
  ReportOptions options;
  size_t runtimes = 0;                 // releases.size() * kPrecisions, twice with a target
  std::vector<size_t> graph_offset;    // flat node id of each graph's first node
  std::vector<std::unordered_map<int, size_t>> position;  // per graph: Node::index -> position
  size_t node_total = 0;

  Interner strings;                    // every reason, hint and note text
  Interner reason_keys;                // "rule\x1fmessage\x1fsource" (as string ids)
  std::vector<std::array<int, 3>> reasons;
  std::unordered_map<std::string, int> detail_ids;  // whole-verdict key -> index into details
  std::string key_buffer;
  std::vector<Json> details;           // [verdict, precision, [reason], [hint]]
  // node_detail[flat * runtimes + k]: detail id, -1 when runtime k was never added.
  std::vector<int> node_detail;
  std::vector<std::vector<int>> notes;  // per runtime: note string ids
  std::vector<Json> dla_summary;        // per runtime: the DLA placement's summary (null: none)
  std::vector<char> target_added;       // per release: a runtime narrowed to the target was added
  Json partition;                       // null until set_partition

  Impl(const Model& m, std::vector<const Release*> r, ReportOptions o)
      : model(m), releases(std::move(r)), options(std::move(o)) {
    runtimes = releases.size() * kPrecisions * (options.target ? 2 : 1);
    for (const Graph& g : model.graphs) {
      graph_offset.push_back(node_total);
      std::unordered_map<int, size_t> pos;
      for (size_t i = 0; i < g.nodes.size(); ++i) pos[g.nodes[i].index] = i;
      position.push_back(std::move(pos));
      node_total += g.nodes.size();
    }
    node_detail.assign(node_total * runtimes, -1);
    notes.resize(runtimes);
    dla_summary.resize(runtimes);
    target_added.assign(releases.size(), 0);
  }

  // Runtimes are ordered precision-major (k = p * releases + r): neighbouring
  // releases mostly agree, so run-length coding of a node's row stays short.
  // The target's runtimes follow all the others (k + releases * precisions).
  size_t runtime_index(size_t release_index, Precision p, bool on_target = false) const {
    return (on_target ? releases.size() * kPrecisions : 0) + static_cast<size_t>(p) * releases.size() + release_index;
  }

  // `dla`: the node's place on a DLA target (null or NONE: none), a fifth element of the detail.
  int detail_id(const NodeVerdict& nv, const DlaNode* dla = nullptr) {
    // One key over the whole verdict; string ids are only made for new ones
    // (most of the 2 million verdicts of a big model repeat earlier ones).
    std::string& key = key_buffer;
    key.clear();
    key += static_cast<char>('0' + static_cast<int>(nv.verdict));
    key += nv.precision;
    for (const Reason& r : nv.reasons) {
      key += '\x1e';
      key += r.rule;
      key += '\x1f';
      key += r.message;
      key += '\x1f';
      key += r.source;
    }
    key += '\x1d';
    for (const std::string& h : nv.hints) {
      key += h;
      key += '\x1e';
    }
    if (dla && dla->verdict == DlaVerdict::NONE) dla = nullptr;
    if (dla) {
      key += '\x1c';
      key += dla_verdict_name(dla->verdict);
      key += '\x1f';
      key += dla->reason;
      key += '\x1f';
      key += dla->source;
    }
    auto found = detail_ids.find(key);
    if (found != detail_ids.end()) return found->second;
    std::vector<int> rs, hs;
    for (const Reason& r : nv.reasons) {
      // The page shows the rule in words (the check JSON keeps the rule's text).
      int a = strings.id(describe_rule_text(r.rule)), b = strings.id(r.message), c = strings.id(r.source);
      int id = reason_keys.id(fmt::format("{}\x1f{}\x1f{}", a, b, c));
      if (id == static_cast<int>(reasons.size())) reasons.push_back({a, b, c});
      rs.push_back(id);
    }
    for (const std::string& h : nv.hints) hs.push_back(strings.id(h));
    int id = static_cast<int>(details.size());
    details.push_back(Json::array({static_cast<int>(nv.verdict), nv.precision, rs, hs}));
    if (dla)
      details.back().push_back(Json::array({std::string(dla_verdict_name(dla->verdict)), strings.id(std::string(dla->reason)),
                                            strings.id(std::string(dla->source))}));
    detail_ids.emplace(key, id);
    return id;
  }

  void add(size_t release_index, Precision p, const Annotations& ann) {
    if (release_index >= releases.size()) throw std::out_of_range("report: release index out of range");
    if (ann.target && ann.target != options.target) throw std::logic_error("report: annotations of another target");
    size_t k = runtime_index(release_index, p, ann.target != nullptr);
    if (ann.target) target_added[release_index] = 1;
    // DLA placement is per main-graph node, by node index.
    std::unordered_map<int, const DlaNode*> dla;
    if (ann.dla)
      for (const DlaNode& d : ann.dla->nodes) dla.emplace(d.index, &d);
    for (const NodeVerdict& nv : ann.nodes) {
      if (nv.graph < 0 || static_cast<size_t>(nv.graph) >= model.graphs.size()) continue;
      auto it = position[nv.graph].find(nv.index);
      if (it == position[nv.graph].end()) continue;
      size_t flat = graph_offset[nv.graph] + it->second;
      const DlaNode* d = nullptr;
      if (nv.graph == 0 && !dla.empty())
        if (auto found = dla.find(nv.index); found != dla.end()) d = found->second;
      node_detail[flat * runtimes + k] = detail_id(nv, d);
    }
    notes[k].clear();
    for (const std::string& n : ann.notes) notes[k].push_back(strings.id(n));
    // The summary line of the placement, with check --format json's names and values (docs/check-json.md).
    dla_summary[k] = nullptr;
    if (const DlaPlacement* d = ann.dla.get())
      dla_summary[k] = {{"release", d->release},
                        {"dla_nodes", d->dla_nodes},
                        {"gpu_fallback_nodes", d->gpu_nodes},
                        {"unsupported_nodes", d->unsupported_nodes},
                        {"dla_macs", d->dla_macs},
                        {"total_macs", d->total_macs},
                        {"macs_unknown_nodes", d->macs_unknown_nodes},
                        {"transitions", d->transitions},
                        {"loadables", d->loadables},
                        {"max_loadables", d->max_loadables}};
  }

  // Tensors a subgraph (or its own subgraphs) reads from enclosing graphs:
  // the implicit inputs of the node that owns it.
  std::vector<std::string> outer_reads(size_t gi) const;  // in order of first read (GraphIndex::outer_reads)

  Json json_out();
  // Everything about a graph but the verdicts: it reads only the model, so it
  // may run while add() folds annotations on another thread.
  Json graph_json(size_t gi);
  std::vector<Json> layouts;  // graph_json of every graph, once laid out
  bool laid_out = false;
  void lay_out() {
    if (laid_out) return;
    for (size_t gi = 0; gi < model.graphs.size(); ++gi) layouts.push_back(graph_json(gi));
    laid_out = true;
  }
  Json op_table();
  Json engine_json();
};

std::vector<std::string> ReportBuilder::Impl::outer_reads(size_t gi) const {
  const Graph& g = model.graphs[gi];
  std::vector<std::string> names;
  for (TensorId t : g.index.outer_reads) names.push_back(g.tensors[static_cast<size_t>(t)].name);
  return names;
}

namespace {

struct RegionItem {
  int kind = kItemNode;
  int ref = 0;      // node position or tensor id or region
  int extra = -1;   // for kItemFromRegion: the region the tensor comes from
  double width = 0, height = 0;
  bool operator==(const RegionItem&) const = default;
};

}  // namespace

Json ReportBuilder::Impl::graph_json(size_t gi) {
  const Graph& g = model.graphs[gi];
  Json out;
  out["path"] = g.path;
  out["parent"] = g.parent;
  out["parent_node"] = g.parent_node;
  out["kind"] = g.path.rfind("fn:", 0) == 0 ? "function" : (g.parent >= 0 ? "subgraph" : "main");

  // Tensors the graph names, numbered in order of first use.
  Interner tensor_ids;
  Json tensors = Json::array();
  auto tensor = [&](const std::string& name) {
    int id = tensor_ids.id(name);
    if (id == static_cast<int>(tensors.size())) {
      const TensorInfo* t = g.find(name, model.graphs);
      if (t) {
        Json row = Json::array({name, std::string(elem_type_name(t->type)), format_shape(*t), origin_name(t->origin)});
        if (t->values && !t->values->empty()) row.push_back(value_preview(*t));
        tensors.push_back(std::move(row));
      }
      else
        tensors.push_back(Json::array({name, "UNDEFINED", "?", "unknown"}));
    }
    return id;
  };
  Json ins = Json::array(), outs = Json::array();
  for (const auto& n : g.inputs) ins.push_back(tensor(n));
  for (const auto& n : g.outputs) outs.push_back(tensor(n));

  // Inputs as the data flow sees them: a node that owns subgraphs also reads
  // what those subgraphs take from this graph.
  std::vector<std::vector<std::string>> implicit(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const Attribute& a : g.nodes[i].attributes)
      for (int sub : a.graphs)
        if (sub >= 0 && static_cast<size_t>(sub) < model.graphs.size())
          for (const auto& name : outer_reads(sub))
            if (std::find(implicit[i].begin(), implicit[i].end(), name) == implicit[i].end() &&
                std::find(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end(), name) == g.nodes[i].inputs.end())
              implicit[i].push_back(name);
  }
  auto all_inputs = [&](size_t i) {
    std::vector<std::string> v = g.nodes[i].inputs;
    v.insert(v.end(), implicit[i].begin(), implicit[i].end());
    return v;
  };

  // Which node of this graph produces each tensor; the order is topological (ties by
  // position), so regions are runs of the data flow even if the file's order is not.
  auto producer_of = [&](const std::string& name) -> int {
    TensorId t = g.id(name);
    return t == kNoTensor ? -1 : g.index.producer[static_cast<size_t>(t)];
  };
  size_t n = g.nodes.size();
  const std::vector<int>& order = g.index.order;

  size_t region_size = std::max<size_t>(options.region_nodes, 1);
  size_t region_count = n <= region_size ? 1 : (n + region_size - 1) / region_size;
  size_t per_region = (n + region_count - 1) / std::max<size_t>(region_count, 1);
  std::vector<int> region(n, 0);
  for (size_t r = 0; r < order.size(); ++r)
    region[static_cast<size_t>(order[r])] = static_cast<int>(per_region ? r / per_region : 0);

  // Folded as Netron folds them: a Constant, or an Identity of a constant, whose outputs only
  // nodes of this graph read (no graph output, no subgraph) is drawn inside the node reading
  // it (its first reader; the Inputs/Outputs tab shows the values). folded_into[i]: that
  // reader's position, -1 for nodes drawn as boxes.
  std::vector<int> folded_into(n, -1);
  {
    std::unordered_map<std::string, bool> read_elsewhere;
    for (const auto& o : g.outputs) read_elsewhere[o] = true;
    for (const auto& list : implicit)
      for (const auto& t : list) read_elsewhere[t] = true;
    auto foldable_input = [&](const Node& node) {
      if (node.inputs.size() != 1 || node.inputs[0].empty()) return false;
      const TensorInfo* t = g.find(node.inputs[0], model.graphs);
      if (t && t->origin == TensorOrigin::Initializer) return true;
      int p = producer_of(node.inputs[0]);
      return p >= 0 && folded_into[static_cast<size_t>(p)] >= 0;
    };
    for (int i : order) {  // producers first: an Identity of a folded Constant folds too
      const Node& node = g.nodes[static_cast<size_t>(i)];
      bool std_domain = node.domain.empty() || node.domain == "ai.onnx";
      if (!std_domain || !((node.op_type == "Constant" && node.inputs.empty()) ||
                           (node.op_type == "Identity" && foldable_input(node))))
        continue;
      int reader = -1;
      bool ok = !node.outputs.empty();
      for (const auto& o : node.outputs) {
        TensorId t = g.id(o);
        std::span<const int> readers = t == kNoTensor ? std::span<const int>() : g.consumers(t);
        if (o.empty() || read_elsewhere.count(o) || readers.empty()) ok = false;
        else if (reader < 0) reader = readers[0];
      }
      if (ok) folded_into[static_cast<size_t>(i)] = reader;
    }
    // A chain (Constant -> Identity -> Add) folds into its last reader.
    // Readers come later in the order, so walking it backwards resolves a chain in one pass.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      int& into = folded_into[static_cast<size_t>(*it)];
      if (into >= 0 && folded_into[static_cast<size_t>(into)] >= 0) into = folded_into[static_cast<size_t>(into)];
    }
  }

  // Nodes.
  std::map<std::pair<std::string, std::string>, int> function_graph;
  for (const auto& f : model.functions) function_graph[{f.domain, f.name}] = f.graph;
  Json nodes = Json::array();
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    Json jn;
    jn["ix"] = node.index;
    jn["n"] = node.name;
    jn["op"] = node.op_type;
    if (!node.domain.empty()) jn["d"] = node.domain;
    Json ji = Json::array(), jo = Json::array();
    for (const auto& t : node.inputs) ji.push_back(t.empty() ? -1 : tensor(t));
    for (const auto& t : node.outputs) jo.push_back(t.empty() ? -1 : tensor(t));
    jn["i"] = ji;
    jn["o"] = jo;
    if (!implicit[i].empty()) {
      Json jii = Json::array();
      for (const auto& t : implicit[i]) jii.push_back(tensor(t));
      jn["ii"] = jii;
    }
    Json attrs = Json::array();
    std::vector<int> subs;
    for (const Attribute& a : node.attributes) {
      attrs.push_back(Json::array({a.name, format_attribute(a), a.graphs}));
      subs.insert(subs.end(), a.graphs.begin(), a.graphs.end());
    }
    if (!attrs.empty()) jn["a"] = attrs;
    if (!subs.empty()) jn["s"] = subs;
    auto fg = function_graph.find({node.domain, node.op_type});
    if (fg != function_graph.end()) jn["f"] = fg->second;
    jn["r"] = region[i];
    if (folded_into[i] >= 0) jn["fo"] = folded_into[i];

    nodes.push_back(std::move(jn));
  }

  // Regions: items and edges, each laid out by dot on its own.
  std::unordered_map<std::string, bool> is_graph_input;
  for (const auto& in : g.inputs) {
    const TensorInfo* t = g.find(in, model.graphs);
    is_graph_input[in] = !t || t->origin != TensorOrigin::Initializer;
  }
  // What a subgraph reads from enclosing graphs enters it like an input.
  if (gi > 0)
    for (const auto& name : outer_reads(gi)) is_graph_input.emplace(name, true);
  // What each region draws: its items and edges, before layout. With `folded`, folded nodes
  // are left out, as are the edges and links they had.
  struct EdgeRef {
    int from, to, tensor;
    bool operator==(const EdgeRef&) const = default;
  };
  struct RegionGraphs {
    std::vector<std::vector<RegionItem>> items;
    std::vector<std::vector<EdgeRef>> edges;
    std::vector<int> item_of;  // per node: its item in its region's list, -1 when folded
  };
  auto region_graphs = [&](const std::vector<int>* folded) {
    auto skip = [&](size_t i) { return folded && (*folded)[i] >= 0; };
    RegionGraphs out{std::vector<std::vector<RegionItem>>(region_count),
                     std::vector<std::vector<EdgeRef>>(region_count), std::vector<int>(n, -1)};
    auto& items = out.items;
    auto& edges = out.edges;
    auto& item_of = out.item_of;
    for (size_t i = 0; i < n; ++i) {
      if (skip(i)) continue;
      auto& list = items[region[i]];
      item_of[i] = static_cast<int>(list.size());
      // A third line for nodes that own subgraphs or call a local function.
      bool has_body = !implicit[i].empty() || function_graph.count({g.nodes[i].domain, g.nodes[i].op_type});
      for (const Attribute& a : g.nodes[i].attributes) has_body = has_body || !a.graphs.empty();
      list.push_back({kItemNode, static_cast<int>(i), -1, node_width(g.nodes[i]), has_body ? 52.0 : 38.0});
    }
    // One item per `key` in a region's `cache`.
    auto add_item = [&](int r, std::map<std::pair<int, int>, int>& cache, std::pair<int, int> key, int kind,
                        int ref, int extra, double w) {
      auto it = cache.find(key);
      if (it != cache.end()) return it->second;
      int id = static_cast<int>(items[r].size());
      items[r].push_back({kind, ref, extra, w, 24});
      cache[key] = id;
      return id;
    };
    std::vector<std::map<std::pair<int, int>, int>> input_items(region_count), from_items(region_count),
        to_items(region_count), output_items(region_count);
    std::vector<std::map<std::tuple<int, int, int>, bool>> seen(region_count);
    auto add_edge = [&](int r, int from, int to, int t) {
      if (seen[r].emplace(std::make_tuple(from, to, t), true).second) edges[r].push_back({from, to, t});
    };
    for (size_t i = 0; i < n; ++i) {
      if (skip(i)) continue;
      int r = region[i];
      for (const auto& in : all_inputs(i)) {
        if (in.empty()) continue;
        int t = tensor(in);
        if (int p = producer_of(in); p >= 0) {
          auto pi = static_cast<size_t>(p);
          if (pi == i || skip(pi)) continue;
          int pr = region[pi];
          if (pr == r) {
            add_edge(r, item_of[pi], item_of[i], t);
          } else {
            int from = add_item(r, from_items[r], {t, pr}, kItemFromRegion, t, pr, link_width(in, pr));
            add_edge(r, from, item_of[i], t);
            // A link under each producer (was: one per region at the bottom, which every producer
            // reached by an edge down the whole region; those edges were most of dot's work).
            int to = add_item(pr, to_items[pr], {item_of[pi], r}, kItemToRegion, r, r, 110);
            add_edge(pr, item_of[pi], to, t);
          }
        } else if (is_graph_input.count(in) && is_graph_input[in]) {
          int from = add_item(r, input_items[r], {t, -1}, kItemInput, t, -1, tensor_width(in));
          add_edge(r, from, item_of[i], t);
        }
      }
    }
    for (const auto& o : g.outputs) {
      int t = tensor(o);
      int p = producer_of(o);
      if (p < 0 || skip(static_cast<size_t>(p))) continue;
      int r = region[static_cast<size_t>(p)];
      int to = add_item(r, output_items[r], {t, -1}, kItemOutput, t, -1, tensor_width(o));
      add_edge(r, item_of[static_cast<size_t>(p)], to, t);
    }
    return out;
  };

  // Lays each region out with dot. With `same`, a region drawn exactly as there is not laid
  // out again: it is null, and the page draws that one (dot is deterministic).
  auto lay_out_regions = [&](const RegionGraphs& rg, const RegionGraphs* same) {
    Json regions = Json::array();
    for (size_t r = 0; r < region_count; ++r) {
      const std::vector<RegionItem>& items = rg.items[r];
      const std::vector<EdgeRef>& edges = rg.edges[r];
      if (same && same->items[r] == items && same->edges[r] == edges) {
        regions.push_back(nullptr);
        continue;
      }
      DotGraph dg;
      dg.graph_attrs = {{"rankdir", "TB"}, {"nodesep", "0.3"}, {"ranksep", "0.4"}};
      dg.node_defaults = {{"shape", "box"}, {"fixedsize", "true"}, {"label", ""}};
      for (size_t k = 0; k < items.size(); ++k) {
        const RegionItem& it = items[k];
        dg.nodes.push_back({"i" + std::to_string(k),
                            {{"width", fmt::format("{:.3f}", it.width / 72.0)},
                             {"height", fmt::format("{:.3f}", it.height / 72.0)}}});
      }
      for (const EdgeRef& e : edges)
        dg.edges.push_back({"i" + std::to_string(e.from), "i" + std::to_string(e.to), {}});
      GraphLayout lay = items.empty() ? GraphLayout{} : layout_graph(dg);
      Json jitems = Json::array();
      for (size_t k = 0; k < items.size(); ++k) {
        const RegionItem& it = items[k];
        const NodeBox& b = lay.nodes[k];
        jitems.push_back(Json::array({it.kind, it.ref, std::lround(b.x), std::lround(b.y), std::lround(it.width),
                                      std::lround(it.height), it.extra}));
      }
      Json jedges = Json::array();
      for (size_t k = 0; k < edges.size(); ++k) {
        const EdgeRoute& route = lay.edges[k];
        Json pts = Json::array();
        for (const auto& [x, y] : route.points) {
          pts.push_back(std::lround(x));
          pts.push_back(std::lround(y));
        }
        if (!route.points.empty()) {
          pts.push_back(std::lround(route.arrow_tip.first));
          pts.push_back(std::lround(route.arrow_tip.second));
        }
        jedges.push_back(Json::array({edges[k].from, edges[k].to, edges[k].tensor, std::move(pts)}));
      }
      regions.push_back({{"w", std::lround(lay.width)}, {"h", std::lround(lay.height)}, {"items", jitems},
                         {"edges", jedges}});
    }
    return regions;
  };
  RegionGraphs every = region_graphs(nullptr);
  Json regions = lay_out_regions(every, nullptr);
  for (size_t i = 0; i < n; ++i) nodes[i]["b"] = every.item_of[i];
  // The folded drawing, which the page opens on, exists only where something folds, and is laid
  // out only for the regions folding changes (null elsewhere: the page draws `regions` there).
  if (std::any_of(folded_into.begin(), folded_into.end(), [](int c) { return c >= 0; }))
    out["regions_folded"] = lay_out_regions(region_graphs(&folded_into), &every);

  out["tensors"] = std::move(tensors);
  out["inputs"] = std::move(ins);
  out["outputs"] = std::move(outs);
  out["nodes"] = std::move(nodes);
  out["regions"] = std::move(regions);
  return out;
}

Json ReportBuilder::Impl::op_table() {
  // For every default-domain op the model uses: its entry in each release.
  std::map<std::string, bool> used;
  for (const Graph& g : model.graphs)
    for (const Node& nd : g.nodes)
      if (nd.domain.empty() || nd.domain == "ai.onnx") used[nd.op_type] = true;
  Interner entries;
  Json entry_list = Json::array();
  Json ops = Json::object();
  for (const auto& [op, unused] : used) {
    (void)unused;
    Json row = Json::array();
    for (const Release* rel : releases) {
      const OpEntry* e = rel->find(op);
      if (!e) {
        row.push_back(-1);
        continue;
      }
      std::string types;
      for (const auto& t : e->types) types += (types.empty() ? "" : ", ") + t;
      std::string rules;
      for (const auto& r : e->rules) rules += (rules.empty() ? "" : "; ") + describe_rule(r);  // in words; JSON keeps the text
      std::string status(op_status_name(e->status));
      int id = entries.id(status + '\x1f' + types + '\x1f' + rules + '\x1f' + e->note + '\x1f' + e->plugin);
      if (id == static_cast<int>(entry_list.size()))
        entry_list.push_back(Json::array({status, types, rules, e->note, e->plugin}));
      row.push_back(id);
    }
    ops[op] = std::move(row);
  }
  return {{"entries", entry_list}, {"ops", ops}};
}

Json ReportBuilder::Impl::json_out() {
  Json out;
  out["schema_version"] = 1;
  out["trtlens_version"] = trtlens_version();
  out["kb_fingerprint"] = options.kb_fingerprint;
  out["title"] = options.title;
  Json m;
  m["path"] = model.path;
  m["ir_version"] = model.ir_version;
  m["producer"] = model.producer_name + (model.producer_version.empty() ? "" : " " + model.producer_version);
  Json opsets = Json::array();
  for (const auto& o : model.opsets) opsets.push_back(Json::array({o.domain, o.version}));
  m["opsets"] = opsets;
  m["nodes"] = node_total;
  out["model"] = m;

  Json rels = Json::array();
  for (const Release* r : releases) rels.push_back({{"name", r->name}, {"date", r->date}, {"basis", r->basis}});
  out["releases"] = rels;
  Json precs = Json::array();
  for (Precision p : kAllPrecisions) precs.push_back(std::string(precision_name(p)));
  out["precisions"] = precs;
  Json verdicts = Json::array();
  for (Verdict v : kAllVerdicts) verdicts.push_back(std::string(verdict_name(v)));
  out["verdicts"] = verdicts;
  int initial_release = static_cast<int>(releases.size()) - 1;
  for (size_t i = 0; i < releases.size(); ++i)
    if (releases[i] == options.initial_release) initial_release = static_cast<int>(i);
  out["initial"] = Json::array({initial_release, static_cast<int>(options.initial_precision)});
  if (const Target* t = options.target) {
    // Only with --target: the page data of a plain report stays as it was.
    out["initial"].push_back(1);
    Json runs = Json::array(), precisions = Json::array();
    for (const Release* const& r : releases) {
      runs.push_back(static_cast<bool>(target_added[&r - releases.data()]));
      const TargetRow* row = t->precisions_at(*r);
      if (!t->runs_release(*r)) precisions.push_back(nullptr);  // the device does not run it
      else precisions.push_back(row ? row->value : "");
    }
    // The release the CLI takes on this target without --trt (a Jetson: its newest JetPack's, not 11.4..): the page
    // moves there when the target is chosen at a release it does not run. -1: none on the page.
    int default_release = -1;
    if (const Release* d = TargetCatalog::builtin().newest_release(*t, KnowledgeBase::builtin()))
      for (size_t i = 0; i < releases.size(); ++i)
        if (releases[i]->name == d->name && target_added[i]) default_release = static_cast<int>(i);
    out["target"] = {{"name", t->name},   {"label", t->label()},           {"dla", t->dla},
                     {"runs", runs},      {"precisions", precisions}, {"default_release", default_release}};
  }

  // A runtime never added reads as UNKNOWN with a reason saying so.
  int unknown_detail = -1;
  if (std::find(node_detail.begin(), node_detail.end(), -1) != node_detail.end()) {
    NodeVerdict nv;
    nv.verdict = Verdict::UNKNOWN;
    nv.precision = "-";
    nv.reasons.push_back({"analysis", "this runtime was not analysed for this report", ""});
    unknown_detail = detail_id(nv);
  }
  lay_out();
  // Each node's verdict row, run-length coded ([detail, count, ...]) and shared
  // between nodes whose rows are equal.
  Interner profiles;
  std::vector<Json> profile_list;
  std::vector<int> row(runtimes);
  std::string key;
  for (size_t gi = 0; gi < model.graphs.size(); ++gi) {
    Json& nodes = layouts[gi]["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i) {
      size_t flat = graph_offset[gi] + i;
      for (size_t k = 0; k < runtimes; ++k) {
        int d = node_detail[flat * runtimes + k];
        row[k] = d < 0 ? unknown_detail : d;
      }
      Json rle = Json::array();
      key.clear();
      for (size_t k = 0; k < runtimes;) {
        size_t e = k;
        while (e < runtimes && row[e] == row[k]) ++e;
        rle.push_back(row[k]);
        rle.push_back(e - k);
        key += std::to_string(row[k]) + '*' + std::to_string(e - k) + ',';
        k = e;
      }
      int pid = profiles.id(key);
      if (pid == static_cast<int>(profile_list.size())) profile_list.push_back(std::move(rle));
      nodes[i]["p"] = pid;
    }
  }
  out["graphs"] = layouts;
  out["profiles"] = profile_list;
  out["details"] = details;
  Json jreasons = Json::array();
  for (const auto& r : reasons) jreasons.push_back(Json::array({r[0], r[1], r[2]}));
  out["reasons"] = jreasons;
  out["notes"] = notes;
  if (options.target && options.target->dla) out["dla"] = dla_summary;  // only on a DLA target: a plain page is unchanged
  out["partition"] = partition;
  out["engine"] = options.engine ? engine_json() : Json();
  out["kb"] = op_table();
  out["strings"] = strings.list();
  return out;
}

Json ReportBuilder::Impl::engine_json() {
  const EnginePlan& plan = *options.engine->plan;
  const Overlay& o = *options.engine->overlay;
  const PredictionCheck& c = *options.engine->check;
  Json e;
  e["plan"] = plan.name;
  e["layout"] = plan.layout;
  e["has_profile"] = plan.has_profile;
  e["total_ms"] = plan.total_latency_ms();
  int release = -1;
  for (size_t r = 0; r < releases.size(); ++r)
    if (c.runtime.release && releases[r]->name == c.runtime.release->name) release = static_cast<int>(r);
  e["release"] = release;
  e["precision"] = static_cast<int>(c.runtime.precision);
  e["release_source"] = c.runtime.release_source;
  e["precision_source"] = c.runtime.precision_source;
  std::vector<std::string> notes = plan.notes;
  notes.insert(notes.end(), o.notes.begin(), o.notes.end());
  e["notes"] = notes;
  Json match = Json::array(), vanished = Json::array();
  for (auto m : {OverlayMatch::None, OverlayMatch::Metadata, OverlayMatch::Name, OverlayMatch::ForeignRange,
                 OverlayMatch::Neighbours})
    match.push_back(std::string(overlay_match_name(m)));
  for (auto v : {Vanished::None, Vanished::ForeignNode, Vanished::ConstantFolded, Vanished::NotFound})
    vanished.push_back(std::string(vanished_name(v)));
  e["match_names"] = match;
  e["vanished_names"] = vanished;
  Json layers = Json::array();
  for (const EngineLayer& l : plan.layers)
    layers.push_back(Json::array({l.name, l.type, l.precision, l.timed ? Json(l.avg_ms) : Json(), l.percent, l.tactic}));
  e["layers"] = std::move(layers);
  // of[graph][position]: [layers, match, vanished, folded_into], as the page's nodes are listed.
  Json of = Json::array();
  for (size_t g = 0; g < model.graphs.size(); ++g) of.push_back(Json::array());
  for (const NodeOverlay& n : o.nodes) {
    Json& row = of[static_cast<size_t>(n.graph)];
    auto it = position[static_cast<size_t>(n.graph)].find(n.index);
    if (it == position[static_cast<size_t>(n.graph)].end()) continue;
    while (row.size() <= it->second) row.push_back(nullptr);
    row[it->second] = Json::array({n.layers, static_cast<int>(n.match), static_cast<int>(n.vanished), n.folded_into});
  }
  e["of"] = std::move(of);
  e["summary"] = {{"nodes", o.nodes.size()},        {"in_layers", o.in_layers},
                  {"foreign_node", o.foreign_node}, {"constant_folded", o.constant_folded},
                  {"not_found", o.not_found},       {"layers", plan.layers.size()},
                  {"layers_with_nodes", o.layers_with_nodes}, {"compared", c.compared}};
  Json dis = Json::array();
  for (const OverlayDisagreement& d : c.disagreements) {
    const NodeOverlay& n = o.nodes[static_cast<size_t>(d.node)];
    auto it = position[static_cast<size_t>(n.graph)].find(n.index);
    if (it == position[static_cast<size_t>(n.graph)].end()) continue;
    dis.push_back(Json::array({n.graph, it->second, d.kind, std::string(verdict_name(d.predicted)),
                               d.predicted_precision, d.measured_precision, d.message}));
  }
  e["disagreements"] = std::move(dis);
  return e;
}

ReportBuilder::ReportBuilder(const Model& model, std::vector<const Release*> releases, ReportOptions options)
    : impl_(std::make_unique<Impl>(model, std::move(releases), std::move(options))) {}
ReportBuilder::~ReportBuilder() = default;

void ReportBuilder::lay_out() { impl_->lay_out(); }

void ReportBuilder::add(size_t release_index, Precision precision, const Annotations& annotations) {
  impl_->add(release_index, precision, annotations);
}

void ReportBuilder::set_partition(const Partition& p, const Annotations& a) {
  // "of": TensorRT region of each main-graph node by Node::index, -1 outside.
  std::vector<int> of(impl_->model.graphs.empty() ? 0 : impl_->model.graphs[0].nodes.size(), -1);
  Json sizes = Json::array();
  for (const Part& part : p.parts) {
    if (!part.tensorrt) continue;
    sizes.push_back(part.nodes.size());
    for (int n : part.nodes) of[static_cast<size_t>(n)] = part.region;
  }
  impl_->partition = {{"release", a.release->name}, {"precision", precision_name(a.precision)},
                      {"min_nodes", p.min_nodes}, {"regions", sizes}, {"of", of}};
}

std::string ReportBuilder::json() const {
  // Model strings may hold invalid UTF-8; replace rather than throw.
  return impl_->json_out().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace trtlens
