// The verdict model (DESIGN.md) on small models built in the test.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/compat.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

const KnowledgeBase& kb() { return KnowledgeBase::builtin(); }

const NodeVerdict& verdict_of(const Model& m, const Annotations& a, const std::string& name) {
  for (const auto& v : a.nodes)
    if (m.graphs[static_cast<size_t>(v.graph)].nodes[static_cast<size_t>(v.index)].name == name) return v;
  throw std::runtime_error("no node " + name);
}

bool mentions(const NodeVerdict& v, const std::string& text) {
  for (const auto& r : v.reasons)
    if (r.message.find(text) != std::string::npos) return true;
  return false;
}

bool hints(const NodeVerdict& v, const std::string& text) {
  for (const auto& h : v.hints)
    if (h.find(text) != std::string::npos) return true;
  return false;
}

// x(FP32) -> Conv -> BatchNormalization -> Shape -> Reshape(x, shape) ...
Model conv_bn_model(const std::string& name) {
  std::string dir = temp_dir(name);
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("scale", {4}, {1, 1, 1, 1}).init_float("bias", {4}, {0, 0, 0, 0});
  g.init_float("mean", {4}, {0, 0, 0, 0}).init_float("var", {4}, {1, 1, 1, 1});
  g.node("Conv", {"x", "w"}, {"c"}, "conv");
  g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}, "bn");
  g.node("Shape", {"x"}, {"s"}, "shape");
  g.node("Flatten", {"bn"}, {"f"}, "flatten");
  g.node("Reshape", {"f", "s"}, {"r"}, "reshape");
  g.output("r");
  return load_model(mb.save(dir + "/m.onnx"));
}

TEST(CompatVerdicts, PlainModelSupportedAtFp16) {
  Model m = conv_bn_model("compat_fp16");
  Annotations a = annotate(m, kb().resolve("8.6"), Precision::FP16);
  EXPECT_TRUE(a.converts);
  const NodeVerdict& conv = verdict_of(m, a, "conv");
  EXPECT_EQ(conv.verdict, Verdict::SUPPORTED);
  EXPECT_EQ(conv.precision, "FP16");
  EXPECT_EQ(a.summary[static_cast<size_t>(Verdict::UNSUPPORTED)], 0);
}

TEST(CompatVerdicts, BatchNormalizationFallsBackAtInt8In86) {
  Model m = conv_bn_model("compat_bn_int8");
  Annotations a = annotate(m, kb().resolve("8.6.1.6"), Precision::INT8);
  const NodeVerdict& bn = verdict_of(m, a, "bn");
  EXPECT_EQ(bn.verdict, Verdict::FALLBACK);
  EXPECT_EQ(bn.precision, "FP32");
  EXPECT_TRUE(mentions(bn, "no INT8 kernel"));
  EXPECT_EQ(verdict_of(m, a, "conv").precision, "INT8");  // Conv lists INT8 in 8.6
  ASSERT_FALSE(bn.reasons.empty());
  EXPECT_NE(bn.reasons[0].source.find("8.6"), std::string::npos);
}

// Narrowing INT64 to INT32 (before 9.0) matters only where a value may not fit:
// shape arithmetic and small constants get one model note, data of unknown range
// (a graph input, a large constant) is IMPLICIT_CAST.
TEST(CompatVerdicts, Int64ShapeTensorsAreANoteAndInt64DataIsImplicitCast) {
  std::string dir = temp_dir("compat_int64");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3});
  g.input("ids", kInt64, {2, 3});
  g.init_int64("minus_one", {1}, {-1});
  g.init_int64("big", {1}, {int64_t{1} << 40});
  g.node("Shape", {"x"}, {"s"}, "shape");
  g.node("Concat", {"minus_one", "s"}, {"s2"}, "concat");
  attr_int(g.node("Slice", {"s2", "minus_one", "minus_one"}, {"s3"}, "slice"), "unused", 0);
  g.node("Reshape", {"x", "s"}, {"r"}, "reshape");
  g.node("Add", {"ids", "big"}, {"sum"}, "add_data");
  g.output("r").output("sum").output("s3");
  Model m = load_model(mb.save(dir + "/m.onnx"));

  Annotations a86 = annotate(m, kb().resolve("8.6"), Precision::FP32);
  EXPECT_EQ(verdict_of(m, a86, "shape").verdict, Verdict::SUPPORTED);
  EXPECT_EQ(verdict_of(m, a86, "shape").precision, "INT32");
  EXPECT_EQ(verdict_of(m, a86, "concat").verdict, Verdict::SUPPORTED);
  EXPECT_EQ(verdict_of(m, a86, "reshape").verdict, Verdict::SUPPORTED);
  const NodeVerdict& add = verdict_of(m, a86, "add_data");
  EXPECT_EQ(add.verdict, Verdict::IMPLICIT_CAST);
  EXPECT_TRUE(mentions(add, "'ids'"));
  EXPECT_TRUE(mentions(add, "'big'"));
  EXPECT_TRUE(hints(add, "9.0"));  // the first release whose policy says INT64 is native
  bool noted = false;
  for (const auto& note : a86.notes) noted |= note.find("INT64 tensors of shapes") != std::string::npos;
  EXPECT_TRUE(noted);

  Annotations a90 = annotate(m, kb().resolve("9.0"), Precision::FP32);
  EXPECT_EQ(verdict_of(m, a90, "add_data").verdict, Verdict::SUPPORTED);
  EXPECT_EQ(verdict_of(m, a90, "shape").precision, "INT64");  // judged by its own type
  for (const auto& note : a90.notes) EXPECT_EQ(note.find("INT64 tensors of shapes"), std::string::npos) << note;
}

