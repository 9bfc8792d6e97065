// load_model: .onnx (memory-mapped, payloads skipped) → onnx::ModelProto →
// ONNX shape inference → trtlens::Model, then structure checks and our own
// type/constness propagation (src/onnx/propagate.cpp).
#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>
#include <fmt/core.h>
#include <onnx/shape_inference/implementation.h>

#include <map>
#include <set>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "onnx/input_shapes.h"
#include "onnx/propagate.h"
#include "onnx/wire.h"
#include "trtlens/error.h"
#include "trtlens/model.h"
#include "util/files.h"
#include "util/mapped_file.h"

namespace fs = std::filesystem;

namespace trtlens {
namespace {

constexpr size_t kMaxValueElements = 4096;

// ---------------------------------------------------------------- tensor values

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// One element of an 8- or 4-bit type (onnx.proto: FLOAT8E4M3FN, FLOAT8E5M2,
// FLOAT8E8M0, FLOAT4E2M1, INT4, UINT4), from its bits; nullopt for other types.
std::optional<double> lowbit_value(ElemType type, uint32_t b) {
  auto minifloat = [](uint32_t bits, int exp_bits, int mant_bits, int bias, bool ieee_inf) {
    double sign = (bits >> (exp_bits + mant_bits)) & 1 ? -1.0 : 1.0;
    int e = static_cast<int>((bits >> mant_bits) & ((1u << exp_bits) - 1));
    double m = static_cast<double>(bits & ((1u << mant_bits) - 1)) / (1u << mant_bits);
    if (ieee_inf && e == (1 << exp_bits) - 1) return m == 0 ? sign * HUGE_VAL : NAN;
    return sign * (e == 0 ? std::ldexp(m, 1 - bias) : std::ldexp(1 + m, e - bias));
  };
  switch (type) {
    case ElemType::FLOAT8E4M3FN: return (b & 0x7F) == 0x7F ? NAN : minifloat(b, 4, 3, 7, false);
    case ElemType::FLOAT8E5M2: return minifloat(b, 5, 2, 15, true);
    case ElemType::FLOAT8E8M0: return b == 0xFF ? NAN : std::ldexp(1.0, static_cast<int>(b) - 127);
    case ElemType::FLOAT4E2M1: return minifloat(b & 0xF, 2, 1, 1, false);
    case ElemType::INT4: return static_cast<double>(static_cast<int>(b & 0xF) - (b & 0x8 ? 16 : 0));
    case ElemType::UINT4: return static_cast<double>(b & 0xF);
    default: return std::nullopt;
  }
}

bool is_4bit(ElemType t) { return t == ElemType::INT4 || t == ElemType::UINT4 || t == ElemType::FLOAT4E2M1; }

// Values of an 8- or 4-bit tensor from its bytes (4-bit types: two per byte, low nibble first).
template <typename Byte>
std::optional<std::vector<double>> lowbit_values(ElemType type, const Byte* bytes, size_t n_bytes, size_t count) {
  bool packed = is_4bit(type);
  if (n_bytes != (packed ? (count + 1) / 2 : count)) return std::nullopt;
  std::vector<double> v;
  v.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t byte = static_cast<uint8_t>(bytes[packed ? i / 2 : i]);
    v.push_back(*lowbit_value(type, packed && i % 2 ? byte >> 4 : byte));
  }
  return v;
}

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Values of a small tensor whose payload is in the proto; nullopt otherwise.
std::optional<std::vector<double>> tensor_values(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  size_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) return std::nullopt;
    count *= static_cast<size_t>(d);
    if (count > kMaxValueElements) return std::nullopt;
  }
  std::vector<double> v;
  v.reserve(count);
  auto type = static_cast<ElemType>(t.data_type());
  if (lowbit_value(type, 0)) {
    if (!t.raw_data().empty()) return lowbit_values(type, t.raw_data().data(), t.raw_data().size(), count);
    return lowbit_values(type, t.int32_data().data(), static_cast<size_t>(t.int32_data().size()), count);
  }
  if (!t.raw_data().empty()) {
    const std::string& raw = t.raw_data();
    size_t width = 0;
    switch (type) {
      case ElemType::FLOAT: case ElemType::INT32: case ElemType::UINT32: width = 4; break;
      case ElemType::DOUBLE: case ElemType::INT64: case ElemType::UINT64: width = 8; break;
      case ElemType::FLOAT16: case ElemType::BFLOAT16: case ElemType::INT16: case ElemType::UINT16: width = 2; break;
      case ElemType::INT8: case ElemType::UINT8: case ElemType::BOOL: width = 1; break;
      default: return std::nullopt;
    }
    if (raw.size() != width * count) return std::nullopt;
    for (size_t i = 0; i < count; ++i) {
      const char* p = raw.data() + i * width;
      switch (type) {
        case ElemType::FLOAT: v.push_back(load_le<float>(p)); break;
        case ElemType::INT32: v.push_back(load_le<int32_t>(p)); break;
        case ElemType::UINT32: v.push_back(load_le<uint32_t>(p)); break;
        case ElemType::DOUBLE: v.push_back(load_le<double>(p)); break;
        case ElemType::INT64: v.push_back(static_cast<double>(load_le<int64_t>(p))); break;
        case ElemType::UINT64: v.push_back(static_cast<double>(load_le<uint64_t>(p))); break;
        case ElemType::FLOAT16: v.push_back(half_to_float(load_le<uint16_t>(p))); break;
        case ElemType::BFLOAT16: v.push_back(bf16_to_float(load_le<uint16_t>(p))); break;
        case ElemType::INT16: v.push_back(load_le<int16_t>(p)); break;
        case ElemType::UINT16: v.push_back(load_le<uint16_t>(p)); break;
        case ElemType::INT8: v.push_back(load_le<int8_t>(p)); break;
        default: v.push_back(load_le<uint8_t>(p)); break;
      }
    }
    return v;
  }
  // Typed fields (onnx.proto: which field holds which element type).
  switch (type) {
    case ElemType::FLOAT:
      for (float f : t.float_data()) v.push_back(f);
      break;
    case ElemType::DOUBLE:
      for (double d : t.double_data()) v.push_back(d);
      break;
    case ElemType::INT64:
      for (int64_t i : t.int64_data()) v.push_back(static_cast<double>(i));
      break;
    case ElemType::UINT32: case ElemType::UINT64:
      for (uint64_t i : t.uint64_data()) v.push_back(static_cast<double>(i));
      break;
    case ElemType::FLOAT16:
      for (int32_t i : t.int32_data()) v.push_back(half_to_float(static_cast<uint16_t>(i)));
      break;
    case ElemType::BFLOAT16:
      for (int32_t i : t.int32_data()) v.push_back(bf16_to_float(static_cast<uint16_t>(i)));
      break;
    case ElemType::INT32: case ElemType::INT16: case ElemType::INT8: case ElemType::UINT16:
    case ElemType::UINT8: case ElemType::BOOL:
      for (int32_t i : t.int32_data()) v.push_back(i);
      break;
    default:
      return std::nullopt;
  }
  if (v.size() != count) return std::nullopt;
  return v;
}

