#include "render/graphviz.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "util/utf8.h"

namespace trtlens {
namespace {

// Graphviz's API takes char* for strings it does not modify.
char* cs(const std::string& s) { return const_cast<char*>(s.c_str()); }

// One Graphviz context for the process, never freed. Graphviz 2.42's pango
// plugin caches a pointer to the last font name, which the context owns: a
// context per layout left that pointer dangling for the next one (a
// use-after-free ASan reports from the second layout on). One context also
// loads the plugins once. Graphviz is not thread-safe: sessions hold the lock.
GVC_t* shared_context() {
  static GVC_t* gvc = gvContext();
  if (!gvc) throw std::runtime_error("graphviz: cannot create a context");
  return gvc;
}
std::mutex graphviz_lock;

struct GraphvizSession {
  std::lock_guard<std::mutex> hold{graphviz_lock};
  GVC_t* gvc = shared_context();
  Agraph_t* graph = nullptr;
  std::vector<Agnode_t*> nodes;
  std::vector<Agedge_t*> edges;

  GraphvizSession(const DotGraph& g, bool layout = true) {
    std::string name = "g";
    graph = agopen(cs(name), Agdirected, nullptr);
    for (const auto& [k, v] : g.graph_attrs) agsafeset(graph, cs(k), cs(v), cs(std::string()));
    for (const auto& [k, v] : g.node_defaults) agattr(graph, AGNODE, cs(k), cs(v));
    for (const auto& [k, v] : g.edge_defaults) agattr(graph, AGEDGE, cs(k), cs(v));
    std::unordered_map<std::string, Agnode_t*> by_id;
    for (const auto& n : g.nodes) {
      Agnode_t* an = agnode(graph, cs(n.id), 1);
      for (const auto& [k, v] : n.attrs) agsafeset(an, cs(k), cs(v), cs(std::string()));
      by_id[n.id] = an;
      nodes.push_back(an);
    }
    for (const auto& e : g.edges) {
      auto a = by_id.find(e.from), b = by_id.find(e.to);
      if (a == by_id.end() || b == by_id.end()) throw std::runtime_error("graphviz: edge to unknown node " + e.from + " -> " + e.to);
      // Unnamed edges: several edges may join the same pair of nodes.
      Agedge_t* ae = agedge(graph, a->second, b->second, nullptr, 1);
      for (const auto& [k, v] : e.attrs) agsafeset(ae, cs(k), cs(v), cs(std::string()));
      edges.push_back(ae);
    }
    if (layout && gvLayout(gvc, graph, "dot") != 0) throw std::runtime_error("graphviz: dot layout failed");
  }
  ~GraphvizSession() {
    if (graph) {
      gvFreeLayout(gvc, graph);  // a no-op without a layout
      agclose(graph);
    }
  }
  GraphvizSession(const GraphvizSession&) = delete;
  GraphvizSession& operator=(const GraphvizSession&) = delete;
};

}  // namespace

std::string dot_escape(std::string_view text) {
  std::string s = to_valid_utf8(text), r;
  r.reserve(s.size());
  for (char c : s) {
    if (c == '\\') r += "\\\\";
    else if (c == '\n') r += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) r += ' ';
    else r += c;
  }
  return r;
}

GraphLayout layout_graph(const DotGraph& g) {
  GraphvizSession s(g);
  GraphLayout out;
  boxf bb = GD_bb(s.graph);
  out.width = bb.UR.x - bb.LL.x;
  out.height = bb.UR.y - bb.LL.y;
  auto flip = [&](pointf p) { return std::pair<double, double>(p.x - bb.LL.x, bb.UR.y - p.y); };
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    Agnode_t* n = s.nodes[i];
    auto [x, y] = flip(ND_coord(n));
    out.nodes.push_back({g.nodes[i].id, x, y, ND_width(n) * 72.0, ND_height(n) * 72.0});
  }
  for (size_t i = 0; i < s.edges.size(); ++i) {
    EdgeRoute r{g.edges[i].from, g.edges[i].to, {}};
    const splines* spl = ED_spl(s.edges[i]);
    if (spl && spl->size > 0) {
      const bezier& bz = spl->list[0];
      for (int k = 0; k < bz.size; ++k) r.points.push_back(flip(bz.list[k]));
      if (bz.eflag) r.arrow_tip = flip(bz.ep);
      else if (!r.points.empty()) r.arrow_tip = r.points.back();
    }
    out.edges.push_back(std::move(r));
  }
  return out;
}

std::string render_graph(const DotGraph& g, const std::string& format) {
  if (format != "svg" && format != "png" && format != "pdf" && format != "dot")
    throw std::invalid_argument("graphviz: unknown output format " + format);
  // DOT text needs no layout (cgraph writes the graph as given), which keeps
  // it fast for engines too big to lay out.
  const bool dot = format == "dot";
  GraphvizSession s(g, !dot);
  char* data = nullptr;
  if (dot) {
    size_t size = 0;
    FILE* mem = open_memstream(&data, &size);
    if (!mem) throw std::runtime_error("graphviz: cannot write DOT text");
    int rc = agwrite(s.graph, mem);
    std::fclose(mem);
    std::string out(data ? data : "", size);
    std::free(data);
    if (rc != 0) throw std::runtime_error("graphviz: cannot write DOT text");
    return out;
  }
  unsigned int length = 0;
  if (gvRenderData(s.gvc, s.graph, format.c_str(), &data, &length) != 0 || !data)
    throw std::runtime_error("graphviz: " + format + " rendering failed");
  std::string out(data, length);
  gvFreeRenderData(data);
  return out;
}

std::string render_svg(const DotGraph& g) { return render_graph(g, "svg"); }

}  // namespace trtlens
