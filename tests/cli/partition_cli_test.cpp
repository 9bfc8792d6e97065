// `trtlens partition` as a user runs it: the report, the golden JSON, the
// parts written with -o (valid for onnx.checker, chaining back to the model),
// and bad input.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/model.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kGolden = std::string(TRTLENS_SOURCE_DIR) + "/tests/cli/golden/partition_detect.json";

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 97) * 0.25f;
  return v;
}

// value_info for a tensor inference cannot type (the output of a custom op), as exporters write it.
void declare(GraphBuilder& g, const std::string& name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto* vi = g.proto()->add_value_info();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(kFloat);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// A small detector: custom pre-processing, a Conv backbone whose second weight
// (18 KiB) the loader leaves in the file, a classifier whose weight is external
// data, a custom box decoder and one Relu after it.
std::string detect_model(const std::string& dir) {
  std::vector<float> fc = ramp(10 * 64);
  {
    std::ofstream w(dir + "/fc.bin", std::ios::binary);
    w.write(reinterpret_cast<const char*>(fc.data()), static_cast<std::streamsize>(fc.size() * sizeof(float)));
  }
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("image", kFloat, {1, 3, 16, 16});
  g.init_float("w1", {8, 3, 3, 3}, ramp(8 * 3 * 27 / 3));
  g.init_float("w2", {64, 8, 3, 3}, ramp(64 * 8 * 9));
  g.init_external("fc_w", {10, 64}, "fc.bin", 0, static_cast<int64_t>(fc.size() * sizeof(float)));
  g.init_float("fc_b", {10}, ramp(10));
  g.node("Normalize", {"image"}, {"norm"}, "normalize", "com.example");
  attr_ints(g.node("Conv", {"norm", "w1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  g.node("Relu", {"c1"}, {"r1"}, "relu1");
  attr_ints(g.node("Conv", {"r1", "w2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  g.node("Relu", {"c2"}, {"r2"}, "relu2");
  g.node("GlobalAveragePool", {"r2"}, {"gp"}, "pool");
  g.node("Flatten", {"gp"}, {"flat"}, "flatten");
  attr_int(g.node("Gemm", {"flat", "fc_w", "fc_b"}, {"logits"}, "fc"), "transB", 1);
  g.node("Sigmoid", {"logits"}, {"scores"}, "scores");
  g.node("DecodeBoxes", {"r2"}, {"raw_boxes"}, "decode", "com.example");
  g.node("Relu", {"raw_boxes"}, {"boxes"}, "clip");
  declare(g, "norm", {1, 3, 16, 16});
  declare(g, "raw_boxes", {1, 64, 16, 16});
  g.output("scores", kFloat, {1, 10}).output("boxes", kFloat, {1, 64, 16, 16});
  return mb.save(dir + "/detect.onnx");
}

bool python_onnx() { return std::system("/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1") == 0; }

TEST(PartitionCli, JsonMatchesTheGoldenFile) {
  std::string model = detect_model(temp_dir("PartitionCli.Golden"));
  RunResult r = run_trtlens({"partition", model, "--trt", "8.6", "--precision", "fp16", "--min-nodes", "2", "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the custom ops do not import
  // Key order is part of what the golden file pins.
  auto doc = nlohmann::ordered_json::parse(r.out);
  doc["model"] = "detect.onnx";
  // Pinned apart from the build: the trtlens release and the knowledge base's fingerprint.
  doc["trtlens_version"] = "0.0.0";
  doc["kb_fingerprint"] = std::string(64, '0');
  if (std::getenv("TRTLENS_UPDATE_GOLDEN")) {
    write_text(kGolden, doc.dump(2) + "\n");
    GTEST_SKIP() << "golden file rewritten";
  }
  auto golden = nlohmann::ordered_json::parse(read_text(kGolden));
  EXPECT_EQ(doc, golden) << nlohmann::ordered_json::diff(golden, doc).dump(2);
  // What the golden file pins, said plainly: one engine with the backbone and
  // the classifier, the lone Relu after the box decoder left out by --min-nodes.
  EXPECT_EQ(doc["summary"]["regions"], 1);
  EXPECT_EQ(doc["parts"][1]["runtime"], "tensorrt");
  EXPECT_EQ(doc["parts"][1]["node_count"], 8);
  EXPECT_EQ(doc["outside"].back()["name"], "clip");
}

TEST(PartitionCli, TextAndMarkdownNameRegionsBoundariesAndTheNodesLeftOut) {
  std::string model = detect_model(temp_dir("PartitionCli.Text"));
  RunResult t = run_trtlens({"partition", model, "--trt", "8.6", "--precision", "fp16"});
  ASSERT_EQ(t.exit_code, 1) << t.err;
  EXPECT_NE(t.out.find("TensorRT engines:           2"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ops excluded:               NonMaxSuppression,NonZero,RoiAlign"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("nodes in TensorRT:          9 of 11 (81.8%)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("in   norm FLOAT [1, 3, 16, 16]  (from part 0)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("normalize"), std::string::npos);
  RunResult md = run_trtlens({"partition", model, "--trt", "8.6", "--precision", "fp16", "--format", "markdown"});
  ASSERT_EQ(md.exit_code, 1) << md.err;
  EXPECT_NE(md.out.find("**Region 0** (part 1, 8 nodes)"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| in | `norm` | FLOAT | [1, 3, 16, 16] |"), std::string::npos) << md.out;
}

// Every written part passes onnx.checker, and the parts chain back to the
// model: each original node in exactly one part, each boundary tensor made by
// one part and read where the manifest says.
TEST(PartitionCli, WrittenPartsAreValidModelsThatChainBackToTheWhole) {
  std::string dir = temp_dir("PartitionCli.Write");
  std::string model = detect_model(dir);
  std::string out = dir + "/parts";
  RunResult r = run_trtlens({"partition", model, "--trt", "8.6", "--precision", "fp16", "-o", out});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(folder_entries(out), (std::vector<std::string>{"manifest.json", "part0_rest.onnx", "part1_trt.onnx",
                                                     "part2_rest.onnx", "part3_trt.onnx", "weights.data"}));
  json manifest = json::parse(read_text(out + "/manifest.json"));
  ASSERT_EQ(manifest["parts"].size(), 4u);

  Model whole = load_model(model);
  std::map<std::string, int> seen;  // node name -> parts holding it
  std::map<std::string, int> made_by;
  for (const json& part : manifest["parts"]) {
    std::string file = out + "/" + part["file"].get<std::string>();
    Model m = load_model(file);  // also checks that its external data is where it says
    for (const auto& n : m.graphs[0].nodes) ++seen[n.name];
    std::vector<std::string> in, outs;
    for (const json& t : part["inputs"]) in.push_back(t["name"]);
    for (const json& t : part["outputs"]) outs.push_back(t["name"]);
    EXPECT_EQ(m.graphs[0].inputs, in) << file;
    EXPECT_EQ(m.graphs[0].outputs, outs) << file;
    for (const json& t : part["inputs"]) {
      if (t["from_part"].is_null()) {
        EXPECT_NE(std::find(whole.graphs[0].inputs.begin(), whole.graphs[0].inputs.end(), t["name"]),
                  whole.graphs[0].inputs.end());
      } else {
        EXPECT_EQ(made_by.at(t["name"]), t["from_part"].get<int>()) << "read before it is made";
      }
    }
    for (const json& t : part["outputs"]) EXPECT_TRUE(made_by.emplace(t["name"], part["index"].get<int>()).second);
    // Boundary tensors carry a type and a shape.
    for (const auto& name : m.graphs[0].inputs) EXPECT_NE(m.graphs[0].local(name)->type, ElemType::UNDEFINED);
  }
  EXPECT_EQ(seen.size(), whole.graphs[0].nodes.size());
  for (const auto& [name, count] : seen) EXPECT_EQ(count, 1) << name;
  for (const json& o : manifest["graph_outputs"]) EXPECT_EQ(made_by.at(o["name"]), o["from_part"].get<int>());

  // The weights the loader left in the file and the external data were copied, byte for byte.
  onnx::ModelProto trt;
  ASSERT_TRUE(trt.ParseFromString(read_text(out + "/part1_trt.onnx")));
  std::string weights = read_text(out + "/weights.data");
  std::map<std::string, std::vector<float>> expected = {{"w2", ramp(64 * 8 * 9)}, {"fc_w", ramp(640)}};
  int external = 0;
  for (const auto& t : trt.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    ++external;
    std::map<std::string, std::string> kv;
    for (const auto& e : t.external_data()) kv[e.key()] = e.value();
    EXPECT_EQ(kv["location"], "weights.data");
    const std::vector<float>& want = expected.at(t.name());
    std::string bytes = weights.substr(std::stoull(kv["offset"]), std::stoull(kv["length"]));
    ASSERT_EQ(bytes.size(), want.size() * sizeof(float));
    EXPECT_EQ(std::memcmp(bytes.data(), want.data(), bytes.size()), 0) << t.name();
  }
  EXPECT_EQ(external, 2);

  if (!python_onnx()) GTEST_SKIP() << "Debian's python3-onnx is not installed: onnx.checker not run";
  for (const json& part : manifest["parts"]) {
    std::string file = out + "/" + part["file"].get<std::string>();
    std::string cmd = "/usr/bin/python3 -c 'import onnx, sys; onnx.checker.check_model(sys.argv[1], full_check=True)' '" +
                      file + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "onnx.checker refuses " << file;
  }
}

TEST(PartitionCli, EveryTensorRTPartConvertsAtTheSameRuntime) {
  // Constant(axes) -> Squeeze with a Det (unsupported at 8.6) before the Squeeze: the
  // Squeeze's part gets its own copy of the Constant, so its axes stay a constant
  // (was: a run-time input, and `check` of the written part said it does not convert).
  std::string dir = temp_dir("PartitionCli.PartsConvert");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 3});
  attr_tensor_int64(g.node("Constant", {}, {"axes"}, "axes_const"), "value", {1}, {0});
  g.node("Relu", {"x"}, {"r"}, "relu");
  g.node("Det", {"r"}, {"d"}, "det");
  g.node("Squeeze", {"d", "axes"}, {"y"}, "squeeze");
  g.output("y", kFloat, {});
  std::string model = mb.save(dir + "/m.onnx");
  RunResult r = run_trtlens({"partition", model, "--trt", "8.6", "--precision", "fp16", "-o", dir + "/parts"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // Det does not import
  int trt_parts = 0;
  for (const std::string& f : folder_entries(dir + "/parts")) {
    if (f.find("_trt.onnx") == std::string::npos) continue;
    ++trt_parts;
    RunResult c = run_trtlens({"check", dir + "/parts/" + f, "--trt", "8.6", "--precision", "fp16"});
    EXPECT_EQ(c.exit_code, 0) << f << ":\n" << c.out << c.err;
  }
  EXPECT_EQ(trt_parts, 2);
}

TEST(PartitionCli, AnIfWhoseBranchesDisagreeOnRankIsLeftOutOfTheTensorRtRegion) {
  // torch's export of squeeze(dim) on fasterrcnn's roi pool: If(Squeeze | Identity) ->
  // Cast -> RoiAlign. TensorRT 8.6 refuses an IIfConditional whose outputs differ in shape
  // (if_branch_ranks, release/10.5:include/NvInfer.h:4545), so the region ends at the If's input
  // (was: the If inside it, its Cast's 1-D output the boundary).
  std::string dir = temp_dir("PartitionCli.IfCast");
  ModelBuilder mb(16);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 2, 8, 8}).input("rois", kFloat, {3, 4}).input("idx", kFloat, {3, 1});
  g.input("cond", kBool, {});
  g.init_int64("one", {1}, {1});
  g.node("Relu", {"idx"}, {"ri"}, "relu");
  auto& branch = g.node("If", {"cond"}, {"levels"}, "squeeze_if");
  GraphBuilder tb = attr_graph(branch, "then_branch", "t");
  tb.node("Squeeze", {"ri", "one"}, {"t1"}, "t_squeeze");
  tb.output("t1", kFloat, {3});
  GraphBuilder eb = attr_graph(branch, "else_branch", "e");
  eb.node("Identity", {"ri"}, {"e1"}, "e_identity");
  eb.output("e1", kFloat, {3, 1});
  attr_int(g.node("Cast", {"levels"}, {"batch"}, "cast"), "to", 7);
  g.node("RoiAlign", {"x", "rois", "batch"}, {"y"}, "roi_align");
  g.output("y", kFloat, {3, 2, 1, 1});
  std::string model = mb.save(dir + "/m.onnx");
  RunResult r = run_trtlens({"partition", model, "--trt", "8.6", "-o", dir + "/parts"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  onnx::ModelProto part;
  ASSERT_TRUE(part.ParseFromString(read_text(dir + "/parts/part0_trt.onnx")));
  ASSERT_EQ(part.graph().output_size(), 1);
  EXPECT_EQ(part.graph().output(0).name(), "ri");
  EXPECT_EQ(part.graph().output(0).type().tensor_type().shape().dim_size(), 2) << part.graph().output(0).DebugString();
  RunResult c = run_trtlens({"check", dir + "/parts/part0_trt.onnx", "--trt", "8.6"});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  if (!python_onnx()) GTEST_SKIP() << "Debian's python3-onnx is not installed: onnx.checker not run";
  for (const std::string& f : folder_entries(dir + "/parts")) {
    if (f.find(".onnx") == std::string::npos) continue;
    std::string cmd = "/usr/bin/python3 -c 'import onnx, sys; onnx.checker.check_model(sys.argv[1], full_check=True)' '" +
                      dir + "/parts/" + f + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "onnx.checker refuses " << f;
  }
}

TEST(PartitionCli, AFullOutputFolderNeedsForce) {
  std::string dir = temp_dir("PartitionCli.Force");
  std::string model = detect_model(dir);
  std::string out = dir + "/parts";
  write_text(out + "/keep.txt", "mine");
  RunResult r = run_trtlens({"partition", model, "--trt", "8.6", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(out + ": exists and is not empty; use --force"), std::string::npos) << r.err;
  EXPECT_EQ(folder_entries(out), std::vector<std::string>{"keep.txt"});
  RunResult f = run_trtlens({"partition", model, "--trt", "8.6", "-o", out, "--force"});
  EXPECT_EQ(f.exit_code, 1) << f.err;
  EXPECT_TRUE(fs::exists(out + "/manifest.json"));
  EXPECT_FALSE(fs::exists(out + "/keep.txt"));
  EXPECT_EQ(folder_entries(dir), (std::vector<std::string>{"detect.onnx", "fc.bin", "parts"}));  // no temporary folder left
  // Nor may --force replace the folder that holds the model.
  RunResult own = run_trtlens({"partition", model, "--trt", "8.6", "-o", dir, "--force"});
  EXPECT_EQ(own.exit_code, 2);
  EXPECT_NE(own.err.find("holds the model being partitioned"), std::string::npos) << own.err;
  EXPECT_TRUE(fs::exists(model));
}

TEST(PartitionCli, AFailedWriteLeavesNothingBehind) {
  // A weight over 16 KiB in float_data: the loader does not keep it, so the
  // part that needs it cannot be written; the error comes after other parts were.
  std::string dir = temp_dir("PartitionCli.Failure");
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 5000});
  g.node("Custom", {"x"}, {"u"}, "custom", "com.example");
  onnx::TensorProto* t = g.proto()->add_initializer();
  t->set_name("big");
  t->set_data_type(kFloat);
  t->add_dims(1);
  t->add_dims(5000);
  for (int i = 0; i < 5000; ++i) t->add_float_data(1.0f);
  g.node("Add", {"u", "big"}, {"y"}, "add");
  g.output("y", kFloat, {1, 5000});
  declare(g, "u", {1, 5000});
  std::string model = mb.save(dir + "/typed.onnx");
  RunResult r = run_trtlens({"partition", model, "--trt", "8.6", "-o", dir + "/parts"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(model + ": tensor 'big' stores more than 16 KiB in typed fields"), std::string::npos) << r.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"typed.onnx"});
}

TEST(PartitionCli, ABoundaryNothingCanTypeStopsTheWriteNamingIt) {
  // A custom op's output without value_info crosses into a TensorRT part: no part can
  // declare it (was: written without a type, which onnx.checker and ONNX Runtime refuse).
  std::string dir = temp_dir("PartitionCli.Untyped");
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8});
  g.node("Custom", {"x"}, {"u"}, "custom", "com.example");
  g.node("Relu", {"u"}, {"y"}, "relu");
  g.output("y", kFloat, {1, 8});
  std::string model = mb.save(dir + "/untyped.onnx");
  RunResult r = run_trtlens({"partition", model, "--trt", "8.6", "-o", dir + "/parts"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(model + ": tensor 'u' passes between parts, and neither trtlens nor ONNX shape inference knows its type"),
            std::string::npos) << r.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"untyped.onnx"});
}

TEST(PartitionCli, BoundariesKeepSequenceTypesAndNameUnknownDims) {
  // libonnx-testdata: a sequence input (was written as a tensor, and the part did not
  // load), and a Reshape by a computed shape whose rank only data propagation knows
  // (was written without a shape, which onnx.checker refuses).
  const std::string data = "/usr/share/libonnx-testdata/data/node/";
  std::string seq = data + "test_sequence_map_identity_1_sequence_expanded/model.onnx";
  std::string sce = data + "test_sce_mean_expanded/model.onnx";
  if (!fs::exists(seq) || !fs::exists(sce)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::string dir = temp_dir("PartitionCli.Boundaries");
  RunResult r = run_trtlens({"partition", seq, "--trt", "7.0", "-o", dir + "/seq"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  onnx::ModelProto part;
  ASSERT_TRUE(part.ParseFromString(read_text(dir + "/seq/part0_rest.onnx")));
  ASSERT_EQ(part.graph().input_size(), 1);
  EXPECT_TRUE(part.graph().input(0).type().has_sequence_type()) << part.graph().input(0).DebugString();

  RunResult s = run_trtlens({"partition", sce, "--trt", "8.6", "-o", dir + "/sce"});
  ASSERT_EQ(s.exit_code, 1) << s.err;
  ASSERT_TRUE(part.ParseFromString(read_text(dir + "/sce/part1_rest.onnx")));
  const onnx::ValueInfoProto& in = part.graph().input(0);
  ASSERT_TRUE(in.type().tensor_type().has_shape()) << in.DebugString();
  EXPECT_EQ(in.type().tensor_type().shape().dim_size(), 2) << in.DebugString();
  for (const auto& d : in.type().tensor_type().shape().dim()) EXPECT_TRUE(d.has_dim_value() || !d.dim_param().empty());
}

TEST(PartitionCli, ExcludeOpsOverridesTheProvidersDefault) {
  std::string dir = temp_dir("PartitionCli.Exclude");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2, 4});
  g.node("Relu", {"x"}, {"r"}, "relu");
  g.node("NonZero", {"r"}, {"nz"}, "nonzero");
  attr_int(g.node("Cast", {"nz"}, {"y"}, "cast"), "to", kFloat);
  g.output("y");
  std::string model = mb.save(dir + "/nz.onnx");
  RunResult def = run_trtlens({"partition", model, "--trt", "8.6", "--format", "json"});
  ASSERT_EQ(def.exit_code, 0) << def.err;
  json d = json::parse(def.out);
  EXPECT_EQ(d["exclude_ops"], (json{"NonMaxSuppression", "NonZero", "RoiAlign"}));
  EXPECT_EQ(d["summary"]["engines"], 2);
  ASSERT_EQ(d["outside"].size(), 1u);
  EXPECT_EQ(d["outside"][0]["name"], "nonzero");
  RunResult none = run_trtlens({"partition", model, "--trt", "8.6", "--exclude-ops", "", "--format", "json"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  json n = json::parse(none.out);
  EXPECT_EQ(n["exclude_ops"], json::array());
  EXPECT_EQ(n["summary"]["engines"], 1);
  RunResult relu = run_trtlens({"partition", model, "--trt", "8.6", "--exclude-ops", "Relu, Cast", "--format", "json"});
  json e = json::parse(relu.out);
  EXPECT_EQ(e["exclude_ops"], (json{"Relu", "Cast"}));
  EXPECT_EQ(e["outside"].size(), 2u);
}

// --target orin-dla: the TensorRT regions cut into DLA loadables and GPU regions, each part
// naming its device in the manifest, the text and the file name.
TEST(PartitionCli, ADlaTargetCutsRegionsIntoDlaLoadablesAndGpuRegions) {
  std::string dir = temp_dir("PartitionCli.Dla");
  std::string model = detect_model(dir);
  std::string out = dir + "/parts";
  RunResult r = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla", "-o", out,
                             "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the custom ops do not import
  EXPECT_EQ(folder_entries(out), (std::vector<std::string>{"manifest.json", "part0_rest.onnx", "part1_dla.onnx",
                                                           "part2_gpu.onnx", "part3_rest.onnx", "part4_dla.onnx",
                                                           "weights.data"}));
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["runtime"]["target"], "orin-dla");
  std::vector<std::string> devices;
  for (const auto& part : doc["parts"]) devices.push_back(part["device"]);
  EXPECT_EQ(devices, (std::vector<std::string>{"onnxruntime", "dla", "gpu", "onnxruntime", "dla"}));
  // conv1 .. relu2 on the DLA; GlobalAveragePool, Flatten, Gemm, Sigmoid on [1, 10] fall back.
  EXPECT_EQ(doc["parts"][1]["nodes"], (json{"/1", "/2", "/3", "/4"}));
  EXPECT_EQ(doc["parts"][1]["loadable"], 0);
  EXPECT_EQ(doc["parts"][2]["loadable"], nullptr);
  EXPECT_EQ(doc["parts"][1]["region"], 0);
  EXPECT_EQ(doc["parts"][2]["region"], 0);
  EXPECT_EQ(doc["parts"][4]["region"], 1);
  EXPECT_EQ(doc["summary"]["regions"], 2);
  // One engine per TensorRT region, holding its loadables and GPU parts (was 3: one per part).
  EXPECT_EQ(doc["summary"]["engines"], 2);
  const json& d = doc["dla"];
  EXPECT_EQ(d["loadables"], 2);
  EXPECT_EQ(d["gpu_regions"], 1);
  EXPECT_EQ(d["max_loadables_per_core"], 16);
  EXPECT_EQ(d["over_limit"], false);
  // r2 to the GPU region and to the box decoder; norm into the first loadable; raw_boxes into the second.
  EXPECT_EQ(d["transitions"], 4);
  EXPECT_EQ(d["nodes_on_dla"], 5);
  json manifest = json::parse(read_text(out + "/manifest.json"));
  EXPECT_EQ(manifest["parts"][1]["file"], "part1_dla.onnx");
  EXPECT_EQ(manifest["parts"][2]["file"], "part2_gpu.onnx");

  RunResult t = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"});
  EXPECT_NE(t.out.find("TensorRT engines:           2; one per TensorRT region, holding its DLA loadables and GPU "
                       "parts (2 and 1 below)"),
            std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("GPU parts:                  1 (TensorRT on the GPU"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("DLA loadables:              2 (within the 16 per DLA core TensorRT loads)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("part 1: DLA loadable 0, region 0, 4 nodes (conv1 .. relu2)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("part 2: GPU, region 0"), std::string::npos) << t.out;
  RunResult md = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla", "--format", "markdown"});
  EXPECT_NE(md.out.find("**DLA loadable 1** (region 1, part 4, 1 nodes)"), std::string::npos) << md.out;

  // A release without DLA facts is a usage error, as in check.
  // (Xavier's JetPack 4.6 ships 8.0; data/targets/dla has no 8.0 file.)
  RunResult old = run_trtlens({"partition", model, "--trt", "8.0", "--precision", "fp16", "--target", "xavier-dla"});
  EXPECT_EQ(old.exit_code, 2);
  EXPECT_NE(old.err.find("no DLA facts for TensorRT 8.0"), std::string::npos) << old.err;
}

// The torchvision models of tests/models/dla_expected.json (one DLA loadable, one transition,
// the nodes it lists off the DLA): partition cuts each into that loadable and one GPU region
// holding exactly the off-DLA nodes, in that order.
TEST(PartitionCliRealModels, TorchvisionModelsOnOrinDlaSplitAsTheExpectedPlacementImplies) {
  std::string cache = std::string(TRTLENS_TEST_TMP) + "/../model-cache";  // the build tree's, as models.real fills it
  // Ordered: each off_dla list is in node order (the text names its first and last). Values compared
  // with the output's json are read out (clang finds ordered_json == json ambiguous).
  auto expected =
      nlohmann::ordered_json::parse(read_text(std::string(TRTLENS_SOURCE_DIR) + "/tests/models/dla_expected.json"));
  int checked = 0;
  for (const auto& [file, want] : expected.items()) {
    if (file.starts_with("_")) continue;
    std::string path = cache + "/" + file.substr(0, file.find(' '));  // "resnet18_op17.onnx int8": another runtime
    if (!fs::exists(path)) {
      ADD_FAILURE() << "the model_cache fixture (models.export) did not make " << path;
      continue;
    }
    ++checked;
    std::vector<std::string> args = {"partition", path, "--trt", want["trt"], "--precision", want["precision"], "--target", want["target"]};
    RunResult t = run_trtlens(args);
    args.insert(args.end(), {"--format", "json"});
    RunResult r = run_trtlens(args);
    ASSERT_EQ(r.exit_code, 0) << file << r.err;
    json doc = json::parse(r.out), dla = doc["dla"];
    ASSERT_EQ(want["loadables"], 1) << "the expectations below assume one loadable";
    EXPECT_EQ(dla["loadables"], want["loadables"].get<int>()) << file;
    EXPECT_EQ(dla["transitions"], want["transitions"].get<int>()) << file;
    EXPECT_EQ(dla["gpu_regions"], 1) << file;
    EXPECT_EQ(dla["nodes_on_dla"], want["dla_nodes"].get<int>()) << file;
    EXPECT_EQ(dla["placed_nodes"], want["dla_nodes"].get<int>() + want["gpu_fallback_nodes"].get<int>() +
                                       want["unsupported_nodes"].get<int>()) << file;
    ASSERT_EQ(doc["parts"].size(), 2u) << file;
    EXPECT_EQ(doc["parts"][0]["device"], "dla");
    EXPECT_EQ(doc["parts"][1]["device"], "gpu");
    const auto& off = want["off_dla"];
    EXPECT_EQ(doc["parts"][1]["node_count"], off.size()) << file;
    std::string gpu = fmt::format("part 1: GPU, region 0, {} nodes ({} .. {})", off.size(), off.begin().key(),
                                  std::prev(off.end()).key());
    EXPECT_NE(t.out.find(gpu), std::string::npos) << gpu << "\n" << t.out;
    double share = static_cast<double>(dla["macs_on_dla"].get<int64_t>()) / doc["summary"]["macs"].get<int64_t>();
    EXPECT_GE(share, want["min_mac_share"].get<double>()) << file;
  }
  EXPECT_GT(checked, 0) << "no torchvision model in " << cache;
}

// 17 Relus (DLA) between 16 MaxPools of window 9 (GPU): more loadables than TensorRT loads on
// one DLA core. A warning naming the count, on stdout in text and on stderr for json; the exit
// code stays the verdicts' (--fail-on).
TEST(PartitionCli, MoreDlaLoadablesThanACoreLoadsIsAWarningNamingTheCount) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 8, 8});
  std::string at = "x";
  for (int i = 0; i < 17; ++i) {
    std::string r = "r" + std::to_string(i), p = "p" + std::to_string(i);
    g.node("Relu", {at}, {r}, r);
    at = r;
    if (i == 16) break;
    auto& pool = g.node("MaxPool", {at}, {p}, p);
    attr_ints(pool, "kernel_shape", {9, 9});
    attr_ints(pool, "pads", {4, 4, 4, 4});
    at = p;
  }
  g.output(at);
  std::string model = mb.save(temp_dir("PartitionCli.Loadables") + "/chain.onnx");
  RunResult t = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"});
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("warning: 17 DLA loadables, more than the 16 TensorRT loads per DLA core"), std::string::npos) << t.out;
  RunResult j = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla", "--format", "json"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.err.find("warning: 17 DLA loadables, more than the 16 TensorRT loads per DLA core"), std::string::npos) << j.err;
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["dla"]["loadables"], 17);
  EXPECT_EQ(doc["dla"]["over_limit"], true);
  EXPECT_EQ(doc["parts"].size(), 33u);
}

// a feeds a kernel-33 conv (GPU) and a Relu; an Add of both: check counts one loadable (connected DLA nodes),
// partition two (one would make a cycle with the GPU conv). The output says both and why, once.
TEST(PartitionCli, WhenCheckAndPartitionCountLoadablesApartANoteSaysWhy) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 40, 40});
  g.init_float("wa", {4, 4, 3, 3}, std::vector<float>(144, 0.1f));
  g.init_float("wg", {4, 4, 33, 33}, std::vector<float>(4 * 4 * 33 * 33, 0.1f));
  attr_ints(g.node("Conv", {"x", "wa"}, {"a"}, "a"), "pads", {1, 1, 1, 1});
  attr_ints(g.node("Conv", {"a", "wg"}, {"gpu"}, "gpu"), "pads", {16, 16, 16, 16});
  g.node("Relu", {"a"}, {"b"}, "b");
  g.node("Add", {"gpu", "b"}, {"c"}, "c");
  g.output("c");
  std::string model = mb.save(temp_dir("PartitionCli.LoadableNote") + "/m.onnx");
  std::vector<std::string> args = {"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"};
  RunResult t = run_trtlens(args);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const std::string note = "`check` estimates 1 DLA loadable from the placement alone (connected DLA nodes); partition "
                           "cuts each TensorRT region, splitting where a loadable would make a cycle with GPU layers or "
                           "crosses a region boundary, so it counts 2";
  EXPECT_NE(t.out.find("note: " + note), std::string::npos) << t.out;
  args.insert(args.end(), {"--format", "json"});
  json notes = json::parse(run_trtlens(args).out)["notes"];
  EXPECT_NE(std::find(notes.begin(), notes.end(), note), notes.end()) << notes.dump();
  // The same counts: no such note.
  RunResult same = run_trtlens({"partition", detect_model(temp_dir("PartitionCli.LoadableNoteSame")), "--trt", "8.5",
                                "--precision", "fp16", "--target", "orin-dla"});
  EXPECT_EQ(same.out.find("`check` estimates"), std::string::npos) << same.out;
}

// Without a DLA target nothing of the cut shows: a GPU target's json is the plain one's.
TEST(PartitionCli, AGpuTargetLeavesTheJsonAsWithoutATarget) {
  std::string model = detect_model(temp_dir("PartitionCli.GpuTarget"));
  RunResult plain = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--format", "json"});
  RunResult orin = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin", "--format", "json"});
  ASSERT_EQ(plain.exit_code, 1) << plain.err;
  // The notes say the target's kernels; the rest is the plain document.
  json a = json::parse(plain.out), b = json::parse(orin.out);
  EXPECT_NE(b["notes"].dump().find("target orin (compute capability 8.7)"), std::string::npos) << b["notes"].dump();
  a.erase("notes");
  b.erase("notes");
  EXPECT_EQ(a, b);
  EXPECT_EQ(plain.out.find("\"device\""), std::string::npos);
}

TEST(PartitionCli, BadInputIsOneLineAndExitTwo) {
  std::string dir = temp_dir("PartitionCli.Bad");
  write_text(dir + "/junk.onnx", "not a model at all");
  RunResult junk = run_trtlens({"partition", dir + "/junk.onnx", "-o", dir + "/parts"});
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find(dir + "/junk.onnx: "), std::string::npos) << junk.err;
  EXPECT_EQ(std::count(junk.err.begin(), junk.err.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(dir + "/parts"));

  std::string model = detect_model(dir);
  write_text(dir + "/file", "x");
  RunResult notdir = run_trtlens({"partition", model, "-o", dir + "/file"});
  EXPECT_EQ(notdir.exit_code, 2);
  EXPECT_NE(notdir.err.find(dir + "/file: exists and is not a folder"), std::string::npos) << notdir.err;

  RunResult zero = run_trtlens({"partition", model, "--min-nodes", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  RunResult release = run_trtlens({"partition", model, "--trt", "1.0"});
  EXPECT_EQ(release.exit_code, 2);
  EXPECT_NE(release.err.find("1.0"), std::string::npos);
}

}  // namespace
}  // namespace trtlens::test
