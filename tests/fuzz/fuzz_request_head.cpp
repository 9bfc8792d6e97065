// The dashboard's request path before any handler (src/serve/front_door.h) on any bytes, as the
// front door reads them: the head's end is found (find_head_end), the head parsed once
// (check_head), and the body bytes handed on are cut at its Content-Length. It must not crash;
// what it accepts must stay within the route's limits (never more buffered than the head limit
// plus the route's body limit), and the canonical head it hands on must parse to itself.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "serve/front_door.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trtlens::serve;
  RequestLimits limits;
  limits.upload_bytes = 1 << 20;
  limits.is_upload = [](std::string_view method, std::string_view path) {
    return method == "POST" && path.size() > 7 && path.substr(path.size() - 7) == "/upload";
  };
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bool bad = false;
  size_t end = find_head_end(bytes, bad);
  if (bad || end == std::string_view::npos || end > limits.head_bytes) return 0;  // refused, or more is awaited
  HeadCheck c = check_head(bytes.substr(0, end), limits);
  if (c.status != 0) {
    if (!c.head.empty()) __builtin_trap();
    return 0;
  }
  const uint64_t limit = c.upload ? limits.upload_bytes : limits.body_bytes;
  const size_t handed_on = std::min<uint64_t>(c.body_bytes, size - end);  // as FrontDoor::Impl::advance cuts it
  if (c.body_bytes > limit || handed_on > limit || c.head.size() > end + limits.header_lines) __builtin_trap();
  HeadCheck again = check_head(c.head, limits);
  if (again.status != 0 || again.head != c.head || again.body_bytes != c.body_bytes || again.upload != c.upload)
    __builtin_trap();
  return 0;
}
