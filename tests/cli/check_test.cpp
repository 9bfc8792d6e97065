// `trtlens check` and `trtlens matrix` as a user runs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>
#include <regex>

#include "support/bad_models.h"
#include "support/onnx_builder.h"
#include "support/paths.h"

#include <fmt/core.h>
#include <map>
#include <set>

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
  // partition records the shapes it assumed too (top level: its "model" is the path).
  RunResult partitioned = run_trtlens({"partition", model, "--trt", "8.6", "--format", "json", "--shapes", "x:1x3x8x8,y:2x3"});
  ASSERT_EQ(partitioned.exit_code, 0) << partitioned.err;
  json parts = json::parse(partitioned.out);
  EXPECT_EQ(parts["input_shapes"], after["model"]["input_shapes"]);
  EXPECT_FALSE(json::parse(run_trtlens({"partition", model, "--trt", "8.6", "--format", "json"}).out).contains("input_shapes"));

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

// ---------------------------------------------------------------- CI outputs (issue 21)

// One node of each verdict people act on at TensorRT 8.6 int8: HannWindow does not
// import (UNSUPPORTED), BatchNormalization has no INT8 kernel (FALLBACK), and five
// Adds on an INT64 graph input narrow data of unknown range (IMPLICIT_CAST, one group).
std::string ci_model(const std::string& dir) {
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.input("ids", kInt64, {4});
  g.input("n", kInt64, {});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("scale", {4}, {1, 1, 1, 1}).init_float("bias", {4}, {0, 0, 0, 0});
  g.init_float("mean", {4}, {0, 0, 0, 0}).init_float("var", {4}, {1, 1, 1, 1});
  g.node("Conv", {"x", "w"}, {"c"}, "conv");
  g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}, "bn");
  g.node("HannWindow", {"n"}, {"window"}, "window");
  std::string last = "ids";
  for (int i = 0; i < 5; ++i) {
    std::string out = "ids" + std::to_string(i);
    g.node("Add", {last, "ids"}, {out}, "add" + std::to_string(i));
    last = out;
  }
  g.output("bn").output("window").output(last);
  return mb.save(dir + "/ci.onnx");
}

// The output with what depends on the checkout and the build replaced: the model's
// path, the trtlens version and the knowledge-base fingerprint.
std::string normalized(std::string text, const std::string& model) {
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all(model, "ci.onnx");
  json version = json::parse(run_trtlens({"check", model, "--format", "json"}).out);
  replace_all(version["kb_fingerprint"].get<std::string>(), "KB_FINGERPRINT");
  replace_all("\"" + version["trtlens_version"].get<std::string>() + "\"", "\"VERSION\"");
  return text;
}

void expect_golden_text(const std::string& text, const std::string& name) {
  const std::string path = std::string(TRTLENS_SOURCE_DIR) + "/tests/cli/golden/" + name;
  if (std::getenv("TRTLENS_UPDATE_GOLDEN")) {
    write_text(path, text);
    GTEST_SKIP() << "golden file rewritten";
  }
  EXPECT_EQ(text, read_text(path)) << name;
}

TEST(CheckCli, FailOnChoosesTheVerdictsThatExitOne) {
  std::string dir = temp_dir("check_fail_on");
  std::string model = ci_model(dir);
  auto code = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"check", model, "--trt", "8.6", "--precision", "int8", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_trtlens(args).exit_code;
  };
  EXPECT_EQ(code({}), 1);  // default: unsupported
  EXPECT_EQ(code({"--fail-on", "none"}), 0);
  EXPECT_EQ(code({"--fail-on", "unknown"}), 0);
  EXPECT_EQ(code({"--fail-on", "FALLBACK"}), 1);
  EXPECT_EQ(code({"--fail-on", "unknown,implicit_cast"}), 1);
  // At 10.4 HannWindow imports and INT64 is native: only the BatchNormalization's FALLBACK is left.
  auto at_10_4 = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"check", model, "--trt", "10.4", "--precision", "int8"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_trtlens(args).exit_code;
  };
  EXPECT_EQ(at_10_4({}), 0);
  EXPECT_EQ(at_10_4({"--fail-on", "implicit_cast"}), 0);
  EXPECT_EQ(at_10_4({"--fail-on", "fallback"}), 1);
}

