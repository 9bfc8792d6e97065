// partition_model on small models built in the test: regions, the chain, shares.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <set>

#include "support/onnx_builder.h"
#include "render/partition_output.h"
#include "support/paths.h"
#include "trtlens/analysis.h"
#include "trtlens/partition.h"
#include "trtlens/target.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

struct Case {
  Model model;
  Annotations annotations;
  Partition partition;
};

Case run(const ModelBuilder& mb, const std::string& name, int min_nodes = 1) {
  Model m = load_model(mb.save(temp_dir(name) + "/model.onnx"));
  Annotations a = annotate(m, KnowledgeBase::builtin().resolve("8.6"), Precision::FP16);
  Partition p = partition_model(m, a, PartitionOptions{min_nodes});
  return {std::move(m), std::move(a), std::move(p)};
}

// Node names of each part, in chain order.
std::vector<std::vector<std::string>> names(const Case& c) {
  std::vector<std::vector<std::string>> out;
  for (const auto& p : c.partition.parts) {
    out.emplace_back();
    for (int i : p.nodes) out.back().push_back(c.model.graphs[0].nodes[static_cast<size_t>(i)].name);
  }
  return out;
}

// The chain is sound: every main-graph node in exactly one part (a constant node:
// in each part that reads it, or none), and each part reads only graph inputs,
// initializers and outputs of earlier parts.
void expect_chains(const Case& c) {
  const Graph& g = c.model.graphs[0];
  std::vector<char> constant(g.nodes.size(), 0);
  for (int i : g.index.order) {
    const Node& n = g.nodes[static_cast<size_t>(i)];
    bool all = true;
    for (TensorId t : g.input_ids(n)) {
      if (t == kNoTensor) continue;
      int p = g.index.producer[static_cast<size_t>(t)];
      all = all && (p >= 0 ? constant[static_cast<size_t>(p)] != 0 : g.tensors[static_cast<size_t>(t)].origin == TensorOrigin::Initializer);
    }
    constant[static_cast<size_t>(i)] = all;
  }
  std::vector<int> seen(g.nodes.size(), 0);
  std::set<std::string> available(g.inputs.begin(), g.inputs.end());
  for (const auto& p : c.partition.parts) {
    for (int i : p.nodes) ++seen[static_cast<size_t>(i)];
    for (const auto& in : p.inputs) EXPECT_TRUE(available.count(in)) << in << " is read before it is produced";
    std::set<std::string> produced;
    for (int i : p.nodes)
      for (const auto& o : g.nodes[static_cast<size_t>(i)].outputs) produced.insert(o);
    produced.insert(p.initializers.begin(), p.initializers.end());  // an initializer may be a graph output
    for (const auto& o : p.outputs) {
      EXPECT_TRUE(produced.count(o)) << o;
      available.insert(o);
    }
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    if (!constant[i]) {
      EXPECT_EQ(seen[i], 1) << "node " << i;
    }
  }
  for (const auto& o : g.outputs) EXPECT_TRUE(available.count(o)) << o;
}

TEST(Partition, ARegionNeverNeedsAValueComputedFromItsOwnOutput) {
  // a -> custom -> b, and a -> b directly: a and b are connected, but one
  // region {a, b} would need custom's output, which needs the region's.
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8});
  g.node("Relu", {"x"}, {"ra"}, "a");
  g.node("Gate", {"ra"}, {"gated"}, "custom", "com.example");
  g.node("Add", {"ra", "gated"}, {"y"}, "b");
  g.output("y", kFloat, {1, 8});
  Case c = run(mb, "partition_cycle");
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"a"}, {"custom"}, {"b"}}));
  EXPECT_EQ(c.partition.regions, 2);
  EXPECT_EQ(c.partition.parts[2].inputs, (std::vector<std::string>{"ra", "gated"}));
  EXPECT_EQ(c.partition.parts[0].outputs, (std::vector<std::string>{"ra"}));
  ASSERT_EQ(c.partition.outside.size(), 1u);
  EXPECT_EQ(c.partition.outside[0].verdict, Verdict::UNSUPPORTED);
  expect_chains(c);
}

