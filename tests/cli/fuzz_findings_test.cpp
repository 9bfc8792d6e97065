// Inputs that broke trtlens once (../shared/fuzz-findings, issue 9): each ONNX reproducer ends with a
// normal result or one line naming the file and exit 2; never a signal, a hang or exit 3.
// Skips when ../shared is absent; tests/support/bad_models.cpp rebuilds the crashing kinds anyway.
#include <gtest/gtest.h>

#include <algorithm>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "support/plan_bytes.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;

// Every reproducer runs under these bounds: the findings were hangs (39 s), 3 GB of memory and
// unbounded reads, all far past them.
constexpr RunLimits kBounds{30, 1ull << 30};

// A run that refused its input: exit 2 and exactly one stderr line naming `file`.
void expect_one_line_refusal(const RunResult& r, const std::string& file, const std::string& problem) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
}

// A run with a result: exit 0 and JSON that parses.
nlohmann::json expect_json_result(const RunResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

std::string nested(const std::string& open, const std::string& close, int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

// A graph.json of one convolution layer: its name, its inputs (raw JSON list items), more layer
// fields and more graph fields (raw JSON, each starting with a comma).
std::string one_layer_graph(const std::string& name, const std::string& inputs = "", const std::string& layer_extra = "",
                            const std::string& graph_extra = "") {
  return R"({"Layers":[{"Name":")" + name + R"(","LayerType":"CaskConvolution","ParameterType":"Convolution",)" +
         R"("Inputs":[)" + inputs + R"(],"Outputs":[])" + layer_extra + "}]" + graph_extra + "}";
}

std::string tensor_json(const std::string& dims) {
  return R"({"Name":"t","Dimensions":)" + dims + R"(,"Format/Datatype":"Row major linear FP32 format"})";
}

TEST(FuzzFindings, EveryOnnxReproducerEndsCleanly) {
  fs::path dir = fs::path(TRTLENS_SHARED_DIR) / "fuzz-findings";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".onnx") continue;
    ++seen;
    RunResult r = run_trtlens({"check", entry.path().string()});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << entry.path() << " exit " << r.exit_code;
    if (r.exit_code == 2) {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find(entry.path().string()), std::string::npos) << r.err;
    }
  }
  EXPECT_GT(seen, 0);
}

// F16: ConvInteger with inputs of mismatched rank crashed libonnx shape inference; the model is
// typed by trtlens's own propagation instead, and judged.
TEST(FuzzFindings, ConvIntegerWithMismatchedRanksIsJudged) {
  ModelBuilder mb(10);
  auto g = mb.graph();
  g.input("x", kUint8, {2, 3});
  g.input("w", kUint8, {1, 3, 3});
  g.node("ConvInteger", {"x", "w"}, {"y"}, "conv");
  g.output("y");
  std::string model = mb.save(temp_dir("fuzz_convinteger") + "/m.onnx");
  RunResult r = run_trtlens({"check", model, "--trt", "8.6"});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
  EXPECT_NE(r.out.find("ConvInteger"), std::string::npos);
}

// F07a: a node name that is not UTF-8 made the JSON writer throw (exit 3). Every format now
// replaces the bad bytes with U+FFFD.
TEST(FuzzFindings, InvalidUtf8NamesSurviveEveryFormat) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2});
  g.node("Relu", {"x"}, {"y"}, std::string("bad\xff\xfename"));
  g.output("y");
  std::string model = mb.save(temp_dir("fuzz_utf8") + "/m.onnx");
  for (const char* format : {"text", "json", "markdown"}) {
    RunResult r = run_trtlens({"check", model, "--format", format});
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_NE(r.out.find("bad\xef\xbf\xbd"), std::string::npos) << format;  // U+FFFD
  }
  RunResult j = run_trtlens({"check", model, "--format", "json"});
  EXPECT_FALSE(nlohmann::json::parse(j.out, nullptr, false).is_discarded());
}

