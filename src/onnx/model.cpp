// Small helpers of the Model types (include/trtlens/model.h).
#include <algorithm>

#include "trtlens/model.h"

namespace trtlens {

std::string_view elem_type_name(ElemType t) {
  switch (t) {
    case ElemType::FLOAT: return "FLOAT";
    case ElemType::UINT8: return "UINT8";
    case ElemType::INT8: return "INT8";
    case ElemType::UINT16: return "UINT16";
    case ElemType::INT16: return "INT16";
    case ElemType::INT32: return "INT32";
    case ElemType::INT64: return "INT64";
    case ElemType::STRING: return "STRING";
    case ElemType::BOOL: return "BOOL";
    case ElemType::FLOAT16: return "FLOAT16";
    case ElemType::DOUBLE: return "DOUBLE";
    case ElemType::UINT32: return "UINT32";
    case ElemType::UINT64: return "UINT64";
    case ElemType::COMPLEX64: return "COMPLEX64";
    case ElemType::COMPLEX128: return "COMPLEX128";
    case ElemType::BFLOAT16: return "BFLOAT16";
    case ElemType::FLOAT8E4M3FN: return "FLOAT8E4M3FN";
    case ElemType::FLOAT8E4M3FNUZ: return "FLOAT8E4M3FNUZ";
    case ElemType::FLOAT8E5M2: return "FLOAT8E5M2";
    case ElemType::FLOAT8E5M2FNUZ: return "FLOAT8E5M2FNUZ";
    case ElemType::UINT4: return "UINT4";
    case ElemType::INT4: return "INT4";
    case ElemType::FLOAT4E2M1: return "FLOAT4E2M1";
    case ElemType::FLOAT8E8M0: return "FLOAT8E8M0";
    case ElemType::UNDEFINED: break;
  }
  return "UNDEFINED";
}

std::string_view elem_type_trt_name(ElemType t) {
  // The support tables' normalized names (shared/trt-support README, "Data types").
  switch (t) {
    case ElemType::DOUBLE: return "DOUBLE";
    case ElemType::FLOAT: return "FP32";
    case ElemType::FLOAT16: return "FP16";
    case ElemType::BFLOAT16: return "BF16";
    case ElemType::FLOAT8E4M3FN: return "FP8";
    case ElemType::FLOAT4E2M1: return "FP4";
    case ElemType::FLOAT8E8M0: return "E8M0";
    case ElemType::INT4: return "INT4";
    case ElemType::INT8: return "INT8";
    case ElemType::UINT8: return "UINT8";
    case ElemType::INT32: return "INT32";
    case ElemType::INT64: return "INT64";
    case ElemType::BOOL: return "BOOL";
    default: return elem_type_name(t);
  }
}

bool is_float(ElemType t) {
  switch (t) {
    case ElemType::FLOAT: case ElemType::FLOAT16: case ElemType::DOUBLE: case ElemType::BFLOAT16:
    case ElemType::FLOAT8E4M3FN: case ElemType::FLOAT8E4M3FNUZ: case ElemType::FLOAT8E5M2:
    case ElemType::FLOAT8E5M2FNUZ: case ElemType::FLOAT4E2M1: case ElemType::FLOAT8E8M0:
      return true;
    default:
      return false;
  }
}

const Attribute* Node::attribute(std::string_view attr_name) const {
  for (const auto& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

TensorId Graph::id(std::string_view tensor_name) const {
  auto it = ids_.find(tensor_name);
  return it == ids_.end() ? kNoTensor : it->second;
}

TensorId Graph::intern(std::string_view tensor_name) {
  // Added first, taken back when the name is known: one walk of the table either way
  // (the key must view the stored name, which exists only once added).
  TensorInfo& t = tensors.emplace_back();
  t.name = tensor_name;
  auto [it, added] = ids_.try_emplace(t.name, static_cast<TensorId>(tensors.size() - 1));
  if (!added) tensors.pop_back();
  return it->second;
}

const TensorInfo* Graph::local(std::string_view tensor_name) const {
  TensorId t = id(tensor_name);
  return t == kNoTensor ? nullptr : &tensors[static_cast<size_t>(t)];
}

TensorInfo* Graph::local(std::string_view tensor_name) {
  TensorId t = id(tensor_name);
  return t == kNoTensor ? nullptr : &tensors[static_cast<size_t>(t)];
}

const TensorInfo* Graph::find(std::string_view tensor_name, const std::vector<Graph>& all) const {
  for (const Graph* g = this;;) {
    const TensorInfo* t = g->local(tensor_name);
    if (t && t->origin != TensorOrigin::OuterScope) return t;
    if (g->parent < 0) return t;
    g = &all[static_cast<size_t>(g->parent)];
  }
}

std::span<const int> Graph::consumers(TensorId t) const {
  if (t < 0 || static_cast<size_t>(t) + 1 >= index.consumer_start.size()) return {};
  auto from = static_cast<size_t>(index.consumer_start[static_cast<size_t>(t)]);
  auto to = static_cast<size_t>(index.consumer_start[static_cast<size_t>(t) + 1]);
  return std::span<const int>(index.consumer_nodes).subspan(from, to - from);
}

std::string node_label(const Node& n) { return n.name.empty() ? "#" + std::to_string(n.index) : n.name; }

int64_t Model::default_opset() const {
  for (const auto& o : opsets)
    if (o.domain.empty() || o.domain == "ai.onnx") return o.version;
  return 0;
}

size_t Model::node_count() const {
  size_t n = 0;
  for (const auto& g : graphs) n += g.nodes.size();
  return n;
}

bool Model::is_local_function(std::string_view domain, std::string_view op_type) const {
  return std::any_of(functions.begin(), functions.end(),
                     [&](const LocalFunction& f) { return f.name == op_type && f.domain == domain; });
}

}  // namespace trtlens
