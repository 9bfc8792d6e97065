// libFuzzer target: the plan file reader (exporter metadata block, tag, the
// version fields of 8.x and 10.x layouts) and the loadability verdict.
// Input: the first bytes of a plan file (the reader never needs more).
// Contract: InputError is the only way out; anything else is a finding.
#include <cstdint>
#include <string>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    trtlens::PlanInfo plan = trtlens::parse_plan("fuzz.plan", bytes, bytes.size());
    for (const char* target : {"8.6.1", "10.3.0"})
      (void)trtlens::plan_loadable(plan, *trtlens::parse_trt_version(target));
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
