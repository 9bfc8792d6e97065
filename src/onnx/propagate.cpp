#include "onnx/propagate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <span>
#include <unordered_map>
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

bool is_integer(ElemType t) {
  switch (t) {
    case ElemType::INT64: case ElemType::INT32: case ElemType::INT16: case ElemType::INT8:
    case ElemType::UINT64: case ElemType::UINT32: case ElemType::UINT16: case ElemType::UINT8: return true;
    default: return false;
  }
}

// A dimension ONNX shape inference made up for what it could not compute ("unk__3"): as
// unknown as no name at all, and what our own rules may replace by a value.
bool made_up(const Dim& d) { return !d.fixed() && (d.param.empty() || d.param.starts_with("unk__")); }

// Every dimension fixed or named by the model: nothing for our rules to add.
bool settled(const TensorInfo& t) {
  return t.rank >= 0 && t.dims.size() == static_cast<size_t>(t.rank) &&
         std::none_of(t.dims.begin(), t.dims.end(), made_up);
}

using Dims = std::vector<Dim>;

// The dims of `t` when its rank is known, else null (a pointer: most callers only read them).
const Dims* dims_of(const TensorInfo* t) {
  if (!t || t->rank < 0 || t->dims.size() != static_cast<size_t>(t->rank)) return nullptr;
  return &t->dims;
}

// The values of a small integer tensor that shape arithmetic computes (Shape -> Gather/Slice
// -> Unsqueeze -> Concat -> Reshape, or Mod/Sub for a padding), element by element; kUnknown
// where an element is not known. A vector of unknown elements still says the tensor's length
// (the rank of a Reshape it shapes). Kept beside the tensors, not in TensorInfo::values: they
// size shapes only, so rules reading values see the constants they saw before.
constexpr int64_t kUnknown = std::numeric_limits<int64_t>::min();
constexpr size_t kMaxValues = 64;
struct Values {
  std::vector<int64_t> v;      // row-major
  std::vector<int64_t> shape;  // empty: a scalar
  bool scalar() const { return shape.empty(); }
  bool vector() const { return shape.size() == 1; }
};

int64_t int_value(double d) {
  // INT64 sentinels (PyTorch's "to the end" slice bound) do not survive a double exactly.
  if (d >= 9.2e18) return std::numeric_limits<int64_t>::max();
  if (d <= -9.2e18) return std::numeric_limits<int64_t>::min() + 1;
  return d == std::floor(d) ? static_cast<int64_t>(d) : kUnknown;
}

// The normalized axis `a` of a rank-`r` tensor, -1 when out of range.
int axis_in(int64_t a, int r) {
  if (a < 0) a += r;
  return a >= 0 && a < r ? static_cast<int>(a) : -1;
}

// Numpy broadcasting of one dimension over several: a value > 1 wins (ONNX's rule), all 1 is 1,
// a name all non-1 dimensions share is kept, anything else is unknown. nullopt: two values differ.
std::optional<Dim> broadcast_dim(const std::vector<const Dim*>& ds) {
  const Dim* big = nullptr;
  const Dim* other = nullptr;
  bool others_agree = true;
  for (const Dim* d : ds) {
    if (d->fixed() && d->value == 1) continue;
    if (d->fixed()) {
      if (big && big->value != d->value) return std::nullopt;
      big = d;
    } else {
      if (other && (d->param.empty() || d->param != other->param)) others_agree = false;
      if (!other) other = d;
    }
  }
  if (big) return *big;
  if (!other) return Dim{1, {}};
  return others_agree && !other->param.empty() ? *other : Dim{};
}

std::optional<Dims> broadcast(const std::vector<const Dims*>& shapes) {
  size_t rank = 0;
  for (const Dims* s : shapes) rank = std::max(rank, s->size());
  static const Dim one{1, {}};
  Dims out(rank);
  for (size_t d = 0; d < rank; ++d) {
    std::vector<const Dim*> ds;
    for (const Dims* s : shapes) ds.push_back(d + s->size() >= rank ? &(*s)[d + s->size() - rank] : &one);
    auto b = broadcast_dim(ds);
    if (!b) return std::nullopt;
    out[d] = *b;
  }
  return out;
}

// The product of fixed dims, nullopt when one is not fixed or it overflows.
std::optional<int64_t> product(std::span<const Dim> dims) {
  int64_t p = 1;
  for (const Dim& d : dims)
    if (!d.fixed() || __builtin_mul_overflow(p, d.value, &p)) return std::nullopt;
  return p;
}

