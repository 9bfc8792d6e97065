// `trtlens report MODEL --engine PLAN`: the model overlaid with its engine,
// as a page and as text/json/markdown, run as a user runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/overlay_models.h"
#include "support/paths.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace trtlens::test;

namespace {

json page_data(const std::string& page) { return embedded_json(page, "trtlens-data"); }
json engine_data(const std::string& page) { return embedded_json(page, "engine-data"); }

std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }
const std::string kEngine = fixture("overlay/overlay.onnx.engine");

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }
const json* node_named(const json& doc, const std::string& name) {
  for (const auto& n : doc["nodes"])
    if (n["name"] == name) return &n;
  return nullptr;
}

}  // namespace

// The public JSON document, beside the model the test builds with the
// fixture's node names. Paths are replaced: they depend on the checkout.
TEST(OverlayCli, JsonMatchesTheGoldenFile) {
  const std::string golden_path = std::string(TRTLENS_SOURCE_DIR) + "/tests/cli/golden/report_overlay.json";
  std::string dir = temp_dir("OverlayCli.JsonMatchesTheGoldenFile");
  std::string model = save_overlay_fixture_model(dir + "/overlay.onnx");
  auto r = run_trtlens({"report", model, "--engine", kEngine, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(doc["model"], model);
  EXPECT_EQ(doc["graph_json"], kEngine + ".graph.json");
  doc["model"] = "overlay.onnx";
  doc["graph_json"] = "overlay.onnx.engine.graph.json";
  // Pinned apart from the build: the trtlens release and the knowledge base's fingerprint.
  doc["trtlens_version"] = "0.0.0";
  doc["kb_fingerprint"] = std::string(64, '0');
  if (std::getenv("TRTLENS_UPDATE_GOLDEN")) {
    write_text(golden_path, doc.dump(2) + "\n");
    GTEST_SKIP() << "golden file rewritten";
  }
  EXPECT_EQ(doc, nlohmann::ordered_json::parse(read_text(golden_path)));
  const json plain = json::parse(r.out);
  EXPECT_EQ(plain["schema_version"], 1);
  EXPECT_EQ(plain["runtime"]["release"], "8.6");
  EXPECT_EQ(plain["runtime"]["precision"], "best");  // built FP32+FP16+INT8
  const json* conv = node_named(plain, "Conv_0");
  ASSERT_TRUE(conv);
  EXPECT_EQ((*conv)["layer"], "Conv_0 + Relu_1");
  EXPECT_EQ((*conv)["precision"], "INT8");
  EXPECT_DOUBLE_EQ((*conv)["latency_ms"].get<double>(), 0.05);
  EXPECT_EQ((*conv)["fused_with"], 1);
  EXPECT_EQ((*node_named(plain, "Constant_2"))["vanished"], "constant-folded");
  EXPECT_EQ((*node_named(plain, "Identity_6"))["layer"], nullptr);
  EXPECT_EQ((*node_named(plain, "/attn/Softmax"))["vanished"], "foreign-node");
  EXPECT_EQ(plain["disagreements"].size(), 3u);
}

// The v8 fixture has no Metadata: nodes are found by layer name. Its files
// record the precision (FP32+FP16) but not the release.
TEST(OverlayCli, NamesOnlyEngineAndTheRuntimeItRecords) {
  std::string dir = temp_dir("OverlayCli.NamesOnlyEngineAndTheRuntimeItRecords");
  std::string model = save_v8_tiny_model(dir + "/tiny.onnx");
  auto r = run_trtlens({"report", model, "--engine", fixture("v8/tiny.onnx.engine"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["runtime"]["precision"], "fp16");
  EXPECT_EQ(doc["runtime"]["precision_source"], "build metadata (FP32+FP16)");
  EXPECT_NE(doc["runtime"]["release_source"].get<std::string>().find("do not record"), std::string::npos);
  EXPECT_EQ((*node_named(doc, "relu1"))["layer"], "conv1 + relu1");
  EXPECT_EQ((*node_named(doc, "relu1"))["match"], "name");
  EXPECT_EQ((*node_named(doc, "softmax"))["precision"], "FP16");
  EXPECT_EQ((*node_named(doc, "flatten"))["vanished"], "not-found");
  EXPECT_EQ(doc["summary"]["in_layers"], 5);
  // --trt and --precision win over the files.
  auto given = run_trtlens({"report", model, "--engine", fixture("v8/tiny.onnx.engine"), "--format", "json", "--trt",
                            "8.6", "--precision", "fp32"});
  ASSERT_EQ(given.exit_code, 0) << given.err;
  auto g = json::parse(given.out);
  EXPECT_EQ(g["runtime"]["release"], "8.6");
  EXPECT_EQ(g["runtime"]["precision"], "fp32");
  // FP16 layers against an FP32 prediction: each compared node differs.
  EXPECT_EQ(g["disagreements"].size(), g["summary"]["compared"].get<size_t>());
}

TEST(OverlayCli, TextAndMarkdownListTheDisagreements) {
  std::string dir = temp_dir("OverlayCli.TextAndMarkdownListTheDisagreements");
  std::string model = save_overlay_fixture_model(dir + "/overlay.onnx");
  auto t = run_trtlens({"report", model, "--engine", kEngine, "--format", "text"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("Disagreements with check (TensorRT 8.6 best)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("fallback-not-predicted"), std::string::npos);
  EXPECT_NE(t.out.find("constant-folded (read by 'Reshape_7')"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("note: 1 of 10 engine layers name no node"), std::string::npos) << t.out;
  auto md = run_trtlens({"report", model, "--engine", kEngine, "--format", "markdown", "-o", dir + "/o.md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  std::string text = read_text(dir + "/o.md");
  EXPECT_NE(text.find("#### Disagreements with check"), std::string::npos) << text;
  EXPECT_NE(text.find("unsupported-but-built"), std::string::npos);
}

TEST(OverlayCli, PageCarriesTheEngineAndOpensOnItsRuntime) {
  std::string dir = temp_dir("OverlayCli.PageCarriesTheEngineAndOpensOnItsRuntime");
  std::string model = save_overlay_fixture_model(dir + "/overlay.onnx");
  auto r = run_trtlens({"report", model, "--engine", kEngine, "-o", dir + "/page.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json d = page_data(read_text(dir + "/page.html"));
  ASSERT_TRUE(d.is_object());
  const json& e = d["engine"];
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(d["releases"][e["release"].get<size_t>()]["name"], "8.6");
  EXPECT_EQ(d["precisions"][e["precision"].get<size_t>()], "best");
  EXPECT_EQ(d["initial"], json::array({e["release"], e["precision"]}));
  // of[graph][position] = [layers, match, vanished, folded_into]; Conv_0 is node 0.
  const json& conv = e["of"][0][0];
  EXPECT_EQ(e["layers"][conv[0][0].get<size_t>()][0], "Conv_0 + Relu_1");
  EXPECT_EQ(e["match_names"][conv[1].get<size_t>()], "metadata");
  EXPECT_EQ(e["vanished_names"][e["of"][0][2][2].get<size_t>()], "constant-folded");
  EXPECT_EQ(e["disagreements"].size(), 3u);
  // Without --engine the page has none.
  auto plain = run_trtlens({"report", model, "-o", dir + "/plain.html"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(page_data(read_text(dir + "/plain.html"))["engine"].is_null());
}

TEST(OverlayCli, MissingEngineFilesAreOneLineAndWriteNothing) {
  std::string dir = temp_dir("OverlayCli.MissingEngineFilesAreOneLineAndWriteNothing");
  std::string model = save_overlay_fixture_model(dir + "/overlay.onnx");
  auto r = run_trtlens({"report", model, "--engine", dir + "/absent.onnx.engine", "-o", dir + "/page.html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("absent.onnx.engine"), std::string::npos) << r.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"overlay.onnx"});
}

TEST(OverlayCli, AnotherModelsEngineIsBadInput) {
  std::string dir = temp_dir("OverlayCli.AnotherModelsEngineIsBadInput");
  std::string model = save_overlay_fixture_model(dir + "/overlay.onnx");
  for (const char* format : {"html", "json"}) {
    auto r = run_trtlens({"report", model, "--engine", fixture("v8/tiny.onnx.engine"), "--format", format, "-o",
                          dir + "/out"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("tiny.onnx.engine.graph.json: no layer of engine"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is it the engine of another model?"), std::string::npos) << r.err;
  }
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"overlay.onnx"});
}

TEST(OverlayCli, UsageErrors) {
  std::string dir = temp_dir("OverlayCli.UsageErrors");
  std::string model = save_overlay_fixture_model(dir + "/overlay.onnx");
  auto no_engine = run_trtlens({"report", model, "--format", "json"});
  EXPECT_EQ(no_engine.exit_code, 2);
  EXPECT_NE(no_engine.err.find("--engine"), std::string::npos) << no_engine.err;
  auto bad_release = run_trtlens({"report", model, "--engine", kEngine, "--format", "json", "--trt", "8.7"});
  EXPECT_EQ(bad_release.exit_code, 2);
  EXPECT_EQ(lines(bad_release.err), 1u) << bad_release.err;
  auto bad_format = run_trtlens({"report", model, "--engine", kEngine, "--format", "csv"});
  EXPECT_EQ(bad_format.exit_code, 2);
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"overlay.onnx"});
}

// `engine report PLAN --model MODEL` carries the same overlay document per plan.
TEST(OverlayCli, EngineReportWithTheModel) {
  std::string dir = temp_dir("OverlayCli.EngineReportWithTheModel");
  std::string model = save_overlay_fixture_model(dir + "/overlay.onnx");
  auto r = run_trtlens({"engine", "report", kEngine, "--model", model, "-o", dir + "/card.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json d = engine_data(read_text(dir + "/card.html"));
  const json& o = d["plans"][0]["overlay"];
  EXPECT_EQ(o["schema_version"], 1);
  EXPECT_EQ(o["summary"]["in_layers"], 11);
  EXPECT_EQ(o["disagreements"].size(), 3u);
  EXPECT_EQ(o["runtime"]["precision"], "best");
  // --precision is the comparison's, as in report --engine.
  auto int8 = run_trtlens({"engine", "report", kEngine, "--model", model, "--precision", "int8", "-o", dir + "/i.html"});
  ASSERT_EQ(int8.exit_code, 0) << int8.err;
  // Without --model there is no overlay, and --trt alone is a usage error.
  auto plain = run_trtlens({"engine", "report", kEngine, "-o", dir + "/plain.html"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(engine_data(read_text(dir + "/plain.html"))["plans"][0].contains("overlay"));
  auto no_model = run_trtlens({"engine", "report", kEngine, "--trt", "8.6", "-o", dir + "/x.html"});
  EXPECT_EQ(no_model.exit_code, 2);
  EXPECT_NE(no_model.err.find("--model"), std::string::npos) << no_model.err;
  // Another model's engine: one line, nothing written.
  auto other = run_trtlens({"engine", "report", fixture("v8/tiny.onnx.engine"), "--model", model, "-o", dir + "/y.html"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(lines(other.err), 1u) << other.err;
  EXPECT_FALSE(fs::exists(dir + "/y.html"));
  EXPECT_FALSE(fs::exists(dir + "/x.html"));
}
