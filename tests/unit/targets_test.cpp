// Deployment targets (include/trtlens/target.h): the catalog of data/targets, precision
// narrowing, the releases a Jetson runs, and DLA placement per restriction kind, each on a
// model built in the test.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <functional>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/analysis.h"
#include "trtlens/error.h"
#include "trtlens/target.h"
#include "util/embedded.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

const KnowledgeBase& kb() {
  return KnowledgeBase::builtin();
}
const TargetCatalog& catalog() {
  return TargetCatalog::builtin();
}

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}

TEST(TargetCatalog, ResolvesNamesAndComputeCapabilities) {
  EXPECT_EQ(catalog().resolve("A100").name, "a100");
  EXPECT_EQ(catalog().resolve("orin-dla").dla, true);
  EXPECT_EQ(catalog().resolve("sm_89").cc, "8.9");
  EXPECT_EQ(catalog().resolve("8.7").name, "orin");  // the GPU, never the DLA core
  EXPECT_EQ(catalog().resolve("sm90").cc, "9.0");
  EXPECT_EQ(catalog().resolve("8.9").cc, "8.9");
  // CUDA's arch- and family-specific targets run on the base capability.
  EXPECT_EQ(catalog().resolve("sm_90a").cc, "9.0");
  EXPECT_EQ(catalog().resolve("SM_100A").name, "b200");
  EXPECT_EQ(catalog().resolve("sm_120f").cc, "12.0");
  EXPECT_EQ(catalog().resolve("sm_53").name, "nano");
  EXPECT_EQ(catalog().resolve("sm_62").name, "tx2");
  // A capability names its family file's first device of it (the data-centre part), not the first by name.
  EXPECT_EQ(catalog().resolve("sm_70").name, "v100");  // not titan-v
  EXPECT_EQ(catalog().resolve("sm_90").name, "h100");   // not gh200
  EXPECT_EQ(catalog().resolve("sm_75").name, "t4");     // not rtx2080
  EXPECT_EQ(catalog().resolve("sm_61").name, "p4");     // not gtx1080
  EXPECT_EQ(catalog().resolve("sm_80").name, "a100");
}

// Aliases live in the family files (`alias` rows): each names the same Target as its target's own name.
TEST(TargetCatalog, AliasesNameTheSameTarget) {
  for (const char* alias : {"jetson-orin", "agx-orin", "orin-nx", "orin-nano", "jetson-agx-orin", "Jetson-Orin-Nano"})
    EXPECT_EQ(&catalog().resolve(alias), &catalog().resolve("orin")) << alias;
  for (const char* alias : {"jetson-xavier", "xavier-nx", "agx-xavier"})
    EXPECT_EQ(&catalog().resolve(alias), &catalog().resolve("xavier")) << alias;
  for (const char* alias : {"jetson-thor", "agx-thor"}) EXPECT_EQ(&catalog().resolve(alias), &catalog().resolve("thor"));
  EXPECT_EQ(catalog().resolve("jetson-nano").name, "nano");
  EXPECT_EQ(catalog().resolve("jetson-tx2").name, "tx2");
  EXPECT_EQ(catalog().resolve("tesla-v100").name, "v100");
  EXPECT_FALSE(catalog().resolve("orin-nano").dla);  // an alias of the GPU, never of its DLA core
  TargetCatalog own = TargetCatalog::parse({{"data/targets/x.tsv", "kind\tname\tvalue\treleases\tnote\tsource\n"
                                                                   "device\tx1\t8.0\t-\tX\thttp://x\n"
                                                                   "runs\t8.0\t-\t-\tall\thttp://x\n"
                                                                   "alias\tX-One\tx1\t-\tX\thttp://x\n"}});
  EXPECT_EQ(own.resolve("x-one").name, "x1");
}

TEST(TargetCatalog, AnEmptyTargetIsAUsageError) {
  std::string e = usage_error([] { catalog().resolve(""); });
  EXPECT_NE(e.find("an empty target"), std::string::npos) << e;
  EXPECT_EQ(e.find("unknown target"), std::string::npos) << e;
}

TEST(TargetCatalog, UnknownTargetListsTheKnownOnes) {
  std::string e = usage_error([] { catalog().resolve("tpu-v5"); });
  EXPECT_NE(e.find("unknown target 'tpu-v5'"), std::string::npos) << e;
  for (const char* name : {"a100", "h100", "l4", "orin", "orin-dla", "xavier-dla", "thor", "p100", "v100", "nano", "tx2"})
    EXPECT_NE(e.find(name), std::string::npos) << name << " in " << e;
  // Target names, not every alias.
  for (const char* alias : {"jetson-agx-orin", "xavier-nx", "jetson-thor", "tesla-p4"})
    EXPECT_EQ(e.find(alias), std::string::npos) << alias << " in " << e;
  EXPECT_NE(usage_error([] { catalog().resolve("sm_35"); }).find("unknown target"), std::string::npos);
  EXPECT_NE(usage_error([] { catalog().resolve("sm_90b"); }).find("unknown target"), std::string::npos);
}

TEST(TargetCatalog, EveryRowCitesASource) {
  for (const Target& t : catalog().targets()) {
    EXPECT_EQ(t.source.rfind("http", 0), 0u) << t.name;
    for (const auto* rows : {&t.precisions, &t.runs, &t.ships})
      for (const TargetRow& r : *rows) EXPECT_EQ(r.source.rfind("http", 0), 0u) << t.name << " " << r.value;
  }
  for (const char* r : {"8.2", "8.4", "8.5", "8.6", "10.3", "11.4"}) {
    const DlaRules* rules = catalog().dla_rules(r);
    ASSERT_NE(rules, nullptr) << r;
    for (const DlaCheck& c : rules->checks) {
      EXPECT_EQ(c.source.rfind("http", 0), 0u) << r << " " << c.layer;
      // Each row names the header line of its own release that states it, or says it is not confirmed.
      bool header = c.source.find("release/" + std::string(r) + ":include/NvInfer.h:") != std::string::npos;
      EXPECT_TRUE(header || c.source.find("not confirmed") != std::string::npos ||
                  c.source.find("dla-layer-restrictions.html") != std::string::npos)
          << r << " " << c.layer << " " << c.check;
    }
  }
  for (const LayerMapping& l : catalog().layers()) EXPECT_NE(l.where.find("GA "), std::string::npos) << l.op;
}

// 11.4 has no header in the mirror and no 11.4.1 copy of the restrictions page in the search corpus: each row is the
// "latest" page's (its General Restrictions or Table 12, quoted down to Parametric ReLU) or dla/10.3.tsv's, carried and
// marked not confirmed. A header line it cites is release/11.1's (the newest in the mirror), never given as 11.4's.
TEST(TargetCatalog, Dla114RowsArePagesOrCarriedAndMarked) {
  const DlaRules* rules = catalog().dla_rules("11.4");
  ASSERT_NE(rules, nullptr);
  const std::string latest = "latest/inference-library/dla-layer-restrictions.html (";
  int from_page = 0, carried = 0;
  for (const DlaCheck& c : rules->checks) {
    bool page = c.source.find(latest + "General Restrictions") != std::string::npos ||
                c.source.find(latest + "Table 12") != std::string::npos;
    bool marked = c.source.find("carried from dla/10.3.tsv") != std::string::npos &&
                  c.source.find("not confirmed for 11.4") != std::string::npos;
    EXPECT_NE(page, marked) << c.layer << " " << c.check << ": " << c.source;
    from_page += page;
    carried += marked;
    EXPECT_EQ(c.source.find("release/11.4:"), std::string::npos) << c.source;
    EXPECT_EQ(c.source.find("release/10.3:"), std::string::npos) << c.source;
  }
  EXPECT_GT(from_page, 0);
  EXPECT_GT(carried, 0);
}

// Row by row, 11.4 restricts what 10.3 does, but for the ElementWise operations Table 12 adds (Div, Pow).
TEST(TargetCatalog, Dla114DiffersFrom103OnlyInElementWiseDivAndPow) {
  const DlaRules* old_rules = catalog().dla_rules("10.3");
  const DlaRules* new_rules = catalog().dla_rules("11.4");
  ASSERT_NE(old_rules, nullptr);
  ASSERT_NE(new_rules, nullptr);
  ASSERT_EQ(old_rules->checks.size(), new_rules->checks.size());
  for (size_t i = 0; i < old_rules->checks.size(); ++i) {
    const DlaCheck &o = old_rules->checks[i], &n = new_rules->checks[i];
    EXPECT_EQ(std::tie(o.layer, o.check, o.devices), std::tie(n.layer, n.check, n.devices)) << i;
    if (n.layer == "elementwise" && n.check == "modes")
      EXPECT_EQ(n.args, o.args.substr(0, o.args.find("|equal")) + "|div|pow" + o.args.substr(o.args.find("|equal")));
    else
      EXPECT_EQ(o.args, n.args) << n.layer << " " << n.check;
  }
}

