// The rule vocabulary: parsing, and every rule's check on nodes built here,
// holding, failing and (where a fact can be unknown) undecided.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <utility>

#include "trtlens/kb.h"

namespace trtlens {
namespace {

// A one-graph model to put nodes and tensor facts in.
class KbRules : public ::testing::Test {
 protected:
  KbRules() {
    model.opsets.push_back({"", 13});
    model.graphs.emplace_back();
  }
  Graph& graph() { return model.graphs[0]; }

  // A tensor with a known type and shape (-1 = unknown dim, -2 = symbolic "N").
  TensorInfo& tensor(const std::string& name, ElemType type, std::vector<int64_t> dims, TensorOrigin origin) {
    TensorInfo& t = graph().tensors[static_cast<size_t>(graph().intern(name))];
    t.type = type;
    t.rank = static_cast<int>(dims.size());
    t.dims.clear();
    for (int64_t d : dims) {
      Dim dim;
      if (d >= 0) dim.value = d;
      if (d == -2) dim.param = "N";
      t.dims.push_back(dim);
    }
    t.origin = origin;
    t.const_foldable = origin == TensorOrigin::Initializer || origin == TensorOrigin::ConstantNode;
    return t;
  }
  TensorInfo& unknown_tensor(const std::string& name, TensorOrigin origin = TensorOrigin::Computed) {
    TensorInfo& t = graph().tensors[static_cast<size_t>(graph().intern(name))];
    t.origin = origin;
    return t;
  }

  Node& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs = {"y"}) {
    Node n;
    n.index = static_cast<int>(graph().nodes.size());
    n.name = op + "_" + std::to_string(n.index);
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    graph().nodes.push_back(std::move(n));
    return graph().nodes.back();
  }

  static Attribute int_attr(const std::string& name, int64_t v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Int;
    a.i = v;
    return a;
  }
  static Attribute str_attr(const std::string& name, const std::string& v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::String;
    a.s = v;
    return a;
  }
  static Attribute ints_attr(const std::string& name, std::vector<int64_t> v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(v);
    return a;
  }
  static Attribute strings_attr(const std::string& name, std::vector<std::string> v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Strings;
    a.strings = std::move(v);
    return a;
  }
  static Attribute floats_attr(const std::string& name, std::vector<double> v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Floats;
    a.floats = std::move(v);
    return a;
  }

  // Checks the rule on graph().nodes[index] (nodes are found again by index
  // because adding nodes moves them).
  RuleCheck check(const std::string& rule, size_t index = 0) {
    index_graphs(model);
    const Graph& g = graph();
    return check_rule(parse_rule(rule), model, g, g.nodes.at(index));
  }
  RuleOutcome outcome(const std::string& rule, size_t index = 0) { return check(rule, index).outcome; }

