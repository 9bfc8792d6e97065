// Every model.onnx of Debian's libonnx-testdata goes through load + annotate
// with a verdict for every node; a few verdicts are known.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/paths.h"
#include "trtlens/compat.h"
#include "trtlens/error.h"

namespace trtlens {
namespace {

namespace fs = std::filesystem;

std::string testdata(const std::string& rel) { return std::string(TRTLENS_TESTDATA_DIR) + "/" + rel; }

TEST(Testdata, EveryModelGetsAVerdictForEveryNode) {
  if (!fs::exists(testdata("node"))) GTEST_SKIP() << "libonnx-testdata is not installed";
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  const Release* releases[] = {&kb.resolve("7.2"), &kb.resolve("8.6"), &kb.resolve("10.0"), &kb.resolve("11.1")};
  size_t models = 0, nodes = 0;
  for (const char* folder : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    for (const auto& entry : fs::recursive_directory_iterator(testdata(folder))) {
      if (entry.path().filename() != "model.onnx") continue;
      std::string path = entry.path().string();
      Model m;
      try {
        m = load_model(path);
      } catch (const InputError& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      ++models;
      nodes += m.node_count();
      for (const Release* r : releases)
        for (Precision p : {Precision::FP16, Precision::INT8}) {
          Annotations a = annotate(m, *r, p);
          ASSERT_EQ(a.nodes.size(), m.node_count()) << path;
          int total = 0;
          for (int c : a.summary) total += c;
          EXPECT_EQ(total, static_cast<int>(m.node_count())) << path;
          for (const auto& v : a.nodes)
            if (v.verdict != Verdict::SUPPORTED) {
              EXPECT_FALSE(v.reasons.empty()) << path << " node " << v.index;
            }
        }
    }
  }
  EXPECT_GT(models, 1000u);
  EXPECT_GT(nodes, models);
}

Verdict first_verdict(const std::string& rel, const std::string& release, Precision p) {
  Model m = load_model(testdata(rel));
  return annotate(m, KnowledgeBase::builtin().resolve(release), p).nodes.at(0).verdict;
}

TEST(Testdata, KnownVerdicts) {
  if (!fs::exists(testdata("node"))) GTEST_SKIP() << "libonnx-testdata is not installed";
  // Resize with cubic mode: not before 8.0's rules admit it.
  EXPECT_EQ(first_verdict("node/test_resize_upsample_scales_cubic/model.onnx", "7.2", Precision::FP32),
            Verdict::UNSUPPORTED);
  EXPECT_EQ(first_verdict("node/test_resize_upsample_scales_cubic/model.onnx", "8.6", Precision::FP16),
            Verdict::SUPPORTED);
  // Ops marked N.
  EXPECT_EQ(first_verdict("node/test_det_2d/model.onnx", "8.6", Precision::FP32), Verdict::UNSUPPORTED);
  EXPECT_EQ(first_verdict("node/test_hannwindow/model.onnx", "10.1", Precision::FP32), Verdict::UNSUPPORTED);
  // BatchNormalization has no INT8 kernel in 8.6; training mode is rejected by a rule.
  EXPECT_EQ(first_verdict("node/test_batchnorm_example/model.onnx", "8.6", Precision::INT8), Verdict::FALLBACK);
  EXPECT_EQ(first_verdict("node/test_batchnorm_example/model.onnx", "8.6", Precision::FP16), Verdict::SUPPORTED);
  EXPECT_EQ(first_verdict("node/test_batchnorm_example_training_mode/model.onnx", "8.6", Precision::FP32),
            Verdict::UNSUPPORTED);
  // Strings have no TensorRT type.
  EXPECT_EQ(first_verdict("node/test_strnormalizer_export_monday_casesensintive_lower/model.onnx", "10.0",
                          Precision::FP32),
            Verdict::UNSUPPORTED);
}

}  // namespace
}  // namespace trtlens