// INT64 judged by value (issue 21): PyTorch's "to the end" sentinel as a Slice end is clamped by the
// importer without changing the slice (policy int64_index_clamp, from 7.2), and a value that may not
// fit never taints outputs whose values come from other inputs (a Slice's data, a Pad's pads).
TEST(CompatVerdicts, Int64SliceSentinelIsClampedAndDoesNotTaintShapes) {
  std::string dir = temp_dir("compat_int64_sentinel");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3, 4});
  g.input("ids", kInt64, {5});
  auto constant = [&](const std::string& name, std::vector<int64_t> v) {
    attr_tensor_int64(g.node("Constant", {}, {name}, name), "value", {static_cast<int64_t>(v.size())}, v);
  };
  const int64_t kToTheEnd = -9223372036854775807;
  constant("c_start", {-1});
  constant("c_end", {kToTheEnd});
  constant("c_axes", {0});
  constant("c_steps", {-1});
  constant("c_flat", {-1});
  constant("c_small", {1, 192});  // known values that fit: never a narrowing
  constant("c_shared", {kToTheEnd});  // a sentinel that is also data
  g.node("Shape", {"x"}, {"s"}, "shape");
  g.node("Slice", {"s", "c_start", "c_end", "c_axes", "c_steps"}, {"rev"}, "slice_shape");
  attr_ints(g.node("Transpose", {"rev"}, {"tr"}, "transpose"), "perm", {0});
  g.node("Reshape", {"tr", "c_flat"}, {"flat"}, "reshape");
  attr_int(g.node("Cast", {"flat"}, {"cast"}, "cast"), "to", kInt64);
  attr_int(g.node("Concat", {"cast", "cast"}, {"pads"}, "concat"), "axis", 0);
  attr_int(g.node("Concat", {"c_small", "c_small"}, {"small2"}, "concat_small"), "axis", 0);
  g.node("Pad", {"x", "pads"}, {"padded"}, "pad");
  g.node("Slice", {"ids", "c_start", "c_end"}, {"ids_tail"}, "slice_ids");
  g.node("Slice", {"s", "c_start", "c_shared"}, {"s_tail"}, "slice_shared");
  g.node("Add", {"s_tail", "c_shared"}, {"sum"}, "add_shared");
  g.output("padded").output("ids_tail").output("sum").output("small2");
  Model m = load_model(mb.save(dir + "/m.onnx"));

  Annotations a86 = annotate(m, kb().resolve("8.6"), Precision::FP32);
  for (const char* name : {"c_end", "slice_shape", "transpose", "reshape", "cast", "concat", "pad", "c_small",
                           "concat_small", "shape"})
    EXPECT_EQ(verdict_of(m, a86, name).verdict, Verdict::SUPPORTED) << name;
  bool noted = false;
  for (const auto& note : a86.notes)
    noted |= note.find("clamps it to INT32") != std::string::npos && note.find("4551") != std::string::npos;
  EXPECT_TRUE(noted);
  // The Slice of a graph input narrows that input's data, not the clamped end.
  const NodeVerdict& tail = verdict_of(m, a86, "slice_ids");
  EXPECT_EQ(tail.verdict, Verdict::IMPLICIT_CAST);
  EXPECT_TRUE(mentions(tail, "'ids'"));
  EXPECT_FALSE(mentions(tail, "'c_end'"));
  // A sentinel that an Add also reads as data is a narrowing where it is made and where it is added.
  EXPECT_EQ(verdict_of(m, a86, "c_shared").verdict, Verdict::IMPLICIT_CAST);
  EXPECT_EQ(verdict_of(m, a86, "add_shared").verdict, Verdict::IMPLICIT_CAST);
  EXPECT_EQ(verdict_of(m, a86, "slice_shared").verdict, Verdict::IMPLICIT_CAST);

  // 7.0's Slice importer does not clamp to the dimensions: the sentinel stays a narrowing there.
  Annotations a70 = annotate(m, kb().resolve("7.0"), Precision::FP32);
  EXPECT_EQ(verdict_of(m, a70, "c_end").verdict, Verdict::IMPLICIT_CAST);
  EXPECT_EQ(verdict_of(m, a70, "slice_shape").verdict, Verdict::IMPLICIT_CAST);
  EXPECT_EQ(verdict_of(m, a70, "transpose").verdict, Verdict::SUPPORTED);  // the slice of a shape is a shape

  // The matrix (judged from node facts) agrees with the per-runtime verdicts.
  Matrix mx = compute_matrix(m, kb());
  for (const MatrixCell& c : mx.cells)
    if (c.release->name == "8.6" && c.precision == Precision::FP32) EXPECT_EQ(c.summary, a86.summary);
}