TEST(Partition, ConstantsAreCopiedIntoThePartsThatReadThem) {
  // Constant(axes) -> Squeeze, with a Det (unsupported at 8.6) before the Squeeze's data:
  // the Constant was an engine of its own with no input, and the Squeeze's region read
  // its axes as a run-time input, which 8.6 refuses ("release requires a constant").
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 3});
  attr_tensor_int64(g.node("Constant", {}, {"axes"}, "axes_const"), "value", {1}, {0});
  g.init_int64("shape", {1}, {1});
  g.node("Identity", {"shape"}, {"shape_copy"}, "shape_identity");  // a constant too: an Identity of an initializer
  g.node("Relu", {"x"}, {"r"}, "relu");
  g.node("Det", {"r"}, {"d"}, "det");
  g.node("Squeeze", {"d", "axes"}, {"s"}, "squeeze");
  g.node("Reshape", {"s", "shape_copy"}, {"y"}, "reshape");
  g.output("y", kFloat, {1});
  Case c = run(mb, "partition_constants");
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{
                          {"relu"}, {"det"}, {"axes_const", "shape_identity", "squeeze", "reshape"}}));
  EXPECT_EQ(c.partition.regions, 2);
  EXPECT_EQ(c.partition.parts[2].inputs, (std::vector<std::string>{"d"}));
  EXPECT_EQ(c.partition.parts[2].initializers, (std::vector<std::string>{"shape"}));
  for (const auto& p : c.partition.parts) {
    if (p.tensorrt) {
      EXPECT_FALSE(p.inputs.empty()) << "an engine without an input";
    }
  }
  EXPECT_EQ(c.partition.nodes_in_tensorrt, 5);
  ASSERT_EQ(c.partition.outside.size(), 1u);
  EXPECT_EQ(c.partition.outside[0].index, 3);  // det
  expect_chains(c);
}

TEST(Partition, AnInitializerThatIsAGraphOutputComesFromAPart) {
  // (was: no part produced it, and the manifest said from_part null for a tensor that is no input)
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_float("anchors", {2}, {0.5f, 1.5f});
  g.node("Relu", {"x"}, {"y"}, "relu");
  g.output("y", kFloat, {1, 4}).output("anchors", kFloat, {2});
  Case c = run(mb, "partition_initializer_output");
  ASSERT_FALSE(c.partition.parts.empty());
  const Part& last = c.partition.parts.back();
  EXPECT_NE(std::find(last.outputs.begin(), last.outputs.end(), "anchors"), last.outputs.end());
  EXPECT_NE(std::find(last.initializers.begin(), last.initializers.end(), "anchors"), last.initializers.end());
  expect_chains(c);
}

TEST(Partition, UnconnectedBranchesShareOneEngine) {
  // Two independent chains interleaved in the file, and a custom op beside them:
  // ONNX Runtime's provider consolidates its groups into one engine when that makes
  // no cycle (was: one region per connected component, two engines here).
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8});
  g.node("Relu", {"x"}, {"l1"}, "left1");
  g.node("Sigmoid", {"x"}, {"r1"}, "right1");
  g.node("Custom", {"x"}, {"u"}, "custom", "com.example");
  g.node("Relu", {"l1"}, {"l2"}, "left2");
  g.node("Sigmoid", {"r1"}, {"r2"}, "right2");
  g.output("l2", kFloat, {1, 8}).output("r2", kFloat, {1, 8}).output("u", kFloat, {1, 8});
  Case c = run(mb, "partition_branches");
  // The custom op depends on no region: it runs first, in the other runtime's one part.
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"custom"}, {"left1", "right1", "left2", "right2"}}));
  EXPECT_EQ(c.partition.regions, 1);
  EXPECT_EQ(c.partition.nodes_in_tensorrt, 4);
  expect_chains(c);
}

TEST(Partition, GroupsSeparatedByTheOtherRuntimeMergeWhenNoPathRunsBetweenThem) {
  // relu1 -> custom -> relu2 is a chain: two engines. sig -> sig2 beside it, after the
  // custom op in the file, joins the first group; consolidating all three would need
  // custom's output inside the engine that produces its input: no.
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8});
  g.node("Relu", {"x"}, {"a"}, "relu1");
  g.node("Custom", {"a"}, {"u"}, "custom", "com.example");
  g.node("Relu", {"u"}, {"b"}, "relu2");
  g.node("Sigmoid", {"x"}, {"s"}, "sig");
  g.node("Sigmoid", {"s"}, {"s2"}, "sig2");
  g.output("b", kFloat, {1, 8}).output("s2", kFloat, {1, 8});
  Case c = run(mb, "partition_groups");
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"relu1", "sig", "sig2"}, {"custom"}, {"relu2"}}));
  EXPECT_EQ(c.partition.regions, 2);
  expect_chains(c);
}

