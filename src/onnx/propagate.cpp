#include "onnx/propagate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <queue>
#include <unordered_set>

#include "trtlens/error.h"

namespace trtlens {
namespace {

std::string graph_label(const Graph& g) { return g.path.empty() ? "the main graph" : "graph '" + g.path + "'"; }

std::string node_in_message(const Node& n) {
  return fmt::format("node {} ('{}', {})", n.index, n.name, n.op_type);
}

ElemType attr_type(const Node& n, const char* name, ElemType fallback) {
  const Attribute* a = n.attribute(name);
  return a && a->kind == Attribute::Kind::Int ? static_cast<ElemType>(a->i) : fallback;
}

ElemType input(const std::vector<ElemType>& in, size_t i) { return i < in.size() ? in[i] : ElemType::UNDEFINED; }

ElemType first_known(const std::vector<ElemType>& in) {
  for (ElemType t : in)
    if (t != ElemType::UNDEFINED) return t;
  return ElemType::UNDEFINED;
}

// string_views: most candidates differ in length, so the comparison rarely reads a byte.
bool one_of(std::string_view op, std::initializer_list<std::string_view> ops) {
  return std::any_of(ops.begin(), ops.end(), [&](std::string_view o) { return op == o; });
}

// Ops whose output 0 has the rank of input 0.
bool keeps_rank(const std::string& op) {
  return one_of(op, {"Relu", "Sigmoid", "Tanh", "Cast", "CastLike", "Identity", "Neg", "Abs", "Exp", "Log", "Sqrt",
                     "Erf", "Softmax", "LogSoftmax", "LeakyRelu", "Clip", "Dropout", "BatchNormalization",
                     "InstanceNormalization", "LayerNormalization", "GroupNormalization", "RMSNormalization", "Gelu",
                     "HardSwish", "HardSigmoid", "Not", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Elu", "Selu",
                     "Softplus", "Softsign", "Mish", "Swish", "QuantizeLinear", "DequantizeLinear", "Sin", "Cos",
                     "PRelu", "ThresholdedRelu", "Celu", "IsNaN", "IsInf", "CumSum", "LpNormalization",
                     "RotaryEmbedding", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool",
                     "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"});
}

bool nondeterministic(const std::string& op) {
  return one_of(op, {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial",
                     "Bernoulli"});
}

// Ops whose output 0 has exactly the shape of input 0 (ONNX's
// propagateShapeAndTypeFromFirstInput); the shape is copied, symbols included.
bool keeps_shape(const std::string& op) {
  return one_of(op, {"Relu", "Sigmoid", "Tanh", "Cast", "CastLike", "Identity", "Neg", "Abs", "Exp", "Log", "Sqrt",
                     "Erf", "Softmax", "LogSoftmax", "LeakyRelu", "Clip", "Elu", "Selu", "Softplus", "Softsign",
                     "Mish", "HardSwish", "HardSigmoid", "Not", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Gelu",
                     "Sin", "Cos", "IsNaN", "IsInf"});
}

bool broadcasts(const std::string& op) {
  return one_of(op, {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Equal", "Less", "Greater",
                     "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Where", "PRelu"});
}

// A shape every dimension of which is known: fixed, or (when `symbols`) named.
bool complete(const TensorInfo* t, bool symbols) {
  return t && t->rank >= 0 && t->dims.size() == static_cast<size_t>(t->rank) &&
         std::all_of(t->dims.begin(), t->dims.end(), [&](const Dim& d) { return d.fixed() || (symbols && !d.param.empty()); });
}

// Output 0's shape where our own rules are certain (the cases ONNX shape
// inference answers the same way, so a model shaped here needs no libonnx
// pass): element-wise ops, numpy broadcasting of fixed shapes, MatMul of
// fixed rank >= 2 shapes, Reshape to a constant shape. nullopt otherwise.
std::optional<std::vector<Dim>> own_shape(const Graph& g, const Node& n) {
  if (!n.domain.empty() || n.inputs.empty() || g.input_id(n, 0) == kNoTensor) return std::nullopt;
  const TensorInfo* x = g.input(n, 0);
  if (keeps_shape(n.op_type)) {
    if (complete(x, true)) return x->dims;
    return std::nullopt;
  }
  if (broadcasts(n.op_type)) {
    std::vector<int64_t> out;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const TensorInfo* t = g.input(n, i);
      if (!complete(t, false)) return std::nullopt;
      if (t->dims.size() > out.size()) out.insert(out.begin(), t->dims.size() - out.size(), 1);
      size_t off = out.size() - t->dims.size();
      for (size_t d = 0; d < t->dims.size(); ++d) {
        int64_t v = t->dims[d].value;
        if (v == out[off + d] || v == 1) continue;
        if (out[off + d] != 1) return std::nullopt;  // not broadcastable: leave it to ONNX
        out[off + d] = v;
      }
    }
    std::vector<Dim> dims;
    for (int64_t v : out) dims.push_back(Dim{v, {}});
    return dims;
  }
  if (n.op_type == "MatMul" && n.inputs.size() == 2) {
    const TensorInfo* w = g.input(n, 1);
    if (!complete(x, false) || !complete(w, false) || x->rank < 2 || w->rank < 2) return std::nullopt;
    auto rx = static_cast<size_t>(x->rank), rw = static_cast<size_t>(w->rank);
    if (x->dims[rx - 1].value != w->dims[rw - 2].value) return std::nullopt;
    size_t batch = std::max(rx, rw) - 2;
    std::vector<Dim> dims(batch);
    for (size_t d = 0; d < batch; ++d) {
      auto at = [&](const TensorInfo* t, size_t r) {
        size_t lead = r - 2;
        return d + lead >= batch ? t->dims[d + lead - batch].value : int64_t{1};
      };
      int64_t a = at(x, rx), b = at(w, rw);
      if (a != b && a != 1 && b != 1) return std::nullopt;
      dims[d].value = a == 1 ? b : a;
    }
    dims.push_back(x->dims[rx - 2]);
    dims.push_back(w->dims[rw - 1]);
    return dims;
  }
  if (n.op_type == "Reshape" && n.inputs.size() == 2 && g.input_id(n, 1) != kNoTensor) {
    const TensorInfo* shape = g.input(n, 1);
    if (!complete(x, false) || !shape || !shape->values || shape->rank != 1) return std::nullopt;
    const Attribute* allowzero = n.attribute("allowzero");
    if (allowzero && allowzero->i != 0) return std::nullopt;
    // Sizes come from the file: any product that would overflow is left to ONNX.
    int64_t total = 1;
    for (const Dim& d : x->dims)
      if (__builtin_mul_overflow(total, d.value, &total)) return std::nullopt;
    std::vector<Dim> dims;
    int64_t known = 1;
    int infer = -1;
    for (size_t i = 0; i < shape->values->size(); ++i) {
      double v = (*shape->values)[i];
      if (v == -1 && infer < 0) {
        infer = static_cast<int>(i);
        dims.push_back(Dim{});
        continue;
      }
      if (v == 0 && i < x->dims.size()) v = static_cast<double>(x->dims[i].value);
      // A whole number a double holds exactly, so the conversion below is defined.
      if (!(v >= 1 && v < 9007199254740992.0) || v != std::floor(v)) return std::nullopt;
      dims.push_back(Dim{static_cast<int64_t>(v), {}});
      if (__builtin_mul_overflow(known, static_cast<int64_t>(v), &known)) return std::nullopt;
    }
    if (infer >= 0) {
      if (known == 0 || total % known != 0) return std::nullopt;
      dims[static_cast<size_t>(infer)].value = total / known;
    } else if (known != total) {
      return std::nullopt;
    }
    return dims;
  }
  return std::nullopt;
}

// Phase 1 (index_graphs): node input/output ids, every input produced, no cycle,
// the topological order, producers, consumers and outer-scope reads.
class Indexer {
 public:
  // `strict`: an input nothing produces and a cycle are InputErrors (the loader);
  // otherwise the input stays an unproduced tensor and a cycle's nodes follow the order.
  Indexer(Model& m, bool strict) : m_(m), strict_(strict) {}

