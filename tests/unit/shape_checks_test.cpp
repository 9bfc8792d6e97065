// Shape checks TensorRT makes while the parser builds the network (issue 32), judged with the
// built-in knowledge base on small models: Loop scan outputs without a trip limit (importer,
// 10.11 onnxOpImporters.cpp:3323), loop-carried state that changes shape (IRecurrenceLayer,
// release/8.6:include/NvInfer.h:5518), If branches of different ranks (release/10.11:include/NvInfer.h:4594),
// ArgMax/ArgMin/TopK over an axis outside the last four (release/8.6:include/NvInfer.h:7355), and the
// implicit batch axis of 5.1 (convert_axis, 5.1 builtin_op_importers.cpp).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <climits>
#include <functional>
#include <optional>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "support/verdicts.h"
#include "trtlens/compat.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

std::string reasons(const NodeVerdict& v) {
  std::string s;
  for (const auto& r : v.reasons) s += r.rule + ": " + r.message + " [" + r.source + "]\n";
  return s;
}

// The reason a rule whose text starts with `rule` gave, or null.
const Reason* reason_of(const NodeVerdict& v, const std::string& rule) {
  for (const auto& r : v.reasons)
    if (r.rule.rfind(rule, 0) == 0) return &r;
  return nullptr;
}

// Loop "node" over a state s (FLOAT [2]). trip: "" none, else an INT64 initializer of that value.
// The body returns cond, the next state (`grow`: Concat(s, s), shape [4]) and, with `scan`, s as a scan output.
Model loop_model(const std::string& name, std::optional<int64_t> trip, bool scan, bool grow = false) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("s0", kFloat, {2});
  g.input("c0", kBool, {});
  if (trip) g.init_int64("M", {}, {*trip});
  std::vector<std::string> outs = {"s_final"};
  if (scan) outs.push_back("scanned");
  auto& n = g.node("Loop", {trip ? "M" : "", "c0", "s0"}, outs, "node");
  auto body = attr_graph(n, "body", "body");
  body.input("i", kInt64, {});
  body.input("c", kBool, {});
  body.input("s", kFloat, {2});
  body.node("Identity", {"c"}, {"c_out"});
  if (grow) {
    auto& cat = body.node("Concat", {"s", "s"}, {"s_out"});
    attr_int(cat, "axis", 0);
  } else {
    body.node("Add", {"s", "s"}, {"s_out"});
  }
  body.output("c_out", kBool, {});
  body.output("s_out", kFloat, {grow ? 4 : 2});
  if (scan) {
    body.node("Identity", {"s"}, {"s_scan"});
    body.output("s_scan", kFloat, {2});
  }
  g.output("s_final");
  if (scan) g.output("scanned");
  return load_model(mb.save(temp_dir("shape_" + name) + "/m.onnx"));
}

TEST(ShapeChecks, LoopScanOutputWithoutTripLimitIsRefusedFrom1011) {
  Model no_trip = loop_model("loop_no_trip", std::nullopt, true);
  Model max_trip = loop_model("loop_max_trip", INT64_MAX, true);
  Model int32_max_trip = loop_model("loop_int32max_trip", INT32_MAX, true);
  for (const Model* m : {&no_trip, &max_trip, &int32_max_trip}) {
    for (const char* release : {"10.11", "10.12", "10.13", "10.16", "11.0", "11.1"}) {
      NodeVerdict v = judge(*m, release);
      EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << m->path << " " << release << "\n" << reasons(v);
      const Reason* r = reason_of(v, "loop_scan_trip_limit");
      ASSERT_NE(r, nullptr) << release << "\n" << reasons(v);
      EXPECT_NE(r->message.find("scan output"), std::string::npos) << r->message;
      EXPECT_NE(r->source.find("onnxOpImporters.cpp:"), std::string::npos) << r->source;
      EXPECT_FALSE(v.hints.empty());
    }
    // 10.10 gave the scan output a dummy length and imported it; 8.6 likewise.
    for (const char* release : {"8.6", "10.10"}) {
      NodeVerdict v = judge(*m, release);
      EXPECT_EQ(reason_of(v, "loop_scan_trip_limit"), nullptr) << release << "\n" << reasons(v);
      EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    }
  }
  EXPECT_NE(reason_of(judge(no_trip, "10.11"), "loop_scan_trip_limit")->source.find("onnxOpImporters.cpp:3323"),
            std::string::npos);
  EXPECT_NE(reason_of(judge(no_trip, "11.0"), "loop_scan_trip_limit")->source.find("onnxOpImporters.cpp:3671"),
            std::string::npos);
  // A finite trip count, or no scan output, imports.
  Model counted = loop_model("loop_counted", 10, true);
  Model no_scan = loop_model("loop_no_scan", std::nullopt, false);
  Model just_below = loop_model("loop_below_int32max", INT32_MAX - 1, true);
  for (const Model* m : {&counted, &no_scan, &just_below}) {
    NodeVerdict v = judge(*m, "10.11");
    EXPECT_EQ(reason_of(v, "loop_scan_trip_limit"), nullptr) << m->path << "\n" << reasons(v);
    EXPECT_NE(v.verdict, Verdict::UNSUPPORTED) << m->path << "\n" << reasons(v);
  }
}

