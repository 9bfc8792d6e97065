// INT8 calibration caches.
#include <gtest/gtest.h>

#include "trtlens/error.h"
#include "support/paths.h"
#include "trtlens/trt_env.h"

namespace trtlens::test {
namespace {

TrtVersion v(const char* s) { return *parse_trt_version(s); }
bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

std::string problem_of(const std::string& text) {
  try {
    parse_calib_cache("c.cache", text);
  } catch (const InputError& e) {
    return e.problem();
  }
  return "";
}

}  // namespace

TEST(CalibCache, ParsesHeaderAndScales) {
  CalibCache c = parse_calib_cache("c.cache",
                                   "TRT-8601-EntropyCalibration2\r\n"
                                   "input: 3c010a14\r\n"
                                   "conv1/out:0: 3f800000\r\n"  // names may hold ':'
                                   "relu: 0\n"
                                   "tiny: 1\n");
  EXPECT_EQ(c.version_number, 8601);
  EXPECT_EQ(c.version.str(), "8.6.1");
  EXPECT_EQ(c.calibrator, "EntropyCalibration2");
  ASSERT_EQ(c.entries.size(), 4u);
  EXPECT_EQ(c.entries[0].tensor, "input");
  EXPECT_FLOAT_EQ(c.entries[0].scale, 0.00787593797f);  // bits 3c010a14
  EXPECT_EQ(c.entries[1].tensor, "conv1/out:0");
  EXPECT_FLOAT_EQ(c.entries[1].scale, 1.0f);
  EXPECT_EQ(c.entries[3].line, 5);
  EXPECT_FLOAT_EQ(c.max_scale, 1.0f);
  EXPECT_GT(c.min_scale, 0.0f);  // bits 1: the smallest denormal
  EXPECT_LT(c.min_scale, 1e-44f);
  ASSERT_EQ(c.warnings.size(), 1u);  // "relu: 0" is not a usable scale
  EXPECT_TRUE(contains(c.warnings[0], "line 4: tensor 'relu' has scale 0")) << c.warnings[0];
}

TEST(CalibCache, DecodesTheTenXVersionPacking) {
  CalibCache c = parse_calib_cache("c.cache", "TRT-100300-EntropyCalibration2\nx: 3c010a14\n");
  EXPECT_EQ(c.version.str(), "10.3.0");
}

TEST(CalibCache, WarnsAboutDuplicatesAndUnknownCalibrators) {
  CalibCache c = parse_calib_cache("c.cache", "TRT-8601-MyCalibration\nx: 3c010a14\nx: 3c010a15\n");
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_TRUE(contains(c.warnings[0], "unknown calibrator 'MyCalibration'"));
  EXPECT_TRUE(contains(c.warnings[1], "appears again"));
}

TEST(CalibCache, CorruptCachesAreErrorsNamingTheLine) {
  EXPECT_TRUE(contains(problem_of(""), "empty"));
  EXPECT_TRUE(contains(problem_of("\x89PNG\r\n\x1a\n binary"), "line 1"));
  EXPECT_TRUE(contains(problem_of("TRT--EntropyCalibration2\n"), "line 1"));
  EXPECT_TRUE(contains(problem_of("TRT-8601-\n"), "line 1"));
  EXPECT_TRUE(contains(problem_of("TRT-8601-EntropyCalibration2\nx: 3c010a14\ny 3c010a14\n"), "line 3: 'y 3c010a14'"));
  EXPECT_TRUE(contains(problem_of("TRT-8601-EntropyCalibration2\nx: 123456789\n"), "line 2: scale '123456789'"));
  EXPECT_TRUE(contains(problem_of("TRT-8601-EntropyCalibration2\nx: 3c0z\n"), "not 1 to 8 hex digits"));
  EXPECT_TRUE(contains(problem_of("TRT-8601-EntropyCalibration2\nx:\n"), "line 2"));
  // A plan given by mistake: its NUL bytes must not cut the message short.
  std::string plan("ftrt\0\0\0\0\x01\0\0\0 body", 17);
  EXPECT_TRUE(contains(problem_of(plan), "line 1: 'ftrt........ body' is not a calibration cache header"))
      << problem_of(plan);
}

TEST(CalibCache, AFolderIsNotACache) {
  try {
    read_calib_cache(temp_dir("CalibCache_Folder"));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "is a folder, not a calibration cache");
  }
}

TEST(CalibUsable, SameVersionOnlyAndNothingOnEleven) {
  CalibCache c = parse_calib_cache("c.cache", "TRT-8601-EntropyCalibration2\nx: 3c010a14\n");
  LoadVerdict same = calib_usable(c, v("8.6.1.6"));
  EXPECT_EQ(same.kind, LoadVerdict::Yes);
  EXPECT_TRUE(contains(same.reason, "different GPU is fine"));
  EXPECT_EQ(calib_usable(c, v("8.6")).kind, LoadVerdict::Depends);
  LoadVerdict other = calib_usable(c, v("8.5.3"));
  EXPECT_EQ(other.kind, LoadVerdict::No);
  EXPECT_TRUE(contains(other.reason, "not portable"));
  EXPECT_EQ(calib_usable(c, v("10.3")).kind, LoadVerdict::No);
  LoadVerdict eleven = calib_usable(c, v("11.0"));
  EXPECT_EQ(eleven.kind, LoadVerdict::No);
  EXPECT_TRUE(contains(eleven.reason, "removed in TensorRT 11")) << eleven.reason;
}

}  // namespace trtlens::test