// Ops node_values knows: the shape arithmetic exporters write.
bool computes_values(const std::string& op) {
  return one_of(op, {"Shape", "Size", "Identity", "Cast", "Floor", "Ceil", "Round", "ConstantOfShape", "Gather", "Slice",
                     "Transpose", "Concat", "Unsqueeze", "Squeeze", "Reshape", "Flatten", "Add", "Sub", "Mul", "Div",
                     "Mod", "Max", "Min"});
}

// Shape tensors' values (Values) and the output shapes our own rules are certain of: element-wise
// ops, numpy broadcasting, MatMul/Gemm, Reshape, Pad, Transpose, Slice, Gather, Concat,
// Unsqueeze/Squeeze, Flatten, Expand, Tile, reductions, global pools (the cases ONNX shape
// inference answers the same way, dims it could not compute included), and the rank alone where
// only the rank is certain.
class ShapeRules {
 public:
  // The values `t` is known to hold (constants, initializers, computed shape arithmetic), or for
  // a small integer tensor of fixed shape, that many unknown elements; nullopt otherwise.
  std::optional<Values> values(const TensorInfo* t) const {
    if (!t) return std::nullopt;
    if (auto it = computed_.find(t); it != computed_.end()) return it->second;
    if (!t->values && !is_integer(t->type)) return std::nullopt;  // most tensors: float data
    auto dims = dims_of(t);
    if (!dims) return std::nullopt;
    auto count = product(*dims);
    if (!count || *count > static_cast<int64_t>(kMaxValues)) return std::nullopt;
    Values out;
    for (const Dim& d : *dims) out.shape.push_back(d.value);
    if (t->values && t->values->size() == static_cast<size_t>(*count) && (is_integer(t->type) || is_float(t->type))) {
      for (double d : *t->values) out.v.push_back(int_value(d));
      return out;
    }
    if (!is_integer(t->type)) return std::nullopt;
    out.v.assign(static_cast<size_t>(*count), kUnknown);
    return out;
  }

  // Values of output 0 of `n` (whose shape is already propagated) when it is shape arithmetic;
  // recorded for the readers, and the shape they fix given to `out`.
  std::optional<Dims> compute_values(const Graph& g, const Node& n, const TensorInfo* out) {
    if (!out || !n.domain.empty()) return std::nullopt;
    // Float data (most tensors) is skipped at once; a float output is shape arithmetic only
    // when it is computed from known values (torch's Cast to float, Div, Cast back).
    if (!is_integer(out->type) && !(g.input_id(n, 0) != kNoTensor && holds_values(g.input(n, 0))))
      return std::nullopt;
    if (!computes_values(n.op_type)) return std::nullopt;
    auto v = node_values(g, n, *out);
    if (!v || v->v.size() > kMaxValues) return std::nullopt;
    Dims dims;
    for (int64_t d : v->shape) dims.push_back(Dim{d, {}});
    computed_[out] = std::move(*v);
    return dims;
  }

  std::optional<Dims> shape(const Graph& g, const Node& n) const;
  // Whether values of `t` are known or computed (not merely its length).
  bool holds_values(const TensorInfo* t) const { return t && (t->values || computed_.count(t)); }
  int rank(const Graph& g, const Node& n, size_t k) const;

 private:
  std::optional<Values> in_values(const Graph& g, const Node& n, size_t k) const {
    return g.input_id(n, k) == kNoTensor ? std::nullopt : values(g.input(n, k));
  }
  // Fully known values: from the attribute `attr` when the node has it (older opsets), else input k.
  std::optional<std::vector<int64_t>> known(const Graph& g, const Node& n, const char* attr, size_t k) const {
    if (const Attribute* a = n.attribute(attr)) {
      if (a->kind != Attribute::Kind::Ints) return std::nullopt;
      return a->ints;
    }
    auto v = in_values(g, n, k);
    if (!v || std::find(v->v.begin(), v->v.end(), kUnknown) != v->v.end()) return std::nullopt;
    return v->v;
  }
  // Length of a shape-like input: how many elements it has, -1 when unknown.
  int length(const Graph& g, const Node& n, size_t k) const {
    auto v = in_values(g, n, k);
    return v && v->vector() ? static_cast<int>(v->v.size()) : -1;
  }
  const Dims* in_dims(const Graph& g, const Node& n, size_t k) const {
    return g.input_id(n, k) == kNoTensor ? nullptr : dims_of(g.input(n, k));
  }
  std::optional<Values> node_values(const Graph& g, const Node& n, const TensorInfo& out) const;
  std::optional<Dims> reshape(const Graph& g, const Node& n) const;
  std::optional<Dims> slice(const Graph& g, const Node& n) const;

  std::unordered_map<const TensorInfo*, Values> computed_;
};