// Hints a person would write (issue 21): Dropout exported in training mode with ratio 0, ONNX Runtime
// dynamic quantization, and a hint on every UNKNOWN.
TEST(CompatHints, DropoutDynamicQuantizationAndUnknownGetHintsInWords) {
  std::string dir = temp_dir("compat_hints");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.input("q", kUint8, {1, 3, 8, 8});
  g.init_float("ratio", {}, {0.0f});
  auto* on = g.proto()->add_initializer();
  on->set_name("on");
  on->set_data_type(kBool);
  on->add_int32_data(1);
  g.node("Dropout", {"x", "ratio", "on"}, {"d"}, "dropout");
  g.node("DynamicQuantizeLinear", {"x"}, {"dq", "scale", "zp"}, "dyn_quant");
  g.node("ConvInteger", {"q", "q"}, {"ci"}, "conv_integer");
  g.node("Reciprocal", {"x"}, {"rec"}, "reciprocal");
  g.node("GlobalLpPool", {"x"}, {"lp"}, "lp_pool");
  g.output("d").output("dq").output("ci").output("rec").output("lp");
  Model m = load_model(mb.save(dir + "/m.onnx"));

  Annotations a86 = annotate(m, kb().resolve("8.6"), Precision::FP32);
  const NodeVerdict& dropout = verdict_of(m, a86, "dropout");
  EXPECT_EQ(dropout.verdict, Verdict::UNSUPPORTED);
  EXPECT_TRUE(hints(dropout, "ratio is 0, the node is an identity: export with model.eval() or fold it"));
  EXPECT_FALSE(hints(dropout, "change the constant values"));
  // The message reads in words: no rule-language set.
  EXPECT_TRUE(mentions(dropout, "release requires every value to be 0"));
  for (const char* name : {"dyn_quant", "conv_integer"}) {
    const NodeVerdict& v = verdict_of(m, a86, name);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << name;
    EXPECT_TRUE(hints(v, "re-quantize with Q/DQ (static quantization")) << name;
    EXPECT_TRUE(mentions(v, "TensorRT 8.6 does not support")) << name;
  }
  // 7.0's table marks GlobalLpPool N though its importer registers one that checks no type: UNKNOWN, and a way
  // to find out. Reciprocal, also N in the table, follows its importer's type check (7.0 onnx2trt_utils.cpp
  // unaryHelper): SUPPORTED on FP32.
  Annotations a70 = annotate(m, kb().resolve("7.0"), Precision::FP32);
  size_t unknown = 0;
  for (const NodeVerdict& v : a70.nodes) {
    if (v.verdict != Verdict::UNKNOWN) continue;
    ++unknown;
    EXPECT_FALSE(v.hints.empty()) << v.index;
  }
  EXPECT_GE(unknown, 1u);
  EXPECT_TRUE(hints(verdict_of(m, a70, "lp_pool"), "only a real build can tell"));
  EXPECT_EQ(verdict_of(m, a70, "reciprocal").verdict, Verdict::SUPPORTED);

  // --unknown-as unsupported moves those verdicts and the summary with them.
  Annotations ci = a70;
  count_unknown_as_unsupported(ci);
  EXPECT_EQ(ci.summary[static_cast<size_t>(Verdict::UNKNOWN)], 0);
  EXPECT_EQ(ci.summary[static_cast<size_t>(Verdict::UNSUPPORTED)],
            a70.summary[static_cast<size_t>(Verdict::UNSUPPORTED)] + static_cast<int>(unknown));
  EXPECT_FALSE(ci.converts);
  EXPECT_EQ(verdict_of(m, ci, "lp_pool").verdict, Verdict::UNSUPPORTED);
  Matrix mx = compute_matrix(m, kb());
  count_unknown_as_unsupported(mx);
  for (const MatrixCell& c : mx.cells) EXPECT_EQ(c.summary[static_cast<size_t>(Verdict::UNKNOWN)], 0);
}

