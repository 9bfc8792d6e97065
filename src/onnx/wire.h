// Reads an ONNX file's protobuf wire format without copying tensor payloads.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class TensorProto;
class ModelProto;
}

namespace trtlens {

// external_data location that marks a payload left in the model file itself
// (offset/length entries point into the .onnx file).
inline constexpr std::string_view kEmbeddedLocation = "\x01trtlens:embedded";
// external_data location that marks a typed payload (float_data, int64_data, ...)
// that was dropped: its values are not available.
inline constexpr std::string_view kDroppedLocation = "\x01trtlens:dropped";

// False when libonnx's shape inference would crash on `proto` (loader.cpp); throws
// InputError(path, ...) for a control-flow node without its graph attribute.
bool safe_for_shape_inference(const onnx::ModelProto& proto, const std::string& path);

// The value of a tensor's external_data entry `key` ("location", "offset", ...); "" when absent.
std::string external_entry(const onnx::TensorProto& t, const char* key);

// Tensor payloads larger than this (bytes) are not copied.
inline constexpr uint64_t kInlinePayloadLimit = 16 * 1024;

// Re-serializes the ModelProto in `file` (the whole .onnx, usually
// memory-mapped) with every tensor payload above kInlinePayloadLimit replaced
// by an external_data reference (kEmbeddedLocation / kDroppedLocation). The
// skipped bytes are never read, so the result's size and the pages touched do
// not grow with weight size, and files past protobuf's 2 GB parse limit work.
// Throws std::runtime_error("<what is broken> at byte N") for malformed or
// truncated wire format.
std::string strip_payloads(std::string_view file);

// strip_payloads with the main graph's nodes set apart: `model` is the stripped
// ModelProto without them, `nodes` their stripped NodeProto bytes one after
// another, `node_ends` where each ends in `nodes`. A loader then parses one
// NodeProto at a time instead of a whole million-node proto at once.
// Throws as strip_payloads does.
struct SplitModel {
  std::string model, nodes;
  std::vector<size_t> node_ends;
};
SplitModel strip_payloads_split(std::string_view file);

}  // namespace trtlens
