// Importer checks found in each release's code (data/importer_checks.tsv) and layer contracts of
// NvInfer.h (data/layer_rules.tsv): each fails the node it should, cites its line, and stays out of
// the releases that do not have it.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <functional>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/compat.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

const KnowledgeBase& kb() { return KnowledgeBase::builtin(); }

const Reason* reason(const NodeVerdict& v, std::string_view rule_prefix) {
  auto it = std::find_if(v.reasons.begin(), v.reasons.end(),
                         [&](const Reason& r) { return r.rule.starts_with(rule_prefix); });
  return it == v.reasons.end() ? nullptr : &*it;
}

bool hints(const NodeVerdict& v, std::string_view text) {
  return std::any_of(v.hints.begin(), v.hints.end(), [&](const std::string& h) { return h.find(text) != std::string::npos; });
}

// A one-node model built by `build` at `opset`; the node under test is node 0.
Model one_node(const std::string& name, int opset, const std::function<void(GraphBuilder&)>& build) {
  ModelBuilder mb(opset);
  auto g = mb.graph();
  build(g);
  return load_model(mb.save(temp_dir(name) + "/m.onnx"));
}

NodeVerdict judge(const Model& m, const std::string& release, Precision p = Precision::FP32) {
  return annotate(m, kb(), kb().resolve(release), p).nodes.at(0);
}

Model einsum(const std::string& name, const std::string& equation, int inputs = 2) {
  return one_node(name, 13, [&](GraphBuilder& g) {
    g.input("a", kFloat, {4, 4}).input("b", kFloat, {4, 4});
    std::vector<std::string> in = {"a"};
    if (inputs == 2) in.push_back("b");
    attr_string(g.node("Einsum", in, {"y"}, "einsum"), "equation", equation);
    g.output("y");
  });
}

