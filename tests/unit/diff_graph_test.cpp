// The version diff's graph view: which nodes it draws (added, removed, edited, their
// unchanged neighbours), its edges per version, its bound, and how it is drawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "render/html.h"
#include "render/model_diff.h"
#include "render/report_html.h"
#include "serve/context.h"
#include "support/onnx_builder.h"
#include "support/paths.h"
#include "trtlens/compat.h"
#include "trtlens/kb.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

const std::string kEvil = "<img src=x onerror=alert(1)>";

// Before: x -> stem (Relu) -> hs (HardSwish) -> head (Relu) -> tail (Sigmoid) -> y;
//         stem -> clip (LeakyRelu, alpha 0.1) -> z.
// After:  HardSwish becomes HardSigmoid + Mul, then another Mul (named kEvil) feeds head;
//         clip's alpha is 0.2.
Model version(const std::string& dir, bool after) {
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 8});
  g.node("Relu", {"x"}, {"s"}, "stem");
  std::string into_head = "h";
  if (!after) {
    g.node("HardSwish", {"s"}, {"h"}, "hs");
  } else {
    g.node("HardSigmoid", {"s"}, {"hg"}, "hsig");
    g.node("Mul", {"s", "hg"}, {"m"}, "mul");
    g.node("Mul", {"m", "m"}, {"m2"}, kEvil);
    into_head = "m2";
  }
  g.node("Relu", {into_head}, {"r"}, "head");
  g.node("Sigmoid", {"r"}, {"y"}, "tail");
  attr_float(g.node("LeakyRelu", {"s"}, {"z"}, "clip"), "alpha", after ? 0.2f : 0.1f);
  g.output("y");
  g.output("z");
  return load_model(mb.save(dir + (after ? "/after.onnx" : "/before.onnx")));
}

struct Pair {
  Model a, b;
  Annotations aa, bb;
  std::vector<DiffRow> ra, rb;
};
Pair versions(const std::string& name) {
  std::string dir = temp_dir(name);
  Pair p{version(dir, false), version(dir, true), {}, {}, {}, {}};
  const Release& r = KnowledgeBase::builtin().resolve("10.0");
  p.aa = annotate(p.a, r, Precision::FP16);
  p.bb = annotate(p.b, r, Precision::FP16);
  p.ra = diff_rows(p.a, p.aa);
  p.rb = diff_rows(p.b, p.bb);
  return p;
}

std::string kind_of(const DiffGraph& g, const std::string& node) {
  for (const DiffGraphNode& n : g.nodes)
    if (n.node == node) return std::string(diff_node_kind_name(n.kind));
  return "not drawn";
}

// "from->to:before/after" for each edge.
std::set<std::string> edges_of(const DiffGraph& g) {
  std::set<std::string> out;
  for (const DiffGraphEdge& e : g.edges)
    out.insert(g.nodes[static_cast<size_t>(e.from)].node + "->" + g.nodes[static_cast<size_t>(e.to)].node + ":" +
               (e.in_before ? "b" : "") + (e.in_after ? "a" : ""));
  return out;
}

TEST(DiffGraph, DrawsChangedNodesWithTheirUnchangedNeighbours) {
  Pair p = versions("DiffGraph_Nodes");
  DiffGraph g = diff_graph(p.ra, p.rb);
  EXPECT_EQ(g.changed, 6u);
  EXPECT_EQ(g.drawn_changed, 6u);
  EXPECT_TRUE(g.not_drawn.empty());
  EXPECT_EQ(g.context_not_drawn, 0u);
  ASSERT_EQ(g.nodes.size(), 8u);
  EXPECT_EQ(kind_of(g, "hs"), "removed");
  EXPECT_EQ(kind_of(g, "hsig"), "added");
  EXPECT_EQ(kind_of(g, "mul"), "added");
  EXPECT_EQ(kind_of(g, kEvil), "added");
  EXPECT_EQ(kind_of(g, "head"), "edited");  // fed by the new Mul instead of HardSwish
  EXPECT_EQ(kind_of(g, "clip"), "edited");  // alpha changed
  EXPECT_EQ(kind_of(g, "stem"), "context");
  EXPECT_EQ(kind_of(g, "tail"), "context");
  for (const DiffGraphNode& n : g.nodes) {
    if (n.node == "head") {
      EXPECT_EQ(n.edits, std::vector<std::string>{"inputs"});
    }
    if (n.node == "clip") {
      EXPECT_EQ(n.edits, std::vector<std::string>{"attributes"});
    }
    if (n.node == "hs") {
      EXPECT_TRUE(n.in_before && !n.in_after);
    }
    if (n.node == "mul") {
      EXPECT_TRUE(!n.in_before && n.in_after);
    }
    if (n.node == "stem") {
      EXPECT_TRUE(n.in_before && n.in_after);
    }
  }
  EXPECT_EQ(edges_of(g), (std::set<std::string>{"stem->hs:b", "hs->head:b", "stem->hsig:a", "stem->mul:a",
                                                "hsig->mul:a", "mul->" + kEvil + ":a", kEvil + "->head:a",
                                                "head->tail:ba", "stem->clip:ba"}));

  // The diff's lists agree: head and clip are edited, whatever their verdicts.
  ModelDiff d = diff_models(p.ra, p.rb);
  ASSERT_EQ(d.edited.size(), 2u);
  EXPECT_EQ(d.added.size(), 3u);
  EXPECT_EQ(d.removed.size(), 1u);
}

