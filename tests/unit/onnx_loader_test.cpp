// load_model: structure, tensor facts, external data, and the payloads it must skip.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "onnx/propagate.h"
#include "onnx/wire.h"
#include "support/bad_models.h"
#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/error.h"
#include "trtlens/model.h"

namespace trtlens {
namespace {

using namespace trtlens::test;
namespace fs = std::filesystem;

const TensorInfo& tensor(const Model& m, const std::string& name, size_t graph = 0) {
  const TensorInfo* t = m.graphs[graph].find(name, m.graphs);
  if (!t) throw std::runtime_error("no tensor " + name);
  return *t;
}

TEST(OnnxLoader, TensorFactsFromInitializersConstantsAndInference) {
  std::string dir = temp_dir("loader_facts");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.5f));
  g.node("Conv", {"x", "w"}, {"c"}, "conv");
  g.node("Shape", {"c"}, {"s"}, "shape");
  auto& k = g.node("Constant", {}, {"k"}, "const");
  attr_tensor_int64(k, "value", {2}, {1, -1});
  g.node("Reshape", {"c", "k"}, {"r"}, "reshape");
  g.output("r");
  Model m = load_model(mb.save(dir + "/m.onnx"));

  ASSERT_EQ(m.graphs.size(), 1u);
  EXPECT_EQ(m.default_opset(), 13);
  EXPECT_EQ(m.node_count(), 4u);
  EXPECT_EQ(tensor(m, "x").origin, TensorOrigin::GraphInput);
  EXPECT_FALSE(tensor(m, "x").const_foldable);
  EXPECT_EQ(tensor(m, "w").origin, TensorOrigin::Initializer);
  EXPECT_EQ(tensor(m, "w").rank, 4);
  EXPECT_TRUE(tensor(m, "w").const_foldable);
  const TensorInfo& kt = tensor(m, "k");
  EXPECT_EQ(kt.origin, TensorOrigin::ConstantNode);
  EXPECT_EQ(kt.type, ElemType::INT64);
  ASSERT_NE(kt.values, nullptr);
  EXPECT_EQ(*kt.values, (std::vector<double>{1, -1}));
  // ONNX shape inference types the Conv output and gives its rank.
  EXPECT_EQ(tensor(m, "c").type, ElemType::FLOAT);
  EXPECT_EQ(tensor(m, "c").rank, 4);
  EXPECT_EQ(tensor(m, "c").type_source, "onnx-shape-inference");
  EXPECT_EQ(tensor(m, "s").type, ElemType::INT64);
  // Shape of a tensor with fixed dims is constant-foldable (TensorRT folds it).
  EXPECT_TRUE(tensor(m, "s").const_foldable);
  EXPECT_FALSE(tensor(m, "r").const_foldable);
}

TEST(OnnxLoader, OwnPropagationTypesOpsTheLibraryDoesNotKnow) {
  // Opset 23's Attention is newer than Debian's libonnx (1.12): our rules type it.
  std::string dir = temp_dir("loader_newer_opset");
  ModelBuilder mb(23);
  auto g = mb.graph();
  g.input("q", kFloat16, {1, 8, 16, 64}).input("k", kFloat16, {1, 8, 16, 64}).input("v", kFloat16, {1, 8, 16, 64});
  g.node("Attention", {"q", "k", "v"}, {"y"}, "attn");
  g.node("Shape", {"y"}, {"s"}, "shape");
  g.output("s");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(tensor(m, "y").type, ElemType::FLOAT16);
  EXPECT_EQ(tensor(m, "y").type_source, "trtlens");
  EXPECT_EQ(tensor(m, "s").type, ElemType::INT64);
}

