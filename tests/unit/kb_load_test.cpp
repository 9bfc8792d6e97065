// Loading the knowledge base: the embedded tables, the file format, release lookup.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "trtlens/error.h"
#include "trtlens/kb.h"
#include "util/embedded.h"

namespace trtlens {
namespace {

std::set<std::string> type_set(const OpEntry& e) { return {e.types.begin(), e.types.end()}; }

TEST(KbLoad, BuiltinHasEveryReleaseOldestFirst) {
  const auto& rs = KnowledgeBase::builtin().releases();
  ASSERT_EQ(rs.size(), 37u);
  EXPECT_EQ(rs.front().name, "5.1");
  EXPECT_EQ(rs.back().name, "11.5");
  for (size_t i = 1; i < rs.size(); ++i)
    EXPECT_LT(std::pair(rs[i - 1].major, rs[i - 1].minor), std::pair(rs[i].major, rs[i].minor)) << rs[i].name;
  // Numeric, not lexical, order: 10.9 before 10.10.
  auto pos = [&](std::string_view n) {
    return std::find_if(rs.begin(), rs.end(), [&](const Release& r) { return r.name == n; }) - rs.begin();
  };
  EXPECT_LT(pos("10.9"), pos("10.10"));
  EXPECT_LT(pos("9.3"), pos("10.0"));
}

// Parsed once per process (its speed is a benchmark's business, not a test's: a timed
// assertion failed under the sanitizers and on loaded machines).
TEST(KbLoad, BuiltinIsParsedOnce) {
  const KnowledgeBase& a = KnowledgeBase::builtin();
  const KnowledgeBase& b = KnowledgeBase::builtin();
  EXPECT_EQ(&a, &b);
  EXPECT_FALSE(a.releases().empty());
}

TEST(KbLoad, SupportMatrixFacts) {
  const auto& kb = KnowledgeBase::builtin();
  const Release& r86 = kb.resolve("8.6");
  const OpEntry* reshape = r86.find("Reshape");
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->status, OpStatus::Y);
  EXPECT_EQ(reshape->types, (std::vector<std::string>{"FP32", "FP16", "INT32", "INT8", "BOOL"}));
  const OpEntry* bn = r86.find("BatchNormalization");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(type_set(*bn), (std::set<std::string>{"FP32", "FP16"}));
  EXPECT_TRUE(bn->has_type("FP16"));
  EXPECT_FALSE(bn->has_type("INT8"));
  EXPECT_EQ(r86.find("NoSuchOp"), nullptr);
  EXPECT_EQ(r86.basis, "table");
  EXPECT_EQ(r86.opset_max, 17);
  EXPECT_EQ(r86.opset_min, 0);
  EXPECT_FALSE(r86.opset_max_is_bound);
  EXPECT_NE(r86.source.find("8.6-GA"), std::string::npos);

  // 11.1 reads its own onnx-tensorrt operators.md (data/support); 11.5 is derived from it and its release notes.
  const Release& r111 = kb.resolve("11.1");
  EXPECT_EQ(r111.basis, "table");
  EXPECT_FALSE(r111.opset_max_is_bound);
  EXPECT_EQ(r111.opset_max, 24);
  EXPECT_EQ(r111.opset_min, 9);
  ASSERT_NE(r111.find("Swish"), nullptr);
  EXPECT_EQ(r111.find("Swish")->status, OpStatus::Y);
  EXPECT_FALSE(r111.find("Swish")->types.empty());  // the 11.1 table names its types
  const Release& r115 = kb.resolve("11.5");
  EXPECT_EQ(r115.basis, "derived");
  EXPECT_EQ(r115.date, "2026-11-18");
  EXPECT_TRUE(r115.opset_max_is_bound);
  EXPECT_EQ(r115.opset_max, 25);
  EXPECT_EQ(r115.carried_from, "11.1");