// ---------------------------------------------------------------- external data

class ExternalDataChecker {
 public:
  explicit ExternalDataChecker(const std::string& model_path) : path_(model_path) {
    fs::path p(model_path);
    dir_ = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    canonical_dir_ = fs::canonical(dir_, ec);
  }

  // Distinct locations, in first-reference order (Model::external_data_files).
  const std::vector<std::string>& files() const { return files_; }

  // Throws InputError when `t`'s external data cannot be found where it says;
  // records its location.
  void check(const onnx::TensorProto& t) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
    std::string location = external_entry(t, "location");
    // Payloads the wire reader left in the model file (it checked their bounds) or dropped.
    if (location == kEmbeddedLocation || location == kDroppedLocation) return;
    uint64_t offset = to_u64(external_entry(t, "offset"), t, "offset");
    uint64_t length = to_u64(external_entry(t, "length"), t, "length");
    std::string tensor = "tensor '" + t.name() + "'";
    if (location.empty()) throw InputError(path_, tensor + " says its data is external but names no location");
    fs::path loc(location);
    if (loc.is_absolute())
      throw InputError(path_, tensor + ": external data location '" + location +
                                  "' is an absolute path; locations must be relative to the model's folder");
    fs::path normal = loc.lexically_normal();
    if (!normal.empty() && *normal.begin() == "..")
      throw InputError(path_, tensor + ": external data location '" + location + "' escapes the model's folder");
    fs::path full = dir_ / normal;
    std::error_code ec;
    fs::path real = fs::weakly_canonical(full, ec);
    if (!ec && !canonical_dir_.empty()) {
      auto rel = real.lexically_relative(canonical_dir_);
      if (rel.empty() || *rel.begin() == "..")
        throw InputError(path_, tensor + ": external data location '" + location +
                                    "' escapes the model's folder (through a symbolic link)");
    }
    auto size = file_size(full, location, tensor);
    std::string relative = normal.generic_string();
    if (seen_.insert(relative).second) files_.push_back(relative);
    if (offset > size || (length > 0 && length > size - offset))
      throw InputError(path_, tensor + ": external data [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                  ") lies past the end of '" + location + "' (" + std::to_string(size) + " bytes)");
  }

 private:
  uint64_t to_u64(const std::string& s, const onnx::TensorProto& t, const char* key) const {
    if (s.empty()) return 0;
    try {
      size_t used = 0;
      uint64_t v = std::stoull(s, &used);
      if (used == s.size()) return v;
    } catch (const std::exception&) {
    }
    throw InputError(path_, "tensor '" + t.name() + "': external data " + key + " '" + s + "' is not a number");
  }
  uint64_t file_size(const fs::path& full, const std::string& location, const std::string& tensor) {
    auto it = sizes_.find(full.string());
    if (it != sizes_.end()) return it->second;
    std::error_code ec;
    if (!fs::is_regular_file(full, ec))
      throw InputError(path_, tensor + ": external data file '" + location + "' not found beside the model");
    uint64_t size = regular_file_size(full.string());  // notes it as an input: -o will not replace it
    sizes_[full.string()] = size;
    return size;
  }

  std::string path_;
  fs::path dir_, canonical_dir_;
  std::vector<std::string> files_;
  std::unordered_set<std::string> seen_;
  std::unordered_map<std::string, uint64_t> sizes_;
};

