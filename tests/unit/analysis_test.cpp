// The analysis layer: the sweep gives, runtime by runtime, what annotating that runtime alone gives.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "support/paths.h"
#include "trtlens/analysis.h"

namespace trtlens {
namespace {

const KnowledgeBase& kb() { return KnowledgeBase::builtin(); }

void expect_same(const Annotations& swept, const Annotations& alone, const std::string& where) {
  ASSERT_EQ(swept.nodes.size(), alone.nodes.size()) << where;
  EXPECT_EQ(swept.summary, alone.summary) << where;
  EXPECT_EQ(swept.notes, alone.notes) << where;
  for (size_t i = 0; i < alone.nodes.size(); ++i) {
    const NodeVerdict& s = swept.nodes[i];
    const NodeVerdict& a = alone.nodes[i];
    std::string at = where + " node " + std::to_string(i);
    EXPECT_EQ(s.verdict, a.verdict) << at;
    EXPECT_EQ(s.precision, a.precision) << at;
    EXPECT_EQ(s.hints, a.hints) << at;
    ASSERT_EQ(s.reasons.size(), a.reasons.size()) << at;
    for (size_t k = 0; k < a.reasons.size(); ++k) {
      EXPECT_EQ(s.reasons[k].rule, a.reasons[k].rule) << at;
      EXPECT_EQ(s.reasons[k].message, a.reasons[k].message) << at;
      EXPECT_EQ(s.reasons[k].source, a.reasons[k].source) << at;
    }
  }
}

// Each release's imports are judged once for its six precisions: what each
// precision gets must not depend on that (reasons, hints, the precision it runs
// at), nor on the thread count, and the sink sees release-major order.
TEST(AnalyzeModel, SweepMatchesEachRuntimeAnnotatedAlone) {
  const std::string dir = std::string(TRTLENS_TESTDATA_DIR) + "/node/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "libonnx-testdata is not installed";
  // Local graphs (Loop, If), Q/DQ, INT64 shapes, BF16, FALLBACK-prone ops.
  for (const char* name : {"test_loop11", "test_if", "test_dequantizelinear", "test_resize_upsample_scales_linear",
                           "test_nonzero_example", "test_layer_normalization_4d_axis0",
                           "test_castlike_FLOAT_to_BFLOAT16_expanded"}) {
    Model m = load_model(dir + name + "/model.onnx");
    for (unsigned threads : {1u, 2u}) {
      AnalysisRequest request;
      request.threads = threads;
      request.pins = {{&kb().releases().back(), Precision::INT8}};
      size_t seen = 0;
      request.sweep = [&](size_t release, Precision p, const Annotations& a) {
        ASSERT_LT(seen, kb().releases().size() * kAllPrecisions.size());
        EXPECT_EQ(release, seen / kAllPrecisions.size());
        EXPECT_EQ(p, kAllPrecisions[seen % kAllPrecisions.size()]);
        ++seen;
        const Release& r = kb().releases()[release];
        expect_same(a, annotate(m, kb(), r, p), fmt::format("{} at {} {}", name, r.name, precision_name(p)));
      };
      ModelAnalysis out = analyze_model(m, kb(), request);
      EXPECT_EQ(seen, kb().releases().size() * kAllPrecisions.size());
      ASSERT_EQ(out.pinned.size(), 1u);
      expect_same(out.pinned[0], annotate(m, kb(), kb().releases().back(), Precision::INT8), name);
    }
  }
}

}  // namespace
}  // namespace trtlens