  Model model;
};

constexpr RuleOutcome Holds = RuleOutcome::Holds;
constexpr RuleOutcome Fails = RuleOutcome::Fails;
constexpr RuleOutcome Unknown = RuleOutcome::Unknown;

// ---------------------------------------------------------------- parsing

TEST(KbRuleParse, NameArgumentsAndGuards) {
  Rule r = parse_rule("attr_in(mode,nearest|linear,dflt=nearest)@opset(>=11)@input_absent(3:sizes)");
  EXPECT_EQ(r.name, "attr_in");
  EXPECT_EQ(r.args, (std::vector<std::string>{"mode", "nearest|linear", "dflt=nearest"}));
  ASSERT_EQ(r.guards.size(), 2u);
  EXPECT_EQ(r.guards[0].name, "opset");
  EXPECT_EQ(r.guards[0].args, (std::vector<std::string>{">=11"}));
  EXPECT_EQ(r.guards[1].text, "input_absent(3:sizes)");
  EXPECT_EQ(r.text, "attr_in(mode,nearest|linear,dflt=nearest)@opset(>=11)@input_absent(3:sizes)");
  Rule bare = parse_rule("pads_symmetric@rank(0,5)");
  EXPECT_TRUE(bare.args.empty());
  ASSERT_EQ(bare.guards.size(), 1u);
  EXPECT_EQ(bare.guards[0].args, (std::vector<std::string>{"0", "5"}));
  EXPECT_EQ(parse_rule("value_in(1:K,<3840|-1..-0.5|>=7|<=2|>9)").args[1], "<3840|-1..-0.5|>=7|<=2|>9");
  EXPECT_EQ(parse_rule("input_types(*,FP32|FP16)").args[0], "*");
  EXPECT_EQ(parse_rule("static_dim(0,attr:axis:-1)").args[1], "attr:axis:-1");
  EXPECT_EQ(parse_rule("attr_no_substr(equation,...)").args[1], "...");
}

TEST(KbRuleParse, RejectsMalformedRules) {
  for (const char* bad : {"", "rank", "rank(0)", "rank(0,3,4)", "rank(x,3)", "rank(0,three)", "rank(0,3..)",
                          "nope(1)", "Rank(0,3)", "pads_symmetric()", "pads_symmetric(0)", "const_input(0",
                          "const_input(-1)", "input_types(0,FP33)", "input_types(0,fp32)", "attr_in(mode)",
                          "attr_in(mode,a,nearest)", "attr_in(mode,a,dflt=)", "static_dim(0,attr:axis)",
                          "rank(0, 3)", "rank(0,3);opset(9)", "opset(<10)@", "attr_no_substr(eq,a(b)"}) {
    EXPECT_THROW(parse_rule(bad), std::invalid_argument) << bad;
  }
}

TEST_F(KbRules, UnknownRuleNameThrows) {
  node("Relu", {"x"});
  Rule r;
  r.name = "no_such_rule";
  r.text = "no_such_rule";
  EXPECT_THROW(check_rule(r, model, graph(), graph().nodes[0]), std::invalid_argument);
}

// ---------------------------------------------------------------- one test per rule

TEST_F(KbRules, ConstInput) {
  tensor("x", ElemType::FLOAT, {1, 3}, TensorOrigin::GraphInput);
  tensor("init", ElemType::INT64, {2}, TensorOrigin::Initializer);
  tensor("const", ElemType::INT64, {2}, TensorOrigin::ConstantNode);
  tensor("shape", ElemType::INT64, {2}, TensorOrigin::Computed).const_foldable = true;
  tensor("dyn", ElemType::INT64, {2}, TensorOrigin::Computed);
  unknown_tensor("mystery", TensorOrigin::Unknown);
  node("Reshape", {"x", "init"});
  node("Reshape", {"x", "const"});
  node("Reshape", {"x", ""});
  node("Reshape", {"x"});
  node("Reshape", {"x", "shape"});
  node("Reshape", {"x", "dyn"});
  node("Reshape", {"x", "mystery"});
  node("Reshape", {"x", "undescribed"});
  EXPECT_EQ(outcome("const_input(1:shape)", 0), Holds);
  EXPECT_EQ(outcome("const_input(1:shape)", 1), Holds);
  EXPECT_EQ(outcome("const_input(1:shape)", 2), Holds);  // absent
  EXPECT_EQ(outcome("const_input(1:shape)", 3), Holds);
  RuleCheck foldable = check("const_input(1:shape)", 4);
  EXPECT_EQ(foldable.outcome, Fails);
  EXPECT_NE(foldable.message.find("input 1 shape (shape)"), std::string::npos) << foldable.message;
  EXPECT_NE(foldable.message.find("fold-constants"), std::string::npos) << foldable.message;
  RuleCheck dyn = check("const_input(1)", 5);
  EXPECT_EQ(dyn.outcome, Fails);
  EXPECT_NE(dyn.message.find("computed at run time"), std::string::npos) << dyn.message;
  EXPECT_EQ(dyn.message.find("fold"), std::string::npos) << dyn.message;
  EXPECT_EQ(outcome("const_input(0)", 0), Fails);  // a graph input
  EXPECT_EQ(outcome("const_input(1)", 6), Unknown);
  EXPECT_EQ(outcome("const_input(1)", 7), Unknown);
}

TEST_F(KbRules, ConstInputSeesInitializersOfEnclosingGraphs) {
  tensor("w", ElemType::FLOAT, {4}, TensorOrigin::Initializer);
  Graph body;
  body.path = "Loop_0/body";
  body.parent = 0;
  body.tensors[static_cast<size_t>(body.intern("w"))].origin = TensorOrigin::OuterScope;
  Node n;
  n.op_type = "Reshape";
  n.inputs = {"x", "w"};
  body.nodes.push_back(n);
  body.parent_node = 0;
  model.graphs.push_back(std::move(body));
  Node loop;  // the body's owner: the index reaches a subgraph through its node's attribute
  loop.op_type = "Loop";
  Attribute a;
  a.name = "body";
  a.graphs = {1};
  loop.attributes.push_back(a);
  model.graphs[0].nodes.push_back(loop);
  index_graphs(model);
  const Graph& g = model.graphs[1];
  EXPECT_EQ(check_rule(parse_rule("const_input(1)"), model, g, g.nodes[0]).outcome, Holds);
}

// A Loop (node 0 of the main graph) over state s0 whose body (graph 1) returns cond, the next
// state `next` and `scans` scan outputs; body tensors get the given shapes (empty: unknown rank).
class KbLoopRules : public KbRules {
 protected:
  void loop(std::vector<std::string> inputs, std::vector<int64_t> next_dims, bool next_known, size_t scans) {
    Graph body;
    body.path = "Loop_0/body";
    body.parent = 0;
    body.parent_node = 0;
    body.outputs = {"c_out", "next"};
    for (size_t k = 0; k < scans; ++k) body.outputs.push_back("scan" + std::to_string(k));
    for (const auto& name : body.outputs) body.tensors[static_cast<size_t>(body.intern(name))].origin = TensorOrigin::Computed;
    if (next_known) {
      TensorInfo& t = body.tensors[static_cast<size_t>(body.id("next"))];
      t.type = ElemType::FLOAT;
      t.rank = static_cast<int>(next_dims.size());
      for (int64_t d : next_dims) {
        Dim dim;
        if (d >= 0) dim.value = d;
        if (d == -2) dim.param = "N";
        t.dims.push_back(dim);
      }
    }
    model.graphs.push_back(std::move(body));
    Node& n = node("Loop", std::move(inputs), {"s_final"});
    Attribute a;
    a.name = "body";
    a.kind = Attribute::Kind::Graph;
    a.graphs = {1};
    n.attributes.push_back(a);
  }
};

TEST_F(KbLoopRules, ScanTripLimit) {
  tensor("s0", ElemType::FLOAT, {2}, TensorOrigin::GraphInput);
  tensor("c0", ElemType::BOOL, {}, TensorOrigin::GraphInput);
  tensor("m_run", ElemType::INT64, {}, TensorOrigin::GraphInput);
  tensor("m_big", ElemType::INT64, {}, TensorOrigin::Initializer).values =
      std::make_unique<std::vector<double>>(std::vector<double>{9223372036854775807.0});
  tensor("m_10", ElemType::INT64, {}, TensorOrigin::Initializer).values =
      std::make_unique<std::vector<double>>(std::vector<double>{10});
  tensor("m_unread", ElemType::INT64, {}, TensorOrigin::Initializer);  // values not read
  loop({"", "c0", "s0"}, {2}, true, 1);
  EXPECT_EQ(outcome("loop_scan_trip_limit"), Fails);
  for (auto [m, want] : {std::pair{"m_big", Fails}, std::pair{"m_10", Holds}, std::pair{"m_run", Holds},
                         std::pair{"m_unread", Unknown}}) {
    graph().nodes[0].inputs[0] = m;
    EXPECT_EQ(outcome("loop_scan_trip_limit"), want) << m;
  }
}

TEST_F(KbLoopRules, NoScanOutputNoTripLimitHolds) {
  tensor("s0", ElemType::FLOAT, {2}, TensorOrigin::GraphInput);
  tensor("c0", ElemType::BOOL, {}, TensorOrigin::GraphInput);
  loop({"", "c0", "s0"}, {2}, true, 0);
  EXPECT_EQ(outcome("loop_scan_trip_limit"), Holds);
}

TEST_F(KbLoopRules, StateShapes) {
  tensor("c0", ElemType::BOOL, {}, TensorOrigin::GraphInput);
  tensor("s0", ElemType::FLOAT, {-2, 4}, TensorOrigin::GraphInput);
  struct Case {
    std::vector<int64_t> next;
    bool known;
    RuleOutcome want;
  };
  for (const Case& c : {Case{{-2, 4}, true, Holds}, Case{{-2, 8}, true, Fails}, Case{{-2}, true, Fails},
                        Case{{-1, 4}, true, Unknown}, Case{{}, false, Unknown}}) {
    model.graphs.resize(1);
    graph().nodes.clear();
    loop({"", "c0", "s0"}, c.next, c.known, 0);
    EXPECT_EQ(outcome("loop_state_shapes"), c.want) << c.next.size() << " " << c.known;
  }
}

TEST_F(KbRules, WeightsInput) {
  tensor("x", ElemType::FLOAT, {1, 3, 8, 8}, TensorOrigin::GraphInput);
  tensor("w", ElemType::FLOAT, {4, 3, 3, 3}, TensorOrigin::Initializer);
  tensor("wq", ElemType::INT8, {4, 3, 3, 3}, TensorOrigin::Initializer);
  tensor("s", ElemType::FLOAT, {}, TensorOrigin::Initializer);
  tensor("wdq", ElemType::FLOAT, {4, 3, 3, 3}, TensorOrigin::Computed);
  tensor("xdq", ElemType::FLOAT, {4, 3, 3, 3}, TensorOrigin::Computed);
  tensor("wrelu", ElemType::FLOAT, {4, 3, 3, 3}, TensorOrigin::Computed);
  node("DequantizeLinear", {"wq", "s"}, {"wdq"});   // 0
  node("DequantizeLinear", {"x", "s"}, {"xdq"});    // 1
  node("Relu", {"w"}, {"wrelu"});                   // 2
  node("Conv", {"x", "w"});                         // 3
  node("Conv", {"x", "wdq"});                       // 4
  node("Conv", {"x", "xdq"});                       // 5
  node("Conv", {"x", "wrelu"});                     // 6
  node("Conv", {"x"});                              // 7
  EXPECT_EQ(outcome("weights_input(1:W)", 3), Holds);
  EXPECT_EQ(outcome("weights_input(1:W)", 4), Holds);
  EXPECT_EQ(outcome("weights_input(1:W)", 7), Holds);
  RuleCheck dq = check("weights_input(1:W)", 5);
  EXPECT_EQ(dq.outcome, Fails);
  EXPECT_NE(dq.message.find("DequantizeLinear"), std::string::npos) << dq.message;
  EXPECT_EQ(outcome("weights_input(1:W)", 6), Fails);
  // const_input is stricter: quantized weights are not constants.
  EXPECT_EQ(outcome("const_input(1:W)", 4), Fails);
  unknown_tensor("u", TensorOrigin::Unknown);
  node("Conv", {"x", "u"});  // 8
  EXPECT_EQ(outcome("weights_input(1)", 8), Unknown);
}

TEST_F(KbRules, NonconstInput) {
  tensor("c", ElemType::FLOAT, {2, 2}, TensorOrigin::Initializer);
  tensor("r", ElemType::FLOAT, {2, 2}, TensorOrigin::Computed);
  unknown_tensor("u", TensorOrigin::Unknown);
  node("RandomUniformLike", {"c"});
  node("RandomUniformLike", {"r"});
  node("RandomUniformLike", {"u"});
  RuleCheck c = check("nonconst_input(0)", 0);
  EXPECT_EQ(c.outcome, Fails);
  EXPECT_NE(c.message.find("an initializer"), std::string::npos) << c.message;
  EXPECT_EQ(outcome("nonconst_input(0)", 1), Holds);
  EXPECT_EQ(outcome("nonconst_input(0)", 2), Unknown);
}

TEST_F(KbRules, InputPresentAndAbsent) {
  node("QuantizeLinear", {"x", "s", "zp"});
  node("QuantizeLinear", {"x", "s", ""});
  node("QuantizeLinear", {"x", "s"});
  EXPECT_EQ(outcome("input_present(2:zero_point)", 0), Holds);
  EXPECT_EQ(outcome("input_present(2:zero_point)", 1), Fails);
  EXPECT_EQ(outcome("input_present(2:zero_point)", 2), Fails);
  EXPECT_EQ(outcome("input_absent(2)", 0), Fails);
  EXPECT_EQ(outcome("input_absent(2)", 1), Holds);
  EXPECT_EQ(outcome("input_absent(2)", 2), Holds);
  EXPECT_NE(check("input_absent(2:zero_point)", 0).message.find("input 2 zero_point (zp)"), std::string::npos);
}

TEST_F(KbRules, ValueIn) {
  tensor("zero", ElemType::INT8, {1}, TensorOrigin::Initializer).values = std::make_unique<std::vector<double>>(1, 0.0);
  tensor("nonzero", ElemType::INT8, {2}, TensorOrigin::ConstantNode).values =
      std::make_unique<std::vector<double>>(std::vector<double>{0, 128});
  tensor("big", ElemType::INT8, {10000}, TensorOrigin::Initializer);  // values not read
  tensor("runtime", ElemType::INT8, {1}, TensorOrigin::Computed);
  node("QuantizeLinear", {"x", "s", "zero"});
  node("QuantizeLinear", {"x", "s", "nonzero"});
  node("QuantizeLinear", {"x", "s", "big"});
  node("QuantizeLinear", {"x", "s", "runtime"});
  node("QuantizeLinear", {"x", "s"});
  EXPECT_EQ(outcome("value_in(2:zero_point,0)", 0), Holds);
  RuleCheck f = check("value_in(2:zero_point,0)", 1);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("128"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("value_in(2,0)", 2), Unknown);
  EXPECT_EQ(outcome("value_in(2,0)", 3), Holds);  // not checked at parse time
  EXPECT_EQ(outcome("value_in(2,0)", 4), Holds);  // absent
  // Ranges and comparisons.
  EXPECT_EQ(outcome("value_in(2,0..128)", 1), Holds);
  EXPECT_EQ(outcome("value_in(2,<128)", 1), Fails);
  EXPECT_EQ(outcome("value_in(2,<=128)", 1), Holds);
  EXPECT_EQ(outcome("value_in(2,>=0)", 1), Holds);
  EXPECT_EQ(outcome("value_in(2,>0)", 1), Fails);
  EXPECT_EQ(outcome("value_in(2,0|128)", 1), Holds);
}

TEST_F(KbRules, InputTypes) {
  tensor("f", ElemType::FLOAT, {2}, TensorOrigin::GraphInput);
  tensor("h", ElemType::FLOAT16, {2}, TensorOrigin::GraphInput);
  tensor("l", ElemType::INT64, {2}, TensorOrigin::GraphInput);
  unknown_tensor("u");
  node("Where", {"c", "f", "h"});
  node("Where", {"c", "f", "l"});
  node("Where", {"c", "u", "h"});
  EXPECT_EQ(outcome("input_types(1,FP32|FP16|INT8)", 0), Holds);
  EXPECT_EQ(outcome("input_types(2,FP32|FP16|INT8)", 0), Holds);
  RuleCheck f = check("input_types(2,FP32|FP16|INT8)", 1);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("input 2 (l) is INT64; release requires one of FP32, FP16, INT8"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("input_types(1,FP32)", 2), Unknown);
  // '*' judges every present input; an unknown one does not hide a failing one.
  node("Concat", {"f", "", "h"});
  node("Concat", {"u", "l"});
  node("Concat", {"u", "f"});
  EXPECT_EQ(outcome("input_types(*,FP32|FP16)", 3), Holds);
  EXPECT_EQ(outcome("input_types(*,FP32)", 3), Fails);
  EXPECT_EQ(outcome("input_types(*,FP32|FP16)", 4), Fails);
  EXPECT_EQ(outcome("input_types(*,FP32|FP16)", 5), Unknown);
}

TEST_F(KbRules, Rank) {
  tensor("x6", ElemType::FLOAT, {1, 2, 3, 4, 5, 6}, TensorOrigin::GraphInput);
  tensor("x4", ElemType::FLOAT, {1, 2, 3, 4}, TensorOrigin::GraphInput);
  unknown_tensor("u");
  node("Conv", {"x6", "w"});
  node("Conv", {"x4", "w"});
  node("Conv", {"u", "w"});
  RuleCheck f = check("rank(0,3..5)", 0);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("input 0 (x6) has rank 6; release requires rank 3 to 5"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("rank(0,3..5)", 1), Holds);
  EXPECT_EQ(outcome("rank(0,>=4)", 1), Holds);
  EXPECT_EQ(outcome("rank(0,2|3)", 1), Fails);
  RuleCheck u = check("rank(0,3..5)", 2);
  EXPECT_EQ(u.outcome, Unknown);
  EXPECT_NE(u.message.find("rank of input 0 (u) is unknown"), std::string::npos) << u.message;
}

TEST_F(KbRules, StaticShape) {
  tensor("fixed", ElemType::FLOAT, {1, 3, 8}, TensorOrigin::GraphInput);
  tensor("named", ElemType::FLOAT, {-2, 3, 8}, TensorOrigin::GraphInput);
  tensor("unnamed", ElemType::FLOAT, {1, -1, 8}, TensorOrigin::Computed);
  unknown_tensor("u");
  node("CumSum", {"fixed"});
  node("CumSum", {"named"});
  node("CumSum", {"unnamed"});
  node("CumSum", {"u"});
  EXPECT_EQ(outcome("static_shape(0)", 0), Holds);
  RuleCheck f = check("static_shape(0)", 1);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("dimension 0 (N)"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("static_shape(0)", 2), Unknown);
  EXPECT_EQ(outcome("static_shape(0)", 3), Unknown);
  // A free dimension of a graph input is dynamic, named or not.
  tensor("input", ElemType::FLOAT, {1, -1}, TensorOrigin::GraphInput);
  node("CumSum", {"input"});
  EXPECT_EQ(outcome("static_shape(0)", 4), Fails);
  EXPECT_EQ(outcome("static_dim(0,1)", 4), Fails);
  EXPECT_EQ(outcome("static_dim(0,0)", 4), Holds);
}

TEST_F(KbRules, StaticDim) {
  tensor("x", ElemType::FLOAT, {-2, 3, 8}, TensorOrigin::GraphInput);
  unknown_tensor("u");
  node("Softmax", {"x"});
  node("Softmax", {"x"}).attributes.push_back(int_attr("axis", 0));
  node("Softmax", {"x"}).attributes.push_back(int_attr("axis", 7));
  node("Softmax", {"u"});
  EXPECT_EQ(outcome("static_dim(0,attr:axis:-1)", 0), Holds);  // default -1 -> axis 2 (8)
  RuleCheck f = check("static_dim(0,attr:axis:-1)", 1);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("attribute axis"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("static_dim(0,attr:axis:-1)", 2), Fails);  // outside the rank
  EXPECT_EQ(outcome("static_dim(0,attr:axis:-1)", 3), Unknown);
  EXPECT_EQ(outcome("static_dim(0,1)", 0), Holds);
  EXPECT_EQ(outcome("static_dim(0,-3)", 0), Fails);
}

TEST_F(KbRules, OutputUnused) {
  node("MaxPool", {"x"}, {"y"});
  node("MaxPool", {"x"}, {"y", ""});
  node("MaxPool", {"x"}, {"y", "idx"});
  EXPECT_EQ(outcome("output_unused(1:Indices)", 0), Holds);
  EXPECT_EQ(outcome("output_unused(1:Indices)", 1), Holds);
  RuleCheck f = check("output_unused(1:Indices)", 2);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("output 1 Indices (idx)"), std::string::npos) << f.message;
}