  void run() {
    structure(0);
    for (const auto& f : m_.functions) structure(f.graph);
  }

 private:
  void structure(int gi) {
    Graph& g = m_.graphs[static_cast<size_t>(gi)];
    size_t ids = 0;
    for (const auto& n : g.nodes) ids += n.inputs.size() + n.outputs.size();
    if (g.node_ids.size() != ids) {  // not laid out by the loader's converter (a model built by hand)
      g.node_ids.clear();
      g.node_ids.reserve(ids);
      for (auto& n : g.nodes) {
        n.ids_at = static_cast<uint32_t>(g.node_ids.size());
        g.node_ids.resize(g.node_ids.size() + n.inputs.size(), kNoTensor);
        for (const auto& out : n.outputs) g.node_ids.push_back(out.empty() ? kNoTensor : g.intern(out));
      }
    }
    GraphIndex& ix = g.index;
    ix = GraphIndex{};
    std::vector<int> producer(g.tensors.size(), -1);
    for (const auto& n : g.nodes)
      for (TensorId o : g.output_ids(n))
        if (o != kNoTensor && producer[static_cast<size_t>(o)] < 0) producer[static_cast<size_t>(o)] = n.index;

    std::vector<std::vector<int>> consumers(g.nodes.size());
    std::vector<int> indegree(g.nodes.size(), 0);
    std::vector<std::pair<TensorId, int>> reads;  // (tensor, reading node)
    std::unordered_set<TensorId> outer_seen;
    reads.reserve(g.nodes.size() * 2);
    // Exporters write nodes in data order, so an input is most often an output of
    // the node just before: found by one comparison instead of a hash lookup.
    const Node* previous = nullptr;
    auto lookup = [&](std::string_view name) {
      if (previous)
        for (size_t k = 0; k < previous->outputs.size(); ++k)
          if (previous->outputs[k] == name) return g.output_id(*previous, k);
      return g.intern(name);
    };
    auto resolve = [&](const Node& n, std::string_view name, bool direct) -> TensorId {
      TensorId t = lookup(name);
      if (static_cast<size_t>(t) >= producer.size()) producer.resize(g.tensors.size(), -1);
      if (direct) reads.emplace_back(t, n.index);
      if (int p = producer[static_cast<size_t>(t)]; p >= 0) {
        consumers[static_cast<size_t>(p)].push_back(n.index);
        ++indegree[static_cast<size_t>(n.index)];
        return t;
      }
      TensorInfo& info = g.tensors[static_cast<size_t>(t)];
      if (info.origin == TensorOrigin::GraphInput || info.origin == TensorOrigin::Initializer) return t;
      if (g.parent >= 0 && m_.graphs[static_cast<size_t>(g.parent)].find(name, m_.graphs)) {
        info.origin = TensorOrigin::OuterScope;
        if (outer_seen.insert(t).second) ix.outer_reads.push_back(t);
        return t;
      }
      if (!strict_) return t;
      throw InputError(m_.path, fmt::format("{} in {} reads tensor '{}', which no node, graph input or "
                                            "initializer produces",
                                            node_in_message(n), graph_label(g), name));
    };
    for (auto& n : g.nodes) {
      for (size_t i = 0; i < n.inputs.size(); ++i)
        g.node_ids[n.ids_at + i] = n.inputs[i].empty() ? kNoTensor : resolve(n, n.inputs[i], true);
      for (const auto& a : n.attributes)
        for (int sub : a.graphs) {
          structure(sub);
          const Graph& sg = m_.graphs[static_cast<size_t>(sub)];
          for (TensorId o : sg.index.outer_reads)
            resolve(n, sg.tensors[static_cast<size_t>(o)].name, false);  // the owning node depends on what its body reads
        }
      previous = &n;
    }
    // Kahn's algorithm, ties by position (a min-heap): the file's order when it is topological.
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (indegree[i] == 0) ready.push(static_cast<int>(i));
    ix.order.reserve(g.nodes.size());
    while (!ready.empty()) {
      int n = ready.top();
      ready.pop();
      ix.order.push_back(n);
      for (int c : consumers[static_cast<size_t>(n)])
        if (--indegree[static_cast<size_t>(c)] == 0) ready.push(c);
    }
    if (ix.order.size() != g.nodes.size()) {
      if (strict_) throw InputError(m_.path, cycle_message(g, producer, indegree));
      for (size_t i = 0; i < g.nodes.size(); ++i)
        if (indegree[i] > 0) ix.order.push_back(static_cast<int>(i));
    }

    size_t count = g.tensors.size();
    producer.resize(count, -1);
    ix.producer = std::move(producer);
    // Consumers per tensor (CSR), each reader once, ascending: a counting sort of `reads`
    // (recorded in node order, so each tensor's readers arrive ascending).
    ix.consumer_start.assign(count + 1, 0);
    for (const auto& [t, n] : reads) ++ix.consumer_start[static_cast<size_t>(t) + 1];
    for (size_t t = 0; t < count; ++t) ix.consumer_start[t + 1] += ix.consumer_start[t];
    std::vector<int> fill(ix.consumer_start.begin(), ix.consumer_start.end() - 1);
    ix.consumer_nodes.assign(reads.size(), -1);
    for (const auto& [t, n] : reads) ix.consumer_nodes[static_cast<size_t>(fill[static_cast<size_t>(t)]++)] = n;
    // A node reading a tensor twice (Mul(x, x)) is listed once: squeeze the repeats out.
    size_t w = 0;
    for (size_t t = 0; t < count; ++t) {
      auto from = static_cast<size_t>(ix.consumer_start[t]), to = static_cast<size_t>(ix.consumer_start[t + 1]);
      size_t start = w;
      ix.consumer_start[t] = static_cast<int>(start);
      for (size_t i = from; i < to; ++i)
        if (w == start || ix.consumer_nodes[w - 1] != ix.consumer_nodes[i]) ix.consumer_nodes[w++] = ix.consumer_nodes[i];
    }
    ix.consumer_start[count] = static_cast<int>(w);
    ix.consumer_nodes.resize(w);
    for (TensorId t : ix.outer_reads)
      if (const TensorInfo* outer = m_.graphs[static_cast<size_t>(g.parent)].find(g.tensors[static_cast<size_t>(t)].name, m_.graphs))
        ix.outer_tensor.emplace(t, outer);
  }