  // Status kinds and plugin names survive the conversion.
  const OpEntry* inorm = r86.find("InstanceNormalization");
  ASSERT_NE(inorm, nullptr);
  EXPECT_EQ(inorm->status, OpStatus::PLUGIN);
  EXPECT_NE(inorm->plugin.find("InstanceNormalization_TRT"), std::string::npos);
  EXPECT_EQ(kb.resolve("8.0").find("NonMaxSuppression")->status, OpStatus::EXPERIMENTAL);
  EXPECT_EQ(kb.resolve("5.1").find("PRelu")->importer, "no");
}

TEST(KbLoad, RulesAreParsedWithGuards) {
  const OpEntry* resize = KnowledgeBase::builtin().resolve("8.6").find("Resize");
  ASSERT_NE(resize, nullptr);
  ASSERT_FALSE(resize->rules.empty());
  EXPECT_EQ(resize->rules_src, "table+source+importer");
  // The importer's canUseNDResize check, found in 8.6-GA's code (data/importer_checks.tsv), cites its line.
  auto nd = std::find_if(resize->rules.begin(), resize->rules.end(), [](const Rule& r) { return r.name == "resize_nd"; });
  ASSERT_NE(nd, resize->rules.end());
  EXPECT_TRUE(nd->where.starts_with("builtin_op_importers.cpp:")) << nd->where;
  auto guarded = std::find_if(resize->rules.begin(), resize->rules.end(), [](const Rule& r) { return !r.guards.empty(); });
  ASSERT_NE(guarded, resize->rules.end());
  EXPECT_EQ(guarded->name, "attr_in");
  EXPECT_NE(guarded->text.find('@'), std::string::npos);
}

TEST(KbLoad, EveryEmbeddedRuleHasACheckFunction) {
  const auto& vocab = rule_vocabulary();
  std::set<std::string> used;
  size_t rules = 0;
  for (const Release& r : KnowledgeBase::builtin().releases()) {
    for (const auto& [name, e] : r.ops) {
      for (const Rule& rule : e.rules) {
        ++rules;
        used.insert(rule.name);
        EXPECT_NE(std::find(vocab.begin(), vocab.end(), rule.name), vocab.end()) << r.name << " " << name;
        for (const Rule& g : rule.guards) EXPECT_NE(std::find(vocab.begin(), vocab.end(), g.name), vocab.end());
        // The stored text parses back to the same rule.
        Rule again = parse_rule(rule.text);
        EXPECT_EQ(again.name, rule.name);
        EXPECT_EQ(again.args, rule.args);
        EXPECT_EQ(again.guards.size(), rule.guards.size());
        // And it can be checked: check_rule throws for names without a check.
        Model m;
        m.graphs.emplace_back();
        Node n;
        n.op_type = name;
        EXPECT_NO_THROW(check_rule(rule, m, m.graphs[0], n)) << rule.text;
      }
      // An op the release does not import has no rules, unless its parser has an importer (whose checks count).
      if (e.status == OpStatus::N && e.importer != "yes") {
        EXPECT_TRUE(e.rules.empty()) << r.name << " " << name;
      }
    }
  }
  EXPECT_GT(rules, 2000u);
  // The data uses the whole vocabulary.
  EXPECT_EQ(used.size(), vocab.size());
}

TEST(KbLoad, VocabularyIsTheDocumentedOne) {
  std::vector<std::string> expected = {
      "const_input", "weights_input", "nonconst_input", "input_present", "input_absent", "value_in",
      "input_types", "rank", "static_shape", "static_dim", "output_unused", "attr_in", "attr_all",
      "attr_absent", "attr_no_substr", "pads_symmetric", "bidir_same_activations", "opset",
      "einsum_subscripts", "einsum_no_diagonal", "same_types", "resize_nd", "axis_last", "loop_scan_trip_limit",
      "loop_state_shapes", "if_branch_ranks"};
  EXPECT_EQ(rule_vocabulary(), expected);
  // data/trt/README.md documents each of them (read from the tree: the build
  // re-embeds data/trt only when a table changes).
  std::ifstream in(std::string(TRTLENS_SOURCE_DIR) + "/data/trt/README.md");
  std::string readme((std::istreambuf_iterator<char>(in)), {});
  ASSERT_FALSE(readme.empty());
  for (const auto& name : expected) EXPECT_NE(readme.find("| `" + name + "` |"), std::string::npos) << name;
  EXPECT_NE(embedded_file("data/trt/README.md").find("## Rules"), std::string_view::npos);
}

TEST(KbResolve, AcceptsMajorMinorPatchAndBuild) {
  const auto& kb = KnowledgeBase::builtin();
  EXPECT_EQ(kb.resolve("8.6").name, "8.6");
  EXPECT_EQ(kb.resolve("8.6.1").name, "8.6");
  EXPECT_EQ(kb.resolve("8.6.1.6").name, "8.6");
  EXPECT_EQ(kb.resolve("10.13.3").name, "10.13");
  EXPECT_EQ(kb.resolve("10.1").name, "10.1");
  EXPECT_EQ(kb.resolve("10.10").name, "10.10");
  EXPECT_EQ(&kb.resolve("11.5"), &kb.releases().back());
}

TEST(KbResolve, UnknownReleaseListsKnownOnes) {
  const auto& kb = KnowledgeBase::builtin();
  for (const char* bad : {"8.7", "8", "12.0", "", "8.6.x", "8.6.1.6.2", "v8.6", "8..6", "-8.6"}) {
    try {
      kb.resolve(bad);
      ADD_FAILURE() << "resolved " << bad;
    } catch (const UsageError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("unknown TensorRT release"), std::string::npos) << msg;
      EXPECT_NE(msg.find("5.1, 6.0, 7.0"), std::string::npos) << msg;
      EXPECT_NE(msg.find("10.16, 11.0, 11.1, 11.2, 11.3, 11.4, 11.5"), std::string::npos) << msg;
    }
  }
}