TEST(CompatVerdicts, ImplicitInt8FallsBackFrom100WithThatReason) {
  Model m = conv_bn_model("compat_int8_10");
  Annotations a = annotate(m, kb().resolve("10.0"), Precision::INT8);
  const NodeVerdict& conv = verdict_of(m, a, "conv");
  EXPECT_EQ(conv.verdict, Verdict::FALLBACK);
  EXPECT_TRUE(mentions(conv, "deprecated"));
  EXPECT_TRUE(a.converts);
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes[0].find("Q/DQ"), std::string::npos);
  // Integer nodes are not judged by the float precision.
  EXPECT_EQ(verdict_of(m, a, "shape").verdict, Verdict::SUPPORTED);
}

TEST(CompatVerdicts, ImplicitInt8IsRemovedIn110NotDeprecated) {
  EXPECT_FALSE(kb().resolve("10.16").policy.implicit_int8_removed);
  EXPECT_TRUE(kb().resolve("11.0").policy.implicit_int8_removed);
  EXPECT_NE(kb().resolve("11.0").policy.source("implicit_int8").find("IInt8Calibrator"), std::string::npos);
  Model m = conv_bn_model("compat_int8_11");
  Annotations a = annotate(m, kb().resolve("11.0"), Precision::INT8);
  const NodeVerdict& conv = verdict_of(m, a, "conv");
  EXPECT_EQ(conv.verdict, Verdict::FALLBACK);
  EXPECT_FALSE(mentions(conv, "deprecated"));
  for (const auto& n : a.notes) EXPECT_EQ(n.find("deprecated"), std::string::npos) << n;
}

TEST(CompatVerdicts, StronglyTyped11SaysToConvertTheModelFirst) {
  Model m = conv_bn_model("compat_11_fp16");
  Annotations a = annotate(m, kb().resolve("11.0"), Precision::FP16);
  const NodeVerdict& conv = verdict_of(m, a, "conv");
  EXPECT_EQ(conv.verdict, Verdict::FALLBACK);
  EXPECT_EQ(conv.precision, "FP32");
  EXPECT_TRUE(hints(conv, "AutoCast"));
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes[0].find("strongly typed"), std::string::npos);
  Annotations fp32 = annotate(m, kb().resolve("11.0"), Precision::FP32);
  EXPECT_EQ(verdict_of(m, fp32, "conv").verdict, Verdict::SUPPORTED);
  EXPECT_TRUE(fp32.notes.empty());
}

TEST(CompatVerdicts, QdqModelJudgedOnItsQuantizedRegions) {
  std::string dir = temp_dir("compat_qdq");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.init_float("xs", {}, {0.1f});
  auto zp = [&](const std::string& name) {
    auto* t = g.proto()->add_initializer();
    t->set_name(name);
    t->set_data_type(kInt8);
    t->set_raw_data(std::string(1, '\0'));
  };
  zp("xz");
  zp("wz");
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("ws", {}, {0.01f});
  g.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, "q_x");
  g.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "dq_x");
  g.node("QuantizeLinear", {"w", "ws", "wz"}, {"wq"}, "q_w");
  g.node("DequantizeLinear", {"wq", "ws", "wz"}, {"wd"}, "dq_w");
  g.node("Conv", {"xd", "wd"}, {"c"}, "conv");
  g.node("Sigmoid", {"c"}, {"y"}, "sigmoid");
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  Annotations a = annotate(m, kb().resolve("10.0"), Precision::INT8);
  EXPECT_EQ(verdict_of(m, a, "conv").verdict, Verdict::SUPPORTED);
  EXPECT_EQ(verdict_of(m, a, "conv").precision, "INT8");
  EXPECT_EQ(verdict_of(m, a, "dq_x").precision, "INT8");
  const NodeVerdict& sig = verdict_of(m, a, "sigmoid");
  EXPECT_EQ(sig.verdict, Verdict::FALLBACK);
  EXPECT_TRUE(mentions(sig, "Q/DQ"));
  // No "implicit INT8 is deprecated" note for a Q/DQ model.
  for (const auto& n : a.notes) EXPECT_EQ(n.find("deprecated"), std::string::npos) << n;
}