std::optional<Values> ShapeRules::node_values(const Graph& g, const Node& n, const TensorInfo& out_info) const {
  const std::string& op = n.op_type;
  if (op == "Shape") {
    auto x = in_dims(g, n, 0);
    if (!x) return std::nullopt;
    auto r = static_cast<int64_t>(x->size());
    auto bound = [&](const char* name, int64_t fallback) {
      const Attribute* a = n.attribute(name);
      int64_t v = a && a->kind == Attribute::Kind::Int ? a->i : fallback;
      if (v < 0) v += r;
      return std::clamp<int64_t>(v, 0, r);
    };
    Values out;
    for (int64_t i = bound("start", 0); i < bound("end", r); ++i) {
      const Dim& d = (*x)[static_cast<size_t>(i)];
      out.v.push_back(d.fixed() ? d.value : kUnknown);
    }
    out.shape = {static_cast<int64_t>(out.v.size())};
    return out;
  }
  if (op == "Size") {
    auto x = in_dims(g, n, 0);
    auto p = x ? product(*x) : std::nullopt;
    return Values{{p ? *p : kUnknown}, {}};
  }
  if (one_of(op, {"Identity", "Cast", "Floor", "Ceil", "Round"})) {
    if (op == "Cast") {
      ElemType to = attr_type(n, "to", ElemType::UNDEFINED);
      if (!is_integer(to) && !is_float(to)) return std::nullopt;
    }
    return in_values(g, n, 0);
  }
  if (op == "ConstantOfShape") {
    auto shape = in_values(g, n, 0);
    if (!shape || !shape->vector()) return std::nullopt;
    int64_t fill = 0, count = 1;
    if (const Attribute* a = n.attribute("value")) {
      if (!a->tensor_values || a->tensor_values->size() != 1) return std::nullopt;
      fill = int_value((*a->tensor_values)[0]);
    }
    for (int64_t d : shape->v)
      if (d == kUnknown || d < 0 || __builtin_mul_overflow(count, d, &count) || count > static_cast<int64_t>(kMaxValues))
        return std::nullopt;
    return Values{std::vector<int64_t>(static_cast<size_t>(count), fill), shape->v};
  }
  if (op == "Gather") {
    auto data = in_values(g, n, 0), idx = in_values(g, n, 1);
    const Attribute* axis = n.attribute("axis");
    if (!data || !idx || !data->vector() || (axis && axis_in(axis->i, 1) != 0)) return std::nullopt;
    Values out{{}, idx->shape};
    auto len = static_cast<int64_t>(data->v.size());
    for (int64_t i : idx->v) {
      if (i != kUnknown && i < 0) i += len;
      if (i != kUnknown && (i < 0 || i >= len)) return std::nullopt;
      out.v.push_back(i == kUnknown ? kUnknown : data->v[static_cast<size_t>(i)]);
    }
    return out;
  }
  if (op == "Slice") {
    auto data = in_values(g, n, 0);
    if (!data || data->scalar()) return std::nullopt;
    auto r = static_cast<int>(data->shape.size());
    auto starts = known(g, n, "starts", 1), ends = known(g, n, "ends", 2);
    bool has_axes = n.attribute("axes") || (n.inputs.size() > 3 && !n.inputs[3].empty());
    bool has_steps = n.inputs.size() > 4 && !n.inputs[4].empty();
    auto axes = has_axes ? known(g, n, "axes", 3) : std::nullopt;
    auto steps = has_steps ? known(g, n, "steps", 4) : std::nullopt;
    if (!starts || !ends || starts->size() != ends->size() || (has_axes && !axes) || (has_steps && !steps)) return std::nullopt;
    std::vector<int64_t> first(static_cast<size_t>(r), 0), count = data->shape, step(static_cast<size_t>(r), 1);
    for (size_t i = 0; i < starts->size(); ++i) {
      int a = axes ? (i < axes->size() ? axis_in((*axes)[i], r) : -1) : static_cast<int>(i);
      if (a < 0) return std::nullopt;
      auto ua = static_cast<size_t>(a);
      int64_t st = steps ? (i < steps->size() ? (*steps)[i] : 0) : 1, len = data->shape[ua];
      if (st == 0 || st == std::numeric_limits<int64_t>::min()) return std::nullopt;
      int64_t b = (*starts)[i], e = (*ends)[i];
      if (b < 0) b += len;
      if (e < 0) e += len;
      if (st > 0) {
        b = std::clamp<int64_t>(b, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
        count[ua] = e > b ? (e - b - 1) / st + 1 : 0;  // bounds are clamped: no overflow
      } else {
        b = std::clamp<int64_t>(b, 0, len - 1);
        e = std::clamp<int64_t>(e, -1, len - 1);
        count[ua] = b > e ? (b - e - 1) / -st + 1 : 0;
      }
      first[ua] = b;
      step[ua] = st;
    }
    Values out{{}, count};
    // Row-major walk over the output's indices.
    std::vector<int64_t> at(static_cast<size_t>(r), 0);
    int64_t total = 1;
    for (int64_t c : count) total *= c;
    for (int64_t k = 0; k < total; ++k) {
      size_t src = 0;
      for (size_t a = 0; a < at.size(); ++a) src = src * static_cast<size_t>(data->shape[a]) + static_cast<size_t>(first[a] + at[a] * step[a]);
      out.v.push_back(data->v[src]);
      for (size_t a = at.size(); a-- > 0;) {
        if (++at[a] < count[a]) break;
        at[a] = 0;
      }
    }
    return out;
  }
  if (op == "Transpose") {
    auto data = in_values(g, n, 0);
    if (!data) return std::nullopt;
    auto r = data->shape.size();
    const Attribute* perm = n.attribute("perm");
    std::vector<int64_t> p;
    if (perm) p = perm->ints;
    else
      for (size_t i = r; i-- > 0;) p.push_back(static_cast<int64_t>(i));
    if (p.size() != r) return std::nullopt;
    Values out;
    for (int64_t i : p) {
      if (i < 0 || static_cast<size_t>(i) >= r) return std::nullopt;
      out.shape.push_back(data->shape[static_cast<size_t>(i)]);
    }
    std::vector<int64_t> at(r, 0);  // the output's index
    for (size_t k = 0; k < data->v.size(); ++k) {
      size_t src = 0;
      std::vector<int64_t> in_at(r);
      for (size_t a = 0; a < r; ++a) in_at[static_cast<size_t>(p[a])] = at[a];
      for (size_t a = 0; a < r; ++a) src = src * static_cast<size_t>(data->shape[a]) + static_cast<size_t>(in_at[a]);
      out.v.push_back(data->v[src]);
      for (size_t a = r; a-- > 0;) {
        if (++at[a] < out.shape[a]) break;
        at[a] = 0;
      }
    }
    return out;
  }
  if (op == "Concat") {
    const Attribute* axis = n.attribute("axis");
    if (!axis || axis_in(axis->i, 1) != 0) return std::nullopt;
    Values out;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      auto v = in_values(g, n, k);
      if (!v || !v->vector()) return std::nullopt;
      out.v.insert(out.v.end(), v->v.begin(), v->v.end());
    }
    out.shape = {static_cast<int64_t>(out.v.size())};
    return out;
  }
  if (one_of(op, {"Unsqueeze", "Squeeze", "Reshape", "Flatten"})) {  // the same elements, the shape just propagated
    auto x = in_values(g, n, 0);
    auto dims = dims_of(&out_info);
    if (!x || !dims) return std::nullopt;
    Values out{x->v, {}};
    for (const Dim& d : *dims) {
      if (!d.fixed()) return std::nullopt;
      out.shape.push_back(d.value);
    }
    auto count = product(*dims);
    if (!count || *count != static_cast<int64_t>(x->v.size())) return std::nullopt;
    return out;
  }
  if (one_of(op, {"Add", "Sub", "Mul", "Div", "Mod", "Max", "Min"}) && n.inputs.size() == 2) {
    auto a = in_values(g, n, 0), b = in_values(g, n, 1);
    if (!a || !b) return std::nullopt;
    size_t la = a->v.size(), lb = b->v.size();
    // Equal shapes, or one side a single element (the broadcasts shape arithmetic uses).
    if (la == 0 || lb == 0 || (a->shape != b->shape && la != 1 && lb != 1)) return std::nullopt;
    const TensorInfo* ta = g.input(n, 0);
    bool integer = ta && is_integer(ta->type);
    const Attribute* fmod = n.attribute("fmod");
    Values out{{}, la >= lb && a->shape.size() >= b->shape.size() ? a->shape : b->shape};
    if (la == 1 && lb == 1) out.shape = a->shape.size() >= b->shape.size() ? a->shape : b->shape;
    for (size_t i = 0; i < std::max(la, lb); ++i) {
      int64_t x = a->v[la == 1 ? 0 : i], y = b->v[lb == 1 ? 0 : i], r = kUnknown;
      if (x != kUnknown && y != kUnknown) {
        bool ok = true;
        if (op == "Add") ok = !__builtin_add_overflow(x, y, &r);
        else if (op == "Sub") ok = !__builtin_sub_overflow(x, y, &r);
        else if (op == "Mul") ok = !__builtin_mul_overflow(x, y, &r);
        else if (op == "Max") r = std::max(x, y);
        else if (op == "Min") r = std::min(x, y);
        else if (y == 0 || x <= std::numeric_limits<int64_t>::min() + 1 || x == std::numeric_limits<int64_t>::max()) ok = false;
        else if (op == "Div") {
          // Integer division truncates; a float quotient that is not whole is not a shape value.
          ok = x % y == 0 || (integer && (x >= 0) == (y > 0));
          r = x / y;
        } else {  // Mod: the sign of the divisor (fmod=0), of the dividend (fmod=1)
          r = x % y;
          if (!(fmod && fmod->i) && r != 0 && (r < 0) != (y < 0)) r += y;
        }
        if (!ok) r = kUnknown;
      }
      out.v.push_back(r);
    }
    return out;
  }
  return std::nullopt;
}

