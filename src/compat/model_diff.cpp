#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "trtlens/compat.h"
#include "util/sha256.h"

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

// The attributes as one canonical text (sorted by name), digested: rows stay small and
// compare in one string comparison.
std::string attributes_digest(const Node& n) {
  if (n.attributes.empty()) return "";
  std::vector<const Attribute*> sorted;
  for (const Attribute& a : n.attributes) sorted.push_back(&a);
  std::sort(sorted.begin(), sorted.end(), [](const Attribute* x, const Attribute* y) { return x->name < y->name; });
  std::string text;
  for (const Attribute* a : sorted) {
    text += fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", a->name, static_cast<int>(a->kind), a->i,
                        a->f, a->s, fmt::join(a->ints, ","), fmt::join(a->floats, ","),
                        fmt::join(a->strings, "\x1e"), static_cast<int>(a->tensor_type));
    text += fmt::format("\x1f{}\x1f", fmt::join(a->tensor_dims, ","));
    if (a->tensor_values) text += fmt::format("{}", fmt::join(*a->tensor_values, ","));
    text += '\x1d';
  }
  return sha256_hex(text).substr(0, 16);
}

// Each row under its key: (graph, node, n-th of that pair) -> position in `rows`.
std::map<Key, int> index_rows(const std::vector<DiffRow>& rows) {
  std::map<Key, int> out;
  std::map<std::pair<std::string, std::string>, int> seen;
  for (size_t i = 0; i < rows.size(); ++i) {
    const DiffRow& r = rows[i];
    int occurrence = seen[{r.graph, r.node}]++;
    out.emplace(Key{r.graph, r.node, occurrence}, static_cast<int>(i));
  }
  return out;
}

// The rows of two versions matched by key: for each row of one side, its row on the other (-1: none).
struct Matching {
  std::vector<int> old_of_new, new_of_old;
  Matching(const std::vector<DiffRow>& before, const std::vector<DiffRow>& after)
      : old_of_new(after.size(), -1), new_of_old(before.size(), -1) {
    auto old_nodes = index_rows(before);
    for (const auto& [key, i] : index_rows(after))
      if (auto it = old_nodes.find(key); it != old_nodes.end()) {
        old_of_new[static_cast<size_t>(i)] = it->second;
        new_of_old[static_cast<size_t>(it->second)] = i;
      }
  }
};

// The names of the nodes feeding each input ("" for none): what "inputs" compares, so
// that a renumbered tensor name alone is not an edit.
std::vector<std::string> producer_names(const std::vector<DiffRow>& rows, const DiffRow& r) {
  std::vector<std::string> out;
  for (int p : r.producers)
    out.push_back(p >= 0 && static_cast<size_t>(p) < rows.size() ? rows[static_cast<size_t>(p)].node : "");
  return out;
}

std::vector<std::string> edits_of(const std::vector<DiffRow>& before, const DiffRow& o,
                                  const std::vector<DiffRow>& after, const DiffRow& n) {
  std::vector<std::string> out;
  if (o.op_type != n.op_type) out.push_back("op_type");
  if (o.attributes != n.attributes) out.push_back("attributes");
  if (producer_names(before, o) != producer_names(after, n)) out.push_back("inputs");
  return out;
}

// For each row, the rows reading one of its outputs (each once, ascending).
std::vector<std::vector<int>> consumers_of(const std::vector<DiffRow>& rows) {
  std::vector<std::vector<int>> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (int p : rows[i].producers)
      if (p >= 0 && static_cast<size_t>(p) < rows.size() &&
          (out[static_cast<size_t>(p)].empty() || out[static_cast<size_t>(p)].back() != static_cast<int>(i)))
        out[static_cast<size_t>(p)].push_back(static_cast<int>(i));
  return out;
}

}  // namespace

std::string_view diff_node_kind_name(DiffGraphNode::Kind k) {
  switch (k) {
    case DiffGraphNode::Kind::Added: return "added";
    case DiffGraphNode::Kind::Removed: return "removed";
    case DiffGraphNode::Kind::Edited: return "edited";
    case DiffGraphNode::Kind::Context: return "context";
  }
  return "context";
}

