// Per-layer arithmetic and memory, device peaks, report-card roll-ups and
// trtexec logs. Figures are worked out by hand in the comments from the
// fixture tests/fixtures/engine/v86-compute (device: 10 SMs at 1.0 GHz,
// compute capability 8.0, 1024-bit bus at 1.0 GHz).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/paths.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"

namespace fs = std::filesystem;
using namespace trtlens;
using nlohmann::json;

namespace {
std::string fixture(const std::string& rel) { return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel; }
const LayerStats* stats(const LayerAnalysis& a, const std::string& name) {
  for (const auto& s : a.layers)
    if (s.layer->name == name) return &s;
  return nullptr;
}
const GroupStat* group(const std::vector<GroupStat>& g, const std::string& key) {
  for (const auto& x : g)
    if (x.key == key) return &x;
  return nullptr;
}
EnginePlan compute_plan(std::vector<std::string> logs = {}) {
  auto files = find_plan_files(fixture("v86-compute/net.onnx.engine"));
  files.logs = std::move(logs);
  return load_plan(files);
}
}  // namespace

TEST(EngineAnalytics, DevicePeaksFromMetadata) {
  auto plan = compute_plan();
  auto d = device_peaks(plan);
  EXPECT_EQ(d.device, "Hand-written Ampere");
  EXPECT_EQ(d.source, "profile.metadata.json");
  // 1024 bits / 8 × 1.0 GHz × 2 = 256 GB/s.
  ASSERT_TRUE(d.memory_gbps.has_value());
  EXPECT_DOUBLE_EQ(*d.memory_gbps, 256.0);
  EXPECT_NE(d.memory_basis.find("Memory Bus Width 1024 bits"), std::string::npos) << d.memory_basis;
  EXPECT_NE(d.memory_basis.find("Memory Clock Rate 1 GHz"), std::string::npos) << d.memory_basis;
  // 10 SMs × 1.0 GHz × MACs/clock/SM (8.0: FP32 via TF32 512, FP16 1024, INT8 2048) × 2.
  EXPECT_DOUBLE_EQ(*d.compute_for("FP32"), 10240.0);
  EXPECT_DOUBLE_EQ(*d.compute_for("FP16"), 20480.0);
  EXPECT_DOUBLE_EQ(*d.compute_for("BF16"), 20480.0);
  EXPECT_DOUBLE_EQ(*d.compute_for("INT8"), 40960.0);
  EXPECT_FALSE(d.compute_for("FP8").has_value());  // no FP8 Tensor Cores on 8.0
  EXPECT_NE(d.compute_basis.find("SMs 10"), std::string::npos) << d.compute_basis;
  EXPECT_NE(d.compute_basis.find("compute capability 8"), std::string::npos) << d.compute_basis;
}

TEST(EngineAnalytics, PeaksUnknownAreAbsentWithTheReason) {
  auto none = load_plan(find_plan_files(fixture("v10-myelin/bert.onnx.engine")));
  auto d = device_peaks(none);
  EXPECT_FALSE(d.memory_gbps.has_value());
  EXPECT_TRUE(d.compute_gflops.empty());
  EXPECT_NE(d.compute_basis.find("no device information"), std::string::npos) << d.compute_basis;

  auto plan = compute_plan();
  auto set = [&](const std::string& key, const std::string& value) {
    for (auto& [k, v] : plan.device)
      if (k == key) v = value;
  };
  set("Compute Capability", "7.2");  // Xavier: not in the table
  set("Memory Clock Rate", "1e400");  // not a finite number
  d = device_peaks(plan);
  EXPECT_TRUE(d.compute_gflops.empty());
  EXPECT_NE(d.compute_basis.find("compute capability 7.2"), std::string::npos) << d.compute_basis;
  EXPECT_FALSE(d.memory_gbps.has_value());
  EXPECT_NE(d.memory_basis.find("Memory Clock Rate is not a number"), std::string::npos) << d.memory_basis;
  set("Compute Capability", "8.0");
  set("SMs", "-3");
  d = device_peaks(plan);
  EXPECT_TRUE(d.compute_gflops.empty());
  EXPECT_NE(d.compute_basis.find("SMs = -3 is out of range"), std::string::npos) << d.compute_basis;
}

