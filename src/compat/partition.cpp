// partition_model: the TensorRT regions of a model's main graph and the chain of
// parts around them (include/trtlens/partition.h).
#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "trtlens/partition.h"

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

// Multiply-accumulates of one node; 0 for ops that are not counted, -1 when
// the shapes needed are not known.
int64_t node_macs(const Graph& g, const Node& n) {
  if (!n.domain.empty()) return 0;
  auto info = [&](std::span<const TensorId> ids, size_t k) -> const TensorInfo* {
    return k < ids.size() && ids[k] != kNoTensor ? &g.tensors[static_cast<size_t>(ids[k])] : nullptr;
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
  if (n.op_type == "Gemm") {
    const Attribute* ta = n.attribute("transA");
    const TensorInfo* a = info(g.input_ids(n), 0);
    return times(elements(info(g.output_ids(n), 0)), ta && ta->i ? dim(a, 0) : dim(a, -1));
  }
  return 0;
}

}  // namespace

std::string part_file_name(const Partition& p, size_t k) {
  size_t width = std::to_string(p.parts.empty() ? 0 : p.parts.size() - 1).size();
  return fmt::format("part{:0{}}_{}.onnx", k, width, p.parts[k].tensorrt ? "trt" : "rest");
}

Partition partition_model(const Model& m, const Annotations& a, const PartitionOptions& options) {
  Partition out;
  out.min_nodes = std::max(1, options.min_nodes);
  if (m.graphs.empty()) return out;
  const Graph& g = m.graphs[0];
  const size_t n = g.nodes.size();
  out.nodes = static_cast<int>(n);

  // Why each main-graph node stays outside TensorRT; empty when it may join a region.
  std::vector<const NodeVerdict*> own(n, nullptr);
  for (const auto& v : a.nodes)
    if (v.graph == 0 && v.index >= 0 && static_cast<size_t>(v.index) < n) own[static_cast<size_t>(v.index)] = &v;
  auto first_reason = [](const NodeVerdict& v) {
    return v.reasons.empty() ? std::string(verdict_name(v.verdict)) : v.reasons.front().message;
  };
  std::vector<std::string> why(n);
  for (size_t i = 0; i < n; ++i) {
    if (!own[i]) why[i] = "no verdict";
    else if (!imports(own[i]->verdict)) why[i] = first_reason(*own[i]);
  }
  // Subgraphs follow their owner in Model::graphs, so one forward pass finds
  // the main-graph node that owns each (no recursion over nesting).
  std::vector<int> owner(m.graphs.size(), -1);
  for (size_t gi = 1; gi < m.graphs.size(); ++gi) {
    int parent = m.graphs[gi].parent;
    if (parent == 0) owner[gi] = m.graphs[gi].parent_node;
    else if (parent > 0 && static_cast<size_t>(parent) < gi) owner[gi] = owner[static_cast<size_t>(parent)];
  }
  for (const auto& v : a.nodes) {
    if (v.graph <= 0 || static_cast<size_t>(v.graph) >= owner.size() || imports(v.verdict)) continue;
    int top = owner[static_cast<size_t>(v.graph)];
    if (top < 0 || static_cast<size_t>(top) >= n || !why[static_cast<size_t>(top)].empty()) continue;
    why[static_cast<size_t>(top)] =
        fmt::format("kept whole with its bodies, and body node {}/{} is {}: {}", m.graphs[static_cast<size_t>(v.graph)].path,
                    v.index, verdict_name(v.verdict), first_reason(v));
  }

  // What each node reads: its inputs, plus what its bodies read from the main graph.
  std::vector<std::vector<TensorId>> reads(n);
  for (size_t i = 0; i < n; ++i)
    for (TensorId in : g.input_ids(g.nodes[i]))
      if (in != kNoTensor) reads[i].push_back(in);
  for (size_t gi = 1; gi < m.graphs.size(); ++gi) {
    const Graph& sub = m.graphs[gi];
    if (sub.parent != 0 || sub.parent_node < 0 || static_cast<size_t>(sub.parent_node) >= n) continue;
    std::vector<TensorId> outer;
    for (TensorId t : sub.index.outer_reads) outer.push_back(g.id(sub.tensors[static_cast<size_t>(t)].name));
    std::sort(outer.begin(), outer.end(), [&](TensorId x, TensorId y) {
      return g.tensors[static_cast<size_t>(x)].name < g.tensors[static_cast<size_t>(y)].name;
    });
    auto& r = reads[static_cast<size_t>(sub.parent_node)];
    r.insert(r.end(), outer.begin(), outer.end());
  }
  const std::vector<int>& producer = g.index.producer;
  // Constant nodes: every input an initializer or another constant node's output,
  // deterministic, no body, and TensorRT imports them. They are not scheduled: each
  // part that reads one gets a copy (and what it reads), as it gets initializers, so
  // a constant never becomes a part's runtime input nor a region of its own.
  std::vector<char> copied(n, 0);
  for (int i : g.index.order) {
    const Node& nd = g.nodes[static_cast<size_t>(i)];
    if (!nd.domain.empty() || !why[static_cast<size_t>(i)].empty() || nd.op_type.starts_with("Random") ||
        nd.op_type == "Multinomial" || nd.op_type == "Bernoulli" ||
        std::any_of(nd.attributes.begin(), nd.attributes.end(), [](const Attribute& at) { return !at.graphs.empty(); }))
      continue;
    copied[static_cast<size_t>(i)] = std::all_of(reads[static_cast<size_t>(i)].begin(), reads[static_cast<size_t>(i)].end(), [&](TensorId t) {
      int p = producer[static_cast<size_t>(t)];
      return p >= 0 ? copied[static_cast<size_t>(p)] != 0 : g.tensors[static_cast<size_t>(t)].origin == TensorOrigin::Initializer;
    });
  }
  std::vector<std::vector<int>> consumers(n);
  std::vector<int> indegree(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (TensorId t : reads[i])
      if (int p = producer[static_cast<size_t>(t)]; p >= 0 && static_cast<size_t>(p) != i && !copied[static_cast<size_t>(p)]) {
        consumers[static_cast<size_t>(p)].push_back(static_cast<int>(i));
        ++indegree[i];
      }

  // Schedule in dependency order, staying on one runtime while it has a ready
  // node: each run of same-runtime nodes is then convex (a path that leaves a
  // run never comes back into it).
  using MinHeap = std::priority_queue<int, std::vector<int>, std::greater<int>>;
  MinHeap ready[2];  // [0] other runtime, [1] TensorRT
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0 && !copied[i]) ready[why[i].empty()].push(static_cast<int>(i));
  std::vector<std::vector<int>> runs;
  std::vector<bool> run_trt;
  bool current = !ready[1].empty();
  while (!ready[0].empty() || !ready[1].empty()) {
    if (ready[current].empty()) current = !current;
    int node = ready[current].top();
    ready[current].pop();
    if (runs.empty() || run_trt.back() != current) {
      runs.emplace_back();
      run_trt.push_back(current);
    }
    runs.back().push_back(node);
    for (int c : consumers[static_cast<size_t>(node)])
      if (--indegree[static_cast<size_t>(c)] == 0) ready[why[static_cast<size_t>(c)].empty()].push(c);
  }

  // Regions: the connected components of each TensorRT run (union-find).
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[static_cast<size_t>(x)] != x) {
      int up = parent[static_cast<size_t>(x)];
      x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(up)];  // path halving
    }
    return x;
  };
  std::vector<int> run_of(n, -1);
  for (size_t r = 0; r < runs.size(); ++r)
    for (int node : runs[r]) run_of[static_cast<size_t>(node)] = static_cast<int>(r);
  for (size_t i = 0; i < n; ++i)
    for (int c : consumers[i])
      if (run_of[i] >= 0 && run_trt[static_cast<size_t>(run_of[i])] && run_of[i] == run_of[static_cast<size_t>(c)])
        parent[static_cast<size_t>(find(c))] = find(static_cast<int>(i));

  // The chain: other-runtime nodes accumulate until a kept region needs to run;
  // regions cut by --min-nodes join the accumulated part (their inputs all
  // come from before their run, so they may run there).
  std::vector<int> part_of(n, -1);
  Part pending;
  auto flush = [&]() {
    if (pending.nodes.empty()) return;
    for (int node : pending.nodes) part_of[static_cast<size_t>(node)] = static_cast<int>(out.parts.size());
    out.parts.push_back(std::move(pending));
    pending = Part{};
  };
  for (size_t r = 0; r < runs.size(); ++r) {
    if (!run_trt[r]) {
      pending.nodes.insert(pending.nodes.end(), runs[r].begin(), runs[r].end());
      continue;
    }
    std::vector<int> roots;  // components in order of their first node in the run
    std::unordered_map<int, std::vector<int>> members;
    for (int node : runs[r]) {
      auto [it, fresh] = members.try_emplace(find(node));
      if (fresh) roots.push_back(it->first);
      it->second.push_back(node);
    }
    std::vector<Part> kept;
    for (int root : roots) {
      std::vector<int>& nodes = members[root];
      if (static_cast<int>(nodes.size()) >= out.min_nodes) {
        Part p;
        p.tensorrt = true;
        p.nodes = std::move(nodes);
        kept.push_back(std::move(p));
        continue;
      }
      for (int node : nodes)
        why[static_cast<size_t>(node)] = fmt::format("imports, but its region has {} node{}, fewer than --min-nodes {}",
                                                     nodes.size(), nodes.size() == 1 ? "" : "s", out.min_nodes);
      pending.nodes.insert(pending.nodes.end(), nodes.begin(), nodes.end());
    }
    if (kept.empty()) continue;
    flush();
    for (Part& p : kept) {
      p.region = out.regions++;
      pending = std::move(p);
      flush();
    }
  }
  flush();

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
      for (TensorId t : reads[static_cast<size_t>(c)])
        if (int q = producer[static_cast<size_t>(t)]; q >= 0) todo.push_back(q);
    }
    std::sort(constants.begin(), constants.end(), [&](int x, int y) { return position[static_cast<size_t>(x)] < position[static_cast<size_t>(y)]; });
    for (int c : constants) in_some_part[static_cast<size_t>(c)] = 1;
    p.nodes.insert(p.nodes.begin(), constants.begin(), constants.end());
  };
  for (auto& p : out.parts) {
    std::vector<int> direct;
    for (int node : p.nodes)
      for (TensorId t : reads[static_cast<size_t>(node)])
        if (int q = producer[static_cast<size_t>(t)]; q >= 0 && copied[static_cast<size_t>(q)]) direct.push_back(q);
    if (!direct.empty()) add_constants(p, std::move(direct));
  }
  {
    std::vector<int> unread_outputs;
    for (const auto& o : g.outputs)
      if (TensorId t = g.id(o); t != kNoTensor)
        if (int q = producer[static_cast<size_t>(t)]; q >= 0 && copied[static_cast<size_t>(q)] && !in_some_part[static_cast<size_t>(q)])
          unread_outputs.push_back(q);
    if (!unread_outputs.empty()) {
      if (out.parts.empty()) out.parts.emplace_back();
      add_constants(out.parts.back(), std::move(unread_outputs));
    }
  }
  // A node is inside TensorRT when a region holds it (a constant: a copy of it).
  std::vector<char> in_trt(n, 0);
  for (const auto& p : out.parts)
    if (p.tensorrt)
      for (int node : p.nodes) in_trt[static_cast<size_t>(node)] = 1;

  // Boundaries, initializers, MACs and parameters per part.
  std::unordered_set<std::string_view> graph_outputs(g.outputs.begin(), g.outputs.end());
  std::unordered_map<TensorId, bool> initializer_in_trt;  // every initializer read, and whether a region reads it
  std::vector<TensorId> initializers_read;               // the same, in first-read order
  std::vector<char> counted(n, 0);  // totals count a copied constant once
  for (size_t pi = 0; pi < out.parts.size(); ++pi) {
    Part& p = out.parts[pi];
    std::unordered_set<TensorId> seen;
    for (int node : p.nodes) {
      const Node& nd = g.nodes[static_cast<size_t>(node)];
      for (TensorId id : reads[static_cast<size_t>(node)]) {
        int prod = producer[static_cast<size_t>(id)];
        if (prod >= 0 && (copied[static_cast<size_t>(prod)] || part_of[static_cast<size_t>(prod)] == static_cast<int>(pi))) continue;
        if (!seen.insert(id).second) continue;
        const TensorInfo& t = g.tensors[static_cast<size_t>(id)];
        if (prod < 0 && t.origin == TensorOrigin::Initializer) {
          p.initializers.push_back(t.name);
          int64_t e = elements(&t);
          if (e > 0) p.parameters += e;
          auto [it, fresh] = initializer_in_trt.try_emplace(id, false);
          if (fresh) initializers_read.push_back(id);
          it->second |= p.tensorrt;
        } else {
          p.inputs.push_back(t.name);
        }
      }
      const bool first = !counted[static_cast<size_t>(node)];
      counted[static_cast<size_t>(node)] = 1;
      const bool trt = in_trt[static_cast<size_t>(node)] != 0;
      if (nd.op_type == "Constant" && nd.domain.empty())
        for (const auto& attr : nd.attributes)
          if (attr.kind == Attribute::Kind::Tensor) {
            int64_t e = 1;
            for (int64_t d : attr.tensor_dims) e *= std::max<int64_t>(d, 0);
            p.parameters += e;
            if (!first) continue;
            out.parameters += e;
            if (trt) out.parameters_in_tensorrt += e;
          }
      int64_t macs = node_macs(g, nd);
      if (macs >= 0) p.macs += macs;
      if (!first) continue;
      if (macs < 0) ++out.macs_unknown;
      else {
        out.macs += macs;
        if (trt) out.macs_in_tensorrt += macs;
      }
      if (trt) ++out.nodes_in_tensorrt;
    }
  }
  for (TensorId id : initializers_read) {
    int64_t e = elements(&g.tensors[static_cast<size_t>(id)]);
    if (e <= 0) continue;
    out.parameters += e;
    if (initializer_in_trt[id]) out.parameters_in_tensorrt += e;
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

  for (size_t i = 0; i < n; ++i)
    if (!in_trt[i])
      out.outside.push_back({static_cast<int>(i), own[i] ? own[i]->verdict : Verdict::UNKNOWN,
                             why[i].empty() && copied[i] ? "a constant that no TensorRT region reads" : why[i]});
  return out;
}

}  // namespace trtlens