  std::string cycle_message(const Graph& g, const std::vector<int>& producer, const std::vector<int>& indegree) {
    // Walk producers backwards from a blocked node until a node repeats: that is a cycle.
    int start = 0;
    while (indegree[static_cast<size_t>(start)] == 0) ++start;
    std::vector<int> path;
    std::vector<int> seen(g.nodes.size(), -1);
    int cur = start;
    while (seen[static_cast<size_t>(cur)] < 0) {
      seen[static_cast<size_t>(cur)] = static_cast<int>(path.size());
      path.push_back(cur);
      int next = -1;
      for (TensorId in : g.input_ids(g.nodes[static_cast<size_t>(cur)])) {
        int p = in == kNoTensor ? -1 : producer[static_cast<size_t>(in)];
        if (p >= 0 && indegree[static_cast<size_t>(p)] > 0) {
          next = p;
          break;
        }
      }
      if (next < 0) break;
      cur = next;
    }
    std::string chain;
    size_t from = seen[static_cast<size_t>(cur)] >= 0 ? static_cast<size_t>(seen[static_cast<size_t>(cur)]) : 0;
    for (size_t i = path.size(); i-- > from;) {
      const Node& n = g.nodes[static_cast<size_t>(path[i])];
      chain += fmt::format("{}'{}' ({}) -> ", chain.empty() ? "" : "", n.name.empty() ? std::to_string(n.index) : n.name,
                           n.op_type);
    }
    const Node& n = g.nodes[static_cast<size_t>(path[path.size() - 1])];
    chain += "'" + (n.name.empty() ? std::to_string(n.index) : n.name) + "'";
    return fmt::format("{} has a cycle: {}", graph_label(g), chain);
  }