TEST(Partition, ExcludedOpsStayOutsideAndTheDefaultFollowsTheRelease) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 4});
  g.node("Relu", {"x"}, {"r"}, "relu");
  g.node("NonZero", {"r"}, {"nz"}, "nonzero");
  attr_int(g.node("Cast", {"nz"}, {"f"}, "cast"), "to", 1);
  g.output("f");
  Model m = load_model(mb.save(temp_dir("partition_exclude") + "/model.onnx"));
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  Annotations a = annotate(m, kb.resolve("8.6"), Precision::FP32);
  EXPECT_EQ(default_exclude_ops(kb.resolve("8.6")), (std::vector<std::string>{"NonMaxSuppression", "NonZero", "RoiAlign"}));
  EXPECT_EQ(default_exclude_ops(kb.resolve("8.4")), (std::vector<std::string>{"NonMaxSuppression"}));
  EXPECT_TRUE(default_exclude_ops(kb.resolve("7.1")).empty());
  Partition p = partition_model(m, a, PartitionOptions{1, default_exclude_ops(kb.resolve("8.6"))});
  EXPECT_EQ(p.regions, 2);
  ASSERT_EQ(p.outside.size(), 1u);
  EXPECT_EQ(p.outside[0].index, 1);
  EXPECT_NE(p.outside[0].reason.find("--exclude-ops leaves NonZero"), std::string::npos) << p.outside[0].reason;
  Partition none = partition_model(m, a, PartitionOptions{1, {}});
  EXPECT_EQ(none.regions, a.nodes[1].verdict == Verdict::UNSUPPORTED ? 2 : 1);
}

TEST(Partition, SmallRegionsGoToTheOtherRuntimeWithTheReason) {
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8});
  g.node("Custom", {"x"}, {"u"}, "pre", "com.example");
  g.node("Relu", {"u"}, {"a"}, "relu");
  g.node("Custom", {"a"}, {"v"}, "mid", "com.example");
  g.node("Relu", {"v"}, {"b"}, "r1");
  g.node("Relu", {"b"}, {"c"}, "r2");
  g.output("c", kFloat, {1, 8});
  Case keep = run(mb, "partition_min1", 1);
  EXPECT_EQ(keep.partition.regions, 2);
  Case cut = run(mb, "partition_min2", 2);
  EXPECT_EQ(names(cut), (std::vector<std::vector<std::string>>{{"pre", "relu", "mid"}, {"r1", "r2"}}));
  EXPECT_EQ(cut.partition.regions, 1);
  EXPECT_EQ(cut.partition.parts[1].region, 0);
  ASSERT_EQ(cut.partition.outside.size(), 3u);
  EXPECT_EQ(cut.partition.outside[1].index, 1);
  EXPECT_EQ(cut.partition.outside[1].verdict, Verdict::SUPPORTED);
  EXPECT_NE(cut.partition.outside[1].reason.find("fewer than --min-nodes 2"), std::string::npos);
  expect_chains(cut);
}

TEST(Partition, AnIfJoinsARegionOnlyWhenItsBodiesWhollyImport) {
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8}).input("cond", kBool, {});
  g.node("Relu", {"x"}, {"a"}, "before");
  auto& good = g.node("If", {"cond"}, {"gy"}, "if_good");
  GraphBuilder tb = attr_graph(good, "then_branch", "t");
  tb.node("Relu", {"a"}, {"t1"}, "t_relu");
  tb.output("t1", kFloat, {1, 8});
  GraphBuilder eb = attr_graph(good, "else_branch", "e");
  eb.node("Sigmoid", {"a"}, {"e1"}, "e_sig");
  eb.output("e1", kFloat, {1, 8});
  auto& bad = g.node("If", {"cond"}, {"by"}, "if_bad");
  GraphBuilder bt = attr_graph(bad, "then_branch", "bt");
  bt.node("Custom", {"gy"}, {"b1"}, "bt_custom", "com.example");
  bt.output("b1", kFloat, {1, 8});
  GraphBuilder be = attr_graph(bad, "else_branch", "be");
  be.node("Relu", {"gy"}, {"b2"}, "be_relu");
  be.output("b2", kFloat, {1, 8});
  g.output("by", kFloat, {1, 8});
  Case c = run(mb, "partition_if");
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"before", "if_good"}, {"if_bad"}}));
  // The good If reads 'a' from the main graph through its bodies: no input from outside the region.
  EXPECT_EQ(c.partition.parts[0].inputs, (std::vector<std::string>{"x", "cond"}));
  EXPECT_EQ(c.partition.parts[1].inputs, (std::vector<std::string>{"cond", "gy"}));
  ASSERT_EQ(c.partition.outside.size(), 1u);
  EXPECT_NE(c.partition.outside[0].reason.find("body node if_bad/then_branch/0 does not go to TensorRT"), std::string::npos)
      << c.partition.outside[0].reason;
  // if_bad runs outside; the provider partitions its bodies: be_relu is an engine of its own.
  EXPECT_EQ(c.partition.body_regions, 1);
  EXPECT_NE(c.partition.outside[0].reason.find("form 1 engine of their own"), std::string::npos) << c.partition.outside[0].reason;
  // Every node counts, bodies included: 3 main-graph nodes and 4 body nodes; in TensorRT:
  // before, if_good with its 2 body nodes, be_relu.
  EXPECT_EQ(c.partition.nodes, 7);
  EXPECT_EQ(c.partition.nodes_in_tensorrt, 5);
  expect_chains(c);
}