TEST(ImporterChecks, EinsumUppercaseSubscriptsFailWithTheImporterLine) {
  Model upper = einsum("ic_einsum_upper", "IJ,JK->IK");
  for (const char* release : {"8.6", "10.1", "10.10", "11.5"}) {
    NodeVerdict v = judge(upper, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
    const Reason* r = reason(v, "einsum_subscripts");
    ASSERT_NE(r, nullptr) << release;
    EXPECT_NE(r->message.find("'I'"), std::string::npos) << r->message;
    EXPECT_TRUE(hints(v, "lowercase")) << release;
  }
  EXPECT_NE(reason(judge(upper, "10.1"), "einsum_subscripts")->source.find("onnxOpCheckers.cpp:281"), std::string::npos);
  EXPECT_NE(reason(judge(upper, "8.6"), "einsum_subscripts")->source.find("builtin_op_importers.cpp:1398"),
            std::string::npos);
  // The same contraction in lowercase imports.
  EXPECT_EQ(judge(einsum("ic_einsum_lower", "ij,jk->ik"), "10.1").verdict, Verdict::SUPPORTED);
}

TEST(ImporterChecks, EinsumDiagonalFailsUntil1011ByTheLayerContract) {
  Model diag = einsum("ic_einsum_diag", "ii->i", 1);
  for (const char* release : {"8.6", "10.1", "10.11"}) {
    NodeVerdict v = judge(diag, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
    const Reason* r = reason(v, "einsum_no_diagonal");
    ASSERT_NE(r, nullptr) << release;
    EXPECT_NE(r->source.find("TensorRT release/10.11:include/NvInfer.h:5801"), std::string::npos) << r->source;
  }
  for (const char* release : {"10.12", "11.5"}) EXPECT_EQ(reason(judge(diag, release), "einsum_no_diagonal"), nullptr);
}

TEST(ImporterChecks, InstanceNormalizationScaleOfAnotherTypeFailsFrom90) {
  // FP16 data with FP32 scale and B: "Inputs must be either all FLOAT or all FLOAT16".
  Model m = one_node("ic_inorm", 13, [](GraphBuilder& g) {
    g.input("x", kFloat16, {1, 3, 8, 8});
    g.init_float("scale", {3}, {1, 1, 1}).init_float("bias", {3}, {0, 0, 0});
    g.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"}, "inorm");
    g.output("y");
  });
  for (const char* release : {"9.3", "10.1", "10.10"}) {
    NodeVerdict v = judge(m, release, Precision::FP16);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
    ASSERT_NE(reason(v, "same_types"), nullptr) << release;
  }
  // 8.6 has no such check (its InstanceNormalization goes through the plugin).
  EXPECT_EQ(reason(judge(m, "8.6", Precision::FP16), "same_types"), nullptr);
}

Model quantize(const std::string& name, float scale) {
  return one_node(name, 13, [&](GraphBuilder& g) {
    g.input("x", kFloat, {1, 8});
    g.init_float("scale", {}, {scale});
    g.node("QuantizeLinear", {"x", "scale"}, {"q"}, "q");
    g.node("DequantizeLinear", {"q", "scale"}, {"y"}, "dq");
    g.output("y");
  });
}

TEST(ImporterChecks, QuantizeLinearWithANonPositiveConstantScaleFails) {
  Model bad = quantize("ic_q_negative", -0.5f);
  for (const char* release : {"8.6", "10.1", "11.5"}) {
    NodeVerdict v = judge(bad, release, Precision::INT8);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
    const Reason* r = reason(v, "value_in(1:y_scale,>0)");
    ASSERT_NE(r, nullptr) << release;
    EXPECT_NE(r->source.find("importer"), std::string::npos) << r->source;
  }
  EXPECT_EQ(reason(judge(quantize("ic_q_positive", 0.5f), "10.1", Precision::INT8), "value_in(1:y_scale"), nullptr);
}

TEST(ImporterChecks, DequantizeLinearOfInt32FailsByTheLayerContract) {
  // ONNX Runtime's QOperator bias: an INT32 tensor dequantized. IDequantizeLayer takes INT8/FP8/INT4.
  Model m = one_node("ic_dq_int32", 13, [](GraphBuilder& g) {
    g.input("bias_q", kInt32, {8});
    g.init_float("scale", {}, {0.1f});
    g.node("DequantizeLinear", {"bias_q", "scale"}, {"y"}, "dq");
    g.output("y");
  });
  for (const char* release : {"8.6", "9.3", "10.1", "11.5"}) {
    NodeVerdict v = judge(m, release, Precision::INT8);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
    const Reason* r = reason(v, "input_types(0,INT8");
    ASSERT_NE(r, nullptr) << release;
    EXPECT_NE(r->source.find("include/NvInfer.h"), std::string::npos) << r->source;
    // A Cast does not help: the hint says what does.
    EXPECT_TRUE(hints(v, "signed INT8")) << release;
  }
}

Model resize(const std::string& name, const std::string& mode, std::vector<float> scales) {
  return one_node(name, 13, [&](GraphBuilder& g) {
    g.input("x", kFloat, {1, 3, 8, 8, 8});
    g.init_float("scales", {static_cast<int64_t>(scales.size())}, scales);
    auto& n = g.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    attr_string(n, "mode", mode);
    g.output("y");
  });
}

TEST(ImporterChecks, ResizeOfOuterAxesFailsForLinearAndCubic) {
  // 5-D: linear may scale the innermost 3 axes, cubic the innermost 2.
  EXPECT_EQ(judge(resize("ic_rs_lin_ok", "linear", {1, 1, 2, 2, 2}), "10.1").verdict, Verdict::SUPPORTED);
  NodeVerdict lin = judge(resize("ic_rs_lin_bad", "linear", {1, 2, 2, 2, 2}), "10.1");
  EXPECT_EQ(lin.verdict, Verdict::UNSUPPORTED);
  ASSERT_NE(reason(lin, "resize_nd"), nullptr);
  EXPECT_NE(reason(lin, "resize_nd")->source.find("onnxOpImporters.cpp:4614"), std::string::npos);
  NodeVerdict cubic = judge(resize("ic_rs_cubic_bad", "cubic", {1, 1, 2, 2, 2}), "10.1");
  EXPECT_EQ(cubic.verdict, Verdict::UNSUPPORTED);
  ASSERT_NE(reason(cubic, "resize_nd"), nullptr);
  EXPECT_NE(reason(cubic, "resize_nd")->message.find("axis 2"), std::string::npos);
  // Nearest has no such limit.
  EXPECT_EQ(reason(judge(resize("ic_rs_nearest", "nearest", {1, 2, 2, 2, 2}), "10.1"), "resize_nd"), nullptr);
  // 8.4 has no canUseNDResize.
  EXPECT_EQ(reason(judge(resize("ic_rs_84", "linear", {1, 2, 2, 2, 2}), "8.4"), "resize_nd"), nullptr);
}

TEST(ImporterChecks, OneHotDepthMustBeABuildTimeConstantAt86) {
  Model m = one_node("ic_onehot", 11, [](GraphBuilder& g) {
    g.input("indices", kInt32, {4}).input("depth", kInt32, {});
    g.init_float("values", {2}, {0, 1});
    g.node("OneHot", {"indices", "depth", "values"}, {"y"}, "onehot");
    g.output("y");
  });
  NodeVerdict v = judge(m, "8.6");
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  const Reason* r = reason(v, "const_input(1:depth)");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->source.find("release/8.6:include/NvInfer.h:6391"), std::string::npos) << r->source;
}

TEST(ImporterChecks, DropoutTrainingModeCitesTheImporterLine) {
  Model m = one_node("ic_dropout", 13, [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 8}).input("training", kBool, {});
    g.init_float("ratio", {}, {0.1f});
    g.node("Dropout", {"x", "ratio", "training"}, {"y"}, "dropout");
    g.output("y");
  });
  NodeVerdict v = judge(m, "10.1");
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  const Reason* r = reason(v, "const_input(2:training_mode)");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->source.find("importer 10.1-GA onnxOpImporters.cpp:1709"), std::string::npos) << r->source;
}

