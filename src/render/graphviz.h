// Graph layout through Graphviz (libgvc/cgraph, the "dot" engine).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trtlens {

using DotAttrs = std::vector<std::pair<std::string, std::string>>;  // Graphviz attribute name, value

struct DotNode {
  std::string id;  // unique within the graph
  DotAttrs attrs;  // e.g. {"label","Conv"}, {"shape","box"}, {"fillcolor","#..."}, {"tooltip","..."}
};
struct DotEdge {
  std::string from, to;  // node ids
  DotAttrs attrs;
};
struct DotGraph {
  DotAttrs graph_attrs;  // e.g. {"rankdir","TB"}
  DotAttrs node_defaults, edge_defaults;
  std::vector<DotNode> nodes;
  std::vector<DotEdge> edges;
};

// Node and edge geometry after layout, in points (1/72 inch), origin top-left,
// y growing downwards (as in the SVG Graphviz writes).
struct NodeBox {
  std::string id;
  double x = 0, y = 0;           // centre
  double width = 0, height = 0;
};
struct EdgeRoute {
  std::string from, to;
  std::vector<std::pair<double, double>> points;  // cubic B-spline control points (1 + 3k points)
  std::pair<double, double> arrow_tip{0, 0};       // where the arrowhead points (at the head node)
};
struct GraphLayout {
  double width = 0, height = 0;
  std::vector<NodeBox> nodes;    // same order as DotGraph::nodes
  std::vector<EdgeRoute> edges;  // same order as DotGraph::edges
};

// `s` as a Graphviz escString (labels, tooltips, URLs): valid UTF-8, each backslash
// doubled (it starts an escape such as \N), a newline as "\n", other control
// characters as spaces.
std::string dot_escape(std::string_view s);

// Lays `g` out with dot. Throws std::runtime_error if Graphviz fails.
GraphLayout layout_graph(const DotGraph& g);
// Lays `g` out with dot and renders it as a standalone SVG document.
// Throws std::runtime_error if Graphviz fails.
std::string render_svg(const DotGraph& g);
// Renders `g` as "svg", "png" or "pdf" (laid out with dot; bytes of the file)
// or "dot" (DOT text, not laid out). Throws std::invalid_argument for another
// format, std::runtime_error if Graphviz fails (a missing plugin included).
std::string render_graph(const DotGraph& g, const std::string& format);

}  // namespace trtlens
