// partition_model: the TensorRT regions of a model's graphs and the chain of
// parts around the main graph's (include/trtlens/partition.h).
#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "trtlens/partition.h"
#include "trtlens/target.h"

namespace trtlens {
namespace {

bool imports(Verdict v) { return v == Verdict::SUPPORTED || v == Verdict::FALLBACK || v == Verdict::IMPLICIT_CAST; }

// Product of fixed dims; -1 when a dim is unknown or symbolic.
int64_t elements(const TensorInfo* t) {
  if (!t || t->rank < 0) return -1;
  int64_t n = 1;
  for (const Dim& d : t->dims) {
    if (!d.fixed()) return -1;
    n *= d.value;
  }
  return n;
}

int64_t dim(const TensorInfo* t, int k) {  // k < 0 counts from the end
  if (!t || t->rank < 0) return -1;
  int i = k < 0 ? t->rank + k : k;
  if (i < 0 || i >= t->rank) return -1;
  return t->dims[static_cast<size_t>(i)].value;
}

bool counts_macs(const Node& n) {
  return n.domain.empty() && (n.op_type == "Conv" || n.op_type == "ConvTranspose" || n.op_type == "MatMul" || n.op_type == "Gemm");
}

// Multiply-accumulates of one node; 0 for ops that are not counted, -1 when
// the shapes needed are not known.
int64_t node_macs(const Graph& g, const Node& n) {
  if (!counts_macs(n)) return 0;
  auto info = [&](std::span<const TensorId> ids, size_t k) -> const TensorInfo* {
    if (k >= ids.size() || ids[k] == kNoTensor) return nullptr;
    // A body's read of an enclosing graph's tensor: that tensor's facts.
    auto outer = g.index.outer_tensor.find(ids[k]);
    return outer != g.index.outer_tensor.end() && outer->second ? outer->second : &g.tensors[static_cast<size_t>(ids[k])];
  };
  auto kernel = [](const TensorInfo* w) {  // elements of W without its first two dims
    int64_t all = elements(w), lead = dim(w, 0) * dim(w, 1);
    return all < 0 || lead <= 0 ? -1 : all / lead;
  };
  auto times = [](int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : a * b; };
  if (n.op_type == "Conv") {  // out elements × C/group × kernel
    const TensorInfo* w = info(g.input_ids(n), 1);
    return times(times(elements(info(g.output_ids(n), 0)), dim(w, 1)), kernel(w));
  }
  if (n.op_type == "ConvTranspose") {  // in elements × M/group × kernel
    const TensorInfo* w = info(g.input_ids(n), 1);
    return times(times(elements(info(g.input_ids(n), 0)), dim(w, 1)), kernel(w));
  }
  if (n.op_type == "MatMul") return times(elements(info(g.output_ids(n), 0)), dim(info(g.input_ids(n), 0), -1));
  const Attribute* ta = n.attribute("transA");  // Gemm
  const TensorInfo* a = info(g.input_ids(n), 0);
  return times(elements(info(g.output_ids(n), 0)), ta && ta->i ? dim(a, 0) : dim(a, -1));
}

// Elements of a MAC node's weight (input 1) when known: the size of its compute
// when its shapes are not (the share of unknown compute is shown by weight).
int64_t weight_elements(const Graph& g, const Node& n) {
  TensorId w = g.input_id(n, 1);
  if (w == kNoTensor) return 0;
  auto outer = g.index.outer_tensor.find(w);
  const TensorInfo* t = outer != g.index.outer_tensor.end() && outer->second ? outer->second : &g.tensors[static_cast<size_t>(w)];
  return std::max<int64_t>(0, elements(t));
}

// One graph's facts for region forming.
struct GraphFacts {
  std::vector<std::string> why;              // empty: the node may join a region
  std::vector<std::vector<TensorId>> reads;  // its inputs, plus what its bodies read from this graph
  std::vector<char> copied;                  // constant nodes: copied into each part that reads them
  std::vector<std::vector<int>> consumers;   // readers among scheduled (not copied) nodes
  std::vector<int> region;                   // region index per node; -1 outside
  std::vector<std::vector<int>> regions;     // node lists, in schedule order
};

// A set of scheduled nodes is convex when no path leaves it and comes back:
// then it can run as one engine without a cycle between parts.
bool convex(const GraphFacts& f, const std::vector<int>& order, const std::vector<char>& in) {
  std::vector<char> after(in.size(), 0);  // outside the set, reachable from it
  for (int i : order) {
    if (f.copied[static_cast<size_t>(i)]) continue;
    for (int c : f.consumers[static_cast<size_t>(i)]) {
      bool from_set = in[static_cast<size_t>(i)] || after[static_cast<size_t>(i)];
      if (!from_set) continue;
      if (in[static_cast<size_t>(c)] && !in[static_cast<size_t>(i)]) return false;
      if (!in[static_cast<size_t>(c)]) after[static_cast<size_t>(c)] = 1;
    }
  }
  return true;
}

// Regions of one graph, as ONNX Runtime's TensorRT provider forms them
// (tensorrt_execution_provider.cc, GetCapability): groups of supported nodes,
// groups smaller than min_nodes dropped, then all groups consolidated into one
// when that creates no cycle. Our groups are the runs of a greedy schedule that
// stays on one runtime while it has a ready node (each run is convex).
void form_regions(const Graph& g, GraphFacts& f, int min_nodes) {
  const size_t n = g.nodes.size();
  f.region.assign(n, -1);
  std::vector<int> indegree(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int c : f.consumers[i]) ++indegree[static_cast<size_t>(c)];
  using MinHeap = std::priority_queue<int, std::vector<int>, std::greater<int>>;
  MinHeap ready[2];  // [0] other runtime, [1] TensorRT
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0 && !f.copied[i]) ready[f.why[i].empty()].push(static_cast<int>(i));
  std::vector<std::vector<int>> groups;
  bool current = !ready[1].empty(), open = false;
  while (!ready[0].empty() || !ready[1].empty()) {
    if (ready[current].empty()) {
      current = !current;
      open = false;
    }
    int node = ready[current].top();
    ready[current].pop();
    if (current) {
      if (!open) groups.emplace_back();
      open = true;
      groups.back().push_back(node);
    }
    for (int c : f.consumers[static_cast<size_t>(node)])
      if (--indegree[static_cast<size_t>(c)] == 0) ready[f.why[static_cast<size_t>(c)].empty()].push(c);
  }
  std::vector<std::vector<int>> kept;
  for (auto& nodes : groups) {
    if (static_cast<int>(nodes.size()) >= min_nodes) {
      kept.push_back(std::move(nodes));
      continue;
    }
    for (int node : nodes)
      f.why[static_cast<size_t>(node)] = fmt::format("imports, but its region has {} node{}, fewer than --min-nodes {}",
                                                     nodes.size(), nodes.size() == 1 ? "" : "s", min_nodes);
  }
  if (kept.size() > 1) {
    std::vector<char> in(n, 0);
    for (const auto& nodes : kept)
      for (int node : nodes) in[static_cast<size_t>(node)] = 1;
    if (convex(f, g.index.order, in)) {
      std::vector<int> all;
      for (const auto& nodes : kept) all.insert(all.end(), nodes.begin(), nodes.end());
      kept.assign(1, std::move(all));
    }
  }
  for (size_t r = 0; r < kept.size(); ++r)
    for (int node : kept[r]) f.region[static_cast<size_t>(node)] = static_cast<int>(r);
  f.regions = std::move(kept);
}

// One TensorRT part of a region cut for a DLA core.
struct Piece {
  bool dla = false;
  std::vector<int> nodes;
};

// Cuts one region (scheduled nodes of the main graph) into DLA and GPU pieces, in an order where
// every piece reads only pieces before it. First the runs of a schedule in dependency order that
// stays on one device while it has a ready node (form_regions' rule). Each run then reads the run
// before it (else it would have been scheduled earlier), so two runs of one device merge only when
// the piece between them does not read the earlier one: that piece then goes first, and the two
// join behind it (pieces of one device that become neighbours join too). `scratch` is n ints, all
// -1 on entry and on return.
std::vector<Piece> cut_for_dla(const GraphFacts& f, const std::vector<int>& region, const DlaPlacement& d,
                               const std::vector<int>& producer, std::vector<int>& scratch) {
  // scratch: 0 marks the region's nodes; then their in-region indegree while scheduling; then
  // 1 + the piece index of each node.
  for (int node : region) scratch[static_cast<size_t>(node)] = 0;
  // A node the builder folds (NONE: a Shape of a static tensor) goes where its first reader in the
  // region goes, so its value does not cross a cut; one without a reader here goes with the current run.
  std::unordered_map<int, int> folded;
  auto device = [&](int node) {  // 0 GPU, 1 DLA, 2 either
    DlaVerdict v = d.nodes[static_cast<size_t>(node)].verdict;
    if (v != DlaVerdict::NONE) return v == DlaVerdict::DLA ? 1 : 0;
    auto it = folded.find(node);
    return it == folded.end() ? 2 : it->second;
  };
  for (auto it = region.rbegin(); it != region.rend(); ++it)  // readers first
    if (d.nodes[static_cast<size_t>(*it)].verdict == DlaVerdict::NONE)
      for (int c : f.consumers[static_cast<size_t>(*it)])
        if (scratch[static_cast<size_t>(c)] == 0 && device(c) != 2) {
          folded[*it] = device(c);
          break;
        }
  for (int node : region)
    for (int c : f.consumers[static_cast<size_t>(node)])
      if (scratch[static_cast<size_t>(c)] >= 0) ++scratch[static_cast<size_t>(c)];
  using MinHeap = std::priority_queue<int, std::vector<int>, std::greater<int>>;
  MinHeap ready[3];
  for (int node : region)
    if (scratch[static_cast<size_t>(node)] == 0) ready[device(node)].push(node);
  std::vector<Piece> runs;
  int current = !ready[1].empty() ? 1 : 0;
  bool open = false;
  while (!ready[0].empty() || !ready[1].empty() || !ready[2].empty()) {
    MinHeap* from = !ready[current].empty() ? &ready[current] : !ready[2].empty() ? &ready[2] : nullptr;
    if (!from) {
      current = 1 - current;
      open = false;
      continue;
    }
    int node = from->top();
    from->pop();
    if (!open) runs.push_back({current == 1, {}});
    open = true;
    runs.back().nodes.push_back(node);
    for (int c : f.consumers[static_cast<size_t>(node)])
      if (scratch[static_cast<size_t>(c)] > 0 && --scratch[static_cast<size_t>(c)] == 0) ready[device(c)].push(c);
  }
  // scratch now holds 0 for every region node: it becomes 1 + the piece index.
  std::vector<Piece> pieces;
  auto number = [&](size_t k) {
    for (int node : pieces[k].nodes) scratch[static_cast<size_t>(node)] = static_cast<int>(k) + 1;
  };
  auto reads = [&](const Piece& reader, size_t k) {  // `reader` reads an output of pieces[k]
    for (int node : reader.nodes)
      for (TensorId t : f.reads[static_cast<size_t>(node)])
        if (int p = producer[static_cast<size_t>(t)]; p >= 0 && scratch[static_cast<size_t>(p)] == static_cast<int>(k) + 1)
          return true;
    return false;
  };
  for (auto& run : runs) {
    const size_t k = pieces.size();
    if (k >= 2 && pieces[k - 2].dla == run.dla && !reads(pieces[k - 1], k - 2)) {
      Piece same = std::move(pieces[k - 2]), between = std::move(pieces[k - 1]);
      pieces.resize(k - 2);
      if (!pieces.empty() && pieces.back().dla == between.dla)
        pieces.back().nodes.insert(pieces.back().nodes.end(), between.nodes.begin(), between.nodes.end());
      else
        pieces.push_back(std::move(between));
      number(pieces.size() - 1);
      same.nodes.insert(same.nodes.end(), run.nodes.begin(), run.nodes.end());
      pieces.push_back(std::move(same));
    } else {
      pieces.push_back(std::move(run));
    }
    number(pieces.size() - 1);
  }
  for (int node : region) scratch[static_cast<size_t>(node)] = -1;
  return pieces;
}

}  // namespace