TEST_F(KbRules, AttrIn) {
  node("Resize", {"x"});
  node("Resize", {"x"}).attributes.push_back(str_attr("mode", "cubic"));
  node("Resize", {"x"}).attributes.push_back(str_attr("mode", "linear"));
  EXPECT_EQ(outcome("attr_in(mode,nearest|linear,dflt=nearest)", 0), Holds);
  EXPECT_EQ(outcome("attr_in(mode,linear,dflt=nearest)", 0), Fails);  // the default is tested
  EXPECT_EQ(outcome("attr_in(mode,linear)", 0), Holds);               // no default: missing holds
  RuleCheck f = check("attr_in(mode,nearest|linear,dflt=nearest)", 1);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("attribute mode is cubic; release requires one of nearest, linear"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("attr_in(mode,nearest|linear,dflt=nearest)", 2), Holds);
}

TEST_F(KbRules, AttrInNumbersTypesAndTensors) {
  node("Cast", {"x"}).attributes.push_back(int_attr("to", 10));  // FLOAT16
  node("Cast", {"x"}).attributes.push_back(int_attr("to", 7));   // INT64
  node("LpNormalization", {"x"}).attributes.push_back(int_attr("p", 3));
  Attribute value;
  value.name = "value";
  value.kind = Attribute::Kind::Tensor;
  value.tensor_values = std::vector<double>{0};
  node("ConstantOfShape", {"s"}).attributes.push_back(value);
  value.tensor_values = std::vector<double>{1.5};
  node("ConstantOfShape", {"s"}).attributes.push_back(value);
  value.tensor_values.reset();
  node("ConstantOfShape", {"s"}).attributes.push_back(value);
  EXPECT_EQ(outcome("attr_in(to,FP32|FP16)", 0), Holds);
  RuleCheck f = check("attr_in(to,FP32|FP16)", 1);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("INT64 (7)"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("attr_in(p,1|2,dflt=2)", 2), Fails);
  EXPECT_EQ(outcome("attr_in(p,1..3,dflt=2)", 2), Holds);
  EXPECT_EQ(outcome("attr_in(value,0,dflt=0)", 3), Holds);
  EXPECT_EQ(outcome("attr_in(value,0,dflt=0)", 4), Fails);
  EXPECT_EQ(outcome("attr_in(value,0,dflt=0)", 5), Unknown);
}

