// `trtlens check` and `trtlens matrix` as a user runs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace trtlens::test