std::vector<std::string> default_exclude_ops(const Release& r) {
  // The onnx-tensorrt parser's supportsOperator, which ONNX Runtime's provider asks:
  // NonMaxSuppression refused from 8.0 (8.0-GA:ModelImporter.cpp:426), NonZero and
  // RoiAlign too from 8.5 (8.5-GA:ModelImporter.cpp:468, 10.1-GA:ModelImporter.cpp:446);
  // ONNX Runtime 1.20.1 kept them out for TensorRT 10 itself, and from 1.21 its option
  // trt_op_types_to_exclude (empty by default) replaced the rule.
  if (r.major > 8 || (r.major == 8 && r.minor >= 5)) return {"NonMaxSuppression", "NonZero", "RoiAlign"};
  if (r.major == 8) return {"NonMaxSuppression"};
  return {};
}

std::string part_file_name(const Partition& p, size_t k) {
  size_t width = std::to_string(p.parts.empty() ? 0 : p.parts.size() - 1).size();
  const Part& part = p.parts[k];
  std::string_view kind = !part.tensorrt ? "rest" : !p.dla ? "trt" : part.dla ? "dla" : "gpu";
  return fmt::format("part{:0{}}_{}.onnx", k, width, kind);
}

Partition partition_model(const Model& m, const Annotations& a, const PartitionOptions& options) {
  Partition out;
  out.min_nodes = std::max(1, options.min_nodes);
  out.exclude_ops = options.exclude_ops;
  if (m.graphs.empty()) return out;
  const size_t graphs = m.graphs.size();
  // Bodies of If/Loop/Scan follow their owner in Model::graphs (functions have no parent).
  auto is_body = [&](size_t gi) {
    int parent = m.graphs[gi].parent;
    return gi > 0 && parent >= 0 && static_cast<size_t>(parent) < gi && m.graphs[gi].parent_node >= 0 &&
           static_cast<size_t>(m.graphs[gi].parent_node) < m.graphs[static_cast<size_t>(parent)].nodes.size();
  };
  std::vector<GraphFacts> facts(graphs);
  std::unordered_set<std::string_view> excluded(out.exclude_ops.begin(), out.exclude_ops.end());

  // Why each node stays outside TensorRT: its own verdict, --exclude-ops, or a body node that does not import.
  std::vector<std::vector<const NodeVerdict*>> own(graphs);
  for (size_t gi = 0; gi < graphs; ++gi) {
    own[gi].assign(m.graphs[gi].nodes.size(), nullptr);
    facts[gi].why.assign(m.graphs[gi].nodes.size(), std::string());
  }
  for (const auto& v : a.nodes)
    if (v.graph >= 0 && static_cast<size_t>(v.graph) < graphs && v.index >= 0 &&
        static_cast<size_t>(v.index) < own[static_cast<size_t>(v.graph)].size())
      own[static_cast<size_t>(v.graph)][static_cast<size_t>(v.index)] = &v;
  for (size_t gi = 0; gi < graphs; ++gi)
    for (size_t i = 0; i < m.graphs[gi].nodes.size(); ++i) {
      const NodeVerdict* v = own[gi][i];
      const Node& nd = m.graphs[gi].nodes[i];
      if (!v) facts[gi].why[i] = "no verdict";
      else if (!imports(v->verdict)) facts[gi].why[i] = v->reasons.empty() ? std::string(verdict_name(v->verdict)) : v->reasons.front().message;
      else if (nd.domain.empty() && excluded.count(nd.op_type))
        facts[gi].why[i] = fmt::format("imports, but --exclude-ops leaves {} to the other runtime", nd.op_type);
    }
  // Deepest bodies first, so a reason climbs through nested owners.
  for (size_t gi = graphs; gi-- > 1;) {
    if (!is_body(gi)) continue;
    const Graph& sub = m.graphs[gi];
    std::string& owner_why = facts[static_cast<size_t>(sub.parent)].why[static_cast<size_t>(sub.parent_node)];
    if (!owner_why.empty()) continue;
    for (size_t i = 0; i < sub.nodes.size(); ++i)
      if (!facts[gi].why[i].empty()) {
        owner_why = fmt::format("body node {}/{} does not go to TensorRT ({})", sub.path, i, facts[gi].why[i]);
        break;
      }
  }

  // What each node reads: its inputs, plus what its bodies read from its graph.
  for (size_t gi = 0; gi < graphs; ++gi) {
    const Graph& g = m.graphs[gi];
    auto& reads = facts[gi].reads;
    reads.resize(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i)
      for (TensorId in : g.input_ids(g.nodes[i]))
        if (in != kNoTensor) reads[i].push_back(in);
  }
  for (size_t gi = 1; gi < graphs; ++gi) {
    if (!is_body(gi)) continue;
    const Graph& sub = m.graphs[gi];
    const Graph& g = m.graphs[static_cast<size_t>(sub.parent)];
    std::vector<TensorId> outer;
    for (TensorId t : sub.index.outer_reads)
      if (TensorId id = g.id(sub.tensors[static_cast<size_t>(t)].name); id != kNoTensor) outer.push_back(id);
    std::sort(outer.begin(), outer.end(), [&](TensorId x, TensorId y) {
      return g.tensors[static_cast<size_t>(x)].name < g.tensors[static_cast<size_t>(y)].name;
    });
    auto& r = facts[static_cast<size_t>(sub.parent)].reads[static_cast<size_t>(sub.parent_node)];
    r.insert(r.end(), outer.begin(), outer.end());
  }

  // Constant nodes: every input an initializer or another constant node's output,
  // deterministic, no body, and they go to TensorRT (a Constant; Identity, Cast,
  // Shape chains of initializers; anything a constant-folding pass removes). They
  // are not scheduled: each part that reads one gets a copy (and what it reads),
  // as it gets initializers, so a constant is never a part's run-time input nor a
  // region of its own.
  for (size_t gi = 0; gi < graphs; ++gi) {
    const Graph& g = m.graphs[gi];
    GraphFacts& f = facts[gi];
    const size_t n = g.nodes.size();
    f.copied.assign(n, 0);
    for (int i : g.index.order) {
      const Node& nd = g.nodes[static_cast<size_t>(i)];
      if (!nd.domain.empty() || !f.why[static_cast<size_t>(i)].empty() || nd.op_type.starts_with("Random") ||
          nd.op_type == "Multinomial" || nd.op_type == "Bernoulli" ||
          std::any_of(nd.attributes.begin(), nd.attributes.end(), [](const Attribute& at) { return !at.graphs.empty(); }))
        continue;
      f.copied[static_cast<size_t>(i)] = std::all_of(f.reads[static_cast<size_t>(i)].begin(), f.reads[static_cast<size_t>(i)].end(), [&](TensorId t) {
        int p = g.index.producer[static_cast<size_t>(t)];
        return p >= 0 ? f.copied[static_cast<size_t>(p)] != 0 : g.tensors[static_cast<size_t>(t)].origin == TensorOrigin::Initializer;
      });
    }
    f.consumers.resize(n);
    for (size_t i = 0; i < n; ++i)
      for (TensorId t : f.reads[i])
        if (int p = g.index.producer[static_cast<size_t>(t)]; p >= 0 && static_cast<size_t>(p) != i && !f.copied[static_cast<size_t>(p)])
          f.consumers[static_cast<size_t>(p)].push_back(static_cast<int>(i));
  }

  // Regions per graph. A body is its own engine's business when its owner joins a
  // region; when the owner runs elsewhere, the provider partitions the body too
  // (GetCapability runs on every subgraph), so its supported nodes form engines.
  std::vector<std::vector<char>> in_trt(graphs);
  std::vector<char> owner_in_trt(graphs, 0), counted_graph(graphs, 0);
  for (size_t gi = 0; gi < graphs; ++gi) {
    const Graph& g = m.graphs[gi];
    GraphFacts& f = facts[gi];
    in_trt[gi].assign(g.nodes.size(), 0);
    if (gi > 0 && !is_body(gi)) continue;  // local functions: judged through their calls
    counted_graph[gi] = 1;
    if (gi > 0) owner_in_trt[gi] = in_trt[static_cast<size_t>(g.parent)][static_cast<size_t>(g.parent_node)];
    if (owner_in_trt[gi]) {
      std::fill(in_trt[gi].begin(), in_trt[gi].end(), 1);
      continue;
    }
    form_regions(g, f, out.min_nodes);
    for (size_t i = 0; i < g.nodes.size(); ++i) in_trt[gi][i] = f.region[i] >= 0;
    // A constant is inside TensorRT when a region reads it, directly or through other constants.
    for (auto it = g.index.order.rbegin(); it != g.index.order.rend(); ++it) {
      size_t i = static_cast<size_t>(*it);
      if (!in_trt[gi][i]) continue;
      for (TensorId t : f.reads[i])
        if (int p = g.index.producer[static_cast<size_t>(t)]; p >= 0 && f.copied[static_cast<size_t>(p)]) in_trt[gi][static_cast<size_t>(p)] = 1;
    }
    if (gi > 0) out.body_regions += static_cast<int>(f.regions.size());
  }
  // An owner outside TensorRT says how many engines its bodies hold.
  std::vector<std::vector<int>> body_engines(graphs);
  for (size_t gi = 0; gi < graphs; ++gi) body_engines[gi].assign(m.graphs[gi].nodes.size(), 0);
  for (size_t gi = graphs; gi-- > 1;) {
    if (!counted_graph[gi] || owner_in_trt[gi]) continue;
    const Graph& g = m.graphs[gi];
    body_engines[static_cast<size_t>(g.parent)][static_cast<size_t>(g.parent_node)] +=
        static_cast<int>(facts[gi].regions.size()) + std::accumulate(body_engines[gi].begin(), body_engines[gi].end(), 0);
  }

  // Totals over every graph: nodes, MACs (bodies included), parameters.
  std::vector<std::vector<int64_t>> node_total_macs(graphs);
  for (size_t gi = 0; gi < graphs; ++gi) node_total_macs[gi].assign(m.graphs[gi].nodes.size(), 0);
  for (size_t gi = graphs; gi-- > 0;) {
    if (!counted_graph[gi]) continue;
    const Graph& g = m.graphs[gi];
    int64_t graph_macs = 0;
    std::unordered_map<TensorId, bool> initializer_in_trt;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& nd = g.nodes[i];
      const bool trt = in_trt[gi][i] != 0;
      ++out.nodes;
      if (trt) ++out.nodes_in_tensorrt;
      if (counts_macs(nd)) {
        int64_t macs = node_macs(g, nd), w = weight_elements(g, nd);
        out.mac_weights += w;
        if (macs < 0) {
          ++out.macs_unknown;
          out.mac_weights_unknown += w;
        } else {
          out.macs += macs;
          if (trt) out.macs_in_tensorrt += macs;
          node_total_macs[gi][i] += macs;
        }
      }
      graph_macs += node_total_macs[gi][i];
      if (nd.op_type == "Constant" && nd.domain.empty())
        for (const auto& attr : nd.attributes)
          if (attr.kind == Attribute::Kind::Tensor) {
            int64_t e = 1;
            for (int64_t d : attr.tensor_dims) e *= std::max<int64_t>(d, 0);
            out.parameters += e;
            if (trt) out.parameters_in_tensorrt += e;
          }
      for (TensorId t : facts[gi].reads[i])
        if (g.index.producer[static_cast<size_t>(t)] < 0 && g.tensors[static_cast<size_t>(t)].origin == TensorOrigin::Initializer)
          initializer_in_trt[t] = initializer_in_trt[t] || trt;
    }
    for (const auto& [t, trt] : initializer_in_trt) {
      int64_t e = elements(&g.tensors[static_cast<size_t>(t)]);
      if (e <= 0) continue;
      out.parameters += e;
      if (trt) out.parameters_in_tensorrt += e;
    }
    if (gi > 0) node_total_macs[static_cast<size_t>(g.parent)][static_cast<size_t>(g.parent_node)] += graph_macs;
  }

  // The main graph's chain.
  const Graph& g = m.graphs[0];
  GraphFacts& f = facts[0];
  const size_t n = g.nodes.size();
  const std::vector<int>& producer = g.index.producer;
  out.regions = static_cast<int>(f.regions.size());
  // Units: a region, or one other-runtime node. Other nodes run as early as they
  // can and accumulate into one part until a region must run: fewest parts.
  std::vector<int> unit(n, -1);
  const int units = out.regions + static_cast<int>(n);
  for (size_t i = 0; i < n; ++i)
    if (!f.copied[i]) unit[i] = f.region[i] >= 0 ? f.region[i] : out.regions + static_cast<int>(i);
  std::vector<int> unit_indegree(static_cast<size_t>(units), 0);
  std::vector<std::vector<int>> unit_next(static_cast<size_t>(units));
  for (size_t i = 0; i < n; ++i)
    for (int c : f.consumers[i])
      if (unit[i] != unit[static_cast<size_t>(c)]) {
        unit_next[static_cast<size_t>(unit[i])].push_back(unit[static_cast<size_t>(c)]);
        ++unit_indegree[static_cast<size_t>(unit[static_cast<size_t>(c)])];
      }
  std::vector<int> part_of(n, -1);
  // A DLA target's placement, when the regions are cut for it.
  const DlaPlacement* dla = options.cut_for_dla && a.dla && a.dla->nodes.size() == n ? a.dla.get() : nullptr;
  std::vector<int> scratch(dla ? n : 0, -1);
  int next_region = 0;  // region numbers in chain order
  {
    using MinHeap = std::priority_queue<int, std::vector<int>, std::greater<int>>;
    MinHeap ready_other, ready_region;
    auto push = [&](int u) { (u < out.regions ? ready_region : ready_other).push(u); };
    for (int u = 0; u < units; ++u) {
      bool used = u < out.regions || unit[static_cast<size_t>(u - out.regions)] == u;
      if (used && unit_indegree[static_cast<size_t>(u)] == 0) push(u);
    }
    Part pending;
    auto flush = [&]() {
      if (pending.nodes.empty()) return;
      for (int node : pending.nodes) part_of[static_cast<size_t>(node)] = static_cast<int>(out.parts.size());
      out.parts.push_back(std::move(pending));
      pending = Part{};
    };
    auto done = [&](int u) {
      for (int v : unit_next[static_cast<size_t>(u)])
        if (--unit_indegree[static_cast<size_t>(v)] == 0) push(v);
    };
    while (!ready_other.empty() || !ready_region.empty()) {
      if (!ready_other.empty()) {
        int u = ready_other.top();
        ready_other.pop();
        pending.nodes.push_back(u - out.regions);
        done(u);
        continue;
      }
      int r = ready_region.top();
      ready_region.pop();
      flush();
      if (dla) {
        for (Piece& piece : cut_for_dla(f, f.regions[static_cast<size_t>(r)], *dla, producer, scratch)) {
          pending.tensorrt = true;
          pending.region = next_region;
          pending.dla = piece.dla;
          pending.nodes = std::move(piece.nodes);
          flush();
        }
      } else {
        pending.tensorrt = true;
        pending.region = next_region;
        pending.nodes = f.regions[static_cast<size_t>(r)];
        flush();
      }
      ++next_region;
      done(r);
    }
    flush();
  }

  // Each part gets copies of the constant nodes it reads, directly or through other
  // constants, first and in dependency order. A constant graph output no part reads
  // is produced by the last part.
  std::vector<int> position(n);
  for (size_t k = 0; k < g.index.order.size(); ++k) position[static_cast<size_t>(g.index.order[k])] = static_cast<int>(k);
  std::vector<char> in_some_part(n, 0);
  auto add_constants = [&](Part& p, std::vector<int> todo) {
    std::unordered_set<int> have;
    std::vector<int> constants;
    while (!todo.empty()) {
      int c = todo.back();
      todo.pop_back();
      if (!have.insert(c).second) continue;
      constants.push_back(c);
      for (TensorId t : f.reads[static_cast<size_t>(c)])
        if (int q = producer[static_cast<size_t>(t)]; q >= 0) todo.push_back(q);
    }
    std::sort(constants.begin(), constants.end(), [&](int x, int y) { return position[static_cast<size_t>(x)] < position[static_cast<size_t>(y)]; });
    for (int c : constants) in_some_part[static_cast<size_t>(c)] = 1;
    p.nodes.insert(p.nodes.begin(), constants.begin(), constants.end());
  };
  for (auto& p : out.parts) {
    std::vector<int> direct;
    for (int node : p.nodes)
      for (TensorId t : f.reads[static_cast<size_t>(node)])
        if (int q = producer[static_cast<size_t>(t)]; q >= 0 && f.copied[static_cast<size_t>(q)]) direct.push_back(q);
    if (!direct.empty()) add_constants(p, std::move(direct));
  }
  {
    std::vector<int> unread_outputs;
    for (const auto& o : g.outputs)
      if (TensorId t = g.id(o); t != kNoTensor)
        if (int q = producer[static_cast<size_t>(t)]; q >= 0 && f.copied[static_cast<size_t>(q)] && !in_some_part[static_cast<size_t>(q)])
          unread_outputs.push_back(q);
    if (!unread_outputs.empty()) {
      if (out.parts.empty()) out.parts.emplace_back();
      add_constants(out.parts.back(), std::move(unread_outputs));
    }
  }

  // Boundaries, initializers, MACs (bodies included) and parameters per part.
  std::unordered_set<std::string_view> graph_outputs(g.outputs.begin(), g.outputs.end());
  for (size_t pi = 0; pi < out.parts.size(); ++pi) {
    Part& p = out.parts[pi];
    std::unordered_set<TensorId> seen;
    for (int node : p.nodes) {
      const Node& nd = g.nodes[static_cast<size_t>(node)];
      for (TensorId id : f.reads[static_cast<size_t>(node)]) {
        int prod = producer[static_cast<size_t>(id)];
        if (prod >= 0 && (f.copied[static_cast<size_t>(prod)] || part_of[static_cast<size_t>(prod)] == static_cast<int>(pi))) continue;
        if (!seen.insert(id).second) continue;
        const TensorInfo& t = g.tensors[static_cast<size_t>(id)];
        if (prod < 0 && t.origin == TensorOrigin::Initializer) {
          p.initializers.push_back(t.name);
          int64_t e = elements(&t);
          if (e > 0) p.parameters += e;
        } else {
          p.inputs.push_back(t.name);
        }
      }
      if (nd.op_type == "Constant" && nd.domain.empty())
        for (const auto& attr : nd.attributes)
          if (attr.kind == Attribute::Kind::Tensor) {
            int64_t e = 1;
            for (int64_t d : attr.tensor_dims) e *= std::max<int64_t>(d, 0);
            p.parameters += e;
          }
      p.macs += node_total_macs[0][static_cast<size_t>(node)];
    }
  }
  // Outputs: what another part or the graph reads, in production order.
  std::unordered_set<std::string_view> crossing(graph_outputs);
  for (const auto& p : out.parts)
    for (const auto& name : p.inputs) crossing.insert(name);
  std::unordered_set<std::string_view> produced;  // a constant copied into several parts is produced by the first
  for (auto& p : out.parts)
    for (int node : p.nodes)
      for (const auto& o : g.nodes[static_cast<size_t>(node)].outputs)
        if (!o.empty() && crossing.count(o) && produced.insert(o).second) p.outputs.push_back(o);

  if (dla) {
    DlaCut cut;
    cut.target = a.target ? a.target->name : std::string();
    cut.release = dla->release;
    cut.max_loadables = dla->max_loadables;
    if (const DlaRules* rules = TargetCatalog::builtin().dla_rules(dla->release))
      for (const DlaCheck& c : rules->checks)
        if (c.layer == "general" && c.check == "loadables") cut.max_loadables_source = c.source;
    cut.placed_nodes = dla_share(*dla).placed_nodes();
    for (auto& p : out.parts) {
      if (!p.tensorrt) continue;
      if (!p.dla) {
        ++cut.gpu_regions;
        continue;
      }
      p.loadable = cut.loadables++;
      cut.macs_on_dla += p.macs;
      for (int node : p.nodes) cut.nodes_on_dla += dla->nodes[static_cast<size_t>(node)].verdict == DlaVerdict::DLA;
    }
    // A tensor crossing between a DLA loadable and another part: once per reading part.
    for (const auto& p : out.parts)
      for (const auto& name : p.inputs)
        if (TensorId t = g.id(name); t != kNoTensor)
          if (int q = producer[static_cast<size_t>(t)]; q >= 0 && part_of[static_cast<size_t>(q)] >= 0 &&
                                                        out.parts[static_cast<size_t>(part_of[static_cast<size_t>(q)])].dla != p.dla)
            ++cut.transitions;
    out.dla = std::move(cut);
  }

  // An initializer that is a graph output: the last part hands it on (ONNX lets an
  // initializer be a graph output), so every graph output comes from some part.
  for (const auto& o : g.outputs) {
    TensorId t = g.id(o);
    if (t == kNoTensor || producer[static_cast<size_t>(t)] >= 0 ||
        g.tensors[static_cast<size_t>(t)].origin != TensorOrigin::Initializer || !produced.insert(o).second)
      continue;
    if (out.parts.empty()) out.parts.emplace_back();
    Part& last = out.parts.back();
    if (std::find(last.initializers.begin(), last.initializers.end(), o) == last.initializers.end())
      last.initializers.push_back(o);
    last.outputs.push_back(o);
  }

  for (size_t i = 0; i < n; ++i) {
    if (in_trt[0][i]) continue;
    std::string why = f.why[i].empty() && f.copied[i] ? "a constant that no TensorRT region reads" : f.why[i];
    if (int e = body_engines[0][i]; e > 0)
      why += fmt::format("; the supported nodes of its bodies form {} engine{} of their own", e, e == 1 ? "" : "s");
    out.outside.push_back({static_cast<int>(i), own[0][i] ? own[0][i]->verdict : Verdict::UNKNOWN, std::move(why)});
  }
  return out;
}

}  // namespace trtlens
