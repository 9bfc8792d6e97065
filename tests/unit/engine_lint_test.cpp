// Each linter on hand-written plans: what it must find and what it must not.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/paths.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"

using namespace trtlens;

namespace {
std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }
std::vector<std::string> hits(const std::vector<Finding>& f, const std::string& linter) {
  std::vector<std::string> v;
  for (const auto& x : f)
    if (x.linter == linter) v.push_back(x.layer);
  return v;
}
const Finding* finding(const std::vector<Finding>& f, const std::string& linter, const std::string& layer) {
  for (const auto& x : f)
    if (x.linter == linter && x.layer == layer) return &x;
  return nullptr;
}
// A one-layer plan: `layer` is the JSON of one layer object.
EnginePlan one(const std::string& layer) { return parse_plan("{\"Layers\": [" + layer + "], \"Bindings\": []}", "g.json"); }
std::string tensor(const char* name, const char* dims, const char* fmt) {
  return std::string("{\"Name\": \"") + name + "\", \"Dimensions\": " + dims + ", \"Format/Datatype\": \"" + fmt + "\"}";
}
}  // namespace

TEST(EngineLint, EveryLinterHasANameAndUnknownNamesAreRejected) {
  EXPECT_GE(linters().size(), 8u);
  auto p = load_plan(find_plan_files(fixture("v8/tiny.onnx.engine")));
  EXPECT_THROW(lint(p, {"no-such-linter"}), UsageError);
  auto only = lint(p, {"slow-layer"});
  for (const auto& f : only) EXPECT_EQ(f.linter, "slow-layer");
}

TEST(EngineLint, ReformatAlignmentAndSlowLayersOnTiny) {
  auto p = load_plan(find_plan_files(fixture("v8/tiny.onnx.engine")));
  auto f = lint(p);
  auto rc = hits(f, "reformat-conversion");
  EXPECT_EQ(rc.size(), 2u);  // FP32→FP16 in, FP16→FP32 out
  const auto* a1 = finding(f, "conv-channel-alignment", "conv1 + relu1");
  ASSERT_NE(a1, nullptr);
  EXPECT_EQ(a1->severity, Severity::Info);  // 3 input channels: expected
  const auto* a2 = finding(f, "conv-channel-alignment", "conv2");
  ASSERT_NE(a2, nullptr);
  EXPECT_EQ(a2->severity, Severity::Warning);  // K=20
  EXPECT_NE(a2->message.find("K=20"), std::string::npos);
  EXPECT_TRUE(hits(f, "conv-tensor-cores").empty());  // xmma and 884 tactics
  const auto* s = finding(f, "slow-layer", "conv2");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::Warning);  // 62.5%
  EXPECT_EQ(finding(f, "slow-layer", "pool"), nullptr);  // 9.4%
  EXPECT_FALSE(f.front().severity < f.back().severity);  // most severe first
  for (const auto& x : f) {
    EXPECT_FALSE(x.message.empty());
    EXPECT_FALSE(x.suggestion.empty());
  }
}

TEST(EngineLint, QdqLinters) {
  auto p = load_plan(find_plan_files(fixture("v86-qdq/qdq.onnx.engine")));
  auto f = lint(p);
  EXPECT_NE(finding(f, "conv-int8-float-output", "w + QuantizeLinear_8 + Conv_12"), nullptr);
  const auto* q_in = finding(f, "qdq-unfused", "QuantizeLinear_2");
  ASSERT_NE(q_in, nullptr);
  EXPECT_EQ(q_in->severity, Severity::Info);  // quantizes the engine input
  EXPECT_NE(finding(f, "qdq-unfused", "scale_q"), nullptr);
  EXPECT_NE(finding(f, "qdq-unfused", "DequantizeLinear_20"), nullptr);
  // scale_q quantizes and the very next layer dequantizes: the quantization reaches nothing.
  EXPECT_EQ(hits(f, "qdq-dangling"), std::vector<std::string>{"scale_q"});
}

TEST(EngineLint, TensorCoresAndSliceConversion) {
  auto p = one(R"({"Name": "c", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
      "TacticName": "sm80_implicit_gemm_scalar_kernel", "Inputs": [)" +
               tensor("x", "[1,64,8,8]", "Channel major FP16 format where channel % 8 == 0") + "], \"Outputs\": [" +
               tensor("y", "[1,64,8,8]", "Channel major FP16 format where channel % 8 == 0") + "]}");
  auto f = lint(p, {"conv-tensor-cores"});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::Warning);
  auto s = one(R"({"Name": "s", "LayerType": "Slice", "ParameterType": "Slice", "Inputs": [)" +
               tensor("x", "[1,64]", "Row major linear FP32") + "], \"Outputs\": [" +
               tensor("y", "[1,32]", "Row major linear FP16 format") + "]}");
  auto g = lint(s, {"slice-conversion"});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_NE(g[0].message.find("FP32 to FP16"), std::string::npos);
  auto same = one(R"({"Name": "s", "LayerType": "Slice", "ParameterType": "Slice", "Inputs": [)" +
                  tensor("x", "[1,64]", "Row major linear FP32") + "], \"Outputs\": [" +
                  tensor("y", "[1,32]", "Row major linear FP32") + "]}");
  EXPECT_TRUE(lint(same, {"slice-conversion"}).empty());
}