TEST(Partition, CountsMacsAndParametersInsideTensorRT) {
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8}).input("v", kFloat, {1, 256});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("m", {256, 2}, std::vector<float>(512, 0.1f));
  g.init_float("k", {8}, std::vector<float>(8, 0.1f));
  auto& conv = g.node("Conv", {"x", "w"}, {"c"}, "conv");
  attr_ints(conv, "pads", {1, 1, 1, 1});
  g.node("Custom", {"c", "k"}, {"u"}, "custom", "com.example");
  g.node("MatMul", {"v", "m"}, {"y"}, "matmul");
  g.output("u").output("y", kFloat, {1, 2});
  Case c = run(mb, "partition_macs");
  const Partition& p = c.partition;
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"conv", "matmul"}, {"custom"}}));
  // Conv: 1*4*8*8 outputs × 3*3*3 = 6912; MatMul: 1*2 outputs × 256 = 512.
  EXPECT_EQ(p.macs, 6912 + 512);
  EXPECT_EQ(p.macs_in_tensorrt, 6912 + 512);
  EXPECT_EQ(p.parts[0].macs, 6912 + 512);
  EXPECT_EQ(p.macs_unknown, 0);
  EXPECT_EQ(p.parameters, 108 + 512 + 8);
  EXPECT_EQ(p.parameters_in_tensorrt, 108 + 512);
  EXPECT_EQ(p.parts[0].initializers, (std::vector<std::string>{"w", "m"}));
  EXPECT_EQ(p.parts[1].initializers, (std::vector<std::string>{"k"}));
  expect_chains(c);
}

TEST(Partition, BodiesCountTheirMacs) {
  // A MatMul inside an If that stays outside (its other body does not import): its
  // compute is counted (was: an If's bodies counted zero), outside TensorRT.
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("v", kFloat, {1, 16}).input("cond", kBool, {});
  g.init_float("m", {16, 4}, std::vector<float>(64, 0.1f));
  auto& branch = g.node("If", {"cond"}, {"y"}, "branch");
  GraphBuilder tb = attr_graph(branch, "then_branch", "t");
  tb.node("MatMul", {"v", "m"}, {"t1"}, "t_matmul");
  tb.output("t1", kFloat, {1, 4});
  GraphBuilder eb = attr_graph(branch, "else_branch", "e");
  eb.node("Custom", {"v"}, {"e1"}, "e_custom", "com.example");
  eb.output("e1", kFloat, {1, 4});
  g.output("y", kFloat, {1, 4});
  Case c = run(mb, "partition_body_macs");
  EXPECT_EQ(c.partition.macs, 64);  // 1*4 outputs × 16
  EXPECT_EQ(c.partition.macs_in_tensorrt, 64);  // the then-branch's MatMul is an engine inside the If
  EXPECT_EQ(c.partition.body_regions, 1);
  ASSERT_EQ(c.partition.parts.size(), 1u);
  EXPECT_EQ(c.partition.parts[0].macs, 64);
  EXPECT_EQ(c.partition.parts[0].initializers, (std::vector<std::string>{"m"}));
  EXPECT_EQ(c.partition.parameters, 64);
}