TEST(CheckCli, FailOnRejectsOtherWordsInOneLine) {
  std::string model = ci_model(temp_dir("check_fail_on_bad"));
  for (const char* bad : {"bogus", "unsupported,bogus", "none,unsupported", ""}) {
    for (const char* command : {"check", "partition", "matrix"}) {
      RunResult r = run_trtlens({command, model, "--fail-on", bad});
      EXPECT_EQ(r.exit_code, 2) << command << " " << bad;
      EXPECT_TRUE(r.out.empty());
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
      EXPECT_NE(r.err.find("--fail-on"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("implicit_cast"), std::string::npos) << r.err;  // lists what it takes
    }
  }
  // engine lint's --fail-on parses the same way (its own words).
  RunResult lint = run_trtlens({"engine", "lint", std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/v8/tiny.onnx.engine",
                                "--fail-on", "severe"});
  EXPECT_EQ(lint.exit_code, 2);
  EXPECT_NE(lint.err.find("info, warning, error"), std::string::npos) << lint.err;
}

TEST(CheckCli, HelpDocumentsTheExitCodes) {
  for (const char* command : {"check", "matrix", "partition"}) {
    RunResult r = run_trtlens({command, "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("--fail-on"), std::string::npos) << command;
    EXPECT_NE(r.out.find("exit 0"), std::string::npos) << command;
    EXPECT_NE(r.out.find("2: bad input"), std::string::npos) << command;
  }
}

TEST(MatrixCli, FailOnExitsOneWhenNoRuntimePasses) {
  std::string dir = temp_dir("matrix_fail_on");
  ModelBuilder mb(13);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.node("Mystery", {"x"}, {"y"}, "mystery", "com.example");
  g.output("y", kFloat, {1, 4});
  std::string custom = mb.save(dir + "/custom.onnx");
  EXPECT_EQ(run_trtlens({"matrix", custom}).exit_code, 1);  // UNSUPPORTED everywhere
  EXPECT_EQ(run_trtlens({"matrix", custom, "--fail-on", "none"}).exit_code, 0);
  std::string hann = hann_model(dir);
  EXPECT_EQ(run_trtlens({"matrix", hann}).exit_code, 0);  // 10.4 and later convert
  // Every node has some verdict: naming them all fails every runtime.
  EXPECT_EQ(run_trtlens({"matrix", hann, "--fail-on", "unsupported,supported,fallback,implicit_cast,unknown"}).exit_code, 1);
}

TEST(PartitionCli, FailOnSetsTheExitCode) {
  std::string model = hann_model(temp_dir("partition_fail_on"));
  EXPECT_EQ(run_trtlens({"partition", model, "--trt", "10.1"}).exit_code, 1);
  EXPECT_EQ(run_trtlens({"partition", model, "--trt", "10.1", "--fail-on", "none"}).exit_code, 0);
  EXPECT_EQ(run_trtlens({"partition", model, "--trt", "10.4", "--fail-on", "unsupported"}).exit_code, 0);
}

TEST(CheckCli, EveryJsonOutputCarriesVersionAndFingerprint) {
  std::string dir = temp_dir("check_provenance");
  std::string model = ci_model(dir);
  RunResult version = run_trtlens({"--version"});
  std::vector<std::vector<std::string>> commands = {
      {"check", model, "--trt", "8.6", "--format", "json"},
      {"matrix", model, "--format", "json"},
      {"matrix", model, "--diff", "8.6", "10.4", "--format", "json"},
      {"partition", model, "--trt", "8.6", "--format", "json"},
  };
  std::string fingerprint;
  for (const auto& c : commands) {
    RunResult r = run_trtlens(c);
    ASSERT_LE(r.exit_code, 1) << r.err;
    json doc = json::parse(r.out);
    EXPECT_EQ(version.out, "trtlens " + doc["trtlens_version"].get<std::string>() + "\n") << c[0];
    std::string f = doc["kb_fingerprint"];
    EXPECT_TRUE(std::regex_match(f, std::regex("[0-9a-f]{64}"))) << f;
    if (fingerprint.empty()) fingerprint = f;
    EXPECT_EQ(f, fingerprint) << c[0];
  }
  // A declared plugin changes what is judged, so it changes the fingerprint.
  json with_plugin = json::parse(run_trtlens({"check", model, "--trt", "8.6", "--plugin", "HannWindow", "--format", "json"}).out);
  EXPECT_NE(with_plugin["kb_fingerprint"], fingerprint);
}

// The fingerprint is what the one-line command of docs/check-json.md prints in the source tree: the digest of
// the release tables and the target facts.
TEST(CheckCli, FingerprintIsTheDigestOfTheTables) {
  std::string dir = temp_dir("check_fingerprint");
  std::string model = small_model(dir);
  json doc = json::parse(run_trtlens({"check", model, "--format", "json"}).out);
  std::string cmd = "cd '" + std::string(TRTLENS_SOURCE_DIR) +
                    "' && find data/trt data/targets -name '*.tsv' | LC_ALL=C sort | xargs sha256sum | sha256sum > '" +
                    dir + "/digest'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(read_text(dir + "/digest").substr(0, 64), doc["kb_fingerprint"]);
}

TEST(CheckCli, SarifMatchesTheGoldenFileAndWhatCodeScanningReads) {
  std::string model = ci_model(temp_dir("check_sarif"));
  RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--precision", "int8", "--format", "sarif"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  json doc = json::parse(r.out);
  // GitHub code scanning: version 2.1.0, a driver name, per result a ruleId, a
  // message text and at least one location with an artifact URI and a start line,
  // rules described (id, short and full description, help text).
  EXPECT_EQ(doc["version"], "2.1.0");
  ASSERT_EQ(doc["runs"].size(), 1u);
  const json& run = doc["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "trtlens");
  const json& results = run["results"];
  ASSERT_EQ(results.size(), 7u);  // every node but the Conv
  std::map<std::string, std::string> level_of;
  std::set<std::string> fingerprints;
  for (const auto& res : results) {
    level_of[res["properties"]["verdict"]] = res["level"];
    EXPECT_FALSE(res["message"]["text"].get<std::string>().empty());
    ASSERT_EQ(res["locations"].size(), 1u);
    EXPECT_EQ(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], model);
    EXPECT_EQ(res["locations"][0]["physicalLocation"]["region"]["startLine"], 1);
    const json& rule = run["tool"]["driver"]["rules"][res["ruleIndex"].get<size_t>()];
    EXPECT_EQ(rule["id"], res["ruleId"]);
    for (const char* field : {"shortDescription", "fullDescription", "help"})
      EXPECT_FALSE(rule[field]["text"].get<std::string>().empty()) << field;
    fingerprints.insert(res["partialFingerprints"]["primaryLocationLineHash"]);
  }
  EXPECT_EQ(fingerprints.size(), results.size());  // one alert per node, never merged
  EXPECT_EQ(level_of["UNSUPPORTED"], "error");
  EXPECT_EQ(level_of["IMPLICIT_CAST"], "warning");
  EXPECT_EQ(level_of["FALLBACK"], "note");
  expect_golden_text(normalized(r.out, model), "check_sarif.json");
}

TEST(CheckCli, JunitMatchesTheGoldenFileAndNamesTheFailingNodes) {
  std::string model = ci_model(temp_dir("check_junit"));
  RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--precision", "int8", "--format", "junit"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("tests=\"1\" failures=\"1\""), std::string::npos);
  EXPECT_NE(r.out.find("<testcase classname=\"trtlens.check\" name=\"TensorRT 8.6 int8\""), std::string::npos);
  EXPECT_NE(r.out.find("<failure message=\"1 node: 1 UNSUPPORTED\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("window (HannWindow) UNSUPPORTED"), std::string::npos) << r.out;
  // --fail-on decides what fails: the five INT64 Adds too.
  RunResult casts = run_trtlens({"check", model, "--trt", "8.6", "--precision", "int8", "--format", "junit", "--fail-on",
                                 "unsupported,implicit_cast"});
  EXPECT_NE(casts.out.find("<failure message=\"6 nodes: 5 IMPLICIT_CAST, 1 UNSUPPORTED\""), std::string::npos) << casts.out;
  RunResult pass = run_trtlens({"check", model, "--trt", "8.6", "--format", "junit", "--fail-on", "none"});
  EXPECT_EQ(pass.exit_code, 0);
  EXPECT_NE(pass.out.find("failures=\"0\""), std::string::npos);
  EXPECT_EQ(pass.out.find("<failure"), std::string::npos);
  expect_golden_text(normalized(r.out, model), "check_junit.xml");
}

// Names are XML-escaped and control characters cannot break the document.
TEST(CheckCli, JunitEscapesHostileNames) {
  std::string dir = temp_dir("check_junit_escape");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("n", kInt64, {});
  g.node("HannWindow", {"n"}, {"w"}, "a<b>&\"c'\x01");
  g.output("w");
  std::string model = mb.save(dir + "/hostile.onnx");
  RunResult r = run_trtlens({"check", model, "--trt", "10.1", "--format", "junit"});
  ASSERT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("a&lt;b&gt;&amp;&quot;c&apos;\\x01"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x01'), std::string::npos);
}

TEST(MatrixCli, JunitHasOneTestCasePerRuntime) {
  std::string model = hann_model(temp_dir("matrix_junit"));
  RunResult r = run_trtlens({"matrix", model, "--format", "junit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t cases = 0, failures = 0;
  for (size_t at = r.out.find("<testcase "); at != std::string::npos; at = r.out.find("<testcase ", at + 1)) ++cases;
  for (size_t at = r.out.find("<failure "); at != std::string::npos; at = r.out.find("<failure ", at + 1)) ++failures;
  EXPECT_EQ(cases, 37u * 6u);
  json doc = json::parse(run_trtlens({"matrix", model, "--format", "json"}).out);
  size_t failing_cells = 0;
  for (const auto& c : doc["cells"]) failing_cells += c["summary"]["UNSUPPORTED"].get<int>() > 0;
  EXPECT_EQ(failures, failing_cells);
  EXPECT_NE(r.out.find(fmt::format("tests=\"{}\" failures=\"{}\"", cases, failures)), std::string::npos);
  EXPECT_TRUE(std::regex_search(r.out, std::regex("name=\"TensorRT 10.1 fp16\"[^>]*>\n +<failure message=\"1 node: 1 UNSUPPORTED\""))) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("<testcase classname=\"trtlens.matrix\" name=\"TensorRT 10.4 fp16\" file="), std::string::npos);
  EXPECT_EQ(run_trtlens({"matrix", model, "--diff", "8.6", "10.4", "--format", "junit"}).exit_code, 2);
}

// A 3x3 Conv the DLA runs and a 33x33 one it does not (kernel 1..32), then a Relu.
std::string dla_junit_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 40, 40});
  g.init_float("w3", {4, 4, 3, 3}, std::vector<float>(144, 0.1f));
  g.init_float("w33", {4, 4, 33, 33}, std::vector<float>(4 * 4 * 33 * 33, 0.1f));
  attr_ints(g.node("Conv", {"x", "w3"}, {"a"}, "small"), "pads", {1, 1, 1, 1});
  attr_ints(g.node("Conv", {"a", "w33"}, {"b"}, "large"), "pads", {16, 16, 16, 16});
  g.node("Relu", {"b"}, {"y"}, "relu");
  g.output("y");
  return mb.save(dir + "/ci.onnx");
}

// matrix --target --format junit: a test case per runtime the target runs (the cells of matrix --target),
// narrowed to it; on Orin's DLA core bf16 and fp8 fall back (no such kernels on Orin), the fallback nodes
// say where they run, and every case carries the DLA summary.
TEST(MatrixCli, JunitOnATargetHasOneTestCasePerRuntimeItRuns) {
  std::string model = dla_junit_model(temp_dir("matrix_junit_target"));
  RunResult r = run_trtlens({"matrix", model, "--target", "orin-dla", "--format", "junit", "--fail-on", "fallback"});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // some runtimes pass (fp16 on every release)
  json cells = json::parse(run_trtlens({"matrix", model, "--target", "orin-dla", "--format", "json"}).out)["cells"];
  size_t cases = 0, failures = 0, summaries = 0;
  for (size_t at = r.out.find("<testcase "); at != std::string::npos; at = r.out.find("<testcase ", at + 1)) ++cases;
  for (size_t at = r.out.find("<failure "); at != std::string::npos; at = r.out.find("<failure ", at + 1)) ++failures;
  for (size_t at = r.out.find("<system-out>DLA (TensorRT "); at != std::string::npos;
       at = r.out.find("<system-out>DLA (TensorRT ", at + 1))
    ++summaries;
  EXPECT_EQ(cases, cells.size());
  EXPECT_EQ(summaries, cells.size());
  size_t failing_cells = 0;
  for (const auto& c : cells) {
    failing_cells += c["summary"]["FALLBACK"].get<int>() > 0;
    EXPECT_NE(r.out.find(fmt::format("name=\"TensorRT {} {} on orin-dla\"", c["release"].get<std::string>(),
                                     c["precision"].get<std::string>())),
              std::string::npos)
        << c;
  }
  EXPECT_EQ(failures, failing_cells);
  EXPECT_GT(failures, 0u);
  EXPECT_NE(r.out.find("name=\"TensorRT 8.5 bf16 on orin-dla\""), std::string::npos);
  EXPECT_EQ(r.out.find("TensorRT 10.4"), std::string::npos);  // Orin's JetPacks ship no 10.4
  EXPECT_NE(r.out.find("DLA: GPU fallback: DLA runs FP16|INT8 only: this node runs at FP32"), std::string::npos)
      << r.out.substr(0, 3000);
  // fp16: the 3x3 Conv and the Relu on the DLA, the 33x33 Conv between them on the GPU.
  EXPECT_NE(r.out.find("2 of 3 nodes (66.7%), 0.8% of MACs; 1 GPU fallback, 0 unsupported; 2 DLA&lt;-&gt;GPU"),
            std::string::npos)
      << r.out.substr(0, 3000);
  expect_golden_text(normalized(r.out, model), "matrix_junit_orin_dla.xml");
  // --fail-on unsupported: nothing fails anywhere; an unknown target is a usage error.
  RunResult pass = run_trtlens({"matrix", model, "--target", "orin-dla", "--format", "junit"});
  EXPECT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_EQ(pass.out.find("<failure"), std::string::npos);
  EXPECT_EQ(run_trtlens({"matrix", model, "--target", "nope", "--format", "junit"}).exit_code, 2);
}

// ---------------------------------------------------------------- matrix on a DLA target: placement per cell and diff

// Nodes whose placement on Orin's DLA core moves between TensorRT 8.5 and 8.6 (data/targets/dla/8.5.tsv vs 8.6.tsv):
// x [1,4,40,40] -> Conv "small" (3x3: DLA at both) -> Conv "large" (33x33: "kernel size 33 > 32", GPU at both)
// -> Sin "sin1" .. "sin4" (unary modes: abs at 8.5; abs|sin|cos|atan at 8.6) -> Transpose "transpose" (the shuffle
// layer runs on Orin's DLA from 8.6) -> Add "add" of a [1,4,1,1] bias (broadcast: equal shapes at 8.5; channel and
// scalar too at 8.6) -> Relu "relu" (DLA at both).
std::string dla_moves_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 40, 40});
  g.init_float("w3", {4, 4, 3, 3}, std::vector<float>(144, 0.1f));
  g.init_float("w33", {4, 4, 33, 33}, std::vector<float>(4 * 4 * 33 * 33, 0.1f));
  g.init_float("bias", {1, 4, 1, 1}, {0.1f, 0.2f, 0.3f, 0.4f});
  attr_ints(g.node("Conv", {"x", "w3"}, {"a"}, "small"), "pads", {1, 1, 1, 1});
  attr_ints(g.node("Conv", {"a", "w33"}, {"s0"}, "large"), "pads", {16, 16, 16, 16});
  for (int i = 1; i <= 4; ++i)
    g.node("Sin", {fmt::format("s{}", i - 1)}, {fmt::format("s{}", i)}, fmt::format("sin{}", i));
  attr_ints(g.node("Transpose", {"s4"}, {"t"}, "transpose"), "perm", {0, 1, 3, 2});
  g.node("Add", {"t", "bias"}, {"e"}, "add");
  g.node("Relu", {"e"}, {"y"}, "relu");
  g.output("y", kFloat, {1, 4, 40, 40});
  return mb.save(dir + "/ci.onnx");
}

