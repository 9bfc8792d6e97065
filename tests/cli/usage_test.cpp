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

}  // namespace trtlens::test
