// Hostile engine folders (issue 19's attack campaign): truncated and wrong-typed
// files of each kind, patterns and names that blew std::regex's stack, logs of
// millions of lines, graphs too big to lay out. Each ends with a result or one
// line naming the file (or option) and exit 2; never a signal.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/overlay_models.h"
#include "support/paths.h"

namespace fs = std::filesystem;
using trtlens::test::read_text;
using trtlens::test::run_trtlens;
using trtlens::test::RunResult;
using trtlens::test::write_text;

namespace {

std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }

// A copy of tests/fixtures/engine/v8 (graph, profile, timing and both metadata
// files) in a fresh folder; returns the plan's prefix.
std::string copy_tiny_plan(const std::string& test_name) {
  std::string dir = trtlens::test::temp_dir(test_name);
  for (const char* ext : {".graph.json", ".profile.json", ".timing.json", ".profile.metadata.json",
                          ".build.metadata.json"})
    fs::copy_file(fixture(std::string("v8/tiny.onnx.engine") + ext), dir + "/tiny.onnx.engine" + ext);
  return dir + "/tiny.onnx.engine";
}

// A plan of `n` PointWise layers in a chain (layer_0 ... layer_<n-1>), the
// first named `first_name` when given; returns its prefix.
std::string chain_plan(const std::string& dir, int n, const std::string& first_name = "") {
  using nlohmann::json;
  auto t = [](const std::string& name) {
    return json{{"Name", name}, {"Dimensions", {1, 8, 4, 4}}, {"Format/Datatype", "Row major linear FP32"}};
  };
  json layers = json::array();
  for (int i = 0; i < n; ++i)
    layers.push_back({{"Name", i == 0 && !first_name.empty() ? first_name : "layer_" + std::to_string(i)},
                      {"LayerType", "PointWiseV2"},
                      {"ParameterType", "PointWise"},
                      {"Inputs", {t(i ? "t" + std::to_string(i - 1) : "in")}},
                      {"Outputs", {t(i == n - 1 ? "out" : "t" + std::to_string(i))}}});
  write_text(dir + "/chain.onnx.engine.graph.json", json{{"Layers", layers}, {"Bindings", {"in", "out"}}}.dump());
  return dir + "/chain.onnx.engine";
}

void expect_refusal_naming(const RunResult& r, const std::string& file, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_EQ(r.out, "") << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << what << ": " << r.err;
}

}  // namespace

// The 8 bytes {"a": {} as build.metadata.json made every engine subcommand and
// report --engine SIGSEGV: simdjson's iterator was used after the lookup of the
// first section failed.
TEST(EngineHostile, TruncatedBuildMetadataIsRefusedByEveryCommand) {
  std::string plan = copy_tiny_plan("EngineHostile.TruncatedMetadata");
  std::string meta = plan + ".build.metadata.json";
  write_text(meta, R"({"a": {})");
  std::string dir = fs::path(plan).parent_path().string();
  std::string model = trtlens::test::save_v8_tiny_model(dir + "/tiny.onnx");
  const std::vector<std::vector<std::string>> commands = {
      {"engine", "summary", plan},
      {"engine", "lint", plan},
      {"engine", "layers", plan},
      {"engine", "graph", plan, "-o", dir + "/g.dot"},
      {"engine", "report", plan, "-o", dir + "/e.html"},
      {"report", model, "--engine", plan, "-o", dir + "/r.html"},
  };
  for (const auto& cmd : commands) expect_refusal_naming(run_trtlens(cmd), meta, cmd[1]);
  for (const char* out : {"g.dot", "e.html", "r.html"}) EXPECT_FALSE(fs::exists(dir + "/" + out)) << out;
}

