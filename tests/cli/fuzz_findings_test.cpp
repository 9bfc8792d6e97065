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

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;

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
  EXPECT_NO_THROW((void)nlohmann::json::parse(j.out));
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

}  // namespace
}  // namespace trtlens::test