// Reshape by a shape whose values are known (in part): a known element is the size, 0 copies
// the input's dimension, -1 is inferred when everything else is fixed. Only the rank is claimed
// when the input's size cannot be checked against the shape (its product overflows).
std::optional<Dims> ShapeRules::reshape(const Graph& g, const Node& n) const {
  auto shape = in_values(g, n, 1);
  if (!shape || !shape->vector()) return std::nullopt;
  auto x = in_dims(g, n, 0);
  const Attribute* az = n.attribute("allowzero");
  bool allowzero = az && az->i != 0;
  Dims dims(shape->v.size());
  int infer = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t v = shape->v[i];
    if (v == kUnknown) continue;
    if (v == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(i);
    } else if (v == 0 && !allowzero) {
      if (!x || i >= x->size()) return std::nullopt;
      dims[i] = (*x)[i];
    } else if (v < 0) {
      return std::nullopt;
    } else {
      dims[i].value = v;
    }
  }
  bool overflows = x && std::all_of(x->begin(), x->end(), [](const Dim& d) { return d.fixed(); }) && !product(*x);
  if (overflows) return Dims(dims.size());
  auto total = x ? product(*x) : std::nullopt;
  if (infer >= 0) {
    Dims rest = dims;
    rest.erase(rest.begin() + infer);
    auto known = product(rest);
    if (total && known) {
      if (*known == 0 || *total % *known != 0) return std::nullopt;
      dims[static_cast<size_t>(infer)].value = *total / *known;
    }
  } else if (auto all = product(dims); total && all && *all != *total) {
    return std::nullopt;  // sizes that disagree: leave it to ONNX
  }
  return dims;
}