TEST(EngineAnalytics, ConvolutionAsImplicitGemm) {
  auto plan = compute_plan();
  auto a = analyze_layers(plan);
  const auto* s = stats(a, "conv_a");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->compute.has_value());
  const auto& c = *s->compute;
  // in [2,4,8,8] FP16, out [2,8,8,8] FP16, kernel 3x3, groups 1.
  EXPECT_EQ(c.macs, 2 * 8 * 8 * 8 * 4 * 9);  // N·K·P·Q·C·R·S = 36864
  EXPECT_EQ(c.gemm_m, 2 * 8 * 8);            // N·P·Q
  EXPECT_EQ(c.gemm_n, 8);                    // K
  EXPECT_EQ(c.gemm_k, 4 * 9);                // C·R·S
  // in 512 el × 2 B + out 1024 el × 2 B + weights 8·4·9 = 288 el × 2 B.
  EXPECT_EQ(c.bytes, 1024 + 2048 + 576);
  EXPECT_NEAR(c.arithmetic_intensity, 36864.0 / 3648.0, 1e-12);
  // 0.002 ms: 2 × 36864 / 2e3 = 36.864 GFLOP/s; over the FP16 peak 20480.
  ASSERT_TRUE(c.gflops.has_value());
  EXPECT_NEAR(*c.gflops, 36.864, 1e-9);
  EXPECT_NEAR(*c.compute_efficiency, 100 * 36.864 / 20480, 1e-9);
  // Footprint (TREx's total_footprint_bytes): inputs + outputs + Weights.
  EXPECT_EQ(s->footprint_bytes, 3648);
  EXPECT_NEAR(*s->gbps, 3648 / 2e3, 1e-12);
  EXPECT_NEAR(*s->memory_efficiency, 100 * 1.824 / 256, 1e-9);

  // Depthwise: groups 8 divide the MACs and weights, not TREx's GEMM K.
  const auto& dw = *stats(a, "conv_dw")->compute;
  EXPECT_EQ(dw.macs, 2 * 8 * 64 * 8 * 9 / 8);  // 9216
  EXPECT_EQ(dw.gemm_k, 8 * 9);
  EXPECT_EQ(dw.bytes, 2048 + 2048 + 72 * 2);

  // Deconvolution: every input element meets K·R·S weights; no GEMM shape.
  const auto* de = stats(a, "deconv");
  ASSERT_TRUE(de->compute.has_value());
  EXPECT_EQ(de->layer->type, "Deconvolution");
  EXPECT_EQ(de->compute->macs, 2 * 8 * 64 * 4 * 4);  // N·C·H·W·K·R·S = 16384
  EXPECT_FALSE(de->compute->gemm_m.has_value());
  EXPECT_EQ(de->compute->bytes, 2048 + 4096 + 4 * 8 * 4 * 2);
}