TEST(OnnxLoader, OwnShapesLeaveNothingForShapeInference) {
  // Element-wise, broadcasting, MatMul and constant Reshape: shaped by our own
  // propagation, so ONNX shape inference never runs (its source would show).
  std::string dir = temp_dir("loader_own_shapes");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {4, 16});
  g.init_float("w", {16, 8}, std::vector<float>(128, 0.5f));
  g.init_float("b", {8}, std::vector<float>(8, 0.f));
  g.init_int64("shape", {2}, {-1, 4});
  g.node("MatMul", {"x", "w"}, {"mm"}, "mm");
  g.node("Add", {"mm", "b"}, {"add"}, "add");
  g.node("Relu", {"add"}, {"relu"}, "relu");
  g.node("Reshape", {"relu", "shape"}, {"y"}, "reshape");
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  auto dims = [](const TensorInfo& t) {
    std::vector<int64_t> out;
    for (const Dim& d : t.dims) out.push_back(d.value);
    return out;
  };
  EXPECT_EQ(dims(tensor(m, "mm")), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(dims(tensor(m, "add")), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(dims(tensor(m, "y")), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(tensor(m, "y").type_source, "trtlens");
}

TEST(OnnxLoader, HostileReshapeSizesClaimOnlyTheRank) {
  // Sizes whose product overflows int64, and a shape value past what a double
  // holds exactly: our propagation claims no size and computes nothing undefined
  // (a wrapped product would claim [0], or [2^62, 4]). Built by hand: libonnx's
  // own inference, which the loader would run next, is not what is tested here.
  Model m;
  m.opsets.push_back({"", 17});
  Graph& g = m.graphs.emplace_back();
  auto add = [&](const std::string& name, ElemType type, std::vector<int64_t> dims, TensorOrigin origin,
                 std::vector<double> values = {}) {
    TensorInfo& t = g.tensors[static_cast<size_t>(g.intern(name))];
    t.type = type;
    t.rank = static_cast<int>(dims.size());
    for (int64_t d : dims) t.dims.push_back(Dim{d, {}});
    t.origin = origin;
    t.const_foldable = origin == TensorOrigin::Initializer;
    if (!values.empty()) t.values = std::make_unique<std::vector<double>>(values);
  };
  int64_t big = int64_t{1} << 40;
  add("x", ElemType::FLOAT, {big, big, big}, TensorOrigin::GraphInput);
  add("flat", ElemType::INT64, {1}, TensorOrigin::Initializer, {-1});
  add("huge", ElemType::INT64, {2}, TensorOrigin::Initializer, {static_cast<double>(int64_t{1} << 62), 4});
  g.inputs = {"x"};
  for (const auto& [name, shape] : {std::pair<std::string, std::string>{"y1", "flat"}, {"y2", "huge"}}) {
    Node n;
    n.index = static_cast<int>(g.nodes.size());
    n.op_type = "Reshape";
    n.inputs = {"x", shape};
    n.outputs = {name};
    g.nodes.push_back(std::move(n));
    g.outputs.push_back(name);
  }
  // Pads and a step at INT64's edge (PyTorch's sentinels, or a hostile file): no sum overflows.
  add("x2", ElemType::FLOAT, {10, 4}, TensorOrigin::GraphInput);
  add("pads", ElemType::INT64, {4}, TensorOrigin::Initializer, {9.3e18, 0, 1, 0});
  add("s0", ElemType::INT64, {1}, TensorOrigin::Initializer, {0});
  add("s_end", ElemType::INT64, {1}, TensorOrigin::Initializer, {9.3e18});
  add("s_step", ElemType::INT64, {1}, TensorOrigin::Initializer, {9.3e18});
  g.inputs.push_back("x2");
  for (const auto& [op, ins, out] : {std::tuple<std::string, std::vector<std::string>, std::string>{"Pad", {"x2", "pads"}, "padded"},
                                     {"Slice", {"x2", "s0", "s_end", "s0", "s_step"}, "sliced"}}) {
    Node n;
    n.index = static_cast<int>(g.nodes.size());
    n.op_type = op;
    n.inputs = ins;
    n.outputs = {out};
    g.nodes.push_back(std::move(n));
    g.outputs.push_back(out);
  }
  check_structure_and_propagate(m);
  const TensorInfo& padded = *m.graphs[0].local("padded");
  ASSERT_EQ(padded.rank, 2);
  EXPECT_FALSE(padded.dims[0].fixed());  // 10 + 2^63 - 1 + 1 overflows: unknown
  EXPECT_EQ(padded.dims[1].value, 4);
  const TensorInfo& sliced = *m.graphs[0].local("sliced");
  ASSERT_EQ(sliced.rank, 2);
  EXPECT_EQ(sliced.dims[0].value, 1);  // [0:end:2^63-1] of 10 rows: row 0
  EXPECT_EQ(sliced.dims[1].value, 4);
  // The rank is the shape's length whatever the sizes; no size is claimed.
  for (const char* y : {"y1", "y2"}) {
    const TensorInfo& t = *m.graphs[0].local(y);
    EXPECT_EQ(t.rank, y == std::string("y1") ? 1 : 2) << y;
    for (const Dim& d : t.dims) EXPECT_FALSE(d.fixed()) << y;
  }
  EXPECT_EQ(m.graphs[0].local("y1")->type, ElemType::FLOAT);  // the type is still ours
}

std::vector<int64_t> sizes(const TensorInfo& t) {
  std::vector<int64_t> out;
  for (const Dim& d : t.dims) out.push_back(d.value);
  return out;
}

TEST(OwnPropagation, ReshapeByAShapeComputedFromShapeGatherAndConstants) {
  // The exporters' pattern: Concat(Unsqueeze(Gather(Shape(x), 0)), Unsqueeze(Gather(Shape(x), 1)), [-1])
  // as a Reshape's shape. Its values are known, so the Reshape's output and the MatMul after it
  // are shaped (were: unknown, and the MatMul's MACs not counted).
  std::string dir = temp_dir("propagate_computed_reshape");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3, 4, 5});
  g.init_int64("i0", {}, {0}).init_int64("i1", {}, {1}).init_int64("axes", {1}, {0}).init_int64("rest", {1}, {-1});
  g.init_float("w", {20, 7}, std::vector<float>(140, 0.f));
  g.node("Shape", {"x"}, {"s"}, "shape");
  g.node("Gather", {"s", "i0"}, {"a"}, "gather_a");
  g.node("Gather", {"s", "i1"}, {"b"}, "gather_b");
  g.node("Unsqueeze", {"a", "axes"}, {"ua"}, "unsqueeze_a");
  g.node("Unsqueeze", {"b", "axes"}, {"ub"}, "unsqueeze_b");
  attr_int(g.node("Concat", {"ua", "ub", "rest"}, {"shape"}, "concat"), "axis", 0);
  g.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  g.node("MatMul", {"y", "w"}, {"mm"}, "mm");
  g.output("mm");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(sizes(tensor(m, "shape")), (std::vector<int64_t>{3}));
  EXPECT_EQ(sizes(tensor(m, "y")), (std::vector<int64_t>{2, 3, 20}));
  EXPECT_EQ(sizes(tensor(m, "mm")), (std::vector<int64_t>{2, 3, 7}));
}