std::vector<DiffRow> diff_rows(const Model& m, const Annotations& a) {
  std::vector<DiffRow> out;
  out.reserve(a.nodes.size());
  // Row position of each annotated node, per graph: producers point at rows.
  std::vector<std::vector<int>> row_of(m.graphs.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeVerdict& v = a.nodes[i];
    auto& rows = row_of[static_cast<size_t>(v.graph)];
    if (rows.empty()) rows.assign(m.graphs[static_cast<size_t>(v.graph)].nodes.size(), -1);
    rows[static_cast<size_t>(v.index)] = static_cast<int>(i);
  }
  for (const NodeVerdict& v : a.nodes) {
    const Graph& g = m.graphs[static_cast<size_t>(v.graph)];
    const Node& n = g.nodes[static_cast<size_t>(v.index)];
    DiffRow r{g.path, diff_key(n), n.op_type, &v, {}, attributes_digest(n)};
    const auto& rows = row_of[static_cast<size_t>(v.graph)];
    for (TensorId t : g.input_ids(n)) {
      int p = t >= 0 && static_cast<size_t>(t) < g.index.producer.size() ? g.index.producer[static_cast<size_t>(t)]
                                                                          : -1;
      r.producers.push_back(p >= 0 ? rows[static_cast<size_t>(p)] : -1);
    }
    out.push_back(std::move(r));
  }
  return out;
}

ModelDiff diff_models(const std::vector<DiffRow>& before, const std::vector<DiffRow>& after) {
  Matching match(before, after);
  auto old_nodes = index_rows(before);
  auto new_nodes = index_rows(after);
  ModelDiff d;
  for (const auto& [key, i] : new_nodes) {
    const DiffRow& row = after[static_cast<size_t>(i)];
    int o = match.old_of_new[static_cast<size_t>(i)];
    if (o < 0) {
      d.added.push_back({key.graph, key.node, row.op_type, nullptr, row.verdict, {}});
      continue;
    }
    ++d.kept;
    const DiffRow& old = before[static_cast<size_t>(o)];
    std::vector<std::string> edits = edits_of(before, old, after, row);
    if (old.verdict->verdict != row.verdict->verdict || old.op_type != row.op_type)
      d.changed.push_back({key.graph, key.node, row.op_type, old.verdict, row.verdict, edits});
    if (!edits.empty()) d.edited.push_back({key.graph, key.node, row.op_type, old.verdict, row.verdict, edits});
  }
  for (const auto& [key, i] : old_nodes)
    if (match.new_of_old[static_cast<size_t>(i)] < 0)
      d.removed.push_back({key.graph, key.node, before[static_cast<size_t>(i)].op_type,
                           before[static_cast<size_t>(i)].verdict, nullptr, {}});
  return d;
}

ModelDiff diff_models(const Model& before, const Annotations& a, const Model& after, const Annotations& b) {
  return diff_models(diff_rows(before, a), diff_rows(after, b));
}

