// Builds small ONNX models in tests (onnx::ModelProto through libonnx's protobuf).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace trtlens::test {

// ONNX element type numbers used in tests.
enum : int { kFloat = 1, kUint8 = 2, kInt8 = 3, kInt32 = 6, kInt64 = 7, kBool = 9, kFloat16 = 10, kDouble = 11, kBfloat16 = 16 };

class GraphBuilder {
 public:
  explicit GraphBuilder(onnx::GraphProto* g) : g_(g) {}
  // A graph input of element type `type` and shape `dims` (-1 = symbolic "N").
  GraphBuilder& input(const std::string& name, int type, std::vector<int64_t> dims);
  GraphBuilder& output(const std::string& name, int type, std::vector<int64_t> dims);
  // An untyped output (its type is left to inference).
  GraphBuilder& output(const std::string& name);
  // An initializer with float or int64 values (raw_data), or `payload_bytes`
  // of zero bytes of raw data (for size tests).
  GraphBuilder& init_float(const std::string& name, std::vector<int64_t> dims, std::vector<float> values);
  GraphBuilder& init_int64(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values);
  // An FLOAT16 initializer of shape `dims`, every element 0.1 (raw_data): the weights of an FP16 model.
  GraphBuilder& init_half(const std::string& name, std::vector<int64_t> dims);
  GraphBuilder& init_external(const std::string& name, std::vector<int64_t> dims, const std::string& location,
                              int64_t offset, int64_t length);
  // Adds a node; returns it for attributes.
  onnx::NodeProto& node(const std::string& op_type, std::vector<std::string> inputs, std::vector<std::string> outputs,
                        const std::string& name = "", const std::string& domain = "");
  onnx::GraphProto* proto() { return g_; }

 private:
  onnx::GraphProto* g_;
};

// Attribute setters on a node.
void attr_int(onnx::NodeProto& n, const std::string& name, int64_t v);
void attr_ints(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v);
void attr_float(onnx::NodeProto& n, const std::string& name, float v);
void attr_string(onnx::NodeProto& n, const std::string& name, const std::string& v);
// A tensor attribute (Constant.value) with int64 values.
void attr_tensor_int64(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> v);
// A graph attribute (If branches, Loop body); returns a builder for it.
GraphBuilder attr_graph(onnx::NodeProto& n, const std::string& name, const std::string& graph_name);

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13);
  ~ModelBuilder();
  GraphBuilder graph();
  ModelBuilder& opset(const std::string& domain, int64_t version);
  // A local function `name` in `domain` with inputs/outputs; returns a builder for its nodes
  // (GraphBuilder::node only).
  onnx::NodeProto& function_node(const std::string& function, const std::string& domain, const std::string& op_type,
                                 std::vector<std::string> inputs, std::vector<std::string> outputs);
  void add_function(const std::string& name, const std::string& domain, std::vector<std::string> inputs,
                    std::vector<std::string> outputs);
  // Serialized ModelProto.
  std::string bytes() const;
  // Writes the model to `path`; returns path.
  std::string save(const std::string& path) const;

 private:
  std::unique_ptr<onnx::ModelProto> m_;
};

// Saves in `dir` a model whose weights are external data: model.onnx (MatMul
// then Add) with "weights/w.bin" (16 floats, 64 bytes) and "b.bin" (4 floats,
// 16 bytes), each holding distinct bytes. Returns the model's path.
std::string save_external_data_model(const std::string& dir);

// Saves dir/fp8.onnx (opset 19): x -> Q/DQ (FP8 E4M3) -> Conv "conv" (weights through FP8 Q/DQ) -> y:
// a Conv inside an FP8 Q/DQ region, which runs at FP8. Returns the model's path.
std::string save_fp8_qdq_conv_model(const std::string& dir);

// Saves dir/m.onnx (opset 13): x [1,3,8,8] -> Conv "conv" (3x3, pads 1, 4 channels) -> Relu "relu" -> y [1,4,8,8]:
// two static-shape nodes every release imports, the smallest model a target or DLA placement reads.
// Returns the model's path.
std::string save_conv_relu_model(const std::string& dir);

}  // namespace trtlens::test