TEST(ShapeChecks, LoopCarriedStateThatChangesShapeIsRefused) {
  Model grows = loop_model("loop_grows", 10, false, true);
  for (const char* release : {"7.0", "8.6", "10.10", "10.11", "11.1"}) {
    NodeVerdict v = judge(grows, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    const Reason* r = reason_of(v, "loop_state_shapes");
    ASSERT_NE(r, nullptr) << release << "\n" << reasons(v);
    EXPECT_NE(r->message.find("size 2 and size 4"), std::string::npos) << r->message;
    EXPECT_NE(r->source.find("NvInfer.h:5518"), std::string::npos) << r->source;
  }
  EXPECT_EQ(reason_of(judge(loop_model("loop_keeps", 10, false), "8.6"), "loop_state_shapes"), nullptr);
}

// If "node" on a run-time (or constant) condition; then returns x [2,3], else a [6] (or [2,3]).
Model if_model(const std::string& name, bool same_rank, bool const_cond) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3});
  if (const_cond) {
    auto& c = g.node("Constant", {}, {"cond"});
    auto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(kBool);
    a->mutable_t()->add_int32_data(1);
  } else {
    g.input("cond", kBool, {});
  }
  auto& n = g.node("If", {"cond"}, {"y"}, "node");
  auto then_g = attr_graph(n, "then_branch", "then");
  then_g.node("Identity", {"x"}, {"t_out"});
  then_g.output("t_out", kFloat, {2, 3});
  auto else_g = attr_graph(n, "else_branch", "else");
  else_g.init_int64("shape", {same_rank ? 2 : 1}, same_rank ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{6});
  else_g.node("Reshape", {"x", "shape"}, {"e_out"});
  else_g.output("e_out", kFloat, same_rank ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{6});
  g.output("y");
  return load_model(mb.save(temp_dir("shape_" + name) + "/m.onnx"));
}

TEST(ShapeChecks, IfBranchesOfDifferentRanksAreRefusedWhereTheImporterBuildsAnIfConditional) {
  Model ranks = if_model("if_ranks", false, false);
  // 8.2 - 10.10: shapes must be equal (release/10.5:include/NvInfer.h:4545; 8.6.1 refuses at build); 10.11 on:
  // ranks (release/10.11:include/NvInfer.h:4594).
  for (auto [release, line] : std::vector<std::pair<const char*, const char*>>{
           {"8.2", "NvInfer.h:4545"}, {"8.6", "NvInfer.h:4545"}, {"10.10", "NvInfer.h:4545"},
           {"10.11", "NvInfer.h:4594"}, {"10.16", "NvInfer.h:4594"}, {"11.1", "NvInfer.h:4594"}}) {
    NodeVerdict v = judge(ranks, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    const Reason* r = reason_of(v, "if_branch_ranks");
    ASSERT_NE(r, nullptr) << release << "\n" << reasons(v);
    EXPECT_NE(r->message.find("rank 2 and rank 1"), std::string::npos) << r->message;
    EXPECT_NE(r->source.find(line), std::string::npos) << release << ": " << r->source;
  }
  // 8.0 imports no run-time If as an IIfConditional; a constant condition imports one branch only; equal ranks hold.
  EXPECT_EQ(reason_of(judge(ranks, "8.0"), "if_branch_ranks"), nullptr);
  EXPECT_EQ(reason_of(judge(if_model("if_const", false, true), "10.11"), "if_branch_ranks"), nullptr);
  EXPECT_EQ(reason_of(judge(if_model("if_const", false, true), "8.6"), "if_branch_ranks"), nullptr);
  EXPECT_EQ(reason_of(judge(if_model("if_same_rank", true, false), "10.11"), "if_branch_ranks"), nullptr);
}

Model reduce_axis_model(const std::string& name, const std::string& op, std::vector<int64_t> dims,
                        std::optional<int64_t> axis) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, dims);
  auto& n = g.node(op, {"x"}, {"y"}, "node");
  if (axis) attr_int(n, "axis", *axis);
  g.output("y");
  return load_model(mb.save(temp_dir("shape_" + name) + "/m.onnx"));
}