TEST(DiffGraph, BoundsTheDrawingByOpTypeGroups) {
  Pair p = versions("DiffGraph_Bound");
  DiffGraph g = diff_graph(p.ra, p.rb, 2);
  EXPECT_EQ(g.changed, 6u);
  EXPECT_EQ(g.drawn_changed, 2u);
  // Mul is the largest group (2 nodes): its first node is drawn first, then the changed
  // nodes connected to it, breadth first (its producer hsig before its consumer).
  EXPECT_EQ(kind_of(g, "mul"), "added");
  EXPECT_EQ(kind_of(g, "hsig"), "added");
  EXPECT_EQ(kind_of(g, kEvil), "not drawn");
  EXPECT_EQ(kind_of(g, "head"), "not drawn");  // a changed node over the bound is not drawn as context either
  EXPECT_EQ(kind_of(g, "stem"), "context");
  EXPECT_EQ(g.nodes.size(), 3u);
  std::vector<std::pair<std::string, size_t>> left = {{"HardSwish", 1}, {"LeakyRelu", 1}, {"Mul", 1}, {"Relu", 1}};
  EXPECT_EQ(g.not_drawn, left);
  EXPECT_EQ(edges_of(g), (std::set<std::string>{"stem->hsig:a", "stem->mul:a", "hsig->mul:a"}));
  // With room, a seed's whole connected change is drawn before the next seed: the
  // HardSwish that became HardSigmoid and two Muls, and the Relu reading them.
  DiffGraph five = diff_graph(p.ra, p.rb, 5);
  EXPECT_EQ(five.not_drawn, (std::vector<std::pair<std::string, size_t>>{{"LeakyRelu", 1}}));
  // The context is bounded too.
  DiffGraph one = diff_graph(p.ra, p.rb, 1);
  EXPECT_EQ(one.drawn_changed, 1u);
  EXPECT_EQ(one.nodes.size(), 2u);
  EXPECT_EQ(one.context_not_drawn, 0u);
}

TEST(DiffGraph, StoredRowsGiveTheSameGraph) {
  Pair p = versions("DiffGraph_Stored");
  auto sa = serve::read_diff_rows(serve::diff_rows_json(p.ra));
  auto sb = serve::read_diff_rows(serve::diff_rows_json(p.rb));
  DiffGraph live = diff_graph(p.ra, p.rb), stored = diff_graph(sa->rows, sb->rows);
  EXPECT_EQ(edges_of(stored), edges_of(live));
  ASSERT_EQ(stored.nodes.size(), live.nodes.size());
  for (size_t i = 0; i < live.nodes.size(); ++i) {
    EXPECT_EQ(stored.nodes[i].node, live.nodes[i].node);
    EXPECT_EQ(stored.nodes[i].kind, live.nodes[i].kind);
  }
  // A producer pointing outside the rows is a broken blob, not a crash later.
  EXPECT_ANY_THROW(serve::read_diff_rows(R"([["", "n", "Relu", "SUPPORTED", "", [5], ""]])"));
  EXPECT_ANY_THROW(serve::read_diff_rows(R"([["", "n", "Relu", "SUPPORTED", "", [-2], ""]])"));
}