TEST(EngineAnalytics, FullyConnectedAndMatrixMultiply) {
  auto plan = compute_plan();
  auto a = analyze_layers(plan);
  // fc: [2,1024,1,1] → [2,10,1,1] FP32 (its input read through the folded NoOp: [2,4,16,16]).
  const auto& fc = *stats(a, "fc")->compute;
  EXPECT_EQ(fc.macs, 2 * 1024 * 10);
  EXPECT_EQ(fc.gemm_m, 2);
  EXPECT_EQ(fc.gemm_n, 10);
  EXPECT_EQ(fc.gemm_k, 1024);
  EXPECT_EQ(fc.bytes, 2048 * 4 + 20 * 4 + 10240 * 4);
  EXPECT_NEAR(*fc.gflops, 2.0 * 20480 / 8e3, 1e-12);             // 0.008 ms
  EXPECT_NEAR(*fc.compute_efficiency, 100 * 5.12 / 10240, 1e-9);  // FP32 peak (TF32)
  // proj: A [2,10,1] with MatrixOpA TRANSPOSE (K = 10), B [10,6], out [2,1,6].
  const auto& mm = *stats(a, "proj")->compute;
  EXPECT_EQ(mm.gemm_k, 10);
  EXPECT_EQ(mm.gemm_n, 6);
  EXPECT_EQ(mm.gemm_m, 2);  // every row of every batch
  EXPECT_EQ(mm.macs, 12 * 10);
  EXPECT_EQ(mm.bytes, 12 * 4 + 20 * 4 + 60 * 4);
  // Totals over the five layers.
  EXPECT_EQ(a.compute_layers, 5);
  EXPECT_EQ(a.macs, 36864 + 9216 + 16384 + 20480 + 120);
  EXPECT_NEAR(a.compute_ms, 0.017, 1e-12);
  EXPECT_TRUE(a.skipped.empty());
  // Other layers have memory figures only.
  EXPECT_FALSE(stats(a, "PWN(Relu_6)")->compute.has_value());
  EXPECT_EQ(stats(a, "PWN(Relu_6)")->footprint_bytes, 2 * 2048 * 2);
}

TEST(EngineAnalytics, DynamicShapesAreSkippedWithAReason) {
  auto plan = parse_plan(R"({"Layers": [{"Name": "c", "LayerType": "CaskConvolution", "ParameterType": "Convolution",
      "Kernel": [3, 3], "Groups": 1,
      "Inputs": [{"Name": "x", "Dimensions": [-1, 3, 8, 8], "Format/Datatype": "Row major linear FP32"}],
      "Outputs": [{"Name": "y", "Dimensions": [-1, 4, 8, 8], "Format/Datatype": "Row major linear FP32"}]},
     {"Name": "big", "LayerType": "CaskConvolution", "ParameterType": "Convolution", "Kernel": [100000, 100000],
      "Inputs": [{"Name": "y", "Dimensions": [1, 4, 1000000, 1000000], "Format/Datatype": "Row major linear FP32"}],
      "Outputs": [{"Name": "z", "Dimensions": [1, 4, 1000000, 1000000], "Format/Datatype": "Row major linear FP32"}]},
     {"Name": "huge_kernel", "LayerType": "CaskConvolution", "ParameterType": "Convolution", "Kernel": [3037000500, 3037000500],
      "Inputs": [{"Name": "z", "Dimensions": [1, 4, 8, 8], "Format/Datatype": "Row major linear FP32"}],
      "Outputs": [{"Name": "w", "Dimensions": [1, 4, 8, 8], "Format/Datatype": "Row major linear FP32"}]}]})",
                         "g.json");
  auto a = analyze_layers(plan);
  EXPECT_EQ(a.compute_layers, 0);
  ASSERT_EQ(a.skipped.size(), 3u);
  EXPECT_EQ(a.skipped[0].second, "dynamic or oversized shape");
  EXPECT_EQ(a.skipped[1].second, "more than 2^63 MACs or bytes");  // 1.6e23 MACs
  EXPECT_EQ(a.skipped[2].second, "oversized kernel or shape");     // R·S past int64
  // Their memory figures saturate instead of overflowing.
  EXPECT_EQ(a.layers[1].footprint_bytes, int64_t{16} * 1000000 * 1000000 * 2);
}

TEST(EngineAnalytics, WeightsCountedAsTrexAndBiasApart) {
  auto s = summarize(compute_plan());
  EXPECT_EQ(s.weights_bytes, 576 + 144 + 256 + 40960);  // Weights of conv_a, conv_dw, deconv, fc
  EXPECT_EQ(s.bias_bytes, 16 + 16 + 8 + 40);
}