TEST(TargetCatalog, AJetsonRunsWhatItsJetPackShips) {
  const Target& orin = catalog().resolve("orin");
  std::string e = usage_error([&] { catalog().check_release(orin, kb().resolve("11.1")); });
  EXPECT_NE(e.find("TensorRT 11.1 does not run on orin"), std::string::npos) << e;
  for (const char* r : {"8.4", "8.5 (JetPack 5.1", "8.6 (JetPack 6.0", "10.3 (JetPack 6.1",
                        "11.4.. (JetPack 7.2.2 or later, TensorRT's SBSA build (11.4.1+)"})
    EXPECT_NE(e.find(r), std::string::npos) << r << " in " << e;
  EXPECT_NO_THROW(catalog().check_release(orin, kb().resolve("8.5")));
  // Beyond its JetPacks a Jetson runs what a runs row holds: 11.4.1's SBSA build on JetPack 7.2.2+, Orin and Thor.
  for (const char* target : {"orin", "thor"})
    for (const char* r : {"11.4", "11.5"})
      EXPECT_NO_THROW(catalog().check_release(catalog().resolve(target), kb().resolve(r))) << target << " " << r;
  EXPECT_NE(usage_error([&] { catalog().check_release(orin, kb().resolve("11.3")); }).find("11.4.. (JetPack 7.2.2"),
            std::string::npos);
  // 10.16.1's SBSA build adds Orin's iGPU (ahead of a JetPack 7.x), not its DLA; 10.4 - 10.15 stay out.
  EXPECT_NO_THROW(catalog().check_release(orin, kb().resolve("10.16")));
  EXPECT_NE(usage_error([&] { catalog().check_release(orin, kb().resolve("10.15")); })
                .find("10.16 (JetPack 7.x, TensorRT's SBSA build (10.16.1+"),
            std::string::npos);
  EXPECT_NE(usage_error([&] { catalog().check_release(catalog().resolve("orin-dla"), kb().resolve("10.16")); })
                .find("no DLA facts for TensorRT 10.16"),
            std::string::npos);
  // Without --trt a Jetson still takes the newest release its JetPack ships, not the newest it runs.
  EXPECT_EQ(catalog().newest_release(orin, kb())->name, "10.3");
  EXPECT_EQ(catalog().newest_release(catalog().resolve("thor"), kb())->name, "10.13");
  // A catalog whose Jetson has runs rows only takes the newest release they hold.
  TargetCatalog runs_only = TargetCatalog::parse(
      {{"data/targets/jetson-y.tsv", "kind\tname\tvalue\treleases\tnote\tsource\n"
                                     "device\ty\t8.7\t-\tY\thttp://y\n"
                                     "runs\t8.7\t-\t8.5..8.6\tJetPack Y\thttp://y\n"}});
  EXPECT_EQ(runs_only.newest_release(runs_only.resolve("y"), kb())->name, "8.6");
  // The DLA core needs DLA facts of the release as well (a catalog with a DLA core and no dla/ file).
  TargetCatalog bare = TargetCatalog::parse(
      {{"data/targets/jetson-x.tsv", "kind\tname\tvalue\treleases\tnote\tsource\n"
                                     "dla_device\tx-dla\t8.7\t-\tX\thttp://x\n"
                                     "ships\t8.7\t-\t8.5\tJetPack 5.1\thttp://x\n"}});
  EXPECT_NE(usage_error([&] { bare.check_release(bare.resolve("x-dla"), kb().resolve("8.5")); })
                .find("no DLA facts for TensorRT 8.5 (target x-dla): data/targets/dla has none"),
            std::string::npos);
  // A GPU runs the releases whose support matrix lists its compute capability.
  EXPECT_NE(usage_error([] {
              catalog().check_release(catalog().resolve("b200"), kb().resolve("10.0"));
            }).find("does not run on b200"),
            std::string::npos);
  EXPECT_NO_THROW(catalog().check_release(catalog().resolve("a100"), kb().resolve("11.1")));
}

// Every release a Xavier or Orin JetPack ships has DLA facts: 8.2 (JetPack 4.6.1, Xavier only), 8.4 (JetPack 5.0.2),
// 8.5, 8.6 and 10.3 (Orin only), and so has 11.4 (11.4.1 restores Orin's DLA). TensorRT 11.0 - 11.3 have no DLA and no
// JetPack: a usage error naming what runs; 11.5 runs on Orin's GPU, but no DLA facts describe it.
TEST(TargetCatalog, EveryReleaseAJetPackShipsHasDlaFacts) {
  const Target& xavier = catalog().resolve("xavier-dla");
  const Target& orin = catalog().resolve("orin-dla");
  for (const char* r : {"8.2", "8.4", "8.5"}) EXPECT_NO_THROW(catalog().check_release(xavier, kb().resolve(r))) << r;
  for (const char* r : {"8.4", "8.5", "8.6", "10.3"})
    EXPECT_NO_THROW(catalog().check_release(orin, kb().resolve(r))) << r;
  EXPECT_EQ(catalog().newest_release(xavier, kb())->name, "8.5");
  EXPECT_EQ(catalog().newest_release(orin, kb())->name, "10.3");
  // JetPack 4.6.x runs Xavier only; JetPack 6 runs Orin only.
  EXPECT_NE(usage_error([&] { catalog().check_release(orin, kb().resolve("8.2")); }).find("does not run on orin-dla"),
            std::string::npos);
  EXPECT_NE(
      usage_error([&] { catalog().check_release(xavier, kb().resolve("8.6")); }).find("does not run on xavier-dla"),
      std::string::npos);
  for (const char* r : {"11.0", "11.1", "11.2", "11.3"}) {
    std::string e = usage_error([&] { catalog().check_release(orin, kb().resolve(r)); });
    EXPECT_NE(e.find(std::string("TensorRT ") + r + " does not run on orin-dla"), std::string::npos) << e;
    EXPECT_NE(e.find("10.3 (JetPack 6.1"), std::string::npos) << e;
    EXPECT_NE(e.find("11.4.. (JetPack 7.2.2"), std::string::npos) << e;
  }
  EXPECT_NO_THROW(catalog().check_release(orin, kb().resolve("11.4")));
  EXPECT_NE(usage_error([&] { catalog().check_release(orin, kb().resolve("11.5")); })
                .find("no DLA facts for TensorRT 11.5 (target orin-dla): data/targets/dla has 8.2, 8.4, 8.5, 8.6, "
                      "10.3, 11.4"),
            std::string::npos);
  EXPECT_NE(
      usage_error([&] { catalog().check_release(xavier, kb().resolve("11.4")); }).find("does not run on xavier-dla"),
      std::string::npos);
  for (const char* r : {"8.2", "8.4"}) EXPECT_NE(catalog().dla_rules(r), nullptr) << r;
}

// The knowledge-base fingerprint covers the target facts: the same digest over the embedded release tables and
// data/targets files, and a different one when a targets file changes by one byte or is left out.
TEST(TargetCatalog, FingerprintCoversTheTargetFacts) {
  EXPECT_TRUE(KnowledgeBase::fingerprinted("data/targets/dla/8.5.tsv"));
  EXPECT_TRUE(KnowledgeBase::fingerprinted("data/targets/jetson-orin.tsv"));
  EXPECT_TRUE(KnowledgeBase::fingerprinted("data/trt/8.5.tsv"));
  EXPECT_FALSE(KnowledgeBase::fingerprinted("data/trt/README.md"));
  EXPECT_FALSE(KnowledgeBase::fingerprinted("web/report.js"));
  std::vector<std::pair<std::string_view, std::string_view>> files, tables_only;
  for (const EmbeddedFile& f : embedded_files())
    if (KnowledgeBase::fingerprinted(f.path)) {
      files.emplace_back(f.path, f.contents);
      if (f.path.starts_with("data/trt/")) tables_only.emplace_back(f.path, f.contents);
    }
  ASSERT_GT(files.size(), tables_only.size());
  EXPECT_EQ(KnowledgeBase::fingerprint_of(files), kb().fingerprint());
  EXPECT_NE(KnowledgeBase::fingerprint_of(tables_only), kb().fingerprint());
  auto dla =
      std::find_if(files.begin(), files.end(), [](const auto& f) { return f.first == "data/targets/dla/8.5.tsv"; });
  ASSERT_NE(dla, files.end());
  std::string edited = std::string(dla->second) + "\n";
  dla->second = edited;
  EXPECT_NE(KnowledgeBase::fingerprint_of(files), kb().fingerprint());
  // Order does not matter: the manifest is sorted by path.
  std::vector<std::pair<std::string_view, std::string_view>> reversed(files.rbegin(), files.rend());
  EXPECT_EQ(KnowledgeBase::fingerprint_of(reversed), KnowledgeBase::fingerprint_of(files));
}

