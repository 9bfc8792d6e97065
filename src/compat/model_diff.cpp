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

// Each node of `m` under its key, pointing at its verdict in `a`.
std::map<Key, std::pair<const Node*, const NodeVerdict*>> index_nodes(const Model& m, const Annotations& a) {
  std::map<Key, std::pair<const Node*, const NodeVerdict*>> out;
  std::map<std::pair<std::string, std::string>, int> seen;
  for (const NodeVerdict& v : a.nodes) {
    const Graph& g = m.graphs[v.graph];
    const Node& n = g.nodes[v.index];
    std::string label = diff_key(n);
    int occurrence = seen[{g.path, label}]++;
    out.emplace(Key{g.path, std::move(label), occurrence}, std::make_pair(&n, &v));
  }
  return out;
}

}  // namespace

ModelDiff diff_models(const Model& before, const Annotations& a, const Model& after, const Annotations& b) {
  auto old_nodes = index_nodes(before, a);
  auto new_nodes = index_nodes(after, b);
  ModelDiff d;
  for (const auto& [key, nv] : new_nodes) {
    auto it = old_nodes.find(key);
    if (it == old_nodes.end()) {
      d.added.push_back({key.graph, key.node, nv.first->op_type, nullptr, nv.second});
      continue;
    }
    ++d.kept;
    if (it->second.second->verdict != nv.second->verdict || it->second.first->op_type != nv.first->op_type)
      d.changed.push_back({key.graph, key.node, nv.first->op_type, it->second.second, nv.second});
  }
  for (const auto& [key, nv] : old_nodes)
    if (!new_nodes.count(key)) d.removed.push_back({key.graph, key.node, nv.first->op_type, nv.second, nullptr});
  return d;
}

}  // namespace trtlens
