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
  return {d.dla_nodes,   d.gpu_nodes,   d.unsupported_nodes, d.dla_macs,
          d.total_macs,  d.macs_unknown_nodes, d.transitions, d.loadables, d.max_loadables};
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
  // A placement's counts depend on the release, the precision asked for and, per main-graph node, on whether it
  // imports and the precision it runs at (DlaJudge reads nothing else of a verdict). fp32, bf16 and fp8 ask for a
  // precision the DLA has no layers for (data/targets/dla: general precision FP16|INT8), so the judge reads only the
  // nodes' own precisions there: cells of one release at those that agree on every node share one placement (on
  // Orin all three run at FP32): the first is placed, the others narrowed by the target without its DLA and compared.
  // fp16, int8 and best are placed each.
  Target narrow_only = t;
  narrow_only.dla = false;
  size_t main_nodes = model.graphs.empty() ? 0 : model.graphs[0].nodes.size();
  auto asked_class = [](Precision p) {
    return p == Precision::FP32 || p == Precision::BF16 || p == Precision::FP8 ? Precision::FP32 : p;
  };
  struct Placed {
    Precision asked;                                     // asked_class of the cell's precision
    std::vector<std::pair<bool, std::string_view>> key;  // per main-graph node: does not import, precision
    DlaShare share;
  };
  auto key_of = [main_nodes](const Annotations& a) {
    std::vector<std::pair<bool, std::string_view>> key;
    key.reserve(main_nodes);
    for (size_t i = 0; i < main_nodes && i < a.nodes.size(); ++i)
      key.emplace_back(a.nodes[i].verdict == Verdict::UNSUPPORTED, a.nodes[i].precision);
    return key;
  };
  for (const Release& r : kb.releases()) {
    if (!t.runs_release(r) || !catalog.dla_rules(r.name)) continue;  // the releases compute_target_matrix keeps
    auto imports = annotator.import_release(r);
    std::vector<Placed> placed;
    for (Precision p : kAllPrecisions) {
      Annotations a = annotator.run(r, p, imports.get());
      const Precision asked = asked_class(p);
      std::vector<std::pair<bool, std::string_view>> key;
      size_t same = placed.size();
      if (std::any_of(placed.begin(), placed.end(), [asked](const Placed& x) { return x.asked == asked; })) {
        apply_target(model, a, narrow_only, catalog);
        key = key_of(a);
        for (same = 0; same < placed.size(); ++same)
          if (placed[same].asked == asked && placed[same].key == key) break;
      }
      if (same == placed.size()) {
        // Narrows (again after a miss: that moves no verdict or precision) and places; the release has DLA facts.
        apply_target(model, a, t, catalog);
        placed.push_back({asked, key.empty() ? key_of(a) : std::move(key), dla_share(*a.dla)});
      }
      mx.cells.push_back({&r, p, a.summary, a.converts});
      mx.dla.push_back(placed[same].share);
      if (a.converts && !mx.min_converting) mx.min_converting = &r;
    }
  }
  return mx;
}

}  // namespace trtlens
