// The ONNX model overlaid with its engine: node → layer mapping, vanished
// nodes, and check's prediction against the engine (include/trtlens/overlay.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/onnx_builder.h"
#include "support/overlay_models.h"
#include "support/paths.h"
#include "trtlens/compat.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "trtlens/overlay.h"

namespace fs = std::filesystem;
using namespace trtlens;
using namespace trtlens::test;

namespace {

std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }

// The overlay entry of the node named `name` (nullptr when absent).
const NodeOverlay* node(const Model& m, const Overlay& o, const std::string& name) {
  for (const auto& n : o.nodes)
    if (m.graphs[static_cast<size_t>(n.graph)].nodes[static_cast<size_t>(n.index)].name == name) return &n;
  return nullptr;
}
std::string layer_of(const EnginePlan& p, const NodeOverlay* n) {
  return n && n->layer >= 0 ? p.layers[static_cast<size_t>(n->layer)].name : "";
}
// Names of the nodes sharing `n`'s layer (itself included).
std::vector<std::string> layer_nodes(const Model& m, const Overlay& o, const NodeOverlay* n) {
  std::vector<std::string> names;
  if (!n || n->layer < 0) return names;
  for (int k : o.layers[static_cast<size_t>(n->layer)].nodes) {
    const NodeOverlay& x = o.nodes[static_cast<size_t>(k)];
    names.push_back(m.graphs[static_cast<size_t>(x.graph)].nodes[static_cast<size_t>(x.index)].name);
  }
  return names;
}

struct Fixture {
  Model model;
  EnginePlan plan;
  Overlay overlay;
};

Fixture overlay_fixture(const std::string& test) {
  std::string dir = temp_dir(test);
  Fixture f{load_model(save_overlay_fixture_model(dir + "/overlay.onnx")),
            load_plan(find_plan_files(fixture("overlay/overlay.onnx.engine"))), {}};
  f.overlay = overlay_engine(f.model, f.plan);
  return f;
}

// A graph.json holding `layers` (JSON objects as text), for edge cases.
EnginePlan plan_of(const std::string& layers) {
  return parse_plan("{\"Layers\": [" + layers + "], \"Bindings\": []}", "test.graph.json");
}

}  // namespace

TEST(Overlay, MetadataNamesEveryNodeOfAFusedLayer) {
  auto f = overlay_fixture("Overlay.MetadataNamesEveryNodeOfAFusedLayer");
  const NodeOverlay* conv = node(f.model, f.overlay, "Conv_0");
  ASSERT_TRUE(conv);
  EXPECT_EQ(layer_of(f.plan, conv), "Conv_0 + Relu_1");
  EXPECT_EQ(conv->match, OverlayMatch::Metadata);
  EXPECT_EQ(conv->vanished, Vanished::None);
  EXPECT_EQ(conv->precision, "INT8");
  EXPECT_TRUE(conv->timed);
  EXPECT_DOUBLE_EQ(conv->latency_ms, 0.05);
  EXPECT_NEAR(conv->percent, 0.05 / 0.29 * 100, 1e-9);
  EXPECT_EQ(layer_nodes(f.model, f.overlay, conv), (std::vector<std::string>{"Conv_0", "Relu_1"}));
  EXPECT_EQ(layer_nodes(f.model, f.overlay, node(f.model, f.overlay, "Add_4")),
            (std::vector<std::string>{"Conv_3", "Add_4", "Relu_5"}));
  // The reformat feeding "Conv_0 + Relu_1" names a layer, not Relu_1.
  EXPECT_EQ(node(f.model, f.overlay, "Relu_1")->layers.size(), 1u);
  // "[ONNX Layer: MyPlugin_12 | a custom plugin]": the doc string is not part of the name.
  EXPECT_EQ(layer_of(f.plan, node(f.model, f.overlay, "MyPlugin_12")), "MyPlugin_12");
  EXPECT_TRUE(f.overlay.used_metadata);
}

TEST(Overlay, UnnamedNodesAreKnownByTheirFirstOutput) {
  auto f = overlay_fixture("Overlay.UnnamedNodesAreKnownByTheirFirstOutput");
  const NodeOverlay* sigmoid = node(f.model, f.overlay, "");
  ASSERT_TRUE(sigmoid);
  EXPECT_EQ(layer_of(f.plan, sigmoid), "node_of_probs");
  EXPECT_EQ(sigmoid->precision, "FP16");
}