json cell_at(const json& doc, const std::string& release, const std::string& precision) {
  for (const auto& c : doc["cells"])
    if (c["release"] == release && c["precision"] == precision) return c;
  return json();
}

// Each cell of matrix --target orin-dla carries where the DLA core runs the model: json, text and markdown.
TEST(MatrixCli, OnADlaTargetEachCellCarriesItsPlacement) {
  std::string model = dla_moves_model(temp_dir("matrix_dla_cells"));
  RunResult j = run_trtlens({"matrix", model, "--target", "orin-dla", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json doc = json::parse(j.out);
  std::set<std::string> releases;  // the releases Orin's JetPacks ship, each with DLA facts
  for (const auto& c : doc["cells"]) {
    ASSERT_TRUE(c.contains("dla")) << c;
    releases.insert(c["release"].get<std::string>());
  }
  for (const char* r : {"8.4", "8.5", "8.6", "10.3"}) EXPECT_TRUE(releases.count(r)) << r;
  EXPECT_FALSE(releases.count("10.4"));
  json at85 = cell_at(doc, "8.5", "fp16")["dla"], at86 = cell_at(doc, "8.6", "fp16")["dla"];
  EXPECT_EQ(at85["dla_nodes"], 2);  // small, relu
  EXPECT_EQ(at85["gpu_fallback_nodes"], 7);
  EXPECT_EQ(at85["dla_node_percent"], 22.2);
  EXPECT_EQ(at85["loadables"], 2);
  EXPECT_EQ(at85["transitions"], 2);
  EXPECT_EQ(at86["dla_nodes"], 8);  // all but the 33x33 Conv
  EXPECT_EQ(at86["gpu_fallback_nodes"], 1);
  EXPECT_EQ(at86["dla_node_percent"], 88.9);
  EXPECT_EQ(at86["loadables"], 2);  // "small", then sin1 .. relu
  EXPECT_EQ(at86["transitions"], 2);
  EXPECT_GT(at86["total_macs"].get<int64_t>(), at86["dla_macs"].get<int64_t>());
  // The DLA runs FP16 and INT8 only: nothing on it at fp32.
  EXPECT_EQ(cell_at(doc, "8.6", "fp32")["dla"]["dla_nodes"], 0);
  EXPECT_EQ(cell_at(doc, "8.6", "fp32")["dla"]["gpu_fallback_nodes"], 9);
  expect_golden_text(normalized(j.out, model), "matrix_orin_dla.json");

  RunResult t = run_trtlens({"matrix", model, "--target", "orin-dla"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("DLA placement on orin-dla"), std::string::npos) << t.out;
  EXPECT_TRUE(std::regex_search(t.out, std::regex(R"(\n8\.6 +fp16 +8 of 9 +88\.9% )"))) << t.out;
  EXPECT_NE(t.out.find("most nodes on the DLA: TensorRT 8.6 fp16, 8 of 9 (88.9%)"), std::string::npos) << t.out;
  expect_golden_text(normalized(t.out, model), "matrix_orin_dla.txt");
  RunResult md = run_trtlens({"matrix", model, "--target", "orin-dla", "--format", "markdown"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| 8.6 | fp16 | 8 of 9 | 88.9% |"), std::string::npos) << md.out;
  expect_golden_text(normalized(md.out, model), "matrix_orin_dla.md");
}

// The matrix places each release once per distinct (imports, precision) of the nodes (fp32, bf16 and fp8 share one on
// Orin): every cell must still say what check --target says for that runtime.
TEST(MatrixCli, OnADlaTargetEachCellMatchesCheckAtThatRuntime) {
  std::string model = dla_moves_model(temp_dir("matrix_dla_vs_check"));
  for (const char* target : {"orin-dla", "xavier-dla"}) {
    RunResult m = run_trtlens({"matrix", model, "--target", target, "--format", "json"});
    ASSERT_EQ(m.exit_code, 0) << m.err;
    json cells = json::parse(m.out)["cells"];
    ASSERT_FALSE(cells.empty());
    for (const auto& c : cells) {
      RunResult r = run_trtlens({"check", model, "--trt", c["release"], "--precision", c["precision"], "--target", target,
                                 "--format", "json"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      json d = json::parse(r.out)["dla"];
      for (const char* k : {"dla_nodes", "gpu_fallback_nodes", "unsupported_nodes", "dla_macs", "total_macs",
                            "transitions", "loadables", "max_loadables"})
        EXPECT_EQ(c["dla"][k], d[k]) << target << " " << c["release"] << " " << c["precision"] << " " << k;
      EXPECT_EQ(c["summary"], json::parse(r.out)["summary"]) << target << " " << c["release"] << " " << c["precision"];
    }
  }
}

// matrix --diff on Orin's DLA core: the header names the target; upgrading 8.5 -> 8.6 moves the Sin chain (one row:
// four nodes share both placements), the Transpose and the broadcast Add onto the DLA, each with the reason that kept
// it off at 8.5; the 33x33 Conv stays on the GPU and is not listed. Downgrading lists them moving off, with 8.5's
// reasons. 8.4 and 8.5 share their DLA rules: nothing moves.
TEST(MatrixCli, DiffOnADlaTargetListsNodesMovingOnOrOffTheDla) {
  std::string model = dla_moves_model(temp_dir("matrix_dla_diff"));
  auto diff = [&](const char* from, const char* to, const char* format) {
    return run_trtlens(
        {"matrix", model, "--diff", from, to, "--precision", "fp16", "--target", "orin-dla", "--format", format});
  };
  RunResult up = diff("8.5", "8.6", "text");
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_NE(up.out.find("verdict changes from TensorRT 8.5 to 8.6 at fp16 on orin-dla (NVIDIA Jetson"), std::string::npos)
      << up.out;
  EXPECT_NE(up.out.find("DLA placement changes on orin-dla, TensorRT 8.5 → 8.6 DLA rules"), std::string::npos) << up.out;
  EXPECT_TRUE(std::regex_search(up.out, std::regex(R"(sin1 and 3 more +Sin +GPU_FALLBACK +DLA +\(8\.5\) )"))) << up.out;
  EXPECT_NE(up.out.find("(8.5) the shuffle layer (Transpose imports as shuffle) does not run on the DLA in TensorRT 8.5"),
            std::string::npos)
      << up.out;
  EXPECT_EQ(up.out.find("large"), std::string::npos) << up.out;  // on the GPU at both
  EXPECT_NE(up.out.find("6 node(s) change DLA placement (0 off the DLA, 6 onto it); nodes on the DLA: 8.5 2 of 9 "
                        "(22.2%) → 8.6 8 of 9 (88.9%)"),
            std::string::npos)
      << up.out;
  expect_golden_text(normalized(up.out, model), "matrix_diff_orin_dla.txt");

  json doc = json::parse(diff("8.5", "8.6", "json").out);
  EXPECT_EQ(doc["target"]["name"], "orin-dla");
  EXPECT_EQ(doc["from"]["dla"]["dla_nodes"], 2);
  EXPECT_EQ(doc["to"]["dla"]["dla_nodes"], 8);
  ASSERT_EQ(doc["placement_changes"].size(), 6u);
  std::vector<std::string> moved;
  for (const auto& c : doc["placement_changes"]) {
    moved.push_back(c["name"]);
    EXPECT_EQ(c["before"]["verdict"], "GPU_FALLBACK") << c;
    EXPECT_EQ(c["after"]["verdict"], "DLA") << c;
    EXPECT_NE(c["before"]["reason"], "") << c;
    EXPECT_EQ(c["after"]["reason"], "") << c;
  }
  EXPECT_EQ(moved, (std::vector<std::string>{"sin1", "sin2", "sin3", "sin4", "transpose", "add"}));
  expect_golden_text(normalized(diff("8.5", "8.6", "json").out, model), "matrix_diff_orin_dla.json");

  RunResult down = diff("8.6", "8.5", "text");
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_TRUE(std::regex_search(down.out, std::regex(R"(transpose +Transpose +DLA +GPU_FALLBACK +the shuffle layer )")))
      << down.out;
  EXPECT_NE(down.out.find("(6 off the DLA, 0 onto it)"), std::string::npos) << down.out;
  EXPECT_EQ(down.out.find("(8.6)"), std::string::npos) << down.out;  // moving off: the new release's reason
  RunResult md = diff("8.5", "8.6", "markdown");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("TensorRT 8.5 → 8.6 (fp16, target orin-dla)"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| sin1 and 3 more | Sin | GPU_FALLBACK | DLA |"), std::string::npos) << md.out;

  RunResult same = diff("8.4", "8.5", "text");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("no node changes DLA placement"), std::string::npos) << same.out;
  // A release the target does not run: one line, nothing written.
  RunResult bad = diff("8.5", "10.4", "json");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("TensorRT 10.4 does not run on orin-dla"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");
}

// Without a DLA target matrix and matrix --diff write what they wrote before placements existed (goldens made with
// the binary before the change), and a GPU target only names itself in the diff's header.
TEST(MatrixCli, WithoutADlaTargetTheOutputsAreUnchanged) {
  std::string model = dla_moves_model(temp_dir("matrix_no_dla"));
  struct Case {
    std::vector<std::string> args;
    std::string golden;
  };
  const std::vector<Case> cases = {
      {{"matrix", model}, "matrix_plain.txt"},
      {{"matrix", model, "--format", "json"}, "matrix_plain.json"},
      {{"matrix", model, "--format", "markdown"}, "matrix_plain.md"},
      {{"matrix", model, "--target", "orin"}, "matrix_orin.txt"},
      {{"matrix", model, "--diff", "8.5", "10.4"}, "matrix_diff_plain.txt"},
      {{"matrix", model, "--diff", "8.5", "10.4", "--format", "json"}, "matrix_diff_plain.json"},
      {{"matrix", model, "--diff", "8.5", "10.4", "--format", "markdown"}, "matrix_diff_plain.md"},
  };
  for (const auto& c : cases) {
    RunResult r = run_trtlens(c.args);
    ASSERT_EQ(r.exit_code, 0) << c.golden << r.err;
    EXPECT_EQ(r.out.find("DLA"), std::string::npos) << c.golden << r.out;
    expect_golden_text(normalized(r.out, model), c.golden);
  }
  RunResult gpu = run_trtlens({"matrix", model, "--diff", "8.5", "8.6", "--target", "orin", "--format", "json"});
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  json doc = json::parse(gpu.out);
  EXPECT_EQ(doc["target"]["name"], "orin");
  EXPECT_FALSE(doc.contains("placement_changes"));
  EXPECT_FALSE(doc["from"].contains("dla"));
}

TEST(CheckCli, MarkdownMatchesTheGoldenFileSeriousRowsFirstAndGroups) {
  std::string model = ci_model(temp_dir("check_md_golden"));
  RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--precision", "int8", "--format", "markdown"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  size_t unsupported = r.out.find("| UNSUPPORTED |"), details = r.out.find("<details>"),
         fallback = r.out.find("| FALLBACK | FP32 |");
  ASSERT_NE(unsupported, std::string::npos) << r.out;
  EXPECT_LT(unsupported, details);
  EXPECT_LT(details, fallback);
  // The five INT64 Adds are one row with one hint.
  EXPECT_NE(r.out.find("5 nodes narrow INT64 data of unknown range"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("| add1 |"), std::string::npos);
  RunResult text = run_trtlens({"check", model, "--trt", "8.6", "--precision", "int8"});
  EXPECT_NE(text.out.find("5 nodes narrow INT64 data of unknown range"), std::string::npos) << text.out;
  expect_golden_text(normalized(r.out, model), "check_markdown.md");
}

TEST(CheckCli, MarkdownOfAWideModelStaysUnderTheCommentLimit) {
  std::string dir = temp_dir("check_md_cap");
  ModelBuilder mb(17);
  mb.opset("com.example", 1);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  // 3000 custom ops of 3000 op_types: each hint names its own plugin, so no row groups with another.
  for (int i = 0; i < 3000; ++i) {
    std::string id = std::to_string(i);
    g.node("CustomOp" + id, {"x"}, {"y" + id}, "custom_op_with_a_rather_long_name_" + id, "com.example");
    g.output("y" + id, kFloat, {1, 4});
  }
  std::string model = mb.save(dir + "/wide.onnx");
  RunResult r = run_trtlens({"check", model, "--trt", "10.1", "--format", "markdown"});
  ASSERT_EQ(r.exit_code, 1);
  EXPECT_LT(r.out.size(), 60000u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("\n(\\d+) more rows in the JSON"))) << r.out.substr(r.out.size() - 500);
  size_t rows = 0;
  for (size_t at = r.out.find("| UNSUPPORTED | - |"); at != std::string::npos; at = r.out.find("| UNSUPPORTED | - |", at + 1)) ++rows;
  EXPECT_EQ(rows + std::stoul(m[1]), 3000u);
}

// swin_t at 8.6 (issue 21): 275 KB of markdown before; the Dropouts come first now.
// Suite *RealModels: registered with the model_cache fixture (tests/CMakeLists.txt), so the cache exists.
TEST(CheckCliRealModels, MarkdownOfSwinTFitsACommentAndListsTheDropoutsFirst) {
  std::string model = std::string(TRTLENS_TEST_TMP) + "/../model-cache/swin_t_op17.onnx";
  ASSERT_TRUE(std::filesystem::exists(model)) << "the model_cache fixture (models.export) did not make " << model;
  RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--format", "markdown"});
  ASSERT_LE(r.exit_code, 1) << r.err;
  EXPECT_LT(r.out.size(), 60000u);
  size_t first_row = r.out.find("\n| `");
  ASSERT_NE(first_row, std::string::npos);
  EXPECT_NE(r.out.substr(first_row, 300).find("Dropout"), std::string::npos) << r.out.substr(0, 3000);
}

// ---------------------------------------------------------------- progress on a terminal

// What a terminal shows while trtlens runs `args` (script(1) gives it a pseudo-terminal).
std::string run_on_terminal(const std::vector<std::string>& args, const std::string& dir) {
  std::string cmd = std::string("'") + TRTLENS_BIN + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  std::string line = "cd '" + dir + "' && script -qec \"" + cmd + "\" /dev/null < /dev/null > '" + dir + "/terminal.txt' 2>&1";
  EXPECT_EQ(std::system(line.c_str()), 0) << line;
  return read_text(dir + "/terminal.txt");
}

// 10,001 Relu nodes in a chain: a "large" model for matrix.
std::string chain_model(const std::string& dir, int nodes) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x0", kFloat, {1, 8});
  for (int i = 0; i < nodes; ++i) g.node("Relu", {"x" + std::to_string(i)}, {"x" + std::to_string(i + 1)}, "");
  g.output("x" + std::to_string(nodes), kFloat, {1, 8});
  return mb.save(dir + "/chain.onnx");
}

TEST(Progress, ShownOnATerminalForReportPartitionAndLargeMatrices) {
  std::string dir = temp_dir("progress_terminal");
  std::string model = small_model(dir);
  std::string report = run_on_terminal({"report", model, "-o", dir + "/page.html"}, dir);
  EXPECT_TRUE(std::regex_search(report, std::regex("report: \\d+/\\d+"))) << report;
  EXPECT_NE(report.find("trtlens: wrote"), std::string::npos) << report;
  std::string partition = run_on_terminal({"partition", model, "--trt", "8.6", "-o", dir + "/parts"}, dir);
  EXPECT_NE(partition.find("partition: writing"), std::string::npos) << partition;
  std::string large = chain_model(dir, 10001);
  std::string matrix = run_on_terminal({"matrix", large}, dir);
  EXPECT_NE(matrix.find("matrix: judging 10001 nodes"), std::string::npos) << matrix.substr(0, 300);
  // Small models are quick: no progress for their matrix.
  std::string small_matrix = run_on_terminal({"matrix", model}, dir);
  EXPECT_EQ(small_matrix.find("matrix:"), std::string::npos);
}

TEST(Progress, NeverWrittenIntoAPipe) {
  std::string dir = temp_dir("progress_pipe");
  std::string model = small_model(dir);
  RunResult report = run_trtlens({"report", model, "-o", dir + "/page.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.err.rfind("trtlens: wrote", 0), 0u) << report.err;  // the one line, nothing before it
  EXPECT_EQ(report.err.find('\r'), std::string::npos);
  RunResult partition = run_trtlens({"partition", model, "--trt", "8.6", "-o", dir + "/parts"});
  EXPECT_EQ(partition.err, "");
  RunResult matrix = run_trtlens({"matrix", chain_model(dir, 10001)});
  EXPECT_EQ(matrix.err, "");
}

}  // namespace
}  // namespace trtlens::test

namespace trtlens::test {
namespace {

// The text table puts what to act on first; a large model's SUPPORTED rows are counted, not listed.
TEST(CheckCli, TextListsProblemsFirstAndCountsSupportedRowsOfLargeModels) {
  std::string dir = temp_dir("CheckCli.TextProblemsFirst");
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x0", kFloat, {1, 8});
  g.input("n", kInt64, {});
  for (int i = 0; i < 600; ++i) g.node("Relu", {"x" + std::to_string(i)}, {"x" + std::to_string(i + 1)}, "");
  g.node("HannWindow", {"n"}, {"window"}, "window");
  g.output("x600", kFloat, {1, 8}).output("window");
  std::string model = mb.save(dir + "/large.onnx");
  RunResult r = run_trtlens({"check", model, "--trt", "8.6"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  size_t header = r.out.find("reasons and hints");
  ASSERT_NE(header, std::string::npos) << r.out;
  size_t first_row = r.out.find('\n', r.out.find('\n', header) + 1) + 1;  // after the header's rule
  EXPECT_EQ(r.out.compare(first_row, 4, "/600"), 0) << r.out.substr(first_row, 200);
  EXPECT_EQ(r.out.find("Relu"), std::string::npos) << "SUPPORTED rows of a large model are counted, not listed";
  EXPECT_NE(r.out.find("(600 SUPPORTED nodes not listed: --only SUPPORTED or --format json lists them)"),
            std::string::npos) << r.out;
  RunResult all = run_trtlens({"check", model, "--trt", "8.6", "--only", "SUPPORTED,UNSUPPORTED"});
  EXPECT_NE(all.out.find("Relu"), std::string::npos);
  EXPECT_LT(all.out.find("HannWindow"), all.out.find("Relu"));
  // A small model lists every row, worst first: UNSUPPORTED, then FALLBACK, then SUPPORTED.
  RunResult small = run_trtlens({"check", ci_model(dir), "--trt", "8.6", "--precision", "int8"});
  size_t window = small.out.find("HannWindow"), bn = small.out.find("BatchNormalization"), conv = small.out.find(" Conv ");
  ASSERT_NE(conv, std::string::npos) << small.out;
  EXPECT_LT(window, bn);
  EXPECT_LT(bn, conv);
}

}  // namespace
}  // namespace trtlens::test

namespace trtlens::test {
namespace {

// The verdict of a one-node model `op_type(x: type) -> y` at a release.
std::string unary_verdict(const std::string& op_type, int type, const std::string& release) {
  std::string dir = temp_dir("CheckCli.Unary." + op_type + std::to_string(type) + "_" + release);
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", type, {1, 4});
  g.node(op_type, {"x"}, {"y"}, "n");
  g.output("y", type, {1, 4});
  RunResult r = run_trtlens({"check", mb.save(dir + "/m.onnx"), "--trt", release, "--format", "json"});
  json doc = json::parse(r.out);
  return doc["nodes"][0]["verdict"];
}

// Issue 32: the importer facts took a type's work-around branch in a switch case for the accepted set
// (8.0-8.4 unaryHelper: `if (inputType == kINT32) cast...` in the kABS and kNEG cases) and read the
// cast-back switch's `default: break;` instead of the type check's default. Every case of the class:
// the work-around ops accept FP32 and INT32, the default-case ops FP32 but not INT32, Not only BOOL;
// 7.x (one ternary for all unary ops, no INT32 work-around) refuses INT32 Abs and Neg.
TEST(CheckCli, UnaryHelperCasesReadAsTheImporterDecidesThem) {
  for (const char* release : {"8.0", "8.2", "8.4"}) {
    for (const char* op : {"Abs", "Neg"}) {
      EXPECT_EQ(unary_verdict(op, kFloat, release), "SUPPORTED") << op << " FP32 at " << release;
      EXPECT_EQ(unary_verdict(op, kInt32, release), "SUPPORTED") << op << " INT32 at " << release;
    }
    // unaryHelper default: not BOOL, not INT32 (8.2-GA onnx2trt_utils.cpp:2031).
    EXPECT_EQ(unary_verdict("Sqrt", kFloat, release), "SUPPORTED") << release;
    EXPECT_EQ(unary_verdict("Sqrt", kInt32, release), "UNSUPPORTED") << release;
    EXPECT_EQ(unary_verdict("Not", kBool, release), "SUPPORTED") << release;
  }
  for (const char* release : {"7.0", "7.2"}) {
    EXPECT_EQ(unary_verdict("Abs", kFloat, release), "SUPPORTED") << release;
    EXPECT_EQ(unary_verdict("Abs", kInt32, release), "UNSUPPORTED") << release;
    EXPECT_EQ(unary_verdict("Neg", kInt32, release), "UNSUPPORTED") << release;
  }
}

// Reciprocal at 7.0-8.2: the table marks it unsupported, the importer registers it and its unaryHelper
// default case accepts FP32 (7.2.1 onnx2trt_utils.cpp:1842; 8.2-GA :2031): the importer code wins.
TEST(CheckCli, ReciprocalFollowsTheImporterWhereTheTableMarksItUnsupported) {
  for (const char* release : {"7.2", "8.0", "8.2", "8.4"}) {
    EXPECT_EQ(unary_verdict("Reciprocal", kFloat, release), "SUPPORTED") << release;
    EXPECT_EQ(unary_verdict("Reciprocal", kInt32, release), "UNSUPPORTED") << release;
  }
}

}  // namespace
}  // namespace trtlens::test
