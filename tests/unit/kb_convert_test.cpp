// The committed data/trt is exactly what tools/convert_kb.py makes of ../shared/trt-support.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "support/paths.h"

namespace fs = std::filesystem;

namespace trtlens::test {
namespace {

std::map<std::string, std::string> tsv_files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".tsv") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    out[entry.path().filename().string()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

TEST(KbConvert, CommittedDataMatchesTheConverterOutput) {
  std::string shared = shared_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared/trt-support is absent";
  if (std::system("python3 -c pass > /dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  std::string out = temp_dir("KbConvert");
  std::string cmd = "python3 '" + std::string(TRTLENS_SOURCE_DIR) + "/tools/convert_kb.py' '" + shared +
                    "/trt-support' '" + out + "' > '" + out + "/log' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  auto fresh = tsv_files(out);
  auto committed = tsv_files(fs::path(TRTLENS_SOURCE_DIR) / "data" / "trt");
  ASSERT_EQ(fresh.size(), 37u);
  ASSERT_EQ(fresh.size(), committed.size()) << "rerun tools/convert_kb.py and commit data/trt";
  for (const auto& [name, text] : fresh) {
    ASSERT_TRUE(committed.count(name)) << name << " is not committed";
    EXPECT_TRUE(committed[name] == text) << name << " differs; rerun tools/convert_kb.py";
  }
}

TEST(KbConvert, RemovesTablesOfReleasesThatNoLongerExist) {
  std::string shared = shared_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared/trt-support is absent";
  if (std::system("python3 -c pass > /dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  std::string out = temp_dir("KbConvertStale");
  write_text(out + "/4.0.tsv", "stale\n");
  write_text(out + "/notes.txt", "kept\n");
  std::string cmd = "python3 '" + std::string(TRTLENS_SOURCE_DIR) + "/tools/convert_kb.py' '" + shared +
                    "/trt-support' '" + out + "' > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_FALSE(fs::exists(out + "/4.0.tsv"));
  EXPECT_TRUE(fs::exists(out + "/notes.txt"));
  EXPECT_TRUE(fs::exists(out + "/11.1.tsv"));
}

TEST(KbConvert, MalformedInputFails) {
  if (std::system("python3 -c pass > /dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  std::string in = temp_dir("KbConvertBad");
  write_text(in + "/versions.tsv",
             "trt\tsource\tdate\topset_min\topset_max\ttypes\ttypes_limited\tbasis\tnotes\n"
             "9.9\ts\t2030-01-01\t-\t9\tFP32\t-\ttable\t-\n");
  write_text(in + "/ops.tsv",
             "trt\top\tstatus\ttypes\trules\tnote\tbasis\trules_src\tplugin\timporter\n"
             "9.9\tFoo\tY\tFP32\tno_such_rule(0)\t-\ttable\tsource\t-\tyes\n");
  std::string cmd = "python3 '" + std::string(TRTLENS_SOURCE_DIR) + "/tools/convert_kb.py' '" + in + "' '" + in +
                    "/out' > '" + in + "/log' 2>&1";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  std::ifstream log(in + "/log");
  std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(text.find("unknown rule"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(in + "/out/9.9.tsv"));
}

}  // namespace
}  // namespace trtlens::test