TEST(Overlay, ForeignNodeRangeHoldsTheNodesBetweenItsEnds) {
  auto f = overlay_fixture("Overlay.ForeignNodeRangeHoldsTheNodesBetweenItsEnds");
  const std::string region = "{ForeignNode[/attn/MatMul.../attn/MatMul_1]}";
  const NodeOverlay* softmax = node(f.model, f.overlay, "/attn/Softmax");
  ASSERT_TRUE(softmax);
  EXPECT_EQ(layer_of(f.plan, softmax), region);
  EXPECT_EQ(softmax->match, OverlayMatch::ForeignRange);
  EXPECT_EQ(softmax->vanished, Vanished::ForeignNode);
  EXPECT_DOUBLE_EQ(softmax->latency_ms, 0.12);
  const NodeOverlay* first = node(f.model, f.overlay, "/attn/MatMul");
  EXPECT_EQ(first->match, OverlayMatch::Metadata);
  EXPECT_EQ(first->vanished, Vanished::ForeignNode);
  EXPECT_EQ(layer_nodes(f.model, f.overlay, softmax),
            (std::vector<std::string>{"/attn/MatMul", "/attn/Softmax", "/attn/MatMul_1"}));
  EXPECT_EQ(f.overlay.foreign_node, 3);
}

TEST(Overlay, VanishedNodesSayWhy) {
  auto f = overlay_fixture("Overlay.VanishedNodesSayWhy");
  const NodeOverlay* shape = node(f.model, f.overlay, "Constant_2");
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->layer, -1);
  EXPECT_EQ(shape->vanished, Vanished::ConstantFolded);
  ASSERT_GE(shape->folded_into, 0);
  EXPECT_EQ(f.plan.layers[static_cast<size_t>(shape->folded_into)].name, "Reshape_7");
  const NodeOverlay* identity = node(f.model, f.overlay, "Identity_6");
  EXPECT_EQ(identity->layer, -1);
  EXPECT_EQ(identity->vanished, Vanished::NotFound);
  EXPECT_EQ(f.overlay.constant_folded, 1);
  EXPECT_EQ(f.overlay.not_found, 1);
  EXPECT_EQ(f.overlay.in_layers, 11);
  // The one layer naming no node, reformat copies aside, is listed and noted.
  ASSERT_EQ(f.overlay.unmatched_layers.size(), 1u);
  EXPECT_EQ(f.plan.layers[static_cast<size_t>(f.overlay.unmatched_layers[0])].name, "(Unnamed Layer* 14) [Shuffle]");
  ASSERT_FALSE(f.overlay.notes.empty());
  EXPECT_NE(f.overlay.notes[0].find("(Unnamed Layer* 14) [Shuffle]"), std::string::npos) << f.overlay.notes[0];
}

TEST(Overlay, RuntimeComesFromTheEngineMetadataUnlessGiven) {
  auto f = overlay_fixture("Overlay.RuntimeComesFromTheEngineMetadataUnlessGiven");
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  EXPECT_EQ(engine_trt_version(f.plan), "8.6.1");
  // FP32+FP16+INT8: every layer takes the fastest enabled precision, check's "best".
  EXPECT_EQ(engine_build_precision(f.plan), Precision::BEST);
  OverlayRuntime r = overlay_runtime(f.plan, kb, "", std::nullopt);
  EXPECT_EQ(r.release->name, "8.6");
  EXPECT_EQ(r.precision, Precision::BEST);
  EXPECT_EQ(r.release_source, "engine metadata (TensorRT 8.6.1)");
  EXPECT_EQ(r.precision_source, "build metadata (FP32+FP16+INT8)");
  OverlayRuntime given = overlay_runtime(f.plan, kb, "10.0", Precision::FP16);
  EXPECT_EQ(given.release->name, "10.0");
  EXPECT_EQ(given.precision, Precision::FP16);
  EXPECT_EQ(given.release_source, "--trt");
  EXPECT_THROW(overlay_runtime(f.plan, kb, "8.7", std::nullopt), UsageError);
  // One reduced precision: that one (the v8 fixture records FP32+FP16).
  EXPECT_EQ(engine_build_precision(load_plan(find_plan_files(fixture("v8/tiny.onnx.engine")))), Precision::FP16);
  // Files that record neither: the newest release, FP32, and the sources say so.
  EnginePlan bare = load_plan(find_plan_files(fixture("v11/small.onnx.engine")));
  EXPECT_EQ(engine_build_precision(bare), std::nullopt);
  OverlayRuntime unknown = overlay_runtime(bare, kb, "", std::nullopt);
  EXPECT_EQ(unknown.release, &kb.releases().back());
  EXPECT_NE(unknown.release_source.find("do not record"), std::string::npos);
  EXPECT_EQ(unknown.precision, Precision::FP32);
}

