// EnginePlan loading: layouts 8.x/8.6/10.x/11.x, NoOp folding, profile joins, bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/paths.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"

namespace fs = std::filesystem;
using namespace trtlens;

namespace {
std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }
EnginePlan load(const std::string& rel, int profile = 0) { return load_plan(find_plan_files(fixture(rel)), {profile}); }
const EngineLayer* find(const EnginePlan& p, const std::string& name) {
  for (const auto& l : p.layers)
    if (l.name == name) return &l;
  return nullptr;
}
}  // namespace

TEST(EngineLoad, FindsSiblingFilesFromPrefixGraphOrFolder) {
  auto a = find_plan_files(fixture("v8/tiny.onnx.engine"));
  EXPECT_EQ(a.graph, fixture("v8/tiny.onnx.engine.graph.json"));
  EXPECT_EQ(a.profile, fixture("v8/tiny.onnx.engine.profile.json"));
  EXPECT_EQ(a.timing, fixture("v8/tiny.onnx.engine.timing.json"));
  EXPECT_EQ(a.build_metadata, fixture("v8/tiny.onnx.engine.build.metadata.json"));
  auto b = find_plan_files(fixture("v8/tiny.onnx.engine.graph.json"));
  EXPECT_EQ(b.profile, a.profile);
  auto c = find_plan_files(fixture("v8"));
  EXPECT_EQ(c.graph, a.graph);
  auto d = find_plan_files(fixture("v11/small.onnx.engine"));
  EXPECT_TRUE(d.timing.empty());
  EXPECT_THROW(find_plan_files(fixture("v8/nothing.engine")), InputError);
}