// Slice of a tensor: each sliced dimension from its fixed size and known bounds (ONNX's clamping).
std::optional<Dims> ShapeRules::slice(const Graph& g, const Node& n) const {
  const Dims* x = in_dims(g, n, 0);
  Dims length;
  if (!x) {
    auto v = in_values(g, n, 0);  // a shape tensor's values
    if (!v || !v->vector()) return std::nullopt;
    length = Dims{Dim{static_cast<int64_t>(v->v.size()), {}}};
    x = &length;
  }
  auto r = static_cast<int>(x->size());
  auto starts = known(g, n, "starts", 1), ends = known(g, n, "ends", 2);
  std::optional<std::vector<int64_t>> axes, steps;
  bool has_axes = n.attribute("axes") || (n.inputs.size() > 3 && !n.inputs[3].empty());
  bool has_steps = n.inputs.size() > 4 && !n.inputs[4].empty();
  if (has_axes) axes = known(g, n, "axes", 3);
  if (has_steps) steps = known(g, n, "steps", 4);
  Dims out = *x;
  if ((has_axes && !axes) || (!has_axes && !starts && !ends)) return Dims(out.size());
  size_t count = axes ? axes->size() : starts ? starts->size() : ends->size();
  for (size_t i = 0; i < count; ++i) {
    int a = axes ? axis_in((*axes)[i], r) : static_cast<int>(i);
    if (a < 0) return std::nullopt;
    Dim& d = out[static_cast<size_t>(a)];
    int64_t step = steps ? (i < steps->size() ? (*steps)[i] : 0) : 1;
    if (!d.fixed() || !starts || !ends || i >= starts->size() || i >= ends->size() || (has_steps && !steps) || step == 0 ||
        step == std::numeric_limits<int64_t>::min()) {
      d = Dim{};
      continue;
    }
    int64_t len = d.value, s = (*starts)[i], e = (*ends)[i];
    if (s < 0) s += len;
    if (e < 0) e += len;
    int64_t size;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, len);
      e = std::clamp<int64_t>(e, 0, len);
      size = e > s ? (e - s - 1) / step + 1 : 0;  // bounds are clamped: no overflow
    } else {
      s = std::clamp<int64_t>(s, 0, len - 1);
      e = std::clamp<int64_t>(e, -1, len - 1);
      size = s > e ? (s - e - 1) / -step + 1 : 0;
    }
    d = Dim{size, {}};
  }
  return out;
}