namespace {
// (node name, kind) of each disagreement of `f` for release 8.6 at `p` (the engine's own when nullopt).
std::vector<std::pair<std::string, std::string>> disagreements(const Fixture& f, std::optional<Precision> p,
                                                               PredictionCheck* out = nullptr) {
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  OverlayRuntime r = overlay_runtime(f.plan, kb, "8.6", p);
  PredictionCheck c = compare_with_prediction(f.model, f.overlay, f.plan, annotate(f.model, kb, *r.release, r.precision), r);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& d : c.disagreements) {
    const NodeOverlay& n = f.overlay.nodes[static_cast<size_t>(d.node)];
    got.emplace_back(f.model.graphs[0].nodes[static_cast<size_t>(n.index)].name, d.kind);
  }
  if (out) *out = std::move(c);
  return got;
}
}  // namespace

TEST(Overlay, DisagreementsWithCheckAreListed) {
  auto f = overlay_fixture("Overlay.DisagreementsWithCheckAreListed");
  PredictionCheck c;
  // At the engine's own runtime (8.6, best): Add has no INT8 kernel, so check
  // predicts FP16, yet it ran fused into an INT8 convolution; the Sigmoid was
  // predicted INT8 and ran FP16; the custom op has no plugin check knows of,
  // yet the engine holds a plugin layer.
  EXPECT_EQ(disagreements(f, std::nullopt, &c),
            (std::vector<std::pair<std::string, std::string>>{{"Add_4", "precision-differs"},
                                                              {"", "fallback-not-predicted"},
                                                              {"MyPlugin_12", "unsupported-but-built"}}));
  EXPECT_EQ(c.compared, 11);
  const auto& add = c.disagreements[0];
  EXPECT_EQ(add.predicted, Verdict::SUPPORTED);
  EXPECT_EQ(add.predicted_precision, "FP16");
  EXPECT_EQ(add.measured_precision, "INT8");
  EXPECT_NE(add.message.find("Conv_3 + Add_4 + Relu_5"), std::string::npos) << add.message;
  // Asked as INT8 alone, check predicts FALLBACK to FP32 for Add and the
  // Myelin region's ops; they ran narrower.
  EXPECT_EQ(disagreements(f, Precision::INT8),
            (std::vector<std::pair<std::string, std::string>>{{"Add_4", "fallback-not-observed"},
                                                              {"/attn/MatMul", "fallback-not-observed"},
                                                              {"/attn/Softmax", "fallback-not-observed"},
                                                              {"/attn/MatMul_1", "fallback-not-observed"},
                                                              {"", "fallback-not-predicted"},
                                                              {"MyPlugin_12", "unsupported-but-built"}}));
  // At FP32 every INT8 and FP16 layer ran narrower than predicted.
  for (const auto& [name, kind] : disagreements(f, Precision::FP32))
    if (name != "MyPlugin_12") {
      EXPECT_EQ(kind, "precision-differs") << name;
    }
}

