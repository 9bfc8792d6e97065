// OutputStream: large outputs written piece by piece, all-or-nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/paths.h"
#include "trtlens/error.h"
#include "util/files.h"

namespace trtlens {
namespace {

namespace fs = std::filesystem;

size_t entries(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(OutputStream, WritesEveryPieceOnCommitThroughOneRename) {
  std::string dir = test::temp_dir("output_stream_commit");
  std::string path = dir + "/out.json";
  std::string expected;
  {
    OutputStream out(path);
    // Pieces smaller and larger than the buffer, so both paths of write() run.
    for (int i = 0; i < 5000; ++i) {
      std::string piece = "line " + std::to_string(i) + "\n";
      out.write(piece);
      expected += piece;
    }
    std::string big(200000, 'x');
    out << big;
    expected += big;
    EXPECT_FALSE(fs::exists(path));  // nothing at the target before commit
    out.commit();
  }
  EXPECT_EQ(read_file(path), expected);
  EXPECT_EQ(entries(dir), 1u);  // no temporary left beside it
}

TEST(OutputStream, AnUncommittedStreamLeavesTheTargetAsItWas) {
  std::string dir = test::temp_dir("output_stream_abandon");
  std::string path = dir + "/out.json";
  write_file_atomic(path, "old contents");
  {
    OutputStream out(path);
    out.write(std::string(300000, 'y'));  // flushed to the temporary
  }  // destroyed without commit: as when the analysis throws half-way
  EXPECT_EQ(read_file(path), "old contents");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(OutputStream, AFolderThatCannotBeWrittenIsOneInputError) {
  try {
    OutputStream out("/nonexistent-folder/out.json");
    FAIL() << "opened";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/out.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace trtlens