void check_external(const onnx::GraphProto& g, ExternalDataChecker& c);

void check_external_node(const onnx::NodeProto& n, ExternalDataChecker& c) {
  for (const auto& a : n.attribute()) {
    if (a.has_t()) c.check(a.t());
    for (const auto& t : a.tensors()) c.check(t);
    if (a.has_g()) check_external(a.g(), c);
    for (const auto& g : a.graphs()) check_external(g, c);
  }
}

void check_external(const onnx::GraphProto& g, ExternalDataChecker& c) {
  for (const auto& t : g.initializer()) c.check(t);
  for (const auto& s : g.sparse_initializer()) {
    c.check(s.values());
    c.check(s.indices());
  }
  for (const auto& n : g.node()) check_external_node(n, c);
}

// ---------------------------------------------------------------- conversion

void set_type(TensorInfo& info, const onnx::TypeProto& tp, const char* source) {
  const onnx::TypeProto* t = &tp;
  // Sequences and optionals: describe the element tensor.
  while (t->has_sequence_type() || t->has_optional_type())
    t = t->has_sequence_type() ? &t->sequence_type().elem_type() : &t->optional_type().elem_type();
  if (!t->has_tensor_type()) return;
  const auto& tt = t->tensor_type();
  if (tt.elem_type() != 0 && info.type == ElemType::UNDEFINED) {
    info.type = static_cast<ElemType>(tt.elem_type());
    info.type_source = source;
  }
  if (tt.has_shape() && info.rank < 0) {
    info.rank = tt.shape().dim_size();
    info.dims.clear();
    for (const auto& d : tt.shape().dim()) {
      Dim dim;
      if (d.has_dim_value()) dim.value = d.dim_value();
      if (d.has_dim_param()) dim.param = d.dim_param();
      info.dims.push_back(std::move(dim));
    }
  }
}

void fill_from_tensor(TensorInfo& info, const onnx::TensorProto& t) {
  info.type = static_cast<ElemType>(t.data_type());
  info.rank = t.dims_size();
  info.dims.clear();
  for (int64_t d : t.dims()) info.dims.push_back(Dim{d, {}});
  if (auto values = tensor_values(t)) info.values = std::make_unique<std::vector<double>>(std::move(*values));
  info.const_foldable = true;
}

