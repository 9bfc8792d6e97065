// Engine summary figures, and parity with TREx's definitions on the real samples.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "render/engine_render.h"
#include "support/paths.h"
#include "trtlens/engine.h"

namespace fs = std::filesystem;
using namespace trtlens;
using nlohmann::json;

namespace {
std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }
const GroupStat* group(const std::vector<GroupStat>& g, const std::string& key) {
  for (const auto& x : g)
    if (x.key == key) return &x;
  return nullptr;
}
}  // namespace

TEST(EngineSummary, GroupsByTypeAndPrecision) {
  auto p = load_plan(find_plan_files(fixture("v8/tiny.onnx.engine")));
  auto s = summarize(p, 3);
  EXPECT_EQ(s.layers, 6);
  EXPECT_NEAR(s.total_latency_ms, 0.32, 1e-12);
  ASSERT_EQ(s.by_type.size(), 4u);
  EXPECT_EQ(s.by_type[0].key, "Convolution");  // largest latency first
  EXPECT_EQ(s.by_type[0].count, 2);
  EXPECT_NEAR(s.by_type[0].latency_ms, 0.25, 1e-12);
  EXPECT_NEAR(s.by_type[0].percent, 78.125, 1e-9);
  const auto* fp32 = group(s.by_precision, "FP32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->count, 1);  // the input reformat reads FP32
  EXPECT_EQ(group(s.by_precision, "FP16")->count, 5);
  ASSERT_EQ(s.slowest.size(), 3u);
  EXPECT_EQ(s.slowest[0]->name, "conv2");
  EXPECT_EQ(s.slowest[1]->name, "conv1 + relu1");
  EXPECT_EQ(s.reformat_count, 2);
  EXPECT_NEAR(s.reformat_ms, 0.03, 1e-12);
  EXPECT_NEAR(s.reformat_percent, 9.375, 1e-9);
  ASSERT_EQ(s.reformats.size(), 2u);
  EXPECT_EQ(s.reformats[0].from, "FP32 LINEAR");
  EXPECT_EQ(s.reformats[0].to, "FP16 HWC4");
  EXPECT_NE(s.reformats[0].reason.find("input 0 of 'conv1 + relu1'"), std::string::npos) << s.reformats[0].reason;
  // Reformat names quote the fused layer they feed; they are not fusions themselves.
  ASSERT_EQ(s.fused.size(), 1u);
  EXPECT_EQ(s.fused[0]->name, "conv1 + relu1");
}

TEST(EngineSummary, ReformatsFoundByTypeAndOriginTellsQdq) {
  auto p = load_plan(find_plan_files(fixture("v86-qdq/qdq.onnx.engine")));
  auto s = summarize(p);
  ASSERT_EQ(s.reformat_count, 2);  // named QuantizeLinear_2 / DequantizeLinear_20, found by type
  EXPECT_EQ(s.reformats[0].layer->origin, "QDQ");
  EXPECT_EQ(s.reformats[0].reason.rfind("a Quantize node", 0), 0u) << s.reformats[0].reason;
  EXPECT_EQ(s.reformats[1].reason.rfind("a Dequantize node", 0), 0u) << s.reformats[1].reason;
}

// Parity: recompute TREx's figures straight from the raw files (TREx's rules,
// applied independently of our loader) and compare.
TEST(EngineSummary, ParityWithTrexDefinitionsOnSharedSamples) {
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty() || !fs::exists(fs::path(shared) / "engine-samples")) GTEST_SKIP() << "no ../shared/engine-samples";
  // TREx's format table, for the formats the samples use: format → precision.
  const std::map<std::string, std::string> trex_precision = {
      {"Row major linear FP32", "FP32"},
      {"Row major linear FP16 format", "FP16"},
      {"Channel major FP16 format where channel % 4 == 0", "FP16"},
      {"Channel major FP16 format where channel % 8 == 0", "FP16"},
      {"Channel major FP16 format where channel % 16 == 0", "FP16"},
      {"Channel major FP32 format where channel % 4 == 0", "FP32"},
      {"Channel major FP32 format", "FP32"},
      {"Four wide channel vectorized row major FP32 format", "FP32"},
      {"Four wide channel vectorized row major Int8 format", "INT8"},
      {"Thirty-two wide channel vectorized row major Int8 format", "INT8"},
      {"Thirty-two wide channel vectorized row major FP16 format", "FP16"},
      {"Thirty-two wide channel vectorized row major FP32 format", "FP32"},
      {"Two wide channel vectorized row major FP16 format", "FP16"},
  };
  int checked = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(shared) / "engine-samples")) {
    if (!dir.is_directory()) continue;
    auto files = find_plan_files(dir.path().string());
    json g = json::parse(std::ifstream(files.graph));
    json prof = json::parse(std::ifstream(files.profile));
    // NoOp outputs → their inputs (folding), and the names to drop from the profile.
    std::map<std::string, json> noop_in;
    std::set<std::string> dropped;
    for (const auto& l : g["Layers"])
      if (l["LayerType"] == "NoOp" || l["LayerType"] == "Constant") {
        dropped.insert(l["Name"].get<std::string>());
        if (l["LayerType"] == "NoOp") noop_in[l["Outputs"][0]["Name"].get<std::string>()] = l["Inputs"][0];
      }
    std::vector<json> layers;
    for (const auto& l : g["Layers"])
      if (!dropped.count(l["Name"].get<std::string>())) layers.push_back(l);
    std::vector<double> avg;
    for (const auto& r : prof)
      if (r.contains("name") && !dropped.count(r["name"].get<std::string>())) avg.push_back(r["averageMs"].get<double>());
    ASSERT_EQ(avg.size(), layers.size()) << dir.path();  // samples join by position
    double total = 0;
    std::map<std::string, std::pair<int, double>> by_type, by_prec;
    int reformats = 0;
    for (size_t i = 0; i < layers.size(); ++i) {
      const auto& l = layers[i];
      std::string type = l.contains("ParameterType") ? l["ParameterType"].get<std::string>() : l["LayerType"].get<std::string>();
      json in = l["Inputs"][0];
      while (noop_in.count(in["Name"].get<std::string>())) in = noop_in[in["Name"].get<std::string>()];
      std::string fmt = in["Format/Datatype"].get<std::string>();
      ASSERT_TRUE(trex_precision.count(fmt)) << fmt;
      std::string prec = trex_precision.at(fmt);
      total += avg[i];
      by_type[type].first++;
      by_type[type].second += avg[i];
      by_prec[prec].first++;
      by_prec[prec].second += avg[i];
      reformats += type == "Reformat";
    }
    auto plan = load_plan(files);
    auto s = summarize(plan);
    SCOPED_TRACE(dir.path().string());
    EXPECT_EQ(s.layers, static_cast<int>(layers.size()));
    EXPECT_NEAR(s.total_latency_ms, total, 1e-9);
    EXPECT_EQ(s.reformat_count, reformats);
    ASSERT_EQ(s.by_type.size(), by_type.size());
    for (const auto& [k, v] : by_type) {
      const auto* gs = group(s.by_type, k);
      ASSERT_NE(gs, nullptr) << k;
      EXPECT_EQ(gs->count, v.first) << k;
      EXPECT_NEAR(gs->latency_ms, v.second, 1e-9) << k;
      EXPECT_NEAR(gs->percent, 100.0 * v.second / total, 1e-9) << k;
    }
    ASSERT_EQ(s.by_precision.size(), by_prec.size());
    for (const auto& [k, v] : by_prec) {
      const auto* gs = group(s.by_precision, k);
      ASSERT_NE(gs, nullptr) << k;
      EXPECT_EQ(gs->count, v.first) << k;
      EXPECT_NEAR(gs->latency_ms, v.second, 1e-9) << k;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

// Layer inputs+outputs summed count a tensor once per reader and once for
// its writer; the distinct-tensor figure counts it once.
TEST(EngineSummary, DistinctTensorsBesideLayerInputsAndOutputs) {
  auto t = [](const char* name) {
    return std::string("{\"Name\": \"") + name + "\", \"Dimensions\": [1, 4], \"Format/Datatype\": \"Row major linear FP32\"}";
  };
  auto layer = [&](const char* name, const char* in, const char* out) {
    return std::string("{\"Name\": \"") + name + "\", \"LayerType\": \"Activation\", \"Inputs\": [" + t(in) +
           "], \"Outputs\": [" + t(out) + "]}";
  };
  auto plan = parse_plan("{\"Layers\": [" + layer("a", "x", "y") + ", " + layer("b", "y", "z") + ", " +
                             layer("c", "y", "w") + "], \"Bindings\": [\"x\", \"z\", \"w\"]}",
                         "g.json");
  auto s = summarize(plan);
  EXPECT_EQ(s.layer_io_bytes, 6 * 16);  // x y | y z | y w
  EXPECT_EQ(s.tensor_bytes, 4 * 16);    // x y z w
}

// profile.metadata.json keeps device figures as bare numbers ("SMs": 108.0);
// people read them with their units, as trtexec prints them.
TEST(EngineSummary, DeviceValuesCarryTheirUnits) {
  EXPECT_EQ(device_value_text("SMs", "108.0"), "108");
  EXPECT_EQ(device_value_text("Compute Clock Rate", "1.41"), "1.41 GHz");
  EXPECT_EQ(device_value_text("Memory Clock Rate", "1.512"), "1.512 GHz");
  EXPECT_EQ(device_value_text("Memory Bus Width", "5120.0"), "5120 bits");
  EXPECT_EQ(device_value_text("Compute Capability", "8.0"), "8.0");
  EXPECT_EQ(device_value_text("Device Global Memory", "80994 MiB"), "80994 MiB");  // text keeps its own unit
  EXPECT_EQ(device_value_text("Selected Device", "NVIDIA A100 80GB PCIe"), "NVIDIA A100 80GB PCIe");
}