TEST(CompatVerdicts, OpMarkedNIsUnsupportedWithTheReleaseThatAddsIt) {
  std::string dir = temp_dir("compat_n");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("n", kInt64, {});
  auto& w = g.node("HannWindow", {"n"}, {"w"}, "window");
  (void)w;
  g.output("w");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  Annotations a = annotate(m, kb().resolve("10.1"), Precision::FP32);
  const NodeVerdict& v = verdict_of(m, a, "window");
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_FALSE(a.converts);
  EXPECT_TRUE(hints(v, "10.4")) << (v.hints.empty() ? "" : v.hints[0]);
  EXPECT_EQ(annotate(m, kb().resolve("10.4"), Precision::FP32).nodes[0].verdict, Verdict::SUPPORTED);
}

TEST(CompatVerdicts, FailedRuleCitesItAndHints) {
  std::string dir = temp_dir("compat_rule");
  ModelBuilder mb(11);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 4, 4}).input("scales", kFloat, {4});
  g.init_float("roi", {0}, {});
  auto& r = g.node("Resize", {"x", "roi", "scales"}, {"y"}, "resize");
  attr_string(r, "mode", "cubic");
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  Annotations a72 = annotate(m, kb().resolve("7.2"), Precision::FP32);
  const NodeVerdict& v72 = a72.nodes[0];
  EXPECT_EQ(v72.verdict, Verdict::UNSUPPORTED);
  bool cites_mode = false;
  for (const auto& reason : v72.reasons)
    if (reason.rule.find("attr_in(mode") == 0) {
      cites_mode = true;
      EXPECT_NE(reason.source.find("7.2"), std::string::npos);
      EXPECT_NE(reason.message.find("cubic"), std::string::npos) << reason.message;
    }
  EXPECT_TRUE(cites_mode);
  EXPECT_FALSE(v72.hints.empty());
}

// Fuzz finding F11: a Cast `to` past int's range was converted to an element type (UB that the
// sanitizer build reports); the value is named as a number instead.
TEST(CompatVerdicts, CastToPastTheTypeRangeIsNamedAsANumber) {
  std::string dir = temp_dir("compat_cast_range");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2});
  attr_int(g.node("Cast", {"x"}, {"y"}, "cast"), "to", int64_t{1} << 40);
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  const NodeVerdict v = annotate(m, kb().resolve("10.1"), Precision::FP32).nodes[0];
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_TRUE(mentions(v, "attribute to is 1099511627776;")) << v.reasons[0].message;
}

TEST(CompatVerdicts, CustomDomainNeedsAPlugin) {
  std::string dir = temp_dir("compat_custom");
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {2});
  g.node("FancyOp", {"x"}, {"y"}, "fancy", "com.example");
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  Annotations a = annotate(m, kb().resolve("10.0"), Precision::FP32);
  const NodeVerdict& v = a.nodes[0];
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_EQ(v.reasons.at(0).rule, "domain");
  EXPECT_TRUE(hints(v, "plugin"));
}

TEST(CompatVerdicts, LocalFunctionCallJudgedByItsBody) {
  std::string dir = temp_dir("compat_function");
  ModelBuilder mb(13);
  mb.opset("local", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {2});
  g.node("Fn", {"x"}, {"y"}, "call", "local");
  g.output("y");
  mb.add_function("Fn", "local", {"a"}, {"b"});
  mb.function_node("Fn", "local", "Relu", {"a"}, {"b"});
  Model m = load_model(mb.save(dir + "/m.onnx"));
  Annotations a = annotate(m, kb().resolve("10.0"), Precision::FP32);
  ASSERT_EQ(a.nodes.size(), 2u);
  EXPECT_EQ(a.nodes[1].graph, 1);  // fn:Fn body annotated too
  EXPECT_EQ(a.nodes[0].verdict, Verdict::SUPPORTED);
  EXPECT_TRUE(mentions(a.nodes[0], "fn:Fn"));
}