TEST(EngineLint, RealQatSampleFindsUnfusedQdq) {
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty()) GTEST_SKIP() << "no ../shared";
  auto files = find_plan_files(shared + "/engine-samples/mobilenet-qat");
  auto f = lint(load_plan(files));
  // 17 QDQ reformats, one of them quantizes the engine input.
  EXPECT_EQ(hits(f, "qdq-unfused").size(), 17u);
  EXPECT_FALSE(hits(f, "conv-int8-float-output").empty());
  // Each Q/DQ reformat is reported once, by qdq-unfused, not also as a conversion.
  EXPECT_TRUE(hits(f, "reformat-conversion").empty());
  const auto* in = finding(f, "qdq-unfused", "QuantizeLinear_2");
  ASSERT_NE(in, nullptr);
  EXPECT_NE(in->suggestion.find("--inputIOFormats=int8:chw4"), std::string::npos) << in->suggestion;
}

// Suggestions follow where a reformat sits: trtexec I/O formats only at the
// engine's boundary (named exactly), the two disagreeing layers inside it.
TEST(EngineLint, ReformatSuggestionsApplyToWhereTheReformatIs) {
  auto p = load_plan(find_plan_files(fixture("v8/tiny.onnx.engine")));
  auto f = lint(p, {"reformat-conversion"});
  const auto* out = finding(f, "reformat-conversion", "Reformatting CopyNode for Output Tensor 0 to softmax");
  ASSERT_NE(out, nullptr);
  EXPECT_NE(out->suggestion.find("--outputIOFormats=fp16:chw"), std::string::npos) << out->suggestion;
  const auto* in = finding(f, "reformat-conversion", "Reformatting CopyNode for Input Tensor 0 to conv1 + relu1");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->suggestion.find("IOFormats="), std::string::npos) << in->suggestion;  // HWC4: trtexec has no name
  // A layout-only reformat between two layers (a pooling layer writing
  // LINEAR, a convolution reading HWC8) costing 50% of the time.
  auto mid = parse_plan(R"({"Layers": [
      {"Name": "pool", "LayerType": "CudaPooling", "ParameterType": "Pooling",
       "Inputs": [)" + tensor("in", "[1,8,4,4]", "Row major linear FP16 format") + R"(], "Outputs": [)" +
                            tensor("a", "[1,8,2,2]", "Row major linear FP16 format") + R"(]},
      {"Name": "r", "LayerType": "Reformat", "ParameterType": "Reformat", "Origin": "REFORMAT",
       "Inputs": [)" + tensor("a", "[1,8,2,2]", "Row major linear FP16 format") + R"(], "Outputs": [)" +
                            tensor("b", "[1,8,2,2]", "Channel major FP16 format where channel % 8 == 0") + R"(]},
      {"Name": "conv", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
       "Inputs": [)" + tensor("b", "[1,8,2,2]", "Channel major FP16 format where channel % 8 == 0") +
                            R"(], "Outputs": [)" + tensor("out", "[1,8,2,2]", "Row major linear FP16 format") + R"(]}],
      "Bindings": ["in", "out"]})",
                        "g.json",
                        R"([{"count": 1}, {"name": "pool", "averageMs": 1}, {"name": "r", "averageMs": 1},
                            {"name": "conv", "averageMs": 0}])",
                        "p.json");
  auto g = lint(mid, {"reformat-conversion"});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].severity, Severity::Info);
  EXPECT_EQ(g[0].suggestion.find("IOFormats"), std::string::npos) << g[0].suggestion;
  EXPECT_NE(g[0].suggestion.find("'pool' writes FP16 LINEAR and 'conv' reads FP16 HWC8"), std::string::npos)
      << g[0].suggestion;
}

TEST(EngineLint, AmpereMmaShapesCountAsTensorCores) {
  // TREx's pattern misses "h16816" (Ampere HMMA shape); we deliberately do not.
  auto p = one(R"({"Name": "c", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
      "TacticName": "ampere_h16816cudnn_128x128_ldg8_relu_exp_stages_64x3_large_nhwc_tn_v1", "Inputs": [)" +
               tensor("x", "[1,64,8,8]", "Channel major FP16 format where channel % 8 == 0") + "], \"Outputs\": [" +
               tensor("y", "[1,64,8,8]", "Channel major FP16 format where channel % 8 == 0") + "]}");
  EXPECT_TRUE(lint(p, {"conv-tensor-cores"}).empty());
}