TEST(OwnPropagation, ReshapeByAShapeOfUnknownValuesHasItsLength) {
  // The shape's values come from a graph input: only its length, 3, is known; the rank follows
  // through Transpose and Add.
  std::string dir = temp_dir("propagate_reshape_rank");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3, 4, 5}).input("target", kInt64, {3});
  g.init_float("b", {1}, {0.f});
  g.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  attr_ints(g.node("Transpose", {"y"}, {"t"}, "transpose"), "perm", {2, 0, 1});
  g.node("Add", {"t", "b"}, {"z"}, "add");
  g.output("z");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  for (const char* name : {"y", "t", "z"}) {
    const TensorInfo& t = tensor(m, name);
    EXPECT_EQ(t.rank, 3) << name;
    for (const Dim& d : t.dims) EXPECT_FALSE(d.fixed()) << name;
  }
}

TEST(OwnPropagation, TorchPadOfAComputedWindowPaddingIsShaped) {
  // torchvision's swin_t, F.pad(x, (0, 0, 0, pad_r, 0, pad_b)) with pad = (7 - size % 7) % 7:
  // the pads are computed (Mod, Sub), laid out by torch's export (Concat with ConstantOfShape,
  // Reshape [-1, 2], Slice with step -1, Transpose, Reshape [-1]) and given to Pad. The Pad's
  // output is [1, 56, 56, 8] (H 54 + 2, W 50 + 6), and fills the dimensions the file left made up.
  std::string dir = temp_dir("propagate_torch_pad");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 54, 50, 8});
  g.init_int64("seven", {}, {7}).init_int64("eight", {}, {8}).init_int64("h_at", {}, {1}).init_int64("w_at", {}, {2});
  g.init_int64("zero", {1}, {0}).init_int64("axes", {1}, {0}).init_int64("first", {1}, {0});
  g.init_int64("pairs", {2}, {-1, 2}).init_int64("flat", {1}, {-1});
  g.init_int64("s_start", {1}, {-1}).init_int64("s_end", {1}, {-9223372036854775807}).init_int64("s_axes", {1}, {0});
  g.init_int64("s_step", {1}, {-1});
  g.node("Shape", {"x"}, {"sx"}, "shape_x");
  for (const char* d : {"h", "w"}) {
    std::string k = d;
    g.node("Gather", {"sx", k + "_at"}, {k}, "gather_" + k);
    attr_int(g.node("Mod", {k, "seven"}, {k + "_mod"}, "mod_" + k), "fmod", 0);
    g.node("Sub", {"seven", k + "_mod"}, {k + "_sub"}, "sub_" + k);
    attr_int(g.node("Mod", {k + "_sub", "seven"}, {k + "_pad"}, "pad_" + k), "fmod", 0);
    g.node("Unsqueeze", {k + "_pad", "axes"}, {k + "_pad1"}, "unsqueeze_" + k);
  }
  // torch's order: (C begin, C end, W begin, W end, H begin, H end)
  attr_int(g.node("Concat", {"zero", "zero", "zero", "w_pad1", "zero", "h_pad1"}, {"torch_pads"}, "concat_pads"), "axis", 0);
  g.node("Shape", {"torch_pads"}, {"n_pads"}, "shape_pads");
  g.node("Gather", {"n_pads", "first"}, {"n_pads0"}, "gather_n");
  g.node("Sub", {"eight", "n_pads0"}, {"n_rest"}, "sub_n");
  g.node("ConstantOfShape", {"n_rest"}, {"rest"}, "zeros");
  attr_int(g.node("Concat", {"torch_pads", "rest"}, {"all"}, "concat_all"), "axis", 0);
  g.node("Reshape", {"all", "pairs"}, {"paired"}, "reshape_pairs");
  g.node("Slice", {"paired", "s_start", "s_end", "s_axes", "s_step"}, {"reversed"}, "reverse");
  attr_ints(g.node("Transpose", {"reversed"}, {"columns"}, "transpose"), "perm", {1, 0});
  g.node("Reshape", {"columns", "flat"}, {"onnx_pads"}, "reshape_flat");
  g.node("Pad", {"x", "onnx_pads"}, {"padded"}, "pad");
  g.output("padded");
  auto* vi = g.proto()->add_value_info();  // what ONNX shape inference writes when it cannot compute
  vi->set_name("padded");
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  for (const char* p : {"unk__5", "unk__6", "unk__7", "unk__8"})
    vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param(p);
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(sizes(tensor(m, "paired")), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(sizes(tensor(m, "onnx_pads")), (std::vector<int64_t>{8}));
  EXPECT_EQ(sizes(tensor(m, "padded")), (std::vector<int64_t>{1, 56, 56, 8}));
}