TEST(EngineAnalytics, RollUpsByTacticOriginAndPointwiseOperations) {
  auto s = summarize(compute_plan());
  EXPECT_NEAR(s.total_latency_ms, 0.030, 1e-12);
  // TREx's name for layers without TacticName.
  const auto* trt = group(s.by_tactic, "TensorRT");
  ASSERT_NE(trt, nullptr);
  EXPECT_EQ(trt->count, 7);  // 3 reformats, 3 PointWise, 1 Shuffle
  EXPECT_NEAR(trt->latency_ms, 0.013, 1e-12);
  EXPECT_EQ(s.by_tactic[0].key, "TensorRT");  // largest first
  const auto* fprop = group(s.by_tactic, "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize64x32x64");
  ASSERT_NE(fprop, nullptr);
  EXPECT_EQ(fprop->count, 2);
  EXPECT_NEAR(fprop->percent, 10.0, 1e-9);
  // Reformats by Origin.
  ASSERT_EQ(s.reformats_by_origin.size(), 2u);
  EXPECT_EQ(s.reformats_by_origin[0].key, "REFORMAT");
  EXPECT_EQ(s.reformats_by_origin[0].count, 2);
  EXPECT_NEAR(s.reformats_by_origin[0].latency_ms, 0.003, 1e-12);
  EXPECT_EQ(s.reformats_by_origin[1].key, "QDQ");
  // PointWise by number of operations: 1 → one layer; 3 → two layers, 0.006 ms.
  ASSERT_EQ(s.pointwise.size(), 2u);
  EXPECT_EQ(s.pointwise[0].n_operations, 1);
  EXPECT_EQ(s.pointwise[1].n_operations, 3);
  EXPECT_EQ(s.pointwise[1].count, 2);
  EXPECT_NEAR(s.pointwise[1].latency_ms, 0.006, 1e-12);
  EXPECT_NEAR(s.pointwise[1].percent, 20.0, 1e-9);
  EXPECT_NEAR(s.pointwise[1].ms_per_operation, 0.001, 1e-12);  // 0.006 / (2 × 3)
}

// TREx's annotate_convolutions, recomputed from the raw files of the shared
// samples (NoOps followed to the tensor the convolution reads), equals ours.
TEST(EngineAnalytics, ConvolutionParityWithTrexOnSharedSamples) {
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty() || !fs::exists(fs::path(shared) / "engine-samples")) GTEST_SKIP() << "no ../shared/engine-samples";
  auto size_of = [](const std::string& f) {
    return f.find("FP32") != std::string::npos ? 4 : f.find("FP16") != std::string::npos ? 2 : 1;
  };
  int convs = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(shared) / "engine-samples")) {
    if (!dir.is_directory()) continue;
    auto files = find_plan_files(dir.path().string());
    json g = json::parse(std::ifstream(files.graph));
    auto plan = load_plan(files);
    auto a = analyze_layers(plan);
    SCOPED_TRACE(dir.path().string());
    for (const auto& l : g["Layers"]) {
      if (l.value("ParameterType", "") != "Convolution") continue;
      const auto* s = stats(a, l["Name"].get<std::string>());
      ASSERT_NE(s, nullptr) << l["Name"];
      ASSERT_TRUE(s->compute.has_value()) << l["Name"];
      auto in = l["Inputs"][0]["Dimensions"], out = l["Outputs"][0]["Dimensions"];
      int64_t n = in[0], c = in[1], h = in[2], w = in[3], k = out[1], p = out[2], q = out[3];
      int64_t r = l["Kernel"][0], sk = l["Kernel"][1], groups = l["Groups"];
      int64_t macs = n * k * p * q * c * r * sk / groups;
      int in_size = size_of(l["Inputs"][0]["Format/Datatype"]), out_size = size_of(l["Outputs"][0]["Format/Datatype"]);
      // NoOps (reshapes) may sit before a convolution: our input is the folded one, same volume.
      double bytes = n * c * h * w * in_size + n * k * p * q * out_size + (k * c * r * sk) / groups * in_size;
      EXPECT_EQ(s->compute->macs, macs) << l["Name"];
      EXPECT_EQ(s->compute->gemm_m, n * p * q) << l["Name"];
      EXPECT_EQ(s->compute->gemm_n, k) << l["Name"];
      EXPECT_EQ(s->compute->gemm_k, c * r * sk) << l["Name"];
      EXPECT_NEAR(s->compute->arithmetic_intensity, macs / bytes, 1e-9) << l["Name"];
      ++convs;
    }
  }
  EXPECT_GT(convs, 200);
}

