// `trtlens check` and `trtlens matrix` as a user runs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "support/bad_models.h"
#include "support/onnx_builder.h"
#include "support/paths.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// x -> Conv -> BatchNormalization, plus an INT64 Shape -> Reshape path.
std::string small_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("scale", {4}, {1, 1, 1, 1}).init_float("bias", {4}, {0, 0, 0, 0});
  g.init_float("mean", {4}, {0, 0, 0, 0}).init_float("var", {4}, {1, 1, 1, 1});
  g.node("Conv", {"x", "w"}, {"c"}, "conv");
  g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}, "bn");
  g.node("Shape", {"bn"}, {"s"}, "shape");
  g.node("Reshape", {"bn", "s"}, {"r"}, "");  // unnamed: identified by index
  g.output("r");
  return mb.save(dir + "/model.onnx");
}

std::string hann_model(const std::string& dir) {
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("n", kInt64, {});
  g.node("HannWindow", {"n"}, {"w"}, "window");
  g.output("w");
  return mb.save(dir + "/hann.onnx");
}

TEST(CheckCli, TextListsEveryNodeAndTheSummary) {
  std::string model = small_model(temp_dir("check_text"));
  RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--precision", "fp16"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("BatchNormalization"), std::string::npos);
  EXPECT_NE(r.out.find("IMPLICIT_CAST"), std::string::npos);  // INT64 in 8.6
  EXPECT_NE(r.out.find("converts: yes"), std::string::npos);
  EXPECT_NE(r.out.find("4 nodes:"), std::string::npos);
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos);  // not a terminal: no colour
}