TEST_F(KbRules, AttrAll) {
  node("MaxPool", {"x"});
  node("MaxPool", {"x"}).attributes.push_back(ints_attr("dilations", {1, 1}));
  node("MaxPool", {"x"}).attributes.push_back(ints_attr("dilations", {1, 2}));
  EXPECT_EQ(outcome("attr_all(dilations,1)", 0), Holds);
  EXPECT_EQ(outcome("attr_all(dilations,1)", 1), Holds);
  RuleCheck f = check("attr_all(dilations,1)", 2);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("dilations has 2 at position 1"), std::string::npos) << f.message;
}

TEST_F(KbRules, AttrAbsent) {
  node("Constant", {});
  node("Constant", {}).attributes.push_back(str_attr("value_string", "hi"));
  EXPECT_EQ(outcome("attr_absent(value_string)", 0), Holds);
  RuleCheck f = check("attr_absent(value_string)", 1);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("value_string"), std::string::npos);
}

TEST_F(KbRules, AttrNoSubstr) {
  node("Einsum", {"a", "b"});
  node("Einsum", {"a", "b"}).attributes.push_back(str_attr("equation", "ij,jk->ik"));
  node("Einsum", {"a", "b"}).attributes.push_back(str_attr("equation", "...ij,...jk->...ik"));
  EXPECT_EQ(outcome("attr_no_substr(equation,...)", 0), Holds);
  EXPECT_EQ(outcome("attr_no_substr(equation,...)", 1), Holds);
  RuleCheck f = check("attr_no_substr(equation,...)", 2);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("...ij,...jk->...ik"), std::string::npos) << f.message;
}

