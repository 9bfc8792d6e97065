// `trtlens env` run as a user would, against fake installs in controlled search paths.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "support/paths.h"
#include "unit/trt_env_fake_install.h"

namespace trtlens::test {
namespace {

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST(TrtEnvCli, NothingInstalledSaysSoAndExitsZero) {
  std::string sysroot = temp_dir("TrtEnvCli_Nothing");
  RunResult r = run_trtlens({"env"}, fake::hermetic_env(sysroot));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "No TensorRT found")) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(TrtEnvCli, TarballThroughTensorrtRootInTextAndJson) {
  std::string dir = temp_dir("TrtEnvCli_Tarball");
  std::string root = fake::tarball_10(dir + "/TensorRT-10.3.0.26");
  auto env = fake::hermetic_env(dir + "/sysroot");
  env.push_back("TENSORRT_ROOT=" + root);
  RunResult r = run_trtlens({"env"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "found via:   TENSORRT_ROOT")) << r.out;
  EXPECT_TRUE(contains(r.out, "version:     10.3.0.26  -> knowledge-base release 10.3")) << r.out;
  EXPECT_TRUE(contains(r.out, "getInferLibVersion")) << r.out;
  EXPECT_TRUE(contains(r.out, "tensorrt_version_10_3_0_26")) << r.out;
  EXPECT_TRUE(contains(r.out, "date 2024-07-31, changelist 34167542")) << r.out;
  EXPECT_FALSE(contains(r.out, "disagreement")) << r.out;

  RunResult j = run_trtlens({"env", "--format", "json"}, env);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["installs"].size(), 1u);
  EXPECT_EQ(doc["installs"][0]["version"], "10.3.0.26");
  EXPECT_EQ(doc["installs"][0]["release"], "10.3");
  EXPECT_EQ(doc["installs"][0]["infer_lib_version"], 100300);
  EXPECT_EQ(doc["installs"][0]["onnx_parser"]["version"], "10.3.0");
  EXPECT_EQ(doc["installs"][0]["sources"].size(), 5u);
}

TEST(TrtEnvCli, JetsonLayoutUnderSysrootAndNoSystemHidesIt) {
  std::string sysroot = temp_dir("TrtEnvCli_Jetson");
  fake::jetson_10(sysroot);
  RunResult r = run_trtlens({"env", "--format", "json"}, fake::hermetic_env(sysroot));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["installs"].size(), 1u);
  EXPECT_TRUE(contains(doc["installs"][0]["header"], "usr/include/aarch64-linux-gnu/NvInferVersion.h"));

  RunResult off = run_trtlens({"env", "--no-system"}, fake::hermetic_env(sysroot));
  EXPECT_TRUE(contains(off.out, "No TensorRT found")) << off.out;
  auto env = fake::hermetic_env(sysroot);
  env.push_back("TRTLENS_ENV_SYSTEM_PATHS=0");
  EXPECT_TRUE(contains(run_trtlens({"env"}, env).out, "No TensorRT found"));
}

// `env --path ROOT` on a root filesystem copied from a Jetson (usr/lib/aarch64-linux-gnu) or a
// Debian-style root (lib/x86_64-linux-gnu, include/x86_64-linux-gnu), with runtime-only packages:
// libnvinfer.so.10 and its real file, no unversioned libnvinfer.so link. Before issue 9 both were
// "No TensorRT found".
TEST(TrtEnvCli, PathFindsMultiarchRootsWithoutTheUnversionedLink) {
  std::string dir = temp_dir("TrtEnvCli_MultiarchRoots");
  std::string jetson = dir + "/jetson-rootfs", debian = dir + "/debian-root";
  fake::jetson_10(jetson);
  fake::install_lib(TRT_FAKE_NVINFER_8, debian + "/lib/x86_64-linux-gnu");
  fake::write_header(debian + "/include/x86_64-linux-gnu", 8, 6, 1, 6, false);
  for (const std::string& lib : {jetson + "/usr/lib/aarch64-linux-gnu", debian + "/lib/x86_64-linux-gnu"}) {
    ASSERT_TRUE(std::filesystem::remove(lib + "/libnvinfer.so")) << lib;  // runtime-only package
    ASSERT_FALSE(std::filesystem::exists(lib + "/libnvinfer.so"));
  }
  auto env = fake::hermetic_env(dir + "/sysroot");
  RunResult r = run_trtlens({"env", "--no-system", "--format", "json", "--path", jetson, "--path", debian}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["installs"].size(), 2u) << r.out;
  EXPECT_EQ(doc["installs"][0]["version"], "10.3.0.26");
  EXPECT_TRUE(contains(doc["installs"][0]["library"], "usr/lib/aarch64-linux-gnu/libnvinfer.so.10")) << r.out;
  EXPECT_TRUE(contains(doc["installs"][0]["header"], "jetson-rootfs/usr/include/aarch64-linux-gnu/NvInferVersion.h"));
  EXPECT_EQ(doc["installs"][1]["version"], "8.6.1.6");
  EXPECT_TRUE(contains(doc["installs"][1]["header"], "debian-root/include/x86_64-linux-gnu/NvInferVersion.h"));
}