// Files that are not regular files, or far past a reader's cap: refused at once, one line naming
// the file, exit 2 (a FIFO hung check, plan, calib and engine; /dev/zero and a sparse 8 GB file were
// read without end; a folder was bad_alloc, exit 3; a symlink loop was an uncaught filesystem error).
TEST(FuzzFindings, OnlyRegularFilesUnderTheCapAreRead) {
  std::string dir = temp_dir("fuzz_files");
  std::string fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string loop = dir + "/loop";
  fs::create_symlink(loop, loop);
  std::string sparse = dir + "/big.cache";
  { std::ofstream(sparse).close(); }
  fs::resize_file(sparse, uint64_t{8} << 30);
  struct Case {
    std::vector<std::string> args;
    std::string file;
  };
  std::vector<Case> cases = {
      {{"check", fifo}, fifo},
      {{"plan", fifo}, fifo},
      {{"calib", fifo}, fifo},
      {{"engine", "summary", "--graph-json", fifo}, fifo},
      {{"calib", "/dev/zero"}, "/dev/zero"},
      {{"calib", sparse}, sparse},
      {{"engine", "summary", "--graph-json", dir}, dir},
      {{"check", loop}, loop},
  };
  for (const auto& c : cases) {
    RunResult r = run_trtlens(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << " " << c.file << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
  }
}

// Engine prefixes that broke `engine` (F04 deep nesting, F06 1e400, F07b invalid UTF-8, F08
// "[profile N]" past INT_MAX, F09/F10 dimensions and weight counts past int64, non-finite
// latencies), built here; each runs through summary, layers and lint in JSON.
TEST(FuzzFindings, EngineReproducersAreRefusedOrAnalysed) {
  std::string dir = temp_dir("fuzz_engine");
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> files;  // suffix after "e.", contents
    std::string refused_file;                                // empty: a result is expected
    std::string problem;
  };
  std::string deep = nested("[", "]", 5000);
  std::vector<Case> cases = {
      {"F04a", {{"graph.json", one_layer_graph("conv", "", ",\"Extra\":" + deep)}}, "e.graph.json", "nested deeper than 64"},
      {"F04b",
       {{"graph.json", one_layer_graph("conv")}, {"profile.metadata.json", R"({"device_information":{"x":)" + deep + "}}"}},
       "e.profile.metadata.json",
       "nested deeper than 64"},
      {"F06a", {{"graph.json", one_layer_graph("conv", "", "", R"(,"Bindings":[1e400])")}}, "", ""},
      {"F06b",
       {{"graph.json", one_layer_graph("conv")}, {"profile.metadata.json", R"({"device_information":{"x":1e400}})"}},
       "e.profile.metadata.json",
       "1e400 is past the range of a double"},
      {"F07b", {{"graph.json", one_layer_graph("conv\xff\xfe")}}, "", ""},
      {"F08a", {{"graph.json", one_layer_graph("conv [profile 99999999999]")}}, "", ""},
      {"F08b", {{"graph.json", one_layer_graph("conv [profile 2147483647]")}}, "", ""},
      {"F09a", {{"graph.json", one_layer_graph("conv", tensor_json("[1e300]"))}}, "", ""},
      {"F09b", {{"graph.json", one_layer_graph("conv", "", R"(,"Weights":{"Type":"Float","Count":1e300})")}}, "", ""},
      {"F09c",
       {{"graph.json",
         one_layer_graph("conv", "", R"(,"Weights":{"Type":"Double","Count":4e18},"Bias":{"Type":"Double","Count":4e18})")}},
       "",
       ""},
      {"F10", {{"graph.json", one_layer_graph("conv", tensor_json("[100000,100000,100000,100000]"))}}, "", ""},
      {"non-finite latencies",
       {{"graph.json", one_layer_graph("conv")},
        {"profile.json", "[{ \"count\" : 10 }\n, { \"name\" : \"conv\", \"timeMs\" : nan, \"averageMs\" : Infinity, "
                         "\"medianMs\" : -inf, \"percentage\" : NaN }\n]\n"}},
       "",
       ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string folder = dir + "/" + std::to_string(&c - cases.data());
    for (const auto& [suffix, contents] : c.files) write_text(folder + "/e." + suffix, contents);
    for (const char* view : {"summary", "layers", "lint"}) {
      RunResult r = run_trtlens({"engine", view, folder + "/e", "--format", "json"}, {}, kBounds);
      if (!c.refused_file.empty()) {
        expect_one_line_refusal(r, folder + "/" + c.refused_file, c.problem);
        continue;
      }
      nlohmann::json doc = expect_json_result(r);
      ASSERT_FALSE(doc.is_discarded()) << view << ": " << r.out.substr(0, 400);
      if (std::string(view) != "summary") continue;
      for (const char* bytes : {"weights_bytes", "tensor_bytes", "layer_io_bytes"})
        EXPECT_GE(doc[bytes].get<double>(), 0) << bytes;  // saturated, never wrapped negative
    }
  }
  // Names are kept as written (F07b: U+FFFD for the bad bytes; F08: a suffix past INT_MAX is no profile).
  auto name_of = [&](size_t i) {
    RunResult r = run_trtlens({"engine", "layers", dir + "/" + std::to_string(i) + "/e", "--format", "json"}, {}, kBounds);
    return nlohmann::json::parse(r.out)["layers"][0]["name"].get<std::string>();
  };
  EXPECT_EQ(name_of(4), "conv\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(name_of(5), "conv [profile 99999999999]");
  EXPECT_EQ(name_of(6), "conv [profile 2147483647]");
  // Non-finite latencies count as 0 ms and mark the result partial, saying why.
  RunResult nan_text = run_trtlens({"engine", "summary", dir + "/11/e"}, {}, kBounds);
  EXPECT_EQ(nan_text.exit_code, 0) << nan_text.err;
  EXPECT_EQ(nan_text.out.find("nan ms"), std::string::npos) << nan_text.out;
  EXPECT_NE(nan_text.out.find("not a finite number"), std::string::npos) << nan_text.out;
  nlohmann::json nan_json =
      nlohmann::json::parse(run_trtlens({"engine", "summary", dir + "/11/e", "--format", "json"}, {}, kBounds).out);
  EXPECT_TRUE(nan_json["partial"].get<bool>());
  // F10: 10^20 bytes of input tensor is printed as a large positive figure, not a wrapped negative one.
  RunResult huge = run_trtlens({"engine", "summary", dir + "/10/e"}, {}, kBounds);
  EXPECT_EQ(huge.out.find(": -"), std::string::npos) << huge.out;
}

// The shared engine reproducers (folders holding an `e` prefix), when ../shared is present.
TEST(FuzzFindings, SharedEngineReproducersEndCleanly) {
  fs::path dir = fs::path(TRTLENS_SHARED_DIR) / "fuzz-findings";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!fs::is_regular_file(entry.path() / "e.graph.json")) continue;
    ++seen;
    for (const char* view : {"summary", "layers", "lint"}) {
      RunResult r = run_trtlens({"engine", view, (entry.path() / "e").string(), "--format", "json"}, {}, kBounds);
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << entry.path() << " " << view << " exit " << r.exit_code;
      if (r.exit_code == 2) EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      else EXPECT_FALSE(nlohmann::json::parse(r.out, nullptr, false).is_discarded()) << entry.path() << " " << view;
    }
  }
  EXPECT_GT(seen, 0);
}

