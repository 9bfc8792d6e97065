// `trtlens plan` on plan headers written here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "unit/trt_env_fake_install.h"

namespace trtlens::test {
namespace {

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST(PlanCli, ReadsVersionAndJudgesTheTarget) {
  std::string dir = temp_dir("PlanCli_Version");
  write_text(dir + "/m.engine", fake::plan_10(10, 3, 0, 26));
  auto env = fake::hermetic_env(dir + "/sysroot");
  RunResult yes = run_trtlens({"plan", dir + "/m.engine", "--trt", "10.3.0.26"}, env);
  EXPECT_EQ(yes.exit_code, 0) << yes.err;
  EXPECT_TRUE(contains(yes.out, "written by:  TensorRT 10.3.0.26")) << yes.out;
  EXPECT_TRUE(contains(yes.out, "loadable by TensorRT 10.3.0.26: yes")) << yes.out;
  EXPECT_TRUE(contains(yes.out, "00000000  66 74 72 74")) << yes.out;  // hex of the header

  RunResult no = run_trtlens({"plan", dir + "/m.engine", "--trt", "10.4"}, env);
  EXPECT_EQ(no.exit_code, 1) << no.err;
  EXPECT_TRUE(contains(no.out, "loadable by TensorRT 10.4: no")) << no.out;

  RunResult bad = run_trtlens({"plan", dir + "/m.engine", "--trt", "ten"}, env);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "--trt ten: not a TensorRT version")) << bad.err;
}

TEST(PlanCli, JudgesAgainstTheTensorRTEnvFinds) {
  std::string dir = temp_dir("PlanCli_Env");
  write_text(dir + "/m.engine", fake::plan_10(10, 3, 0, 26));
  std::string root = fake::tarball_10(dir + "/trt");
  auto env = fake::hermetic_env(dir + "/sysroot");
  env.push_back("TENSORRT_ROOT=" + root);
  RunResult r = run_trtlens({"plan", dir + "/m.engine"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "loadable by TensorRT 10.3.0.26 (found at " + root + "/lib/libnvinfer.so.10.3.0): yes"))
      << r.out;

  RunResult none = run_trtlens({"plan", dir + "/m.engine"}, fake::hermetic_env(dir + "/sysroot"));
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_TRUE(contains(none.out, "loadable: not judged")) << none.out;
}

TEST(PlanCli, LabelsHeuristicsAndShowsMetadataInJson) {
  std::string dir = temp_dir("PlanCli_Json");
  write_text(dir + "/old.engine", fake::plan_8(213));
  auto env = fake::hermetic_env(dir + "/sysroot");
  RunResult t = run_trtlens({"plan", dir + "/old.engine", "--trt", "8.6.1.6"}, env);
  EXPECT_EQ(t.exit_code, 1);
  EXPECT_TRUE(contains(t.out, "heuristic: serialization number 213")) << t.out;
  EXPECT_TRUE(contains(t.out, "written (by heuristic) by TensorRT 8.4")) << t.out;

  write_text(dir + "/meta.engine", fake::with_metadata(R"({"author": "exporter"})", fake::plan_10(10, 8, 0, 43)));
  RunResult j = run_trtlens({"plan", dir + "/meta.engine", "--format", "json", "--trt", "10.8"}, env);
  EXPECT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["version"], "10.8.0.43");
  EXPECT_EQ(doc["metadata"]["author"], "exporter");
  EXPECT_EQ(doc["loadable"]["verdict"], "depends");
  EXPECT_FALSE(doc["version_heuristic"]);
}

TEST(PlanCli, NotAPlanIsOneLineAndExitTwo) {
  std::string dir = temp_dir("PlanCli_Bad");
  write_text(dir + "/model.onnx", "\x08\x07\x12\x07pytorch garbage");
  RunResult r = run_trtlens({"plan", dir + "/model.onnx"}, fake::hermetic_env(dir + "/sysroot"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "model.onnx: not a TensorRT plan: starts with 08 07 12 07")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  RunResult missing = run_trtlens({"plan", dir + "/nope.engine"}, fake::hermetic_env(dir + "/sysroot"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "nope.engine: cannot read")) << missing.err;
}

// Fuzz finding F05: metadata nested 100,000 levels deep took > 3 GB and exit 3 in `plan --format json`;
// past the nesting limit it is shown as text with a note.
TEST(PlanCli, DeepMetadataIsShownAsText) {
  std::string dir = temp_dir("plan_cli_deep");
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  write_text(dir + "/m.engine", fake::with_metadata("{\"a\":" + deep + "}", fake::plan_10(10, 3, 0, 26)));
  RunResult r = run_trtlens({"plan", dir + "/m.engine", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_TRUE(doc["metadata"].is_string());
  EXPECT_NE(doc["metadata_note"].get<std::string>().find("deeper than 64"), std::string::npos);
  EXPECT_EQ(doc["version"], "10.3.0.26");
}

}  // namespace trtlens::test
