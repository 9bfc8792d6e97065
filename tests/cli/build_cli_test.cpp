// `trtlens build` with the fake trtexec (tests/fixtures/trt_env/fake_trtexec.sh).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "support/paths.h"
#include "unit/trt_env_fake_install.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

int lines_in(const std::string& path) {
  std::string s = read_text(path);
  return int(std::count(s.begin(), s.end(), '\n'));
}

// A folder with a model, a bin/ holding trtexec (the fake) and a cache folder.
struct Workspace {
  std::string dir, model, bin, cache, runs;
  explicit Workspace(const std::string& name) {
    dir = temp_dir(name);
    model = dir + "/model.onnx";
    write_text(model, "not parsed by the fake trtexec");
    bin = dir + "/bin";
    fs::create_directories(bin);
    fs::create_symlink(fake::fixtures() + "/fake_trtexec.sh", bin + "/trtexec");
    cache = dir + "/cache";
    runs = dir + "/runs.txt";
  }
  std::vector<std::string> env() const {
    auto e = fake::hermetic_env(dir + "/sysroot", bin);
    e.push_back("FAKE_TRTEXEC_RUNS=" + runs);
    return e;
  }
};

}  // namespace

TEST(BuildCli, WithoutTrtexecOneLineExitTwo) {
  std::string dir = temp_dir("BuildCli_NoTrtexec");
  write_text(dir + "/model.onnx", "x");
  RunResult r = run_trtlens({"build", dir + "/model.onnx", "--cache-dir", dir + "/cache"},
                            fake::hermetic_env(dir + "/sysroot", dir + "/emptybin"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "trtexec not found")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/model.onnx.engine"));
}

TEST(BuildCli, BuildsWritesTheFilesAndReusesTheCache) {
  Workspace w("BuildCli_Cache");
  RunResult first = run_trtlens({"build", w.model, "--precision", "fp16", "--shapes", "x:1x3x4x5", "--cache-dir", w.cache},
                                w.env());
  EXPECT_TRUE(contains(first.out, "built " + w.model + ".engine with " + w.bin + "/trtexec")) << first.out << first.err;
  EXPECT_TRUE(contains(first.err, "trtexec: building the engine")) << first.err;  // progress
  EXPECT_FALSE(contains(first.err, "&&&& RUNNING")) << first.err;                 // not verbose
  EXPECT_EQ(lines_in(w.runs), 1);
  std::string args = read_text(w.runs);
  EXPECT_TRUE(contains(args, "--fp16")) << args;
  EXPECT_TRUE(contains(args, "--shapes=x:1x3x4x5")) << args;
  for (const char* s : {"", ".graph.json", ".profile.json", ".timing.json", ".build.metadata.json",
                        ".profile.metadata.json", ".trtexec.log"})
    EXPECT_TRUE(fs::exists(w.model + ".engine" + s)) << s;
  auto meta = nlohmann::json::parse(read_text(w.model + ".engine.profile.metadata.json"));
  EXPECT_DOUBLE_EQ(meta["performance_summary"]["Throughput"].get<double>(), 4321.5);
  EXPECT_EQ(meta["device_information"]["Selected Device"], "Fake GPU 9000");
  auto build = nlohmann::json::parse(read_text(w.model + ".engine.build.metadata.json"));
  EXPECT_EQ(build["build_options"]["Precision"], "FP32+FP16");

  // The written plan is what `trtlens plan` reads.
  RunResult plan = run_trtlens({"plan", w.model + ".engine", "--trt", "10.3.0.26"}, w.env());
  EXPECT_EQ(plan.exit_code, 0) << plan.err;

  RunResult again = run_trtlens({"build", w.model, "--precision", "fp16", "--shapes", "x:1x3x4x5", "--cache-dir", w.cache},
                                w.env());
  EXPECT_TRUE(contains(again.out, "unchanged: reused the cached engine")) << again.out << again.err;
  EXPECT_EQ(lines_in(w.runs), 1);  // trtexec not run again

  // Another flag, another key.
  run_trtlens({"build", w.model, "--precision", "fp32", "--shapes", "x:1x3x4x5", "--cache-dir", w.cache}, w.env());
  EXPECT_EQ(lines_in(w.runs), 2);
  // Another model content, another key.
  write_text(w.model, "changed model");
  run_trtlens({"build", w.model, "--precision", "fp16", "--shapes", "x:1x3x4x5", "--cache-dir", w.cache}, w.env());
  EXPECT_EQ(lines_in(w.runs), 3);
  // --force rebuilds.
  run_trtlens({"build", w.model, "--precision", "fp16", "--shapes", "x:1x3x4x5", "--cache-dir", w.cache, "--force"},
              w.env());
  EXPECT_EQ(lines_in(w.runs), 4);
}

TEST(BuildCli, VerbosePassesTrtexecOutputThrough) {
  Workspace w("BuildCli_Verbose");
  RunResult r = run_trtlens({"build", w.model, "--verbose", "--cache-dir", w.cache, "-o", w.dir + "/out/m.plan",
                             "--trtexec", w.bin + "/trtexec"},
                            fake::hermetic_env(w.dir + "/sysroot"));
  EXPECT_TRUE(contains(r.err, "&&&& RUNNING TensorRT.trtexec [TensorRT v100300]")) << r.err;
  EXPECT_TRUE(contains(r.err, "=== Performance summary ===")) << r.err;
  EXPECT_TRUE(fs::exists(w.dir + "/out/m.plan.graph.json"));
}

TEST(BuildCli, TrtexecFailureIsOneLineNamingTheLog) {
  Workspace w("BuildCli_Fail");
  auto env = w.env();
  env.push_back("FAKE_TRTEXEC_FAIL=1");
  RunResult r = run_trtlens({"build", w.model, "--cache-dir", w.cache}, env);
  EXPECT_EQ(r.exit_code, 2);
  // Into a folder that does not exist yet, the log still lands.
  RunResult nested = run_trtlens({"build", w.model, "--cache-dir", w.cache, "-o", w.dir + "/new/m.plan"}, env);
  EXPECT_TRUE(contains(nested.err, "its log is in " + w.dir + "/new/m.plan.trtexec.log")) << nested.err;
  EXPECT_TRUE(fs::exists(w.dir + "/new/m.plan.trtexec.log"));
  EXPECT_TRUE(contains(r.err, "model.onnx: trtexec failed (exit status 1): ")) << r.err;
  EXPECT_TRUE(contains(r.err, "[E] [TRT] ModelImporter.cpp:949: While parsing node number 0")) << r.err;
  EXPECT_TRUE(contains(r.err, "its log is in " + w.model + ".engine.trtexec.log")) << r.err;
  EXPECT_TRUE(contains(read_text(w.model + ".engine.trtexec.log"), "While parsing node number 0"));
  EXPECT_FALSE(fs::exists(w.model + ".engine"));  // no half-written results
  // Nothing was cached: the next build runs trtexec again.
  auto ok = w.env();
  run_trtlens({"build", w.model, "--cache-dir", w.cache}, ok);
  EXPECT_EQ(lines_in(w.runs), 3);
}

TEST(BuildCli, MissingModelIsBadInput) {
  Workspace w("BuildCli_NoModel");
  RunResult r = run_trtlens({"build", w.dir + "/nope.onnx", "--cache-dir", w.cache}, w.env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "nope.onnx: cannot read")) << r.err;
  EXPECT_FALSE(fs::exists(w.runs));
}

}  // namespace trtlens::test