TEST(Overlay, FusedNamesAndPointwiseGroups) {
  ModelBuilder m;
  GraphBuilder g = m.graph();
  g.input("x", kFloat, {1, 4});
  g.node("Relu", {"x"}, {"a"}, "Relu_0");
  g.node("Sigmoid", {"a"}, {"b"}, "Sigmoid_1");
  g.node("Mul", {"a", "b"}, {"c"}, "Mul_2");
  g.node("Clip", {"c"}, {"d"}, "Clip_3");
  g.node("Tanh", {"d"}, {"y"}, "weird + name");
  g.output("y", kFloat, {1, 4});
  std::string dir = temp_dir("Overlay.FusedNamesAndPointwiseGroups");
  Model model = load_model(m.save(dir + "/m.onnx"));
  EnginePlan plan = plan_of(
      R"J({"Name": "Reformatting CopyNode for Input Tensor 0 to Relu_0 + PWN(PWN(Sigmoid_1), Mul_2)", "LayerType": "Reformat"},)J"
      R"J({"Name": "Relu_0 + PWN(PWN(Sigmoid_1), Mul_2)", "LayerType": "PointWiseV2"},)J"
      R"J({"Name": "PWN(Clip_3)", "LayerType": "PointWiseV2"},)J"
      R"J({"Name": "weird + name", "LayerType": "Activation"})J");
  Overlay o = overlay_engine(model, plan);
  EXPECT_EQ(layer_of(plan, node(model, o, "Relu_0")), "Relu_0 + PWN(PWN(Sigmoid_1), Mul_2)");
  EXPECT_EQ(layer_of(plan, node(model, o, "Sigmoid_1")), "Relu_0 + PWN(PWN(Sigmoid_1), Mul_2)");
  EXPECT_EQ(node(model, o, "Mul_2")->match, OverlayMatch::Name);
  EXPECT_EQ(node(model, o, "Mul_2")->layers.size(), 1u);  // the reformat copy does not claim it
  EXPECT_EQ(layer_of(plan, node(model, o, "Clip_3")), "PWN(Clip_3)");
  // A node whose own name holds " + " is found whole.
  EXPECT_EQ(layer_of(plan, node(model, o, "weird + name")), "weird + name");
  EXPECT_EQ(o.in_layers, 5);
  EXPECT_FALSE(o.used_metadata);
}

// The 10.x fixture: a Myelin region with Metadata on its ends only, and the
// layers of optimization profile 1, whose names end in " [profile 1]".
TEST(Overlay, MyelinRegionOfASecondOptimizationProfile) {
  ModelBuilder m;
  GraphBuilder g = m.graph();
  g.input("input", kFloat, {-1, 128});
  g.init_float("w", {128, 128}, std::vector<float>(128 * 128, 0.01f));
  g.init_float("b", {128}, std::vector<float>(128, 0.0f));
  g.init_float("head.w", {10, 128}, std::vector<float>(1280, 0.01f));
  g.node("MatMul", {"input", "w"}, {"mm"}, "/encoder/MatMul");
  g.node("Add", {"mm", "b"}, {"biased"}, "/encoder/Add");
  g.node("Relu", {"biased"}, {"act"}, "/encoder/Relu");
  g.node("Add", {"act", "input"}, {"h"}, "/encoder/Add_3");
  attr_int(g.node("Gemm", {"h", "head.w"}, {"logits"}, "/head/Gemm"), "transB", 1);
  attr_int(g.node("Cast", {"logits"}, {"output"}, "/head/Cast"), "to", kFloat);
  g.output("output", kFloat, {-1, 10});
  std::string dir = temp_dir("Overlay.MyelinRegionOfASecondOptimizationProfile");
  Model model = load_model(m.save(dir + "/bert.onnx"));
  EnginePlan plan = load_plan(find_plan_files(fixture("v10-myelin/bert.onnx.engine")), {1});
  Overlay o = overlay_engine(model, plan);
  EXPECT_EQ(o.in_layers, 6);
  const NodeOverlay* relu = node(model, o, "/encoder/Relu");
  EXPECT_EQ(layer_of(plan, relu), "{ForeignNode[/encoder/MatMul.../encoder/Add_3]} [profile 1]");
  EXPECT_EQ(relu->match, OverlayMatch::ForeignRange);
  EXPECT_EQ(relu->vanished, Vanished::ForeignNode);
  EXPECT_EQ(relu->precision, "FP32");
  EXPECT_EQ(node(model, o, "/encoder/Add_3")->match, OverlayMatch::Metadata);
  EXPECT_EQ(layer_of(plan, node(model, o, "/head/Gemm")), "/head/Gemm [profile 1]");
  EXPECT_EQ(node(model, o, "/head/Gemm")->vanished, Vanished::None);
  EXPECT_EQ(o.foreign_node, 4);
}

