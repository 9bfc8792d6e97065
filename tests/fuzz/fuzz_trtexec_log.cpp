// libFuzzer target: the trtexec console-log reader (`engine ... --log`, and
// `trtlens build`'s metadata files): banner, sections, performance figures.
// Input: the text of a log.
// Contract: InputError is the only way out; anything else is a finding.
#include <cstdint>
#include <string_view>

#include "trtlens/engine.h"
#include "trtlens/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    trtlens::TrtexecLog log =
        trtlens::parse_trtexec_log(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.log");
    trtlens::EnginePlan plan;
    trtlens::apply_trtexec_log(plan, log);
    (void)trtlens::end_to_end(plan);
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