TEST(CompatVerdicts, Bf16ModelUnsupportedBefore90) {
  std::string dir = temp_dir("compat_bf16");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kBfloat16, {2});
  g.node("Relu", {"x"}, {"y"}, "relu");
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(annotate(m, kb().resolve("8.6"), Precision::FP32).nodes[0].verdict, Verdict::UNSUPPORTED);
  const NodeVerdict v = annotate(m, kb().resolve("9.0"), Precision::BF16).nodes[0];
  EXPECT_EQ(v.verdict, Verdict::SUPPORTED);
  EXPECT_EQ(v.precision, "BF16");
}

TEST(CompatMatrix, EveryReleaseAndPrecisionAndTheMinimumRelease) {
  std::string dir = temp_dir("compat_matrix");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("n", kInt64, {});
  g.node("HannWindow", {"n"}, {"w"}, "window");
  g.output("w");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  Matrix mx = compute_matrix(m, kb());
  EXPECT_EQ(mx.cells.size(), kb().releases().size() * kAllPrecisions.size());
  ASSERT_NE(mx.min_converting, nullptr);
  EXPECT_EQ(mx.min_converting->name, "10.4");
}

TEST(CompatPrecision, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(parse_precision("FP16"), Precision::FP16);
  EXPECT_EQ(parse_precision("best"), Precision::BEST);
  EXPECT_THROW(parse_precision("fp64"), std::exception);
}

}  // namespace
}  // namespace trtlens

namespace trtlens {
namespace {

// The matrix judges a node once per class of releases; its counts must equal
// a full annotate() of every runtime.
TEST(CompatMatrix, CountsEqualAnnotatingEveryRuntime) {
  using namespace trtlens::test;
  std::string dir = temp_dir("compat_matrix_equal");
  ModelBuilder mb(13);
  mb.opset("local", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8}).input("n", kInt64, {});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("xs", {}, {0.1f});
  auto* zp = g.proto()->add_initializer();
  zp->set_name("xz");
  zp->set_data_type(kInt8);
  zp->set_raw_data(std::string(1, '\0'));
  g.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, "q");
  g.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "dq");
  g.node("Conv", {"xd", "w"}, {"c"}, "conv");
  g.node("Shape", {"c"}, {"s"}, "shape");
  g.node("Reshape", {"c", "s"}, {"r"}, "reshape");
  auto& resize = g.node("Resize", {"r", "", "", "s"}, {"z"}, "resize");
  attr_string(resize, "mode", "cubic");
  g.node("Fn", {"z"}, {"y"}, "call", "local");
  g.node("Custom", {"y"}, {"o"}, "custom", "com.example");
  g.output("o");
  mb.add_function("Fn", "local", {"a"}, {"b"});
  mb.function_node("Fn", "local", "Gelu", {"a"}, {"b"});
  Model m = load_model(mb.save(dir + "/m.onnx"));
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  Matrix mx = compute_matrix(m, kb);
  ASSERT_EQ(mx.cells.size(), kb.releases().size() * kAllPrecisions.size());
  for (const auto& cell : mx.cells) {
    Annotations a = annotate(m, *cell.release, cell.precision);
    EXPECT_EQ(cell.summary, a.summary) << cell.release->name << " " << precision_name(cell.precision);
    EXPECT_EQ(cell.converts, a.converts);
  }
}

// Nodes that look alike (same op and attributes) but differ in what their
// verdict reads: the matrix, which judges equal facts once, must tell them apart.
TEST(CompatMatrix, LookAlikeNodesKeepTheirOwnVerdicts) {
  using namespace trtlens::test;
  std::string dir = temp_dir("compat_matrix_twins");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8}).input("dynamic_shape", kInt64, {2});
  g.init_int64("const_shape", {2}, {1, 192});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("ws", {}, {0.1f});
  // Reshape twins: a constant shape, a shape given at run time.
  g.node("Reshape", {"x", "const_shape"}, {"r1"}, "reshape_const");
  g.node("Reshape", {"x", "dynamic_shape"}, {"r2"}, "reshape_dynamic");
  // Conv twins whose weights are equal in every tensor fact (computed, foldable, FLOAT [4,3,3,3])
  // and differ only in their producer: a DequantizeLinear of constants counts as weights (its
  // input is float, so no Q/DQ region forms around the Conv).
  g.node("DequantizeLinear", {"w", "ws"}, {"wd1"}, "dq");
  g.node("Identity", {"w"}, {"wd2"}, "identity");
  g.node("Conv", {"x", "wd1"}, {"c1"}, "conv_dq");
  g.node("Conv", {"x", "wd2"}, {"c2"}, "conv_identity");
  g.output("r1").output("r2").output("c1").output("c2");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  Matrix mx = compute_matrix(m, kb);
  bool reshapes_differ = false, convs_differ = false;
  for (const auto& cell : mx.cells) {
    Annotations a = annotate(m, *cell.release, cell.precision);
    EXPECT_EQ(cell.summary, a.summary) << cell.release->name << " " << precision_name(cell.precision);
    reshapes_differ = reshapes_differ || a.nodes[0].verdict != a.nodes[1].verdict;
    convs_differ = convs_differ || a.nodes[4].verdict != a.nodes[5].verdict;
  }
  // The twins really differ somewhere, so a matrix that mixed them up would miscount.
  EXPECT_TRUE(reshapes_differ);
  EXPECT_TRUE(convs_differ);
}

