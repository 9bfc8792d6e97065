// Plugins: the ones libnvinfer_plugin bundles per release (data/plugins.tsv), reached through the
// importer's fallback to the plugin registry, and the user's own (--plugin).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/compat.h"
#include "trtlens/error.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

const KnowledgeBase& kb() { return KnowledgeBase::builtin(); }

bool has_reason(const NodeVerdict& v, std::string_view rule) {
  return std::any_of(v.reasons.begin(), v.reasons.end(), [&](const Reason& r) { return r.rule == rule; });
}

bool hints(const NodeVerdict& v, const std::string& text) {
  return std::any_of(v.hints.begin(), v.hints.end(), [&](const std::string& h) { return h.find(text) != std::string::npos; });
}

// boxes, scores -> one plugin node (op_type `op`), as a YOLO end-to-end export writes it.
// `version` empty: no plugin_version attribute (the importer's default, "1").
Model plugin_model(const std::string& name, const std::string& op, const std::string& version,
                   const std::string& domain = "") {
  std::string dir = temp_dir(name);
  ModelBuilder mb(17);
  if (!domain.empty()) mb.opset(domain, 1);
  auto g = mb.graph();
  g.input("boxes", kFloat, {1, 100, 4}).input("scores", kFloat, {1, 100, 80});
  auto& n = g.node(op, {"boxes", "scores"}, {"num", "det_boxes", "det_scores", "det_classes"}, "nms", domain);
  if (!version.empty()) attr_string(n, "plugin_version", version);
  attr_int(n, "max_output_boxes", 100);
  g.output("num", kInt32, {1, 1}).output("det_boxes", kFloat, {1, 100, 4});
  g.output("det_scores", kFloat, {1, 100}).output("det_classes", kInt32, {1, 100});
  return load_model(mb.save(dir + "/m.onnx"));
}

const NodeVerdict& judge(const Model& m, const KnowledgeBase& k, const std::string& release, Precision p,
                         Annotations& keep) {
  keep = annotate(m, k, k.resolve(release), p);
  return keep.nodes.at(0);
}

TEST(BundledPlugins, EfficientNmsImportsAsAPluginLayerFrom80) {
  Model m = plugin_model("plugin_enms", "EfficientNMS_TRT", "1");
  for (const char* release : {"8.0", "8.6", "10.1", "10.16", "11.5"}) {
    Annotations a;
    const NodeVerdict& v = judge(m, kb(), release, Precision::FP32, a);
    EXPECT_EQ(v.verdict, Verdict::SUPPORTED) << release;
    EXPECT_TRUE(has_reason(v, "plugin")) << release;
    EXPECT_TRUE(has_reason(v, "plugin_library")) << release;  // needs libnvinfer_plugin loaded
    EXPECT_TRUE(a.converts) << release;
  }
}

TEST(BundledPlugins, DefaultPluginVersionIsOne) {
  Model m = plugin_model("plugin_enms_default", "EfficientNMS_TRT", "");
  Annotations a;
  EXPECT_EQ(judge(m, kb(), "8.6", Precision::FP32, a).verdict, Verdict::SUPPORTED);
}

TEST(BundledPlugins, WrongPluginVersionIsUnsupportedByItsRule) {
  Model m = plugin_model("plugin_enms_v9", "EfficientNMS_TRT", "9");
  Annotations a;
  const NodeVerdict& v = judge(m, kb(), "8.6", Precision::FP32, a);
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  bool version_rule = std::any_of(v.reasons.begin(), v.reasons.end(),
                                  [](const Reason& r) { return r.rule.starts_with("attr_in(plugin_version,"); });
  EXPECT_TRUE(version_rule);
  EXPECT_TRUE(hints(v, "plugin_version"));
}

TEST(BundledPlugins, NotBeforeTheReleaseThatShipsIt) {
  Model m = plugin_model("plugin_enms_72", "EfficientNMS_TRT", "1");
  Annotations a;
  const NodeVerdict& v = judge(m, kb(), "7.2", Precision::FP32, a);
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_TRUE(hints(v, "supported from TensorRT 8.0"));
}

TEST(BundledPlugins, RemovedIn110NamesTheLastReleaseThatShippedIt) {
  // The standalone NMS plugin (nmsPlugin, "NMS_TRT") was removed in 11.0.
  Model m = plugin_model("plugin_nms_removed", "NMS_TRT", "1");
  Annotations a;
  EXPECT_EQ(judge(m, kb(), "10.16", Precision::FP32, a).verdict, Verdict::SUPPORTED);
  const NodeVerdict& v = judge(m, kb(), "11.0", Precision::FP32, a);
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_TRUE(hints(v, "up to TensorRT 10.16"));
}

TEST(BundledPlugins, AnOpThatIsNoPluginStaysUnsupportedWithAPluginHint) {
  Model m = plugin_model("plugin_unknown", "MyNms_TRT", "1");
  Annotations a;
  const NodeVerdict& v = judge(m, kb(), "10.16", Precision::FP32, a);
  EXPECT_EQ(v.verdict, Verdict::UNSUPPORTED);
  EXPECT_TRUE(hints(v, "--plugin MyNms_TRT"));
}

TEST(BundledPlugins, EveryReleaseListsItsPluginsWithVersions) {
  const Release& r = kb().resolve("8.6");
  std::vector<const OpEntry*> plugins = r.bundled_plugins();
  EXPECT_GE(plugins.size(), 20u);
  for (const OpEntry* e : plugins) {
    EXPECT_EQ(e->status, OpStatus::PLUGIN) << e->op;
    ASSERT_FALSE(e->rules.empty()) << e->op;
    EXPECT_EQ(e->rules[0].name, "attr_in") << e->op;
  }
  EXPECT_EQ(kb().resolve("11.0").find("NMS_TRT"), nullptr);
}

TEST(DeclaredPlugins, AUserPluginImportsWhereTheImporterFallsBackToTheRegistry) {
  Model m = plugin_model("plugin_user", "MyNms_TRT", "2");
  KnowledgeBase mine = kb().with_plugins({{"MyNms_TRT", {"2"}}});
  Annotations a;
  const NodeVerdict& v = judge(m, mine, "10.16", Precision::FP16, a);
  EXPECT_EQ(v.verdict, Verdict::SUPPORTED);
  EXPECT_TRUE(has_reason(v, "plugin"));
  const OpEntry* row = mine.resolve("10.16").find("MyNms_TRT");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->importer, "user");

  KnowledgeBase other_version = kb().with_plugins({{"MyNms_TRT", {"1"}}});
  EXPECT_EQ(judge(m, other_version, "10.16", Precision::FP32, a).verdict, Verdict::UNSUPPORTED);
  KnowledgeBase any_version = kb().with_plugins({{"MyNms_TRT", {}}});
  EXPECT_EQ(judge(m, any_version, "10.16", Precision::FP32, a).verdict, Verdict::SUPPORTED);
}

TEST(DeclaredPlugins, ABuiltInOpKeepsItsImporter) {
  KnowledgeBase mine = kb().with_plugins({{"Relu", {}}});
  EXPECT_EQ(mine.resolve("10.16").find("Relu")->status, OpStatus::Y);
}

TEST(DeclaredPlugins, MalformedDeclarationsAreUsageErrors) {
  EXPECT_THROW(kb().with_plugins({{"", {}}}), UsageError);
  EXPECT_THROW(kb().with_plugins({{"P", {"1,2"}}}), UsageError);
  EXPECT_THROW(kb().with_plugins({{"P", {""}}}), UsageError);
}

}  // namespace
}  // namespace trtlens
