// Judges nodes for one runtime; facts that do not depend on the runtime
// (Q/DQ regions, the model's float type) are computed once per model, so the
// matrix over every release and precision reuses them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "trtlens/compat.h"

namespace trtlens {

class Annotator {
 public:
  Annotator(const Model& model, const KnowledgeBase& kb);
  Annotations run(const Release& release, Precision precision) const;

 private:
  using AddFn = std::function<void(Verdict, std::string, std::string, std::string)>;
  struct GraphFacts {
    std::vector<ElemType> quant;  // per node: the quantized type of its Q/DQ region, UNDEFINED outside
  };

  NodeVerdict judge(int graph, const Node& n, const Release& r, Precision p) const;
  void precision(NodeVerdict& v, int graph, const Node& n, const Release& r, Precision p, const OpEntry& e,
                 ElemType node_float, ElemType first_type, const AddFn& add) const;
  ElemType f_quant(int graph, const Node& n) const;

  const Model& model_;
  const KnowledgeBase& kb_;
  std::vector<GraphFacts> facts_;
  bool has_qdq_ = false;
  ElemType model_float_ = ElemType::FLOAT;
};

}  // namespace trtlens
