#include <gtest/gtest.h>

#include "support/paths.h"

namespace trtlens::test {

TEST(Usage, HelpExitsZero) {
  RunResult r = run_trtlens({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("trtlens"), std::string::npos);
}

TEST(Usage, UnknownSubcommandExitsTwo) {
  RunResult r = run_trtlens({"no-such-command"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST(Usage, UsageLinesNameTheProgram) {
  // (was: "Usage: check [OPTIONS] model", which is no command anyone can type)
  RunResult r = run_trtlens({"check", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Usage: trtlens check [OPTIONS] model"), std::string::npos) << r.out;
}

TEST(Usage, TrtexecPrecisionFlagsPointToPrecision) {
  // (was: "The following argument was not expected: --fp16", with no way forward)
  for (const std::string flag : {"--fp16", "--int8", "--best"}) {
    RunResult r = run_trtlens({"check", "model.onnx", flag});
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_EQ(r.err, "trtlens: " + flag + " is trtexec's flag; trtlens takes --precision " + flag.substr(2) + "\n");
  }
}

}  // namespace trtlens::test
