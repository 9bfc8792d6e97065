// libFuzzer target: the INT8 calibration cache reader (header line, per-tensor
// scales in hex) and the compatibility verdict.
// Input: the text of a calibration cache.
// Contract: InputError is the only way out; anything else is a finding.
#include <cstdint>
#include <string>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    trtlens::CalibCache cache = trtlens::parse_calib_cache("fuzz.cache", text);
    for (const char* target : {"7.2.3", "8.6.1", "10.3.0"})
      (void)trtlens::calib_usable(cache, *trtlens::parse_trt_version(target));
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