TEST(ImporterChecks, E8M0ScalesFollowEachReleasesOwnConvertDtype) {
  // MXFP8: FP8 data with an exponent-only E8M0 block scale. TensorRT names kE8M0 from 10.12, but no
  // convertDtype read after 10.10 maps FLOAT8E8M0 (10.12 and 10.15 importerUtils.cpp:319-337; the other
  // releases carry those): the scale does not import at any release.
  Model m = one_node("ic_e8m0", 23, [](GraphBuilder& g) {
    g.input("x", 17, {1, 32}).input("scale", 24, {1, 1});
    auto& n = g.node("DequantizeLinear", {"x", "scale"}, {"y"}, "dq");
    attr_int(n, "block_size", 32);
    attr_int(n, "axis", 1);
    g.output("y", kFloat, {1, 32});
  });
  EXPECT_EQ(elem_type_trt_name(m.graphs[0].find("scale", m.graphs)->type), "E8M0");
  auto mentions_e8m0 = [](const NodeVerdict& v) {
    return std::any_of(v.reasons.begin(), v.reasons.end(),
                       [](const Reason& r) { return r.message.find("E8M0") != std::string::npos; });
  };
  for (const char* release : {"10.11", "10.12", "10.15", "11.5"}) {
    NodeVerdict v = judge(m, release, Precision::FP8);
    EXPECT_TRUE(mentions_e8m0(v)) << release;
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
  }
}

TEST(ImporterChecks, PowWithAnIntegerExponentImportsFrom108) {
  // 10.8's importer casts an integer exponent to the base's type before the element-wise check.
  auto pow = [](const std::string& name, int base) {
    return one_node(name, 17, [&](GraphBuilder& g) {
      g.input("x", base, {4}).input("e", kInt32, {4});
      g.node("Pow", {"x", "e"}, {"y"}, "pow");
      g.output("y");
    });
  };
  Model float_base = pow("ic_pow_float", kFloat);
  EXPECT_EQ(judge(float_base, "10.7").verdict, Verdict::UNSUPPORTED);
  for (const char* release : {"10.8", "10.11", "11.5"}) EXPECT_EQ(judge(float_base, release).verdict, Verdict::SUPPORTED) << release;
  // An integer base waits for 10.12 ("integer-typed base tensors for Pow").
  Model int_base = pow("ic_pow_int", kInt32);
  EXPECT_EQ(judge(int_base, "10.11").verdict, Verdict::UNSUPPORTED);
  EXPECT_EQ(judge(int_base, "10.12").verdict, Verdict::SUPPORTED);
}

TEST(ImporterChecks, ReleasesAfter1010ReadTheirOwnImporterLines) {
  // 10.16 and 11.0 from their own onnxOpImporters.cpp (data/importer/delta); 11.5 carries 11.0.
  const OpEntry* attention = kb().resolve("10.16").find("Attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->import_src, "10.16-GA onnxOpImporters.cpp:184");
  const OpEntry* swish = kb().resolve("11.5").find("Swish");
  ASSERT_NE(swish, nullptr);
  EXPECT_EQ(swish->import_src, "11.0-GA onnxOpImporters.cpp:6688 (carried forward)");
  // 10.14 has Attention in its table but no importer facts of its own (10.13's carry): no false refusal.
  EXPECT_EQ(kb().resolve("10.14").find("Attention")->import_src, "");
  // Einsum's importer refuses INT32 from 10.13 (onnxOpImporters.cpp:1943), not at 10.11.
  auto refuses_int32 = [](const char* release) {
    const OpEntry* e = kb().resolve(release).find("Einsum");
    return !e->import_types.empty() &&
           std::find(e->import_types[0].types.begin(), e->import_types[0].types.end(), "INT32") == e->import_types[0].types.end();
  };
  EXPECT_FALSE(refuses_int32("10.11"));
  EXPECT_TRUE(refuses_int32("10.13"));
  EXPECT_TRUE(refuses_int32("11.5"));
}

TEST(ImporterChecks, NoReleaseClaimsAnOpItsImporterLacks) {
  // 7.2's table marks SoftmaxCrossEntropyLoss supported, but 7.2.1 has no importer for it.
  Model m = one_node("ic_sce", 13, [](GraphBuilder& g) {
    g.input("scores", kFloat, {2, 5}).input("labels", kInt64, {2});
    g.node("SoftmaxCrossEntropyLoss", {"scores", "labels"}, {"loss"}, "sce");
    g.output("loss");
  });
  NodeVerdict v = judge(m, "8.6");
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_FALSE(hints(v, "7.2"));
}

}  // namespace
}  // namespace trtlens
