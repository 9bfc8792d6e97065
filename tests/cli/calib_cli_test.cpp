// `trtlens calib` on caches written here; --model against an ONNX test model.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "support/paths.h"
#include "unit/trt_env_fake_install.h"

namespace trtlens::test {
namespace {

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

const char* kCache = "TRT-8601-EntropyCalibration2\ninput: 3c010a14\nconv: 3d8b7d5e\n";

}  // namespace

TEST(CalibCli, SameVersionIsUsable) {
  std::string dir = temp_dir("CalibCli_Same");
  write_text(dir + "/calib.cache", kCache);
  RunResult r = run_trtlens({"calib", dir + "/calib.cache", "--trt", "8.6.1"}, fake::hermetic_env(dir + "/sysroot"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "written by:  TensorRT 8.6.1 (8601 = M*1000+m*100+p")) << r.out;
  EXPECT_TRUE(contains(r.out, "calibrator:  EntropyCalibration2")) << r.out;
  EXPECT_TRUE(contains(r.out, "tensors:     2")) << r.out;
  EXPECT_TRUE(contains(r.out, "scale range: 0.00787594 .. 0.0681102")) << r.out;
  EXPECT_TRUE(contains(r.out, "usable with TensorRT 8.6.1: yes")) << r.out;
}

TEST(CalibCli, OtherVersionAndElevenAreNotUsable) {
  std::string dir = temp_dir("CalibCli_Other");
  write_text(dir + "/calib.cache", kCache);
  auto env = fake::hermetic_env(dir + "/sysroot");
  RunResult r = run_trtlens({"calib", dir + "/calib.cache", "--trt", "10.3"}, env);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "usable with TensorRT 10.3: no")) << r.out;
  RunResult e = run_trtlens({"calib", dir + "/calib.cache", "--trt", "11.0", "--format", "json"}, env);
  EXPECT_EQ(e.exit_code, 1);
  auto doc = nlohmann::json::parse(e.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["usable"]["verdict"], "no");
  EXPECT_TRUE(contains(doc["usable"]["reason"], "removed in TensorRT 11"));
  EXPECT_EQ(doc["tensor_count"], 2);
  EXPECT_EQ(doc["scales"][1]["bits"], "3d8b7d5e");
}

TEST(CalibCli, JudgesAgainstTheTensorRTEnvFinds) {
  std::string dir = temp_dir("CalibCli_Env");
  write_text(dir + "/calib.cache", kCache);
  std::string sysroot = dir + "/sysroot";
  fake::desktop_8(sysroot);
  RunResult r = run_trtlens({"calib", dir + "/calib.cache"}, fake::hermetic_env(sysroot));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "usable with TensorRT 8.6.1.6 (found at")) << r.out;
}

TEST(CalibCli, CorruptCacheIsOneLineAndExitTwo) {
  std::string dir = temp_dir("CalibCli_Corrupt");
  write_text(dir + "/calib.cache", "TRT-8601-EntropyCalibration2\ninput: 3c010a14\nconv 3d8b7d5e\n");
  RunResult r = run_trtlens({"calib", dir + "/calib.cache", "--trt", "8.6.1"}, fake::hermetic_env(dir + "/sysroot"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "calib.cache: line 3: 'conv 3d8b7d5e' is not 'tensor: scale'")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(CalibCli, ModelTensorsWithoutScaleAndStrayEntries) {
  std::string model = std::string(TRTLENS_TESTDATA_DIR) + "/node/test_relu/model.onnx";  // x -> Relu -> y
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "no ONNX test data at " << model;
  std::string dir = temp_dir("CalibCli_Model");
  write_text(dir + "/calib.cache",
             "TRT-8601-EntropyCalibration2\nx: 3c010a14\nold_name: 3d8b7d5e\n(Unnamed Layer* 3) [Constant]_output: 3c000000\n");
  RunResult r = run_trtlens({"calib", dir + "/calib.cache", "--trt", "8.6.1", "--model", model},
                            fake::hermetic_env(dir + "/sysroot"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "activation tensors without a scale: 1 (TensorRT runs them in higher precision): y"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "cache entries matching no model tensor: 2: (Unnamed Layer* 3) [Constant]_output, old_name"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "1 of them are \"(Unnamed Layer* N)\"")) << r.out;
}

}  // namespace trtlens::test