Attribute convert_attribute(const onnx::AttributeProto& a) {
  Attribute out;
  out.name = a.name();
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: out.kind = Attribute::Kind::Int; out.i = a.i(); break;
    case A::FLOAT: out.kind = Attribute::Kind::Float; out.f = a.f(); break;
    case A::STRING: out.kind = Attribute::Kind::String; out.s = a.s(); break;
    case A::TENSOR: out.kind = Attribute::Kind::Tensor; break;
    case A::GRAPH: out.kind = Attribute::Kind::Graph; break;
    case A::INTS: out.kind = Attribute::Kind::Ints; out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case A::FLOATS: out.kind = Attribute::Kind::Floats; out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case A::STRINGS: out.kind = Attribute::Kind::Strings; out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case A::TENSORS: out.kind = Attribute::Kind::Tensors; break;
    case A::GRAPHS: out.kind = Attribute::Kind::Graphs; break;
    case A::UNDEFINED: out.kind = Attribute::Kind::Undefined; break;
    default: out.kind = Attribute::Kind::Other; break;
  }
  if (a.has_t()) {
    out.tensor_type = static_cast<ElemType>(a.t().data_type());
    out.tensor_dims.assign(a.t().dims().begin(), a.t().dims().end());
    out.tensor_values = tensor_values(a.t());
  }
  return out;
}

// Names that carried a type before shape inference ran, per graph proto.
using PreTyped = std::unordered_map<const onnx::GraphProto*, std::unordered_set<std::string>>;

void collect_pretyped(const onnx::GraphProto& g, PreTyped& out) {
  auto& names = out[&g];
  for (const auto& vi : g.value_info()) names.insert(vi.name());
  for (const auto& vi : g.output()) names.insert(vi.name());
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_pretyped(a.g(), out);
      for (const auto& sg : a.graphs()) collect_pretyped(sg, out);
    }
}

// Our Model from a parsed ModelProto. `pretyped` null: shape inference did not
// run, so every value_info is the file's own. With `split`, the main graph's
// nodes come from split->nodes, parsed one at a time (their external data
// checked by `external` as they pass).
class Converter {
 public:
  Converter(Model& m, const PreTyped* pretyped, const SplitModel* split = nullptr,
            ExternalDataChecker* external = nullptr)
      : m_(m), pretyped_(pretyped), split_(split), external_(external) {}

  int graph(const onnx::GraphProto& gp, std::string path, int parent, int parent_node) {
    int gi = static_cast<int>(m_.graphs.size());
    m_.graphs.emplace_back();
    {
      Graph& g = m_.graphs.back();
      g.path = std::move(path);
      g.parent = parent;
      g.parent_node = parent_node;
      size_t node_count = parent < 0 && split_ ? split_->node_ends.size() : static_cast<size_t>(gp.node_size());
      // About one new tensor per node (its output), plus initializers and inputs.
      g.reserve_names(node_count + static_cast<size_t>(gp.initializer_size()) + static_cast<size_t>(gp.input_size()));
      for (const auto& t : gp.initializer()) {
        TensorInfo& info = tensor(g, t.name());
        fill_from_tensor(info, t);
        info.origin = TensorOrigin::Initializer;
        info.type_source = "initializer";
      }
      for (const auto& s : gp.sparse_initializer()) {
        TensorInfo& info = tensor(g, s.values().name());
        info.type = static_cast<ElemType>(s.values().data_type());
        info.rank = s.dims_size();
        for (int64_t d : s.dims()) info.dims.push_back(Dim{d, {}});
        info.origin = TensorOrigin::Initializer;
        info.const_foldable = true;
        info.type_source = "initializer";
      }
      for (const auto& vi : gp.input()) {
        g.inputs.push_back(vi.name());
        TensorInfo& info = tensor(g, vi.name());
        if (info.origin == TensorOrigin::Unknown) {
          info.origin = TensorOrigin::GraphInput;
          set_type(info, vi.type(), "graph-input");
        }
      }
      const std::unordered_set<std::string>* declared_names = nullptr;
      if (pretyped_)
        if (auto it = pretyped_->find(&gp); it != pretyped_->end()) declared_names = &it->second;
      for (const auto& vi : gp.value_info()) {
        bool declared = !pretyped_ || (declared_names && declared_names->count(vi.name()));
        set_type(tensor(g, vi.name()), vi.type(), declared ? "value_info" : "onnx-shape-inference");
      }
      for (const auto& vi : gp.output()) {
        g.outputs.push_back(vi.name());
        set_type(tensor(g, vi.name()), vi.type(), "value_info");
      }
    }
    if (parent < 0 && split_) split_nodes(gi);
    else nodes(gi, gp.node());
    return gi;
  }

