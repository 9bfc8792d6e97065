// Issue 8's known contradictions between the support-matrix tables and the importer code, each
// judged with the built-in knowledge base. Every expectation cites the importer code it comes from
// (data/importer/<release>.tsv says where; tools/importer_facts.py extracts it).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <functional>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "support/verdicts.h"
#include "trtlens/compat.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

// A temp folder name per case: "cos_8.6_7".
std::string fmt_name(const std::string& what, const std::string& release, int type) {
  return what + "_" + release + "_" + std::to_string(type);
}

struct Tensor {
  std::string name;
  int type;
  std::vector<int64_t> dims;
};

// One node `op` named "node" over graph inputs `inputs`, producing graph outputs `outputs`.
Model one_node(const std::string& test, int64_t opset, const std::string& op, const std::vector<Tensor>& inputs,
               const std::vector<Tensor>& outputs, const std::function<void(onnx::NodeProto&)>& attrs = {}) {
  ModelBuilder mb(opset);
  auto g = mb.graph();
  std::vector<std::string> in, out;
  for (const auto& t : inputs) {
    if (!t.name.empty()) g.input(t.name, t.type, t.dims);
    in.push_back(t.name);
  }
  for (const auto& t : outputs) out.push_back(t.name);
  onnx::NodeProto& n = g.node(op, in, out, "node");
  if (attrs) attrs(n);
  for (const auto& t : outputs) g.output(t.name, t.type, t.dims);
  return load_model(mb.save(temp_dir("importer_" + test) + "/m.onnx"));
}

std::string reasons(const NodeVerdict& v) {
  std::string s;
  for (const auto& r : v.reasons) s += r.message + " [" + r.source + "]\n";
  return s;
}

bool cites_importer(const NodeVerdict& v) {
  for (const auto& r : v.reasons)
    if (r.source.rfind("importer ", 0) == 0) return true;
  return false;
}

void tensor_attr(onnx::NodeProto& n, const std::string& name, int type, int64_t value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(type);
  t->add_dims(1);
  if (type == kInt64) t->add_int64_data(value);
  else if (type == kFloat) t->add_float_data(static_cast<float>(value));
  else t->add_int32_data(static_cast<int32_t>(value));  // INT32, INT8, UINT8, BOOL, FP16 bits
}

// ---- The tables are too strict: these import. ----

TEST(ImporterFacts, ConstantOfShapeAcceptsEveryValueTypeButUint8From80To93) {
  for (const char* release : {"8.0", "8.6", "9.3"})
    for (int type : {kInt64, kInt32, kBool, kFloat16}) {
      Model m = one_node(fmt_name("cos", release, type), 13, "ConstantOfShape", {{"shape", kInt64, {2}}},
                         {{"y", type == kInt64 && std::string(release) < "9" ? kInt64 : type, {-1, -1}}},
                         [&](onnx::NodeProto& n) { tensor_attr(n, "value", type, 1); });
      NodeVerdict v = judge(m, release);
      EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << release << " type " << type << "\n" << reasons(v);
    }
}

TEST(ImporterFacts, NonZeroAcceptsBoolInt32Int8) {
  for (const char* release : {"8.6", "9.3", "10.1", "11.1"})
    for (int type : {kBool, kInt32, kInt8}) {
      Model m = one_node(fmt_name("nonzero", release, type), 13, "NonZero", {{"x", type, {4}}}, {{"y", kInt64, {1, -1}}});
      NodeVerdict v = judge(m, release);
      EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << release << " type " << type << "\n" << reasons(v);
    }
}

TEST(ImporterFacts, ReduceMeanHasNoTypeCheckIn86) {
  Model m = one_node("reduce_int32", 13, "ReduceMean", {{"x", kInt32, {2, 3}}}, {{"y", kInt32, {1, 1}}});
  NodeVerdict v = judge(m, "8.6");
  EXPECT_EQ(v.verdict, Verdict::SUPPORTED) << reasons(v);
  EXPECT_TRUE(cites_importer(v)) << reasons(v);  // the table lists FP32 FP16 only: say who wins
}