TEST(EngineLoad, FoldsNoOpsAndJoinsProfileByPosition) {
  auto p = load("v8/tiny.onnx.engine");
  EXPECT_EQ(p.layout, "8.x");
  ASSERT_EQ(p.layers.size(), 6u);
  EXPECT_EQ(p.noops_folded, 1);
  EXPECT_EQ(p.profile_join, "position");  // 7 records minus the NoOp's = 6 layers
  EXPECT_FALSE(p.partial());
  // The softmax read the NoOp's output; after folding it reads the pooling output.
  const auto* sm = find(p, "softmax");
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->inputs[0].name, "t3");
  EXPECT_EQ(sm->precision, "FP16");
  EXPECT_DOUBLE_EQ(find(p, "conv2")->avg_ms, 0.2);
  EXPECT_NEAR(p.total_latency_ms(), 0.32, 1e-12);
  EXPECT_NEAR(find(p, "conv2")->percent, 62.5, 1e-9);
  EXPECT_EQ(find(p, "conv1 + relu1")->weights_bytes, 432 * 2);  // Weights only, as TREx's weights_size
  EXPECT_EQ(find(p, "conv1 + relu1")->bias_bytes, 16 * 2);
  EXPECT_EQ(find(p, "conv1 + relu1")->kernel, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(find(p, "conv1 + relu1")->groups, 1);
  // 8.x Bindings name the engine I/O only; shape, format and direction come from the layers.
  ASSERT_EQ(p.io.size(), 2u);
  EXPECT_EQ(p.io[0].name, "input");
  EXPECT_EQ(p.io[0].mode, "Input");
  EXPECT_EQ(p.io[0].dims, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(p.io[0].format, "FP32 LINEAR");
  EXPECT_EQ(p.io[1].mode, "Output");
  EXPECT_EQ(find(p, "conv1 + relu1")->inputs[0].layout, "HWC4");
  EXPECT_EQ(find(p, "conv1 + relu1")->attributes_json,
            R"({"Kernel":[3,3],"OutMaps":16,"Groups":1,"Weights":{"Type":"Half","Count":432},)"
            R"("Bias":{"Type":"Half","Count":16},"Activation":"RELU"})");
  ASSERT_TRUE(p.timing.has_value());
  EXPECT_EQ(p.timing->iterations, 10u);
  EXPECT_NEAR(p.timing->min_ms, 0.3, 1e-12);
  ASSERT_FALSE(p.device.empty());
  EXPECT_EQ(p.device[0].first, "Selected Device");  // file order kept
  EXPECT_EQ(p.device[0].second, "Hand-written GPU");
}

TEST(EngineLoad, TypeIsParameterTypeElseLayerType) {
  auto p = load("v10-myelin/bert.onnx.engine");
  EXPECT_EQ(p.layout, "10.x");
  ASSERT_EQ(p.layers.size(), 3u);
  EXPECT_EQ(p.layers[0].type, "Myelin");          // no ParameterType
  EXPECT_EQ(p.layers[1].type, "MatrixMultiply");  // ParameterType wins over LayerType "gemm"
  EXPECT_EQ(p.layers[1].subtype, "gemm");
  // kgen formats are bare datatypes.
  EXPECT_EQ(p.layers[0].precision, "FP32");
  EXPECT_EQ(p.layers[0].outputs[0].precision, "FP16");
  EXPECT_TRUE(p.layers[0].is_fused());
  ASSERT_EQ(p.layers[0].onnx_nodes.size(), 2u);
  EXPECT_EQ(p.layers[0].onnx_nodes[1], "/encoder/Add_3");
}

TEST(EngineLoad, MultiProfileKeepsOneProfile) {
  auto p0 = load("v10-myelin/bert.onnx.engine");
  EXPECT_EQ(p0.profiles, 2);
  for (const auto& l : p0.layers) EXPECT_EQ(l.name.find("[profile"), std::string::npos) << l.name;
  auto p1 = load("v10-myelin/bert.onnx.engine", 1);
  ASSERT_EQ(p1.layers.size(), 3u);
  EXPECT_EQ(p1.layers[0].name, "{ForeignNode[/encoder/MatMul.../encoder/Add_3]} [profile 1]");
  EXPECT_THROW(load("v10-myelin/bert.onnx.engine", 2), InputError);
}

TEST(EngineLoad, LayersWithoutTimingAreMarkedPartial) {
  // The 10.x Myelin layer has no profile record: joined by name, marked partial.
  auto p = load("v10-myelin/bert.onnx.engine");
  EXPECT_EQ(p.profile_join, "name");
  EXPECT_EQ(p.untimed_layers, 1);
  EXPECT_FALSE(p.layers[0].timed);
  EXPECT_TRUE(p.layers[1].timed);
  ASSERT_TRUE(p.partial());
  EXPECT_NE(p.notes[0].find("1 layers have no timing"), std::string::npos);
  auto u = load("bad/untimed.onnx.engine");
  EXPECT_EQ(u.untimed_layers, 1);
  EXPECT_TRUE(u.partial());
}

TEST(EngineLoad, Layout11IOTensorsAndSplitFormat) {
  auto p = load("v11/small.onnx.engine");
  EXPECT_EQ(p.layout, "11.x");
  ASSERT_EQ(p.io.size(), 2u);
  EXPECT_EQ(p.io[0].mode, "Input");
  EXPECT_EQ(p.io[1].data_type, "Float");
  ASSERT_EQ(p.layers.size(), 2u);
  EXPECT_EQ(p.layers[0].precision, "FP16");
  EXPECT_EQ(p.layers[0].inputs[0].layout, "HWC8");
  EXPECT_EQ(p.layers[1].outputs[0].precision, "FP32");
  EXPECT_EQ(p.layers[1].outputs[0].layout, "LINEAR");
}

TEST(EngineLoad, NamesOnlyGraphShowsWhatItCan) {
  auto p = load("names-only/plain.onnx.engine");
  EXPECT_FALSE(p.detailed);
  ASSERT_EQ(p.layers.size(), 3u);
  EXPECT_EQ(p.layers[0].type, "Unknown");
  EXPECT_NEAR(p.total_latency_ms(), 0.15, 1e-12);
  ASSERT_TRUE(p.partial());
  EXPECT_NE(p.notes[0].find("--profilingVerbosity=detailed"), std::string::npos);
}

TEST(EngineLoad, RepeatedNamesAndUnescapedProfileNames) {
  auto p = load("v86-qdq/qdq.onnx.engine");
  EXPECT_EQ(p.layout, "8.6+");
  ASSERT_EQ(p.layers.size(), 7u);
  EXPECT_EQ(p.layers[5].name, "dup");
  EXPECT_EQ(p.layers[6].name, "dup_2");
  EXPECT_EQ(p.layers[6].raw_name, "dup");
  EXPECT_EQ(p.layers[4].name, "pool \"a\"");
  EXPECT_DOUBLE_EQ(p.layers[4].avg_ms, 0.02);
  EXPECT_EQ(p.layers[1].metadata, "[ONNX Layer: QuantizeLinear_8]+[ONNX Layer: Conv_12]");
  ASSERT_EQ(p.layers[1].onnx_nodes.size(), 2u);
}

TEST(EngineLoad, TolerantProfileParser) {
  std::string text =
      "[\n  { \"count\" : 10 }\n, { \"name\" : \"a \"quoted\" \\ name\", \"timeMs\" : 1.5, \"averageMs\" : 0.15, "
      "\"medianMs\" : 0.14, \"percentage\" : 60 }\n, { \"name\" : \"b\", \"timeMs\" : 1, \"averageMs\" : 0.1, "
      "\"medianMs\" : 0.1, \"percentage\" : 40 }\n]\n";
  auto r = parse_profile(text, "p.json");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "a \"quoted\" \\ name");
  EXPECT_DOUBLE_EQ(r[0].avg_ms, 0.15);
  EXPECT_DOUBLE_EQ(r[0].median_ms, 0.14);
  EXPECT_EQ(r[1].name, "b");
  EXPECT_THROW(parse_profile("{\"not\": \"a profile\"}", "p.json"), InputError);
  EXPECT_THROW(parse_profile("garbage {", "p.json"), InputError);
}