// A knowledge base of one release, 9.9, written in the test (data/trt/README.md format).
KnowledgeBase test_kb(const std::string& policies, const std::string& rows) {
  std::string text =
      "# release: 9.9\n# source: test\n# basis: table\n# types: FP32 FP16 INT32 BOOL\n# types_limited: -\n"
      "# importer: 9.9-GA 0123456789ab\n# types_importer: FP32 FP16 INT8 UINT8 INT32 INT64 BOOL\n" +
      policies + "op\tstatus\ttypes\trules\tplugin\timporter\tbasis\trules_src\tnote\timport_types\timport_src\tignored\n" +
      rows;
  return KnowledgeBase::parse({{"9.9.tsv", text}});
}

Model unary_model(const std::string& name, const std::string& op, int type) {
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", type, {2, 3});
  g.node(op, {"x"}, {"y"}, "node");
  g.output("y");
  return load_model(mb.save(temp_dir(name) + "/m.onnx"));
}

TEST(CompatImporterFacts, ImporterTypeChecksRuleAndCiteTheImporter) {
  KnowledgeBase k = test_kb("", "Relu\tY\tFP32 FP16\t-\t-\tyes\ttable\t-\t-\t0:FP32|FP16|INT8@ops.cpp:10\t9.9-GA ops.cpp:7\t-\n"
                                "Abs\tY\tFP32\t-\t-\tyes\ttable\t-\t-\t*\t9.9-GA ops.cpp:20\t-\n");
  const Release& r = k.resolve("9.9");
  Model relu = unary_model("importer_relu", "Relu", kInt32);
  Annotations a = annotate(relu, k, r, Precision::FP32);  // a parsed knowledge base: no throw
  const NodeVerdict& v = verdict_of(relu, a, "node");
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_EQ(v.reasons[0].source, "importer 9.9-GA ops.cpp:10");
  EXPECT_TRUE(mentions(v, "accepts FP32 FP16 INT8"));

  // No type check in the importer: the table's narrower list does not make it UNSUPPORTED.
  Model abs = unary_model("importer_abs", "Abs", kInt32);
  Annotations b = annotate(abs, k, r, Precision::FP32);
  const NodeVerdict& w = verdict_of(abs, b, "node");
  EXPECT_EQ(w.verdict, Verdict::SUPPORTED);
  EXPECT_TRUE(mentions(w, "support matrix lists FP32"));
  EXPECT_EQ(w.reasons[0].source, "importer 9.9-GA ops.cpp:20");
}

// 8.5 and 8.6 import INT8 Q/DQ only with a zero-point input (importer 8.6-GA builtin_op_importers.cpp:1216);
// 9.0 reads it only when present.
TEST(CompatImporterFacts, QdqWithoutZeroPointIsUnsupportedIn86) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_float("scale", {}, {0.5f});
  g.node("QuantizeLinear", {"x", "scale"}, {"q"}, "q");
  g.node("DequantizeLinear", {"q", "scale"}, {"y"}, "dq");
  g.output("y");
  Model m = load_model(mb.save(temp_dir("qdq_no_zero_point") + "/m.onnx"));
  Annotations a = annotate(m, kb().resolve("8.6"), Precision::INT8);
  const NodeVerdict& q = verdict_of(m, a, "q");
  EXPECT_EQ(q.verdict, Verdict::UNSUPPORTED);
  bool cited = false;
  for (const auto& r : q.reasons) cited |= r.source.find("builtin_op_importers.cpp:1216") != std::string::npos;
  EXPECT_TRUE(cited);
  EXPECT_EQ(verdict_of(m, a, "dq").verdict, Verdict::UNSUPPORTED);
  EXPECT_NE(verdict_of(m, annotate(m, kb().resolve("9.0"), Precision::INT8), "q").verdict, Verdict::UNSUPPORTED);
}