using Files = std::vector<std::pair<std::string_view, std::string_view>>;
std::string input_error(const Files& files) {
  try {
    TargetCatalog::parse(files);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(TargetCatalog, MalformedFilesNameTheFileAndLine) {
  const std::string head = "kind\tname\tvalue\treleases\tnote\tsource\n";
  std::string dev = "device\tx1\t8.0\t-\tX\thttp://x\n";
  std::string runs = "runs\t8.0\t-\t-\tall\thttp://x\n";
  std::string bad_kind = head + dev + runs + "speed\t8.0\t-\t-\tfast\thttp://x\n";
  std::string bad_range = head + dev + "runs\t8.0\t-\t8.x..\tall\thttp://x\n";
  std::string bad_precision = head + dev + runs + "precisions\t8.0\tFP32,FP7\t-\tx\thttp://x\n";
  std::string no_header = dev;
  std::string no_runs = head + dev;
  std::string short_row = head + "device\tx1\t8.0\n";
  EXPECT_NE(input_error({{"data/targets/x.tsv", bad_kind}}).find("data/targets/x.tsv: line 4: unknown kind 'speed'"),
            std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", bad_range}}).find("line 3: release range '8.x..'"), std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", bad_precision}}).find("unknown precision 'FP7'"), std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", no_header}}).find("expected the header"), std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", no_runs}}).find("no runs or ships row"), std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", short_row}}).find("3 fields, expected 6"), std::string::npos);
  std::string dla = "layer\tcheck\targs\tdevices\tsource\nconvolution\tkernal\t1..32\t-\thttp://x\n";
  EXPECT_NE(input_error({{"data/targets/dla/8.5.tsv", dla}}).find("line 2: unknown check 'kernal'"), std::string::npos);
  // The new checks' arguments are read with the file, so a malformed row names its line.
  const std::string dla_head = "layer\tcheck\targs\tdevices\tsource\n";
  EXPECT_NE(input_error({{"data/targets/dla/8.5.tsv", dla_head + "slice\tsteps\tone\t-\thttp://x\n"}})
                .find("data/targets/dla/8.5.tsv: line 2: check 'steps' takes an integer, got 'one'"),
            std::string::npos);
  EXPECT_NE(input_error({{"data/targets/dla/8.5.tsv", dla_head + "resize\tscales\t1..32\t-\thttp://x\n"}})
                .find("line 2: check 'scales' takes MODE:A..B"),
            std::string::npos);
  EXPECT_NE(input_error({{"data/targets/dla/8.5.tsv", dla_head + "deconvolution\tstride_is_kernel\t2\t-\thttp://x\n"}})
                .find("line 2: check 'stride_is_kernel' takes no argument"),
            std::string::npos);
  std::string int4 = dla_head + "elementwise\tmode_precision\tequal:INT4\t-\thttp://x\n";
  EXPECT_NE(input_error({{"data/targets/dla/8.5.tsv", int4}})
                .find("line 2: check 'mode_precision' takes MODE|MODE:PRECISION|PRECISION, got 'equal:INT4'"),
            std::string::npos);
  // A Jetson's runs row (beside its ships rows) is read like any range: a malformed or empty one is one line.
  std::string jetson = head + "device\tj1\t8.7\t-\tJ\thttp://x\n" + "ships\t8.7\t-\t10.3\tJetPack 6.1\thttp://x\n";
  for (const char* range : {"11.x..", "11.4...", "..", "11.5..11.4"}) {
    std::string row = std::string("runs\t8.7\t-\t") + range + "\tJP\thttp://x\n";
    std::string e = input_error({{"data/targets/jetson-j.tsv", jetson + row}});
    EXPECT_NE(e.find(std::string("data/targets/jetson-j.tsv: line 4: release range '") + range + "'"),
              std::string::npos)
        << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  EXPECT_NE(input_error({{"data/targets/jetson-j.tsv", jetson + "runs\t8.7\t-\t11.5..11.4\tJP\thttp://x\n"}})
                .find("holds no release (its end is before its start)"),
            std::string::npos);
  std::string twice = head + dev + dev + runs;
  EXPECT_NE(input_error({{"data/targets/x.tsv", twice}}).find("target x1 defined twice"), std::string::npos);
  // Alias rows: each names a target, takes a name no target or other alias has, and holds for every release.
  EXPECT_NE(input_error({{"data/targets/x.tsv", head + dev + runs + "alias\tx-one\tx2\t-\tX\thttp://x\n"}})
                .find("data/targets/x.tsv: line 4: alias x-one names no target 'x2'"),
            std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", head + dev + runs + "alias\tx-one\tx1\t-\tX\thttp://x\n" +
                                                   "alias\tx-uno\tx-one\t-\tX\thttp://x\n"}})
                .find("line 5: alias x-uno names no target 'x-one'"),
            std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", head + dev + runs + "alias\tX1\tx1\t-\tX\thttp://x\n"}})
                .find("line 4: alias x1 is already a target or alias name"),
            std::string::npos);
  EXPECT_NE(input_error({{"data/targets/x.tsv", head + dev + runs + "alias\tx-one\tx1\t8.5\tX\thttp://x\n"}})
                .find("line 4: an alias row holds for every release"),
            std::string::npos);
}

// ---- precision narrowing ---------------------------------------------------------------------

Model conv_model(const std::string& name) { return load_model(save_conv_relu_model(temp_dir(name))); }

TEST(TargetPrecision, Fp8OnAnA100FallsBackCitingTheSupportMatrix) {
  Model m = load_model(save_fp8_qdq_conv_model(temp_dir("target_fp8")));
  const Release& r = kb().resolve("10.8");
  Annotations h100 = annotate_runtime(m, kb(), {&r, Precision::FP8, &catalog().resolve("h100")});
  Annotations a100 = annotate_runtime(m, kb(), {&r, Precision::FP8, &catalog().resolve("a100")});
  auto conv = [&m](const Annotations& a) -> const NodeVerdict& {
    for (const auto& v : a.nodes)
      if (m.graphs[0].nodes[static_cast<size_t>(v.index)].name == "conv") return v;
    throw std::runtime_error("no conv");
  };
  const NodeVerdict& on_h100 = conv(h100);
  const NodeVerdict& on_a100 = conv(a100);
  ASSERT_EQ(on_h100.precision, "FP8") << "a Conv inside an FP8 Q/DQ region runs at FP8";
  EXPECT_EQ(on_h100.verdict, Verdict::SUPPORTED);
  EXPECT_EQ(on_a100.verdict, Verdict::FALLBACK);
  EXPECT_EQ(on_a100.precision, "FP32");
  ASSERT_FALSE(on_a100.reasons.empty());
  const Reason& why = on_a100.reasons.front();  // the device first
  EXPECT_EQ(why.rule, "target");
  EXPECT_NE(why.message.find("a100 (NVIDIA A100, sm_80) has no FP8 kernels"), std::string::npos) << why.message;
  EXPECT_NE(why.source.find("support-matrix"), std::string::npos) << why.source;
  bool hint = false;
  for (const auto& h : on_a100.hints) hint |= h.find("h100") != std::string::npos && h.find("l4") != std::string::npos;
  EXPECT_TRUE(hint);
  EXPECT_GT(a100.summary[static_cast<size_t>(Verdict::FALLBACK)], h100.summary[static_cast<size_t>(Verdict::FALLBACK)]);
  EXPECT_EQ(a100.target, &catalog().resolve("a100"));
}

