// Each linter on hand-written plans: what it must find and what it must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

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

// A NoOp folded before or after an INT8 1000-class classifier: the linter
// checks the shapes graph.json wrote (4-D), as TREx does, not the folded 2-D
// ones (the 2026-11-22 build flagged these; round 2 skipped them).
TEST(EngineLint, ChannelAlignmentChecksTheShapesAsWrittenAroundFoldedNoOps) {
  const char* i8 = "Four wide channel vectorized row major Int8 format";
  // pool → NoOp (flatten to [1,1280]) ... the classifier reads [1,1280,1,1] through a second NoOp;
  // its [1,1000,1,1] output is squeezed by a NoOp that writes the engine output.
  auto p = parse_plan(R"({"Layers": [
      {"Name": "pool", "LayerType": "TiledPooling", "ParameterType": "Pooling",
       "Inputs": [)" + tensor("in", "[1,1280,7,7]", i8) + R"(], "Outputs": [)" + tensor("p", "[1,1280,1,1]", i8) + R"(]},
      {"Name": "flatten", "LayerType": "NoOp", "Inputs": [)" + tensor("p", "[1,1280,1,1]", i8) +
                      R"(], "Outputs": [)" + tensor("f", "[1,1280]", i8) + R"(]},
      {"Name": "unflatten", "LayerType": "NoOp", "Inputs": [)" + tensor("f", "[1,1280]", i8) +
                      R"(], "Outputs": [)" + tensor("u", "[1,1280,1,1]", i8) + R"(]},
      {"Name": "classifier", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
       "Inputs": [)" + tensor("u", "[1,1280,1,1]", i8) + R"(], "Outputs": [)" +
                      tensor("c", "[1,1000,1,1]", "Row major linear FP32") + R"(]},
      {"Name": "squeeze", "LayerType": "NoOp", "Inputs": [)" + tensor("c", "[1,1000,1,1]", "Row major linear FP32") +
                      R"(], "Outputs": [)" + tensor("out", "[1,1000]", "Row major linear FP32") + R"(]}],
      "Bindings": ["in", "out"]})",
                      "g.json");
  ASSERT_EQ(p.layers.size(), 2u);
  const auto& c = p.layers[1];
  ASSERT_EQ(c.name, "classifier");
  // Folding rewired both ports: the graph reads [1,1280] and writes the engine output [1,1000]...
  EXPECT_EQ(c.inputs[0].dims, (std::vector<int64_t>{1, 1280, 1, 1}));  // pool's own output, via two NoOps
  EXPECT_EQ(c.outputs[0].dims, (std::vector<int64_t>{1, 1000}));
  // ...and the layer as written is kept for the linters.
  EXPECT_EQ(c.outputs_as_written()[0].dims, (std::vector<int64_t>{1, 1000, 1, 1}));
  auto f = lint(p, {"conv-channel-alignment"});
  const auto* a = finding(f, "conv-channel-alignment", "classifier");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->severity, Severity::Warning);
  EXPECT_NE(a->message.find("K=1000"), std::string::npos) << a->message;
  EXPECT_NE(a->message.find("INT8 wants multiples of 16"), std::string::npos) << a->message;

  // The input side alone: a NoOp reshapes [1,1280] to [1,1280,1,1] before the classifier.
  auto q = parse_plan(R"({"Layers": [
      {"Name": "unflatten", "LayerType": "NoOp", "Inputs": [)" + tensor("in", "[1,1280]", i8) +
                      R"(], "Outputs": [)" + tensor("u", "[1,1280,1,1]", i8) + R"(]},
      {"Name": "classifier", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
       "Inputs": [)" + tensor("u", "[1,1280,1,1]", i8) + R"(], "Outputs": [)" + tensor("out", "[1,1000,1,1]", i8) + R"(]}],
      "Bindings": ["in", "out"]})",
                      "g.json");
  ASSERT_EQ(q.layers.size(), 1u);
  EXPECT_EQ(q.layers[0].inputs[0].dims, (std::vector<int64_t>{1, 1280}));  // folded: the engine input
  EXPECT_EQ(q.layers[0].inputs_as_written()[0].dims, (std::vector<int64_t>{1, 1280, 1, 1}));
  EXPECT_NE(finding(lint(q, {"conv-channel-alignment"}), "conv-channel-alignment", "classifier"), nullptr);
}

// On each reference engine, the convolutions flagged are exactly those TREx's
// alignment_lint flags, recomputed here from the raw graph.json (input 0 and
// output 0 as written, 4-D only; 16 for INT8, else 8).
TEST(EngineLint, ChannelAlignmentMatchesTrexOnEachReferenceEngine) {
  namespace fs = std::filesystem;
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty() || !fs::exists(fs::path(shared) / "engine-samples")) GTEST_SKIP() << "no ../shared/engine-samples";
  int samples = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(shared) / "engine-samples")) {
    if (!dir.is_directory()) continue;
    SCOPED_TRACE(dir.path().string());
    auto files = find_plan_files(dir.path().string());
    auto g = nlohmann::json::parse(std::ifstream(files.graph));
    std::set<std::string> trex;
    for (const auto& l : g["Layers"]) {
      if (l.value("ParameterType", "") != "Convolution") continue;
      const auto& in = l["Inputs"][0]["Dimensions"];
      const auto& out = l["Outputs"][0]["Dimensions"];
      if (in.size() != 4 || out.size() != 4) continue;
      const bool int8 = l["Inputs"][0]["Format/Datatype"].get<std::string>().find("Int8") != std::string::npos;
      const int64_t align = int8 ? 16 : 8, c = in[1], k = out[1];
      if (c % align != 0 || k % align != 0) trex.insert(l["Name"].get<std::string>());
    }
    auto plan = load_plan(files);
    auto found = hits(lint(plan, {"conv-channel-alignment"}), "conv-channel-alignment");
    EXPECT_EQ(std::set<std::string>(found.begin(), found.end()), trex);
    if (dir.path().filename() == "mobilenet-qat" || dir.path().filename() == "mobilenet-v2-residuals-qat") {
      bool classifier = false;  // the INT8 1000-class classifier behind a folded squeeze NoOp
      for (const auto& n : found) classifier |= n.find("Gemm_") != std::string::npos;
      EXPECT_TRUE(classifier);
    }
    ++samples;
  }
  EXPECT_GT(samples, 0);
}
