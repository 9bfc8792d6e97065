// The release × precision matrix and verdict diffs between two runtimes.
#include "compat/annotator.h"

namespace trtlens {

Matrix compute_matrix(const Model& model, const KnowledgeBase& kb) { return Annotator(model, kb).matrix(); }

std::vector<VerdictChange> diff_annotations(const Annotations& a, const Annotations& b) {
  std::vector<VerdictChange> out;
  for (size_t i = 0; i < a.nodes.size() && i < b.nodes.size(); ++i)
    if (a.nodes[i].verdict != b.nodes[i].verdict)
      out.push_back({a.nodes[i].graph, a.nodes[i].index, &a.nodes[i], &b.nodes[i]});
  return out;
}

}  // namespace trtlens