TEST(EngineLoad, RepeatedNamesJoinInOrderWhenCountsDiffer) {
  std::string graph = R"({"Layers": [
    {"Name": "x", "LayerType": "CudaPooling", "ParameterType": "Pooling", "Inputs": [], "Outputs": []},
    {"Name": "x", "LayerType": "CudaPooling", "ParameterType": "Pooling", "Inputs": [], "Outputs": []},
    {"Name": "y", "LayerType": "CudaPooling", "ParameterType": "Pooling", "Inputs": [], "Outputs": []}],
    "Bindings": []})";
  std::string prof = R"([{"count": 1}, {"name": "x", "timeMs": 1, "averageMs": 1, "medianMs": 1, "percentage": 0},
    {"name": "x", "timeMs": 2, "averageMs": 2, "medianMs": 2, "percentage": 0}])";
  auto p = parse_plan(graph, "g.json", prof, "p.json");
  EXPECT_EQ(p.profile_join, "name");
  EXPECT_DOUBLE_EQ(p.layers[0].avg_ms, 1);
  EXPECT_DOUBLE_EQ(p.layers[1].avg_ms, 2);
  EXPECT_FALSE(p.layers[2].timed);
}

// One test per kind of bad input.
TEST(EngineLoad, InvalidJsonIsAClearError) {
  try {
    load_plan(find_plan_files(fixture("bad/invalid.graph.json")));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid JSON"), std::string::npos) << e.what();
    EXPECT_NE(e.file().find("invalid.graph.json"), std::string::npos);
  }
}

