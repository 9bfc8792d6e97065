#include <map>
#include <tuple>

#include "trtlens/compat.h"

namespace trtlens {

namespace {

struct Key {
  std::string graph, node;
  int occurrence;  // the n-th node of this (graph, node) key
  bool operator<(const Key& o) const {
    return std::tie(graph, node, occurrence) < std::tie(o.graph, o.node, o.occurrence);
  }
};

// The diff's match key (ModelDiffEntry::node): the name, or "<op_type> -> <first output>".
std::string diff_key(const Node& n) {
  if (!n.name.empty()) return n.name;
  return n.op_type + " -> " + (n.outputs.empty() ? std::string("?") : n.outputs[0]);
}

// Each row under its key: (graph, node, n-th of that pair).
std::map<Key, const DiffRow*> index_rows(const std::vector<DiffRow>& rows) {
  std::map<Key, const DiffRow*> out;
  std::map<std::pair<std::string, std::string>, int> seen;
  for (const DiffRow& r : rows) {
    int occurrence = seen[{r.graph, r.node}]++;
    out.emplace(Key{r.graph, r.node, occurrence}, &r);
  }
  return out;
}

}  // namespace

std::vector<DiffRow> diff_rows(const Model& m, const Annotations& a) {
  std::vector<DiffRow> out;
  out.reserve(a.nodes.size());
  for (const NodeVerdict& v : a.nodes) {
    const Graph& g = m.graphs[static_cast<size_t>(v.graph)];
    const Node& n = g.nodes[static_cast<size_t>(v.index)];
    out.push_back({g.path, diff_key(n), n.op_type, &v});
  }
  return out;
}

ModelDiff diff_models(const std::vector<DiffRow>& before, const std::vector<DiffRow>& after) {
  auto old_nodes = index_rows(before);
  auto new_nodes = index_rows(after);
  ModelDiff d;
  for (const auto& [key, row] : new_nodes) {
    auto it = old_nodes.find(key);
    if (it == old_nodes.end()) {
      d.added.push_back({key.graph, key.node, row->op_type, nullptr, row->verdict});
      continue;
    }
    ++d.kept;
    if (it->second->verdict->verdict != row->verdict->verdict || it->second->op_type != row->op_type)
      d.changed.push_back({key.graph, key.node, row->op_type, it->second->verdict, row->verdict});
  }
  for (const auto& [key, row] : old_nodes)
    if (!new_nodes.count(key)) d.removed.push_back({key.graph, key.node, row->op_type, row->verdict, nullptr});
  return d;
}

ModelDiff diff_models(const Model& before, const Annotations& a, const Model& after, const Annotations& b) {
  return diff_models(diff_rows(before, a), diff_rows(after, b));
}

}  // namespace trtlens
