// Page assembly of `trtlens report`, on models and annotations built by hand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>

#include "render/report_data.h"
#include "render/report_html.h"

namespace trtlens {
namespace {

using nlohmann::json;

TensorInfo tensor(const std::string& name, ElemType t, std::vector<int64_t> dims, TensorOrigin o) {
  TensorInfo info;
  info.name = name;
  info.type = t;
  info.rank = static_cast<int>(dims.size());
  for (int64_t d : dims) info.dims.push_back({d, ""});
  info.origin = o;
  return info;
}

// Adds `t` to `g` under its name.
void put(Graph& g, TensorInfo t) { g.tensors[static_cast<size_t>(g.intern(t.name))] = std::move(t); }

Node node(int index, std::string name, std::string op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.index = index;
  n.name = std::move(name);
  n.op_type = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// x -> Conv(w) -> Relu -> Loop(body: Identity) -> y
Model small_model() {
  Model m;
  m.path = "small.onnx";
  m.opsets.push_back({"", 17});
  Graph main;
  main.inputs = {"x", "w"};
  main.outputs = {"y"};
  put(main, tensor("x", ElemType::FLOAT, {1, 3, 8, 8}, TensorOrigin::GraphInput));
  put(main, tensor("w", ElemType::FLOAT, {4, 3, 3, 3}, TensorOrigin::Initializer));
  put(main, tensor("c", ElemType::FLOAT, {1, 4, 6, 6}, TensorOrigin::Computed));
  put(main, tensor("r", ElemType::FLOAT, {1, 4, 6, 6}, TensorOrigin::Computed));
  put(main, tensor("y", ElemType::FLOAT, {1, 4, 6, 6}, TensorOrigin::Computed));
  main.nodes.push_back(node(0, "conv0", "Conv", {"x", "w"}, {"c"}));
  Attribute k;
  k.name = "kernel_shape";
  k.kind = Attribute::Kind::Ints;
  k.ints = {3, 3};
  main.nodes[0].attributes.push_back(k);
  main.nodes.push_back(node(1, "relu</script><img src=x onerror=alert(1)>", "Relu", {"c"}, {"r"}));
  main.nodes.push_back(node(2, "loop", "Loop", {"", "", "r"}, {"y"}));
  Attribute body;
  body.name = "body";
  body.kind = Attribute::Kind::Graph;
  body.graphs = {1};
  main.nodes[2].attributes.push_back(body);
  Graph sub;
  sub.path = "loop/body";
  sub.parent = 0;
  sub.parent_node = 2;
  sub.inputs = {"i"};
  sub.outputs = {"o"};
  put(sub, tensor("i", ElemType::INT64, {}, TensorOrigin::GraphInput));
  put(sub, tensor("o", ElemType::INT64, {}, TensorOrigin::Computed));
  put(sub, tensor("c", ElemType::FLOAT, {1, 4, 6, 6}, TensorOrigin::OuterScope));
  put(sub, tensor("o2", ElemType::FLOAT, {1, 4, 6, 6}, TensorOrigin::Computed));
  sub.nodes.push_back(node(0, "id", "Identity", {"i"}, {"o"}));
  sub.nodes.push_back(node(1, "outer", "Identity", {"c"}, {"o2"}));  // reads the enclosing graph
  m.graphs.push_back(std::move(main));
  m.graphs.push_back(std::move(sub));
  index_graphs(m);
  return m;
}

std::vector<Release> two_releases() {
  std::vector<Release> rels(2);
  rels[0].name = "8.6";
  rels[1].name = "10.0";
  for (auto& r : rels) {
    OpEntry relu;
    relu.op = "Relu";
    relu.status = OpStatus::Y;
    relu.types = {"FP32", "FP16", "INT8"};
    r.ops["Relu"] = relu;
  }
  OpEntry conv;
  conv.op = "Conv";
  conv.status = OpStatus::Y;
  conv.types = {"FP32", "FP16"};
  rels[1].ops["Conv"] = conv;
  return rels;
}

// Relu is UNSUPPORTED at INT8 on every release, Conv FALLBACK at 8.6, all
// else SUPPORTED; every reason has the same text, so it must be stored once.
Annotations annotations_for(const Model& m, size_t release, Precision p) {
  Annotations a;
  a.precision = p;
  for (size_t g = 0; g < m.graphs.size(); ++g)
    for (const Node& n : m.graphs[g].nodes) {
      NodeVerdict v;
      v.graph = static_cast<int>(g);
      v.index = n.index;
      v.precision = "FP32";
      if (n.op_type == "Relu" && p == Precision::INT8) {
        v.verdict = Verdict::UNSUPPORTED;
        v.precision = "-";
        v.reasons.push_back({"types", "no INT8 kernel", "table"});
        v.hints.push_back("use FP16");
      } else if (n.op_type == "Conv" && release == 0) {
        v.verdict = Verdict::FALLBACK;
        v.reasons.push_back({"types", "no INT8 kernel", "table"});
      }
      a.nodes.push_back(v);
    }
  a.notes.push_back("note </script>");
  return a;
}

json build(const Model& m, const std::vector<Release>& rels, ReportOptions o = {}, bool all_runtimes = true) {
  std::vector<const Release*> ptrs;
  for (const auto& r : rels) ptrs.push_back(&r);
  ReportBuilder b(m, ptrs, o);
  if (all_runtimes)
    for (size_t r = 0; r < rels.size(); ++r)
      for (Precision p : kAllPrecisions) b.add(r, p, annotations_for(m, r, p));
  return json::parse(b.json());
}

// Decodes what the page decodes: the verdict name of node (g, i) at a runtime.
std::string verdict_at(const json& d, int g, int i, size_t release, Precision p) {
  size_t k = static_cast<size_t>(p) * d["releases"].size() + release;
  const json& rle = d["profiles"][d["graphs"][g]["nodes"][i]["p"].get<int>()];
  size_t at = 0;
  for (size_t j = 0; j < rle.size(); j += 2) {
    at += rle[j + 1].get<size_t>();
    if (k < at) return d["verdicts"][d["details"][rle[j].get<int>()][0].get<int>()];
  }
  return "out of range";
}

TEST(ReportHtml, EscapesMarkup) {
  EXPECT_EQ(html_escape("<img src=x onerror=\"a('1')\">&"),
            "&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp;");
}

TEST(ReportHtml, ScriptJsonHasNoAngleBracketsAndParsesBack) {
  json j = {{"name", "</script><!--<script>\u2028&"}};
  std::string safe = json_for_script(j.dump());
  EXPECT_EQ(safe.find('<'), std::string::npos);
  EXPECT_EQ(safe.find('>'), std::string::npos);
  EXPECT_EQ(safe.find("\xe2\x80\xa8"), std::string::npos);
  EXPECT_EQ(json::parse(safe), j);
}

TEST(ReportHtml, FillsEachSlotOnceAndNeverRescansInsertedText) {
  std::string page = assemble_report_page("a<b.onnx", R"({"x":"{{JS}} {{TITLE}}"})");
  EXPECT_NE(page.find("<title>a&lt;b.onnx"), std::string::npos);
  EXPECT_EQ(page.find("a<b.onnx"), std::string::npos);
  // The data keeps its literal marks: they were not replaced by the JS or title.
  EXPECT_NE(page.find(R"({"x":"{{JS}} {{TITLE}}"})"), std::string::npos);
  EXPECT_EQ(page.find("{{CSS}}"), std::string::npos);
  EXPECT_EQ(page.find("{{DATA}}"), std::string::npos);
  EXPECT_NE(page.find("window.trtlens = {"), std::string::npos);         // the JS is inlined
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);                  // nothing is loaded
}

TEST(ReportHtml, NodeAnchorEncodesEveryFieldAndSplitsThePin) {
  EXPECT_EQ(report_anchor("/features/Conv_1"), "#node=/features/Conv_1");
  EXPECT_EQ(report_anchor("deep_bad", "gate/then_branch", "10.3 fp16"),
            "#node=deep_bad&graph=gate/then_branch&trt=10.3&precision=fp16");
  EXPECT_EQ(report_anchor("fn:F/2", "", "8.5 int8 orin-dla"), "#node=fn:F/2&trt=8.5&precision=int8&target=orin-dla");
  EXPECT_EQ(report_anchor("", "", "8.6 fp16"), "#trt=8.6&precision=fp16");  // the runtime alone
  EXPECT_EQ(report_anchor("", "ignored"), "#");
  // No byte of a name can end its field, start another or leave an attribute.
  EXPECT_EQ(report_anchor("a \"q\" 'b' &trt=7.0#x %41+<i>?\xc3\xa9"),
            "#node=a%20%22q%22%20%27b%27%20%26trt%3D7.0%23x%20%2541%2B%3Ci%3E%3F%C3%A9");
  // Invalid UTF-8 is replaced as in the page's data, so the name still matches there.
  EXPECT_EQ(report_anchor("a\xff"), "#node=a%EF%BF%BD");
  EXPECT_EQ(percent_encode("a/b c", "/"), "a/b%20c");
  EXPECT_EQ(percent_encode("a/b"), "a%2Fb");
}

TEST(ReportData, FormatsShapesAndAttributes) {
  TensorInfo t = tensor("t", ElemType::FLOAT, {1, 3}, TensorOrigin::Computed);
  t.dims.push_back({-1, "N"});
  t.dims.push_back({-1, ""});
  t.rank = 4;
  EXPECT_EQ(format_shape(t), "[1, 3, N, ?]");
  t.rank = -1;
  EXPECT_EQ(format_shape(t), "?");
  EXPECT_EQ(format_shape(tensor("s", ElemType::FLOAT, {}, TensorOrigin::Computed)), "[]");
  Attribute a;
  a.kind = Attribute::Kind::Ints;
  a.ints = {1, 2, 3, 4};
  EXPECT_EQ(format_attribute(a, 2), "[1, 2, ... (4 in all)]");
  a.kind = Attribute::Kind::String;
  a.s = "nearest";
  EXPECT_EQ(format_attribute(a), "\"nearest\"");
  a.s = std::string(1000, 'x');
  EXPECT_EQ(format_attribute(a), "\"" + std::string(256, 'x') + "\" ... (1000 bytes in all)");
}

TEST(ReportData, CarriesEveryRuntimeVerdict) {
  Model m = small_model();
  auto rels = two_releases();
  json d = build(m, rels);
  ASSERT_EQ(d["graphs"].size(), 2u);
  EXPECT_EQ(d["releases"][1]["name"], "10.0");
  EXPECT_EQ(d["precisions"].size(), kAllPrecisions.size());
  // Initial runtime: the newest release at FP32 unless told otherwise.
  EXPECT_EQ(d["initial"], json::array({1, 0}));

  EXPECT_EQ(verdict_at(d, 0, 1, 0, Precision::FP32), "SUPPORTED");
  EXPECT_EQ(verdict_at(d, 0, 1, 0, Precision::INT8), "UNSUPPORTED");
  EXPECT_EQ(verdict_at(d, 0, 1, 1, Precision::INT8), "UNSUPPORTED");
  EXPECT_EQ(verdict_at(d, 0, 0, 0, Precision::FP16), "FALLBACK");
  EXPECT_EQ(verdict_at(d, 0, 0, 1, Precision::FP16), "SUPPORTED");
  EXPECT_EQ(verdict_at(d, 1, 0, 1, Precision::BEST), "SUPPORTED");

  // One reason text across 14 verdicts: stored once.
  EXPECT_EQ(d["reasons"].size(), 1u);
  // Nodes with the same verdicts everywhere share a profile (Loop and Identity).
  EXPECT_EQ(d["graphs"][0]["nodes"][2]["p"], d["graphs"][1]["nodes"][0]["p"]);
  EXPECT_EQ(d["graphs"][1]["nodes"][0]["p"], d["graphs"][1]["nodes"][1]["p"]);
  EXPECT_EQ(d["profiles"].size(), 3u);
  EXPECT_EQ(d["strings"][d["notes"][0][0].get<int>()], "note </script>");
}

TEST(ReportData, DescribesNodesTensorsAndSubgraphs) {
  Model m = small_model();
  auto rels = two_releases();
  json d = build(m, rels);
  const json& g0 = d["graphs"][0];
  const json& relu = g0["nodes"][1];
  EXPECT_EQ(relu["n"], "relu</script><img src=x onerror=alert(1)>");
  EXPECT_EQ(relu["op"], "Relu");
  EXPECT_EQ(relu["ix"], 1);
  const json& t = g0["tensors"][relu["i"][0].get<int>()];
  EXPECT_EQ(t, json::array({"c", "FLOAT", "[1, 4, 6, 6]", "computed"}));
  EXPECT_EQ(g0["tensors"][g0["nodes"][0]["i"][1].get<int>()][3], "initializer");
  EXPECT_EQ(g0["nodes"][0]["a"][0], json::array({"kernel_shape", "[3, 3]", json::array()}));
  EXPECT_EQ(g0["nodes"][2]["s"], json::array({1}));
  EXPECT_EQ(g0["nodes"][2]["i"][0], -1);  // omitted optional input
  EXPECT_EQ(d["graphs"][1]["path"], "loop/body");
  EXPECT_EQ(d["graphs"][1]["kind"], "subgraph");
  EXPECT_EQ(d["graphs"][1]["parent"], 0);

  // Supported Runtimes: Conv absent from 8.6, present at 10.0 with its types.
  const json& kb = d["kb"];
  EXPECT_EQ(kb["ops"]["Conv"][0], -1);
  const json& conv10 = kb["entries"][kb["ops"]["Conv"][1].get<int>()];
  EXPECT_EQ(conv10[0], "Y");
  EXPECT_EQ(conv10[1], "FP32, FP16");
  EXPECT_EQ(kb["ops"]["Relu"][0], kb["ops"]["Relu"][1]);  // same entry, stored once
}

TEST(ReportData, LaysOutNodesAndEdges) {
  Model m = small_model();
  json d = build(m, two_releases());
  const json& g0 = d["graphs"][0];
  ASSERT_EQ(g0["regions"].size(), 1u);
  const json& reg = g0["regions"][0];
  double w = reg["w"], h = reg["h"];
  std::set<int> kinds;
  for (const json& it : reg["items"]) {
    kinds.insert(it[0].get<int>());
    EXPECT_GE(it[2].get<double>(), 0);
    EXPECT_LE(it[2].get<double>(), w);
    EXPECT_GE(it[3].get<double>(), 0);
    EXPECT_LE(it[3].get<double>(), h);
  }
  // Nodes, the graph input x (the initializer w is not drawn) and output y.
  EXPECT_EQ(kinds, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(reg["items"].size(), 5u);
  // Top to bottom: Conv above Relu above Loop.
  auto y_of = [&](int i) { return reg["items"][g0["nodes"][i]["b"].get<int>()][3].get<double>(); };
  EXPECT_LT(y_of(0), y_of(1));
  EXPECT_LT(y_of(1), y_of(2));
  // The edge Conv -> Relu carries tensor c and a routed spline (1 + 3k points + tip).
  bool found = false;
  for (const json& e : reg["edges"]) {
    if (e[0] == g0["nodes"][0]["b"] && e[1] == g0["nodes"][1]["b"]) {
      found = true;
      EXPECT_EQ(g0["tensors"][e[2].get<int>()][0], "c");
      size_t pts = e[3].size() / 2;
      EXPECT_GE(pts, 5u);
      EXPECT_EQ((pts - 1) % 3, 1u);
    }
  }
  EXPECT_TRUE(found);
}

TEST(ReportData, SubgraphOuterReadsAreImplicitInputs) {
  Model m = small_model();
  json d = build(m, two_releases());
  const json& g0 = d["graphs"][0];
  const json& loop = g0["nodes"][2];
  ASSERT_TRUE(loop.contains("ii"));
  ASSERT_EQ(loop["ii"].size(), 1u);
  EXPECT_EQ(g0["tensors"][loop["ii"][0].get<int>()][0], "c");
  EXPECT_FALSE(g0["nodes"][1].contains("ii"));
  // The data flow shows it: an edge Conv -> Loop carrying c.
  bool found = false;
  for (const json& e : g0["regions"][0]["edges"])
    if (e[0] == g0["nodes"][0]["b"] && e[1] == loop["b"]) found = g0["tensors"][e[2].get<int>()][0] == "c";
  EXPECT_TRUE(found);
  // Inside the body, c enters like an input.
  const json& body = d["graphs"][1];
  std::set<std::string> inputs;
  for (const json& it : body["regions"][0]["items"])
    if (it[0] == 1) inputs.insert(body["tensors"][it[1].get<int>()][0].get<std::string>());
  EXPECT_EQ(inputs, (std::set<std::string>{"i", "c"}));
}

TEST(ReportData, SplitsBigGraphsIntoLinkedRegions) {
  Model m;
  Graph g;
  g.inputs = {"t0"};
  put(g, tensor("t0", ElemType::FLOAT, {1}, TensorOrigin::GraphInput));
  for (int i = 0; i < 25; ++i) {
    std::string in = "t" + std::to_string(i), out = "t" + std::to_string(i + 1);
    put(g, tensor(out, ElemType::FLOAT, {1}, TensorOrigin::Computed));
    // Listed in reverse: regions must follow the data flow, not the file order.
    g.nodes.insert(g.nodes.begin(), node(0, "n" + std::to_string(i), "Relu", {in}, {out}));
  }
  for (int i = 0; i < 25; ++i) g.nodes[i].index = i;
  g.outputs = {"t25"};
  m.graphs.push_back(std::move(g));
  index_graphs(m);
  ReportOptions o;
  o.region_nodes = 10;
  json d = build(m, two_releases(), o);
  const json& gj = d["graphs"][0];
  ASSERT_EQ(gj["regions"].size(), 3u);
  std::vector<int> per_region(3, 0);
  for (size_t i = 0; i < gj["nodes"].size(); ++i) {
    const json& n = gj["nodes"][i];
    int r = n["r"];
    ++per_region[r];
    // Each node's box is a node item that points back at it.
    const json& item = gj["regions"][r]["items"][n["b"].get<int>()];
    EXPECT_EQ(item[0], 0);
    EXPECT_EQ(item[1], i);
  }
  for (int c : per_region) EXPECT_LE(c, 10);
  // n0 (listed last) comes first in the data flow, so it opens region 0.
  EXPECT_EQ(gj["nodes"][24]["r"], 0);
  EXPECT_EQ(gj["nodes"][0]["r"], 2);
  // Region 1 links back to region 0 and on to region 2.
  std::set<std::pair<int, int>> links;
  for (const json& it : gj["regions"][1]["items"])
    if (it[0] == 3 || it[0] == 4) links.insert({it[0].get<int>(), it[6].get<int>()});
  EXPECT_EQ(links, (std::set<std::pair<int, int>>{{3, 0}, {4, 2}}));
}

// x -> p1 -> p2 -> p3 in region 0; q1 = Add(t1, t3), q2 = Add(u1, t2), q3 in region 1 (three nodes a
// region). With `constant`, region 1 starts with a Constant that q3 = Add(u2, c) reads.
Model two_region_model(bool constant) {
  Model m;
  Graph g;
  g.inputs = {"x"};
  g.outputs = {"y"};
  put(g, tensor("x", ElemType::FLOAT, {1}, TensorOrigin::GraphInput));
  for (const char* t : {"t1", "t2", "t3", "u1", "u2", "y"}) put(g, tensor(t, ElemType::FLOAT, {1}, TensorOrigin::Computed));
  g.nodes.push_back(node(0, "p1", "Relu", {"x"}, {"t1"}));
  g.nodes.push_back(node(1, "p2", "Relu", {"t1"}, {"t2"}));
  g.nodes.push_back(node(2, "p3", "Relu", {"t2"}, {"t3"}));
  g.nodes.push_back(node(3, "q1", "Add", {"t1", "t3"}, {"u1"}));
  g.nodes.push_back(node(4, "q2", "Add", {"u1", "t2"}, {"u2"}));
  if (constant) {
    put(g, tensor("c", ElemType::FLOAT, {1}, TensorOrigin::ConstantNode));
    g.nodes.push_back(node(5, "c_node", "Constant", {}, {"c"}));
    g.nodes.push_back(node(6, "q3", "Add", {"u2", "c"}, {"y"}));
  } else {
    g.nodes.push_back(node(5, "q3", "Relu", {"u2"}, {"y"}));
  }
  m.graphs.push_back(std::move(g));
  index_graphs(m);
  return m;
}

TEST(ReportData, LinksToALaterRegionSitUnderEachProducer) {
  ReportOptions o;
  o.region_nodes = 3;
  json d = build(two_region_model(false), two_releases(), o);
  const json& gj = d["graphs"][0];
  ASSERT_EQ(gj["regions"].size(), 2u);
  const json& r0 = gj["regions"][0];
  // p1, p2 and p3 each feed region 1: one "to region 2" link under each (one link for all
  // three, at the bottom, made dot route three edges down the region).
  std::map<int, std::set<int>> producers_of_link;
  for (const json& e : r0["edges"]) {
    const json& to = r0["items"][e[1].get<int>()];
    const json& from = r0["items"][e[0].get<int>()];
    if (to[0] == 4) {
      EXPECT_EQ(to[6], 1);
      producers_of_link[e[1].get<int>()].insert(from[1].get<int>());
    }
  }
  ASSERT_EQ(producers_of_link.size(), 3u);
  std::set<int> producers;
  for (const auto& [link, from] : producers_of_link) {
    EXPECT_EQ(from.size(), 1u) << "link " << link;
    producers.insert(from.begin(), from.end());
  }
  EXPECT_EQ(producers, (std::set<int>{0, 1, 2}));
}

TEST(ReportData, LaysOutTheFoldedDrawingOnlyForRegionsFoldingChanges) {
  ReportOptions o;
  o.region_nodes = 4;
  json d = build(two_region_model(true), two_releases(), o);
  const json& gj = d["graphs"][0];
  ASSERT_EQ(gj["regions"].size(), 2u);
  ASSERT_TRUE(gj.contains("regions_folded"));
  const json& folded = gj["regions_folded"];
  ASSERT_EQ(folded.size(), 2u);
  // Region 0 (p1, p2, p3, q1) has nothing to fold: the page draws regions[0] for both.
  EXPECT_TRUE(folded[0].is_null());
  // Region 1 (q2, the Constant, q3) loses the Constant's box and edge.
  ASSERT_TRUE(folded[1].is_object());
  EXPECT_EQ(folded[1]["items"].size() + 1, gj["regions"][1]["items"].size());
  EXPECT_EQ(folded[1]["edges"].size() + 1, gj["regions"][1]["edges"].size());
}

// x -> Reshape(Constant) -> Add(Identity(w)) -> Mul(k) -> Mul(k) -> Identity -> y, plus a Constant
// that is a graph output: what folds into its reader and what stays a box.
Model folding_model() {
  Model m;
  m.path = "fold.onnx";
  Graph g;
  g.inputs = {"x", "w"};
  g.outputs = {"y", "c_out"};
  put(g, tensor("x", ElemType::FLOAT, {1, 16}, TensorOrigin::GraphInput));
  put(g, tensor("w", ElemType::FLOAT, {1, 16}, TensorOrigin::Initializer));
  TensorInfo shape = tensor("shape", ElemType::INT64, {2}, TensorOrigin::ConstantNode);
  shape.values = std::make_unique<std::vector<double>>(std::vector<double>{1, 16});
  put(g, std::move(shape));
  // PyTorch's "to the end" slice bound, then 19 small values: only the first few travel.
  TensorInfo k = tensor("k", ElemType::INT64, {20}, TensorOrigin::ConstantNode);
  k.values = std::make_unique<std::vector<double>>();
  k.values->push_back(-9223372036854775807.0);
  for (int i = 1; i < 20; ++i) k.values->push_back(i);
  put(g, std::move(k));
  for (const char* t : {"r", "wi", "a", "m1", "m2", "y"}) put(g, tensor(t, ElemType::FLOAT, {1, 16}, TensorOrigin::Computed));
  put(g, tensor("c_out", ElemType::FLOAT, {1}, TensorOrigin::ConstantNode));
  g.nodes.push_back(node(0, "shape_c", "Constant", {}, {"shape"}));
  g.nodes.push_back(node(1, "reshape", "Reshape", {"x", "shape"}, {"r"}));
  g.nodes.push_back(node(2, "w_id", "Identity", {"w"}, {"wi"}));
  g.nodes.push_back(node(3, "add", "Add", {"r", "wi"}, {"a"}));
  g.nodes.push_back(node(4, "out_c", "Constant", {}, {"c_out"}));
  g.nodes.push_back(node(5, "k_c", "Constant", {}, {"k"}));
  g.nodes.push_back(node(6, "mul1", "Mul", {"a", "k"}, {"m1"}));
  g.nodes.push_back(node(7, "mul2", "Mul", {"m1", "k"}, {"m2"}));
  g.nodes.push_back(node(8, "computed_id", "Identity", {"m2"}, {"y"}));
  m.graphs.push_back(std::move(g));
  index_graphs(m);
  return m;
}

TEST(ReportData, FoldsConstantsAndIdentitiesOfConstantsIntoTheirReader) {
  json d = build(folding_model(), two_releases());
  const json& g = d["graphs"][0];
  auto fo = [&](int i) { return g["nodes"][i].contains("fo") ? g["nodes"][i]["fo"].get<int>() : -1; };
  EXPECT_EQ(fo(0), 1);   // Constant -> its Reshape
  EXPECT_EQ(fo(2), 3);   // Identity of an initializer -> its Add
  EXPECT_EQ(fo(5), 6);   // read twice: its first reader
  EXPECT_EQ(fo(4), -1);  // a graph output stays a box
  EXPECT_EQ(fo(8), -1);  // an Identity of a computed tensor stays a box
  for (int i : {1, 3, 6, 7}) EXPECT_EQ(fo(i), -1);
  // Two drawings: every node, and the folded one without the folded nodes or their edges.
  auto drawn = [](const json& region) {
    std::set<int> nodes;
    for (const json& it : region["items"])
      if (it[0] == 0) nodes.insert(it[1].get<int>());
    return nodes;
  };
  EXPECT_EQ(drawn(g["regions"][0]), (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  ASSERT_TRUE(g.contains("regions_folded"));
  const json& folded = g["regions_folded"][0];
  EXPECT_EQ(drawn(folded), (std::set<int>{1, 3, 4, 6, 7, 8}));
  for (const json& e : folded["edges"])
    for (int end : {e[0].get<int>(), e[1].get<int>()}) {
      const json& it = folded["items"][end];
      if (it[0] == 0) EXPECT_LT(fo(it[1].get<int>()), 0);
    }
  // A graph where nothing folds carries one drawing only.
  EXPECT_FALSE(build(small_model(), two_releases())["graphs"][0].contains("regions_folded"));
}

TEST(ReportData, CarriesTheFirstValuesOfConstantsOnly) {
  json d = build(folding_model(), two_releases());
  const json& g = d["graphs"][0];
  auto row = [&](const std::string& name) {
    for (const json& t : g["tensors"])
      if (t[0] == name) return t;
    return json();
  };
  EXPECT_EQ(row("shape")[4], "[1, 16]");
  EXPECT_EQ(row("k")[4], "[-2^63 (INT64 min), 1, 2, 3, 4, 5, 6, 7, ... (20 in all)]");
  EXPECT_EQ(row("x").size(), 4u);  // no value known: no fifth field
  EXPECT_EQ(row("w").size(), 4u);
}

TEST(ReportData, RuntimesNeverAddedReadAsUnknown) {
  Model m = small_model();
  json d = build(m, two_releases(), {}, false);
  EXPECT_EQ(verdict_at(d, 0, 0, 0, Precision::FP32), "UNKNOWN");
  EXPECT_EQ(verdict_at(d, 1, 0, 1, Precision::FP8), "UNKNOWN");
}

TEST(ReportData, InitialRuntimeFollowsOptions) {
  auto rels = two_releases();
  ReportOptions o;
  o.initial_release = &rels[0];  // not the newest, the default
  o.initial_precision = Precision::INT8;
  json d = build(small_model(), rels, o);
  EXPECT_EQ(d["initial"], json::array({0, static_cast<int>(Precision::INT8)}));
}

// On a DLA target the page carries, per runtime, the placement's summary with check --format json's names
// (the page shows them and computes none); a plain page, or a GPU target's, has no `dla`.
TEST(ReportData, CarriesTheDlaSummaryOfEachTargetRuntime) {
  Model m = small_model();
  auto rels = two_releases();
  Target t;
  t.name = "orin-dla";
  t.dla = true;
  ReportOptions o;
  o.target = &t;
  std::vector<const Release*> ptrs{&rels[0], &rels[1]};
  ReportBuilder b(m, ptrs, o);
  b.add(1, Precision::FP16, annotations_for(m, 1, Precision::FP16));  // a plain runtime: no placement
  Annotations a = annotations_for(m, 1, Precision::FP16);
  a.target = &t;
  auto d = std::make_shared<DlaPlacement>();
  d->release = "10.0";
  d->dla_nodes = 1, d->gpu_nodes = 1, d->unsupported_nodes = 0;
  d->dla_macs = 864, d->total_macs = 1000;
  d->transitions = 1, d->loadables = 1, d->max_loadables = 16;
  a.dla = d;
  b.add(1, Precision::FP16, a);
  json page = json::parse(b.json());
  size_t runtimes = 2 * kAllPrecisions.size();
  ASSERT_EQ(page["dla"].size(), 2 * runtimes);
  size_t k = runtimes + static_cast<size_t>(Precision::FP16) * 2 + 1;
  EXPECT_EQ(page["dla"][k], json({{"release", "10.0"}, {"dla_nodes", 1}, {"gpu_fallback_nodes", 1}, {"unsupported_nodes", 0},
                                  {"dla_macs", 864}, {"total_macs", 1000}, {"macs_unknown_nodes", 0}, {"transitions", 1}, {"loadables", 1},
                                  {"max_loadables", 16}}));
  EXPECT_TRUE(page["dla"][k - runtimes].is_null()) << "the plain runtime has no placement";
  EXPECT_TRUE(page["dla"][k - 1].is_null()) << "a runtime never added";
  EXPECT_FALSE(build(m, rels).contains("dla")) << "a plain page is unchanged";
  t.dla = false;  // a GPU target
  ReportBuilder gpu(m, ptrs, o);
  EXPECT_FALSE(json::parse(gpu.json()).contains("dla"));
}

TEST(ReportPage, ModelStringsCannotCloseTheDataScript) {
  Model m = small_model();
  auto rels = two_releases();
  std::vector<const Release*> ptrs = {&rels[0], &rels[1]};
  ReportBuilder b(m, ptrs, {});
  std::string page = assemble_report_page("small.onnx", b.json());
  EXPECT_EQ(page.find("<img src=x"), std::string::npos);
  // Exactly the two script elements of the template open and close.
  size_t opens = 0, closes = 0;
  for (size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1)) ++opens;
  for (size_t at = page.find("</script"); at != std::string::npos; at = page.find("</script", at + 1)) ++closes;
  EXPECT_EQ(opens, 2u);
  EXPECT_EQ(closes, 2u);
  // The data element round-trips to the exact model string.
  std::string open = "<script type=\"application/json\" id=\"trtlens-data\">";
  size_t start = page.find(open) + open.size();
  json d = json::parse(page.substr(start, page.find("</script>", start) - start));
  EXPECT_EQ(d["graphs"][0]["nodes"][1]["n"], "relu</script><img src=x onerror=alert(1)>");
}

}  // namespace
}  // namespace trtlens