  int function(const onnx::FunctionProto& fp) {
    int gi = static_cast<int>(m_.graphs.size());
    m_.graphs.emplace_back();
    Graph& g = m_.graphs.back();
    g.path = "fn:" + fp.name();
    for (const auto& name : fp.input()) {
      g.inputs.push_back(name);
      tensor(g, name).origin = TensorOrigin::GraphInput;
    }
    for (const auto& name : fp.output()) g.outputs.push_back(name);
    nodes(gi, fp.node());
    return gi;
  }

 private:
  static TensorInfo& tensor(Graph& g, const std::string& name) { return g.tensors[static_cast<size_t>(g.intern(name))]; }

  void nodes(int gi, const google::protobuf::RepeatedPtrField<onnx::NodeProto>& protos) {
    m_.graphs[static_cast<size_t>(gi)].nodes.reserve(static_cast<size_t>(protos.size()));
    int index = 0;
    for (const auto& np : protos) node(gi, np, index++);
  }

  // The main graph's nodes from their stripped bytes, one NodeProto at a time
  // (the message is reused: protobuf keeps its allocations between parses).
  void split_nodes(int gi) {
    m_.graphs[static_cast<size_t>(gi)].nodes.reserve(split_->node_ends.size());
    onnx::NodeProto np;
    size_t begin = 0;
    int index = 0;
    for (size_t end : split_->node_ends) {
      if (!np.ParseFromArray(split_->nodes.data() + begin, static_cast<int>(end - begin)))
        throw InputError(m_.path, "not an ONNX model: node " + std::to_string(index) + " does not parse as an onnx.NodeProto");
      begin = end;
      if (external_) check_external_node(np, *external_);
      node(gi, np, index++);
    }
  }

  void node(int gi, const onnx::NodeProto& np, int index) {
    Node n;
    n.index = index;
    n.name = np.name();
    n.op_type = np.op_type();
    n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    n.attributes.reserve(static_cast<size_t>(np.attribute_size()));
    for (const auto& ap : np.attribute()) {
      Attribute a = convert_attribute(ap);
      if (ap.has_g() || ap.graphs_size() > 0) {
        const std::string& parent_path = m_.graphs[static_cast<size_t>(gi)].path;
        std::string owner = n.name.empty() ? n.op_type + "_" + std::to_string(n.index) : n.name;
        std::string base = (parent_path.empty() ? "" : parent_path + "/") + owner + "/" + ap.name();
        if (ap.has_g()) a.graphs.push_back(graph(ap.g(), base, gi, n.index));
        for (int k = 0; k < ap.graphs_size(); ++k)
          a.graphs.push_back(graph(ap.graphs(k), base + "[" + std::to_string(k) + "]", gi, n.index));
      }
      n.attributes.push_back(std::move(a));
    }
    Graph& g = m_.graphs[static_cast<size_t>(gi)];
    bool is_constant = n.op_type == "Constant" && n.domain.empty();
    // Input ids are index_graphs' (a name may be produced further on); outputs are known now.
    n.ids_at = static_cast<uint32_t>(g.node_ids.size());
    g.node_ids.resize(g.node_ids.size() + n.inputs.size(), kNoTensor);
    for (const auto& out : n.outputs) {
      TensorId id = out.empty() ? kNoTensor : g.intern(out);
      g.node_ids.push_back(id);
      if (id != kNoTensor)
        g.tensors[static_cast<size_t>(id)].origin = is_constant ? TensorOrigin::ConstantNode : TensorOrigin::Computed;
    }
    g.nodes.push_back(std::move(n));
  }

  Model& m_;
  const PreTyped* pretyped_;
  const SplitModel* split_;
  ExternalDataChecker* external_;
};

}  // namespace