TEST(Overlay, QdqFusedWithoutANameIsPlacedByItsNeighbours) {
  ModelBuilder m;
  GraphBuilder g = m.graph();
  g.input("x", kFloat, {1, 4, 8, 8});
  g.init_float("scale", {}, {0.1f});
  g.init_float("w", {4, 4, 1, 1}, std::vector<float>(16, 1.0f));
  g.node("QuantizeLinear", {"x", "scale"}, {"q"}, "QuantizeLinear_0");
  g.node("DequantizeLinear", {"q", "scale"}, {"dq"}, "DequantizeLinear_1");
  g.node("Conv", {"dq", "w"}, {"y"}, "Conv_2");
  g.output("y", kFloat, {1, 4, 8, 8});
  std::string dir = temp_dir("Overlay.QdqFusedWithoutANameIsPlacedByItsNeighbours");
  Model model = load_model(m.save(dir + "/m.onnx"));
  EnginePlan plan = plan_of(R"J({"Name": "QuantizeLinear_0", "LayerType": "Reformat", "Origin": "QDQ"},)J"
                            R"J({"Name": "w + Conv_2", "LayerType": "CaskConvolution"})J");
  Overlay o = overlay_engine(model, plan);
  const NodeOverlay* dq = node(model, o, "DequantizeLinear_1");
  EXPECT_EQ(layer_of(plan, dq), "w + Conv_2");
  EXPECT_EQ(dq->match, OverlayMatch::Neighbours);
  EXPECT_EQ(layer_nodes(model, o, dq), (std::vector<std::string>{"DequantizeLinear_1", "Conv_2"}));
  // An inference is shown, never compared with check.
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  OverlayRuntime r = overlay_runtime(plan, kb, "8.6", Precision::INT8);
  PredictionCheck c = compare_with_prediction(model, o, plan, annotate(model, kb, *r.release, r.precision), r);
  EXPECT_EQ(c.compared, 2);
}

TEST(Overlay, LocalFunctionRecordsPlaceTheCallingNode) {
  ModelBuilder m;
  m.opset("local", 1);
  m.add_function("Swish", "local", {"x"}, {"y"});
  m.function_node("Swish", "local", "Sigmoid", {"x"}, {"s"});
  m.function_node("Swish", "local", "Mul", {"x", "s"}, {"y"});
  GraphBuilder g = m.graph();
  g.input("in", kFloat, {1, 4});
  g.node("Swish", {"in"}, {"out"}, "swish_1", "local");
  g.output("out", kFloat, {1, 4});
  std::string dir = temp_dir("Overlay.LocalFunctionRecordsPlaceTheCallingNode");
  Model model = load_model(m.save(dir + "/m.onnx"));
  EnginePlan plan = plan_of(
      R"J({"Name": "PWN(node_of_s, node_of_y)", "LayerType": "PointWiseV2",)J"
      R"( "Metadata": "[ONNX Layer: node_of_s | swish_1 (Swish)]\u001e[ONNX Layer: node_of_y | swish_1 (Swish)]"})");
  Overlay o = overlay_engine(model, plan);
  EXPECT_EQ(layer_of(plan, node(model, o, "swish_1")), "PWN(node_of_s, node_of_y)");
  EXPECT_EQ(node(model, o, "swish_1")->match, OverlayMatch::Metadata);
  EXPECT_EQ(o.in_layers, 3);  // the call and both body nodes
}

TEST(Overlay, AnotherModelsEngineMatchesNothingAndSaysSo) {
  auto f = overlay_fixture("Overlay.AnotherModelsEngineMatchesNothingAndSaysSo");
  EnginePlan other = load_plan(find_plan_files(fixture("v8/tiny.onnx.engine")));
  Overlay o = overlay_engine(f.model, other);
  EXPECT_EQ(o.in_layers, 0);
  EXPECT_EQ(o.layers_with_nodes, 0);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("is it the engine of another model?"), std::string::npos) << o.notes[0];
}

TEST(Overlay, NodeNamesUsedTwiceAreNoted) {
  ModelBuilder m;
  GraphBuilder g = m.graph();
  g.input("x", kFloat, {1, 4});
  g.node("Relu", {"x"}, {"a"}, "act");
  g.node("Relu", {"a"}, {"y"}, "act");
  g.output("y", kFloat, {1, 4});
  std::string dir = temp_dir("Overlay.NodeNamesUsedTwiceAreNoted");
  Model model = load_model(m.save(dir + "/m.onnx"));
  EnginePlan plan = plan_of(R"J({"Name": "act", "LayerType": "Activation"})J");
  Overlay o = overlay_engine(model, plan);
  EXPECT_EQ(o.in_layers, 2);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("more than one node"), std::string::npos) << o.notes[0];
}

