// --target on check, matrix and partition, run as a user would; the DLA placement of
// torchvision models against tests/models/dla_expected.json.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "support/onnx_builder.h"
#include "support/paths.h"

namespace trtlens {
namespace {

using namespace trtlens::test;
using json = nlohmann::json;

std::string conv_model(const std::string& name) { return save_conv_relu_model(temp_dir(name)); }

TEST(TargetCli, UnknownTargetIsAUsageErrorListingTheKnownOnes) {
  std::string model = conv_model("target_cli_unknown");
  for (const char* cmd : {"check", "matrix", "partition"}) {
    RunResult r = run_trtlens({cmd, model, "--target", "jetson-nano-9000"});
    EXPECT_EQ(r.exit_code, 2) << cmd << r.err;
    EXPECT_NE(r.err.find("unknown target 'jetson-nano-9000'; known: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("orin-dla"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
}

// `--target ""` used to read as no target at all: now a usage error, one line, nothing written. (`--target=` is
// CLI11's own "1 required TEXT missing", exit 2, as for every option.)
TEST(TargetCli, AnEmptyTargetIsAUsageError) {
  std::string model = conv_model("target_cli_empty");
  std::string dir = temp_dir("target_cli_empty_out");
  std::vector<std::vector<std::string>> runs = {{"check", model, "--target", ""},
                                                {"matrix", model, "--target", ""},
                                                {"partition", model, "--target", "", "-o", dir + "/parts"},
                                                {"report", model, "-o", dir + "/r.html", "--target", ""}};
  for (const auto& args : runs) {
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << r.err;
    EXPECT_NE(r.err.find("an empty target"), std::string::npos) << args[0] << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
  EXPECT_TRUE(folder_entries(dir).empty());
}

// An alias from a family file (jetson-orin.tsv: agx-orin) judges on its target, which the output names.
TEST(TargetCli, AnAliasJudgesOnItsTarget) {
  RunResult r = run_trtlens({"check", conv_model("target_cli_alias"), "--target", "agx-orin", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["runtime"]["target"]["name"], "orin");
  EXPECT_EQ(doc["runtime"]["release"], "10.3");
}

TEST(TargetCli, AReleaseTheJetsonDoesNotShipIsAUsageError) {
  RunResult r = run_trtlens({"check", conv_model("target_cli_release"), "--trt", "11.1", "--target", "orin"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("TensorRT 11.1 does not run on orin"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("10.3 (JetPack 6.1"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// TensorRT 11.4.1 supports JetPack 7.2.2 or later on AGX Orin and Thor (its SBSA build): a runs row beside the ships
// rows. 11.0 - 11.3 run on no Jetson: the usage error names the releases the JetPacks ship and the 11.4.. range.
TEST(TargetCli, OrinAndThorRunTheSbsaBuildFrom114) {
  std::string model = conv_model("target_cli_114");
  for (const char* target : {"orin", "thor"}) {
    RunResult r = run_trtlens({"check", model, "--trt", "11.4", "--target", target, "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << target << r.err;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["runtime"]["release"], "11.4");
    EXPECT_EQ(doc["runtime"]["target"]["name"], target);
  }
  RunResult r = run_trtlens({"check", model, "--trt", "11.3", "--target", "orin"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("TensorRT 11.3 does not run on orin"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("10.3 (JetPack 6.1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("11.4.. (JetPack 7.2.2 or later, TensorRT's SBSA build (11.4.1+)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
}

// TensorRT 10.16.1 adds Orin's iGPU through its SBSA build (to be bundled in a JetPack 7.x), without Orin's DLA: a
// user on JetPack 7.2 runs 10.16 on orin, and the release stays out of orin-dla. Without --trt orin keeps 10.3.
TEST(TargetCli, OrinRunsTheSbsaBuildOf1016WithoutItsDla) {
  std::string model = conv_model("target_cli_1016");
  RunResult r = run_trtlens({"check", model, "--trt", "10.16", "--target", "orin", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["runtime"]["release"], "10.16");
  EXPECT_EQ(doc["runtime"]["target"]["name"], "orin");
  RunResult dla = run_trtlens({"check", model, "--trt", "10.16", "--target", "orin-dla", "--precision", "fp16"});
  EXPECT_EQ(dla.exit_code, 2) << dla.err;
  EXPECT_NE(dla.err.find("no DLA facts for TensorRT 10.16"), std::string::npos) << dla.err;
  EXPECT_EQ(std::count(dla.err.begin(), dla.err.end(), '\n'), 1) << dla.err;
  // 10.4 - 10.15 name no Orin outside JetPack 6's 10.3: still a usage error naming the 10.16 row.
  RunResult r15 = run_trtlens({"check", model, "--trt", "10.15", "--target", "orin"});
  EXPECT_EQ(r15.exit_code, 2) << r15.err;
  EXPECT_NE(r15.err.find("10.16 (JetPack 7.x, TensorRT's SBSA build (10.16.1+"), std::string::npos) << r15.err;
  json plain = json::parse(run_trtlens({"check", model, "--target", "orin", "--format", "json"}).out);
  EXPECT_EQ(plain["runtime"]["release"], "10.3");
}

// Maxwell (sm_50, sm_52) runs 5.1 - 8.6 (dropped in 9.0) at FP32 only; sm_53 is the Jetson Nano.
TEST(TargetCli, MaxwellRunsUpTo86AtFp32) {
  std::string model = conv_model("target_cli_maxwell");
  for (const char* target : {"sm_50", "sm_52", "5.2", "m40", "tesla-m60", "gtx750ti"}) {
    RunResult r = run_trtlens({"check", model, "--trt", "8.6", "--target", target, "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << target << r.err;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["runtime"]["release"], "8.6") << target;
  }
  json m = json::parse(run_trtlens({"check", model, "--target", "sm_52", "--format", "json"}).out);
  EXPECT_EQ(m["runtime"]["release"], "8.6");  // the newest it runs
  EXPECT_EQ(m["runtime"]["target"]["name"], "m40");
  json fp16 = json::parse(
      run_trtlens({"check", model, "--trt", "7.1", "--target", "sm_50", "--precision", "fp16", "--format", "json"}).out);
  EXPECT_EQ(fp16["runtime"]["target"]["name"], "gtx750ti");
  bool fallback = false;
  for (const auto& n : fp16["nodes"]) fallback = fallback || n["verdict"] == "FALLBACK";
  EXPECT_TRUE(fallback) << fp16.dump();  // no FP16 kernels on sm_50
  for (const char* release : {"9.0", "10.0"}) {
    RunResult r = run_trtlens({"check", model, "--trt", release, "--target", "sm_52"});
    EXPECT_EQ(r.exit_code, 2) << release << r.err;
    EXPECT_NE(r.err.find(std::string("TensorRT ") + release + " does not run on m40"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("5.1..8.6"), std::string::npos) << r.err;
  }
  json nano = json::parse(run_trtlens({"check", model, "--target", "sm_53", "--format", "json"}).out);
  EXPECT_EQ(nano["runtime"]["target"]["name"], "nano");
}

// An FP16 3x3 Conv, then an FP16 33x33 one (kernel 1..32): 11.4's DLA builds are strongly typed, so the model's own
// types, not --precision, decide what reaches the DLA.
std::string dla_split_fp16_model(const std::string& name) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat16, {1, 3, 40, 40});
  g.init_half("ws", {4, 3, 3, 3});
  g.init_half("wl", {4, 4, 33, 33});
  g.node("Conv", {"x", "ws"}, {"a"}, "conv_small");
  g.node("Conv", {"a", "wl"}, {"y"}, "conv_large");
  g.output("y", kFloat16, {1, 4, 6, 6});
  return mb.save(temp_dir(name) + "/m.onnx");
}

TEST(TargetCli, OrinDlaAt114PlacesByThe114Rules) {
  std::string model = dla_split_fp16_model("target_cli_dla114");
  RunResult r = run_trtlens(
      {"check", model, "--trt", "11.4", "--precision", "fp16", "--target", "orin-dla", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out), dla = doc["dla"];
  EXPECT_EQ(doc["runtime"]["release"], "11.4");
  EXPECT_EQ(dla["dla_nodes"], 1);
  EXPECT_EQ(dla["gpu_fallback_nodes"], 1);
  std::map<std::string, json> outcome;
  for (const auto& n : doc["nodes"]) outcome[n["name"]] = dla["outcomes"][n["dla"]["outcome"].get<size_t>()];
  EXPECT_EQ(outcome["conv_small"]["verdict"], "DLA");
  EXPECT_EQ(outcome["conv_large"]["verdict"], "GPU_FALLBACK");
  EXPECT_NE(outcome["conv_large"]["reason"].get<std::string>().find("kernel size 33 > 32"), std::string::npos);
  std::string source = dla["sources"][outcome["conv_large"]["source"].get<size_t>()];
  EXPECT_NE(source.find("dla-layer-restrictions.html (Table 12: Convolution, kernel [1,32]"), std::string::npos)
      << source;
  RunResult text = run_trtlens({"check", model, "--trt", "11.4", "--precision", "fp16", "--target", "orin-dla"});
  EXPECT_NE(text.out.find("DLA (TensorRT 11.4 DLA rules): 1 of 2 nodes"), std::string::npos) << text.out;
  // 11.5 runs on Orin's GPU, but no DLA facts describe it.
  RunResult r115 = run_trtlens({"check", model, "--trt", "11.5", "--precision", "fp16", "--target", "orin-dla"});
  EXPECT_EQ(r115.exit_code, 2);
  EXPECT_NE(r115.err.find("no DLA facts for TensorRT 11.5 (target orin-dla)"), std::string::npos) << r115.err;
}

// The releases Xavier's JetPacks ship (4.6.1: 8.2; 5.0.2: 8.4) place nodes on its DLA; TensorRT 11.0 - 11.3 have no
// DLA and ship with no JetPack, so a DLA core at 11.x is a usage error naming the releases it runs.
TEST(TargetCli, XavierDlaRuns82And84AndOrinDlaRefuses11) {
  std::string model = conv_model("target_cli_xavier");
  for (const char* trt : {"8.2", "8.4"}) {
    RunResult r = run_trtlens(
        {"check", model, "--target", "xavier-dla", "--trt", trt, "--precision", "fp16", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << trt << r.err;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["runtime"]["release"], trt);
    EXPECT_EQ(doc["dla"]["dla_nodes"], 2) << trt;
    EXPECT_EQ(doc["dla"]["gpu_fallback_nodes"], 0) << trt;
  }
  for (const char* trt : {"11.0", "11.3"}) {
    RunResult r = run_trtlens({"check", model, "--target", "orin-dla", "--trt", trt, "--precision", "fp16"});
    EXPECT_EQ(r.exit_code, 2) << trt << r.err;
    EXPECT_NE(r.err.find(std::string("TensorRT ") + trt + " does not run on orin-dla"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("8.4 (JetPack 5.0.2"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(TargetCli, WithoutTrtATargetTakesTheNewestReleaseItRuns) {
  RunResult r = run_trtlens({"check", conv_model("target_cli_default"), "--target", "orin", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["runtime"]["release"], "10.3");
  EXPECT_EQ(doc["runtime"]["target"]["name"], "orin");
  EXPECT_EQ(doc["runtime"]["target"]["compute_capability"], "8.7");
  EXPECT_FALSE(doc.contains("dla"));
  // A Jetson takes the newest release its JetPack ships, though it runs 11.4.. as well.
  for (auto [target, release] : {std::pair{"orin-dla", "10.3"}, std::pair{"thor", "10.13"}}) {
    RunResult t = run_trtlens({"check", conv_model("target_cli_default_jetson"), "--target", target, "--precision",
                               "fp16", "--format", "json"});
    ASSERT_EQ(t.exit_code, 0) << target << t.err;
    EXPECT_EQ(json::parse(t.out)["runtime"]["release"], release) << target;
  }
}

TEST(TargetCli, Fp8OnAnA100IsFallbackWithTheReason) {
  std::string model = save_fp8_qdq_conv_model(temp_dir("target_cli_fp8"));
  RunResult a100 =
      run_trtlens({"check", model, "--trt", "10.8", "--precision", "fp8", "--target", "a100", "--format", "json"});
  RunResult h100 =
      run_trtlens({"check", model, "--trt", "10.8", "--precision", "fp8", "--target", "h100", "--format", "json"});
  ASSERT_EQ(a100.exit_code, 0) << a100.err;
  ASSERT_EQ(h100.exit_code, 0) << h100.err;
  auto conv = [](const std::string& out) {
    json doc = json::parse(out);
    for (const auto& n : doc["nodes"])
      if (n["name"] == "conv") return n;
    return json();
  };
  json a = conv(a100.out), h = conv(h100.out);
  EXPECT_EQ(h["verdict"], "SUPPORTED");
  EXPECT_EQ(h["precision"], "FP8");
  EXPECT_EQ(a["verdict"], "FALLBACK");
  EXPECT_EQ(a["precision"], "FP32");
  EXPECT_EQ(a["reasons"].back()["rule"], "target");
  EXPECT_NE(a["reasons"].back()["message"].get<std::string>().find("no FP8 kernels"), std::string::npos);
}

TEST(TargetCli, MatrixOnATargetListsOnlyTheReleasesItRuns) {
  RunResult r = run_trtlens({"matrix", conv_model("target_cli_matrix"), "--target", "xavier", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  std::set<std::string> releases;
  for (const auto& c : doc["cells"]) releases.insert(c["release"].get<std::string>());
  EXPECT_EQ(releases, (std::set<std::string>{"8.0", "8.2", "8.4", "8.5"}));
  EXPECT_EQ(doc["target"]["name"], "xavier");
}

TEST(TargetCli, CheckTextOnADlaTargetSaysWhereEachNodeRuns) {
  RunResult r = run_trtlens(
      {"check", conv_model("target_cli_dla"), "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("target orin-dla"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DLA (TensorRT 8.5 DLA rules): 2 of 2 nodes (100.0%), 100.0% of MACs"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0 DLA<->GPU transitions; 1 DLA loadable (at most 16 per core)"), std::string::npos) << r.out;
  RunResult p = run_trtlens({"partition", conv_model("target_cli_partition"), "--trt", "8.5", "--target", "orin"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
}

// The torchvision models of the model cache (tests/models/export.py) at the targets and releases
// tests/models/dla_expected.json names: every node off the DLA, with the restriction that keeps it off.
TEST(TargetCliRealModels, TorchvisionModelsOnOrinDlaMatchTheExpectedShares) {
  std::string cache = std::string(TRTLENS_TEST_TMP) + "/../model-cache";  // the build tree's, as models.real fills it
  json expected = json::parse(read_text(std::string(TRTLENS_SOURCE_DIR) + "/tests/models/dla_expected.json"));
  int checked = 0;
  for (const auto& [file, want] : expected.items()) {
    if (file.starts_with("_")) continue;
    std::string path = cache + "/" + file.substr(0, file.find(' '));  // "resnet18_op17.onnx int8": another runtime
    if (!std::filesystem::exists(path)) {
      ADD_FAILURE() << "the model_cache fixture (models.export) did not make " << path;
      continue;
    }
    ++checked;
    RunResult r = run_trtlens({"check", path, "--trt", want["trt"], "--precision", want["precision"], "--target",
                               want["target"], "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << file << r.err;
    json doc = json::parse(r.out), dla = doc["dla"];
    for (const char* key : {"dla_nodes", "gpu_fallback_nodes", "unsupported_nodes", "transitions", "loadables"})
      EXPECT_EQ(dla[key], want[key]) << file << " " << key;
    std::map<std::string, std::string> off;
    for (const auto& n : doc["nodes"]) {
      if (n["graph"] != "") continue;
      const json& o = dla["outcomes"][n["dla"]["outcome"].get<size_t>()];
      if (o["verdict"] != "DLA" && o["verdict"] != "-")
        off[n["name"]] = o["reason"].get<std::string>() + " | " + dla["sources"][o["source"].get<size_t>()].get<std::string>();
    }
    ASSERT_EQ(off.size(), want["off_dla"].size()) << file;
    for (const auto& [name, why] : want["off_dla"].items()) {
      ASSERT_TRUE(off.count(name)) << file << " " << name;
      EXPECT_NE(off[name].find(why["reason_has"].get<std::string>()), std::string::npos) << off[name];
      EXPECT_NE(off[name].find("8.5-GA builtin_op_importers.cpp:"), std::string::npos) << off[name];
    }
    double share = static_cast<double>(dla["dla_macs"].get<int64_t>()) / dla["total_macs"].get<int64_t>();
    EXPECT_GE(share, want["min_mac_share"].get<double>()) << file;
  }
  EXPECT_GT(checked, 0) << "no torchvision model in " << cache;
}

// A 3x3 Conv the DLA runs, then a 33x33 one it does not (kernel 1..32).
std::string dla_split_model(const std::string& name) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 40, 40});
  g.init_float("ws", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  g.init_float("wl", {4, 4, 33, 33}, std::vector<float>(4 * 4 * 33 * 33, 0.1f));
  g.node("Conv", {"x", "ws"}, {"a"}, "conv_small");
  g.node("Conv", {"a", "wl"}, {"y"}, "conv_large");
  g.output("y", kFloat, {1, 4, 6, 6});
  return mb.save(temp_dir(name) + "/m.onnx");
}

// A Conv of static shapes and one with a dynamic batch (its MACs unknown).
std::string dynamic_conv_model(const std::string& name) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4, 8, 8});
  g.input("d", kFloat, {-1, 4, 8, 8});
  g.init_float("w", {4, 4, 3, 3}, std::vector<float>(144, 0.1f));
  attr_ints(g.node("Conv", {"x", "w"}, {"known"}, "known"), "pads", {1, 1, 1, 1});
  attr_ints(g.node("Conv", {"d", "w"}, {"dynamic"}, "dynamic"), "pads", {1, 1, 1, 1});
  g.output("known");
  g.output("dynamic");
  return mb.save(temp_dir(name) + "/m.onnx");
}

// A node whose MACs are unknown is not counted as 0: no share of MACs is printed, the count of such nodes is.
TEST(TargetCli, UnknownMacsAreNamedNotCountedAsZero) {
  std::string model = dynamic_conv_model("target_cli_macs");
  std::vector<std::string> args = {"check", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"};
  RunResult t = run_trtlens(args);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("1 of 2 nodes (50.0%), MACs on the DLA: 9.22 k of at least 9.22 k known; 1 node's MACs unknown "
                       "(dynamic shapes): pass --shapes"),
            std::string::npos)
      << t.out;
  EXPECT_EQ(t.out.find("% of MACs"), std::string::npos) << t.out;
  args.insert(args.end(), {"--format", "json"});
  RunResult j = run_trtlens(args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["dla"]["macs_unknown_nodes"], 1);
  EXPECT_EQ(doc["dla"]["total_macs"], 9216);
  EXPECT_EQ(doc["nodes"][0]["dla"]["macs"], 9216);
  EXPECT_TRUE(doc["nodes"][1]["dla"]["macs"].is_null());
  args.back() = "markdown";
  RunResult md = run_trtlens(args);
  EXPECT_NE(md.out.find("1 node's MACs unknown (dynamic shapes): pass --shapes"), std::string::npos) << md.out;
  RunResult p = run_trtlens({"partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.out.find("MACs on the DLA:            9.22 k of at least 9.22 k known; 1 Conv/MatMul/Gemm node's MACs "
                       "unknown (dynamic shapes"),
            std::string::npos)
      << p.out;
}

// --fail-on gpu_fallback, --min-dla-share and --max-dla-loadables gate CI on the placement: exit 1, a line on
// stderr, and the JUnit failure naming the gate.
TEST(TargetCli, DlaGatesFailCheckNamingTheGate) {
  std::string split = dla_split_model("target_cli_gates");  // 1 of 2 nodes on the DLA, 1 loadable
  std::vector<std::string> base = {"check", split, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"};
  auto run = [&](std::vector<std::string> more) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return run_trtlens(args);
  };
  EXPECT_EQ(run({}).exit_code, 0);
  RunResult fallback = run({"--fail-on", "unsupported,gpu_fallback"});
  EXPECT_EQ(fallback.exit_code, 1) << fallback.err;
  EXPECT_NE(fallback.err.find("--fail-on gpu_fallback: 1 node falls back from the DLA to the GPU"), std::string::npos)
      << fallback.err;
  EXPECT_EQ(run({"--min-dla-share", "50"}).exit_code, 0);
  RunResult share = run({"--min-dla-share", "60%"});
  EXPECT_EQ(share.exit_code, 1);
  EXPECT_NE(share.err.find("--min-dla-share 60: 1 of 2 placed nodes (50.0%) run on the DLA"), std::string::npos)
      << share.err;
  EXPECT_EQ(run({"--max-dla-loadables", "1"}).exit_code, 0);
  RunResult loadables = run({"--max-dla-loadables", "0", "--format", "junit"});
  EXPECT_EQ(loadables.exit_code, 1);
  EXPECT_NE(loadables.out.find("<failure message=\"--max-dla-loadables 0: the placement needs 1 DLA loadable\" "
                               "type=\"trtlens.dla\">"),
            std::string::npos)
      << loadables.out;
  EXPECT_NE(loadables.out.find("tests=\"1\" failures=\"1\""), std::string::npos) << loadables.out;
  // The conv model runs whole on the DLA: every gate holds.
  RunResult whole = run_trtlens({"check", conv_model("target_cli_gates_ok"), "--trt", "8.5", "--precision", "fp16",
                                 "--target", "orin-dla", "--fail-on", "gpu_fallback", "--min-dla-share", "100",
                                 "--max-dla-loadables", "1", "--format", "junit"});
  EXPECT_EQ(whole.exit_code, 0) << whole.out;
  EXPECT_EQ(whole.out.find("<failure"), std::string::npos) << whole.out;
}

TEST(TargetCli, BadDlaGatesAreOneLineUsageErrors) {
  std::string model = conv_model("target_cli_gates_bad");
  std::vector<std::string> dla = {"--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"};
  struct Bad {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Bad> bad = {
      {{"--min-dla-share", "150"}, "--min-dla-share 150: expected a percentage from 0 to 100"},
      {{"--min-dla-share", "half"}, "--min-dla-share half: expected a percentage from 0 to 100"},
      {{"--min-dla-share", ""}, "--min-dla-share : expected a percentage from 0 to 100"},
      {{"--max-dla-loadables", "-1"}, "--max-dla-loadables -1: expected a whole number, 0 or more"},
      {{"--max-dla-loadables", "2.5"}, "--max-dla-loadables 2.5: expected a whole number, 0 or more"},
      {{"--fail-on", "gpu_fallbak"}, "--fail-on gpu_fallbak: expected none or one or more of"},
  };
  for (const Bad& b : bad) {
    std::vector<std::string> args = {"check", model};
    args.insert(args.end(), dla.begin(), dla.end());
    args.insert(args.end(), b.args.begin(), b.args.end());
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << b.says << r.err;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // A DLA gate without a DLA target cannot be judged.
  for (const char* target : {"", "orin"}) {
    std::vector<std::string> args = {"check", model, "--trt", "8.5", "--fail-on", "gpu_fallback"};
    if (*target) args.insert(args.end(), {"--target", target});
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--fail-on gpu_fallback needs a DLA --target"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  RunResult share = run_trtlens({"check", model, "--min-dla-share", "10"});
  EXPECT_EQ(share.exit_code, 2);
  EXPECT_NE(share.err.find("--min-dla-share needs a DLA --target"), std::string::npos) << share.err;
}

// At the default precision (fp32) nothing runs on the DLA: check, partition and report say why.
TEST(TargetCli, ADlaTargetAtFp32SaysNothingRunsOnTheDla) {
  const std::string note = "DLA runs FP16 and INT8 only: at fp32 every node runs on the GPU; pass --precision fp16 or int8";
  std::string model = conv_model("target_cli_fp32");
  for (const char* cmd : {"check", "partition"}) {
    RunResult t = run_trtlens({cmd, model, "--trt", "8.5", "--target", "orin-dla"});
    EXPECT_EQ(t.exit_code, 0) << t.err;
    EXPECT_NE(t.out.find("note: " + note), std::string::npos) << cmd << t.out;
    RunResult md = run_trtlens({cmd, model, "--trt", "8.5", "--target", "orin-dla", "--format", "markdown"});
    EXPECT_NE(md.out.find("> DLA runs FP16 and INT8 only: at fp32 every node runs on the GPU; pass --precision fp16"),
              std::string::npos)
        << cmd << md.out;
    RunResult j = run_trtlens({cmd, model, "--trt", "8.5", "--target", "orin-dla", "--format", "json"});
    json notes = json::parse(j.out)["notes"];
    EXPECT_NE(std::find(notes.begin(), notes.end(), note), notes.end()) << cmd << notes.dump();
    RunResult fp16 = run_trtlens({cmd, model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla"});
    EXPECT_EQ(fp16.out.find("DLA runs FP16 and INT8 only"), std::string::npos) << cmd << fp16.out;
  }
  std::string out = temp_dir("target_cli_fp32_report") + "/m.html";
  RunResult r = run_trtlens({"report", model, "-o", out, "--trt", "8.5", "--target", "orin-dla"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: " + note), std::string::npos) << r.err;
  EXPECT_NE(read_text(out).find(note), std::string::npos);
}

// The detail of main-graph node `node` at runtime `k` of a report page (profiles are run-length coded).
json page_detail(const json& d, size_t node, size_t k) {
  const json& rle = d["profiles"][d["graphs"][0]["nodes"][node]["p"].get<size_t>()];
  size_t at = 0;
  for (size_t j = 0; j < rle.size(); j += 2) {
    at += rle[j + 1].get<size_t>();
    if (k < at) return d["details"][rle[j].get<size_t>()];
  }
  return json();
}

size_t index_of(const json& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i)
    if ((list[i].is_object() ? list[i]["name"] : list[i]) == name) return i;
  return list.size();
}

TEST(TargetCli, ReportOnADlaTargetCarriesTheTargetRuntimesAndDlaPlacement) {
  std::string model = dla_split_model("target_cli_report");
  std::string out = temp_dir("target_cli_report_out") + "/m.html";
  RunResult r = run_trtlens({"report", model, "-o", out, "--target", "orin-dla", "--trt", "8.5", "--precision", "fp16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json d = embedded_json(read_text(out), "trtlens-data");
  size_t rels = d["releases"].size(), precs = d["precisions"].size();
  size_t r85 = index_of(d["releases"], "8.5"), r111 = index_of(d["releases"], "11.1"), fp16 = index_of(d["precisions"], "fp16");
  ASSERT_LT(r85, rels);
  EXPECT_EQ(d["initial"], json::array({r85, fp16, 1}));
  EXPECT_EQ(d["target"]["name"], "orin-dla");
  EXPECT_EQ(d["target"]["dla"], true);
  EXPECT_EQ(d["target"]["runs"][r85], true);
  if (r111 < rels) {
    EXPECT_EQ(d["target"]["runs"][r111], false);  // no JetPack ships 11.x
    EXPECT_TRUE(d["target"]["precisions"][r111].is_null());
  }
  size_t r84 = index_of(d["releases"], "8.4");  // JetPack 5.0.2 ships it, data/targets/dla/8.4.tsv describes it
  size_t r82 = index_of(d["releases"], "8.2");  // JetPack 4.6.1 ships it for Xavier only
  ASSERT_LT(r84, rels);
  ASSERT_LT(r82, rels);
  EXPECT_EQ(d["target"]["runs"][r84], true);
  EXPECT_EQ(d["target"]["runs"][r82], false);
  EXPECT_TRUE(d["target"]["precisions"][r84].is_string());
  EXPECT_NE(d["target"]["precisions"][r85].get<std::string>().find("FP16"), std::string::npos) << d["target"].dump();
  // Every profile covers the plain runtimes and the target's.
  for (const json& p : d["profiles"]) {
    size_t covered = 0;
    for (size_t j = 1; j < p.size(); j += 2) covered += p[j].get<size_t>();
    EXPECT_EQ(covered, rels * precs * 2);
  }
  size_t plain = fp16 * rels + r85, target = rels * precs + plain;
  json small = page_detail(d, 0, target), large = page_detail(d, 1, target);
  ASSERT_EQ(small.size(), 5u) << small.dump();
  EXPECT_EQ(small[4][0], "DLA");
  ASSERT_EQ(large.size(), 5u) << large.dump();
  EXPECT_EQ(large[4][0], "GPU_FALLBACK");
  std::string why = d["strings"][large[4][1].get<size_t>()];
  EXPECT_NE(why.find("33"), std::string::npos) << why;
  // The plain runtimes carry no placement.
  EXPECT_EQ(page_detail(d, 1, plain).size(), 4u);

  // Without --target the page data has no target and no third axis.
  RunResult p = run_trtlens({"report", model, "-o", out, "--trt", "8.5"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json plain_page = embedded_json(read_text(out), "trtlens-data");
  EXPECT_FALSE(plain_page.contains("target"));
  EXPECT_EQ(plain_page["initial"].size(), 2u);
}

TEST(TargetCli, ReportOnAGpuTargetOpensOnTheNewestReleaseItRuns) {
  std::string out = temp_dir("target_cli_report_gpu") + "/m.html";
  RunResult r = run_trtlens({"report", conv_model("target_cli_report_gpu_m"), "-o", out, "--target", "orin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json d = embedded_json(read_text(out), "trtlens-data");
  EXPECT_EQ(d["releases"][d["initial"][0].get<size_t>()]["name"], "10.3");
  EXPECT_EQ(d["target"]["dla"], false);
  EXPECT_EQ(page_detail(d, 0, 0).size(), 4u);  // no DLA placement off a DLA core
}

TEST(TargetCli, ReportBadTargetIsAUsageErrorAndWritesNothing) {
  std::string model = conv_model("target_cli_report_bad");
  std::string dir = temp_dir("target_cli_report_bad_out");
  RunResult unknown = run_trtlens({"report", model, "-o", dir + "/a.html", "--target", "jetson-nano-9000"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown target 'jetson-nano-9000'; known: "), std::string::npos) << unknown.err;
  RunResult release = run_trtlens({"report", model, "-o", dir + "/b.html", "--target", "orin", "--trt", "11.1"});
  EXPECT_EQ(release.exit_code, 2);
  EXPECT_NE(release.err.find("TensorRT 11.1 does not run on orin"), std::string::npos) << release.err;
  RunResult engine = run_trtlens({"report", model, "-o", dir + "/c.html", "--target", "orin", "--engine", dir + "/e"});
  EXPECT_EQ(engine.exit_code, 2);
  EXPECT_NE(engine.err.find("--target"), std::string::npos) << engine.err;
  for (const RunResult* x : {&unknown, &release, &engine})
    EXPECT_EQ(std::count(x->err.begin(), x->err.end(), '\n'), 1) << x->err;
  EXPECT_TRUE(folder_entries(dir).empty());
}

}  // namespace
}  // namespace trtlens
