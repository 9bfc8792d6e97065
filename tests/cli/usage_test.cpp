#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

// Every usage error is one stderr line, CLI11's own included (it used to add "Run with --help for more
// information." on a second), and names the command to ask for help.
TEST(Usage, EveryUsageErrorIsOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"no-such-command"},
      {"check"},
      {"check", "m.onnx", "--bogus"},
      {"check", "m.onnx", "--precision"},
      {"check", "m.onnx", "--precision", "fp7"},
      {"check", "m.onnx", "--trt", "4.0"},
      {"check", "m.onnx", "--target", "sm_10"},
      {"matrix"},
      {"matrix", "m.onnx", "--diff", "8.6"},
      {"partition", "m.onnx", "--min-nodes", "x"},
      {"engine"},
      {"engine", "summary"},
      {"engine", "summary", "e", "--format", "xml"},
      {"report", "m.onnx"},
      {"serve", "--port", "not-a-port"},
  };
  for (const auto& args : bad) {
    RunResult r = run_trtlens(args);
    std::string what;
    for (const auto& a : args) what += a + " ";
    EXPECT_EQ(r.exit_code, 2) << what << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ":\n" << r.err;
    EXPECT_EQ(r.err.rfind("trtlens", 0), 0u) << what << ":\n" << r.err;
    EXPECT_EQ(r.out, "") << what;
  }
  RunResult missing = run_trtlens({"check"});
  EXPECT_EQ(missing.err, "trtlens check: model is required (see trtlens check --help)\n");
}

}  // namespace trtlens::test