TEST(EngineAnalytics, ResNet18OnA100AgainstKnownFigures) {
  std::string shared = trtlens::test::shared_dir();
  if (shared.empty() || !fs::exists(fs::path(shared) / "engine-samples")) GTEST_SKIP() << "no ../shared/engine-samples";
  auto plan = load_plan(find_plan_files(shared + "/engine-samples/resnet18-pt-a100-fp16/resnet.onnx.engine"));
  auto a = analyze_layers(plan);
  // A100 80GB PCIe: 5120 bits / 8 × 1.512 GHz × 2 = 1935.36 GB/s (NVIDIA's datasheet: 1,935 GB/s);
  // 108 SMs × 1.41 GHz × 1024 × 2 = 311.9 TFLOPS FP16 (datasheet: 312).
  EXPECT_NEAR(*a.peaks.memory_gbps, 1935.36, 1e-9);
  EXPECT_NEAR(*a.peaks.compute_for("FP16"), 311869.44, 1e-6);
  // The stem: [32,3,224,224] → [32,64,112,112], 7x7: 32·64·112·112·3·49 MACs.
  const auto& stem = *stats(a, "Conv_0 + Relu_1")->compute;
  EXPECT_EQ(stem.macs, int64_t{32} * 64 * 112 * 112 * 3 * 49);
  EXPECT_EQ(stem.gemm_m, 32 * 112 * 112);
  EXPECT_EQ(stem.gemm_k, 3 * 49);
  // ResNet-18 is 1.8 GMAC per 224x224 image (He et al. 2016: 1.8e9 FLOPs counted as multiply-adds).
  double per_image = static_cast<double>(a.macs) / 32;
  EXPECT_GT(per_image, 1.75e9);
  EXPECT_LT(per_image, 1.85e9);
  // Achieved below peak, for every timed convolution.
  for (const auto& s : a.layers)
    if (s.compute && s.compute->compute_efficiency) {
      EXPECT_GT(*s.compute->compute_efficiency, 0.0) << s.layer->name;
      EXPECT_LT(*s.compute->compute_efficiency, 100.0) << s.layer->name;
      EXPECT_LT(*s.memory_efficiency, 100.0) << s.layer->name;
    }
}

// ---- trtexec logs ----