// libonnx 1.12's shape inference dereferences before it checks (fuzz findings
// F01, F16). A Scan, Loop or If without its graph attributes is not a valid
// model: InputError naming the node. A convolution or pooling node whose data
// and weight ranks cannot be a valid pair makes this return false: the model
// is then typed by our own propagation only. Walks every graph iteratively.
bool safe_for_shape_inference(const onnx::ModelProto& proto, const std::string& path) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kGraphAttrs = {
      {"Scan", {"body"}}, {"Loop", {"body"}}, {"If", {"then_branch", "else_branch"}}};
  static const std::set<std::string, std::less<>> kConvPool = {
      "Conv", "ConvInteger", "ConvTranspose", "QLinearConv", "MaxPool", "AveragePool", "LpPool", "MaxUnpool",
      "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "DeformConv"};
  std::vector<const onnx::GraphProto*> todo = {&proto.graph()};
  auto node_ok = [&](const onnx::NodeProto& n, const std::map<std::string_view, int>& ranks) {
    if (!n.domain().empty() && n.domain() != "ai.onnx") return true;
    if (auto it = kGraphAttrs.find(n.op_type()); it != kGraphAttrs.end())
      for (const auto& name : it->second)
        if (std::none_of(n.attribute().begin(), n.attribute().end(),
                         [&](const onnx::AttributeProto& a) { return a.name() == name && a.has_g(); }))
          throw InputError(path, fmt::format("{} {} node has no '{}' graph attribute, which {} requires",
                                             n.name().empty() ? "an unnamed" : "the '" + n.name() + "'",
                                             n.op_type(), name, n.op_type()));
    if (kConvPool.count(n.op_type())) {
      auto rank = [&](int i) {
        if (i >= n.input_size()) return -1;
        auto it = ranks.find(n.input(i));
        return it == ranks.end() ? -1 : it->second;
      };
      int x = rank(0), w = rank(n.op_type() == "QLinearConv" ? 3 : 1);
      bool has_weights = n.op_type().find("Pool") == std::string::npos;
      if ((x >= 0 && x < 3) || (has_weights && x >= 0 && w >= 0 && x != w)) return false;
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) todo.push_back(&a.g());
      for (const auto& g : a.graphs()) todo.push_back(&g);
    }
    return true;
  };
  while (!todo.empty()) {
    const onnx::GraphProto* g = todo.back();
    todo.pop_back();
    std::map<std::string_view, int> ranks;  // declared ranks of this graph's tensors
    for (const auto& vi : g->input())
      if (vi.type().tensor_type().has_shape()) ranks[vi.name()] = vi.type().tensor_type().shape().dim_size();
    for (const auto& vi : g->value_info())
      if (vi.type().tensor_type().has_shape()) ranks[vi.name()] = vi.type().tensor_type().shape().dim_size();
    for (const auto& t : g->initializer()) ranks[t.name()] = t.dims_size();
    for (const auto& n : g->node())
      if (!node_ok(n, ranks)) return false;
  }
  for (const auto& f : proto.functions())
    for (const auto& n : f.node())
      if (!node_ok(n, {})) return false;
  return true;
}

namespace {

std::string wire_problem(const std::string& what, uint64_t file_size) {
  if (what.rfind("messages nested", 0) == 0)
    return "refused: " + what + " (the limit keeps every walk bounded; real models nest far less)";
  if (what.rfind("truncated", 0) == 0)
    return "truncated or corrupt ONNX file: a protobuf field runs past the end of the file (" + what + " of " +
           std::to_string(file_size) + ")";
  return "not an ONNX model: the protobuf wire format is broken (" + what + ")";
}

// True when every tensor of every graph has a type and a shape whose dimensions
// are fixed or named: nothing ONNX shape inference could add.
bool fully_shaped(const Model& m) {
  for (const Graph& g : m.graphs)
    for (const TensorInfo& t : g.tensors) {
      if (t.origin == TensorOrigin::OuterScope) continue;  // facts live in the enclosing graph
      if (t.type == ElemType::UNDEFINED || t.rank < 0 || t.dims.size() != static_cast<size_t>(t.rank)) return false;
      for (const Dim& d : t.dims)
        if (!d.fixed() && d.param.empty()) return false;
    }
  return true;
}

}  // namespace