TEST(EngineLoad, UnknownLayoutIsAClearError) {
  try {
    load_plan(find_plan_files(fixture("bad/unknown-layout.graph.json")));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown layout"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_plan("[1, 2]", "g.json"), InputError);
  EXPECT_THROW(parse_plan(R"({"Layers": [1, 2]})", "g.json"), InputError);
  EXPECT_THROW(parse_plan(R"({"Layers": []})", "g.json"), InputError);
}

TEST(EngineLoad, ProfileOfAnotherEngineIsAClearError) {
  try {
    load("bad/mismatch.onnx.engine");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.file().find("profile.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("another engine"), std::string::npos) << e.what();
  }
}

TEST(EngineLoad, MissingProfileIsPartialNotAnError) {
  PlanFiles f = find_plan_files(fixture("v8/tiny.onnx.engine"));
  f.profile.clear();
  auto p = load_plan(f);
  EXPECT_FALSE(p.has_profile);
  EXPECT_EQ(p.total_latency_ms(), 0.0);
  ASSERT_TRUE(p.partial());
  EXPECT_NE(p.notes[0].find("no profile.json"), std::string::npos);
}

TEST(EngineLoad, Layout11UnsuffixedIOServesEveryProfile) {
  std::string graph = R"JSON({"Layers": [
    {"Name": "conv", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
     "Inputs": [{"Name": "input", "Dimensions": [1,8,4,4], "Format": "Row major linear FP32 format (kLINEAR)", "Datatype": "Float"}],
     "Outputs": [{"Name": "output", "Dimensions": [1,8,4,4], "Format": "Row major linear FP32 format (kLINEAR)", "Datatype": "Float"}]},
    {"Name": "conv [profile 1]", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
     "Inputs": [{"Name": "input [profile 1]", "Dimensions": [4,8,4,4], "Format": "Row major linear FP32 format (kLINEAR)", "Datatype": "Float"}],
     "Outputs": [{"Name": "output [profile 1]", "Dimensions": [4,8,4,4], "Format": "Row major linear FP32 format (kLINEAR)", "Datatype": "Float"}]}],
    "I/O Tensors": [{"Name": "input", "IOMode": "Input", "DataType": "Float", "Dimensions": [-1,8,4,4]},
                    {"Name": "output", "IOMode": "Output", "DataType": "Float", "Dimensions": [-1,8,4,4]}]})JSON";
  auto p1 = parse_plan(graph, "g.json", "", "", LoadOptions{1});
  EXPECT_EQ(p1.profiles, 2);
  ASSERT_EQ(p1.layers.size(), 1u);
  EXPECT_EQ(p1.layers[0].name, "conv [profile 1]");
  ASSERT_EQ(p1.io.size(), 2u);
  EXPECT_EQ(p1.io[0].dims[0], -1);
}

// Every layer-info layout TensorRT 8.x-11.x and the tools around it write
// (docs/engine.md, "Layouts"; the 11.1 perf-analysis skill's reader,
// release/11.1:.agents/skills/trt-perf-analysis/scripts/trt_perf/layer_info.py:110-131
// and data.py:333-357): the same three-layer plan in each, read the same, and
// named by detect_layout().
namespace {
// A convolution, a NoOp (reshape) and a PointWise layer. `tensor_style`:
// "combined" ("Format/Datatype"), "split" ("Format" + "Datatype" with Strides
// and StrideOrder); `extras` adds StreamId, Constants and Metadata per layer.
std::string layer_list(const std::string& tensor_style, bool extras) {
  auto t = [&](const char* name, const char* dims, const char* half_format) {
    std::string s = std::string("{\"Name\": \"") + name + "\", \"Location\": \"Device\", \"Dimensions\": " + dims + ", ";
    if (tensor_style == "split")
      s += std::string("\"Format\": \"") + half_format + "\", \"Datatype\": \"Half\", \"Strides\": [128, 1, 32, 8], "
           "\"StrideOrder\": [0, 3, 1, 2]}";
    else
      s += std::string("\"Format/Datatype\": \"") + half_format + "\"}";
    return s;
  };
  const char* hwc8 = "Channel major FP16 format where channel % 8 == 0";
  auto more = [&](int stream, const char* onnx) {
    if (!extras) return std::string();
    return ", \"StreamId\": " + std::to_string(stream) + ", \"Metadata\": \"[ONNX Layer: " + onnx + "]\"";
  };
  return std::string("[") +
         "{\"Name\": \"conv\", \"LayerType\": \"CaskConvolution\", \"ParameterType\": \"Convolution\", \"Inputs\": [" +
         t("in", "[1,8,4,4]", hwc8) + "], \"Outputs\": [" + t("c", "[1,8,4,4]", hwc8) + "]" +
         (extras ? ", \"Constants\": [" + t("conv.weight", "[8,8,3,3]", hwc8) + "]" : std::string()) +
         ", \"TacticName\": \"sm80_xmma_fprop\"" + more(0, "Conv_0") + "},"
         "{\"Name\": \"reshape\", \"LayerType\": \"NoOp\", \"Inputs\": [" + t("c", "[1,8,4,4]", hwc8) +
         "], \"Outputs\": [" + t("r", "[1,8,4,4]", hwc8) + "]" + more(0, "Reshape_1") + "},"
         "{\"Name\": \"relu\", \"LayerType\": \"PointWiseV2\", \"ParameterType\": \"PointWise\", \"Inputs\": [" +
         t("r", "[1,8,4,4]", hwc8) + "], \"Outputs\": [" + t("out", "[1,8,4,4]", hwc8) + "]" + more(1, "Relu_2") + "}]";
}
void expect_same_plan(const EnginePlan& p, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(p.layers.size(), 2u);
  EXPECT_EQ(p.noops_folded, 1);
  EXPECT_EQ(p.layers[0].name, "conv");
  EXPECT_EQ(p.layers[0].type, "Convolution");
  EXPECT_EQ(p.layers[0].precision, "FP16");
  EXPECT_EQ(p.layers[0].inputs[0].layout, "HWC8");
  EXPECT_EQ(p.layers[1].type, "PointWise");
  EXPECT_EQ(p.layers[1].inputs[0].name, "c");  // the NoOp folded
  EXPECT_EQ(p.layers[1].inputs[0].dims, (std::vector<int64_t>{1, 8, 4, 4}));
  ASSERT_EQ(p.io.size(), 2u);
  EXPECT_EQ(p.io[0].name, "in");
  EXPECT_EQ(p.io[0].mode, "Input");
  EXPECT_EQ(p.io[1].mode, "Output");
}
}  // namespace