TEST(TargetPrecision, Bf16OnOrinFallsBackToFp32AndBestToFp16) {
  Model m = conv_model("target_bf16");
  const Release& r = kb().resolve("10.3");
  const Target& orin = catalog().resolve("orin");
  Annotations bf16 = annotate_runtime(m, kb(), {&r, Precision::BF16, &orin});
  Annotations plain = annotate_runtime(m, kb(), {&r, Precision::BF16, nullptr});
  ASSERT_EQ(plain.nodes[0].precision, "BF16");
  EXPECT_EQ(bf16.nodes[0].verdict, Verdict::FALLBACK);
  EXPECT_EQ(bf16.nodes[0].precision, "FP32");
  // FP16 is an Orin precision: nothing narrowed.
  Annotations fp16 = annotate_runtime(m, kb(), {&r, Precision::FP16, &orin});
  EXPECT_EQ(fp16.nodes[0].verdict, Verdict::SUPPORTED);
  EXPECT_EQ(fp16.nodes[0].precision, "FP16");
}

// ---- Pascal, Volta, Jetson Nano and TX2: a precision the device has no kernels for falls back with the device's
// reason; a release it does not run is a usage error naming the ones it runs.

const NodeVerdict& conv_on(const Model& m, const Annotations& a) {
  for (const auto& v : a.nodes)
    if (m.graphs[0].nodes[static_cast<size_t>(v.index)].op_type == "Conv") return v;
  throw std::runtime_error("no Conv");
}

// The Conv of `m` on `target` at `release` and `p`: it falls back to `wider`, saying the device has no `missing`
// kernels and citing the family file's precisions row.
void expect_no_kernels(const Model& m, const char* target, const char* release, Precision p, const char* missing,
                       const char* wider) {
  const Target& t = catalog().resolve(target);
  Annotations a = annotate_runtime(m, kb(), {&kb().resolve(release), p, &t});
  const NodeVerdict& conv = conv_on(m, a);
  EXPECT_EQ(conv.verdict, Verdict::FALLBACK) << target << " " << release;
  EXPECT_EQ(conv.precision, wider) << target;
  ASSERT_FALSE(conv.reasons.empty()) << target;
  EXPECT_EQ(conv.reasons.back().rule, "target");
  EXPECT_NE(conv.reasons.back().message.find(t.label() + " has no " + missing + " kernels"), std::string::npos)
      << conv.reasons.back().message;
  EXPECT_EQ(conv.reasons.back().source, t.precisions_at(kb().resolve(release))->source);
}

void expect_kernels(const Model& m, const char* target, const char* release, Precision p, const char* runs_at) {
  Annotations a = annotate_runtime(m, kb(), {&kb().resolve(release), p, &catalog().resolve(target)});
  EXPECT_EQ(conv_on(m, a).verdict, Verdict::SUPPORTED) << target << " " << release;
  EXPECT_EQ(conv_on(m, a).precision, runs_at) << target;
}

// "TensorRT R does not run on T (...): it runs TensorRT <each of `runs`>".
void expect_does_not_run(const char* target, const char* release, const std::vector<std::string>& runs) {
  std::string e = usage_error([&] { catalog().check_release(catalog().resolve(target), kb().resolve(release)); });
  EXPECT_NE(e.find(std::string("TensorRT ") + release + " does not run on " + target), std::string::npos) << e;
  for (const std::string& r : runs) EXPECT_NE(e.find(r), std::string::npos) << r << " in " << e;
}

TEST(TargetFamilies, PascalRunsFp16On60AndInt8On61Only) {
  Model m = conv_model("target_pascal");
  expect_no_kernels(m, "p4", "8.6", Precision::FP16, "FP16", "FP32");
  expect_no_kernels(m, "gtx1080", "7.1", Precision::FP16, "FP16", "FP32");
  expect_kernels(m, "p40", "8.6", Precision::INT8, "INT8");
  expect_kernels(m, "p100", "8.6", Precision::FP16, "FP16");
  expect_no_kernels(m, "p100", "8.6", Precision::INT8, "INT8", "FP32");
  for (const char* r : {"9.0", "10.0", "11.1"}) expect_does_not_run("p100", r, {"5.1..8.6"});
  expect_does_not_run("p4", "10.0", {"5.1..8.6"});
  EXPECT_NO_THROW(catalog().check_release(catalog().resolve("p4"), kb().resolve("5.1")));
  EXPECT_EQ(catalog().newest_release(catalog().resolve("p100"), kb())->name, "8.6");
}

TEST(TargetFamilies, VoltaRunsUntil104WithoutBf16) {
  Model m = conv_model("target_volta");
  expect_kernels(m, "v100", "10.4", Precision::FP16, "FP16");
  expect_kernels(m, "v100", "8.6", Precision::INT8, "INT8");  // DP4A: no INT8 tensor cores, INT8 kernels all the same
  expect_no_kernels(m, "v100", "10.4", Precision::BF16, "BF16", "FP32");
  expect_does_not_run("v100", "10.5", {"5.1..10.4"});
  EXPECT_NO_THROW(catalog().check_release(catalog().resolve("v100"), kb().resolve("10.4")));
  EXPECT_EQ(catalog().newest_release(catalog().resolve("v100"), kb())->name, "10.4");
}

// Maxwell 5.0 and 5.2: FP32 kernels only (half precision from 5.3, INT8 from 6.1), releases 5.1 to 8.6 (the 8.5.2
// release notes drop Maxwell in 9.0). A compute capability names the family's first device of it.
TEST(TargetFamilies, MaxwellRunsFp32OnlyUntil86) {
  Model m = conv_model("target_maxwell");
  for (const char* t : {"m40", "gtx750ti"}) {
    expect_kernels(m, t, "8.6", Precision::FP32, "FP32");
    expect_no_kernels(m, t, "8.6", Precision::FP16, "FP16", "FP32");
    expect_no_kernels(m, t, "5.1", Precision::INT8, "INT8", "FP32");
    for (const char* r : {"9.0", "10.0"}) expect_does_not_run(t, r, {"5.1..8.6"});
    EXPECT_EQ(catalog().newest_release(catalog().resolve(t), kb())->name, "8.6") << t;
  }
  EXPECT_EQ(catalog().resolve("sm_52").name, "m40");
  EXPECT_EQ(catalog().resolve("sm50").name, "gtx750ti");
  EXPECT_EQ(catalog().resolve("5.3").name, "nano");  // Maxwell's Jetson: jetson-nano.tsv
  EXPECT_EQ(catalog().resolve("tesla-m60").name, "m60");
}

TEST(TargetFamilies, JetsonNanoAndTx2RunJetPack4WithoutInt8) {
  Model m = conv_model("target_nano_tx2");
  for (const char* t : {"nano", "tx2"}) {
    expect_kernels(m, t, "8.2", Precision::FP16, "FP16");
    expect_no_kernels(m, t, "8.2", Precision::INT8, "INT8", "FP32");
    expect_does_not_run(t, "8.5", {"5.1 (JetPack 4.2.1", "7.1 (JetPack 4.4", "8.0 (JetPack 4.6,", "8.2 (JetPack 4.6.1"});
    expect_does_not_run(t, "10.3", {"8.2 (JetPack 4.6.1"});
    EXPECT_EQ(catalog().newest_release(catalog().resolve(t), kb())->name, "8.2") << t;
  }
}

// No Q/DQ, --precision fp8 on an A100: the release says FP8 comes only through Q/DQ, but the device has no FP8
// kernels at all, so that comes first and no hint says to quantize to FP8; the hint names the device's precisions.
TEST(TargetPrecision, Fp8WithoutQdqOnAnA100NamesTheDeviceFirstAndItsPrecisions) {
  Model m = conv_model("target_fp8_plain");
  const Release& r = kb().resolve("10.8");
  Annotations a100 = annotate_runtime(m, kb(), {&r, Precision::FP8, &catalog().resolve("a100")});
  Annotations h100 = annotate_runtime(m, kb(), {&r, Precision::FP8, &catalog().resolve("h100")});
  const NodeVerdict& conv = a100.nodes[0];
  ASSERT_GE(conv.reasons.size(), 2u);
  EXPECT_EQ(conv.reasons[0].rule, "target");
  EXPECT_NE(conv.reasons[0].message.find("a100 (NVIDIA A100, sm_80) has no FP8 kernels in TensorRT 10.8"),
            std::string::npos)
      << conv.reasons[0].message;
  EXPECT_EQ(conv.reasons[1].rule, "precision");  // the release's own: FP8 only through Q/DQ
  ASSERT_FALSE(conv.hints.empty());
  EXPECT_NE(conv.hints[0].find("--precision fp16, bf16 or int8"), std::string::npos) << conv.hints[0];
  for (const auto& h : conv.hints) EXPECT_EQ(h.find("quantize"), std::string::npos) << h;
  bool noted = false;
  for (const auto& n : a100.notes) noted |= n.find("has no FP8 kernels in TensorRT 10.8") != std::string::npos;
  EXPECT_TRUE(noted);
  // The H100 has FP8 kernels: the release's reason stays first and its hint (quantize with Q/DQ) stays.
  EXPECT_EQ(h100.nodes[0].reasons.front().rule, "precision");
  EXPECT_EQ(h100.nodes[0].verdict, a100.nodes[0].verdict);
}