Model load_model(const std::string& path) { return load_model(path, {}); }

Model load_model(const std::string& path, const std::vector<InputShape>& shapes) {
  MappedFile file(path);
  if (file.size() == 0) throw InputError(path, "empty file, not an ONNX model");
  auto check_header = [&](const onnx::ModelProto& proto) {
    if (!proto.has_graph()) throw InputError(path, "not an ONNX model: it has no graph");
    if (proto.ir_version() <= 0) throw InputError(path, "not an ONNX model: ir_version is missing");
  };
  auto convert = [&](const onnx::ModelProto& proto, const PreTyped* pretyped, const SplitModel* split,
                     ExternalDataChecker& external) {
    Model m;
    m.path = path;
    m.ir_version = proto.ir_version();
    m.producer_name = proto.producer_name();
    m.producer_version = proto.producer_version();
    for (const auto& o : proto.opset_import())
      m.opsets.push_back({o.domain() == "ai.onnx" ? "" : o.domain(), o.version()});
    Converter conv(m, pretyped, split, &external);
    conv.graph(proto.graph(), "", -1, -1);
    for (const auto& f : proto.functions()) {
      if (split)  // in the whole-proto pass these were checked before conversion
        for (const auto& n : f.node()) check_external_node(n, external);
      m.functions.push_back({f.name(), f.domain(), conv.function(f)});
    }
    m.external_data_files = external.files();
    m.input_shapes = shapes;
    check_structure_and_propagate(m);  // throws InputError for cycles and unproduced inputs
    return m;
  };

  // Pass 1: the main graph's nodes parsed one at a time, typed by our own
  // propagation alone. When that leaves every tensor typed and shaped, ONNX shape
  // inference has nothing to add, and neither a whole-graph proto (most of the
  // memory of loading a big graph) nor inference (most of its time) is needed.
  Model m;
  {
    SplitModel split;
    try {
      split = strip_payloads_split(file.view());
    } catch (const std::runtime_error& e) {
      throw InputError(path, wire_problem(e.what(), file.size()));
    }
    file.drop_pages();  // everything needed is in `split` now
    onnx::ModelProto proto;
    if (!proto.ParseFromString(split.model))
      throw InputError(path, "not an ONNX model: the bytes do not parse as an onnx.ModelProto");
    split.model.clear();
    split.model.shrink_to_fit();
    check_header(proto);
    apply_input_shapes(*proto.mutable_graph(), shapes);  // before any inference: ours and ONNX's follow them
    ExternalDataChecker external(path);
    check_external(proto.graph(), external);  // initializers here; nodes as they are converted
    m = convert(proto, nullptr, &split, external);
  }
  if (fully_shaped(m)) return m;

  // Pass 2: the whole proto, given to ONNX shape inference; its facts come first
  // and ours fill what it leaves. Shape inference is a help, not a requirement:
  // libonnx 1.12 crashes on some malformed nodes instead of reporting them, so a
  // model with such a node is not given to it at all.
  std::string stripped = strip_payloads(file.view());  // pass 1 walked it: it does not throw
  // An arena makes the many small allocations of a 100k-node proto cheap to make and free.
  google::protobuf::Arena arena;
  onnx::ModelProto& proto = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  if (!proto.ParseFromString(stripped))
    throw InputError(path, "not an ONNX model: the bytes do not parse as an onnx.ModelProto");
  stripped.clear();
  stripped.shrink_to_fit();
  apply_input_shapes(*proto.mutable_graph(), shapes);
  if (!safe_for_shape_inference(proto, path)) return m;
  ExternalDataChecker external(path);
  check_external(proto.graph(), external);
  for (const auto& f : proto.functions())
    for (const auto& n : f.node()) check_external_node(n, external);
  PreTyped pretyped;
  collect_pretyped(proto.graph(), pretyped);
  try {
    // Node-level failures are skipped (error_mode 0); merge conflicts throw.
    onnx::shape_inference::InferShapes(proto);
  } catch (const std::exception&) {
  }
  m = Model{};  // the first conversion's memory is free before the second
  return convert(proto, &pretyped, nullptr, external);
}

}  // namespace trtlens