  Model& m_;
  bool strict_;
};

class Propagator {
 public:
  explicit Propagator(Model& m) : m_(m) {}

  void run() {
    propagate(0);
    ranks_from_readers(0);
    for (const auto& f : m_.functions) {
      bind_call_site_types(f);
      propagate(f.graph);
    }
  }

  // A function's untyped formal inputs take the type every call site passes;
  // where call sites disagree the input stays unknown (the body is one graph,
  // judged once, so no single type would be true of every call).
  void bind_call_site_types(const LocalFunction& f) {
    Graph& body = m_.graphs[static_cast<size_t>(f.graph)];
    for (size_t i = 0; i < body.inputs.size(); ++i) {
      TensorInfo& formal = body.tensors[static_cast<size_t>(body.intern(body.inputs[i]))];
      if (formal.type != ElemType::UNDEFINED) continue;
      ElemType bound = ElemType::UNDEFINED;
      bool agree = true;
      for (const Graph& g : m_.graphs) {
        for (const Node& n : g.nodes) {
          if (n.op_type != f.name || n.domain != f.domain || i >= n.inputs.size() || n.inputs[i].empty()) continue;
          const TensorInfo* actual = g.input(n, i);
          ElemType t = actual ? actual->type : ElemType::UNDEFINED;
          agree = t != ElemType::UNDEFINED && (bound == ElemType::UNDEFINED || bound == t);
          bound = t;
          if (!agree) break;
        }
        if (!agree) break;
      }
      if (agree && bound != ElemType::UNDEFINED) {
        formal.type = bound;
        formal.type_source = "call-site";
      }
    }
  }

