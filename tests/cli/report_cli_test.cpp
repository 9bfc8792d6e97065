// `trtlens report` run as a user runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/paths.h"
#include "trtlens/kb.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json page_data(const std::string& page) { return embedded_json(page, "trtlens-data"); }

const std::string kModel = std::string(TRTLENS_TESTDATA_DIR) + "/node/test_batchnorm_example/model.onnx";

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(ReportCli, WritesOneSelfContainedPage) {
  if (!fs::exists(kModel)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::string dir = temp_dir("ReportCli.WritesOneSelfContainedPage");
  std::string out = dir + "/bn.html";
  RunResult r = run_trtlens({"report", kModel, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"bn.html"});
  std::string page = read_text(out);
  EXPECT_NE(page.find("<select name=\"release\">"), std::string::npos);
  EXPECT_NE(page.find("<select name=\"precision\">"), std::string::npos);
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  json d = page_data(page);
  ASSERT_TRUE(d.is_object());
  const auto& rels = KnowledgeBase::builtin().releases();
  ASSERT_EQ(d["releases"].size(), rels.size());
  EXPECT_EQ(d["releases"].back()["name"], rels.back().name);
  // Every (release, precision) pair has a verdict: each profile covers them all.
  for (const json& p : d["profiles"]) {
    size_t covered = 0;
    for (size_t j = 1; j < p.size(); j += 2) covered += p[j].get<size_t>();
    EXPECT_EQ(covered, rels.size() * 6);
  }
  EXPECT_EQ(d["graphs"][0]["nodes"][0]["op"], "BatchNormalization");
  EXPECT_EQ(d["initial"], json::array({static_cast<int>(rels.size()) - 1, 0}));
  EXPECT_EQ(d["title"], "model.onnx");
}

TEST(ReportCli, ConstantsShowTheirFirstValuesOnly) {
  // The Inputs/Outputs tab shows constant values (issue 22); the page carries the first 8, not the tensor.
  const std::string model = std::string(TRTLENS_TESTDATA_DIR) + "/node/test_constant/model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::string out = temp_dir("ReportCli.ConstantValues") + "/c.html";
  RunResult r = run_trtlens({"report", model, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json t = page_data(read_text(out))["graphs"][0]["tensors"][0];
  ASSERT_EQ(t.size(), 5u) << t.dump();
  EXPECT_EQ(t[2], "[5, 5]");
  std::string v = t[4];
  EXPECT_EQ(v.rfind("[1.76405, 0.400157, ", 0), 0u) << v;
  EXPECT_NE(v.find("... (25 in all)]"), std::string::npos) << v;
  EXPECT_EQ(std::count(v.begin(), v.end(), ','), 8) << v;  // 8 values, then the count
}

TEST(ReportCli, WithoutOutputItWritesModelHtmlBesideTheModelAndSaysSo) {
  // (was: a usage error on a first run, and silence after a successful one; then MODEL.html in the current folder)
  if (!fs::exists(kModel)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::string dir = temp_dir("ReportCli.DefaultOutput");
  fs::create_directories(dir + "/models");
  fs::create_directories(dir + "/elsewhere");
  fs::copy_file(kModel, dir + "/models/bn.onnx");
  std::string cmd = "cd '" + dir + "/elsewhere' && '" + std::string(TRTLENS_BIN) + "' report ../models/bn.onnx 2> err.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_text(dir + "/elsewhere/err.txt");
  EXPECT_EQ(folder_entries(dir + "/elsewhere"), (std::vector<std::string>{"err.txt"}));
  EXPECT_EQ(folder_entries(dir + "/models"), (std::vector<std::string>{"bn.html", "bn.onnx"}));
  EXPECT_NE(read_text(dir + "/models/bn.html").find("trtlens-data"), std::string::npos);
  std::string err = read_text(dir + "/elsewhere/err.txt");
  // The path, the node count, the size and the time, in one line.
  EXPECT_EQ(err.rfind("trtlens: wrote ../models/bn.html (1 nodes, ", 0), 0u) << err;
  EXPECT_NE(err.find(" MB, "), std::string::npos) << err;
  EXPECT_EQ(err.substr(err.size() - 4), " s)\n") << err;
  EXPECT_EQ(lines(err), 1u) << err;
}

TEST(ReportCli, OpensOnTheRuntimeAskedFor) {
  if (!fs::exists(kModel)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::string out = temp_dir("ReportCli.OpensOnTheRuntimeAskedFor") + "/bn.html";
  RunResult r = run_trtlens({"report", kModel, "-o", out, "--trt", "8.6", "--precision", "INT8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json d = page_data(read_text(out));
  int rel = d["initial"][0], prec = d["initial"][1];
  EXPECT_EQ(d["releases"][rel]["name"], "8.6");
  EXPECT_EQ(d["precisions"][prec], "int8");
}

TEST(ReportCli, UnwritableOutputIsOneLineAndLeavesNothing) {
  if (!fs::exists(kModel)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::string dir = temp_dir("ReportCli.UnwritableOutputIsOneLineAndLeavesNothing");
  write_text(dir + "/file", "not a folder");
  // A folder that is a file: no user, root included, can create anything in it.
  std::string out = dir + "/file/page.html";
  RunResult r = run_trtlens({"report", kModel, "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"file"});
  EXPECT_EQ(read_text(dir + "/file"), "not a folder");
}

TEST(ReportCli, BadModelIsOneLineAndWritesNothing) {
  std::string dir = temp_dir("ReportCli.BadModelIsOneLineAndWritesNothing");
  write_text(dir + "/bad.onnx", "this is not a protobuf \x01\x02\x03");
  RunResult r = run_trtlens({"report", dir + "/bad.onnx", "-o", dir + "/bad.html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("bad.onnx"), std::string::npos) << r.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"bad.onnx"});

  RunResult missing = run_trtlens({"report", dir + "/absent.onnx", "-o", dir + "/absent.html"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(lines(missing.err), 1u) << missing.err;
  EXPECT_EQ(folder_entries(dir), std::vector<std::string>{"bad.onnx"});
}

TEST(ReportCli, UnknownRuntimeIsAUsageError) {
  if (!fs::exists(kModel)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::string dir = temp_dir("ReportCli.UnknownRuntimeIsAUsageError");
  RunResult rel = run_trtlens({"report", kModel, "-o", dir + "/a.html", "--trt", "8.7"});
  EXPECT_EQ(rel.exit_code, 2);
  EXPECT_EQ(lines(rel.err), 1u) << rel.err;
  EXPECT_NE(rel.err.find("8.7"), std::string::npos) << rel.err;
  RunResult prec = run_trtlens({"report", kModel, "-o", dir + "/b.html", "--precision", "fp4"});
  EXPECT_EQ(prec.exit_code, 2);
  EXPECT_EQ(lines(prec.err), 1u) << prec.err;
  EXPECT_TRUE(folder_entries(dir).empty());
}

}  // namespace
}  // namespace trtlens::test
