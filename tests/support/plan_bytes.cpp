#include "support/plan_bytes.h"

#include <cstring>

namespace trtlens::test {

std::string plan_10(int major, int minor, int patch, int build, const std::string& tag) {
  std::string b(64, '\0');
  std::memcpy(b.data(), tag.data(), 4);
  b[8] = 0x11;  // bytes the layout does not explain
  b[24] = char(major), b[25] = char(minor), b[26] = char(patch), b[27] = char(build);
  return b + "engine body";
}

std::string plan_8(uint32_t serialization, const std::string& tag) {
  std::string b(64, '\0');
  std::memcpy(b.data(), tag.data(), 4);
  uint32_t w4 = 0x2a;
  std::memcpy(b.data() + 4, &w4, 4);
  std::memcpy(b.data() + 8, &serialization, 4);
  return b + "engine body";
}

std::string with_metadata(const std::string& json, const std::string& plan) {
  uint32_t n = uint32_t(json.size());
  std::string b(4, '\0');
  std::memcpy(b.data(), &n, 4);
  return b + json + plan;
}

}  // namespace trtlens::test
