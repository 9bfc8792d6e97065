// The trtexec driver's pieces: flags, log sections, metadata, hashing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "trt_env/build.h"
#include "util/sha256.h"
#include "trtlens/error.h"

namespace trtlens::test {

TEST(BuildFlags, PrecisionListToTrtexecFlags) {
  EXPECT_TRUE(precision_flags("fp32").empty());
  EXPECT_EQ(precision_flags("fp16"), std::vector<std::string>{"--fp16"});
  EXPECT_EQ(precision_flags("FP16,int8"), (std::vector<std::string>{"--fp16", "--int8"}));
  EXPECT_THROW(precision_flags("fp64"), UsageError);
}

TEST(BuildLog, ParsesSectionsAndVersion) {
  std::string log =
      "&&&& RUNNING TensorRT.trtexec [TensorRT v100300] # trtexec --onnx=m.onnx\n"
      "[11/22/2026-01:00:00] [I] === Build Options ===\n"
      "[11/22/2026-01:00:00] [I] Precision: FP32+FP16\n"
      "[11/22/2026-01:00:00] [I] minTiming: 1\n"
      "[11/22/2026-01:00:00] [I] \n"
      "[11/22/2026-01:00:00] [I] Not: in a section\n"
      "[11/22/2026-01:00:05] [I] === Performance summary ===\n"
      "[11/22/2026-01:00:05] [I] Throughput: 1155.36 qps\n"
      "[11/22/2026-01:00:05] [I] Latency: min = 0.85 ms, max = 0.87 ms, mean = 0.86 ms\n"
      "[11/22/2026-01:00:05] [I] === Device Information ===\n"
      "[11/22/2026-01:00:05] [I] Selected Device: NVIDIA A100\n"
      "[11/22/2026-01:00:05] [I] Compute Clock Rate: 1.41 GHz\n"
      "[11/22/2026-01:00:05] [I] Device Global Memory: 80994 MiB\n";
  TrtexecLog l = parse_trtexec_log(log, "log");
  EXPECT_EQ(l.tensorrt_version, "10.3.0");
  ASSERT_EQ(l.build_options.size(), 2u);  // the blank line closes the section
  EXPECT_EQ(l.build_options[0], (std::pair<std::string, std::string>{"Precision", "FP32+FP16"}));

  auto b = nlohmann::json::parse(build_metadata_json(l));
  EXPECT_EQ(b["build_options"]["Precision"], "FP32+FP16");
  // The release the log names, so `report --engine` knows which check to compare with.
  EXPECT_EQ(b["build_options"]["TensorRT version"], "10.3.0");
  auto p = nlohmann::json::parse(profile_metadata_json(l));
  EXPECT_DOUBLE_EQ(p["performance_summary"]["Throughput"].get<double>(), 1155.36);
  EXPECT_EQ(p["performance_summary"]["Latency"].size(), 3u);
  EXPECT_DOUBLE_EQ(p["device_information"]["Compute Clock Rate"].get<double>(), 1.41);
  EXPECT_EQ(p["device_information"]["Device Global Memory"], "80994 MiB");
}

TEST(BuildCacheKey, Sha256MatchesKnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Two blocks: the padding crosses a block boundary.
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

}  // namespace trtlens::test