TEST(ShapeChecks, ArgMaxArgMinOnlyOverTheLastFourAxes) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    Model outer = reduce_axis_model(std::string(op) + "_outer", op, {2, 3, 4, 5, 6}, 0);  // default axis too
    Model dflt = reduce_axis_model(std::string(op) + "_default", op, {2, 3, 4, 5, 6}, std::nullopt);
    for (const char* release : {"7.0", "8.2", "8.6", "10.1", "10.11", "11.1"}) {
      for (const Model* m : {&outer, &dflt}) {
        NodeVerdict v = judge(*m, release);
        EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << op << " " << release << "\n" << reasons(v);
        const Reason* r = reason_of(v, "axis_last");
        ASSERT_NE(r, nullptr) << op << " " << release << "\n" << reasons(v);
        EXPECT_NE(r->source.find("NvInfer.h:7355"), std::string::npos) << r->source;
      }
    }
    for (auto [dims, axis] : {std::pair{std::vector<int64_t>{2, 3, 4, 5, 6}, int64_t{1}},
                              std::pair{std::vector<int64_t>{2, 3, 4, 5, 6}, int64_t{-4}},
                              std::pair{std::vector<int64_t>{2, 3, 4, 5}, int64_t{0}}}) {
      Model m = reduce_axis_model(std::string(op) + "_ok_" + std::to_string(dims.size()) + "_" + std::to_string(axis + 9),
                                  op, dims, axis);
      NodeVerdict v = judge(m, "10.11");
      EXPECT_EQ(reason_of(v, "axis_last"), nullptr) << op << " axis " << axis << "\n" << reasons(v);
    }
  }
  // Unknown rank: undecided, not supported and not refused.
  ModelBuilder mb(13);
  auto g = mb.graph();
  auto* in = g.proto()->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  g.node("ArgMax", {"x"}, {"y"}, "node");
  g.output("y");
  Model m = load_model(mb.save(temp_dir("shape_argmax_unranked") + "/m.onnx"));
  NodeVerdict v = judge(m, "10.11");
  EXPECT_EQ(v.verdict, Verdict::UNKNOWN) << reasons(v);
  EXPECT_NE(reason_of(v, "axis_last"), nullptr) << reasons(v);
  // ... but axis -1 (TopK's default) is among the last four whatever the rank.
  ModelBuilder mb2(13);
  auto g2 = mb2.graph();
  auto* in2 = g2.proto()->add_input();
  in2->set_name("x");
  in2->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  auto& am = g2.node("ArgMax", {"x"}, {"y"}, "node");
  attr_int(am, "axis", -1);
  g2.output("y");
  Model last = load_model(mb2.save(temp_dir("shape_argmax_unranked_last") + "/m.onnx"));
  EXPECT_EQ(reason_of(judge(last, "10.11"), "axis_last"), nullptr) << reasons(judge(last, "10.11"));
}