TEST(Partition, UnknownShapesLeaveMacsUncounted) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {-1, 3, 8, 8});  // symbolic batch
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.node("Conv", {"x", "w"}, {"c"}, "conv");
  g.output("c");
  Case c = run(mb, "partition_macs_unknown");
  EXPECT_EQ(c.partition.macs, 0);
  EXPECT_EQ(c.partition.macs_unknown, 1);
  EXPECT_EQ(c.partition.mac_weights_unknown, 108);  // the share of compute left uncounted, by weight
  EXPECT_EQ(c.partition.mac_weights, 108);
  EXPECT_EQ(c.partition.regions, 1);
  EXPECT_TRUE(c.partition.outside.empty());
}

TEST(Partition, PartFileNamesSortInChainOrder) {
  Partition p;
  p.parts.resize(12);
  p.parts[3].tensorrt = true;
  EXPECT_EQ(part_file_name(p, 3), "part03_trt.onnx");
  EXPECT_EQ(part_file_name(p, 11), "part11_rest.onnx");
}

// ---- DLA cut (--target orin-dla): regions into DLA loadables and GPU regions ----------------

// `mb` at TensorRT 8.5 on orin-dla (or `target`), cut for the DLA unless `cut` is false.
Case run_dla(const ModelBuilder& mb, const std::string& name, Precision precision = Precision::FP16,
             const char* target = "orin-dla", bool cut = true) {
  Model m = load_model(mb.save(temp_dir(name) + "/model.onnx"));
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  Annotations a = annotate_runtime(m, kb, {&kb.resolve("8.5"), precision, &TargetCatalog::builtin().resolve(target)});
  PartitionOptions options{1, {}, cut};
  Partition p = partition_model(m, a, options);
  return {std::move(m), std::move(a), std::move(p)};
}

// "dla", "gpu" or "rest" per part, from the file names.
std::vector<std::string> devices(const Case& c) {
  std::vector<std::string> out;
  for (size_t k = 0; k < c.partition.parts.size(); ++k) {
    std::string f = part_file_name(c.partition, k);
    out.push_back(f.substr(f.find('_') + 1, f.size() - f.find('_') - 6));
  }
  return out;
}

void dla_conv(GraphBuilder& g, const std::string& in, const std::string& out, int64_t k) {
  g.init_float(out + "_w", {4, 4, k, k}, std::vector<float>(static_cast<size_t>(16 * k * k), 0.01f));
  attr_ints(g.node("Conv", {in, out + "_w"}, {out}, out), "pads", {k / 2, k / 2, k / 2, k / 2});
}

TEST(DlaCut, ConvReluThenAKernel33ConvThenReluGivesDlaGpuDlaParts) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 40, 40});
  dla_conv(g, "x", "c1", 3);
  g.node("Relu", {"c1"}, {"r1"}, "r1");
  dla_conv(g, "r1", "c2", 33);  // kernel 33 > 32: GPU_FALLBACK
  g.node("Relu", {"c2"}, {"r2"}, "r2");
  g.output("r2");
  Case c = run_dla(mb, "dla_cut_chain");
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"c1", "r1"}, {"c2"}, {"r2"}}));
  EXPECT_EQ(devices(c), (std::vector<std::string>{"dla", "gpu", "dla"}));
  ASSERT_TRUE(c.partition.dla);
  const DlaCut& d = *c.partition.dla;
  EXPECT_EQ(d.target, "orin-dla");
  EXPECT_EQ(d.release, "8.5");
  EXPECT_EQ(d.loadables, 2);
  EXPECT_EQ(d.gpu_regions, 1);
  EXPECT_EQ(d.transitions, 2);  // r1 into the GPU part, c2 back into the DLA
  EXPECT_EQ(d.max_loadables, 16);
  EXPECT_NE(d.max_loadables_source.find("tensorrt-853"), std::string::npos) << d.max_loadables_source;
  EXPECT_EQ(d.placed_nodes, 4);
  EXPECT_EQ(d.nodes_on_dla, 3);
  EXPECT_EQ(d.macs_on_dla, c.partition.parts[0].macs);
  EXPECT_EQ(d.macs_on_dla, int64_t{1} * 4 * 40 * 40 * 4 * 3 * 3);
  EXPECT_EQ(c.partition.regions, 1);  // one TensorRT region, cut in three
  for (const Part& p : c.partition.parts) EXPECT_EQ(p.region, 0);
  EXPECT_EQ(c.partition.parts[0].loadable, 0);
  EXPECT_EQ(c.partition.parts[1].loadable, -1);
  EXPECT_EQ(c.partition.parts[2].loadable, 1);
  EXPECT_EQ(c.partition.parts[1].inputs, (std::vector<std::string>{"r1"}));
  EXPECT_EQ(c.partition.parts[1].initializers, (std::vector<std::string>{"c2_w"}));
  expect_chains(c);
}