TEST(TargetPrecision, MatrixKeepsOnlyTheReleasesATargetRuns) {
  Model m = conv_model("target_matrix");
  Matrix mx = compute_target_matrix(m, kb(), catalog().resolve("orin"));
  std::vector<std::string> releases;
  for (const auto& c : mx.cells)
    if (releases.empty() || releases.back() != c.release->name) releases.push_back(c.release->name);
  EXPECT_EQ(releases, (std::vector<std::string>{"8.4", "8.5", "8.6", "10.3", "10.16", "11.4", "11.5"}));
  EXPECT_EQ(mx.cells.size(), 7 * kAllPrecisions.size());
  // The DLA core keeps the releases with DLA facts: 10.16 and 11.5 run on Orin's GPU, undescribed on its DLA.
  Matrix dla = compute_target_matrix(m, kb(), catalog().resolve("orin-dla"));
  EXPECT_EQ(dla.cells.back().release->name, "11.4");
  for (const auto& c : dla.cells) EXPECT_NE(c.release->name, "10.16");
}

TEST(TargetPrecision, AnalyzeModelNarrowsOnlyThePinsThatNameATarget) {
  Model m = conv_model("target_pins");
  const Release& r = kb().resolve("8.5");
  AnalysisRequest req;
  req.pins = {{&r, Precision::FP16, &catalog().resolve("orin-dla")}, {&r, Precision::FP16, nullptr}};
  req.sweep = [](size_t, Precision, const Annotations& a) { EXPECT_EQ(a.target, nullptr); };
  ModelAnalysis out = analyze_model(m, kb(), req);
  ASSERT_EQ(out.pinned.size(), 2u);
  ASSERT_NE(out.pinned[0].dla, nullptr);
  EXPECT_EQ(out.pinned[0].dla->dla_nodes, 2);
  EXPECT_EQ(out.pinned[1].target, nullptr);
  EXPECT_EQ(out.pinned[1].dla, nullptr);
}

// ---- DLA placement, one restriction kind per test ---------------------------------------------

struct Built {
  Model model;
  Annotations a;
  const DlaNode& node(const std::string& name) const {
    for (const auto& n : a.dla->nodes)
      if (model.graphs[0].nodes[static_cast<size_t>(n.index)].name == name) return n;
    throw std::runtime_error("no node " + name);
  }
};

Built on_dla(const std::string& name, const std::function<void(GraphBuilder&)>& build, const char* release = "8.5",
             const char* target = "orin-dla", Precision p = Precision::FP16, int64_t opset = 13) {
  ModelBuilder mb(opset);
  auto g = mb.graph();
  build(g);
  Built b{load_model(mb.save(temp_dir(name) + "/m.onnx")), {}};
  b.a = annotate_runtime(b.model, kb(), {&kb().resolve(release), p, &catalog().resolve(target)});
  if (!b.a.dla) throw std::runtime_error("no DLA placement");
  return b;
}

void conv(GraphBuilder& g, const std::string& in, const std::string& out, int64_t k, int64_t c = 4, int64_t cin = 4) {
  g.init_float(out + "_w", {c, cin, k, k}, std::vector<float>(static_cast<size_t>(c * cin * k * k), 0.1f));
  attr_ints(g.node("Conv", {in, out + "_w"}, {out}, out), "pads", {k / 2, k / 2, k / 2, k / 2});
}

TEST(DlaPlacement, ConvKernel33FallsBackAndKernel3RunsOnTheDla) {
  Built b = on_dla("dla_kernel", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 40, 40});
    conv(g, "x", "small", 3);
    conv(g, "small", "big", 33);
    g.output("big");
  });
  EXPECT_EQ(b.node("small").verdict, DlaVerdict::DLA);
  EXPECT_EQ(b.node("big").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("big").reason.find("kernel size 33 > 32"), std::string::npos) << b.node("big").reason;
  EXPECT_NE(b.node("big").source.find("tensorrt-853"), std::string::npos) << b.node("big").source;
  EXPECT_EQ(b.node("small").macs, 1 * 4 * 40 * 40 * 4 * 3 * 3);
  EXPECT_EQ(b.a.dla->transitions, 1);
  EXPECT_EQ(b.a.dla->loadables, 1);
  EXPECT_EQ(b.a.dla->dla_nodes, 1);
  EXPECT_EQ(b.a.dla->gpu_nodes, 1);
}

// TensorRT 11.4 (11.4.1 on JetPack 7.2.2+) judges by dla/11.4.tsv. Its DLA builds are strongly typed: an FP16 model's
// Conv runs on the DLA, the same Conv of an FP32 model stays at FP32 on the GPU whatever --precision says.
void conv_half(GraphBuilder& g, const std::string& in, const std::string& out, int64_t k) {
  g.init_half(out + "_w", {4, 4, k, k});
  attr_ints(g.node("Conv", {in, out + "_w"}, {out}, out), "pads", {k / 2, k / 2, k / 2, k / 2});
}

TEST(DlaPlacement, At114AnFp16ConvRunsOnTheDlaAndKernel33FallsBackByThe114Rules) {
  Built b = on_dla(
      "dla_114",
      [](GraphBuilder& g) {
        g.input("x", kFloat16, {1, 4, 40, 40});
        conv_half(g, "x", "small", 3);
        conv_half(g, "small", "big", 33);
        g.output("big");
      },
      "11.4");
  EXPECT_EQ(b.a.dla->release, "11.4");
  EXPECT_EQ(b.node("small").verdict, DlaVerdict::DLA) << b.node("small").reason;
  EXPECT_EQ(b.node("big").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("big").reason.find("kernel size 33 > 32"), std::string::npos) << b.node("big").reason;
  EXPECT_NE(b.node("big").source.find("dla-layer-restrictions.html (Table 12: Convolution, kernel [1,32]"),
            std::string::npos)
      << b.node("big").source;
  Built fp32 = on_dla(
      "dla_114_fp32",
      [](GraphBuilder& g) {
        g.input("x", kFloat, {1, 4, 40, 40});
        conv(g, "x", "small", 3);
        g.output("small");
      },
      "11.4");
  EXPECT_EQ(fp32.node("small").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(fp32.node("small").reason.find("DLA runs FP16|INT8 only: this node runs at FP32 (--precision fp16)"),
            std::string::npos)
      << fp32.node("small").reason;
  EXPECT_NE(fp32.node("small").source.find("dla-strongly-typed-networks.html"), std::string::npos);
}

// Table 12 of the restrictions page lists ElementWise Div and Pow, which the 10.x DLA notes do not: 11.4 places a Div
// on the DLA, 10.3 does not.
TEST(DlaPlacement, DivRunsOnTheDlaFrom114) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat16, {1, 4, 8, 8});
    g.input("z", kFloat16, {1, 4, 8, 8});
    g.node("Div", {"x", "z"}, {"y"}, "div");
    g.output("y");
  };
  Built b103 = on_dla("dla_div103", build, "10.3");
  Built b114 = on_dla("dla_div114", build, "11.4");
  EXPECT_EQ(b103.node("div").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b103.node("div").reason.find("div"), std::string::npos) << b103.node("div").reason;
  EXPECT_EQ(b114.node("div").verdict, DlaVerdict::DLA) << b114.node("div").reason;
}

TEST(DlaPlacement, ADynamicBatchFallsBackNamingTheDimension) {
  Built b = on_dla("dla_dynamic", [](GraphBuilder& g) {
    g.input("x", kFloat, {-1, 4, 8, 8});
    g.node("Relu", {"x"}, {"y"}, "relu");
    g.output("y");
  });
  EXPECT_EQ(b.node("relu").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("relu").reason.find("dynamic dimension N of input 0 (x)"), std::string::npos)
      << b.node("relu").reason;
}

TEST(DlaPlacement, ConcatOffTheChannelAxisFallsBack) {
  Built b = on_dla("dla_concat", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.input("z", kFloat, {1, 4, 8, 8});
    attr_int(g.node("Concat", {"x", "z"}, {"c1"}, "on_channels"), "axis", 1);
    attr_int(g.node("Concat", {"x", "z"}, {"c2"}, "on_height"), "axis", 2);
    g.output("c1");
    g.output("c2");
  });
  EXPECT_EQ(b.node("on_channels").verdict, DlaVerdict::DLA);
  EXPECT_EQ(b.node("on_height").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("on_height").reason.find("concatenation along axis 2"), std::string::npos);
}