TEST(TrtEnvCli, ReportsDisagreementsAndBrokenPieces) {
  std::string dir = temp_dir("TrtEnvCli_Broken");
  fake::install_lib(TRT_FAKE_NVINFER_UNLOADABLE, dir + "/a/lib");
  write_text(dir + "/a/include/NvInferVersion.h", "// no macros\n");
  fake::install_lib(TRT_FAKE_NVINFER_8, dir + "/b/lib");
  fake::write_header(dir + "/b/include", 8, 5, 3, 1, false);
  RunResult r = run_trtlens({"env", "--path", dir + "/a", "--path", dir + "/b"}, fake::hermetic_env(dir + "/sysroot"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "TensorRT installs: 2")) << r.out;
  EXPECT_TRUE(contains(r.out, "problem: " + dir + "/a/include/NvInferVersion.h: no NV_TENSORRT_MAJOR")) << r.out;
  EXPECT_TRUE(contains(r.out, "getInferLibVersion: cannot load: libtrtlens_fake_dep.so")) << r.out;
  EXPECT_TRUE(contains(r.out, "disagreement: header says 8.5.3.1, getInferLibVersion says 8.6.1")) << r.out;
}

TEST(TrtEnvCli, ListsGpusFromNvidiaSmi) {
  std::string dir = temp_dir("TrtEnvCli_Gpu");
  std::filesystem::create_directories(dir + "/bin");
  std::filesystem::create_symlink(fake::fixtures() + "/fake_nvidia_smi.sh", dir + "/bin/nvidia-smi");
  RunResult r = run_trtlens({"env"}, fake::hermetic_env(dir + "/sysroot", dir + "/bin"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "GPUs (nvidia-smi)")) << r.out;
  EXPECT_TRUE(contains(r.out, "Fake GPU 9000")) << r.out;
  EXPECT_TRUE(contains(r.out, "8.9")) << r.out;
  RunResult none = run_trtlens({"env", "--no-gpu"}, fake::hermetic_env(dir + "/sysroot", dir + "/bin"));
  EXPECT_FALSE(contains(none.out, "Fake GPU 9000")) << none.out;
  EXPECT_TRUE(contains(none.out, "GPUs: not queried (--no-gpu)")) << none.out;
}

TEST(TrtEnvCli, OldDriversAndFailingNvidiaSmi) {
  std::string dir = temp_dir("TrtEnvCli_GpuOld");
  std::filesystem::create_directories(dir + "/bin");
  std::filesystem::create_symlink(fake::fixtures() + "/fake_nvidia_smi.sh", dir + "/bin/nvidia-smi");
  auto env = fake::hermetic_env(dir + "/sysroot", dir + "/bin");
  env.push_back("FAKE_SMI_OLD=1");
  RunResult old = run_trtlens({"env", "--format", "json"}, env);
  ASSERT_EQ(old.exit_code, 0) << old.err;
  auto doc = nlohmann::json::parse(old.out);
  ASSERT_EQ(doc["gpus"].size(), 1u);  // asked again without compute_cap
  EXPECT_EQ(doc["gpus"][0]["name"], "Fake GPU 8000");
  EXPECT_EQ(doc["gpus"][0]["compute_capability"], "");

  env.push_back("FAKE_SMI_FAIL=1");
  RunResult fail = run_trtlens({"env"}, env);
  EXPECT_EQ(fail.exit_code, 0) << fail.err;
  EXPECT_TRUE(contains(fail.out, "GPUs: nvidia-smi failed (exit 9): NVIDIA-SMI has failed")) << fail.out;
}

}  // namespace trtlens::test