TEST(OwnPropagation, ShapeArithmeticOnUnknownDimensionsStaysUnknown) {
  // A symbolic batch: Shape -> Gather(0) is unknown, so the Reshape's first size is unknown
  // (not made up), while the sizes the shape states are kept; a model-named dimension is never
  // replaced.
  std::string dir = temp_dir("propagate_symbolic");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {-1, 4, 6});
  g.init_int64("i0", {}, {0}).init_int64("axes", {1}, {0}).init_int64("tail", {2}, {3, 8});
  g.node("Shape", {"x"}, {"s"}, "shape");
  g.node("Gather", {"s", "i0"}, {"n"}, "gather");
  g.node("Unsqueeze", {"n", "axes"}, {"n1"}, "unsqueeze");
  attr_int(g.node("Concat", {"n1", "tail"}, {"shape"}, "concat"), "axis", 0);
  g.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  g.node("Relu", {"x"}, {"r"}, "relu");
  g.output("y").output("r");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  const TensorInfo& y = tensor(m, "y");
  ASSERT_EQ(y.rank, 3);
  EXPECT_FALSE(y.dims[0].fixed());
  EXPECT_EQ(y.dims[1].value, 3);
  EXPECT_EQ(y.dims[2].value, 8);
  EXPECT_EQ(tensor(m, "r").dims[0].param, "N");
}