// Each reader (graph, profile, timing, both metadata files, log) refuses a
// truncated file, a file of the wrong JSON type and text after the document.
TEST(EngineHostile, TruncatedAndWrongTypedFilesOfEachKindAreRefused) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {".build.metadata.json", R"({"model_options": {"Format": "ONNX"}, "build_options": {"Precision": "FP16")"},
      {".build.metadata.json", R"({"model_options": {"Format": "ONNX"})"},  // cut after the section it needs
      {".build.metadata.json", R"(["model_options", "build_options"])"},
      {".build.metadata.json", R"({"model_options": {}}})"},
      {".profile.metadata.json", R"({"device_information": {"Selected Device": "GPU", "SMs": [1, 2)"},
      {".profile.metadata.json", R"("device_information")"},
      {".profile.metadata.json", R"({"performance_summary": {}} {"device_information": {}})"},
      {".graph.json", R"({"Layers": [{"Name": "conv1 + relu1", "Inputs": [{"Name": "a"})"},
      {".graph.json", R"({"Layers": [{"Name": "conv1"}]}])"},
      {".graph.json", R"({"Layers": [{"Name": "conv1"}]} {"Layers": []})"},
      {".graph.json", R"([{"Name": "conv1"}, 5])"},  // a bare list is a layout (11.1's reader takes it); a number in it is not
      {".graph.json", R"({"layers": {"Name": "conv1"}})"},
      {".profile.json", R"([{ "count" : 100 }, { "name" : "conv2", "timeMs" : 1, "averageMs" : 0.1)"},
      {".profile.json", R"({"name": "conv2", "averageMs": 0.1})"},
      {".timing.json", R"([{"latencyMs": 0.3}, {"latencyMs": )"},
      {".timing.json", R"({"latencyMs": 0.3})"},
      {".timing.json", R"([{"latencyMs": 0.3}]])"},
      {".build.log", "[11/20/2026-09:14:02] [I] === Mod"},  // cut before any section or banner
  };
  int n = 0;
  for (const auto& [ext, text] : cases) {
    std::string plan = copy_tiny_plan("EngineHostile.Files" + std::to_string(n++));
    std::string file = plan + ext;
    write_text(file, text);
    for (const char* cmd : {"summary", "lint"})
      expect_refusal_naming(run_trtlens({"engine", cmd, plan}), file, std::string(cmd) + " " + ext + " " + text);
  }
}

// A 50,000-character layer name made --select 'Conv.*' and --highlight SIGSEGV:
// std::regex recursed once per character. RE2 matches in linear time.
TEST(EngineHostile, PatternsMatchAVeryLongLayerName) {
  std::string dir = trtlens::test::temp_dir("EngineHostile.LongName");
  std::string plan = chain_plan(dir, 3, "Conv_0 " + std::string(50000, 'x'));
  for (const char* option : {"--select", "--highlight"}) {
    std::string out = dir + "/g" + option + ".svg";
    auto r = run_trtlens({"engine", "graph", plan, "-o", out, option, "Conv.*"});
    ASSERT_EQ(r.exit_code, 0) << option << ": " << r.err;
    EXPECT_NE(read_text(out).find("<svg"), std::string::npos) << option;
  }
  auto hl = run_trtlens({"engine", "graph", plan, "-o", dir + "/hl.dot", "--highlight", "x{1000}$"});
  ASSERT_EQ(hl.exit_code, 0) << hl.err;
  EXPECT_NE(read_text(dir + "/hl.dot").find("penwidth=5"), std::string::npos);  // the long name matched
}

// A pattern RE2 does not take is one line naming the option, exit 2, nothing
// written: a syntax error, a backreference (RE2 has none), a newline in the pattern.
TEST(EngineHostile, BadPatternsAreOneLineNamingTheOption) {
  std::string dir = trtlens::test::temp_dir("EngineHostile.BadPattern");
  std::string plan = chain_plan(dir, 3);
  for (const char* option : {"--select", "--highlight"})
    for (const char* pattern : {"(", "(a)\\1", "layer_(\n"}) {
      auto r = run_trtlens({"engine", "graph", plan, "-o", dir + "/g.svg", option, pattern});
      EXPECT_EQ(r.exit_code, 2) << option << " " << pattern;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find(std::string(option) + " "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("not a regular expression"), std::string::npos) << r.err;
    }
  EXPECT_FALSE(fs::exists(dir + "/g.svg"));
}