TEST(DlaCut, ADlaRunThatReadsTheGpuPartBetweenIsALoadableOfItsOwn) {
  // a feeds both the kernel-33 conv (GPU) and b; c adds both. a, b, c are connected DLA
  // nodes (check counts one loadable), but one loadable {a, b, c} would need the GPU part's
  // output, which needs the loadable's: a cycle. So two loadables.
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 40, 40});
  dla_conv(g, "x", "a", 3);
  dla_conv(g, "a", "gpu", 33);
  g.node("Relu", {"a"}, {"b"}, "b");
  g.node("Add", {"gpu", "b"}, {"c"}, "c");
  g.output("c");
  Case c = run_dla(mb, "dla_cut_cycle");
  EXPECT_EQ(c.annotations.dla->loadables, 1);
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"a", "b"}, {"gpu"}, {"c"}}));
  EXPECT_EQ(devices(c), (std::vector<std::string>{"dla", "gpu", "dla"}));
  EXPECT_EQ(c.partition.dla->loadables, 2);
  expect_chains(c);
}

TEST(DlaCut, AGpuPartThatDoesNotReadTheDlaRunGoesFirstAndTheDlaNodesJoin) {
  // x feeds a DLA conv and a GPU conv; an Add of both. The schedule runs a, then gpu, then
  // c; gpu does not read a, so it goes first and {a, c} is one loadable.
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 40, 40});
  dla_conv(g, "x", "a", 3);
  dla_conv(g, "x", "gpu", 33);
  g.node("Add", {"a", "gpu"}, {"c"}, "c");
  g.output("c");
  Case c = run_dla(mb, "dla_cut_merge");
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"gpu"}, {"a", "c"}}));
  EXPECT_EQ(devices(c), (std::vector<std::string>{"gpu", "dla"}));
  EXPECT_EQ(c.partition.dla->loadables, 1);
  EXPECT_EQ(c.partition.dla->transitions, 1);
  expect_chains(c);
}

TEST(DlaCut, AtFp32TheWholeRegionIsOnTheGpu) {
  // The DLA runs FP16 and INT8 only: at fp32 every node falls back.
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 8, 8});
  dla_conv(g, "x", "c1", 3);
  g.node("Relu", {"c1"}, {"r1"}, "r1");
  g.output("r1");
  Case c = run_dla(mb, "dla_cut_fp32", Precision::FP32);
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"c1", "r1"}}));
  EXPECT_EQ(devices(c), (std::vector<std::string>{"gpu"}));
  EXPECT_EQ(c.partition.dla->loadables, 0);
  EXPECT_EQ(c.partition.dla->gpu_regions, 1);
  EXPECT_EQ(c.partition.dla->transitions, 0);
  EXPECT_EQ(c.partition.dla->nodes_on_dla, 0);
}

TEST(DlaCut, NodesThatDoNotImportStayWithTheOtherRuntimeBetweenLoadables) {
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 8, 8});
  g.node("Relu", {"x"}, {"a"}, "a");
  g.node("Gate", {"a"}, {"gated"}, "custom", "com.example");
  g.node("Relu", {"gated"}, {"b"}, "b");
  g.output("b", kFloat, {1, 4, 8, 8});
  g.output("gated", kFloat, {1, 4, 8, 8});  // declares the custom op's output: b's input is static
  Case c = run_dla(mb, "dla_cut_custom");
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"a"}, {"custom"}, {"b"}}));
  EXPECT_EQ(devices(c), (std::vector<std::string>{"dla", "rest", "dla"}));
  EXPECT_EQ(c.partition.dla->loadables, 2);
  EXPECT_EQ(c.partition.dla->gpu_regions, 0);
  EXPECT_EQ(c.partition.dla->transitions, 2);  // a into the other runtime, gated back
  EXPECT_EQ(c.partition.parts[2].region, 1);
  EXPECT_EQ(c.partition.parts[2].loadable, 1);
  expect_chains(c);
}