TEST_F(KbRules, PadsSymmetric) {
  node("ConvTranspose", {"x", "w"});
  node("ConvTranspose", {"x", "w"}).attributes.push_back(ints_attr("pads", {1, 2, 1, 2}));
  node("ConvTranspose", {"x", "w"}).attributes.push_back(ints_attr("pads", {0, 1, 1, 1}));
  node("ConvTranspose", {"x", "w"}).attributes.push_back(ints_attr("pads", {0, 1, 1}));
  EXPECT_EQ(outcome("pads_symmetric", 0), Holds);
  EXPECT_EQ(outcome("pads_symmetric", 1), Holds);
  RuleCheck f = check("pads_symmetric", 2);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("spatial axis 0 by 0 at the begin and 1 at the end"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("pads_symmetric", 3), Unknown);
}

TEST_F(KbRules, BidirSameActivations) {
  node("LSTM", {"x", "w", "r"});  // 0: forward
  node("LSTM", {"x", "w", "r"}).attributes.push_back(str_attr("direction", "bidirectional"));  // 1: defaults
  {
    Node& n = node("LSTM", {"x", "w", "r"});  // 2: same halves
    n.attributes.push_back(str_attr("direction", "bidirectional"));
    n.attributes.push_back(strings_attr("activations", {"Sigmoid", "Tanh", "Relu", "Sigmoid", "Tanh", "Relu"}));
  }
  {
    Node& n = node("LSTM", {"x", "w", "r"});  // 3: different halves
    n.attributes.push_back(str_attr("direction", "bidirectional"));
    n.attributes.push_back(strings_attr("activations", {"Sigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Relu"}));
  }
  {
    Node& n = node("GRU", {"x", "w", "r"});  // 4: only the forward half given, reverse takes defaults
    n.attributes.push_back(str_attr("direction", "bidirectional"));
    n.attributes.push_back(strings_attr("activations", {"Relu", "Tanh"}));
  }
  {
    Node& n = node("RNN", {"x", "w", "r"});  // 5: alphas differ
    n.attributes.push_back(str_attr("direction", "bidirectional"));
    n.attributes.push_back(strings_attr("activations", {"LeakyRelu", "LeakyRelu"}));
    n.attributes.push_back(floats_attr("activation_alpha", {0.1, 0.2}));
  }
  {
    Node& n = node("RNN", {"x", "w", "r"});  // 6: same alphas
    n.attributes.push_back(str_attr("direction", "bidirectional"));
    n.attributes.push_back(strings_attr("activations", {"LeakyRelu", "LeakyRelu"}));
    n.attributes.push_back(floats_attr("activation_alpha", {0.1, 0.1}));
  }
  EXPECT_EQ(outcome("bidir_same_activations", 0), Holds);
  EXPECT_EQ(outcome("bidir_same_activations", 1), Holds);
  EXPECT_EQ(outcome("bidir_same_activations", 2), Holds);
  RuleCheck f = check("bidir_same_activations", 3);
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("Tanh forward and Relu in reverse"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("bidir_same_activations", 4), Fails);
  EXPECT_EQ(outcome("bidir_same_activations", 5), Fails);
  EXPECT_EQ(outcome("bidir_same_activations", 6), Holds);
}

