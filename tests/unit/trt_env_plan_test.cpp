// Plan headers of each layout, written here.
#include <gtest/gtest.h>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"
#include "unit/trt_env_fake_install.h"

namespace trtlens::test {
namespace {

PlanInfo parse(const std::string& bytes) { return parse_plan("p.engine", bytes, bytes.size()); }
TrtVersion v(const char* s) { return *parse_trt_version(s); }
bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST(PlanHeader, ReadsTheTrtexecLayout) {
  PlanInfo p = parse(fake::plan_10(10, 3, 0, 26));
  EXPECT_EQ(p.tag, "ftrt");
  EXPECT_EQ(p.word4, 0u);
  EXPECT_EQ(p.version.str(), "10.3.0.26");
  EXPECT_FALSE(p.version_heuristic);
  EXPECT_EQ(p.plan_offset, 0u);
  EXPECT_EQ(p.head.size(), 64u);
  EXPECT_EQ(p.head[8], 0x11);
  EXPECT_EQ(parse(fake::plan_10(10, 0, 1, 6, "ptrt")).tag, "ptrt");
}

TEST(PlanHeader, EightXSerializationNumberIsAHeuristic) {
  PlanInfo p = parse(fake::plan_8(213));
  EXPECT_EQ(p.serialization, 213u);
  EXPECT_TRUE(p.version_heuristic);
  EXPECT_EQ(p.version.str(), "8.4");
  EXPECT_TRUE(contains(p.version_note, "heuristic")) << p.version_note;
  EXPECT_EQ(parse(fake::plan_8(232)).version.str(), "8.5.3");
  EXPECT_EQ(parse(fake::plan_8(205)).version.str(), "8.2");

  PlanInfo unknown = parse(fake::plan_8(240));
  EXPECT_FALSE(unknown.version.known());
  EXPECT_TRUE(contains(unknown.version_note, "newer than 8.5.3")) << unknown.version_note;
  EXPECT_TRUE(contains(parse(fake::plan_8(210)).version_note, "between 8.2 and 8.4"));
}

TEST(PlanHeader, SkipsAnExporterMetadataPrefix) {
  std::string json = R"({"description": "yolo", "imgsz": [640, 640]})";
  PlanInfo p = parse(fake::with_metadata(json, fake::plan_10(10, 8, 0, 43)));
  EXPECT_EQ(p.plan_offset, 4 + json.size());
  EXPECT_EQ(p.metadata_json, json);
  EXPECT_EQ(p.version.str(), "10.8.0.43");
}

TEST(PlanHeader, ReadsFromAFile) {
  std::string dir = temp_dir("PlanHeader_File");
  std::string big(10000, '{');  // a metadata block longer than the first read
  write_text(dir + "/m.engine", fake::with_metadata("{" + big.substr(1) , fake::plan_10(10, 3, 0, 26)));
  PlanInfo p = read_plan(dir + "/m.engine");
  EXPECT_EQ(p.plan_offset, 4 + big.size());
  EXPECT_EQ(p.version.str(), "10.3.0.26");
  EXPECT_THROW(read_plan(dir + "/missing.engine"), InputError);
  try {
    read_plan(dir);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "cannot read: a folder, not a regular file");
  }
}

TEST(PlanHeader, RejectsFilesWithoutATag) {
  try {
    parse("PK\x03\x04 this is a zip file, not a plan at all.....");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "not a TensorRT plan: starts with 50 4b 03 04")) << e.what();
  }
  EXPECT_THROW(parse("ft"), InputError);
  try {
    parse(fake::plan_10(10, 3, 0, 26).substr(0, 20));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "truncated plan header")) << e.what();
  }
}

TEST(PlanLoadable, SameVersionOnlyAndSaysWhy) {
  PlanInfo p = parse(fake::plan_10(10, 3, 0, 26));
  EXPECT_EQ(plan_loadable(p, v("10.3.0.26")).kind, LoadVerdict::Yes);
  LoadVerdict minor = plan_loadable(p, v("10.3"));
  EXPECT_EQ(minor.kind, LoadVerdict::Depends);
  EXPECT_TRUE(contains(minor.reason, "must be 10.3.0.26")) << minor.reason;
  LoadVerdict newer = plan_loadable(p, v("10.4"));
  EXPECT_EQ(newer.kind, LoadVerdict::No);
  EXPECT_TRUE(contains(newer.reason, "version-compatible")) << newer.reason;
  EXPECT_EQ(plan_loadable(p, v("10.3.0.27")).kind, LoadVerdict::No);
  EXPECT_EQ(plan_loadable(p, v("8.6.1")).kind, LoadVerdict::No);

  PlanInfo old = parse(fake::plan_8(213));  // heuristic 8.4
  EXPECT_EQ(plan_loadable(old, v("8.4.3.1")).kind, LoadVerdict::Depends);
  EXPECT_EQ(plan_loadable(old, v("8.6.1.6")).kind, LoadVerdict::No);
  EXPECT_EQ(plan_loadable(parse(fake::plan_8(240)), v("8.6.1.6")).kind, LoadVerdict::Depends);
}

}  // namespace trtlens::test
