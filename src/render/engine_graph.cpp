// The plan's data-dependency graph for Graphviz.
#include <fmt/format.h>

#include <re2/re2.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "engine/internal.h"
#include "render/engine_render.h"
#include "trtlens/error.h"
#include "util/utf8.h"

namespace trtlens {

namespace {

std::string wrap(const std::string& s, size_t width) {
  // Long fused names ("a + b + c + ...") break at " + " to keep nodes narrow.
  std::string out, line;
  size_t p = 0;
  while (p < s.size()) {
    size_t q = s.find(" + ", p);
    std::string part = s.substr(p, q == std::string::npos ? std::string::npos : q + 3 - p);
    if (!line.empty() && line.size() + part.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += part;
    if (q == std::string::npos) break;
    p = q + 3;
  }
  out += line;
  if (out.size() > 400) out = out.substr(0, 397) + "...";
  return out;
}

}  // namespace

std::string engine_type_color(const std::string& type) {
  static const std::unordered_map<std::string, std::string> m = {
      {"Convolution", "#4682B4"}, {"Deconvolution", "#7B68EE"}, {"ConvActPool", "#6495ED"},
      {"MatrixMultiply", "#1E90FF"}, {"gemm", "#1E90FF"},       {"Reformat", "#00FFFF"},
      {"Shuffle", "#BC8F8F"},     {"Slice", "#FFA500"},         {"Scale", "#8FBC8B"},
      {"Quantize", "#6B8E23"},    {"Pooling", "#3CB371"},       {"PluginV2", "#C71585"},
      {"PointWise", "#9ACD32"},   {"ElementWise", "#9ACD32"},   {"Reduce", "#90EE90"},
      {"SoftMax", "#DA70D6"},     {"Myelin", "#B39C4D"},        {"kgen", "#B39C4D"},
      {"NonZero", "#98FB98"},     {"TrainStation", "#FFA07A"},
  };
  auto it = m.find(type);
  return it == m.end() ? "#BEBEBE" : it->second;
}

std::string engine_precision_color(const std::string& p) {
  if (p == "INT8") return "#76B900";  // NVIDIA green
  if (p == "FP32") return "#FF0000";
  if (p == "FP16") return "#FFA500";
  if (p == "BF16") return "#D2691E";
  if (p == "INT32") return "#D3D3D3";
  if (p == "FP8") return "#00BFFF";
  return "#808080";
}

DotGraph engine_dot_graph(const EnginePlan& plan, const EngineGraphOptions& opt) {
  if (opt.color_by != "type" && opt.color_by != "precision")
    throw UsageError("--color-by " + opt.color_by + ": expected type or precision");
  // RE2 matches in time linear in the name (std::regex recursed per character
  // and overflowed the stack on a 50,000-character layer name).
  auto compile = [](const std::string& what, const std::string& re) -> std::unique_ptr<RE2> {
    if (re.empty()) return nullptr;
    auto r = std::make_unique<RE2>(re, RE2::Quiet);
    if (!r->ok())
      throw UsageError(fmt::format("{} {}: not a regular expression ({})", what, printable_line(re),
                                   printable_line(r->error())));
    return r;
  };
  const auto highlight = compile("--highlight", opt.highlight);
  const auto select = compile("--select", opt.select);

  DotGraph g;
  g.graph_attrs = {{"rankdir", "TB"}, {"fontname", "Helvetica"}, {"tooltip", dot_escape(plan.name)}};
  g.node_defaults = {{"shape", "box"}, {"style", "rounded,filled"}, {"fontname", "Helvetica"}, {"fontsize", "10"}};
  g.edge_defaults = {{"fontname", "Helvetica"}, {"fontsize", "8"}, {"penwidth", "2"}};
  const size_t n = plan.layers.size();
  const std::vector<EngineEdge> edges = index_plan(plan).edges;

  // The layers drawn: all, or those --select names and their neighbourhood.
  std::vector<char> keep(n, select ? 0 : 1);
  size_t kept = n;
  if (select) {
    std::vector<std::vector<int>> adj(n);
    for (const auto& e : edges)
      if (e.from >= 0 && e.to >= 0) adj[e.from].push_back(e.to), adj[e.to].push_back(e.from);
    std::vector<int> frontier;
    for (size_t i = 0; i < n; ++i)
      if (RE2::PartialMatch(plan.layers[i].name, *select)) keep[i] = 1, frontier.push_back(static_cast<int>(i));
    if (frontier.empty()) throw UsageError("--select " + printable_line(opt.select) + ": no layer name matches");
    for (int hop = 0; hop < opt.hops && !frontier.empty(); ++hop) {
      std::vector<int> next;
      for (int i : frontier)
        for (int j : adj[i])
          if (!keep[j]) keep[j] = 1, next.push_back(j);
      frontier = std::move(next);
    }
    kept = static_cast<size_t>(std::count(keep.begin(), keep.end(), 1));
    g.graph_attrs.push_back({"label", dot_escape(fmt::format("{}: {} of {} layers (--select {} --hops {})", plan.name,
                                                             kept, n, opt.select, opt.hops))});
    g.graph_attrs.push_back({"labelloc", "t"});
  }
  if (opt.max_layers > 0 && kept > opt.max_layers)
    throw UsageError(fmt::format(
        "{}: {} layers to draw, more than the {} Graphviz lays out in seconds; narrow the drawing with --select "
        "REGEX [--hops N], write .dot (no layout), use `trtlens engine report` (draws big plans one region at a "
        "time), or --force (minutes)",
        plan.files.graph.empty() ? plan.name : plan.files.graph, kept, opt.max_layers));

  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    const auto& l = plan.layers[i];
    std::string label = wrap(l.name, 40) + "\n" + l.type;
    if (opt.color_by == "precision") label += " · " + (l.precision.empty() ? std::string("-") : l.precision);
    if (plan.has_profile) label += l.timed ? fmt::format("\n{} ms", engine_detail::ms_text(l.avg_ms)) : "\nno timing";
    std::string tip = fmt::format("{}\ntype: {} ({})\nprecision: {}", l.name, l.type, l.subtype,
                                  l.precision.empty() ? "-" : l.precision);
    if (!l.tactic.empty()) tip += "\ntactic: " + l.tactic;
    if (plan.has_profile)
      tip += fmt::format("\nlatency: {} ms avg, {} ms median, {}", engine_detail::ms_text(l.avg_ms),
                         engine_detail::ms_text(l.median_ms), engine_detail::percent_text(l.percent));
    if (!l.origin.empty()) tip += "\norigin: " + l.origin;
    for (const auto& t : l.inputs) tip += fmt::format("\nin: {} {} {}", t.name, t.short_format(), engine_detail::dims_text(t.dims));
    for (const auto& t : l.outputs) tip += fmt::format("\nout: {} {} {}", t.name, t.short_format(), engine_detail::dims_text(t.dims));
    if (!l.metadata.empty()) tip += "\nmetadata: " + l.metadata;
    try {
      auto attrs = nlohmann::ordered_json::parse(l.attributes_json);
      for (auto it = attrs.begin(); it != attrs.end(); ++it) {
        std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (v.size() < 120) tip += fmt::format("\n{}: {}", it.key(), v);
      }
    } catch (const nlohmann::json::exception&) {
    }
    const bool by_type = opt.color_by == "type";
    // TREx colours a reformat of Origin QDQ (an unfused Q/DQ) as Quantize
    // (release/10.16:tools/experimental/trt-engine-explorer/trex/graphing.py:598-605).
    const bool qdq = l.is_reformat() && l.origin == "QDQ";
    std::string fill = by_type ? engine_type_color(qdq ? "Quantize" : l.type) : engine_precision_color(l.precision);
    bool dark = by_type ? l.type == "Convolution" || l.type == "Deconvolution" || l.type == "PluginV2"
                        : l.precision == "FP32" || l.precision.empty();
    DotAttrs a{{"label", dot_escape(label)}, {"fillcolor", fill}, {"tooltip", dot_escape(tip)},
               {"fontcolor", dark ? "white" : "black"}};
    if (highlight && RE2::PartialMatch(l.name, *highlight)) {
      a.push_back({"color", "#FF00FF"});
      a.push_back({"penwidth", "5"});
    }
    g.nodes.push_back({fmt::format("L{}", i), std::move(a)});
  }
  std::unordered_map<std::string, std::string> io_node;
  auto tensor_edge_attrs = [&](const EngineTensor& t) {
    DotAttrs a{{"color", engine_precision_color(t.precision)},
               {"label", dot_escape(engine_detail::dims_text(t.dims) + "\n" + t.short_format())},
               {"tooltip", dot_escape(fmt::format("{}\n{}\n{}", t.name, t.format, engine_detail::dims_text(t.dims)))}};
    return a;
  };
  auto io = [&](const std::string& name, bool input) {
    auto it = io_node.find(name);
    if (it != io_node.end()) return it->second;
    std::string id = fmt::format("T{}", io_node.size());
    io_node.emplace(name, id);
    g.nodes.push_back({id,
                       {{"label", dot_escape((input ? "input: " : "output: ") + name)},
                        {"shape", "ellipse"},
                        {"style", "filled"},
                        {"fillcolor", "#F0F0F0"},
                        {"tooltip", dot_escape(name)}}});
    return id;
  };
  for (const auto& e : edges) {
    if ((e.to >= 0 && !keep[e.to]) || (e.from >= 0 && !keep[e.from])) continue;
    std::string from = e.from >= 0 ? fmt::format("L{}", e.from) : io(e.tensor->name, true);
    std::string to = e.to >= 0 ? fmt::format("L{}", e.to) : io(e.tensor->name, false);
    g.edges.push_back({from, to, tensor_edge_attrs(*e.tensor)});
  }
  return g;
}

}  // namespace trtlens