TEST_F(KbRules, Opset) {
  node("Dropout", {"x"});
  EXPECT_EQ(outcome("opset(<14)"), Holds);
  RuleCheck f = check("opset(<10)");
  EXPECT_EQ(f.outcome, Fails);
  EXPECT_NE(f.message.find("opset is 13"), std::string::npos) << f.message;
  EXPECT_EQ(outcome("opset(8|13)"), Holds);
  model.opsets = {{"ai.onnx", 9}};
  EXPECT_EQ(outcome("opset(<10)"), Holds);
  model.opsets = {{"com.microsoft", 1}};
  EXPECT_EQ(outcome("opset(<10)"), Unknown);
}

// ---------------------------------------------------------------- guards

TEST_F(KbRules, GuardsDecideWhetherARuleApplies) {
  tensor("x5", ElemType::FLOAT, {1, 1, 4, 4, 4}, TensorOrigin::GraphInput);
  tensor("x4", ElemType::FLOAT, {1, 1, 4, 4}, TensorOrigin::GraphInput);
  unknown_tensor("u");
  node("ConvTranspose", {"x5", "w"}).attributes.push_back(ints_attr("pads", {0, 0, 0, 1, 1, 1}));
  node("ConvTranspose", {"x4", "w"}).attributes.push_back(ints_attr("pads", {0, 0, 1, 1}));
  node("ConvTranspose", {"u", "w"}).attributes.push_back(ints_attr("pads", {0, 0, 1, 1}));
  node("ConvTranspose", {"u", "w"}).attributes.push_back(ints_attr("pads", {0, 0, 0, 0}));
  EXPECT_EQ(outcome("pads_symmetric@rank(0,5)", 0), Fails);   // guard holds, rule fails
  EXPECT_EQ(outcome("pads_symmetric@rank(0,5)", 1), Holds);   // guard fails: not applicable
  RuleCheck u = check("pads_symmetric@rank(0,5)", 2);         // guard unknown, rule fails
  EXPECT_EQ(u.outcome, Unknown);
  EXPECT_NE(u.message.find("if it applies"), std::string::npos) << u.message;
  EXPECT_EQ(outcome("pads_symmetric@rank(0,5)", 3), Holds);   // guard unknown, rule holds anyway
}