 private:
  // Phase 2: types, Constant values, ranks, constness, in topological order.
  void propagate(int gi) {
    for (int ni : m_.graphs[static_cast<size_t>(gi)].index.order) {
      Graph& g = m_.graphs[static_cast<size_t>(gi)];
      const Node& n = g.nodes[static_cast<size_t>(ni)];
      for (const auto& a : n.attributes)
        for (int sub : a.graphs) propagate(sub);
      node(m_.graphs[static_cast<size_t>(gi)], n);
    }
  }

  void node(Graph& g, const Node& n) {
    std::vector<ElemType>& in_types = in_types_;  // reused: one allocation per model, not per node
    in_types.clear();
    bool all_const = !n.inputs.empty();
    const TensorInfo* first_input = nullptr;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (g.input_id(n, i) == kNoTensor) {
        in_types.push_back(ElemType::UNDEFINED);
        continue;
      }
      const TensorInfo* t = g.input(n, i);
      if (!first_input) first_input = t;
      in_types.push_back(t ? t->type : ElemType::UNDEFINED);
      if (!t || !t->const_foldable) all_const = false;
    }
    // Conv's kernel has the data's rank (ONNX requires it): a known kernel fixes an unknown data rank.
    if (n.domain.empty() && one_of(n.op_type, {"Conv", "ConvTranspose"}) && n.inputs.size() > 1 &&
        g.input_id(n, 0) != kNoTensor && g.input_id(n, 1) != kNoTensor) {
      const TensorInfo* w = g.input(n, 1);
      TensorInfo& x = g.tensors[static_cast<size_t>(g.input_id(n, 0))];
      if (w && w->rank >= 3 && x.rank < 0) {
        x.rank = w->rank;
        x.dims.assign(static_cast<size_t>(w->rank), Dim{});
        first_input = &x;
      }
    }
    bool has_subgraph = std::any_of(n.attributes.begin(), n.attributes.end(),
                                    [](const Attribute& a) { return !a.graphs.empty(); });
    bool is_constant = n.op_type == "Constant" && n.domain.empty();
    bool foldable = is_constant || (all_const && !has_subgraph && !nondeterministic(n.op_type));
    // TensorRT folds Shape/Size of a tensor whose dimensions are all fixed.
    if ((n.op_type == "Shape" || n.op_type == "Size") && first_input && first_input->rank >= 0 &&
        std::all_of(first_input->dims.begin(), first_input->dims.end(), [](const Dim& d) { return d.fixed(); }))
      foldable = true;

    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (g.output_id(n, k) == kNoTensor) continue;
      TensorInfo& out = g.tensors[static_cast<size_t>(g.output_id(n, k))];
      out.const_foldable = foldable;
      if (is_constant) {
        constant(out, n);
        continue;
      }
      if (out.type == ElemType::UNDEFINED) {
        out.type = infer_output_type(n, k, in_types, m_);
        if (out.type != ElemType::UNDEFINED) out.type_source = "trtlens";
      }
      if (k == 0 && out.rank < 0)
        if (auto dims = own_shape(g, n)) {
          out.rank = static_cast<int>(dims->size());
          out.dims = std::move(*dims);
        }
      if (k == 0 && out.rank < 0 && first_input && first_input->rank >= 0 && keeps_rank(n.op_type)) {
        out.rank = first_input->rank;
        out.dims.assign(static_cast<size_t>(out.rank), Dim{});
      }
      if (out.rank < 0 && n.op_type == "If" && n.domain.empty()) branch_shape(out, n, k);
    }
  }

  // An If's output k takes the rank of both branches' output k when they agree (as
  // ONNX's If inference does); a dimension both state alike is kept, any other is unknown.
  void branch_shape(TensorInfo& out, const Node& n, size_t k) {
    const TensorInfo* first = nullptr;
    for (const auto& a : n.attributes)
      for (int sub : a.graphs) {
        const Graph& sg = m_.graphs[static_cast<size_t>(sub)];
        const TensorInfo* t = k < sg.outputs.size() ? sg.find(sg.outputs[k], m_.graphs) : nullptr;
        if (!t || t->rank < 0 || t->dims.size() != static_cast<size_t>(t->rank)) return;
        if (!first) {
          first = t;
          continue;
        }
        if (t->rank != first->rank) return;
        std::vector<Dim> dims(static_cast<size_t>(t->rank));
        for (size_t d = 0; d < dims.size(); ++d)
          if (t->dims[d].value == first->dims[d].value && t->dims[d].param == first->dims[d].param) dims[d] = t->dims[d];
        out.rank = t->rank;
        out.dims = std::move(dims);
      }
  }

  // Phase 3: a rank the readers fix, for node outputs still of unknown rank (an If
  // whose branches disagree, as torch's export of squeeze(dim) writes): the input of
  // a rank-keeping op has its output's rank, and RoiAlign's inputs have the rank its
  // schema states. A model that runs has these ranks, so boundaries can declare them.
  void ranks_from_readers(int gi) {
    Graph& g = m_.graphs[static_cast<size_t>(gi)];
    const auto& order = g.index.order;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node& n = g.nodes[static_cast<size_t>(*it)];
      if (!n.domain.empty()) continue;
      for (const auto& a : n.attributes)
        for (int sub : a.graphs) ranks_from_readers(sub);
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        TensorId id = g.input_id(n, i);
        if (id == kNoTensor || g.index.producer[static_cast<size_t>(id)] < 0) continue;
        TensorInfo& in = g.tensors[static_cast<size_t>(id)];
        if (in.rank >= 0) continue;
        int rank = schema_rank(n.op_type, i);
        if (i == 0 && rank < 0 && keeps_rank(n.op_type) && g.output_id(n, 0) != kNoTensor)
          rank = g.tensors[static_cast<size_t>(g.output_id(n, 0))].rank;
        if (rank < 0) continue;
        in.rank = rank;
        in.dims.assign(static_cast<size_t>(rank), Dim{});
      }
    }
  }

  // The rank ONNX's schema states for input `i` of `op`, -1 when it states none. Only
  // for readers no rule checks the rank of (data/): a rank taken from the reader must
  // not be what lets the reader's own rank rule pass (NonMaxSuppression's would).
  static int schema_rank(const std::string& op, size_t i) {
    if (op == "RoiAlign") return i == 0 ? 4 : i == 1 ? 2 : 1;  // X, rois [num_rois, 4], batch_indices [num_rois]
    return -1;
  }

  static void constant(TensorInfo& out, const Node& n) {
    for (const auto& a : n.attributes) {
      if (a.name == "value") {
        out.type = a.tensor_type;
        out.rank = static_cast<int>(a.tensor_dims.size());
        out.dims.clear();
        for (int64_t d : a.tensor_dims) out.dims.push_back(Dim{d, {}});
        out.values = a.tensor_values ? std::make_unique<std::vector<double>>(*a.tensor_values) : nullptr;
      } else if (a.name == "value_float" || a.name == "value_int") {
        out.type = a.name == "value_float" ? ElemType::FLOAT : ElemType::INT64;
        out.rank = 0;
        out.dims.clear();
        out.values = std::make_unique<std::vector<double>>(1, a.name == "value_float" ? a.f : static_cast<double>(a.i));
      } else if (a.name == "value_floats" || a.name == "value_ints") {
        bool f = a.name == "value_floats";
        out.type = f ? ElemType::FLOAT : ElemType::INT64;
        out.rank = 1;
        size_t count = f ? a.floats.size() : a.ints.size();
        out.dims = {Dim{static_cast<int64_t>(count), {}}};
        std::vector<double> v;
        if (f) v.assign(a.floats.begin(), a.floats.end());
        else for (int64_t i : a.ints) v.push_back(static_cast<double>(i));
        out.values = std::make_unique<std::vector<double>>(std::move(v));
      } else if (a.name == "value_string" || a.name == "value_strings") {
        out.type = ElemType::STRING;
        out.rank = a.name == "value_string" ? 0 : 1;
      } else if (a.name == "sparse_value") {
        out.type = a.tensor_type;
      } else {
        continue;
      }
      out.type_source = "trtlens";
      out.origin = TensorOrigin::ConstantNode;
      return;
    }
  }

  Model& m_;
  std::vector<ElemType> in_types_;
};