TEST(KbResolve, Citations) {
  const auto& kb = KnowledgeBase::builtin();
  EXPECT_EQ(kb.resolve("8.6").citation(), "ONNX-TensorRT support matrix, release 8.6");
  EXPECT_EQ(kb.resolve("10.4").citation(), "TensorRT 10.4 changelog (10.1 table carried forward)");
  EXPECT_EQ(kb.resolve("11.0").carried_from, "10.16");
  EXPECT_EQ(kb.resolve("11.5").carried_from, "11.1");
  EXPECT_TRUE(kb.resolve("10.1").carried_from.empty());
}

TEST(KbResolve, FirstSupporting) {
  const auto& kb = KnowledgeBase::builtin();
  // HannWindow: unsupported in the tables, supported from the 10.4 changelog on.
  const Release* r = kb.first_supporting("HannWindow");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name, "10.4");
  EXPECT_EQ(kb.first_supporting("HannWindow", &kb.resolve("10.5"))->name, "10.6");  // strictly after
  EXPECT_EQ(kb.first_supporting("Swish")->name, "11.0");
  EXPECT_EQ(kb.first_supporting("Conv")->name, "5.1");
  EXPECT_EQ(kb.first_supporting("Conv", &kb.resolve("5.1"))->name, "6.0");
  EXPECT_EQ(kb.first_supporting("Conv", &kb.releases().back()), nullptr);
  EXPECT_EQ(kb.first_supporting("NoSuchOp"), nullptr);
}

// ---------------------------------------------------------------- the file format

constexpr const char* kHeader =
    "# a comment: with a colon\n"
    "# release: 9.9\n"
    "# source: test\n"
    "# date: 2030-01-01\n"
    "# opset_min: 9\n"
    "# opset_max: >=21\n"
    "# types: FP32 FP16 INT8\n"
    "# types_limited: INT8\n"
    "# basis: table\n"
    "# notes: -\n"
    "op\tstatus\ttypes\trules\tplugin\timporter\tbasis\trules_src\tnote\timport_types\timport_src\tignored\n";