TEST_F(KbRules, SeveralGuardsMustAllHold) {
  model.opsets = {{"", 13}};
  node("Resize", {"x", "", "scales"}).attributes.push_back(str_attr("coordinate_transformation_mode", "half_pixel"));
  node("Resize", {"x", "", "", "sizes"}).attributes.push_back(str_attr("coordinate_transformation_mode", "half_pixel"));
  const char* rule =
      "attr_in(coordinate_transformation_mode,asymmetric,dflt=half_pixel)@attr_in(mode,nearest,dflt=nearest)"
      "@input_absent(3:sizes)@opset(>=11)";
  EXPECT_EQ(outcome(rule, 0), Fails);
  EXPECT_EQ(outcome(rule, 1), Holds);  // sizes given: not applicable
  model.opsets = {{"", 10}};
  EXPECT_EQ(outcome(rule, 0), Holds);  // opset below 11: not applicable
}

// ---------------------------------------------------------------- issue 21: rules in words, hints a person writes

TEST(KbRuleWords, EveryRuleNameReadsInWords) {
  EXPECT_EQ(describe_rule(parse_rule("attr_in(mode,nearest|linear,dflt=nearest)")),
            "attribute mode is one of nearest, linear (nearest when absent)");
  EXPECT_EQ(describe_rule(parse_rule("rank(0,3..5)")), "input 0 has rank 3 to 5");
  EXPECT_EQ(describe_rule(parse_rule("value_in(2:training_mode,0)")), "every value of input 2 (training_mode) is 0");
  EXPECT_EQ(describe_rule(parse_rule("attr_in(is_test,1,dflt=1)@opset(<7)")),
            "attribute is_test is 1 (1 when absent), when the model's opset is below 7");
  EXPECT_EQ(describe_rule(parse_rule("input_types(*,FP32|FP16)")), "every input is of type one of FP32, FP16");
  EXPECT_EQ(describe_rule(parse_rule("opset(>=11)")), "the model's opset is at least 11");
  EXPECT_EQ(describe_rule_text("status"), "status");  // a fact name, not a rule: as is
  // Every rule of the built-in knowledge base reads without its rule language.
  for (const Release& r : KnowledgeBase::builtin().releases())
    for (const auto& [op, e] : r.ops)
      for (const Rule& rule : e.rules) {
        std::string words = describe_rule(rule);
        EXPECT_EQ(words.find(rule.name + "("), std::string::npos) << r.name << " " << op << ": " << words;
        EXPECT_EQ(words.find('|'), std::string::npos) << r.name << " " << op << ": " << words;
      }
}