TEST(ShapeChecks, ImplicitBatchAxisOf51) {
  auto one = [](const std::string& name, const std::string& op, std::vector<std::string> inputs,
                const std::function<void(onnx::NodeProto&)>& attrs) {
    ModelBuilder mb(9);
    auto g = mb.graph();
    for (const auto& i : inputs) g.input(i, kFloat, {2, 3, 4});
    attrs(g.node(op, inputs, {"y"}, "node"));
    g.output("y");
    return load_model(mb.save(temp_dir("shape51_" + name) + "/m.onnx"));
  };
  Model concat0 = one("concat0", "Concat", {"a", "b"}, [](onnx::NodeProto& n) { attr_int(n, "axis", 0); });
  Model softmax0 = one("softmax0", "Softmax", {"a"}, [](onnx::NodeProto& n) { attr_int(n, "axis", 0); });
  Model unsqueeze0 = one("unsqueeze0", "Unsqueeze", {"a"}, [](onnx::NodeProto& n) { attr_ints(n, "axes", {0}); });
  for (const Model* m : {&concat0, &softmax0, &unsqueeze0}) {
    NodeVerdict v = judge(*m, "5.1");
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << m->path << "\n" << reasons(v);
    bool cites = false;
    for (const auto& r : v.reasons) cites |= r.source.find("builtin_op_importers.cpp:") != std::string::npos;
    EXPECT_TRUE(cites) << reasons(v);
    // 7.0 imports in explicit batch: the batch axis is an axis like the others.
    EXPECT_NE(judge(*m, "7.0").verdict, Verdict::UNSUPPORTED) << m->path << "\n" << reasons(judge(*m, "7.0"));
  }
  Model concat1 = one("concat1", "Concat", {"a", "b"}, [](onnx::NodeProto& n) { attr_int(n, "axis", 1); });
  EXPECT_NE(judge(concat1, "5.1").verdict, Verdict::UNSUPPORTED) << reasons(judge(concat1, "5.1"));
}

// 11.0 RotaryEmbedding: a 3D input needs num_heads (11.0-GA onnxOpImporters.cpp:5449).
TEST(ShapeChecks, RotaryEmbeddingOf3DInputNeedsNumHeadsIn110) {
  auto model = [](const std::string& name, std::vector<int64_t> dims, std::optional<int64_t> heads) {
    ModelBuilder mb(23);
    auto g = mb.graph();
    g.input("x", kFloat, dims);
    g.input("cos", kFloat, {4, 8});
    g.input("sin", kFloat, {4, 8});
    g.input("pos", kInt64, {1, 4});
    auto& n = g.node("RotaryEmbedding", {"x", "cos", "sin", "pos"}, {"y"}, "node");
    if (heads) attr_int(n, "num_heads", *heads);
    g.output("y", kFloat, dims);
    return load_model(mb.save(temp_dir("shape_rope_" + name) + "/m.onnx"));
  };
  Model no_heads = model("3d_no_heads", {1, 4, 32}, std::nullopt);
  for (const char* release : {"11.0", "11.1"}) {
    NodeVerdict v = judge(no_heads, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    const Reason* r = reason_of(v, "attr_in(num_heads");
    ASSERT_NE(r, nullptr) << reasons(v);
    EXPECT_NE(r->source.find("onnxOpImporters.cpp:5449"), std::string::npos) << r->source;
  }
  EXPECT_EQ(reason_of(judge(model("3d_heads", {1, 4, 32}, 2), "11.0"), "attr_in(num_heads"), nullptr);
  EXPECT_EQ(reason_of(judge(model("4d_no_heads", {1, 2, 4, 16}, std::nullopt), "11.0"), "attr_in(num_heads"), nullptr);
}

// 7.1 and 7.2: the If importer asserts a constant condition (7.2.1 builtin_op_importers.cpp:1883), though
// the table marks If unsupported: a run-time condition is refused, a constant one is left to a build.
TEST(ShapeChecks, IfOf71And72NeedsAConstantCondition) {
  Model runtime = if_model("if72_runtime", true, false);
  Model constant = if_model("if72_const", true, true);
  for (const char* release : {"7.1", "7.2"}) {
    NodeVerdict v = judge(runtime, release);
    EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED) << release << "\n" << reasons(v);
    const Reason* r = reason_of(v, "const_input(0");
    ASSERT_NE(r, nullptr) << reasons(v);
    EXPECT_NE(r->source.find(std::string(release) == "7.1" ? "builtin_op_importers.cpp:1575" : "builtin_op_importers.cpp:1883"),
              std::string::npos) << r->source;
    EXPECT_EQ(judge(constant, release).verdict, Verdict::UNKNOWN) << release << "\n" << reasons(judge(constant, release));
  }
}

}  // namespace
}  // namespace trtlens