TEST(DlaPlacement, PoolingWindow9AndStride17FallBack) {
  Built b = on_dla("dla_pool", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 40, 40});
    attr_ints(g.node("MaxPool", {"x"}, {"a"}, "ok"), "kernel_shape", {3, 3});
    attr_ints(g.node("MaxPool", {"x"}, {"b"}, "wide"), "kernel_shape", {9, 9});
    auto& s = g.node("AveragePool", {"x"}, {"c"}, "far");
    attr_ints(s, "kernel_shape", {2, 2});
    attr_ints(s, "strides", {17, 17});
    g.output("a");
    g.output("b");
    g.output("c");
  });
  EXPECT_EQ(b.node("ok").verdict, DlaVerdict::DLA);
  EXPECT_NE(b.node("wide").reason.find("window size 9 > 8"), std::string::npos) << b.node("wide").reason;
  EXPECT_NE(b.node("far").reason.find("stride 17 > 16"), std::string::npos) << b.node("far").reason;
}

TEST(DlaPlacement, ClipBoundsDecideClippedRelu) {
  Built b = on_dla(
      "dla_clip",
      [](GraphBuilder& g) {
        g.input("x", kFloat, {1, 4, 8, 8});
        g.init_float("zero", {}, {0.f}).init_float("six", {}, {6.f}).init_float("big", {}, {200.f});
        g.node("Clip", {"x", "zero", "six"}, {"a"}, "relu6");
        g.node("Clip", {"x", "zero", "big"}, {"b"}, "relu200");
        g.input("lo", kFloat, {});
        g.node("Clip", {"x", "lo", "six"}, {"c"}, "runtime_min");
        g.output("a");
        g.output("b");
        g.output("c");
      },
      "8.5", "orin-dla", Precision::FP16, 13);
  EXPECT_EQ(b.node("relu6").verdict, DlaVerdict::DLA);
  EXPECT_NE(b.node("relu200").reason.find("Clip upper bound 200 outside 1..127"), std::string::npos)
      << b.node("relu200").reason;
  // A run-time bound: the importer builds elementwise max/min, judged as such.
  EXPECT_EQ(b.node("runtime_min").layers, "elementwise");
}

TEST(DlaPlacement, BroadcastIsAllowedFrom86Only) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.init_float("bias", {1, 4, 1, 1}, {1, 2, 3, 4});
    g.node("Add", {"x", "bias"}, {"y"}, "add");
    g.output("y");
  };
  Built b85 = on_dla("dla_bcast85", build, "8.5");
  Built b86 = on_dla("dla_bcast86", build, "8.6");
  EXPECT_EQ(b85.node("add").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b85.node("add").reason.find("(channel); DLA takes equal"), std::string::npos) << b85.node("add").reason;
  EXPECT_EQ(b86.node("add").verdict, DlaVerdict::DLA) << b86.node("add").reason;
}

TEST(DlaPlacement, LayersTheDlaLacksFallBackPerReleaseAndDevice) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.node("GlobalAveragePool", {"x"}, {"p"}, "gap");
    attr_int(g.node("Softmax", {"x"}, {"s"}, "softmax"), "axis", 1);
    g.output("p");
    g.output("s");
  };
  Built orin85 = on_dla("dla_layers_orin85", build, "8.5", "orin-dla");
  Built xavier85 = on_dla("dla_layers_xavier85", build, "8.5", "xavier-dla");
  Built orin86 = on_dla("dla_layers_orin86", build, "8.6", "orin-dla");
  // GlobalAveragePool imports as a reduce layer (importer 8.5-GA builtin_op_importers.cpp:1663).
  EXPECT_NE(orin85.node("gap").reason.find("the reduce layer"), std::string::npos) << orin85.node("gap").reason;
  EXPECT_NE(orin85.node("gap").source.find("builtin_op_importers.cpp:1663"), std::string::npos);
  EXPECT_NE(orin86.node("gap").reason.find("reduce mode average"), std::string::npos) << orin86.node("gap").reason;
  // Softmax imports as softmax + a reshaping shuffle (8.5-GA builtin_op_importers.cpp:4611): the softmax layer
  // runs on Orin's DLA only; on Orin 8.5 the shuffle is what keeps it on the GPU.
  EXPECT_NE(orin85.node("softmax").reason.find("the shuffle layer"), std::string::npos)
      << orin85.node("softmax").reason;
  EXPECT_NE(xavier85.node("softmax").reason.find("the softmax layer"), std::string::npos)
      << xavier85.node("softmax").reason;
}

TEST(DlaPlacement, Fp32RunsOnTheGpuAndUnsupportedStaysUnsupported) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.node("Relu", {"x"}, {"r"}, "relu");
    g.node("NoSuchOp", {"r"}, {"y"}, "alien", "com.example");
    g.output("y", kFloat, {1, 4, 8, 8});
  };
  Built fp32 = on_dla("dla_fp32", build, "8.5", "orin-dla", Precision::FP32);
  EXPECT_EQ(fp32.node("relu").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(fp32.node("relu").reason.find("DLA runs FP16|INT8 only: this node runs at FP32"), std::string::npos)
      << fp32.node("relu").reason;
  EXPECT_EQ(fp32.node("alien").verdict, DlaVerdict::UNSUPPORTED);
  EXPECT_EQ(fp32.a.dla->unsupported_nodes, 1);
  // Nothing on the DLA at fp32: a note says why and what to pass; not at fp16.
  const std::string note = "DLA runs FP16 and INT8 only: at fp32 every node runs on the GPU; pass --precision fp16 or int8";
  EXPECT_NE(std::find(fp32.a.notes.begin(), fp32.a.notes.end(), note), fp32.a.notes.end());
  Built fp16 = on_dla("dla_fp16_note", build, "8.5", "orin-dla", Precision::FP16);
  for (const auto& n : fp16.a.notes) EXPECT_EQ(n.find("DLA runs FP16 and INT8 only"), std::string::npos) << n;
}

// The DLA's own precisions decide, not the GPU kernel table's: 8.5 has no INT8 Add kernel on the GPU (it runs at
// FP32 there), but the DLA's elementwise layer runs at INT8 (guide: ElementWise FP16 and INT8), so at --precision
// int8 the residual Add is on the DLA, as at best. Comparisons keep their INT8-only row.
TEST(DlaPlacement, Int8PlacesAnAddTheGpuRunsAtFp32OnTheDla) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    conv(g, "x", "c", 3);
    g.node("Add", {"x", "c"}, {"sum"}, "add");
    g.output("sum");
  };
  Built int8 = on_dla("dla_int8_add", build, "8.5", "orin-dla", Precision::INT8);
  const NodeVerdict& gpu_add = int8.a.nodes[1];
  ASSERT_EQ(int8.model.graphs[0].nodes[1].name, "add");
  EXPECT_EQ(gpu_add.precision, "FP32") << "no INT8 Add kernel on the GPU in 8.5";
  EXPECT_EQ(int8.node("add").verdict, DlaVerdict::DLA) << int8.node("add").reason;
  EXPECT_EQ(int8.node("c").verdict, DlaVerdict::DLA) << int8.node("c").reason;
  EXPECT_EQ(int8.a.dla->loadables, 1);
  Built best = on_dla("dla_best_add", build, "8.5", "orin-dla", Precision::BEST);
  EXPECT_EQ(best.node("add").verdict, DlaVerdict::DLA) << best.node("add").reason;
  // 10.3: implicit INT8 is deprecated, so an FP32 model at int8 runs at FP32 on the GPU and off the DLA too.
  Built int8_103 = on_dla("dla_int8_add103", build, "10.3", "orin-dla", Precision::INT8);
  EXPECT_EQ(int8_103.node("add").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(int8_103.node("add").reason.find("this node runs at FP32"), std::string::npos) << int8_103.node("add").reason;
}

