// The plan's data-dependency graph for Graphviz.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "engine/internal.h"
#include "render/engine_render.h"

namespace trtlens {

namespace {

// Graphviz escString: a backslash starts an escape, so double it.
std::string esc(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (char c : s) {
    if (c == '\\') r += "\\\\";
    else if (c == '\n') r += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) r += ' ';
    else r += c;
  }
  return r;
}

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

DotGraph engine_dot_graph(const EnginePlan& plan) {
  DotGraph g;
  g.graph_attrs = {{"rankdir", "TB"}, {"fontname", "Helvetica"}, {"tooltip", esc(plan.name)}};
  g.node_defaults = {{"shape", "box"}, {"style", "rounded,filled"}, {"fontname", "Helvetica"}, {"fontsize", "10"}};
  g.edge_defaults = {{"fontname", "Helvetica"}, {"fontsize", "8"}, {"penwidth", "2"}};
  std::unordered_set<std::string> io_names;
  for (const auto& t : plan.io) io_names.insert(t.name);

  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const auto& l = plan.layers[i];
    std::string label = wrap(l.name, 40) + "\n" + l.type;
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
        std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
        if (v.size() < 120) tip += fmt::format("\n{}: {}", it.key(), v);
      }
    } catch (const nlohmann::json::exception&) {
    }
    std::string fill = engine_type_color(l.type);
    g.nodes.push_back({fmt::format("L{}", i),
                       {{"label", esc(label)}, {"fillcolor", fill}, {"tooltip", esc(tip)},
                        {"fontcolor", l.type == "Convolution" || l.type == "Deconvolution" || l.type == "PluginV2" ? "white" : "black"}}});
  }
  // Each read connects to the latest earlier writer of the tensor (layers are
  // in execution order); tensors nobody writes are engine inputs when named so.
  std::unordered_map<std::string, int> last_writer;
  std::unordered_map<std::string, std::string> io_node;
  auto tensor_edge_attrs = [&](const EngineTensor& t) {
    DotAttrs a{{"color", engine_precision_color(t.precision)},
               {"label", esc(engine_detail::dims_text(t.dims) + "\n" + t.short_format())},
               {"tooltip", esc(fmt::format("{}\n{}\n{}", t.name, t.format, engine_detail::dims_text(t.dims)))}};
    return a;
  };
  auto io = [&](const std::string& name, bool input) {
    auto it = io_node.find(name);
    if (it != io_node.end()) return it->second;
    std::string id = fmt::format("T{}", io_node.size());
    io_node.emplace(name, id);
    g.nodes.push_back({id,
                       {{"label", esc((input ? "input: " : "output: ") + name)},
                        {"shape", "ellipse"},
                        {"style", "filled"},
                        {"fillcolor", "#F0F0F0"},
                        {"tooltip", esc(name)}}});
    return id;
  };
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const auto& l = plan.layers[i];
    for (const auto& t : l.inputs) {
      auto w = last_writer.find(t.name);
      std::string from;
      if (w != last_writer.end()) from = fmt::format("L{}", w->second);
      else if (io_names.count(t.name) || plan.io.empty()) from = io(t.name, true);
      else continue;  // a constant or Myelin-internal weight: TREx hides these too
      g.edges.push_back({from, fmt::format("L{}", i), tensor_edge_attrs(t)});
    }
    for (const auto& t : l.outputs) last_writer[t.name] = static_cast<int>(i);
  }
  for (size_t i = 0; i < plan.layers.size(); ++i)
    for (const auto& t : plan.layers[i].outputs)
      // The last writer of an engine output feeds the output node.
      if (io_names.count(t.name) && last_writer[t.name] == static_cast<int>(i))
        g.edges.push_back({fmt::format("L{}", i), io(t.name, false), tensor_edge_attrs(t)});
  return g;
}

}  // namespace trtlens