// F05: a plan whose exporter metadata nests 100,000 levels took over 3 GB in `plan --format json`;
// F07d/F07c: invalid UTF-8 in plan metadata and in a calibration cache's tensor name.
TEST(FuzzFindings, PlanMetadataAndCalibrationCachesStayBoundedAndValid) {
  std::string dir = temp_dir("fuzz_plan_calib");
  std::string deep_plan = dir + "/deep.plan", utf8_plan = dir + "/utf8.plan", cache = dir + "/utf8.cache";
  write_text(deep_plan, with_metadata("{\"a\":" + nested("[", "]", 100000) + "}", plan_10(10, 3, 0, 26)));
  write_text(utf8_plan, with_metadata("{\"a\":\"\xff\"}", plan_10(10, 3, 0, 26)));
  write_text(cache, "TRT-8601-EntropyCalibration2\nna\xffme: 3c010a14\n");
  for (const std::string& plan : {deep_plan, utf8_plan}) {
    for (const char* format : {"text", "json"}) {
      RunResult r = run_trtlens({"plan", plan, "--format", format}, {}, RunLimits{30, 512ull << 20});
      EXPECT_EQ(r.exit_code, 0) << plan << " " << format << ": " << r.err;
    }
    EXPECT_FALSE(expect_json_result(run_trtlens({"plan", plan, "--format", "json"}, {}, kBounds)).is_discarded()) << plan;
  }
  RunResult deep = run_trtlens({"plan", deep_plan, "--format", "json"}, {}, kBounds);
  EXPECT_NE(deep.out.find("nested deeper than"), std::string::npos) << deep.out.substr(0, 400);
  nlohmann::json calib = expect_json_result(run_trtlens({"calib", cache, "--format", "json"}, {}, kBounds));
  ASSERT_FALSE(calib.is_discarded());
  EXPECT_EQ(calib["scales"][0]["tensor"], "na\xef\xbf\xbdme");

  fs::path shared = fs::path(TRTLENS_SHARED_DIR) / "fuzz-findings";
  if (!fs::is_directory(shared)) return;
  for (const auto& entry : fs::directory_iterator(shared)) {
    std::string ext = entry.path().extension().string();
    if (ext != ".plan" && ext != ".cache") continue;
    RunResult r = run_trtlens({ext == ".plan" ? "plan" : "calib", entry.path().string(), "--format", "json"}, {}, kBounds);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << entry.path() << ": " << r.err;
    EXPECT_FALSE(nlohmann::json::parse(r.out, nullptr, false).is_discarded()) << entry.path();
  }
}