// MACs are counted where the shapes are known: a Conv with a dynamic batch has unknown MACs (-1), in no total.
TEST(DlaPlacement, MacsOfADynamicConvAreUnknownNotZero) {
  Built b = on_dla("dla_macs_unknown", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.input("d", kFloat, {-1, 4, 8, 8});
    conv(g, "x", "known", 3);
    conv(g, "d", "dynamic", 3);
    g.output("known");
    g.output("dynamic");
  });
  EXPECT_EQ(b.node("known").macs, 1 * 4 * 8 * 8 * 4 * 3 * 3);
  EXPECT_EQ(b.node("dynamic").macs, -1);
  EXPECT_EQ(b.node("dynamic").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_EQ(b.a.dla->macs_unknown_nodes, 1);
  EXPECT_EQ(b.a.dla->total_macs, b.node("known").macs);
  EXPECT_EQ(b.a.dla->dla_macs, b.node("known").macs);
}

// Wording: a rank below 2 has no spatial dimensions to count; a one-element operand is a scalar.
TEST(DlaPlacement, ReasonsSayRanksAndScalarsPlainly) {
  Built b = on_dla("dla_wording", [](GraphBuilder& g) {
    g.input("v", kFloat, {8});
    g.node("Relu", {"v"}, {"rv"}, "relu_rank1");
    g.input("x", kFloat, {2, 4, 8, 8});
    g.init_float("s", {}, {2.0f});
    g.node("Add", {"x", "s"}, {"y"}, "add_scalar");
    g.output("rv");
    g.output("y");
  }, "8.6");
  EXPECT_EQ(b.node("relu_rank1").reason, "input rank 1; DLA needs rank 4 (2 spatial dimensions)");
  EXPECT_NE(b.node("add_scalar").reason.find("broadcast of [2x4x8x8] and [] (scalar across the batch)"),
            std::string::npos)
      << b.node("add_scalar").reason;
}

// Slice on the DLA (release/8.5:include/NvInfer.h:4196-4197): strides 1, and the first (batch) axis taken whole.
TEST(DlaPlacement, SliceStepsAndTheBatchAxisDecide) {
  constexpr int64_t kToTheEnd = INT64_MAX;  // what exporters write for "to the end"
  Built b = on_dla("dla_slice", [](GraphBuilder& g) {
    g.input("x", kFloat, {2, 4, 8, 8});
    auto slice = [&g](const std::string& name, std::vector<int64_t> starts, std::vector<int64_t> ends,
                      std::vector<int64_t> axes, std::vector<int64_t> steps, std::vector<int64_t> out) {
      int64_t k = static_cast<int64_t>(starts.size());
      g.init_int64(name + "_s", {k}, starts).init_int64(name + "_e", {k}, ends);
      g.init_int64(name + "_a", {k}, axes).init_int64(name + "_t", {k}, steps);
      g.node("Slice", {"x", name + "_s", name + "_e", name + "_a", name + "_t"}, {name + "_y"}, name);
      g.output(name + "_y", kFloat, out);
    };
    slice("channels", {0}, {2}, {1}, {1}, {2, 2, 8, 8});
    slice("strided", {0}, {8}, {2}, {2}, {2, 4, 4, 8});
    slice("batch", {0}, {1}, {0}, {1}, {1, 4, 8, 8});
    slice("whole_batch", {0, 1}, {kToTheEnd, 3}, {0, 1}, {1, 1}, {2, 2, 8, 8});
  });
  EXPECT_EQ(b.node("channels").verdict, DlaVerdict::DLA) << b.node("channels").reason;
  EXPECT_EQ(b.node("strided").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("strided").reason.find("slice step 2; DLA slices with step 1 only"), std::string::npos)
      << b.node("strided").reason;
  EXPECT_NE(b.node("strided").source.find("release/8.5:include/NvInfer.h:4196"), std::string::npos)
      << b.node("strided").source;
  EXPECT_EQ(b.node("batch").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("batch").reason.find("slices axis 0 (0..1)"), std::string::npos) << b.node("batch").reason;
  EXPECT_EQ(b.node("whole_batch").verdict, DlaVerdict::DLA) << b.node("whole_batch").reason;
}

// Resize on the DLA (release/8.5:include/NvInfer.h:4944): scales 1 on N and C, integers in [1, 32] (nearest) or
// [1, 4] (linear) on H and W; sizes count through the scales they make.
TEST(DlaPlacement, ResizeScalesDecide) {
  Built b = on_dla("dla_resize", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    auto resize = [&g](const std::string& name, const std::string& mode, std::vector<float> scales,
                       std::vector<int64_t> out) {
      g.init_float(name + "_scales", {4}, scales);
      attr_string(g.node("Resize", {"x", "", name + "_scales"}, {name + "_y"}, name), "mode", mode);
      g.output(name + "_y", kFloat, out);
    };
    resize("twice", "nearest", {1, 1, 2, 2}, {1, 4, 16, 16});
    resize("half_again", "nearest", {1, 1, 1.5f, 1.5f}, {1, 4, 12, 12});
    resize("channels", "nearest", {1, 2, 2, 2}, {1, 8, 16, 16});
    resize("linear8", "linear", {1, 1, 8, 8}, {1, 4, 64, 64});
    g.init_int64("sizes", {4}, {1, 4, 24, 24});
    g.node("Resize", {"x", "", "", "sizes"}, {"by_sizes_y"}, "by_sizes");
    g.output("by_sizes_y", kFloat, {1, 4, 24, 24});
  });
  EXPECT_EQ(b.node("twice").verdict, DlaVerdict::DLA) << b.node("twice").reason;
  EXPECT_NE(b.node("half_again").reason.find("Resize scale 1.5 on axis 2 is not an integer in 1..32 (DLA's nearest"),
            std::string::npos)
      << b.node("half_again").reason;
  EXPECT_NE(b.node("channels").reason.find("Resize scale 2 on axis 1; DLA resizes H and W only"), std::string::npos)
      << b.node("channels").reason;
  EXPECT_NE(b.node("linear8").reason.find("Resize scale 8 on axis 2 is not an integer in 1..4 (DLA's linear"),
            std::string::npos)
      << b.node("linear8").reason;
  EXPECT_EQ(b.node("by_sizes").verdict, DlaVerdict::DLA) << b.node("by_sizes").reason;  // 24 / 8 = 3
}

// TensorRT 8.2 (JetPack 4.6.1, Xavier) deconvolves on the DLA only with stride = kernel
// (release/8.2:include/NvInfer.h:2675); 8.4 dropped the rule.
TEST(DlaPlacement, DeconvolutionStrideEqualsKernelOn82Only) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.init_float("w", {4, 4, 2, 2}, std::vector<float>(64, 0.1f));
    attr_ints(g.node("ConvTranspose", {"x", "w"}, {"up"}, "up"), "strides", {2, 2});
    g.node("ConvTranspose", {"x", "w"}, {"same"}, "same");
    g.output("up", kFloat, {1, 4, 16, 16});
    g.output("same", kFloat, {1, 4, 9, 9});
  };
  Built b82 = on_dla("dla_deconv82", build, "8.2", "xavier-dla");
  Built b84 = on_dla("dla_deconv84", build, "8.4", "xavier-dla");
  EXPECT_EQ(b82.node("up").verdict, DlaVerdict::DLA) << b82.node("up").reason;
  EXPECT_EQ(b82.node("same").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b82.node("same").reason.find("stride 1 != kernel size 2"), std::string::npos) << b82.node("same").reason;
  EXPECT_EQ(b84.node("same").verdict, DlaVerdict::DLA) << b84.node("same").reason;
}

// The layers 8.2's header gives no DLA note for (Slice, Unary, SoftMax) stay on the GPU there; 8.4 runs Slice.
TEST(DlaPlacement, XavierOn82RunsNoSlice) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.init_int64("s", {1}, {0}).init_int64("e", {1}, {2}).init_int64("a", {1}, {1});
    g.node("Slice", {"x", "s", "e", "a"}, {"y"}, "slice");
    g.output("y", kFloat, {1, 2, 8, 8});
  };
  Built b82 = on_dla("dla_slice82", build, "8.2", "xavier-dla");
  Built b84 = on_dla("dla_slice84", build, "8.4", "xavier-dla");
  EXPECT_NE(
      b82.node("slice").reason.find("the slice layer (Slice imports as slice) does not run on the DLA in TensorRT 8.2"),
      std::string::npos)
      << b82.node("slice").reason;
  EXPECT_EQ(b84.node("slice").verdict, DlaVerdict::DLA) << b84.node("slice").reason;
}

