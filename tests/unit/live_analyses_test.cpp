// The dashboard's bound on models judged live by requests (serve/context.h LiveAnalyses).
#include <gtest/gtest.h>

#include <future>

#include "serve/context.h"

namespace trtlens::serve {
namespace {

using namespace std::chrono_literals;

TEST(LiveAnalyses, AtMostSlotsAtOnceAndTheRestAreBusy) {
  LiveAnalyses live(2, 50ms);
  {
    LiveAnalyses::Turn a(live), b(live);
    // A third reader is refused (503), not given a third model in memory.
    EXPECT_THROW(LiveAnalyses::Turn c(live), BusyError);
  }
  // Turns come back when requests end.
  LiveAnalyses::Turn a(live), b(live);
}

TEST(LiveAnalyses, AWaitingRequestGetsTheTurnAnotherGivesBack) {
  LiveAnalyses live(1, 10s);
  auto first = std::make_unique<LiveAnalyses::Turn>(live);
  auto waiter = std::async(std::launch::async, [&] {
    LiveAnalyses::Turn t(live);
    return true;
  });
  EXPECT_EQ(waiter.wait_for(50ms), std::future_status::timeout);
  first.reset();
  EXPECT_TRUE(waiter.get());
}

}  // namespace
}  // namespace trtlens::serve