TEST(OnnxLoader, ConvKernelFixesAnUnknownDataRank) {
  // A graph input of unknown rank feeding a 3-D convolution (5-D kernel): the data is 5-D, and so
  // is the output.
  std::string dir = temp_dir("loader_conv3d_rank");
  ModelBuilder mb(17);
  auto g = mb.graph();
  auto* x = g.proto()->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  g.init_float("w", {2, 3, 3, 3, 3}, std::vector<float>(162, 0.f));
  g.node("Conv", {"x", "w"}, {"y"}, "conv");
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(tensor(m, "x").rank, 5);
  EXPECT_EQ(tensor(m, "y").rank, 5);
}

TEST(OnnxLoader, AnIfTakesTheShapeItsBranchesAgreeOn) {
  // Both branches [2, 3]: the If's output is [2, 3] by our own propagation, so ONNX
  // shape inference need not run (was: unknown until it did). A dimension the
  // branches state differently is unknown and unnamed.
  std::string dir = temp_dir("loader_if_shape");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 3}).input("cond", kBool, {});
  auto& iff = g.node("If", {"cond"}, {"y"}, "if");
  auto then_b = attr_graph(iff, "then_branch", "then");
  then_b.node("Relu", {"x"}, {"t"}, "t_relu");
  then_b.output("t", kFloat, {2, 3});
  auto else_b = attr_graph(iff, "else_branch", "else");
  else_b.node("Neg", {"x"}, {"e"}, "e_neg");
  else_b.output("e", kFloat, {2, 3});
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  ASSERT_EQ(tensor(m, "y").rank, 2);
  EXPECT_EQ(tensor(m, "y").dims[0].value, 2);
  EXPECT_EQ(tensor(m, "y").dims[1].value, 3);
  EXPECT_EQ(tensor(m, "y").type_source, "trtlens");

  Model h;  // built by hand: branches [2, 3] and [2, 4]
  h.opsets.push_back({"", 17});
  for (int k = 0; k < 3; ++k) h.graphs.emplace_back();
  auto shaped = [](Graph& gr, const std::string& name, std::vector<int64_t> dims, TensorOrigin origin) {
    TensorInfo& t = gr.tensors[static_cast<size_t>(gr.intern(name))];
    t.type = ElemType::FLOAT;
    t.rank = static_cast<int>(dims.size());
    for (int64_t d : dims) t.dims.push_back(Dim{d, {}});
    t.origin = origin;
  };
  shaped(h.graphs[1], "a", {2, 3}, TensorOrigin::GraphInput);
  shaped(h.graphs[2], "b", {2, 4}, TensorOrigin::GraphInput);
  for (int k = 1; k <= 2; ++k) {
    h.graphs[static_cast<size_t>(k)].parent = 0;
    h.graphs[static_cast<size_t>(k)].parent_node = 0;
    h.graphs[static_cast<size_t>(k)].outputs = {k == 1 ? "a" : "b"};
  }
  shaped(h.graphs[0], "c", {}, TensorOrigin::GraphInput);
  h.graphs[0].inputs = {"c"};
  Node n;
  n.index = 0;
  n.op_type = "If";
  n.inputs = {"c"};
  n.outputs = {"z"};
  n.attributes.resize(2);
  n.attributes[0].name = "then_branch";
  n.attributes[0].graphs = {1};
  n.attributes[1].name = "else_branch";
  n.attributes[1].graphs = {2};
  h.graphs[0].nodes.push_back(std::move(n));
  h.graphs[0].outputs = {"z"};
  check_structure_and_propagate(h);
  const TensorInfo* z = h.graphs[0].local("z");
  ASSERT_EQ(z->rank, 2);
  EXPECT_EQ(z->dims[0].value, 2);
  EXPECT_FALSE(z->dims[1].fixed());
  EXPECT_TRUE(z->dims[1].param.empty());
}

TEST(OnnxLoader, ReadersFixARankTheBranchesDisagreeOn) {
  // torch's export of squeeze(dim): If(Squeeze -> [3] | Identity -> [3, 1]) -> Cast ->
  // RoiAlign's batch_indices, which are 1-D: the Cast's output and the If's are 1-D.
  std::string dir = temp_dir("loader_reader_rank");
  ModelBuilder mb(16);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 2, 8, 8}).input("rois", kFloat, {3, 4}).input("idx", kFloat, {3, 1});
  g.input("cond", kBool, {});
  g.init_int64("one", {1}, {1});
  auto& iff = g.node("If", {"cond"}, {"levels"}, "if");
  auto then_b = attr_graph(iff, "then_branch", "then");
  then_b.node("Squeeze", {"idx", "one"}, {"t"}, "t_squeeze");
  then_b.output("t", kFloat, {3});
  auto else_b = attr_graph(iff, "else_branch", "else");
  else_b.node("Identity", {"idx"}, {"e"}, "e_identity");
  else_b.output("e", kFloat, {3, 1});
  attr_int(g.node("Cast", {"levels"}, {"batch"}, "cast"), "to", 7);
  g.node("RoiAlign", {"x", "rois", "batch"}, {"y"}, "roi_align");
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(tensor(m, "batch").rank, 1);
  EXPECT_EQ(tensor(m, "levels").rank, 1);
}

