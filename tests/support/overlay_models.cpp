#include "support/overlay_models.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <tuple>
#include <vector>

#include "support/onnx_builder.h"

namespace trtlens::test {

namespace {

std::vector<float> ones(size_t n) { return std::vector<float>(n, 0.01f); }

onnx::NodeProto& conv(GraphBuilder& g, const std::string& name, const std::string& in, const std::string& out,
                      int64_t c, int64_t k, int64_t stride) {
  std::string w = name + ".weight";
  g.init_float(w, {c, c, k, k}, ones(static_cast<size_t>(c * c * k * k)));
  auto& n = g.node("Conv", {in, w}, {out}, name);
  attr_ints(n, "kernel_shape", {k, k});
  int64_t p = k / 2;
  attr_ints(n, "pads", {p, p, p, p});
  attr_ints(n, "strides", {stride, stride});
  return n;
}

}  // namespace

std::string save_overlay_fixture_model(const std::string& path) {
  ModelBuilder m(13);
  m.opset("custom.ops", 1);
  GraphBuilder g = m.graph();
  g.input("input", kFloat, {1, 4, 8, 8});
  conv(g, "Conv_0", "input", "c0", 4, 3, 1);
  g.node("Relu", {"c0"}, {"r1"}, "Relu_1");
  attr_tensor_int64(g.node("Constant", {}, {"shape"}, "Constant_2"), "value", {3}, {1, 4, 64});
  conv(g, "Conv_3", "r1", "c3", 4, 3, 1);
  g.node("Add", {"c3", "r1"}, {"a4"}, "Add_4");
  g.node("Relu", {"a4"}, {"r5"}, "Relu_5");
  g.node("Identity", {"r5"}, {"i6"}, "Identity_6");
  g.node("Reshape", {"i6", "shape"}, {"flat"}, "Reshape_7");
  g.init_float("wq", {64, 64}, ones(64 * 64));
  g.init_float("wv", {64, 16}, ones(64 * 16));
  g.node("MatMul", {"flat", "wq"}, {"q"}, "/attn/MatMul");
  attr_int(g.node("Softmax", {"q"}, {"s"}, "/attn/Softmax"), "axis", -1);
  g.node("MatMul", {"s", "wv"}, {"v"}, "/attn/MatMul_1");
  g.node("Sigmoid", {"v"}, {"probs"});  // unnamed: TensorRT calls it node_of_probs
  g.node("MyPlugin", {"probs"}, {"output"}, "MyPlugin_12", "custom.ops");
  g.output("output", kFloat, {1, 4, 16});
  return m.save(path);
}

std::string save_v8_tiny_model(const std::string& path) {
  ModelBuilder m(13);
  GraphBuilder g = m.graph();
  g.input("input", kFloat, {1, 3, 8, 8});
  g.init_float("w1", {16, 3, 3, 3}, ones(16 * 27));
  g.init_float("w2", {20, 16, 3, 3}, ones(20 * 16 * 9));
  for (auto [name, in, w, out] : {std::tuple{"conv1", "input", "w1", "t0"}, std::tuple{"conv2", "t1", "w2", "t2"}}) {
    auto& n = g.node("Conv", {in, w}, {out}, name);
    attr_ints(n, "kernel_shape", {3, 3});
    attr_ints(n, "pads", {1, 1, 1, 1});
    if (std::string(name) == "conv1") g.node("Relu", {"t0"}, {"t1"}, "relu1");
  }
  g.node("GlobalAveragePool", {"t2"}, {"t3"}, "pool");
  attr_int(g.node("Flatten", {"t3"}, {"t4"}, "flatten"), "axis", 1);
  attr_int(g.node("Softmax", {"t4"}, {"output"}, "softmax"), "axis", 1);
  g.output("output", kFloat, {1, 20});
  return m.save(path);
}

std::string save_resnet18_names_model(const std::string& path) {
  ModelBuilder m(11);
  GraphBuilder g = m.graph();
  const int64_t c = 8;
  g.input("input.1", kFloat, {32, 3, 32, 32});
  g.init_float("Conv_0.weight", {c, 3, 7, 7}, ones(static_cast<size_t>(c * 3 * 49)));
  auto& stem = g.node("Conv", {"input.1", "Conv_0.weight"}, {"t0"}, "Conv_0");
  attr_ints(stem, "kernel_shape", {7, 7});
  attr_ints(stem, "pads", {3, 3, 3, 3});
  attr_ints(stem, "strides", {2, 2});
  g.node("Relu", {"t0"}, {"t1"}, "Relu_1");
  auto& pool = g.node("MaxPool", {"t1"}, {"t2"}, "MaxPool_2");
  attr_ints(pool, "kernel_shape", {3, 3});
  attr_ints(pool, "pads", {1, 1, 1, 1});
  attr_ints(pool, "strides", {2, 2});
  int id = 3;
  std::string x = "t2";
  auto next = [&](const std::string& op) { return op + "_" + std::to_string(id++); };
  // Four stages of two basic blocks; the first block of stages 2-4 strides
  // and has a downsampling convolution on its shortcut (exported after conv2).
  for (int stage = 0; stage < 4; ++stage)
    for (int block = 0; block < 2; ++block) {
      bool down = stage > 0 && block == 0;
      std::string a = next("Conv");
      conv(g, a, x, a + ".out", c, 3, down ? 2 : 1);
      std::string r = next("Relu");
      g.node("Relu", {a + ".out"}, {r + ".out"}, r);
      std::string b = next("Conv");
      conv(g, b, r + ".out", b + ".out", c, 3, 1);
      std::string shortcut = x;
      if (down) {
        std::string d = next("Conv");
        conv(g, d, x, d + ".out", c, 1, 2);
        shortcut = d + ".out";
      }
      std::string add = next("Add");
      g.node("Add", {b + ".out", shortcut}, {add + ".out"}, add);
      std::string relu = next("Relu");
      g.node("Relu", {add + ".out"}, {relu + ".out"}, relu);
      x = relu + ".out";
    }
  std::string gap = next("GlobalAveragePool");
  g.node("GlobalAveragePool", {x}, {"pooled"}, gap);
  std::string flat = next("Flatten");
  attr_int(g.node("Flatten", {"pooled"}, {"flat"}, flat), "axis", 1);
  std::string gemm = next("Gemm");
  g.init_float("fc.weight", {10, c}, ones(static_cast<size_t>(10 * c)));
  g.init_float("fc.bias", {10}, ones(10));
  attr_int(g.node("Gemm", {"flat", "fc.weight", "fc.bias"}, {"output"}, gemm), "transB", 1);
  g.output("output", kFloat, {32, 10});
  return m.save(path);
}

}  // namespace trtlens::test