// F11: Cast `to` = 2^40 overflowed the conversion to an element type; it is judged UNSUPPORTED
// with the value named.
TEST(FuzzFindings, CastToPastTheTypeRangeIsUnsupported) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {2});
  attr_int(g.node("Cast", {"x"}, {"y"}, "cast"), "to", int64_t{1} << 40);
  g.output("y");
  std::string model = mb.save(temp_dir("fuzz_cast") + "/m.onnx");
  RunResult r = run_trtlens({"check", model, "--trt", "10.1", "--format", "json"}, {}, kBounds);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["nodes"][0]["verdict"], "UNSUPPORTED");
  EXPECT_NE(doc["nodes"][0].dump().find("1099511627776"), std::string::npos) << doc["nodes"][0].dump();
}

// `report` on a chain of 10^6 nodes took over 6 GB. Pages hold at most 200,000 nodes (each carries
// a verdict per release and precision); past that `report` refuses by name, inside 2 GB.
TEST(FuzzFindings, ReportRefusesAMillionNodeChainWithinTwoGigabytes) {
  std::string dir = temp_dir("fuzz_report_chain");
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("t0", kFloat, {1, 4});
  constexpr int kNodes = 1000000;
  for (int i = 0; i < kNodes; ++i)
    g.node("Relu", {"t" + std::to_string(i)}, {"t" + std::to_string(i + 1)});
  g.output("t" + std::to_string(kNodes));
  std::string model = mb.save(dir + "/chain.onnx");
  RunResult r = run_trtlens({"report", model, "-o", dir + "/chain.html"}, {}, RunLimits{300, 2ull << 30});
  expect_one_line_refusal(r, model, "1000000 nodes; a report page holds at most 200000");
  EXPECT_FALSE(fs::exists(dir + "/chain.html"));
}

}  // namespace
}  // namespace trtlens::test