TEST(ImporterFacts, ConstantValuesOfNarrowTypesAreWeights) {
  for (int type : {kUint8, kInt8}) {
    ModelBuilder mb(13);
    auto g = mb.graph();
    onnx::NodeProto& n = g.node("Constant", {}, {"c"}, "node");
    tensor_attr(n, "value", type, 3);
    g.output("c", type, {1});
    Model m = load_model(mb.save(temp_dir(fmt_name("const", "8.6", type)) + "/m.onnx"));
    NodeVerdict v = judge(m, "8.6");
    EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << "type " << type << "\n" << reasons(v);
  }
}

TEST(ImporterFacts, Uint8AtTheNetworkBoundaryImportsIn86) {
  Model m = one_node("uint8_io", 13, "Cast", {{"x", kUint8, {4}}}, {{"y", kFloat, {4}}},
                     [](onnx::NodeProto& n) { attr_int(n, "to", kFloat); });
  NodeVerdict v = judge(m, "8.6");
  EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << reasons(v);
}

TEST(ImporterFacts, ClipAcceptsInt32) {
  for (const char* release : {"8.6", "9.3", "10.1"}) {
    Model m = one_node(fmt_name("clip", release, kInt32), 13, "Clip", {{"x", kInt32, {4}}}, {{"y", kInt32, {4}}});
    NodeVerdict v = judge(m, release);
    EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
  }
}

TEST(ImporterFacts, TopKNeverReadsSorted) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {8});
  g.init_int64("k", {1}, {3});
  attr_int(g.node("TopK", {"x", "k"}, {"v", "i"}, "node"), "sorted", 0);
  g.output("v", kFloat, {3}).output("i", kInt64, {3});
  Model m = load_model(mb.save(temp_dir("topk_sorted") + "/m.onnx"));
  NodeVerdict v = judge(m, "10.1");
  EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << reasons(v);
}

TEST(ImporterFacts, PadWrapModeFrom100) {
  ModelBuilder mb(19);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_int64("pads", {4}, {0, 1, 0, 1});
  attr_string(g.node("Pad", {"x", "pads"}, {"y"}, "node"), "mode", "wrap");
  g.output("y", kFloat, {1, 6});
  Model m = load_model(mb.save(temp_dir("pad_wrap") + "/m.onnx"));
  NodeVerdict v101 = judge(m, "10.1");
  EXPECT_NE(v101.verdict, Verdict::UNSUPPORTED) << reasons(v101);
  NodeVerdict v93 = judge(m, "9.3");
  EXPECT_EQ(v93.verdict, Verdict::UNSUPPORTED) << reasons(v93);  // 9.3 has no wrap mode
}

// ---- The tables are too loose: these do not import. ----

