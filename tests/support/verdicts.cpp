#include "support/verdicts.h"

#include <stdexcept>

#include "trtlens/kb.h"

namespace trtlens::test {

NodeVerdict judge(const Model& m, const std::string& release, const std::string& node) {
  Annotations a = annotate(m, KnowledgeBase::builtin().resolve(release), Precision::FP32);
  for (const auto& v : a.nodes)
    if (m.graphs[static_cast<size_t>(v.graph)].nodes[static_cast<size_t>(v.index)].name == node) return v;
  throw std::runtime_error("no node " + node);
}

}  // namespace trtlens::test