TEST_F(KbRules, DropoutHintsSayWhatAPersonWould) {
  tensor("x", ElemType::FLOAT, {2}, TensorOrigin::GraphInput);
  tensor("zero", ElemType::FLOAT, {}, TensorOrigin::ConstantNode).values = std::make_unique<std::vector<double>>(1, 0.0);
  tensor("half", ElemType::FLOAT, {}, TensorOrigin::ConstantNode).values = std::make_unique<std::vector<double>>(1, 0.5);
  tensor("on", ElemType::BOOL, {}, TensorOrigin::ConstantNode).values = std::make_unique<std::vector<double>>(1, 1.0);
  node("Dropout", {"x", "zero", "on"});
  node("Dropout", {"x", "half", "on"});
  node("Dropout", {"x", "", "on"});  // ratio absent: 0.5 by default
  RuleCheck identity = check("value_in(2:training_mode,0)", 0);
  ASSERT_EQ(identity.outcome, Fails);
  EXPECT_EQ(identity.hint.find("ratio is 0, the node is an identity: export with model.eval() or fold it"), 0u)
      << identity.hint;
  for (size_t i : {1u, 2u}) {
    RuleCheck training = check("value_in(2:training_mode,0)", i);
    ASSERT_EQ(training.outcome, Fails);
    EXPECT_EQ(training.hint.find("training_mode is on: export with model.eval()"), 0u) << training.hint;
  }
  // Another op failing value_in gets the rule's own hint, in words.
  node("TopK", {"x", "zero"});
  RuleCheck other = check("value_in(1,1..8)", 3);
  ASSERT_EQ(other.outcome, Fails);
  EXPECT_EQ(other.hint, "change input 1 so that every value is 1 to 8");
}

TEST_F(KbRules, EveryUndecidedRuleHasAHint) {
  unknown_tensor("u");
  TensorInfo& big = tensor("big", ElemType::FLOAT, {5000}, TensorOrigin::Initializer);
  (void)big;  // values not held: too many
  node("Conv", {"u", "w"});
  node("TopK", {"u", "big"});
  RuleCheck rank = check("rank(0,3..5)", 0);
  ASSERT_EQ(rank.outcome, Unknown);
  EXPECT_NE(rank.hint.find("--shapes NAME:1x3x224x224"), std::string::npos) << rank.hint;
  RuleCheck values = check("value_in(1,1)", 1);
  ASSERT_EQ(values.outcome, Unknown);
  EXPECT_NE(values.hint.find("4096 elements"), std::string::npos) << values.hint;
  // A failing rule whose guard is undecided: the hint is the guard's way out.
  RuleCheck guarded = check("value_in(1,1)@rank(0,4)", 1);
  ASSERT_EQ(guarded.outcome, Unknown);
  EXPECT_NE(guarded.hint.find("4096 elements"), std::string::npos) << guarded.hint;  // value_in itself is undecided
  tensor("c", ElemType::FLOAT, {1}, TensorOrigin::Initializer).values = std::make_unique<std::vector<double>>(1, 3.0);
  node("TopK", {"u", "c"});
  RuleCheck guard_open = check("value_in(1,1)@rank(0,4)", 2);
  ASSERT_EQ(guard_open.outcome, Unknown);
  EXPECT_NE(guard_open.hint.find("--shapes"), std::string::npos) << guard_open.hint;
  // And the hint is empty when the rule holds.
  EXPECT_EQ(check("value_in(1,3)", 2).hint, "");
}

TEST(KbOpHints, DynamicQuantizationOpsGetTheWayOut) {
  for (const char* op : {"ConvInteger", "MatMulInteger", "DynamicQuantizeLinear"})
    EXPECT_EQ(op_hint(op, "status").find("this is ONNX Runtime dynamic quantization"), 0u) << op;
  EXPECT_NE(op_hint("ConvInteger", "status").find("re-quantize with Q/DQ (static quantization"), std::string::npos);
  EXPECT_EQ(op_hint("Conv", "status"), "");
}

}  // namespace
}  // namespace trtlens