TEST(EngineLoad, EveryLayerListPlaceIsRead) {
  const std::string list = layer_list("combined", false);
  auto bare = parse_plan(list, "layers_bare.json");
  expect_same_plan(bare, "bare list");
  EXPECT_EQ(bare.layout_detail.layer_list, "bare list");
  EXPECT_EQ(bare.layout_detail.io, "none (taken from the graph)");
  for (const char* key : {"Layers", "layers", "LayerInfo", "layerInfo"}) {
    auto p = parse_plan(std::string("{\"") + key + "\": " + list + ", \"Bindings\": [\"in\", \"out\"]}", "g.json");
    expect_same_plan(p, key);
    EXPECT_EQ(p.layout_detail.layer_list, key);
    EXPECT_EQ(p.layout_detail.io, "Bindings");
    EXPECT_EQ(p.layout, "8.x");
    EXPECT_EQ(p.layout_detail.tensor_fields, "Format/Datatype");
  }
  // A list key with no I/O list: the engine's inputs and outputs come from the graph.
  auto no_io = parse_plan("{\"LayerInfo\": " + list + "}", "g.json");
  expect_same_plan(no_io, "LayerInfo without Bindings");
  EXPECT_EQ(no_io.layout_detail.io, "none (taken from the graph)");
}

TEST(EngineLoad, SplitTensorFieldsAndLayerExtrasOf11x) {
  auto p = parse_plan(layer_list("split", true), "layers_11.json");
  expect_same_plan(p, "split, extras");
  EXPECT_EQ(p.layout, "11.x");
  EXPECT_EQ(p.layout_detail.tensor_fields, "Format + Datatype, Strides");
  EXPECT_EQ(p.layout_detail.layer_fields, (std::vector<std::string>{"Metadata", "StreamId", "Constants"}));
  EXPECT_EQ(p.layers[0].inputs[0].strides, (std::vector<int64_t>{128, 1, 32, 8}));
  EXPECT_EQ(p.layers[0].inputs[0].stride_order, (std::vector<int64_t>{0, 3, 1, 2}));
  EXPECT_EQ(p.layers[0].stream_id, 0);
  EXPECT_EQ(p.layers[1].stream_id, 1);
  ASSERT_EQ(p.layers[0].constant_inputs.size(), 1u);  // weights: kept apart from the data inputs
  EXPECT_EQ(p.layers[0].constant_inputs[0].name, "conv.weight");
  EXPECT_EQ(p.layers[0].inputs.size(), 1u);
  EXPECT_EQ(p.layers[0].onnx_nodes, (std::vector<std::string>{"Conv_0"}));
  EXPECT_EQ(p.layers[0].attributes_json.find("StreamId"), std::string::npos) << p.layers[0].attributes_json;
  EXPECT_NE(p.layout_detail.describe().find("layer list: bare list; tensors: Format + Datatype, Strides; layers: "
                                            "Metadata, StreamId, Constants"),
            std::string::npos)
      << p.layout_detail.describe();
  // The same with "I/O Tensors" under "Layers", as trtexec 11.x writes it.
  auto q = parse_plan("{\"Layers\": " + layer_list("split", true) +
                          R"(, "I/O Tensors": [{"Name": "in", "IOMode": "Input", "DataType": "Half", "Dimensions": [1,8,4,4]},
                              {"Name": "out", "IOMode": "Output", "DataType": "Half", "Dimensions": [1,8,4,4]}]})",
                      "g.json");
  expect_same_plan(q, "I/O Tensors");
  EXPECT_EQ(q.layout_detail.io, "I/O Tensors");
  EXPECT_EQ(q.io[0].data_type, "Half");
  // 8.6-style Metadata with combined tensors is 8.6+.
  EXPECT_EQ(parse_plan("{\"Layers\": " + layer_list("combined", true) + "}", "g.json").layout, "8.6+");
}