TEST(KbParse, ReadsHeaderAndRows) {
  std::string text = std::string(kHeader) +
                     "Foo\tY\tFP32 FP16\trank(0,3..5);opset(>=11)\t-\tyes\ttable\tsource\ta note\t-\t-\t-\n"
                     "Bar\tPLUGIN\t-\t-\tBarPlugin\tyes\ttable\t-\t-\t-\t-\t-\n";
  KnowledgeBase kb = KnowledgeBase::parse({{"data/trt/9.9.tsv", text}});
  ASSERT_EQ(kb.releases().size(), 1u);
  const Release& r = kb.releases()[0];
  EXPECT_EQ(r.name, "9.9");
  EXPECT_EQ(r.major, 9);
  EXPECT_EQ(r.minor, 9);
  EXPECT_EQ(r.opset_min, 9);
  EXPECT_EQ(r.opset_max, 21);
  EXPECT_TRUE(r.opset_max_is_bound);
  EXPECT_EQ(r.types, (std::vector<std::string>{"FP32", "FP16", "INT8"}));
  EXPECT_EQ(r.types_limited, (std::vector<std::string>{"INT8"}));
  EXPECT_TRUE(r.notes.empty());
  const OpEntry* foo = r.find("Foo");
  ASSERT_NE(foo, nullptr);
  EXPECT_EQ(foo->rules.size(), 2u);
  EXPECT_EQ(foo->rules[1].name, "opset");
  EXPECT_EQ(foo->note, "a note");
  EXPECT_TRUE(foo->plugin.empty());
  EXPECT_EQ(r.find("Bar")->status, OpStatus::PLUGIN);
  EXPECT_EQ(r.find("Bar")->plugin, "BarPlugin");
  EXPECT_TRUE(r.find("Bar")->types.empty());
}

void expect_input_error(const std::string& text, const std::string& fragment, const std::string& name = "data/trt/9.9.tsv") {
  try {
    KnowledgeBase::parse({{name, text}});
    ADD_FAILURE() << "parsed: " << fragment;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), name);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(KbParse, RejectsMalformedFiles) {
  expect_input_error(std::string(kHeader) + "Foo\tMAYBE\t-\t-\t-\tyes\ttable\t-\t-\t-\t-\t-\n", "bad status");
  expect_input_error(std::string(kHeader) + "Foo\tY\t-\t-\n", "4 fields, expected 12");
  expect_input_error(std::string(kHeader) + "Foo\tY\t-\trank(0)\t-\tyes\ttable\tsource\t-\t-\t-\t-\n", "line 12: op Foo");
  expect_input_error(std::string(kHeader) + "Foo\tY\t-\tno_such_rule(0)\t-\tyes\ttable\tsource\t-\t-\t-\t-\n", "unknown rule name");
  expect_input_error(std::string(kHeader) + "Foo\tY\t-\t-\t-\tyes\ttable\t-\t-\t-\t-\t-\nFoo\tN\t-\t-\t-\tyes\ttable\t-\t-\t-\t-\t-\n",
                     "listed twice");
  expect_input_error("# release: 9.9\nop\tstatus\n", "expected the column line");
  expect_input_error("op\tstatus\ttypes\trules\tplugin\timporter\tbasis\trules_src\tnote\timport_types\timport_src\tignored\n", "no '# release");
  expect_input_error("# release: nine\n", "not major.minor");
  expect_input_error(kHeader, "file name says release 9.8", "data/trt/9.8.tsv");
}

TEST(KbParse, RejectsTheSameReleaseTwice) {
  EXPECT_THROW(KnowledgeBase::parse({{"a/9.9.tsv", kHeader}, {"b/9.9.tsv", kHeader}}), InputError);
}

}  // namespace
}  // namespace trtlens
