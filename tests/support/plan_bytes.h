// Plan-file bytes as TensorRT writes their headers, for tests and fuzz seeds.
#pragma once
#include <cstdint>
#include <string>

namespace trtlens::test {

// Plan bytes in the 10.0+ layout: tag, zero word at 4, version at 24-27.
std::string plan_10(int major, int minor, int patch, int build, const std::string& tag = "ftrt");
// Plan bytes of an 8.x plan: non-zero word at 4, serialization number at 8.
std::string plan_8(uint32_t serialization, const std::string& tag = "ptrt");
// An exporter's 4-byte length and JSON metadata block before the plan.
std::string with_metadata(const std::string& json, const std::string& plan);

}  // namespace trtlens::test