// Comparisons (Equal, Greater, Less) run on the DLA at INT8 only (the latest release's Table 12, "Comparison"); 8.5
// has no Equal on the DLA at all.
TEST(DlaPlacement, EqualRunsOnTheDlaAtInt8Only) {
  auto build = [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.input("z", kFloat, {1, 4, 8, 8});
    g.node("Equal", {"x", "z"}, {"eq"}, "equal");
    g.node("Add", {"x", "z"}, {"sum"}, "add");
    g.output("eq", onnx::TensorProto::BOOL, {1, 4, 8, 8});
    g.output("sum");
  };
  Built b103 = on_dla("dla_equal103", build, "10.3");
  Built b85 = on_dla("dla_equal85", build, "8.5");
  EXPECT_EQ(b103.node("add").verdict, DlaVerdict::DLA) << b103.node("add").reason;
  EXPECT_EQ(b103.node("equal").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b103.node("equal").reason.find("elementwise equal runs on the DLA at INT8 only: this node runs at FP16"),
            std::string::npos)
      << b103.node("equal").reason;
  EXPECT_NE(b85.node("equal").reason.find("elementwise mode equal is not one the DLA runs"), std::string::npos)
      << b85.node("equal").reason;
}

// Every node cites its outcome, which says what the node says; nodes saying the same share one.
void expect_outcomes_match_nodes(const DlaPlacement& d) {
  for (const DlaNode& n : d.nodes) {
    ASSERT_GE(n.outcome, 0);
    ASSERT_LT(static_cast<size_t>(n.outcome), d.outcomes.size());
    const DlaOutcome& o = d.outcomes[static_cast<size_t>(n.outcome)];
    EXPECT_EQ(o.verdict, n.verdict) << n.index;
    EXPECT_EQ(o.layers, n.layers) << n.index;
    EXPECT_EQ(o.reason, n.reason) << n.index;
    EXPECT_EQ(o.source, n.source) << n.index;
  }
  for (size_t i = 0; i < d.outcomes.size(); ++i)
    for (size_t j = i + 1; j < d.outcomes.size(); ++j) {
      const DlaOutcome &a = d.outcomes[i], &b = d.outcomes[j];
      EXPECT_FALSE(a.verdict == b.verdict && a.layers == b.layers && a.reason == b.reason && a.source == b.source)
          << "outcomes " << i << " and " << j << " are the same";
    }
}

TEST(DlaPlacement, NodesSayingTheSameShareOneOutcome) {
  // 2-D Relus (off the DLA: no spatial dimensions), 4-D Relus (on it), a Constant (neither), a 33x33 Conv.
  Built b = on_dla("dla_outcomes", [](GraphBuilder& g) {
    g.input("flat", kFloat, {2, 8});
    g.input("x", kFloat, {1, 4, 40, 40});
    std::string f = "flat", x = "x";
    for (int i = 0; i < 5; ++i) {
      g.node("Relu", {f}, {"f" + std::to_string(i)}, "flat_relu" + std::to_string(i));
      g.node("Relu", {x}, {"x" + std::to_string(i)}, "relu" + std::to_string(i));
      f = "f" + std::to_string(i), x = "x" + std::to_string(i);
    }
    conv(g, x, "big", 33);
    g.output(f);
    g.output("big");
  });
  const DlaPlacement& d = *b.a.dla;
  expect_outcomes_match_nodes(d);
  EXPECT_EQ(d.outcomes.size(), 3u);  // the 2-D Relus, the 4-D Relus, the Conv
  EXPECT_EQ(b.node("flat_relu0").outcome, b.node("flat_relu4").outcome);
  EXPECT_EQ(b.node("relu0").outcome, b.node("relu4").outcome);
  EXPECT_NE(b.node("relu0").outcome, b.node("flat_relu0").outcome);
  EXPECT_EQ(b.node("relu3").verdict, DlaVerdict::DLA);
  EXPECT_NE(b.node("flat_relu2").reason.find("input rank 2 (0 spatial dimensions); DLA needs rank 4"), std::string::npos)
      << b.node("flat_relu2").reason;
  EXPECT_NE(b.node("big").reason.find("kernel size 33 > 32"), std::string::npos) << b.node("big").reason;
}

// The placement reuses an outcome for nodes of one op, precision and input rank only while the rules that
// decided it read nothing else: two 4-D Adds differ by their broadcast, which a later rule reads.
TEST(DlaPlacement, NodesOfOneRankStillDifferByTheirOtherRestrictions) {
  Built b = on_dla("dla_outcome_bcast", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.init_float("bias", {1, 4, 1, 1}, {1, 2, 3, 4});
    g.node("Add", {"x", "x"}, {"same"}, "same");
    g.node("Add", {"same", "bias"}, {"bcast"}, "bcast");
    g.node("Add", {"bcast", "bcast"}, {"again"}, "again");
    g.output("again");
  }, "8.5");
  expect_outcomes_match_nodes(*b.a.dla);
  EXPECT_EQ(b.node("same").verdict, DlaVerdict::DLA);
  EXPECT_EQ(b.node("bcast").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("bcast").reason.find("(channel); DLA takes equal"), std::string::npos) << b.node("bcast").reason;
  EXPECT_EQ(b.node("again").verdict, DlaVerdict::DLA);
  EXPECT_EQ(b.a.dla->transitions, 3);  // same -> bcast, and bcast read twice by again
}

// Batch and dimension limits hold for most models and are then not walked per node; one tensor past them is
// still found, and only its reader falls back.
TEST(DlaPlacement, ATensorPastTheDimensionLimitKeepsItsReaderOff) {
  Built b = on_dla("dla_max_dim", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.input("wide", kFloat, {1, 4, 8, 9000});
    g.node("Relu", {"x"}, {"y"}, "small");
    g.node("Relu", {"wide"}, {"z"}, "large");
    g.output("y");
    g.output("z");
  });
  expect_outcomes_match_nodes(*b.a.dla);
  EXPECT_EQ(b.node("small").verdict, DlaVerdict::DLA);
  EXPECT_EQ(b.node("large").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_NE(b.node("large").reason.find("dimension 9000 > 8192"), std::string::npos) << b.node("large").reason;
}

TEST(DlaPlacement, NoNodeOnTheDlaHasNoTransitionsOrLoadables) {
  Built b = on_dla("dla_none_on", [](GraphBuilder& g) {
    g.input("x", kFloat, {2, 8});
    g.node("Relu", {"x"}, {"y"}, "a");
    g.node("Relu", {"y"}, {"z"}, "b");
    g.output("z");
  });
  EXPECT_EQ(b.a.dla->dla_nodes, 0);
  EXPECT_EQ(b.a.dla->gpu_nodes, 2);
  EXPECT_EQ(b.a.dla->transitions, 0);
  EXPECT_EQ(b.a.dla->loadables, 0);
}

TEST(DlaPlacement, MoreThan16LoadablesIsANote) {
  Built b = on_dla("dla_loadables", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 40, 40});
    std::string in = "x";
    for (int i = 0; i < 17; ++i) {
      std::string on = "on" + std::to_string(i), off = "off" + std::to_string(i);
      conv(g, in, on, 3);
      conv(g, on, off, 33);  // kernel 33: on the GPU, cutting the DLA chain
      in = off;
    }
    g.output(in);
  });
  EXPECT_EQ(b.a.dla->loadables, 17);
  EXPECT_EQ(b.a.dla->transitions, 33);
  bool noted = false;
  for (const auto& n : b.a.notes) noted |= n.find("17 DLA loadables > 16 per DLA core") != std::string::npos;
  EXPECT_TRUE(noted);
}

// "Shuffle: 4-D input and output" (the guide's row, data/targets/dla/8.6.tsv): a Flatten reads a 4-D tensor and
// writes a 2-D one, so it stays on the GPU; the rank rule reads the output too.
TEST(DlaPlacement, TheRankRuleReadsTheOutputToo) {
  Built b = on_dla("dla_out_rank", [](GraphBuilder& g) {
    g.input("x", kFloat, {1, 4, 8, 8});
    g.node("Relu", {"x"}, {"a"}, "relu");
    attr_int(g.node("Flatten", {"a"}, {"f"}, "flatten"), "axis", 1);
    g.init_int64("keep", {4}, {1, 4, 8, 8});
    g.node("Reshape", {"a", "keep"}, {"same"}, "reshape_4d");
    g.output("f", kFloat, {1, 256});
    g.output("same", kFloat, {1, 4, 8, 8});
  }, "8.6");
  EXPECT_EQ(b.node("flatten").verdict, DlaVerdict::GPU_FALLBACK);
  EXPECT_EQ(b.node("flatten").reason, "output rank 2; DLA needs rank 4 in and out");
  EXPECT_EQ(b.node("reshape_4d").verdict, DlaVerdict::DLA) << b.node("reshape_4d").reason;
}

}  // namespace
}  // namespace trtlens