TEST(CompatImporterFacts, Uint8OnlyAtTheNetworkBoundary) {
  KnowledgeBase k = test_kb("# policy.uint8_boundary: yes | importer 9.9-GA ModelImporter.cpp:241\n",
                            "Cast\tY\t-\t-\t-\tyes\ttable\t-\t-\t*\t9.9-GA ops.cpp:30\t-\n"
                            "Relu\tY\t-\t-\t-\tyes\ttable\t-\t-\t*\t9.9-GA ops.cpp:40\t-\n");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {2});
  g.input("u", kUint8, {2});  // a UINT8 network input is fine
  attr_int(g.node("Cast", {"x"}, {"mid"}, "to_uint8_mid"), "to", kUint8);
  attr_int(g.node("Cast", {"mid"}, {"back"}, "from_uint8"), "to", kFloat);
  attr_int(g.node("Cast", {"back"}, {"out_u8"}, "to_uint8_out"), "to", kUint8);
  attr_int(g.node("Cast", {"u"}, {"uf"}, "input_cast"), "to", kFloat);
  g.output("out_u8").output("uf");
  Model m = load_model(mb.save(temp_dir("uint8_boundary") + "/m.onnx"));
  Annotations a = annotate(m, k, k.resolve("9.9"), Precision::FP32);
  const NodeVerdict& mid = verdict_of(m, a, "to_uint8_mid");
  EXPECT_EQ(mid.verdict, Verdict::UNSUPPORTED);
  EXPECT_TRUE(mentions(mid, "intermediate UINT8"));
  EXPECT_EQ(mid.reasons[0].source, "importer 9.9-GA ModelImporter.cpp:241");
  EXPECT_EQ(verdict_of(m, a, "to_uint8_out").verdict, Verdict::SUPPORTED);
  EXPECT_EQ(verdict_of(m, a, "input_cast").verdict, Verdict::SUPPORTED);
  EXPECT_EQ(verdict_of(m, a, "from_uint8").verdict, Verdict::SUPPORTED);

  // Without the policy the same model imports.
  KnowledgeBase no_rule = test_kb("", "Cast\tY\t-\t-\t-\tyes\ttable\t-\t-\t*\t9.9-GA ops.cpp:30\t-\n");
  EXPECT_TRUE(annotate(m, no_rule, no_rule.resolve("9.9"), Precision::FP32).converts);
}

TEST(CompatImporterFacts, ArgumentsTheImporterNeverReadsMakeTheNodeUnsupportedUnlessHarmless) {
  KnowledgeBase k = test_kb("", "ScatterND\tY\t-\t-\t-\tyes\ttable\t-\t-\t*\t9.9-GA ops.cpp:50\tattr:reduction=none\n");
  auto model = [](const std::string& name, const char* reduction) {
    ModelBuilder mb(17);
    auto g = mb.graph();
    g.input("data", kFloat, {4});
    g.input("idx", kInt32, {1, 1});
    g.input("upd", kFloat, {1});
    auto& n = g.node("ScatterND", {"data", "idx", "upd"}, {"y"}, "node");
    if (reduction) attr_string(n, "reduction", reduction);
    g.output("y");
    return load_model(mb.save(temp_dir(name) + "/m.onnx"));
  };
  Model add = model("ignored_add", "add");
  Annotations a = annotate(add, k, k.resolve("9.9"), Precision::FP32);
  const NodeVerdict& v = verdict_of(add, a, "node");
  // It imports, but the network computes another function: the model does not convert as written.
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_TRUE(mentions(v, "computes something else"));
  EXPECT_TRUE(mentions(v, "reduction=add"));
  ASSERT_FALSE(v.hints.empty());
  EXPECT_NE(v.hints.front().find("reduction"), std::string::npos) << v.hints.front();
  EXPECT_FALSE(a.converts);
  for (const char* harmless : {"none", static_cast<const char*>(nullptr)}) {
    Model m = model(std::string("ignored_") + (harmless ? harmless : "absent"), harmless);
    Annotations b = annotate(m, k, k.resolve("9.9"), Precision::FP32);
    EXPECT_FALSE(mentions(verdict_of(m, b, "node"), "something else"));
    EXPECT_EQ(verdict_of(m, b, "node").verdict, Verdict::SUPPORTED);
  }
}

}  // namespace
}  // namespace trtlens