TEST(DlaCut, NoCutWithoutTheOptionOrWithoutADlaTarget) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 40, 40});
  dla_conv(g, "x", "c1", 3);
  dla_conv(g, "c1", "c2", 33);
  g.output("c2");
  for (bool dla_target : {true, false}) {
    Case c = dla_target ? run_dla(mb, "dla_cut_off", Precision::FP16, "orin-dla", false)
                        : run_dla(mb, "dla_cut_gpu_target", Precision::FP16, "orin", true);
    EXPECT_FALSE(c.partition.dla);
    EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"c1", "c2"}}));
    EXPECT_EQ(devices(c), (std::vector<std::string>{"trt"}));
  }
}

TEST(DlaCut, MoreThan16LoadablesIsAWarningNamingTheCount) {
  // 17 Relus (DLA) between 16 MaxPools of window 9 (> 8: GPU): 17 loadables on one core.
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 8, 8});
  std::string at = "x";
  for (int i = 0; i < 17; ++i) {
    g.node("Relu", {at}, {"r" + std::to_string(i)}, "r" + std::to_string(i));
    at = "r" + std::to_string(i);
    if (i == 16) break;
    auto& pool = g.node("MaxPool", {at}, {"p" + std::to_string(i)}, "p" + std::to_string(i));
    attr_ints(pool, "kernel_shape", {9, 9});
    attr_ints(pool, "pads", {4, 4, 4, 4});
    at = "p" + std::to_string(i);
  }
  g.output(at);
  Case c = run_dla(mb, "dla_cut_17");
  ASSERT_TRUE(c.partition.dla);
  EXPECT_EQ(c.partition.dla->loadables, 17);
  EXPECT_EQ(c.partition.dla->gpu_regions, 16);
  EXPECT_EQ(c.partition.parts.size(), 33u);
  std::string text = partition_text(c.model, c.annotations, c.partition, false);
  EXPECT_NE(text.find("warning: 17 DLA loadables, more than the 16 TensorRT loads per DLA core"), std::string::npos) << text;
  EXPECT_NE(partition_markdown(c.model, c.annotations, c.partition).find("17 DLA loadables, more than the 16"), std::string::npos);
  std::string json = partition_json(c.model, c.annotations, c.partition, KnowledgeBase::builtin(), false);
  EXPECT_NE(json.find("\"over_limit\": true"), std::string::npos);
  // The placement's own estimate (connected DLA nodes) is not printed beside the cut's count.
  EXPECT_EQ(text.find("per DLA core: TensorRT cannot load them all at once"), std::string::npos) << text;
  expect_chains(c);
}

TEST(DlaCut, ANodeTheBuilderFoldsGoesWithItsReader) {
  // Shape of a static tensor is folded (placed '-'): it goes with the Reshape that reads it (GPU: no
  // shuffle on the DLA at 8.5), so the shape value never crosses the cut. Propagation computes the
  // Reshape's output shape from that value, so the last Relu is static and back on the DLA.
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 8, 8});
  g.node("Relu", {"x"}, {"a"}, "a");
  g.node("Shape", {"a"}, {"s"}, "shape");
  g.node("Reshape", {"a", "s"}, {"b"}, "reshape");
  g.node("Relu", {"b"}, {"y"}, "y");
  g.output("y");
  Case c = run_dla(mb, "dla_cut_folded");
  ASSERT_EQ(c.annotations.dla->nodes[1].verdict, DlaVerdict::NONE);
  ASSERT_EQ(c.annotations.dla->nodes[2].verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_EQ(names(c), (std::vector<std::vector<std::string>>{{"a"}, {"shape", "reshape"}, {"y"}}));
  EXPECT_EQ(devices(c), (std::vector<std::string>{"dla", "gpu", "dla"}));
  EXPECT_EQ(c.partition.dla->transitions, 2);  // a and b; not the shape
  EXPECT_EQ(c.partition.dla->placed_nodes, 3);
  expect_chains(c);
}

TEST(Partition, PartFileNamesSayTheDeviceWithADlaCut) {
  Partition p;
  p.dla = DlaCut{};
  p.parts.resize(3);
  p.parts[0].tensorrt = p.parts[0].dla = true;
  p.parts[1].tensorrt = true;
  EXPECT_EQ(part_file_name(p, 0), "part0_dla.onnx");
  EXPECT_EQ(part_file_name(p, 1), "part1_gpu.onnx");
  EXPECT_EQ(part_file_name(p, 2), "part2_rest.onnx");
}

}  // namespace
}  // namespace trtlens