std::optional<Dims> ShapeRules::shape(const Graph& g, const Node& n) const {
  if (!n.domain.empty() || n.inputs.empty() || g.input_id(n, 0) == kNoTensor) return std::nullopt;
  const std::string& op = n.op_type;
  auto x = in_dims(g, n, 0);
  if (keeps_shape(op) || one_of(op, {"Dropout", "LayerNormalization", "BatchNormalization", "InstanceNormalization"}))
    return x ? std::optional<Dims>(*x) : std::nullopt;
  if (broadcasts(op)) {
    std::vector<const Dims*> shapes;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Dims* d = in_dims(g, n, i);
      if (!d) return std::nullopt;
      shapes.push_back(d);
    }
    return broadcast(shapes);
  }
  if (op == "MatMul" && n.inputs.size() == 2) {
    auto w = in_dims(g, n, 1);
    if (!x || !w || x->empty() || w->empty()) return std::nullopt;
    Dims a = x->size() == 1 ? Dims{Dim{1, {}}, (*x)[0]} : *x;
    Dims b = w->size() == 1 ? Dims{(*w)[0], Dim{1, {}}} : *w;
    const Dim &ka = a.back(), &kb = b[b.size() - 2];
    if (ka.fixed() && kb.fixed() && ka.value != kb.value) return std::nullopt;
    Dims batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
    auto batch = broadcast({&batch_a, &batch_b});
    if (!batch) return std::nullopt;
    if (x->size() > 1) batch->push_back(a[a.size() - 2]);
    if (w->size() > 1) batch->push_back(b.back());
    return batch;
  }
  if (op == "Gemm" && n.inputs.size() >= 2) {
    auto b = in_dims(g, n, 1);
    if (!x || !b || x->size() != 2 || b->size() != 2) return std::nullopt;
    const Attribute *ta = n.attribute("transA"), *tb = n.attribute("transB");
    return Dims{(*x)[ta && ta->i ? 1 : 0], (*b)[tb && tb->i ? 0 : 1]};
  }
  if (op == "Reshape" && n.inputs.size() == 2) return reshape(g, n);
  if (!x) return std::nullopt;
  auto r = static_cast<int>(x->size());
  if (op == "Transpose") {
    const Attribute* perm = n.attribute("perm");
    std::vector<int64_t> p;
    if (perm) p = perm->ints;
    else
      for (int i = r - 1; i >= 0; --i) p.push_back(i);
    if (p.size() != x->size()) return std::nullopt;
    Dims out;
    for (int64_t i : p) {
      if (i < 0 || i >= r) return std::nullopt;
      out.push_back((*x)[static_cast<size_t>(i)]);
    }
    return out;
  }
  if (op == "Pad") {
    auto pads = known(g, n, "pads", 1);
    if (n.inputs.size() > 3 && !n.inputs[3].empty()) return Dims(x->size());  // axes (opset 18): the rank only
    if (!pads) return Dims(x->size());
    if (pads->size() != 2 * x->size()) return std::nullopt;
    Dims out = *x;
    for (size_t d = 0; d < out.size(); ++d) {
      int64_t b = (*pads)[d], e = (*pads)[d + out.size()];
      if (b == 0 && e == 0) continue;
      int64_t size;  // pads come from the file: a sum that overflows is unknown
      if (!out[d].fixed() || __builtin_add_overflow(out[d].value, b, &size) || __builtin_add_overflow(size, e, &size) ||
          size < 0)
        out[d] = Dim{};
      else
        out[d] = Dim{size, {}};
    }
    return out;
  }
  if (op == "Slice") return slice(g, n);
  if (op == "Gather" && n.inputs.size() == 2) {
    auto idx = in_dims(g, n, 1);
    const Attribute* axis = n.attribute("axis");
    int a = axis_in(axis ? axis->i : 0, r);
    if (!idx || a < 0) return std::nullopt;
    Dims out(x->begin(), x->begin() + a);
    out.insert(out.end(), idx->begin(), idx->end());
    out.insert(out.end(), x->begin() + a + 1, x->end());
    return out;
  }
  if (op == "Concat") {
    const Attribute* axis = n.attribute("axis");
    int a = axis ? axis_in(axis->i, r) : -1;
    if (a < 0) return std::nullopt;
    Dims out = *x;
    for (size_t k = 1; k < n.inputs.size(); ++k) {
      auto d = in_dims(g, n, k);
      if (!d || d->size() != out.size()) return std::nullopt;
      for (size_t i = 0; i < out.size(); ++i) {
        if (static_cast<int>(i) == a) {
          out[i] = out[i].fixed() && (*d)[i].fixed() ? Dim{out[i].value + (*d)[i].value, {}} : Dim{};
        } else if (!out[i].fixed() && ((*d)[i].fixed() || (out[i].param.empty() && !(*d)[i].param.empty()))) {
          out[i] = (*d)[i];
        }
      }
    }
    return out;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    auto axes = known(g, n, "axes", 1);
    if (op == "Unsqueeze") {
      if (!axes) return std::nullopt;
      int outr = r + static_cast<int>(axes->size());
      std::vector<bool> inserted(static_cast<size_t>(outr), false);
      for (int64_t a : *axes) {
        int i = axis_in(a, outr);
        if (i < 0 || inserted[static_cast<size_t>(i)]) return std::nullopt;
        inserted[static_cast<size_t>(i)] = true;
      }
      Dims out;
      size_t from = 0;
      for (int i = 0; i < outr; ++i) out.push_back(inserted[static_cast<size_t>(i)] ? Dim{1, {}} : (*x)[from++]);
      return out;
    }
    bool has_axes = n.attribute("axes") || (n.inputs.size() > 1 && !n.inputs[1].empty());
    if (has_axes && !axes) return std::nullopt;
    std::vector<bool> drop(x->size(), false);
    for (size_t i = 0; i < x->size(); ++i) {
      if (has_axes) continue;
      if (!(*x)[i].fixed()) return std::nullopt;  // which dims are 1 is not known
      drop[i] = (*x)[i].value == 1;
    }
    if (axes)
      for (int64_t a : *axes) {
        int i = axis_in(a, r);
        if (i < 0) return std::nullopt;
        drop[static_cast<size_t>(i)] = true;
      }
    Dims out;
    for (size_t i = 0; i < x->size(); ++i)
      if (!drop[i]) out.push_back((*x)[i]);
    return out;
  }
  if (op == "Flatten") {
    const Attribute* axis = n.attribute("axis");
    int64_t a = axis ? axis->i : 1;
    if (a < 0) a += r;
    if (a < 0 || a > r) return std::nullopt;
    auto lead = product(std::span<const Dim>(x->data(), static_cast<size_t>(a)));
    auto rest = product(std::span<const Dim>(x->data() + a, x->size() - static_cast<size_t>(a)));
    return Dims{lead ? Dim{*lead, {}} : Dim{}, rest ? Dim{*rest, {}} : Dim{}};
  }
  if (op == "Expand" && n.inputs.size() == 2) {
    auto shape = in_values(g, n, 1);
    if (!shape || !shape->vector()) return std::nullopt;
    Dims target;
    for (int64_t v : shape->v) target.push_back(v == kUnknown || v < 0 ? Dim{} : Dim{v, {}});
    return broadcast({x, &target});
  }
  if (op == "Tile" && n.inputs.size() == 2) {
    auto repeats = in_values(g, n, 1);
    if (!repeats || repeats->v.size() != x->size()) return std::nullopt;
    Dims out = *x;
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t t = repeats->v[i], v;
      if (t == 1) continue;
      out[i] = out[i].fixed() && t != kUnknown && t >= 0 && !__builtin_mul_overflow(out[i].value, t, &v) ? Dim{v, {}} : Dim{};
    }
    return out;
  }
  if (one_of(op, {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) && r >= 2) {
    Dims out(x->begin(), x->begin() + 2);
    out.resize(x->size(), Dim{1, {}});
    return out;
  }
  if (op.starts_with("Reduce") || op == "ArgMax" || op == "ArgMin") {
    const Attribute* keep = n.attribute("keepdims");
    bool keepdims = !keep || keep->i != 0;
    std::optional<std::vector<int64_t>> axes;
    if (op == "ArgMax" || op == "ArgMin") {
      const Attribute* axis = n.attribute("axis");
      axes = std::vector<int64_t>{axis ? axis->i : 0};
    } else {
      bool has_axes = n.attribute("axes") || (n.inputs.size() > 1 && !n.inputs[1].empty());
      if (has_axes) axes = known(g, n, "axes", 1);
      if (has_axes && !axes) return keepdims ? std::optional<Dims>(Dims(x->size())) : std::nullopt;
      if (!axes || axes->empty()) {
        const Attribute* noop = n.attribute("noop_with_empty_axes");
        if (noop && noop->i) return *x;
        axes = std::vector<int64_t>();
        for (int i = 0; i < r; ++i) axes->push_back(i);
      }
    }
    std::vector<bool> reduced(x->size(), false);
    for (int64_t a : *axes) {
      int i = axis_in(a, r);
      if (i < 0) return std::nullopt;
      reduced[static_cast<size_t>(i)] = true;
    }
    Dims out;
    for (size_t i = 0; i < x->size(); ++i)
      if (!reduced[i]) out.push_back((*x)[i]);
      else if (keepdims) out.push_back(Dim{1, {}});
    return out;
  }
  return std::nullopt;
}