TEST(OnnxLoader, SubgraphsAndLocalFunctionsBecomeGraphsWithPaths) {
  std::string dir = temp_dir("loader_subgraphs");
  ModelBuilder mb(13);
  mb.opset("local", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 2}).input("cond", kBool, {});
  auto& iff = g.node("If", {"cond"}, {"y"}, "If_3");
  auto then_b = attr_graph(iff, "then_branch", "then");
  then_b.node("Relu", {"x"}, {"t"}, "inner_relu");  // reads x from the enclosing graph
  then_b.output("t");
  auto else_b = attr_graph(iff, "else_branch", "else");
  else_b.node("Neg", {"x"}, {"e"});
  else_b.output("e");
  g.node("MyFn", {"y"}, {"z"}, "call", "local");
  g.output("z");
  mb.add_function("MyFn", "local", {"a"}, {"b"});
  mb.function_node("MyFn", "local", "Sigmoid", {"a"}, {"b"});
  Model m = load_model(mb.save(dir + "/m.onnx"));

  ASSERT_EQ(m.graphs.size(), 4u);
  EXPECT_EQ(m.graphs[1].path, "If_3/then_branch");
  EXPECT_EQ(m.graphs[2].path, "If_3/else_branch");
  EXPECT_EQ(m.graphs[3].path, "fn:MyFn");
  EXPECT_EQ(m.graphs[1].parent, 0);
  EXPECT_EQ(m.node_count(), 5u);
  EXPECT_EQ(tensor(m, "x", 1).origin, TensorOrigin::GraphInput);  // found in the enclosing graph
  EXPECT_TRUE(m.is_local_function("local", "MyFn"));
  EXPECT_EQ(tensor(m, "y").type, ElemType::FLOAT);  // If output typed from its branches
}

TEST(OnnxLoader, EmbeddedPayloadsAreNotCopied) {
  // 4 MiB of weights inside the .onnx: the stripped proto the loader parses stays tiny.
  std::string dir = temp_dir("loader_embedded");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 1024});
  g.init_float("w", {1024, 1024}, std::vector<float>(1024 * 1024, 1.0f));
  g.init_float("b", {4}, {1, 2, 3, 4});
  g.node("MatMul", {"x", "w"}, {"y"});
  g.node("Add", {"y", "b"}, {"z"});
  g.output("z");
  std::string bytes = mb.bytes();
  std::string stripped = strip_payloads(bytes);
  EXPECT_LT(stripped.size(), 4096u);
  onnx::ModelProto p;
  ASSERT_TRUE(p.ParseFromString(stripped));
  const auto& w = p.graph().initializer(0);
  EXPECT_EQ(w.data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_TRUE(w.raw_data().empty());
  EXPECT_EQ(p.graph().initializer(1).raw_data().size(), 16u);  // small payloads stay inline

  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(tensor(m, "w").rank, 2);
  EXPECT_EQ(tensor(m, "w").values, nullptr);
  ASSERT_NE(tensor(m, "b").values, nullptr);
  EXPECT_EQ(tensor(m, "b").values->at(3), 4.0);
}

TEST(OnnxLoader, ExternalDataRelativeToTheModelFolder) {
  std::string dir = temp_dir("loader_external");
  write_text(dir + "/weights/w.bin", std::string(64, '\0'));
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_external("w", {4, 4}, "weights/w.bin", 0, 64);
  g.node("MatMul", {"x", "w"}, {"y"});
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(tensor(m, "w").origin, TensorOrigin::Initializer);
  EXPECT_EQ(m.external_data_files, std::vector<std::string>{"weights/w.bin"});
}