ElemType subgraph_output_type(const Node& n, size_t k, const Model& m) {
  for (const auto& a : n.attributes)
    for (int sub : a.graphs) {
      const Graph& sg = m.graphs[static_cast<size_t>(sub)];
      // Loop bodies output the condition first; If branches and Scan bodies do not.
      size_t idx = n.op_type == "Loop" ? k + 1 : k;
      if (idx < sg.outputs.size()) {
        const TensorInfo* t = sg.find(sg.outputs[idx], m.graphs);
        if (t && t->type != ElemType::UNDEFINED) return t->type;
      }
    }
  return ElemType::UNDEFINED;
}

}  // namespace

ElemType infer_output_type(const Node& n, size_t k, const std::vector<ElemType>& in, const Model& m) {
  const std::string& op = n.op_type;
  if (!n.domain.empty()) return ElemType::UNDEFINED;  // custom ops: no rule
  if (one_of(op, {"Shape", "Size", "NonZero", "ArgMax", "ArgMin", "NonMaxSuppression"})) return ElemType::INT64;
  if (one_of(op, {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor", "IsNaN",
                  "IsInf", "RegexFullMatch", "OptionalHasElement"}))
    return ElemType::BOOL;
  if (one_of(op, {"StringNormalizer", "StringConcat"}) || (op == "StringSplit" && k == 0)) return ElemType::STRING;
  if (op == "StringSplit") return ElemType::INT64;
  if ((op == "TopK" || op == "MaxPool") && k == 1) return ElemType::INT64;
  if (op == "Unique" && k >= 1) return ElemType::INT64;
  if (op == "Cast") return attr_type(n, "to", ElemType::UNDEFINED);
  if (op == "CastLike") return input(in, 1);
  if (op == "ConstantOfShape") {
    const Attribute* a = n.attribute("value");
    return a ? a->tensor_type : ElemType::FLOAT;
  }
  if (one_of(op, {"EyeLike", "RandomNormalLike", "RandomUniformLike", "Bernoulli"}))
    return attr_type(n, "dtype", input(in, 0));
  if (one_of(op, {"RandomNormal", "RandomUniform"})) return attr_type(n, "dtype", ElemType::FLOAT);
  if (op == "Multinomial") return attr_type(n, "dtype", ElemType::INT32);
  if (op == "QuantizeLinear") {
    ElemType t = attr_type(n, "output_dtype", ElemType::UNDEFINED);
    if (t != ElemType::UNDEFINED) return t;
    return input(in, 2) != ElemType::UNDEFINED ? input(in, 2) : ElemType::UINT8;
  }
  if (op == "DynamicQuantizeLinear") return k == 1 ? ElemType::FLOAT : ElemType::UINT8;
  if (op == "DequantizeLinear") return input(in, 1) != ElemType::UNDEFINED ? input(in, 1) : ElemType::FLOAT;
  // Both take y_zero_point as input 7.
  if (op == "QLinearConv" || op == "QLinearMatMul") return input(in, 7) != ElemType::UNDEFINED ? input(in, 7) : input(in, 0);
  if (op == "MatMulInteger" || op == "ConvInteger") return ElemType::INT32;
  if (op == "Where") return input(in, 1);
  if (op == "OneHot") return input(in, 2);
  if (op == "LayerNormalization" && k >= 1) return attr_type(n, "stash_type", ElemType::FLOAT);
  if (op == "If" || op == "Loop" || op == "Scan") return subgraph_output_type(n, k, m);
  if (op == "SequenceLength") return ElemType::INT64;
  // Otherwise the output has the type of the data input (input 0). Only ops whose
  // inputs all share that type may take it from another input: a Reshape's shape
  // or a Gather's indices say nothing about its output.
  if (input(in, 0) != ElemType::UNDEFINED) return input(in, 0);
  if (one_of(op, {"Add", "Sub", "Mul", "Div", "Max", "Min", "Mean", "Sum", "MatMul", "Gemm", "Concat", "Mod",
                  "PRelu", "Conv", "ConvTranspose", "Einsum", "BitShift"}))
    return first_known(in);
  return ElemType::UNDEFINED;
}

void index_graphs(Model& m) { Indexer(m, false).run(); }

void check_structure_and_propagate(Model& m) {
  Indexer(m, true).run();
  Propagator(m).run();
}

}  // namespace trtlens
