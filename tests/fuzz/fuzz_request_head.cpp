// The dashboard's request-head check (src/serve/front_door.h) on any bytes: it must not
// crash, and what it accepts must stay within the limits it was given.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "serve/front_door.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trtlens::serve::RequestLimits limits;
  limits.upload_bytes = 1 << 20;
  auto c = trtlens::serve::check_head(std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (c.status == 0 && (c.head.size() > size || c.body_bytes > limits.upload_bytes ||
                        (!c.upload && c.body_bytes > limits.body_bytes)))
    __builtin_trap();
  return 0;
}