// The shared ResNet18 samples (8.x names, no Metadata) against a model built
// here with torchvision's node names.
TEST(Overlay, SharedResnet18SamplesByLayerNames) {
  std::string shared = shared_dir();
  if (shared.empty() || !fs::exists(fs::path(shared) / "engine-samples")) GTEST_SKIP() << "no ../shared/engine-samples";
  std::string dir = temp_dir("Overlay.SharedResnet18SamplesByLayerNames");
  Model model = load_model(save_resnet18_names_model(dir + "/resnet.onnx"));
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  for (const char* sample : {"resnet18-pt-a100-fp16", "resnet18-pt-a100-fp32"}) {
    SCOPED_TRACE(sample);
    EnginePlan plan = load_plan(find_plan_files(shared + "/engine-samples/" + sample + "/resnet.onnx.engine"));
    Overlay o = overlay_engine(model, plan);
    const std::string want = std::string(sample).find("fp16") != std::string::npos ? "FP16" : "FP32";
    // Every node but Flatten_47 (TensorRT folds it into Gemm_48's reshape, a NoOp) is in a layer.
    EXPECT_EQ(o.nodes.size(), 49u);
    EXPECT_EQ(o.in_layers, 48);
    EXPECT_EQ(node(model, o, "Flatten_47")->vanished, Vanished::NotFound);
    EXPECT_EQ(o.unmatched_layers.size(), 0u);
    for (const auto& n : o.nodes)
      if (n.layer >= 0) {
        EXPECT_EQ(n.match, OverlayMatch::Name);
      }
    const NodeOverlay* add = node(model, o, "Add_17");
    EXPECT_EQ(layer_of(plan, add), "Conv_16 + Add_17 + Relu_18");
    EXPECT_EQ(add->precision, want);
    EXPECT_EQ(layer_of(plan, node(model, o, "Conv_15")), "Conv_15");
    const NodeOverlay* conv0 = node(model, o, "Conv_0");
    const EngineLayer& l = plan.layers[static_cast<size_t>(conv0->layer)];
    EXPECT_DOUBLE_EQ(conv0->latency_ms, l.avg_ms);
    EXPECT_DOUBLE_EQ(conv0->percent, l.percent);
    EXPECT_GT(conv0->latency_ms, 0);
    // Built FP32+FP16 (or FP32): check at 8.6 for that precision agrees on every node.
    OverlayRuntime r = overlay_runtime(plan, kb, "8.6", std::nullopt);
    EXPECT_EQ(precision_name(r.precision), want == "FP16" ? "fp16" : "fp32");
    PredictionCheck c = compare_with_prediction(model, o, plan, annotate(model, kb, *r.release, r.precision), r);
    EXPECT_EQ(c.compared, 48);
    for (const auto& d : c.disagreements) ADD_FAILURE() << d.message;
  }
}

// Hostile or odd engines: overlapping Myelin ranges, a name shared by very
// many nodes (matching it would give every such node to every layer naming it).
TEST(Overlay, OverlappingRangesAndNamesSharedByManyNodes) {
  ModelBuilder m;
  GraphBuilder g = m.graph();
  g.input("x", kFloat, {1, 4});
  std::string prev = "x";
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    g.node("Relu", {prev}, {std::string(name) + ".out"}, name);
    prev = std::string(name) + ".out";
  }
  for (int i = 0; i < 70; ++i) {
    g.node("Sigmoid", {prev}, {"s" + std::to_string(i)}, "same");
    prev = "s" + std::to_string(i);
  }
  g.output(prev, kFloat, {1, 4});
  std::string dir = temp_dir("Overlay.OverlappingRangesAndNamesSharedByManyNodes");
  Model model = load_model(m.save(dir + "/m.onnx"));
  EnginePlan plan = plan_of(R"J({"Name": "{ForeignNode[a...c]}", "LayerType": "Myelin"},)J"
                            R"J({"Name": "{ForeignNode[b...e]}", "LayerType": "Myelin"},)J"
                            R"J({"Name": "same", "LayerType": "Activation"})J");
  Overlay o = overlay_engine(model, plan);
  EXPECT_EQ(layer_of(plan, node(model, o, "b")), "{ForeignNode[a...c]}");
  EXPECT_EQ(layer_of(plan, node(model, o, "c")), "{ForeignNode[a...c]}");
  EXPECT_EQ(layer_of(plan, node(model, o, "d")), "{ForeignNode[b...e]}");
  EXPECT_EQ(node(model, o, "c")->layers.size(), 1u);
  EXPECT_EQ(o.in_layers, 5);  // the 70 nodes named "same" are not matched
  ASSERT_EQ(o.unmatched_layers.size(), 1u);
  bool noted = false;
  for (const auto& n : o.notes) noted = noted || n.find("shared by more than 64 nodes are not matched") != std::string::npos;
  EXPECT_TRUE(noted);
}
