// The release × precision matrix, verdict diffs between two runtimes, and the DLA placement of both.
#include <algorithm>

#include "compat/annotator.h"
#include "trtlens/target.h"

namespace trtlens {

Matrix compute_matrix(const Model& model, const KnowledgeBase& kb) { return Annotator(model, kb).matrix(); }

std::vector<VerdictChange> diff_annotations(const Annotations& a, const Annotations& b) {
  std::vector<VerdictChange> out;
  for (size_t i = 0; i < a.nodes.size() && i < b.nodes.size(); ++i)
    if (a.nodes[i].verdict != b.nodes[i].verdict)
      out.push_back({a.nodes[i].graph, a.nodes[i].index, &a.nodes[i], &b.nodes[i]});
  return out;
}

double DlaShare::node_percent() const {
  return placed_nodes() > 0 ? 100.0 * dla_nodes / placed_nodes() : 0.0;
}

double DlaShare::mac_percent() const {
  return total_macs > 0 ? 100.0 * static_cast<double>(dla_macs) / static_cast<double>(total_macs) : 0.0;
}

DlaShare dla_share(const DlaPlacement& d) {
  return {d.dla_nodes, d.gpu_nodes, d.unsupported_nodes, d.dla_macs, d.total_macs, d.transitions, d.loadables,
          d.max_loadables};
}

std::vector<PlacementChange> diff_placements(const DlaPlacement& a, const DlaPlacement& b) {
  std::vector<PlacementChange> out;
  for (size_t i = 0; i < a.nodes.size() && i < b.nodes.size(); ++i)
    if (a.nodes[i].verdict != b.nodes[i].verdict) out.push_back({a.nodes[i].index, &a.nodes[i], &b.nodes[i]});
  return out;
}

Matrix compute_dla_matrix(const Model& model, const KnowledgeBase& kb, const Target& t, const TargetCatalog& catalog) {
  if (!t.dla) return compute_target_matrix(model, kb, t, catalog);
  Matrix mx;
  mx.target = &t;
  const Annotator annotator(model, kb);
  // A placement's counts depend on the release and, per main-graph node, on whether it imports and the precision it
  // runs at (DlaJudge reads nothing else of a verdict): cells of one release whose nodes agree on both share one
  // placement (on Orin fp32, bf16 and fp8 all run at FP32). The target without its DLA narrows precisions only.
  Target narrow_only = t;
  narrow_only.dla = false;
  size_t main_nodes = model.graphs.empty() ? 0 : model.graphs[0].nodes.size();
  struct Placed {
    std::vector<std::pair<bool, std::string_view>> key;  // per main-graph node: does not import, precision
    DlaShare share;
  };
  for (const Release& r : kb.releases()) {
    if (!t.runs_release(r) || !catalog.dla_rules(r.name)) continue;  // the releases compute_target_matrix keeps
    auto imports = annotator.import_release(r);
    std::vector<Placed> placed;
    for (Precision p : kAllPrecisions) {
      Annotations a = annotator.run(r, p, imports.get());
      apply_target(model, a, narrow_only, catalog);
      std::vector<std::pair<bool, std::string_view>> key;
      key.reserve(main_nodes);
      for (size_t i = 0; i < main_nodes && i < a.nodes.size(); ++i)
        key.emplace_back(a.nodes[i].verdict == Verdict::UNSUPPORTED, a.nodes[i].precision);
      auto same = std::find_if(placed.begin(), placed.end(), [&key](const Placed& x) { return x.key == key; });
      if (same == placed.end()) {
        apply_target(model, a, t, catalog);  // narrowing again changes nothing; places (the release has DLA facts)
        same = placed.insert(placed.end(), {std::move(key), dla_share(*a.dla)});
      }
      mx.cells.push_back({&r, p, a.summary, a.converts});
      mx.dla.push_back(same->share);
      if (a.converts && !mx.min_converting) mx.min_converting = &r;
    }
  }
  return mx;
}

}  // namespace trtlens