TEST(CheckCli, JsonCarriesThePublicSchema) {
  std::string model = small_model(temp_dir("check_json"));
  RunResult r = run_trtlens({"check", model, "--trt", "8.6.1", "--precision", "int8", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["model"]["path"], model);
  EXPECT_EQ(doc["model"]["node_count"], 4);
  EXPECT_EQ(doc["model"]["opset_imports"][0]["version"], 13);
  EXPECT_EQ(doc["runtime"]["release"], "8.6");
  EXPECT_EQ(doc["runtime"]["precision"], "int8");
  EXPECT_EQ(doc["converts"], true);
  EXPECT_EQ(doc["summary"]["FALLBACK"], 1);
  ASSERT_EQ(doc["nodes"].size(), 4u);
  const json& bn = doc["nodes"][1];
  EXPECT_EQ(bn["graph"], "");
  EXPECT_EQ(bn["index"], 1);
  EXPECT_EQ(bn["name"], "bn");
  EXPECT_EQ(bn["op_type"], "BatchNormalization");
  EXPECT_EQ(bn["domain"], "");
  EXPECT_EQ(bn["verdict"], "FALLBACK");
  EXPECT_EQ(bn["precision"], "FP32");
  ASSERT_FALSE(bn["reasons"].empty());
  EXPECT_TRUE(bn["reasons"][0].contains("rule"));
  EXPECT_NE(bn["reasons"][0]["source"].get<std::string>().find("8.6"), std::string::npos);
  EXPECT_TRUE(bn["hints"].is_array());
  EXPECT_EQ(doc["nodes"][3]["name"], "");
  EXPECT_EQ(doc["nodes"][3]["index"], 3);
}

TEST(CheckCli, ExitCodeOneWhenTheModelDoesNotConvert) {
  std::string model = hann_model(temp_dir("check_exit1"));
  RunResult r = run_trtlens({"check", model, "--trt", "10.1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("UNSUPPORTED"), std::string::npos);
  EXPECT_NE(r.out.find("converts: no"), std::string::npos);
  EXPECT_NE(r.out.find("10.4"), std::string::npos);  // hint: the release that adds it
  EXPECT_EQ(run_trtlens({"check", model, "--trt", "10.4"}).exit_code, 0);
}

TEST(CheckCli, MarkdownForPullRequests) {
  std::string model = hann_model(temp_dir("check_md"));
  RunResult r = run_trtlens({"check", model, "--trt", "10.1", "--format", "markdown"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("converts: **no**"), std::string::npos);
  EXPECT_NE(r.out.find("| UNSUPPORTED |"), std::string::npos);
}

TEST(CheckCli, OnlyFilterAndOutputFile) {
  std::string dir = temp_dir("check_only");
  std::string model = small_model(dir);
  RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--precision", "int8", "--only", "FALLBACK", "-o",
                             dir + "/out.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  std::ifstream in(dir + "/out.txt");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("BatchNormalization"), std::string::npos);
  EXPECT_EQ(text.find("Conv "), std::string::npos);
}

TEST(CheckCli, UnknownReleaseListsTheKnownOnes) {
  std::string model = small_model(temp_dir("check_release"));
  RunResult r = run_trtlens({"check", model, "--trt", "8.7"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("8.7"), std::string::npos);
  EXPECT_NE(r.err.find("8.6"), std::string::npos);
  EXPECT_NE(r.err.find("11.1"), std::string::npos);
}

TEST(CheckCli, UnknownPrecisionIsAUsageError) {
  std::string model = small_model(temp_dir("check_precision"));
  RunResult r = run_trtlens({"check", model, "--precision", "fp64"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("fp64"), std::string::npos);
}

TEST(CheckCli, MissingFileIsBadInput) {
  RunResult r = run_trtlens({"check", "/nonexistent/model.onnx"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/model.onnx"), std::string::npos);
}

class CheckCliBadInput : public ::testing::TestWithParam<BadModel> {};

TEST_P(CheckCliBadInput, OneLineNamingTheFileAndExitTwo) {
  std::string dir = temp_dir("check_bad_" + GetParam().name);
  std::string path = GetParam().make(dir);
  RunResult r = run_trtlens({"check", path, "--trt", "8.6"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // exactly one line
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(GetParam().problem), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Cases, CheckCliBadInput, ::testing::ValuesIn(bad_models()),
                         [](const auto& info) { return info.param.name; });

TEST(MatrixCli, TableMinimumReleaseAndJson) {
  std::string model = hann_model(temp_dir("matrix"));
  RunResult r = run_trtlens({"matrix", model});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("minimum release that converts the model: 10.4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5.1"), std::string::npos);
  EXPECT_NE(r.out.find("11.1"), std::string::npos);
  RunResult j = run_trtlens({"matrix", model, "--format", "json"});
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["min_converting_release"], "10.4");
  EXPECT_EQ(doc["cells"].size(), 37u * 6u);
  EXPECT_EQ(doc["cells"][0]["release"], "5.1");
  EXPECT_EQ(doc["cells"][0]["converts"], false);
}

TEST(MatrixCli, DiffListsNodesWhoseVerdictChanges) {
  std::string model = hann_model(temp_dir("matrix_diff"));
  RunResult r = run_trtlens({"matrix", model, "--diff", "8.6", "10.4"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("window"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("UNSUPPORTED"), std::string::npos);
  json doc = json::parse(run_trtlens({"matrix", model, "--diff", "8.6", "10.4", "--format", "json"}).out);
  ASSERT_EQ(doc["changes"].size(), 1u);
  EXPECT_EQ(doc["changes"][0]["before"]["verdict"], "UNSUPPORTED");
  EXPECT_EQ(doc["changes"][0]["after"]["verdict"], "SUPPORTED");
  // Unchanged nodes are not listed: the same release twice gives none.
  json same = json::parse(run_trtlens({"matrix", model, "--diff", "10.4", "10.4", "--format", "json"}).out);
  EXPECT_EQ(same["changes"].size(), 0u);
}

// ---------------------------------------------------------------- issue 21: --shapes, --unknown-as, hints in words

// x (FLOAT, no shape at all: its rank is unknown) -> MaxPool (rank 3..5 in 8.6), and
// y (FLOAT, N x 3) -> Squeeze (static shape in 8.6).
std::string unranked_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  onnx::ValueInfoProto* x = g.proto()->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  g.input("y", kFloat, {-1, 3});
  attr_ints(g.node("MaxPool", {"x"}, {"p"}, "pool"), "kernel_shape", {2, 2});
  g.node("Squeeze", {"y"}, {"q"}, "squeeze");
  g.output("p").output("q");
  return mb.save(dir + "/unranked.onnx");
}

std::string verdict_in(const json& doc, const std::string& name) {
  for (const auto& n : doc["nodes"])
    if (n["name"] == name) return n["verdict"];
  return "?";
}

TEST(CheckShapesCli, ShapesResolveAnUnknownRankAndDynamicDimensions) {
  std::string model = unranked_model(temp_dir("check_shapes"));
  json before = json::parse(run_trtlens({"check", model, "--trt", "8.6", "--format", "json"}).out);
  EXPECT_EQ(verdict_in(before, "pool"), "UNKNOWN");
  EXPECT_EQ(verdict_in(before, "squeeze"), "UNSUPPORTED");  // dimension N is dynamic
  EXPECT_FALSE(before["model"].contains("input_shapes"));

  RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--format", "json", "--shapes", "x:1x3x8x8,y:2x3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json after = json::parse(r.out);
  EXPECT_EQ(verdict_in(after, "pool"), "SUPPORTED");
  EXPECT_EQ(verdict_in(after, "squeeze"), "SUPPORTED");
  ASSERT_EQ(after["model"]["input_shapes"].size(), 2u);
  EXPECT_EQ(after["model"]["input_shapes"][0]["name"], "x");
  EXPECT_EQ(after["model"]["input_shapes"][0]["opt"], json::array({1, 3, 8, 8}));
  EXPECT_EQ(after["model"]["input_shapes"][1]["max"], json::array({2, 3}));

  // A profile whose batch differs keeps that dimension dynamic; one whose min = max fixes it.
  json dynamic = json::parse(run_trtlens({"check", model, "--trt", "8.6", "--format", "json", "--minShapes", "y:1x3",
                                          "--optShapes", "y:4x3", "--maxShapes", "y:8x3"}).out);
  EXPECT_EQ(verdict_in(dynamic, "squeeze"), "UNSUPPORTED");
  EXPECT_EQ(dynamic["model"]["input_shapes"][0]["min"], json::array({1, 3}));
  json fixed = json::parse(run_trtlens({"check", model, "--trt", "8.6", "--format", "json", "--minShapes", "y:4x3",
                                        "--optShapes", "y:4x3", "--maxShapes", "y:4x3"}).out);
  EXPECT_EQ(verdict_in(fixed, "squeeze"), "SUPPORTED");

  // The same option on matrix, partition and report.
  json mx = json::parse(run_trtlens({"matrix", model, "--format", "json", "--shapes", "x:1x3x8x8,y:2x3"}).out);
  EXPECT_EQ(mx["model"]["input_shapes"].size(), 2u);
  RunResult part = run_trtlens({"partition", model, "--trt", "8.6", "--shapes", "x:1x3x8x8,y:2x3"});
  EXPECT_EQ(part.exit_code, 0) << part.err;
  std::string page = temp_dir("check_shapes_report") + "/page.html";
  RunResult rep = run_trtlens({"report", model, "-o", page, "--shapes", "x:1x3x8x8"});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
}

TEST(CheckShapesCli, BadShapesAreUsageErrors) {
  std::string model = unranked_model(temp_dir("check_bad_shapes"));
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--shapes", "nope:1x3"}, "the model has no input 'nope'; its inputs: x, y"},
      {{"--shapes", "y:1x3x4"}, "input 'y' has rank 2 in the model; 1x3x4 has rank 3"},
      {{"--shapes", "y:2x4"}, "input 'y' has dimension 1 fixed at 3 in the model"},
      {{"--shapes", "y:0x3"}, "dimension 0 is not positive"},
      {{"--shapes", "y:-1x3"}, "dimension -1 is not positive"},
      {{"--shapes", "y:ax3"}, "dimension 'a' is not a whole number"},
      {{"--shapes", "garbage"}, "no ':' between the input name and its dimensions"},
      {{"--shapes", ":1x3"}, "the input name is empty"},
      {{"--shapes", "y:2x3,y:2x3"}, "input 'y' is given twice"},
      {{"--minShapes", "y:1x3"}, "--minShapes, --optShapes and --maxShapes go together"},
      {{"--minShapes", "y:4x3", "--optShapes", "y:2x3", "--maxShapes", "y:8x3"}, "must grow from min to opt to max"},
      {{"--shapes", "y:2x3", "--minShapes", "y:1x3", "--optShapes", "y:2x3", "--maxShapes", "y:4x3"},
       "input 'y' is in --shapes and in --minShapes"},
      {{"--unknown-as", "maybe"}, "--unknown-as 'maybe': use unknown or unsupported"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"check", model, "--trt", "8.6"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << c.args[1] << ": " << r.out;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args[1] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
    EXPECT_EQ(r.out, "") << c.args[1];
  }
  // matrix, partition and report check the same way (one helper).
  for (const char* cmd : {"matrix", "partition", "report"}) {
    RunResult r = run_trtlens({cmd, model, "--shapes", "nope:1x3"});
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("no input 'nope'"), std::string::npos) << cmd << ": " << r.err;
  }
  // build validates its --shapes with the same parser before looking for trtexec.
  RunResult b = run_trtlens({"build", model, "--shapes", "y:0x3"});
  EXPECT_EQ(b.exit_code, 2) << b.err;
  EXPECT_NE(b.err.find("dimension 0 is not positive"), std::string::npos) << b.err;
}

TEST(CheckShapesCli, UnknownAsUnsupportedFailsTheRunForCi) {
  std::string model = unranked_model(temp_dir("check_unknown_as"));
  RunResult plain = run_trtlens({"check", model, "--trt", "8.6", "--shapes", "y:2x3"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;  // one UNKNOWN, nothing UNSUPPORTED
  EXPECT_NE(plain.out.find("UNKNOWN 1"), std::string::npos) << plain.out;
  // Every UNKNOWN reason carries a hint; this one points at --shapes.
  EXPECT_NE(plain.out.find("hint: trtlens could not infer this shape or type: give the input shapes (--shapes"),
            std::string::npos)
      << plain.out;
  RunResult ci = run_trtlens({"check", model, "--trt", "8.6", "--shapes", "y:2x3", "--unknown-as", "unsupported"});
  EXPECT_EQ(ci.exit_code, 1) << ci.err;
  EXPECT_NE(ci.out.find("converts: no"), std::string::npos) << ci.out;
  EXPECT_NE(ci.out.find("UNSUPPORTED 1 UNKNOWN 0"), std::string::npos) << ci.out;
  EXPECT_NE(ci.out.find("UNKNOWN counted as UNSUPPORTED"), std::string::npos) << ci.out;
  RunResult mx = run_trtlens({"matrix", model, "--shapes", "y:2x3", "--unknown-as", "unsupported"});
  EXPECT_EQ(mx.exit_code, 1) << mx.out;
  EXPECT_NE(mx.out.find("minimum release that converts the model: none"), std::string::npos) << mx.out;
  RunResult part = run_trtlens({"partition", model, "--trt", "8.6", "--shapes", "y:2x3", "--unknown-as", "unsupported"});
  EXPECT_EQ(part.exit_code, 1) << part.out;
}

// Rules read in words for people (ops text and markdown); JSON keeps the rule language.
TEST(CheckHintsCli, RulesReadInWordsAndJsonKeepsTheRuleText) {
  RunResult t = run_trtlens({"ops", "Resize", "--trt", "8.6"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("attribute mode is one of"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("attr_in("), std::string::npos) << t.out;
  RunResult md = run_trtlens({"ops", "Dropout", "--trt", "8.6", "--format", "markdown"});
  EXPECT_NE(md.out.find("every value of input 2 (training_mode) is 0"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("value_in("), std::string::npos) << md.out;
  json j = json::parse(run_trtlens({"ops", "Dropout", "--trt", "8.6", "--format", "json"}).out);
  EXPECT_NE(j.dump().find("value_in(2:training_mode,0)"), std::string::npos);
}

// A Dropout exported in training mode with ratio 0 (what swin_t's export holds): text, markdown and
// the report page say it in words with the hint a person writes; the JSON keeps the rule text.
TEST(CheckHintsCli, DropoutInTrainingModeReadsInWordsEverywhere) {
  std::string dir = temp_dir("check_dropout_words");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8});
  g.init_float("ratio", {}, {0.0f});
  onnx::TensorProto* on = g.proto()->add_initializer();
  on->set_name("training");
  on->set_data_type(kBool);
  on->add_int32_data(1);
  g.node("Dropout", {"x", "ratio", "training"}, {"y"}, "dropout");
  g.output("y");
  std::string model = mb.save(dir + "/dropout.onnx");
  const std::string hint = "ratio is 0, the node is an identity: export with model.eval() or fold it";
  for (const char* format : {"text", "markdown"}) {
    RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--format", format});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.out.find("release requires every value to be 0"), std::string::npos) << format << r.out;
    EXPECT_NE(r.out.find(hint), std::string::npos) << format << r.out;
    EXPECT_EQ(r.out.find("value_in("), std::string::npos) << format << r.out;
  }
  json doc = json::parse(run_trtlens({"check", model, "--trt", "8.6", "--format", "json"}).out);
  bool dsl = false;
  for (const auto& reason : doc["nodes"][0]["reasons"]) dsl |= reason["rule"] == "value_in(2:training_mode,0)";
  EXPECT_TRUE(dsl) << doc["nodes"][0].dump();
  std::string page = dir + "/page.html";
  RunResult rep = run_trtlens({"report", model, "-o", page});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::ifstream in(page);
  std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("every value of input 2 (training_mode) is 0"), std::string::npos);
  EXPECT_NE(html.find(hint), std::string::npos);
  EXPECT_EQ(html.find("value_in("), std::string::npos);
  EXPECT_EQ(html.find("attr_in("), std::string::npos);
}

}  // namespace
}  // namespace trtlens::test