TEST(DiffGraph, IsDrawnInColoursWithLinksToEachVersionsReport) {
  Pair p = versions("DiffGraph_Draw");
  DiffGraph g = diff_graph(p.ra, p.rb);
  DotGraph dot = diff_dot_graph(g, "/projects/p/models/m/versions/1/report", "/projects/p/models/m/versions/2/report",
                                "10.0 fp16");
  ASSERT_EQ(dot.nodes.size(), g.nodes.size());
  auto attr = [](const DotAttrs& a, const std::string& k) {
    for (const auto& [name, value] : a)
      if (name == k) return value;
    return std::string();
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const std::string fill = attr(dot.nodes[i].attrs, "fillcolor"), url = attr(dot.nodes[i].attrs, "URL");
    switch (g.nodes[i].kind) {
      case DiffGraphNode::Kind::Added: EXPECT_EQ(fill, "#d4f5d0"); break;
      case DiffGraphNode::Kind::Removed: EXPECT_EQ(fill, "#fbd5d5"); break;
      case DiffGraphNode::Kind::Edited: EXPECT_EQ(fill, "#fde6b0"); break;
      case DiffGraphNode::Kind::Context: EXPECT_EQ(fill, "#f2f2f2"); break;
    }
    // A removed node opens the older version's report, every other the newer one's, at that
    // node (its graph when not the main one) and the diff's runtime; '&' as "&amp;" (Graphviz
    // copies a URL into the SVG as it is).
    EXPECT_EQ(url, (g.nodes[i].kind == DiffGraphNode::Kind::Removed ? "/projects/p/models/m/versions/1/report"
                                                                    : "/projects/p/models/m/versions/2/report") +
                       html_escape(report_anchor(g.nodes[i].node, g.nodes[i].graph, "10.0 fp16")));
  }
  // A link cannot leave its attribute, whatever the path or the node's name holds.
  DotGraph odd = diff_dot_graph(g, "", "/a\"b&c");
  const std::string odd_url = attr(odd.nodes[0].attrs, "URL");
  EXPECT_EQ(odd_url.rfind("/a%22b%26c#node=", 0), 0u) << odd_url;
  EXPECT_EQ(odd_url.find_first_of("\"<>' "), std::string::npos) << odd_url;
  size_t evil = 0;
  for (const DiffGraphNode& n : g.nodes)
    if (n.node == kEvil) break; else ++evil;
  ASSERT_LT(evil, g.nodes.size());
  EXPECT_EQ(attr(dot.nodes[evil].attrs, "URL"),
            "/projects/p/models/m/versions/2/report#node=%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E&amp;trt=10.0&amp;"
            "precision=fp16");

  ModelDiff d = diff_models(p.ra, p.rb);
  ModelDiffView v{&d, "version 1", "version 2", "10.0 fp16", true, true, &g, "/r/1", "/r/2"};
  std::string html = model_diff_html(v);
  EXPECT_NE(html.find("<section class=\"diff-graph\">"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);  // inline: no XML prologue
  EXPECT_NE(html.find("class=\"node dg_node dg_added\""), std::string::npos) << html.substr(0, 3000);
  EXPECT_NE(html.find("class=\"node dg_node dg_removed\""), std::string::npos);
  EXPECT_EQ(html.find(kEvil), std::string::npos);  // the model's names are escaped in the SVG too
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(html.find("not drawn"), std::string::npos);  // nothing over the bound

  DiffGraph bounded = diff_graph(p.ra, p.rb, 2);
  v.graph = &bounded;
  EXPECT_NE(model_diff_html(v).find("2 of 6 changed nodes drawn (the largest op_type groups first, each node with "
                                    "the changed nodes connected to it); not drawn: 1 HardSwish, 1 LeakyRelu, 1 Mul, "
                                    "1 Relu"),
            std::string::npos);
  nlohmann::json doc = nlohmann::json::parse(model_diff_json(v));
  EXPECT_EQ(doc["graph"]["changed"], 6);
  EXPECT_EQ(doc["graph"]["drawn_changed"], 2);
  EXPECT_EQ(doc["graph"]["nodes"][0]["kind"], "added");
  EXPECT_EQ(doc["graph"]["not_drawn"][0]["op_type"], "HardSwish");
  EXPECT_EQ(doc["edited"].size(), 2u);

  // No change at all: no drawing, a sentence.
  DiffGraph none = diff_graph(p.ra, p.ra);
  EXPECT_EQ(none.changed, 0u);
  EXPECT_TRUE(none.nodes.empty());
  v.graph = &none;
  EXPECT_NE(model_diff_html(v).find("No node added, removed or edited."), std::string::npos);
}

}  // namespace
}  // namespace trtlens