// Profile variants the 11.1 skill takes (data.py:408-452): with or without the
// {"count": N} header; records joined the same.
TEST(EngineLoad, ProfileWithAndWithoutTheCountHeader) {
  const std::string list = layer_list("combined", false);
  for (const char* head : {R"({"count": 10}, )", ""}) {
    auto p = parse_plan(list, "layers.json",
                        std::string("[") + head +
                            R"({"name": "conv", "timeMs": 10, "averageMs": 1, "medianMs": 1, "percentage": 75},
                               {"name": "relu", "timeMs": 3.3, "averageMs": 0.33, "medianMs": 0.33, "percentage": 25}])",
                        "profile.json");
    SCOPED_TRACE(head);
    EXPECT_EQ(p.profile_join, "position");
    EXPECT_DOUBLE_EQ(p.layers[0].avg_ms, 1);
    EXPECT_DOUBLE_EQ(p.layers[1].avg_ms, 0.33);
    EXPECT_FALSE(p.partial()) << p.notes[0];
  }
}

TEST(EngineLoad, LayoutsThatAreNoneOfThemAreRefused) {
  for (const char* bad : {R"({"Layers": 5})", R"({"nodes": []})", "[1, 2]", "[]", R"({"layers": []})", "\"Layers\"",
                          R"([{"Name": "a"}, "b"])"}) {
    try {
      parse_plan(bad, "g.json");
      ADD_FAILURE() << "no error for " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "g.json") << bad;
    }
  }
}

// The 11.1 skill's file pairs: layers_<name>.json with profile_<name>.json
// (data.py:227-235, case-insensitive, "layer"/"layers", "_" or "-"), by file or by folder.
TEST(EngineLoad, LayersFilePairsWithItsProfileFile) {
  std::string dir = trtlens::test::temp_dir("EngineLoad.LayersProfilePair");
  std::ofstream(dir + "/Layers_onnx-trt.json") << layer_list("split", false);
  std::ofstream(dir + "/profiles-ONNX-trt.json")
      << R"([{"count": 4}, {"name": "conv", "timeMs": 4, "averageMs": 1, "medianMs": 1, "percentage": 80},
            {"name": "relu", "timeMs": 1, "averageMs": 0.25, "medianMs": 0.25, "percentage": 20}])";
  std::ofstream(dir + "/profile_other.json") << "[]";  // another pair's profile: not taken
  for (const std::string& spec : {dir + "/Layers_onnx-trt.json", dir}) {
    SCOPED_TRACE(spec);
    auto files = find_plan_files(spec);
    EXPECT_EQ(files.graph, dir + "/Layers_onnx-trt.json");
    EXPECT_EQ(files.profile, dir + "/profiles-ONNX-trt.json");
    auto p = load_plan(files);
    EXPECT_EQ(p.layout_detail.layer_list, "bare list");
    EXPECT_DOUBLE_EQ(p.layers[0].avg_ms, 1);
    EXPECT_DOUBLE_EQ(p.layers[1].avg_ms, 0.25);
  }
  // A layer file without its profile is read alone.
  std::ofstream(dir + "/layers.json") << layer_list("combined", false);
  EXPECT_EQ(find_plan_files(dir + "/layers.json").profile, "");
}