TEST(OnnxLoader, ExternalDataFilesListedOnceNormalizedInOrder) {
  std::string dir = temp_dir("loader_external_files");
  write_text(dir + "/weights/w.bin", std::string(64, '\0'));
  write_text(dir + "/b.bin", std::string(16, '\0'));
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_external("w", {4, 4}, "weights/./w.bin", 0, 64);
  g.init_external("b", {4}, "b.bin", 0, 16);
  g.init_external("w2", {2, 4}, "weights/w.bin", 32, 32);  // the same file, another range
  g.node("MatMul", {"x", "w"}, {"h"});
  g.node("Add", {"h", "b"}, {"y"});
  g.output("y");
  Model m = load_model(mb.save(dir + "/m.onnx"));
  EXPECT_EQ(m.external_data_files, (std::vector<std::string>{"weights/w.bin", "b.bin"}));
}

class OnnxLoaderBadInput : public ::testing::TestWithParam<BadModel> {};

TEST_P(OnnxLoaderBadInput, ThrowsInputErrorNamingTheFile) {
  std::string dir = temp_dir("loader_bad_" + GetParam().name);
  std::string path = GetParam().make(dir);
  try {
    load_model(path);
    FAIL() << "no error for " << GetParam().name;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(GetParam().problem), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, OnnxLoaderBadInput, ::testing::ValuesIn(bad_models()),
                         [](const auto& info) { return info.param.name; });

TEST(OnnxLoader, CycleMessageNamesTheNodesOnIt) {
  std::string dir = temp_dir("loader_cycle_names");
  try {
    load_model(bad_models()[6].make(dir));
    FAIL();
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'first'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'second'"), std::string::npos) << msg;
  }
}

// A local function's untyped inputs take the type its calls pass; a Reshape's output
// is its data's type, never its shape's (issue 8: vit_b_16's function got INT64 MatMuls).
TEST(FunctionTypes, UntypedFunctionInputsTakeTheCallSiteTypes) {
  ModelBuilder mb(13);
  mb.opset("local", 1);
  auto g = mb.graph();
  g.input("x", test::kFloat, {2, 3});
  g.init_int64("shape", {2}, {3, 2});
  g.node("Block", {"x", "shape"}, {"y"}, "call", "local");
  g.output("y");
  mb.add_function("Block", "local", {"data", "new_shape"}, {"out"});
  mb.function_node("Block", "local", "Reshape", {"data", "new_shape"}, {"r"});
  mb.function_node("Block", "local", "Softmax", {"r"}, {"out"});
  Model m = load_model(mb.save(temp_dir("fn_types") + "/m.onnx"));
  ASSERT_EQ(m.functions.size(), 1u);
  const Graph& body = m.graphs[static_cast<size_t>(m.functions[0].graph)];
  EXPECT_EQ(body.local("data")->type, ElemType::FLOAT);
  EXPECT_EQ(body.local("data")->type_source, "call-site");
  EXPECT_EQ(body.local("new_shape")->type, ElemType::INT64);
  EXPECT_EQ(body.local("r")->type, ElemType::FLOAT);
  EXPECT_EQ(body.local("out")->type, ElemType::FLOAT);
}

TEST(FunctionTypes, CallSitesThatDisagreeLeaveTheInputUnknown) {
  ModelBuilder mb(13);
  mb.opset("local", 1);
  auto g = mb.graph();
  g.input("x", test::kFloat, {2, 3});
  g.input("h", test::kFloat16, {2, 3});
  g.init_int64("shape", {2}, {3, 2});
  g.node("Block", {"x", "shape"}, {"y"}, "call_fp32", "local");
  g.node("Block", {"h", "shape"}, {"z"}, "call_fp16", "local");
  g.output("y").output("z");
  mb.add_function("Block", "local", {"data", "new_shape"}, {"out"});
  mb.function_node("Block", "local", "Reshape", {"data", "new_shape"}, {"out"});
  Model m = load_model(mb.save(temp_dir("fn_types_disagree") + "/m.onnx"));
  const Graph& body = m.graphs[static_cast<size_t>(m.functions[0].graph)];
  EXPECT_EQ(body.local("data")->type, ElemType::UNDEFINED);
  EXPECT_EQ(body.local("new_shape")->type, ElemType::INT64);  // both calls pass INT64
  EXPECT_EQ(body.local("out")->type, ElemType::UNDEFINED);    // not the shape's INT64
}

}  // namespace
}  // namespace trtlens