TEST(TrtexecLog, ParsesA86BuildAndRunLog) {
  auto log = read_trtexec_log(fixture("logs/trtexec-8.6.log"));
  EXPECT_EQ(log.tensorrt_version, "8.6.1");
  EXPECT_EQ(log.result, "PASSED");
  EXPECT_EQ(log.command.rfind("/usr/src/tensorrt/bin/trtexec --onnx=net.onnx --fp16", 0), 0u) << log.command;
  ASSERT_TRUE(log.build_time_s.has_value());
  EXPECT_DOUBLE_EQ(*log.build_time_s, 12.1507);
  auto get = [](const KeyValues& kv, const std::string& k) {
    for (const auto& [key, v] : kv)
      if (key == k) return v;
    return std::string("<absent>");
  };
  EXPECT_EQ(get(log.build_options, "Precision"), "FP32+FP16");
  // The whole value, past the first ':' (TREx keeps "workspace").
  EXPECT_EQ(get(log.build_options, "Memory Pools"),
            "workspace: 2048 MiB, dlaSRAM: default, dlaLocalDRAM: default, dlaGlobalDRAM: default");
  EXPECT_EQ(get(log.build_options, "LayerPrecisions"), "");
  EXPECT_EQ(get(log.model_options, "Model"), "net.onnx");
  EXPECT_EQ(get(log.inference_options, "Iterations"), "10");
  EXPECT_EQ(get(log.device, "Selected Device"), "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(get(log.device, "Application Memory Clock Rate"), "1.215 GHz");
  // The note after the empty line is not part of the section.
  EXPECT_EQ(get(log.device, "Note"), "<absent>");
  ASSERT_TRUE(log.perf.has_value());
  const auto& p = *log.perf;
  EXPECT_DOUBLE_EQ(*p.throughput_qps, 20574.9);
  EXPECT_DOUBLE_EQ(*p.latency->min, 0.0541992);
  EXPECT_DOUBLE_EQ(*p.latency->mean, 0.0597158);
  EXPECT_DOUBLE_EQ(*p.latency->median, 0.0593262);
  ASSERT_EQ(p.latency->percentiles.size(), 3u);
  EXPECT_DOUBLE_EQ(p.latency->percentiles[2].first, 99);
  EXPECT_DOUBLE_EQ(p.latency->percentiles[2].second, 0.0688477);
  EXPECT_DOUBLE_EQ(*p.gpu_compute->mean, 0.0457264);
  EXPECT_DOUBLE_EQ(*p.h2d->max, 0.0373535);
  EXPECT_DOUBLE_EQ(*p.host_walltime_s, 3.00005);
  EXPECT_DOUBLE_EQ(*p.gpu_compute_total_s, 2.82246);
  ASSERT_EQ(p.warnings.size(), 2u);  // two "* ..." warnings, each with its continuation line
  EXPECT_EQ(p.warnings[1].rfind("GPU compute time is unstable, with coefficient of variance = 11.54%. If not", 0), 0u)
      << p.warnings[1];
  EXPECT_TRUE(log.notes.empty());
}

TEST(TrtexecLog, Parses10xRunLogAndItsDevice) {
  auto log = read_trtexec_log(fixture("logs/trtexec-10.3.log"));
  EXPECT_EQ(log.tensorrt_version, "10.3.0");
  EXPECT_TRUE(log.build_options.empty());  // an engine loaded, not built
  ASSERT_TRUE(log.perf.has_value());
  EXPECT_DOUBLE_EQ(*log.perf->throughput_qps, 49373.1);
  EXPECT_TRUE(log.perf->warnings.empty());
  auto plan = compute_plan({fixture("logs/trtexec-10.3.log")});
  auto d = device_peaks(plan);
  EXPECT_EQ(d.device, "NVIDIA GeForce RTX 4090");
  // 384 bits / 8 × 10.501 GHz × 2 = 1008.096 GB/s (datasheet: 1,008); 128 × 2.52 × 512 × 2 FP16.
  EXPECT_NEAR(*d.memory_gbps, 1008.096, 1e-9);
  EXPECT_NEAR(*d.compute_for("FP16"), 330301.44, 1e-6);
  EXPECT_NEAR(*d.compute_for("FP8"), 660602.88, 1e-6);
  EXPECT_NE(d.compute_basis.find("Application Compute Clock Rate 2.52 GHz"), std::string::npos) << d.compute_basis;
  EXPECT_NE(d.compute_basis.find("GeForce"), std::string::npos) << d.compute_basis;
  // The builder stays the build.metadata.json's; device and performance are the log's.
  EXPECT_EQ(plan.builder_source, "build.metadata.json");
  EXPECT_EQ(plan.device_source, "trtexec log " + fixture("logs/trtexec-10.3.log"));
  EXPECT_EQ(plan.performance_source, plan.device_source);
}

TEST(TrtexecLog, LogsReplaceMetadataAndFeedEndToEnd) {
  auto before = end_to_end(compute_plan());
  EXPECT_DOUBLE_EQ(*before.throughput_qps, 20000.0);
  EXPECT_DOUBLE_EQ(*before.trtexec_mean_ms, 0.05);  // metadata [min, max, mean, ...]
  auto plan = compute_plan({fixture("logs/trtexec-8.6.log"), fixture("logs/trtexec-10.3.log")});
  ASSERT_EQ(plan.logs.size(), 2u);
  auto e = end_to_end(plan);
  EXPECT_DOUBLE_EQ(*e.throughput_qps, 49373.1);  // the later log's summary
  EXPECT_DOUBLE_EQ(*e.trtexec_mean_ms, 0.0288519);
  EXPECT_DOUBLE_EQ(*e.trtexec_median_ms, 0.0285645);
  // The build log describes the builder; the run log (no Build Options) leaves it.
  EXPECT_EQ(plan.builder_source, "trtexec log " + fixture("logs/trtexec-8.6.log"));
  bool precision = false;
  for (const auto& [k, v] : plan.builder) precision |= k == "Precision" && v == "FP32+FP16";
  EXPECT_TRUE(precision);
  // The device JSON keeps TREx's numeric fields as numbers.
  auto dev = json::parse(plan.device_json);
  EXPECT_EQ(dev["SMs"], 128.0);
  EXPECT_EQ(dev["Selected Device"], "NVIDIA GeForce RTX 4090");
  // A timing-less plan gets its end-to-end figures from a log alone.
  auto files = find_plan_files(fixture("v10-myelin/bert.onnx.engine"));
  files.logs = {fixture("logs/trtexec-8.6.log")};
  auto bert = end_to_end(load_plan(files));
  EXPECT_DOUBLE_EQ(*bert.trtexec_mean_ms, 0.0597158);
}

TEST(TrtexecLog, HostileLines) {
  // CRLF endings, no timestamps, invalid UTF-8, a figure out of range, an
  // unknown unit, NaN, and a 3 MB line: parsed, figures refused with notes.
  std::string text =
      "&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --onnx=\xff\xfe.onnx\r\n"
      "[I] === Device Information ===\r\n"
      "[I] Selected Device: GPU \xc3\x28 bad\r\n"
      "[I] SMs: 108\r\n"
      "[I] === Performance summary ===\r\n"
      "[I] Throughput: 1e400 qps\r\n"
      "[I] Latency: min = 0.5 ms, max = nan ms, mean = 2 fortnights, median = -1 ms, percentile(99%) = 0.7 ms, "
      "percentile(250%) = 0.9 ms\r\n"
      "[I] GPU Compute Time: min = 1 s, max = 2000 us, mean = 1.5 ms, median = 1.4 ms\r\n"
      "[I] " + std::string(3 << 20, 'x') + "\r\n"
      "&&&& PASSED TensorRT.trtexec\r\n";
  auto log = parse_trtexec_log(text, "hostile.log");
  EXPECT_EQ(log.result, "PASSED");
  EXPECT_EQ(log.command, "trtexec --onnx=\xef\xbf\xbd\xef\xbf\xbd.onnx");  // U+FFFD twice
  ASSERT_EQ(log.device.size(), 2u);
  EXPECT_EQ(log.device[0].second, "GPU \xef\xbf\xbd( bad");
  ASSERT_TRUE(log.perf.has_value());
  EXPECT_FALSE(log.perf->throughput_qps.has_value());
  const auto& l = *log.perf->latency;
  EXPECT_DOUBLE_EQ(*l.min, 0.5);
  EXPECT_FALSE(l.max.has_value());
  EXPECT_FALSE(l.mean.has_value());
  EXPECT_FALSE(l.median.has_value());
  ASSERT_EQ(l.percentiles.size(), 1u);
  const auto& g = *log.perf->gpu_compute;
  EXPECT_DOUBLE_EQ(*g.min, 1000.0);  // 1 s
  EXPECT_DOUBLE_EQ(*g.max, 2.0);     // 2000 us
  EXPECT_EQ(log.notes.size(), 5u);  // throughput, max, mean, median, percentile(250%); nothing for the long line
  for (const auto& n : log.notes) EXPECT_EQ(n.rfind("line ", 0), 0u) << n;
}

TEST(TrtexecLog, NotALogIsAClearError) {
  for (std::string text : {std::string(""), std::string("hello\nworld\n"), std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10),
                           std::string(1 << 16, '\0')}) {
    try {
      parse_trtexec_log(text, "x.log");
      ADD_FAILURE() << "accepted: " << text.substr(0, 10);
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "x.log");
      EXPECT_NE(e.problem().find("not a trtexec log"), std::string::npos) << e.problem();
    }
  }
  EXPECT_THROW(read_trtexec_log(fixture("logs/no-such.log")), InputError);
  EXPECT_THROW(read_trtexec_log(fixture("logs")), InputError);  // a folder
}
