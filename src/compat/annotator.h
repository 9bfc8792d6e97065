// Judges nodes for one runtime; facts that do not depend on the runtime
// (Q/DQ regions, the model's float type) are computed once per model, so the
// matrix over every release and precision reuses them.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "trtlens/compat.h"

namespace trtlens {

// The tables' type name of a precision ("FP16" for fp16; "BEST" for best), as kernel lists spell it.
std::string_view precision_type_name(Precision p);

class Findings;  // what one node's judgement found (annotate.cpp)
struct ImportedNode;  // one node's import judgement (annotate.cpp)

class Annotator {
 public:
  Annotator(const Model& model, const KnowledgeBase& kb);
  // What judging every node's import for one release found: everything but the
  // precision. A sweep judges each release's imports once and each precision from them.
  class ReleaseImports;
  std::shared_ptr<const ReleaseImports> import_release(const Release& release) const;
  // Every node's verdict for one runtime. `imports`, when given, must come from
  // import_release(release); the result is the same, only the import is not judged again.
  Annotations run(const Release& release, Precision precision, const ReleaseImports* imports = nullptr) const;
  // Summaries for every release × precision of the knowledge base. A node's
  // verdict depends on the release only through its op's row and the
  // release's type lists and policies, so each node is judged once per
  // distinct (row, type lists, policies) class rather than once per release.
  Matrix matrix() const;

 private:
  friend struct ImportedNode;
  struct GraphFacts {
    std::vector<ElemType> quant;  // per node: the quantized type of its Q/DQ region, UNDEFINED outside
  };
  // INT64 tensors whose values are known to fit INT32: shape arithmetic and
  // small constants. Narrowing them changes nothing, so they are not IMPLICIT_CAST.
  void find_bounded_int64();
  bool bounded_int64(const TensorInfo* t) const { return bounded_int64_.count(t) != 0; }
  // INT64 constants beyond INT32 read only as Slice starts/ends (ReleasePolicy::int64_index_clamp).
  // `beyond`: (graph, tensor) of the INT64 constants whose known values do not fit INT32.
  void find_clamped_int64(const std::vector<std::pair<size_t, TensorId>>& beyond);
  bool clamped_int64(const TensorInfo* t) const { return clamped_int64_.count(t) != 0; }

  // The element types a node's judgement found: its table row, the float type
  // it computes in (UNDEFINED for integer/bool nodes), its output type.
  struct NodeTypes {
    const OpEntry* entry = nullptr;
    ElemType compute_float = ElemType::UNDEFINED;
    ElemType first = ElemType::UNDEFINED;
    // Type-name bit masks: the release's types (all = with the limited ones),
    // and the op's types (the release's when the row states none).
    uint32_t release_types = 0, release_all = 0, entry_types = 0;
  };

  // A node's verdict at precision `p` from its import judgement (a copy: judging consumes it).
  NodeVerdict judge(int graph, const Node& n, const Release& r, Precision p, ImportedNode imported) const;
  ImportedNode judge_node_import(int graph, const Node& n, const Release& r) const;
  // Status, rules and element types: everything but the precision.
  NodeTypes judge_import(int graph, const Node& n, const std::vector<const TensorInfo*>& tensors, const Release& r,
                         Findings& f) const;
  // A plugin row (bundled with the release, or declared by the user): the importer has no
  // built-in importer for the op_type and finds the plugin in the registry.
  void judge_plugin(const Node& n, const OpEntry& e, const Release& r, Findings& f) const;
  // UNSUPPORTED for an intermediate UINT8 output (releases with the UINT8 boundary policy).
  // The element type TensorRT gives tensor t (importer semantics of its producer; see find_trt_types).
  ElemType trt_type(const TensorInfo* t) const;
  void judge_uint8_outputs(int graph, const Node& n, const std::vector<const TensorInfo*>& tensors, const Release& r,
                           Findings& f) const;
  // A warning for each input or attribute the node sets that the release's importer never reads.
  void judge_ignored(const Graph& g, const Node& n, const OpEntry& e, const Release& r, Findings& f) const;
  // The node's input then output tensors (nullptr for omitted or unknown ones), in a
  // buffer of the calling thread that the next call overwrites.
  const std::vector<const TensorInfo*>& tensors_of(int graph, const Node& n) const;
  // The precision it runs at for `p`, and FALLBACK when that is wider than asked.
  void judge_precision(int graph, const Node& n, const Release& r, Precision p, const NodeTypes& types,
                       Findings& f) const;
  // Local function calls take the worst verdict of their body; `verdict_at(graph, index)`.
  template <typename VerdictAt>
  Verdict function_call_verdict(const Node& n, VerdictAt verdict_at, int* unsupported, size_t* body_nodes) const;
  ElemType quant(int graph, const Node& n) const;
  // The facts a node's verdict depends on, as a key: nodes with equal keys are judged alike (matrix).
  void node_facts(int graph, const Node& n, std::string& out) const;

  struct ReleaseMasks {
    uint32_t types = 0, limited = 0;
    uint32_t all = 0;  // every type the release can represent: the importer's, else the table header's
    uint32_t weights = 0;  // types of initializers and Constant values the weight loader accepts (0: as `all`)
  };
  // Masks of any release or row, also of one that is not in kb_ (a release of a parsed knowledge base).
  ReleaseMasks masks_of(const Release& r) const;
  uint32_t mask_of(const OpEntry& e) const;
  // The oldest release of kb_ for which `has(release)` holds; nullptr if none.
  template <typename Pred>
  const Release* first_release(Pred has) const;
  const Model& model_;
  const KnowledgeBase& kb_;
  std::vector<GraphFacts> facts_;
  bool has_qdq_ = false;
  // Type-name bit masks of every release's type lists and every table row's types.
  std::unordered_map<const Release*, ReleaseMasks> release_masks_;
  std::unordered_map<const OpEntry*, uint32_t> entry_masks_;
  std::unordered_set<const TensorInfo*> bounded_int64_;
  std::unordered_set<const TensorInfo*> clamped_int64_;
  // The TensorRT type of a tensor where the producing importer sets it whatever the ONNX
  // graph declares (find_trt_types); other tensors have their ONNX type.
  std::unordered_map<const TensorInfo*, ElemType> trt_types_;
  void find_trt_types();
  ElemType model_float_ = ElemType::FLOAT;
};

}  // namespace trtlens
