// `trtlens engine ...` run as a user would: outputs, formats, exit codes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "support/paths.h"

namespace fs = std::filesystem;
using trtlens::test::read_text;
using trtlens::test::run_trtlens;
using nlohmann::json;

namespace {
std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }
}  // namespace

TEST(EngineCli, SummaryJsonIsThePublicInterface) {
  auto r = run_trtlens({"engine", "summary", fixture("v8/tiny.onnx.engine"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["layers"], 6);
  EXPECT_NEAR(j["total_latency_ms"].get<double>(), 0.32, 1e-9);
  EXPECT_EQ(j["by_type"][0]["type"], "Convolution");
  EXPECT_EQ(j["by_type"][0]["count"], 2);
  EXPECT_TRUE(j["by_type"][0].contains("latency_ms"));
  EXPECT_TRUE(j["by_type"][0].contains("percent"));
  EXPECT_EQ(j["by_precision"][0]["precision"], "FP16");
  EXPECT_EQ(j["reformat"]["count"], 2);
  EXPECT_EQ(j["reformat"]["layers"].size(), 2u);
  EXPECT_EQ(j["slowest"][0]["name"], "conv2");
  EXPECT_EQ(j["slowest"][0]["type"], "Convolution");
  EXPECT_EQ(j["device"]["Selected Device"], "Hand-written GPU");
  EXPECT_EQ(j["builder"]["Precision"], "FP32+FP16");
  EXPECT_EQ(j["partial"], false);
}

TEST(EngineCli, SummaryTextCsvMarkdown) {
  auto t = run_trtlens({"engine", "summary", fixture("v8/tiny.onnx.engine")});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("Layers: 6 (1 NoOps folded)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Hand-written GPU"), std::string::npos);
  EXPECT_EQ(t.out.find("\x1b["), std::string::npos);  // not a terminal: no colour
  auto c = run_trtlens({"engine", "summary", fixture("v8/tiny.onnx.engine"), "--format", "csv"});
  EXPECT_EQ(c.out.rfind("section,name,count,latency_ms,percent\r\n", 0), 0u) << c.out;
  EXPECT_NE(c.out.find("type,Convolution,2,0.250000,78.125"), std::string::npos) << c.out;
  auto m = run_trtlens({"engine", "summary", fixture("v8/tiny.onnx.engine"), "--format", "markdown"});
  EXPECT_NE(m.out.find("| Convolution |"), std::string::npos) << m.out;
}

TEST(EngineCli, PartialResultsAreMarked) {
  auto r = run_trtlens({"engine", "summary", fixture("bad/untimed.onnx.engine"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["partial"], true);
  EXPECT_EQ(j["untimed_layers"], 1);
  auto t = run_trtlens({"engine", "summary", fixture("names-only/plain.onnx.engine")});
  EXPECT_NE(t.out.find("Partial results"), std::string::npos);
  EXPECT_NE(t.out.find("--profilingVerbosity=detailed"), std::string::npos);
}

TEST(EngineCli, BadInputExitsTwoWithOneLine) {
  for (const char* f : {"bad/invalid.graph.json", "bad/unknown-layout.graph.json", "bad/mismatch.onnx.engine",
                        "no/such/plan"}) {
    auto r = run_trtlens({"engine", "summary", fixture(f)});
    EXPECT_EQ(r.exit_code, 2) << f;
    EXPECT_EQ(r.out, "") << f;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("trtlens: ", 0), 0u) << r.err;
  }
}

TEST(EngineCli, LayersSortAndFilter) {
  auto r = run_trtlens({"engine", "layers", fixture("v8/tiny.onnx.engine"), "--sort", "latency", "--filter",
                        "type=Convolution", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  ASSERT_EQ(j["layers"].size(), 2u);
  EXPECT_EQ(j["layers"][0]["name"], "conv2");
  EXPECT_EQ(j["layers"][1]["name"], "conv1 + relu1");
  EXPECT_EQ(j["layers"][0]["inputs"][0]["precision"], "FP16");
  EXPECT_EQ(j["layers"][0]["inputs"][0]["layout"], "HWC8");
  EXPECT_EQ(j["layers"][0]["attributes"]["OutMaps"], 20);
  auto t = run_trtlens({"engine", "layers", fixture("v8/tiny.onnx.engine"), "--filter", "precision=fp32"});
  EXPECT_NE(t.out.find("Reformatting CopyNode for Input"), std::string::npos);
  EXPECT_EQ(t.out.find("conv2"), std::string::npos);
  auto bad = run_trtlens({"engine", "layers", fixture("v8/tiny.onnx.engine"), "--filter", "colour=red"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(EngineCli, LintFindingsAndFailOn) {
  auto r = run_trtlens({"engine", "lint", fixture("v86-qdq/qdq.onnx.engine"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  bool dangling = false;
  for (const auto& f : j["findings"]) {
    EXPECT_TRUE(f.contains("layer") && f.contains("severity") && f.contains("message") && f.contains("suggestion"));
    dangling |= f["linter"] == "qdq-dangling" && f["layer"] == "scale_q";
  }
  EXPECT_TRUE(dangling);
  auto fail = run_trtlens({"engine", "lint", fixture("v86-qdq/qdq.onnx.engine"), "--fail-on", "warning"});
  EXPECT_EQ(fail.exit_code, 1);
  auto list = run_trtlens({"engine", "lint", "--list"});
  EXPECT_NE(list.out.find("qdq-dangling"), std::string::npos);
}

TEST(EngineCli, CompareMatchesLayersByName) {
  auto r = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("bad/untimed.onnx.engine"),
                        "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  ASSERT_EQ(j["plans"].size(), 2u);
  EXPECT_NEAR(j["plans"][0]["total_latency_ms"].get<double>(), 0.32, 1e-9);
  EXPECT_NEAR(j["plans"][1]["total_latency_ms"].get<double>(), 0.25, 1e-9);
  bool found = false;
  for (const auto& l : j["layers"])
    if (l["name"] == "conv2") {
      found = true;
      EXPECT_NEAR(l["latency_ms"][0].get<double>(), 0.2, 1e-12);
      EXPECT_NEAR(l["latency_ms"][1].get<double>(), 0.2, 1e-12);
    }
  EXPECT_TRUE(found);
  auto csv = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("bad/untimed.onnx.engine"),
                          "--format", "csv"});
  EXPECT_EQ(csv.out.rfind("section,name,plan,count,latency_ms\r\n", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("layer,conv2,untimed.onnx.engine,1,0.200000"), std::string::npos) << csv.out;
  auto one = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine")});
  EXPECT_EQ(one.exit_code, 2);
}

// The layer diff people script against: v8 (FP16) against v8-fp32, two plans
// with the same file name in different folders. Rows: layers aligned by type
// and shapes (conv1 + relu1 ↔ Conv_0 + Relu_1 despite the rename), softmax by
// name (its input shape differs), the FP16 plan's reformats unmatched.
TEST(EngineCli, CompareJsonMatchesTheGoldenFile) {
  const std::string golden_path = std::string(TRTLENS_SOURCE_DIR) + "/tests/cli/golden/engine_compare.json";
  auto r = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("v8-fp32/tiny.onnx.engine"),
                        "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::ordered_json::parse(r.out);
  // Pinned apart from the build: the trtlens release and the knowledge base's fingerprint.
  doc["trtlens_version"] = "0.0.0";
  doc["kb_fingerprint"] = std::string(64, '0');
  if (std::getenv("TRTLENS_UPDATE_GOLDEN")) {
    trtlens::test::write_text(golden_path, doc.dump(2) + "\n");
    GTEST_SKIP() << "golden file rewritten";
  }
  EXPECT_EQ(doc, nlohmann::ordered_json::parse(read_text(golden_path)));
  EXPECT_EQ(doc["plans"][0]["label"], "v8/tiny.onnx.engine");
  EXPECT_EQ(doc["plans"][1]["label"], "v8-fp32/tiny.onnx.engine");
  EXPECT_EQ(doc["plans"][1]["end_to_end"]["throughput_qps"], 2000.5);
  std::map<std::string, std::string> by;
  for (const auto& l : doc["layers"]) by[l["name"]] = l["matched_by"];
  EXPECT_EQ(by["conv1 + relu1"], "signature");
  EXPECT_EQ(by["softmax"], "name");
  EXPECT_EQ(by["Reformatting CopyNode for Input Tensor 0 to conv1 + relu1"], "");
  EXPECT_EQ(doc["matched_in_all"], 4);
}

TEST(EngineCli, CompareLabelsAndMismatchFilters) {
  auto t = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("v8-fp32/tiny.onnx.engine"),
                        "--label", "fp16", "--label", "fp32"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("[1] fp16  [2] fp32"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("end-to-end median, ms (timing.json)"), std::string::npos);
  EXPECT_NE(t.out.find("sum of layers, ms (profile.json)"), std::string::npos);
  auto rows = [&](const std::string& what) {
    auto r = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("v8-fp32/tiny.onnx.engine"),
                          "--mismatch", what, "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> names;
    auto doc = json::parse(r.out);
    for (const auto& l : doc["layers"]) names.push_back(l["name"]);
    return names;
  };
  EXPECT_EQ(rows("tactic"), (std::vector<std::string>{"conv1 + relu1", "conv2"}));
  EXPECT_EQ(rows("precision").size(), 4u);
  EXPECT_EQ(rows("unmatched").size(), 2u);
  EXPECT_EQ(rows("tactic,unmatched").size(), 4u);
  auto bad = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("v8-fp32/tiny.onnx.engine"),
                          "--mismatch", "colour"});
  EXPECT_EQ(bad.exit_code, 2);
  auto many = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("v8-fp32/tiny.onnx.engine"),
                           "--label", "a", "--label", "b", "--label", "c"});
  EXPECT_EQ(many.exit_code, 2);
}

// The standard Q/DQ A/B case: the two MobileNet QAT engines name every fused
// layer differently (Q/DQ node numbers shift); aligned by type and shapes,
// every layer of the smaller plan finds its partner.
TEST(EngineCli, CompareAlignsTheMobileNetQatSamples) {
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty()) GTEST_SKIP() << "no ../shared";
  const std::string s = shared + "/engine-samples/";
  auto r = run_trtlens({"engine", "compare", s + "mobilenet-qat/mobilenet.qat.onnx.engine",
                        s + "mobilenet-v2-residuals-qat/mobilenet_v2_residuals.qat.onnx.engine", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["plans"][0]["layers"], 72);
  EXPECT_EQ(j["plans"][1]["layers"], 57);
  EXPECT_EQ(j["matched_in_all"], 57);
  int unmatched_qdq = 0;
  for (const auto& l : j["layers"])
    if (l["matched_by"] == "") unmatched_qdq += l["type"] == "Reformat";
  EXPECT_EQ(unmatched_qdq, 15);
  // Same file names in two folders: labelled by folder.
  auto rn = run_trtlens({"engine", "compare", s + "resnet18-pt-a100-fp32/resnet.onnx.engine",
                         s + "resnet18-pt-a100-fp16/resnet.onnx.engine", "--format", "json"});
  ASSERT_EQ(rn.exit_code, 0) << rn.err;
  auto k = json::parse(rn.out);
  EXPECT_EQ(k["plans"][0]["label"], "resnet18-pt-a100-fp32/resnet.onnx.engine");
  EXPECT_EQ(k["plans"][1]["label"], "resnet18-pt-a100-fp16/resnet.onnx.engine");
  EXPECT_GT(k["plans"][1]["end_to_end"]["timing_median_ms"].get<double>(), 0);
  EXPECT_GE(k["matched_in_all"], 20);
}

TEST(EngineCli, GraphWritesSvgColouredByPrecision) {
  std::string dir = trtlens::test::temp_dir("EngineCli.Graph");
  std::string out = dir + "/plan.svg";
  auto r = run_trtlens({"engine", "graph", fixture("v8/tiny.onnx.engine"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = read_text(out);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("conv2"), std::string::npos);
  EXPECT_NE(svg.find("#ff0000"), std::string::npos);  // FP32 tensor edge
  EXPECT_NE(svg.find("#ffa500"), std::string::npos);  // FP16 tensor edge
  EXPECT_NE(svg.find("<title>"), std::string::npos);
}

// Unfused Q/DQ (reformats of Origin QDQ) are filled as TREx fills them: Quantize's olive, not Reformat's cyan.
TEST(EngineCli, GraphColoursUnfusedQdqAsTrexDoes) {
  std::string dir = trtlens::test::temp_dir("EngineCli.GraphQdq");
  auto r = run_trtlens({"engine", "graph", fixture("v86-qdq/qdq.onnx.engine"), "-o", dir + "/g.dot"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string dot = read_text(dir + "/g.dot");
  EXPECT_NE(dot.find("#6B8E23"), std::string::npos) << dot.substr(0, 2000);
}

// The output's extension picks the format; an unknown one is a usage error
// that writes nothing (it used to write SVG into x.png and exit 0).
TEST(EngineCli, GraphFormatFollowsTheExtension) {
  std::string dir = trtlens::test::temp_dir("EngineCli.GraphFormats");
  const std::pair<const char*, std::string> magic[] = {
      {"svg", "<?xml"}, {"png", "\x89PNG"}, {"pdf", "%PDF"}, {"dot", "digraph"}};
  for (const auto& [ext, head] : magic) {
    std::string out = dir + "/plan." + ext;
    auto r = run_trtlens({"engine", "graph", fixture("v8/tiny.onnx.engine"), "-o", out});
    ASSERT_EQ(r.exit_code, 0) << ext << ": " << r.err;
    EXPECT_EQ(read_text(out).rfind(head, 0), 0u) << ext;
  }
  auto bad = run_trtlens({"engine", "graph", fixture("v8/tiny.onnx.engine"), "-o", dir + "/plan.jpg"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find(".svg, .png, .pdf or .dot"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir + "/plan.jpg"));
}

TEST(EngineCli, GraphColourHighlightAndSubgraph) {
  std::string dir = trtlens::test::temp_dir("EngineCli.GraphOptions");
  std::string out = dir + "/plan.dot";
  auto r = run_trtlens({"engine", "graph", fixture("v8/tiny.onnx.engine"), "-o", out, "--color-by", "precision",
                        "--highlight", "^conv2$"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string dot = read_text(out);
  EXPECT_NE(dot.find("fillcolor=\"#FFA500\""), std::string::npos);  // FP16 layers filled orange
  EXPECT_EQ(dot.find("fillcolor=\"#4682B4\""), std::string::npos);  // no type colour
  size_t outlined = dot.find("penwidth=5");
  ASSERT_NE(outlined, std::string::npos);  // conv2 outlined, and only conv2
  EXPECT_EQ(dot.find("penwidth=5", outlined + 1), std::string::npos);
  EXPECT_NE(dot.find("#FF00FF"), std::string::npos);
  // The neighbourhood of pool: pool, conv2 before it, softmax after it.
  auto sub = run_trtlens({"engine", "graph", fixture("v8/tiny.onnx.engine"), "-o", out, "--select", "^pool$", "--hops", "1"});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  dot = read_text(out);
  EXPECT_NE(dot.find("3 of 6 layers"), std::string::npos) << dot;
  EXPECT_NE(dot.find("conv2"), std::string::npos);
  EXPECT_EQ(dot.find("conv1 + relu1"), std::string::npos);
  for (std::vector<std::string> args : {std::vector<std::string>{"--select", "("},
                                        std::vector<std::string>{"--select", "no-such-layer"},
                                        std::vector<std::string>{"--hops", "2"},
                                        std::vector<std::string>{"--color-by", "tactic"}}) {
    std::vector<std::string> cmd{"engine", "graph", fixture("v8/tiny.onnx.engine"), "-o", dir + "/x.svg"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto e = run_trtlens(cmd);
    EXPECT_EQ(e.exit_code, 2) << args[0];
    EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
  }
}

TEST(EngineCli, ReportIsSelfContained) {
  std::string dir = trtlens::test::temp_dir("EngineCli.Report");
  std::string out = dir + "/report.html";
  auto r = run_trtlens({"engine", "report", fixture("v8/tiny.onnx.engine"), fixture("v86-qdq/qdq.onnx.engine"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = read_text(out);
  EXPECT_NE(html.find("\"regions\":[{"), std::string::npos);  // the graph, laid out
  EXPECT_NE(html.find("engine-data"), std::string::npos);
  EXPECT_NE(html.find("pool \\\"a\\\""), std::string::npos);  // data inlined as JSON
  EXPECT_EQ(html.find("{{"), std::string::npos);         // every placeholder filled
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org"));  // no fetches, only SVG namespaces
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(EngineCli, RealSampleSummary) {
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty()) GTEST_SKIP() << "no ../shared";
  auto r = run_trtlens({"engine", "summary", shared + "/engine-samples/resnet18-pt-a100-fp16/resnet.onnx.engine",
                        "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["layers"], 25);  // 36 layers, 11 NoOps folded
  EXPECT_EQ(j["device"]["Selected Device"], "NVIDIA A100 80GB PCIe");
  EXPECT_EQ(j["reformat"]["count"], 2);
}

TEST(EngineCli, ReportEscapesHostileLayerNames) {
  std::string dir = trtlens::test::temp_dir("EngineCli.ReportEscapes");
  const std::string evil = "<img src=x onerror=alert(1)></script></template>{{DATA}}";
  json layer = {{"Name", evil},
                {"LayerType", "CaskConvolution"},
                {"ParameterType", "Convolution"},
                {"Inputs", {{{"Name", "in"}, {"Dimensions", {1, 8, 4, 4}}, {"Format/Datatype", "Row major linear FP32"}}}},
                {"Outputs", {{{"Name", "out"}, {"Dimensions", {1, 8, 4, 4}}, {"Format/Datatype", "Row major linear FP32"}}}}};
  trtlens::test::write_text(dir + "/evil.onnx.engine.graph.json",
                            json{{"Layers", {layer}}, {"Bindings", {"in", "out"}}}.dump());
  auto r = run_trtlens({"engine", "report", dir + "/evil.onnx.engine", "-o", dir + "/r.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = read_text(dir + "/r.html");
  size_t scripts = 0;
  for (size_t p = 0; (p = html.find("</script>", p)) != std::string::npos; ++p) ++scripts;
  EXPECT_EQ(scripts, 2u);  // the data block and the code block, nothing from the name
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("</template>{{DATA}}"), std::string::npos);
}

// ---- analytics, trtexec logs, big graphs ----

namespace {
// Summary JSON without what depends on where the checkout is.
nlohmann::ordered_json portable(nlohmann::ordered_json j) {
  const std::string root = std::string(TRTLENS_SOURCE_DIR) + "/";
  std::function<void(nlohmann::ordered_json&)> strip = [&](nlohmann::ordered_json& v) {
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      for (size_t p; (p = s.find(root)) != std::string::npos;) s.erase(p, root.size());
      v = s;
    } else if (v.is_structured()) {
      for (auto& x : v) strip(x);
    }
  };
  strip(j);
  return j;
}
void expect_golden(nlohmann::ordered_json doc, const std::string& name) {
  // Pinned apart from the build: the trtlens release and the knowledge base's fingerprint.
  doc["trtlens_version"] = "0.0.0";
  doc["kb_fingerprint"] = std::string(64, '0');
  const std::string path = std::string(TRTLENS_SOURCE_DIR) + "/tests/cli/golden/" + name;
  if (std::getenv("TRTLENS_UPDATE_GOLDEN")) {
    trtlens::test::write_text(path, doc.dump(2) + "\n");
    GTEST_SKIP() << "golden file rewritten";
  }
  EXPECT_EQ(doc, nlohmann::ordered_json::parse(read_text(path))) << name;
}
}  // namespace

TEST(EngineCli, SummaryJsonWithComputeAndLogMatchesTheGoldenFile) {
  auto r = run_trtlens({"engine", "summary", fixture("v86-compute/net.onnx.engine"), "--log",
                        fixture("logs/trtexec-8.6.log"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = portable(nlohmann::ordered_json::parse(r.out));
  EXPECT_EQ(doc["compute"]["layers"], 5);
  EXPECT_EQ(doc["compute"]["macs"], 83064);
  EXPECT_EQ(doc["sources"]["device"], "trtexec log tests/fixtures/engine/logs/trtexec-8.6.log");
  EXPECT_EQ(doc["sources"]["builder"], doc["sources"]["device"]);
  EXPECT_EQ(doc["trtexec_logs"][0]["tensorrt_version"], "8.6.1");
  EXPECT_EQ(doc["trtexec_performance"]["latency_ms"]["percentiles"]["99"], 0.0688477);
  // A100-SXM4-40GB from the log: 5120 / 8 × 1.215 × 2 GB/s.
  EXPECT_NEAR(doc["device_peaks"]["memory_gbps"].get<double>(), 1555.2, 1e-9);
  EXPECT_EQ(doc["io"][1]["dims"], nlohmann::ordered_json({2, 1, 6}));
  expect_golden(doc, "engine_summary_compute.json");
}

TEST(EngineCli, LayersJsonCarriesMemoryAndComputeAndMatchesTheGoldenFile) {
  auto r = run_trtlens({"engine", "layers", fixture("v86-compute/net.onnx.engine"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(doc["layers"].size(), 12u);
  const auto& conv = doc["layers"][1];
  EXPECT_EQ(conv["name"], "conv_a");
  EXPECT_EQ(conv["weights_bytes"], 576);
  EXPECT_EQ(conv["bias_bytes"], 16);
  EXPECT_EQ(conv["footprint_bytes"], 3648);
  EXPECT_EQ(conv["compute"]["macs"], 36864);
  EXPECT_EQ(conv["compute"]["gemm_k"], 36);
  EXPECT_TRUE(doc["layers"][0]["compute"].is_null());  // a reformat
  expect_golden(doc, "engine_layers_compute.json");
}

TEST(EngineCli, LayersComputeAndMemoryViews) {
  auto c = run_trtlens({"engine", "layers", fixture("v86-compute/net.onnx.engine"), "--view", "compute", "--sort", "macs"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  // Only the five convolutions and GEMMs, most MACs first.
  EXPECT_NE(c.out.find("GFLOP/s"), std::string::npos) << c.out;
  EXPECT_LT(c.out.find("conv_a"), c.out.find("fc"));
  EXPECT_LT(c.out.find("fc"), c.out.find("deconv"));
  EXPECT_EQ(c.out.find("PWN("), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("peak memory: Memory Bus Width 1024 bits"), std::string::npos) << c.out;
  auto m = run_trtlens({"engine", "layers", fixture("v86-compute/net.onnx.engine"), "--view", "memory", "--format",
                        "markdown", "--sort", "footprint", "--limit", "1"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.out.find("| footprint |"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("| fc |"), std::string::npos) << m.out;  // 40 KB of FP32 weights
  auto csv = run_trtlens({"engine", "layers", fixture("v86-compute/net.onnx.engine"), "--format", "csv"});
  EXPECT_NE(csv.out.find(",gemm_m,gemm_n,gemm_k,"), std::string::npos);
  auto bad = run_trtlens({"engine", "layers", fixture("v86-compute/net.onnx.engine"), "--view", "roofline"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST(EngineCli, SummaryTextShowsRollUpsPeaksAndTheLog) {
  auto r = run_trtlens({"engine", "summary", fixture("v86-compute/net.onnx.engine"), "--log",
                        fixture("logs/trtexec-8.6.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {"Reformats by origin", "Latency by tactic", "Convolutions and GEMMs: 5 layers, 83.1 kMAC",
                           "PointWise layers by number of fused operations", "Peak memory bandwidth: 1555.2 GB/s",
                           "trtexec log: ", "TensorRT 8.6.1, PASSED, engine built in 12.1507 s",
                           "warning: Throughput may be bound by Enqueue Time", "Inputs: input 2x4x8x8 FP32 LINEAR",
                           "Weights: 41.0 KiB (bias 80 B more)"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
}

TEST(EngineCli, BadLogExitsTwoWithOneLine) {
  std::string dir = trtlens::test::temp_dir("EngineCli.BadLog");
  std::string garbage = dir + "/garbage.log";
  std::string bytes;
  for (int i = 0; i < 70000; ++i) bytes += static_cast<char>((i * 7919) % 256);
  trtlens::test::write_text(garbage, bytes);
  std::string fifo = dir + "/pipe.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string huge = dir + "/huge.log";  // sparse: 2 GiB past the 1 GiB cap, no disk used
  { std::ofstream(huge).close(); }
  fs::resize_file(huge, uint64_t{2} << 30);
  for (const std::string& log : {dir + "/missing.log", dir, garbage, fifo, huge}) {
    auto r = run_trtlens({"engine", "summary", fixture("v8/tiny.onnx.engine"), "--log", log});
    EXPECT_EQ(r.exit_code, 2) << log;
    EXPECT_EQ(r.out, "") << log;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(log), std::string::npos) << r.err;
  }
  // Several plans take no --log: it would be unclear which plan it describes.
  auto c = run_trtlens({"engine", "compare", fixture("v8/tiny.onnx.engine"), fixture("v8-fp32/tiny.onnx.engine"),
                        "--log", fixture("logs/trtexec-8.6.log")});
  EXPECT_EQ(c.exit_code, 2);
}

TEST(EngineCli, ReportDrawsABigGraphOneRegionAtATime) {
  std::string dir = trtlens::test::temp_dir("EngineCli.ReportRegions");
  json layers = json::array();
  for (int i = 0; i < 60; ++i) {
    auto t = [](const std::string& n) {
      return json{{"Name", n}, {"Dimensions", {1, 8, 4, 4}}, {"Format/Datatype", "Row major linear FP32"}};
    };
    json ins = json::array({t(i ? "t" + std::to_string(i - 1) : "in")});
    if (i >= 2 && i % 10 == 5) ins.push_back(t("t" + std::to_string(i - 2)));  // skip connections
    layers.push_back({{"Name", "layer_" + std::to_string(i)}, {"LayerType", "PointWiseV2"}, {"ParameterType", "PointWise"},
                      {"NbOperations", 1}, {"Inputs", ins}, {"Outputs", {t(i == 59 ? "out" : "t" + std::to_string(i))}}});
  }
  trtlens::test::write_text(dir + "/chain.onnx.engine.graph.json",
                            json{{"Layers", layers}, {"Bindings", {"in", "out"}}}.dump());
  auto r = run_trtlens({"engine", "report", dir + "/chain.onnx.engine", "-o", dir + "/r.html", "--graph-max-layers",
                        "20", "--region-layers", "25"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = read_text(dir + "/r.html");
  auto data_of = [](const std::string& page) {
    auto a = page.find("<script id=\"engine-data\" type=\"application/json\">");
    auto b = page.find("</script>", a);
    a = page.find('>', a) + 1;
    return json::parse(page.substr(a, b - a));
  };
  auto graph = data_of(html)["plans"][0]["graph"];
  // 60 layers in regions of 25: 0-24, 25-49, 50-59, each laid out on its own.
  EXPECT_EQ(graph["region_layers"], 25);
  ASSERT_EQ(graph["regions"].size(), 3u);
  std::map<int, std::vector<int>> kinds;  // kind -> refs, in region 2
  std::set<int> drawn;
  for (const auto& it : graph["regions"][1]["items"]) {
    kinds[it[0].get<int>()].push_back(it[1].get<int>());
    EXPECT_GT(it[4].get<int>(), 0);  // laid out: a width and a position
  }
  for (int l : kinds[0]) drawn.insert(l);
  EXPECT_EQ(drawn.size(), 25u);
  EXPECT_EQ(*drawn.begin(), 25);
  EXPECT_EQ(*drawn.rbegin(), 49);
  EXPECT_EQ(kinds[3], std::vector<int>{0});  // entered from region 1 (index 0)...
  EXPECT_EQ(kinds[4], std::vector<int>{2});  // ...and leads to region 3
  EXPECT_TRUE(kinds[1].empty());             // the engine input is in region 1
  for (const auto& e : graph["regions"][1]["edges"]) EXPECT_GE(e[3].size(), 10u) << e;  // routed: spline points and tip
  int inputs = 0, outputs = 0;
  for (const auto& r : graph["regions"])
    for (const auto& it : r["items"]) inputs += it[0] == 1, outputs += it[0] == 2;
  EXPECT_EQ(inputs, 1);
  EXPECT_EQ(outputs, 1);
  // Up to --graph-max-layers the graph stays in one piece.
  auto one = run_trtlens({"engine", "report", dir + "/chain.onnx.engine", "-o", dir + "/one.html"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(data_of(read_text(dir + "/one.html"))["plans"][0]["graph"]["regions"].size(), 1u);
  auto zero = run_trtlens({"engine", "report", dir + "/chain.onnx.engine", "-o", dir + "/z.html", "--region-layers", "0"});
  EXPECT_EQ(zero.exit_code, 2);
}

// TREx's process_engine.py keeps <engine>.build.log and <engine>.profile.log
// beside the JSON files: found by prefix, so compare reads them too.
TEST(EngineCli, LogsBesideThePlanAreFoundByPrefix) {
  std::string dir = trtlens::test::temp_dir("EngineCli.LogsByPrefix");
  for (const char* ext : {".graph.json", ".profile.json", ".build.metadata.json"})
    fs::copy_file(fixture(std::string("v86-compute/net.onnx.engine") + ext), dir + "/net.onnx.engine" + ext);
  fs::copy_file(fixture("logs/trtexec-8.6.log"), dir + "/net.onnx.engine.build.log");
  fs::copy_file(fixture("logs/trtexec-10.3.log"), dir + "/net.onnx.engine.profile.log");
  auto r = run_trtlens({"engine", "compare", dir + "/net.onnx.engine", fixture("v86-compute/net.onnx.engine"),
                        "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["plans"][0]["end_to_end"]["throughput_qps"], 49373.1);  // the profiling log's
  EXPECT_EQ(j["plans"][1]["end_to_end"]["throughput_qps"], 20000.0);  // profile.metadata.json's
  auto s = run_trtlens({"engine", "summary", dir + "/net.onnx.engine", "--format", "json"});
  auto sj = json::parse(s.out);
  EXPECT_EQ(sj["trtexec_logs"].size(), 2u);
  EXPECT_EQ(sj["device"]["Selected Device"], "NVIDIA GeForce RTX 4090");  // the later log's device
  EXPECT_EQ(sj["sources"]["builder"], "trtexec log " + dir + "/net.onnx.engine.build.log");
  // --log replaces the logs found beside the plan.
  auto o = run_trtlens({"engine", "summary", dir + "/net.onnx.engine", "--log", fixture("logs/trtexec-8.6.log"),
                        "--format", "json"});
  EXPECT_EQ(json::parse(o.out)["trtexec_logs"].size(), 1u);
}

// The bare layer list and the "layers"/"LayerInfo" keys were refused with exit
// 2; now each is read, and the summary names the layout it found.
TEST(EngineCli, SummaryNamesTheLayoutOfABareListAndOtherListKeys) {
  std::string dir = trtlens::test::temp_dir("EngineCli.Layouts");
  json t = {{"Name", "x"}, {"Dimensions", {1, 8, 4, 4}}, {"Format", "Row major linear FP32"}, {"Datatype", "Float"}};
  json u = t;
  u["Name"] = "y";
  json layers = json::array({{{"Name", "relu"}, {"LayerType", "PointWiseV2"}, {"ParameterType", "PointWise"},
                              {"StreamId", 0}, {"Inputs", {t}}, {"Outputs", {u}}}});
  std::vector<std::pair<std::string, json>> files = {{"bare", layers},
                                                     {"layers", json{{"layers", layers}}},
                                                     {"LayerInfo", json{{"LayerInfo", layers}}}};
  for (const auto& [name, doc] : files) {
    std::ofstream(dir + "/" + name + ".json") << doc.dump();
    auto r = run_trtlens({"engine", "summary", dir + "/" + name + ".json"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    std::string want = std::string("Layout: 11.x; layer list: ") + (name == "bare" ? "bare list" : name) +
                       "; tensors: Format + Datatype; layers: StreamId; I/O: none (taken from the graph)";
    EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Inputs: x 1x8x4x4 FP32 LINEAR"), std::string::npos) << r.out;
    auto j = json::parse(run_trtlens({"engine", "summary", dir + "/" + name + ".json", "--format", "json"}).out);
    EXPECT_EQ(j["layout_detail"]["layer_list"], name == "bare" ? "bare list" : name);
  }
  // Still refused, one line naming the file: a list of numbers, a list under an unknown key.
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{{"numbers", "[1, 2]"},
                                                                                  {"nodes", R"({"nodes": []})"}}) {
    std::ofstream(dir + "/" + name + ".json") << text;
    auto r = run_trtlens({"engine", "summary", dir + "/" + name + ".json"});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(name + ".json"), std::string::npos) << r.err;
  }
}

// compare's precision mismatch covers outputs: two plans whose convolution
// reads INT8 in both and writes FP16 in one, INT8 in the other.
TEST(EngineCli, CompareSeesOutputPrecision) {
  std::string dir = trtlens::test::temp_dir("EngineCli.ComparePrecision");
  auto plan = [&](const std::string& name, const char* out_format) {
    auto t = [](const char* n, const char* f) { return json{{"Name", n}, {"Dimensions", {1, 32, 8, 8}}, {"Format/Datatype", f}}; };
    const char* i8 = "Thirty-two wide channel vectorized row major Int8 format";
    json layers = json::array({{{"Name", "conv"}, {"LayerType", "CaskConvolution"}, {"ParameterType", "Convolution"},
                                {"Inputs", {t("in", i8)}}, {"Outputs", {t("out", out_format)}}}});
    std::ofstream(dir + "/" + name + ".graph.json") << json{{"Layers", layers}, {"Bindings", {"in", "out"}}}.dump();
    return dir + "/" + name + ".graph.json";
  };
  std::string a = plan("a", "Channel major FP16 format where channel % 8 == 0");
  std::string b = plan("b", "Thirty-two wide channel vectorized row major Int8 format");
  auto r = run_trtlens({"engine", "compare", a, b, "--mismatch", "precision", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  ASSERT_EQ(j["layers"].size(), 1u);
  EXPECT_EQ(j["layers"][0]["differs"]["precision"], true);
  EXPECT_EQ(j["layers"][0]["differs"]["input_precision"], false);
  EXPECT_EQ(j["layers"][0]["differs"]["output_precision"], true);
  EXPECT_EQ(j["layers"][0]["plans"][0]["output_precisions"], "FP16");
  EXPECT_EQ(j["layers"][0]["plans"][1]["output_precisions"], "INT8");
  auto t = run_trtlens({"engine", "compare", a, b});
  EXPECT_NE(t.out.find("INT8 → FP16 / INT8 → INT8"), std::string::npos) << t.out;
  // Same plan twice: no precision mismatch.
  auto same = json::parse(run_trtlens({"engine", "compare", a, a, "--mismatch", "precision", "--format", "json"}).out);
  EXPECT_TRUE(same["layers"].empty());
}

// The two MobileNet QAT samples: 15 convolutions switch their output between
// float and INT8 (round 2 saw 0); with the first plan's 15 extra Q/DQ
// reformats that is TREx's 30 "Precision Mismatch" rows.
TEST(EngineCli, CompareOnTheMobileNetQdqPairSeesOutputPrecision) {
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty() || !fs::exists(fs::path(shared) / "engine-samples/mobilenet-qat")) GTEST_SKIP() << "no ../shared/engine-samples";
  const std::string s = shared + "/engine-samples/";
  auto rows = [&](const char* mismatch) {
    auto r = run_trtlens({"engine", "compare", s + "mobilenet-qat", s + "mobilenet-v2-residuals-qat", "--mismatch",
                          mismatch, "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["layers"];
  };
  auto p = rows("precision");
  EXPECT_EQ(p.size(), 15u);
  int outputs = 0, convs = 0;
  for (const auto& l : p) {
    outputs += l["differs"]["output_precision"].get<bool>();
    convs += l["type"] == "Convolution";
    // Float (FP16 in 12, FP32 in 3) in the first plan, INT8 in the second.
    std::string first = l["plans"][0]["output_precisions"], second = l["plans"][1]["output_precisions"];
    EXPECT_TRUE(first == "FP16" || first == "FP32") << l["name"] << ": " << first;
    EXPECT_EQ(second, "INT8") << l["name"];
  }
  EXPECT_EQ(outputs, 15);
  EXPECT_EQ(convs, 15);
  EXPECT_EQ(rows("precision,unmatched").size(), 30u);
}