// A 256 MB log of short warning lines took 3.4 GB and printed 436 MB: every
// line was kept. A few MB show the same: the first 1,000 warnings and section
// lines are kept and the rest counted.
TEST(EngineHostile, LogOfManyShortLinesKeepsTheFirstThousand) {
  std::string dir = trtlens::test::temp_dir("EngineHostile.LongLog");
  std::string log = "&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --loadEngine=e\n"
                    "[11/20/2026-09:14:02] [I] === Device Information ===\n";
  for (int i = 0; i < 5000; ++i) log += "[I] Key " + std::to_string(i) + ": value\n";
  log += "[I] === Performance summary ===\n[I] Throughput: 100 qps\n";
  for (int i = 0; i < 200000; ++i) log += "[W] * warning " + std::to_string(i) + "\n[W] more of it\n";
  write_text(dir + "/many.log", log);  // 6.4 MB
  auto r = run_trtlens({"engine", "summary", fixture("v8/tiny.onnx.engine"), "--log", dir + "/many.log"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: warning 999 more of it\n"), std::string::npos);
  EXPECT_EQ(r.out.find("warning 1000"), std::string::npos);
  EXPECT_NE(r.out.find("  warning: ... and 199000 more (the first 1000 are kept)\n"), std::string::npos);
  EXPECT_LT(r.out.size(), 200000u);
  auto j = nlohmann::json::parse(
      run_trtlens({"engine", "summary", fixture("v8/tiny.onnx.engine"), "--log", dir + "/many.log", "--format", "json"}).out);
  EXPECT_EQ(j["trtexec_performance"]["warnings"].size(), 1000u);
  EXPECT_EQ(j["trtexec_performance"]["warnings_left_out"], 199000);
  EXPECT_EQ(j["device"].size(), 1000u);
  EXPECT_TRUE(j["device"].contains("Key 999"));
  bool noted = false;
  for (const auto& n : j["notes"]) noted |= n.get<std::string>().find("4000 lines of sections past the first 1000") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"];
}

// engine graph on a 20,000-layer plan ran for minutes: past the cap (1,500
// layers, the report's --graph-max-layers) it is refused at once with the
// ways out (--select/--hops, .dot, engine report, --force).
TEST(EngineHostile, GraphPastTheLayerCapIsRefusedWithAHint) {
  std::string dir = trtlens::test::temp_dir("EngineHostile.GraphCap");
  std::string plan = chain_plan(dir, 1501);
  auto r = run_trtlens({"engine", "graph", plan, "-o", dir + "/g.svg"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const char* hint : {"chain.onnx.engine.graph.json", "1501 layers", "1500", "--select", "--hops", ".dot",
                           "trtlens engine report", "--force"})
    EXPECT_NE(r.err.find(hint), std::string::npos) << hint << ": " << r.err;
  EXPECT_FALSE(fs::exists(dir + "/g.svg"));
  // Narrowed, or as DOT text (no layout), it is drawn.
  auto sel = run_trtlens({"engine", "graph", plan, "-o", dir + "/s.svg", "--select", "^layer_1000$", "--hops", "2"});
  EXPECT_EQ(sel.exit_code, 0) << sel.err;
  EXPECT_EQ(sel.err.find("laying out"), std::string::npos) << sel.err;  // no progress line under the cap
  // --force lays it out, saying so on stderr before and after.
  auto forced = run_trtlens({"engine", "graph", plan, "-o", dir + "/g.svg", "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(fs::exists(dir + "/g.svg"));
  EXPECT_NE(forced.err.find("laying out 1503 boxes"), std::string::npos) << forced.err;  // + engine input and output
  EXPECT_NE(forced.err.find("laid out in"), std::string::npos) << forced.err;
  auto dot = run_trtlens({"engine", "graph", plan, "-o", dir + "/g.dot"});
  EXPECT_EQ(dot.exit_code, 0) << dot.err;
}