TEST(ImporterFacts, CastToAnIntermediateUint8IsRejectedIn93And101) {
  for (const char* release : {"9.3", "10.1"}) {
    ModelBuilder mb(13);
    auto g = mb.graph();
    g.input("x", kFloat, {4});
    attr_int(g.node("Cast", {"x"}, {"u"}, "node"), "to", kUint8);
    attr_int(g.node("Cast", {"u"}, {"y"}, "back"), "to", kFloat);
    g.output("y", kFloat, {4});
    Model m = load_model(mb.save(temp_dir(fmt_name("cast_u8", release, 0)) + "/m.onnx"));
    NodeVerdict v = judge(m, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    EXPECT_TRUE(cites_importer(v)) << reasons(v);
  }
}

TEST(ImporterFacts, DequantizeLinearRejectsUint8InputIn93And101) {
  for (const char* release : {"9.3", "10.1"}) {
    ModelBuilder mb(13);
    auto g = mb.graph();
    g.input("q", kUint8, {4});
    g.init_float("scale", {}, {0.5f});
    g.node("DequantizeLinear", {"q", "scale"}, {"y"}, "node");
    g.output("y", kFloat, {4});
    Model m = load_model(mb.save(temp_dir(fmt_name("dq_u8", release, 0)) + "/m.onnx"));
    NodeVerdict v = judge(m, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
  }
}

TEST(ImporterFacts, ActivationsRejectInt32In93And101) {
  for (const char* release : {"9.3", "10.1"}) {
    Model m = one_node(fmt_name("relu", release, kInt32), 13, "Relu", {{"x", kInt32, {4}}}, {{"y", kInt32, {4}}});
    NodeVerdict v = judge(m, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    EXPECT_TRUE(cites_importer(v)) << reasons(v);
  }
  Model gelu = one_node("gelu_int32", 20, "Gelu", {{"x", kInt32, {4}}}, {{"y", kInt32, {4}}});
  EXPECT_EQ(judge(gelu, "10.1").verdict, Verdict::UNSUPPORTED) << reasons(judge(gelu, "10.1"));
}

TEST(ImporterFacts, Bf16RejectedByHardSwishAndInstanceNormalization) {
  for (const char* release : {"9.3", "10.1"}) {
    Model hs = one_node(fmt_name("hardswish", release, kBfloat16), 14, "HardSwish", {{"x", kBfloat16, {4}}},
                        {{"y", kBfloat16, {4}}});
    EXPECT_EQ(judge(hs, release).verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(judge(hs, release));
    Model in = one_node(fmt_name("instnorm", release, kBfloat16), 13, "InstanceNormalization",
                        {{"x", kBfloat16, {1, 2, 4}}, {"s", kBfloat16, {2}}, {"b", kBfloat16, {2}}},
                        {{"y", kBfloat16, {1, 2, 4}}});
    EXPECT_EQ(judge(in, release).verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(judge(in, release));
  }
}

TEST(ImporterFacts, RangeRejectsHalfTypes) {
  for (const char* release : {"9.3", "10.1"})
    for (int type : {kFloat16, kBfloat16}) {
      Model m = one_node(fmt_name("range", release, type), 13, "Range",
                         {{"a", type, {}}, {"b", type, {}}, {"d", type, {}}}, {{"y", type, {-1}}});
      NodeVerdict v = judge(m, release);
      EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << " type " << type << "\n" << reasons(v);
    }
}

// ---- Imports, but computes something else: the node does not convert as written (UNSUPPORTED). ----

bool warns(const NodeVerdict& v) {
  for (const auto& r : v.reasons)
    if (r.rule == "ignored") return true;
  return false;
}

TEST(ImporterFacts, ReduceAxesInputOfOpset18IgnoredIn9x) {
  ModelBuilder mb(18);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3});
  g.init_int64("axes", {1}, {1});
  g.node("ReduceMax", {"x", "axes"}, {"y"}, "node");
  g.output("y", kFloat, {2, 1});
  Model m = load_model(mb.save(temp_dir("reduce_axes18") + "/m.onnx"));
  NodeVerdict v93 = judge(m, "9.3");
  EXPECT_TRUE(warns(v93)) << reasons(v93);
  EXPECT_EQ(v93.verdict, Verdict::UNSUPPORTED) << reasons(v93);
  EXPECT_FALSE(warns(judge(m, "10.1"))) << reasons(judge(m, "10.1"));
}

TEST(ImporterFacts, ScatterNDReductionAndShapeStartIgnoredIn86And93) {
  for (const char* release : {"8.6", "9.3"}) {
    Model sc = one_node(fmt_name("scatternd", release, 0), 16, "ScatterND",
                        {{"d", kFloat, {4}}, {"i", kInt32, {1, 1}}, {"u", kFloat, {1}}}, {{"y", kFloat, {4}}},
                        [](onnx::NodeProto& n) { attr_string(n, "reduction", "add"); });
    EXPECT_TRUE(warns(judge(sc, release))) << release << "\n" << reasons(judge(sc, release));
    EXPECT_EQ(judge(sc, release).verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(judge(sc, release));
    Model sh = one_node(fmt_name("shape_start", release, 0), 15, "Shape", {{"x", kFloat, {2, 3, 4}}},
                        {{"y", kInt64, {2}}}, [](onnx::NodeProto& n) { attr_int(n, "start", 1); });
    EXPECT_TRUE(warns(judge(sh, release))) << release << "\n" << reasons(judge(sh, release));
  }
}

TEST(ImporterFacts, ResizeOpset18AttributesIgnoredIn93) {
  ModelBuilder mb(18);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 1, 4, 4});
  g.init_float("scales", {4}, {1, 1, 0.5f, 0.5f});
  auto& n = g.node("Resize", {"x", "", "scales"}, {"y"}, "node");
  attr_string(n, "mode", "linear");
  attr_int(n, "antialias", 1);
  g.output("y", kFloat, {1, 1, 2, 2});
  Model m = load_model(mb.save(temp_dir("resize_antialias") + "/m.onnx"));
  EXPECT_TRUE(warns(judge(m, "9.3"))) << reasons(judge(m, "9.3"));
}

// ---- Releases after 10.10 read every file the code index stores for them (data/importer/sources.tsv). ----

// One Attention node (opset 23) over Q, K, V of `qkv` dims and an optional mask of `mask` dims.
Model attention(const std::string& test, const std::vector<int64_t>& qkv, const std::vector<int64_t>& mask,
                const std::function<void(onnx::NodeProto&)>& attrs = {}) {
  std::vector<Tensor> in = {{"q", kFloat, qkv}, {"k", kFloat, qkv}, {"v", kFloat, qkv}};
  if (!mask.empty()) in.push_back({"mask", kBool, mask});
  return one_node(test, 23, "Attention", in, {{"y", kFloat, qkv}}, attrs);
}

bool cites(const NodeVerdict& v, const std::string& where) {
  for (const auto& r : v.reasons)
    if (r.source.find(where) != std::string::npos) return true;
  return false;
}

TEST(ImporterFacts, Attention3dQkvWithHeadCountsImportsWhereTheImporterReshapesIt) {
  // 10.15-GA onnxOpImporters.cpp:196 reshapes a 3-D Q/K/V to 4-D (AttentionHelpers.cpp:42); 10.16 and 11.0 too.
  Model m = attention("attn_3d", {2, 8, 64}, {}, [](onnx::NodeProto& n) {
    attr_int(n, "q_num_heads", 4);
    attr_int(n, "kv_num_heads", 4);
  });
  for (const char* release : {"10.15", "10.16", "11.0", "11.5"})
    EXPECT_EQ(judge(m, release).verdict, Verdict::SUPPORTED) << release << "\n" << reasons(judge(m, release));
  // 10.14's importer body is not stored: its table's rank 4 stays.
  EXPECT_EQ(judge(m, "10.14").verdict, Verdict::UNSUPPORTED);
  // Without head counts reshapeQKVTensor refuses it (AttentionHelpers.cpp:51).
  Model bare = attention("attn_3d_bare", {2, 8, 64}, {});
  for (const char* release : {"10.15", "11.0"}) {
    NodeVerdict v = judge(bare, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
    EXPECT_TRUE(cites(v, "AttentionHelpers.cpp:51")) << reasons(v);
  }
  EXPECT_TRUE(cites(judge(bare, "10.16"), "AttentionHelpers.cpp:51 (carried forward from 10.15-GA)"))
      << reasons(judge(bare, "10.16"));
}

TEST(ImporterFacts, AttentionMaskOfRankBelowFourIsUnsqueezed) {
  // convertToMaskTensor: 10.15 AttentionHelpers.cpp:146, 11.0 AttentionHelpers.cpp:152.
  Model m = attention("attn_mask2d", {1, 2, 8, 16}, {8, 8});
  for (const char* release : {"10.15", "10.16", "11.0", "11.3"})
    EXPECT_EQ(judge(m, release).verdict, Verdict::SUPPORTED) << release << "\n" << reasons(judge(m, release));
  EXPECT_EQ(judge(m, "10.14").verdict, Verdict::UNSUPPORTED);
  Model rank5 = attention("attn_mask5d", {1, 2, 8, 16}, {1, 1, 1, 8, 8});
  EXPECT_TRUE(cites(judge(rank5, "10.15"), "AttentionHelpers.cpp:146")) << reasons(judge(rank5, "10.15"));
  EXPECT_TRUE(cites(judge(rank5, "11.0"), "AttentionHelpers.cpp:152")) << reasons(judge(rank5, "11.0"));
}

TEST(ImporterFacts, AttentionAttributesTheStaticCheckerRefuses) {
  // onnxOpCheckers.cpp: 11.0 lines 194 (softcap) and 198 (softmax_precision); 10.14 and 10.15 lines 178, 182;
  // 10.16 stores no checker and carries 10.15's.
  Model softcap = attention("attn_softcap", {1, 2, 8, 16}, {}, [](onnx::NodeProto& n) { attr_float(n, "softcap", 30.f); });
  Model precision = attention("attn_precision", {1, 2, 8, 16}, {}, [](onnx::NodeProto& n) {
    attr_int(n, "softmax_precision", kFloat);
  });
  const std::vector<std::pair<const char*, std::pair<const char*, const char*>>> lines = {
      {"11.0", {"onnxOpCheckers.cpp:194", "onnxOpCheckers.cpp:198"}},
      {"11.2", {"onnxOpCheckers.cpp:194", "onnxOpCheckers.cpp:198"}},
      {"10.16", {"onnxOpCheckers.cpp:178 (carried forward from 10.15-GA)", "onnxOpCheckers.cpp:182 (carried forward from 10.15-GA)"}},
      {"10.15", {"onnxOpCheckers.cpp:178", "onnxOpCheckers.cpp:182"}},
      {"10.14", {"onnxOpCheckers.cpp:178", "onnxOpCheckers.cpp:182"}}};
  for (const auto& [release, where] : lines) {
    NodeVerdict a = judge(softcap, release), b = judge(precision, release);
    EXPECT_EQ(a.verdict, Verdict::UNSUPPORTED) << release;
    EXPECT_TRUE(cites(a, where.first)) << release << "\n" << reasons(a);
    EXPECT_EQ(b.verdict, Verdict::UNSUPPORTED) << release;
    EXPECT_TRUE(cites(b, where.second)) << release << "\n" << reasons(b);
  }
  // The table's qk_matmul_output_mode rule is read by neither the importer nor the checker: dropped.
  Model mode = attention("attn_mode", {1, 2, 8, 16}, {}, [](onnx::NodeProto& n) { attr_int(n, "qk_matmul_output_mode", 1); });
  EXPECT_EQ(judge(mode, "11.0").verdict, Verdict::SUPPORTED) << reasons(judge(mode, "11.0"));
}

TEST(ImporterFacts, E8M0FollowsEachReleasesOwnConvertDtype) {
  // No convertDtype after 10.10 maps FLOAT8E8M0 (10.12 and 10.15 read: importerUtils.cpp:319-337); the
  // releases without their own importerUtils.cpp carry 10.10's, 10.12's or 10.15's. TensorRT names kE8M0
  // from 10.12 (types_added.tsv), which widens the release's types, not what its importer represents.
  constexpr int kE8M0 = 24;
  Model m = one_node("e8m0", 23, "Identity", {{"x", kE8M0, {32}}}, {{"y", kE8M0, {32}}});
  for (const char* release : {"10.11", "10.12", "10.13", "10.14", "10.15", "10.16", "11.0", "11.1", "11.5"}) {
    NodeVerdict v = judge(m, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    EXPECT_TRUE(cites_importer(v)) << release << "\n" << reasons(v);
  }
  for (const char* release : {"10.12", "10.15", "11.1"}) {
    const Release& r = KnowledgeBase::builtin().resolve(release);
    EXPECT_TRUE(std::find(r.types.begin(), r.types.end(), "E8M0") != r.types.end()) << release;
    EXPECT_TRUE(std::find(r.types_importer.begin(), r.types_importer.end(), "E8M0") == r.types_importer.end())
        << release;
  }
}

TEST(ImporterFacts, EveryNewlyReadFileGivesItsReleaseAFact) {
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  // importerUtils.cpp: 10.12's own convertDtype; 10.11 carries 10.10's, 10.13 and 10.14 carry 10.12's.
  EXPECT_EQ(kb.resolve("10.12").policy.source("int64"), "importer 10.12-GA importerUtils.cpp:331");
  EXPECT_EQ(kb.resolve("10.11").policy.source("int64"),
            "importer 10.11-GA importerUtils.cpp:333 (carried forward from 10.10-GA)");
  EXPECT_EQ(kb.resolve("10.14").policy.source("int64"),
            "importer 10.14-GA importerUtils.cpp:331 (carried forward from 10.12-GA)");
  EXPECT_EQ(kb.resolve("10.16").policy.source("int64"),
            "importer 10.16-GA importerUtils.cpp:331 (carried forward from 10.15-GA)");
  // ModelImporter.cpp: 10.12's UINT8 boundary check (its page 0); 10.15 read page 0 only and carries it.
  EXPECT_EQ(kb.resolve("10.12").policy.source("uint8_boundary"), "importer 10.12-GA ModelImporter.cpp:320");
  EXPECT_EQ(kb.resolve("10.15").policy.source("uint8_boundary"),
            "importer 10.15-GA ModelImporter.cpp:320 (carried forward from 10.12-GA)");
  // 10.16 and 11.0 read characters 0-25000 of their own (the boundary check at lines 520 and 531).
  EXPECT_EQ(kb.resolve("10.16").policy.source("uint8_boundary"), "importer 10.16-GA ModelImporter.cpp:520");
  EXPECT_EQ(kb.resolve("11.0").policy.source("uint8_boundary"), "importer 11.0-GA ModelImporter.cpp:531");
  // onnxOpImporters.cpp: 10.15's own GA file (page 0) registers Attention and TRT_QuantizedAttention; the
  // importers on its other pages are 10.13's.
  for (const char* op : {"Attention", "TRT_QuantizedAttention", "Einsum"}) ASSERT_NE(kb.resolve("10.15").find(op), nullptr) << op;
  EXPECT_EQ(kb.resolve("10.15").find("Attention")->import_src, "10.15-GA onnxOpImporters.cpp:185");
  EXPECT_EQ(kb.resolve("10.15").find("TRT_QuantizedAttention")->import_src, "10.15-GA onnxOpImporters.cpp:229");
  EXPECT_EQ(kb.resolve("10.15").find("Einsum")->import_src,
            "10.15-GA onnxOpImporters.cpp:1941 (carried forward from 10.13-GA)");
  // onnxOpCheckers.cpp: 11.0's own checker moves BatchNormalization's training_mode check to line 227 (10.10:
  // 193); 10.11, 10.14 and 10.15 read theirs (193, 207, 209); 10.12, 10.13 and 10.16 store none and carry the
  // newest earlier one.
  auto training_mode = [&](const char* release) {
    Model m = one_node(std::string("bn_training_") + release, 15, "BatchNormalization",
                       {{"x", kFloat, {1, 2, 4, 4}}, {"s", kFloat, {2}}, {"b", kFloat, {2}}, {"m", kFloat, {2}}, {"v", kFloat, {2}}},
                       {{"y", kFloat, {1, 2, 4, 4}}}, [](onnx::NodeProto& n) { attr_int(n, "training_mode", 1); });
    return judge(m, release);
  };
  const std::vector<std::pair<const char*, const char*>> bn = {
      {"11.0", "importer 11.0-GA onnxOpCheckers.cpp:227"}, {"11.4", "onnxOpCheckers.cpp:227"},
      {"10.14", "importer 10.14-GA onnxOpCheckers.cpp:207"}, {"10.15", "importer 10.15-GA onnxOpCheckers.cpp:209"},
      {"10.16", "onnxOpCheckers.cpp:209 (carried forward from 10.15-GA)"},
      {"10.11", "importer 10.11-GA onnxOpCheckers.cpp:193"},
      {"10.13", "onnxOpCheckers.cpp:193 (carried forward from 10.11-GA)"}};
  for (const auto& [release, where] : bn) {
    NodeVerdict v = training_mode(release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release;
    EXPECT_TRUE(cites(v, where)) << release << "\n" << reasons(v);
  }
  // 10.12 and 10.14 store no importer: 10.11's and 10.13's rows, per file.
  EXPECT_EQ(kb.resolve("10.12").find("Abs")->import_src, "10.12-GA onnxOpImporters.cpp:142 (carried forward from 10.11-GA)");
  EXPECT_EQ(kb.resolve("10.14").find("Abs")->import_src, "10.14-GA onnxOpImporters.cpp:143 (carried forward from 10.13-GA)");
}

}  // namespace
}  // namespace trtlens
