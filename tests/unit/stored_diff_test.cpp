// The dashboard compares two versions at a pinned runtime from their stored
// analyses: the stored rows must give the same comparison as the models do.
#include <gtest/gtest.h>

#include <string>

#include "render/model_diff.h"
#include "serve/context.h"
#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/compat.h"
#include "trtlens/kb.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

// x -> act (Relu; NonZero in the newer version, unsupported at 7.0) -> [newer: Sigmoid] -> unnamed NonZero -> y
Model version(const std::string& dir, bool extra) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.node(extra ? "NonZero" : "Relu", {"x"}, {"r"}, "act");
  std::string last = "r";
  if (extra) {
    g.node("Sigmoid", {last}, {"s"}, "sigmoid\xff");  // invalid UTF-8 survives the round trip as U+FFFD
    last = "s";
  }
  g.node("NonZero", {last}, {"e"}, "");  // unnamed: matched by "<op_type> -> <output>"
  g.output("e");
  return load_model(mb.save(dir + (extra ? "/b.onnx" : "/a.onnx")));
}

TEST(StoredDiff, RowsReadBackCompareAsTheModelsDo) {
  std::string dir = temp_dir("stored_diff");
  Model a = version(dir, false), b = version(dir, true);
  const Release& r = KnowledgeBase::builtin().resolve("7.0");  // NonZero is not supported there: a reason to keep
  Annotations aa = annotate(a, r, Precision::FP16), bb = annotate(b, r, Precision::FP16);
  ModelDiff live = diff_models(a, aa, b, bb);
  auto ra = serve::read_diff_rows(serve::diff_rows_json(diff_rows(a, aa)));
  auto rb = serve::read_diff_rows(serve::diff_rows_json(diff_rows(b, bb)));
  ModelDiff stored = diff_models(ra->rows, rb->rows);
  ModelDiffView lv{&live, "version 1", "version 2", "7.0 fp16", aa.converts, bb.converts};
  ModelDiffView sv{&stored, "version 1", "version 2", "7.0 fp16", aa.converts, bb.converts};
  EXPECT_EQ(model_diff_json(sv), model_diff_json(lv));
  EXPECT_EQ(model_diff_html(sv), model_diff_html(lv));
  ASSERT_EQ(stored.added.size(), 1u);
  EXPECT_EQ(stored.kept, 2u);
  ASSERT_EQ(stored.changed.size(), 1u);  // "act" changed its op_type
  EXPECT_EQ(stored.changed[0].op_type, "NonZero");
  ASSERT_NE(stored.changed[0].after, nullptr);
  EXPECT_FALSE(stored.changed[0].after->reasons.empty());  // the reason the page shows travels too
  ASSERT_EQ(ra->rows.size(), 2u);
  EXPECT_EQ(ra->rows[1].node, "NonZero -> e");
  EXPECT_EQ(ra->rows[1].verdict->verdict, aa.nodes[1].verdict);
}

TEST(StoredDiff, ABlobThatIsNotRowsThrows) {
  EXPECT_ANY_THROW(serve::read_diff_rows("{\"page\": 1}"));
  EXPECT_ANY_THROW(serve::read_diff_rows("[[\"\", \"n\"]]"));
  EXPECT_ANY_THROW(serve::read_diff_rows("not json"));
}

}  // namespace
}  // namespace trtlens