DiffGraph diff_graph(const std::vector<DiffRow>& before, const std::vector<DiffRow>& after, size_t max_changed) {
  using Kind = DiffGraphNode::Kind;
  Matching match(before, after);
  // A node of either version as (side, row): a kept node by its newer row, so both sides name it once.
  struct Ref {
    bool old_side;
    int row;
    bool operator<(const Ref& o) const { return std::tie(old_side, row) < std::tie(o.old_side, o.row); }
  };
  auto canonical = [&](bool old_side, int row) {
    if (old_side && match.new_of_old[static_cast<size_t>(row)] >= 0)
      return Ref{false, match.new_of_old[static_cast<size_t>(row)]};
    return Ref{old_side, row};
  };

  // The changed nodes, grouped by op_type.
  struct Changed {
    Ref ref;
    Kind kind;
    std::vector<std::string> edits;
  };
  std::map<std::string, std::vector<Changed>> groups;
  for (size_t i = 0; i < before.size(); ++i)
    if (match.new_of_old[i] < 0) groups[before[i].op_type].push_back({{true, static_cast<int>(i)}, Kind::Removed, {}});
  for (size_t i = 0; i < after.size(); ++i) {
    int o = match.old_of_new[i];
    if (o < 0) continue;
    auto edits = edits_of(before, before[static_cast<size_t>(o)], after, after[i]);
    if (!edits.empty()) groups[after[i].op_type].push_back({{false, static_cast<int>(i)}, Kind::Edited, edits});
  }
  for (size_t i = 0; i < after.size(); ++i)
    if (match.old_of_new[i] < 0) groups[after[i].op_type].push_back({{false, static_cast<int>(i)}, Kind::Added, {}});
  std::vector<std::pair<std::string, std::vector<Changed>>> ordered(std::make_move_iterator(groups.begin()),
                                                                    std::make_move_iterator(groups.end()));
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& x, const auto& y) { return x.second.size() > y.second.size(); });

  DiffGraph g;
  std::map<Ref, int> drawn;  // -> index into g.nodes
  std::vector<Ref> refs;     // of g.nodes
  auto add_node = [&](Ref ref, Kind kind, std::vector<std::string> edits) {
    const DiffRow& r = ref.old_side ? before[static_cast<size_t>(ref.row)] : after[static_cast<size_t>(ref.row)];
    const bool in_before = ref.old_side || match.old_of_new[static_cast<size_t>(ref.row)] >= 0;
    drawn.emplace(ref, static_cast<int>(g.nodes.size()));
    refs.push_back(ref);
    g.nodes.push_back({kind, r.graph, r.node, r.op_type, in_before, !ref.old_side, r.verdict, std::move(edits)});
  };
  // A node's neighbours in one version (producers of its inputs, consumers of its outputs).
  const auto old_consumers = consumers_of(before), new_consumers = consumers_of(after);
  auto neighbours = [&](Ref ref, bool old_side, auto&& visit) {
    int row = ref.old_side == old_side ? ref.row : match.old_of_new[static_cast<size_t>(ref.row)];
    if (row < 0) return;
    const auto& rows = old_side ? before : after;
    for (int p : rows[static_cast<size_t>(row)].producers)
      if (p >= 0) visit(canonical(old_side, p));
    for (int c : (old_side ? old_consumers : new_consumers)[static_cast<size_t>(row)]) visit(canonical(old_side, c));
  };
  auto holds = [&](Ref ref, bool old_side) {
    return old_side ? ref.old_side || match.old_of_new[static_cast<size_t>(ref.row)] >= 0 : !ref.old_side;
  };

  // Seeds in group order; each draws its connected changed nodes (breadth first) before the
  // next seed, so a bounded drawing shows whole neighbourhoods ("HardSwish became HardSigmoid
  // and Mul, and its consumer reads the Mul") rather than one op_type's nodes scattered apart.
  std::vector<Changed*> order;
  std::map<Ref, Changed*> changed_at;
  for (auto& [op, members] : ordered)
    for (Changed& c : members) {
      order.push_back(&c);
      changed_at.emplace(c.ref, &c);
    }
  g.changed = order.size();
  std::set<Ref> taken;
  for (Changed* seed : order) {
    if (g.drawn_changed >= max_changed) break;
    if (taken.count(seed->ref)) continue;
    std::deque<Changed*> queue{seed};
    taken.insert(seed->ref);
    while (!queue.empty() && g.drawn_changed < max_changed) {
      Changed* c = queue.front();
      queue.pop_front();
      add_node(c->ref, c->kind, std::move(c->edits));
      ++g.drawn_changed;
      for (bool old_side : {true, false})
        if (holds(c->ref, old_side))
          neighbours(c->ref, old_side, [&](Ref nb) {
            auto it = changed_at.find(nb);
            if (it != changed_at.end() && taken.insert(nb).second) queue.push_back(it->second);
          });
    }
    for (Changed* queued : queue) taken.erase(queued->ref);  // past the bound: not drawn
  }
  std::map<std::string, size_t> left;
  for (Changed* c : order)
    if (!drawn.count(c->ref)) {
      const auto& rows = c->ref.old_side ? before : after;
      ++left[rows[static_cast<size_t>(c->ref.row)].op_type];
    }
  g.not_drawn.assign(left.begin(), left.end());
  std::stable_sort(g.not_drawn.begin(), g.not_drawn.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });

  // The unchanged nodes one hop from a drawn changed node, in the versions holding it.
  std::set<Ref> left_out;
  const size_t changed_drawn = g.nodes.size();
  for (size_t i = 0; i < changed_drawn; ++i) {
    const bool in_before = g.nodes[i].in_before, in_after = g.nodes[i].in_after;  // g.nodes grows below
    for (bool old_side : {true, false}) {
      if ((old_side && !in_before) || (!old_side && !in_after)) continue;
      neighbours(refs[i], old_side, [&](Ref nb) {
        if (drawn.count(nb) || changed_at.count(nb)) return;  // drawn, or a changed node over the bound
        if (g.nodes.size() - changed_drawn < max_changed) add_node(nb, Kind::Context, {});
        else left_out.insert(nb);
      });
    }
  }
  g.context_not_drawn = left_out.size();

  // Edges between drawn nodes, per version; an edge in both versions is one edge.
  std::map<std::pair<int, int>, size_t> edge_at;
  for (const auto& [ref, to] : drawn)
    for (bool old_side : {true, false}) {
      const DiffGraphNode& n = g.nodes[static_cast<size_t>(to)];
      if ((old_side && !n.in_before) || (!old_side && !n.in_after)) continue;
      int row = ref.old_side == old_side ? ref.row : match.old_of_new[static_cast<size_t>(ref.row)];
      if (row < 0) continue;
      for (int p : (old_side ? before : after)[static_cast<size_t>(row)].producers) {
        if (p < 0) continue;
        auto from = drawn.find(canonical(old_side, p));
        if (from == drawn.end()) continue;
        auto [it, fresh] = edge_at.emplace(std::pair(from->second, to), g.edges.size());
        if (fresh) g.edges.push_back({from->second, to, false, false});
        (old_side ? g.edges[it->second].in_before : g.edges[it->second].in_after) = true;
      }
    }
  return g;
}

}  // namespace trtlens