// The rank of output k where only the rank is certain: -1 when no rule applies.
int ShapeRules::rank(const Graph& g, const Node& n, size_t k) const {
  if (!n.domain.empty()) return -1;
  const std::string& op = n.op_type;
  auto in = [&](size_t i) {
    const TensorInfo* t = g.input_id(n, i) == kNoTensor ? nullptr : g.input(n, i);
    return t ? t->rank : -1;
  };
  if (one_of(op, {"Split", "TopK"})) return in(0);  // every output
  if (k != 0) return -1;
  if (keeps_rank(op) || one_of(op, {"Transpose", "Slice", "Concat", "Pad", "Tile", "Resize", "ScatterND",
                                    "ScatterElements", "GatherElements", "Trilu"}))
    return in(0);
  if (broadcasts(op) || op == "Mod") {
    int rank = -1;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (in(i) < 0) return -1;
      rank = std::max(rank, in(i));
    }
    return rank;
  }
  if (op == "Reshape") return length(g, n, 1);
  if (op == "Gather") return in(0) < 0 || in(1) < 0 ? -1 : in(0) + in(1) - 1;
  if (op == "Squeeze" || op == "Unsqueeze") {
    const Attribute* axes = n.attribute("axes");
    int count = axes ? static_cast<int>(axes->ints.size()) : length(g, n, 1);
    if (in(0) < 0 || count < 0) return -1;
    return op == "Squeeze" ? in(0) - count : in(0) + count;
  }
  if (op == "Flatten" || op == "NonZero") return 2;
  if (op == "Range" || op == "Shape") return 1;
  if (op == "Size") return 0;
  if (op == "ConstantOfShape") return length(g, n, 0);
  if (op == "Expand") return in(0) < 0 || length(g, n, 1) < 0 ? -1 : std::max(in(0), length(g, n, 1));
  if (op.starts_with("Reduce") || op == "ArgMax" || op == "ArgMin") {
    const Attribute* keep = n.attribute("keepdims");
    if (in(0) < 0) return -1;
    if (!keep || keep->i != 0) return in(0);  // keepdims (the default): the rank stays
    if (!op.starts_with("Reduce")) return in(0) - 1;
    if (const Attribute* axes = n.attribute("axes")) return in(0) - static_cast<int>(axes->ints.size());
    return length(g, n, 1) < 0 ? -1 : in(0) - length(g, n, 1);
  }
  if (op == "MatMul") {
    int a = in(0), b = in(1);
    return a < 1 || b < 1 ? -1 : std::max({a, b, 2}) - (a == 1) - (b == 1);
  }
  return -1;
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
      if (k == 0 && !settled(out))
        if (auto dims = rules_.shape(g, n)) fill(out, *dims);
      if (out.rank < 0)
        if (int rank = rules_.rank(g, n, k); rank >= 0) fill(out, Dims(static_cast<size_t>(rank)));
      if (out.rank < 0 && n.op_type == "If" && n.domain.empty()) branch_shape(out, n, k);
      if (k == 0)
        if (auto dims = rules_.compute_values(g, n, &out)) fill(out, std::move(*dims));
    }
  }

  // ONNX shape inference's facts (and the file's) come first: ours give an unknown rank, and
  // values for dimensions it left unknown or made up ("unk__3"), never a different rank or size.
  static void fill(TensorInfo& out, Dims dims) {
    if (out.rank < 0) {
      out.rank = static_cast<int>(dims.size());
      out.dims = std::move(dims);
      return;
    }
    if (out.dims.size() != static_cast<size_t>(out.rank) || dims.size() != out.dims.size()) return;
    for (size_t d = 0; d < dims.size(); ++d)
      if (made_up(out.dims[d]) && (dims[d].fixed() || (out.dims[d].param.empty() && !dims[d].param.empty())))
        out.dims[d] = dims[d];
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
  ShapeRules rules_;
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
