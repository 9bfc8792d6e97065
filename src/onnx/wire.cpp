#include "onnx/wire.h"

#include <onnx/onnx_pb.h>

#include "util/limits.h"

#include <stdexcept>
#include <vector>

namespace trtlens {
namespace {

// The ONNX messages whose fields we descend into; everything else is copied whole.
enum class Msg { Model, Graph, Node, Attribute, Function, Tensor, SparseTensor, Other };

// Field numbers from onnx.proto (IR version 10).
Msg submessage(Msg m, uint32_t field) {
  switch (m) {
    case Msg::Model:
      if (field == 7) return Msg::Graph;
      if (field == 25) return Msg::Function;
      break;
    case Msg::Graph:
      if (field == 1) return Msg::Node;
      if (field == 5) return Msg::Tensor;
      if (field == 15) return Msg::SparseTensor;
      break;
    case Msg::Node:
      if (field == 5) return Msg::Attribute;
      break;
    case Msg::Attribute:
      if (field == 5 || field == 10) return Msg::Tensor;
      if (field == 6 || field == 11) return Msg::Graph;
      if (field == 22 || field == 23) return Msg::SparseTensor;
      break;
    case Msg::Function:
      if (field == 7) return Msg::Node;
      break;
    case Msg::SparseTensor:
      if (field == 1 || field == 2) return Msg::Tensor;
      break;
    default:
      break;
  }
  return Msg::Other;
}

// TensorProto payload fields: float_data 4, int32_data 5, string_data 6,
// int64_data 7, raw_data 9, double_data 10, uint64_data 11.
bool is_payload(uint32_t field) { return (field >= 4 && field <= 7) || (field >= 9 && field <= 11); }

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_bytes_field(std::string& out, uint32_t field, std::string_view bytes) {
  put_varint(out, (uint64_t{field} << 3) | 2);
  put_varint(out, bytes.size());
  out.append(bytes);
}

class Stripper {
 public:
  // With `split`, the main graph's nodes go to split->nodes instead of the model.
  Stripper(std::string_view file, SplitModel* split)
      : base_(reinterpret_cast<const uint8_t*>(file.data())), split_(split) {}

  // `depth` counts the messages enclosing this one; past kMaxNestingDepth the
  // file is refused, so neither this walk nor protobuf's parser recurses without bound.
  void message(Msg kind, const uint8_t* p, const uint8_t* end, std::string& out, int depth = 1) {
    if (depth > kMaxNestingDepth)
      fail(("messages nested deeper than " + std::to_string(kMaxNestingDepth) + " levels").c_str(), p);
    uint64_t embedded_offset = 0, embedded_length = 0;
    bool embedded = false, dropped = false;
    while (p < end) {
      const uint8_t* field_start = p;
      uint64_t tag = varint(p, end);
      uint32_t field = static_cast<uint32_t>(tag >> 3);
      switch (tag & 7) {
        case 0:
          varint(p, end);
          break;
        case 1:
          advance(p, end, 8);
          break;
        case 5:
          advance(p, end, 4);
          break;
        case 2: {
          uint64_t len = varint(p, end);
          const uint8_t* body = p;
          advance(p, end, len);
          if (kind == Msg::Tensor && is_payload(field) && len > kInlinePayloadLimit) {
            if (field == 9) {
              embedded = true;
              embedded_offset = static_cast<uint64_t>(body - base_);
              embedded_length = len;
            } else {
              dropped = true;
            }
            continue;  // payload not copied
          }
          Msg sub = submessage(kind, field);
          if (sub == Msg::Node && kind == Msg::Graph && split_ && depth == 2) {  // a node of the main graph (Model > Graph > Node)
            message(sub, body, p, split_->nodes, depth + 1);
            split_->node_ends.push_back(split_->nodes.size());
            continue;
          }
          if (sub != Msg::Other) {
            std::string inner;
            message(sub, body, p, inner, depth + 1);
            put_bytes_field(out, field, inner);
            continue;
          }
          break;
        }
        default:
          fail("invalid wire type", field_start);
      }
      out.append(reinterpret_cast<const char*>(field_start), static_cast<size_t>(p - field_start));
    }
    if (embedded || dropped) {
      // external_data (13) entries {key 1, value 2}, then data_location (14) = EXTERNAL.
      auto entry = [&](std::string_view key, std::string_view value) {
        std::string kv;
        put_bytes_field(kv, 1, key);
        put_bytes_field(kv, 2, value);
        put_bytes_field(out, 13, kv);
      };
      entry("location", embedded ? kEmbeddedLocation : kDroppedLocation);
      if (embedded) {
        entry("offset", std::to_string(embedded_offset));
        entry("length", std::to_string(embedded_length));
      }
      put_varint(out, (14u << 3) | 0);
      put_varint(out, 1);
    }
  }

 private:
  [[noreturn]] void fail(const char* what, const uint8_t* at) const {
    throw std::runtime_error(std::string(what) + " at byte " + std::to_string(at - base_));
  }
  uint64_t varint(const uint8_t*& p, const uint8_t* end) const {
    uint64_t v = 0;
    const uint8_t* start = p;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) fail("truncated field", start);
      uint8_t b = *p++;
      v |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return v;
    }
    fail("malformed varint", start);
  }
  void advance(const uint8_t*& p, const uint8_t* end, uint64_t n) const {
    if (n > static_cast<uint64_t>(end - p)) fail("truncated field", p);
    p += n;
  }

  const uint8_t* base_;
  SplitModel* split_;
};

}  // namespace

std::string strip_payloads(std::string_view file) {
  std::string out;
  Stripper s(file, nullptr);
  auto* p = reinterpret_cast<const uint8_t*>(file.data());
  s.message(Msg::Model, p, p + file.size(), out);
  return out;
}

SplitModel strip_payloads_split(std::string_view file) {
  SplitModel out;
  Stripper s(file, &out);
  auto* p = reinterpret_cast<const uint8_t*>(file.data());
  s.message(Msg::Model, p, p + file.size(), out.model);
  return out;
}

std::string external_entry(const onnx::TensorProto& t, const char* key) {
  for (const auto& kv : t.external_data())
    if (kv.key() == key) return kv.value();
  return {};
}

}  // namespace trtlens
