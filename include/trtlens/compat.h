// Per-node TensorRT compatibility verdicts (the verdict model of DESIGN.md).
#pragma once
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trtlens/kb.h"
#include "trtlens/model.h"

namespace trtlens {

// The precision asked for: a builder flag up to 10.x, the model's own types from 11.0.
enum class Precision { FP32, FP16, BF16, INT8, FP8, BEST };
inline constexpr std::array<Precision, 6> kAllPrecisions = {
    Precision::FP32, Precision::FP16, Precision::BF16, Precision::INT8, Precision::FP8, Precision::BEST};
std::string_view precision_name(Precision p);  // "fp32", "fp16", "bf16", "int8", "fp8", "best"
// Parses "fp32", "FP16", ... ; throws UsageError listing the accepted names.
Precision parse_precision(std::string_view text);

enum class Verdict { SUPPORTED, FALLBACK, IMPLICIT_CAST, UNSUPPORTED, UNKNOWN };
inline constexpr std::array<Verdict, 5> kAllVerdicts = {
    Verdict::SUPPORTED, Verdict::FALLBACK, Verdict::IMPLICIT_CAST, Verdict::UNSUPPORTED, Verdict::UNKNOWN};
std::string_view verdict_name(Verdict v);  // "SUPPORTED", ...

struct Reason {
  std::string rule;     // the rule text, or a fact name: "status", "types", "int64", "precision", "domain", ...
  std::string message;  // one sentence for people
  std::string source;   // the fact it cites: "ONNX-TensorRT support matrix, release 8.6, op Resize"
};

struct NodeVerdict {
  int graph = 0;             // index into Model::graphs
  int index = 0;             // node index in that graph
  Verdict verdict = Verdict::SUPPORTED;
  // What it would run at: "FP16", "FP32", "INT8", "INT32", "-" when it does not import (a static name).
  std::string_view precision;
  std::vector<Reason> reasons;
  std::vector<std::string> hints;  // what would help: another release, a graph change, a plugin
};

struct Target;
struct DlaPlacement;

struct Annotations {
  const Release* release = nullptr;
  Precision precision = Precision::FP32;
  std::vector<NodeVerdict> nodes;      // every node of every graph, graph by graph, in node order
  std::array<int, 5> summary{};        // count per Verdict, indexed by the enum value
  bool converts = false;               // no node UNSUPPORTED
  bool qdq = false;                    // the model has QuantizeLinear/DequantizeLinear nodes (explicit quantization)
  std::vector<std::string> notes;      // runtime-wide remarks (e.g. "implicit INT8 is deprecated from 10.0")
  const Target* target = nullptr;      // the deployment target it was narrowed to (apply_target, target.h); null: none
  std::shared_ptr<const DlaPlacement> dla;  // a DLA target: where each main-graph node runs
};

// Judges every node of `model` for `release` at `precision` with the facts of
// `kb` (hints name other releases of `kb`; `release` may come from any
// knowledge base). Never throws for a loaded model.
Annotations annotate(const Model& model, const KnowledgeBase& kb, const Release& release, Precision precision);
// The same with the built-in knowledge base (KnowledgeBase::builtin()).
Annotations annotate(const Model& model, const Release& release, Precision precision);

// What a matrix cell keeps of a DLA placement (DlaPlacement, target.h): its counts, not its nodes.
struct DlaShare {
  int dla_nodes = 0, gpu_fallback_nodes = 0, unsupported_nodes = 0;  // placed nodes (Constants and folded nodes are not)
  int64_t dla_macs = 0, total_macs = 0;                              // multiply-accumulates on the DLA, in all
  int macs_unknown_nodes = 0;  // placed nodes whose MACs are unknown: then total_macs is a lower bound, no share
  int transitions = 0;                                               // DLA<->GPU data edges
  int loadables = 0, max_loadables = 16;                             // DLA loadables, and how many a core loads
  int placed_nodes() const { return dla_nodes + gpu_fallback_nodes + unsupported_nodes; }
  double node_percent() const;  // dla_nodes of placed_nodes(), 0..100; 0 when none is placed
  double mac_percent() const;   // dla_macs of total_macs, 0..100; 0 when no MACs (meaningless with unknown MACs)
};
// The counts of `d`.
DlaShare dla_share(const DlaPlacement& d);

// One cell of the release × precision matrix.
struct MatrixCell {
  const Release* release = nullptr;
  Precision precision = Precision::FP32;
  std::array<int, 5> summary{};
  bool converts = false;
};

struct Matrix {
  std::vector<MatrixCell> cells;              // release-major, kAllPrecisions order
  const Release* min_converting = nullptr;    // oldest release where some precision converts; null if none
  const Target* target = nullptr;             // compute_target_matrix: the target; null: none
  // compute_dla_matrix: where the DLA core runs the model, one per cell in `cells` order; empty otherwise.
  std::vector<DlaShare> dla;
};

// Annotates every (release, precision) pair of `kb`.
Matrix compute_matrix(const Model& model, const KnowledgeBase& kb);

// `--unknown-as unsupported` (CI): every UNKNOWN node becomes UNSUPPORTED, with a reason saying
// so (precision "-"); the summary, `converts` and a note follow. A matrix's cells and minimum
// converting release follow the same way.
void count_unknown_as_unsupported(Annotations& a);
void count_unknown_as_unsupported(Matrix& m);

// A node whose verdict differs between two runtimes.
struct VerdictChange {
  int graph = 0, index = 0;
  const NodeVerdict* before = nullptr;  // points into the `a` annotations
  const NodeVerdict* after = nullptr;   // points into the `b` annotations
};
// Nodes whose verdict differs between `a` and `b` (annotations of the same model).
std::vector<VerdictChange> diff_annotations(const Annotations& a, const Annotations& b);

struct DlaNode;
// A main-graph node whose DLA placement (DlaVerdict: DLA, GPU fallback, unsupported, not placed) differs.
struct PlacementChange {
  int index = 0;                    // node index in the main graph
  const DlaNode* before = nullptr;  // points into the `a` placement
  const DlaNode* after = nullptr;   // points into the `b` placement
};
// Nodes whose DLA verdict differs between `a` and `b` (placements of the same model at two runtimes), in node
// order. A node off the DLA at both, for another reason, is not a change: it runs on the GPU either way.
std::vector<PlacementChange> diff_placements(const DlaPlacement& a, const DlaPlacement& b);

// One node of a comparison of two versions of a model (`trtlens serve`).
struct ModelDiffEntry {
  std::string graph;    // Graph::path ("" = main graph)
  std::string node;     // node name, or "<op_type> -> <first output>" for an unnamed node
  std::string op_type;
  const NodeVerdict* before = nullptr;  // into the older annotations; null for an added node
  const NodeVerdict* after = nullptr;   // into the newer annotations; null for a removed node
  // For a kept node, what differs besides the verdict, in this order: "op_type",
  // "attributes", "inputs" (another producer, or none, feeds an input; producers are
  // compared by node name). Empty for added and removed nodes.
  std::vector<std::string> edits;
};

// Two versions of a model judged at one runtime: nodes added, removed, kept
// with a different verdict (or op_type), and kept with another op_type, other
// attributes or other inputs (`edited`; a node can be in both). Nodes are
// matched by (graph path, node name), unnamed nodes by their first output's
// name; with several nodes of one key, the n-th matches the n-th.
struct ModelDiff {
  std::vector<ModelDiffEntry> added, removed, changed, edited;
  size_t kept = 0;  // nodes in both versions, whatever their verdicts
};
// `a` annotates `before`, `b` annotates `after` (same runtime). The entries
// point into `a` and `b`, which must outlive the result.
ModelDiff diff_models(const Model& before, const Annotations& a, const Model& after, const Annotations& b);

// One node as the diff matches it (what diff_models reads of a model and its
// annotations), so that a stored analysis can be compared without its model.
struct DiffRow {
  std::string graph, node, op_type;  // as ModelDiffEntry
  const NodeVerdict* verdict = nullptr;
  // Per input of the node: the position, in the same row list, of the row of the
  // node producing it; -1 for a graph input, an initializer, an outer-scope read
  // or an omitted optional input. The graph view's edges and `edited` read it.
  std::vector<int> producers;
  // A digest of the attributes (names, kinds, values; a subgraph attribute by its
  // name only, its nodes have rows of their own): equal digests, equal attributes.
  // "" for a node without attributes.
  std::string attributes;
};
// The rows of every node of `m`, graph by graph; verdicts point into `a`.
std::vector<DiffRow> diff_rows(const Model& m, const Annotations& a);
// diff_models on rows; entries point at the rows' verdicts.
ModelDiff diff_models(const std::vector<DiffRow>& before, const std::vector<DiffRow>& after);

// The graph view of a comparison: the added, removed and edited nodes, with the
// unchanged nodes one hop from them (a producer of an input or a consumer of an
// output, in the version that holds the edge) as context, and the edges between
// the nodes drawn. Edges never leave a graph (subgraphs and functions are apart).
struct DiffGraphNode {
  enum class Kind { Added, Removed, Edited, Context };
  Kind kind = Kind::Context;
  std::string graph, node, op_type;          // as ModelDiffEntry
  bool in_before = false, in_after = false;  // the versions holding the node
  const NodeVerdict* verdict = nullptr;      // the newer version's (the older one's for a removed node)
  std::vector<std::string> edits;            // as ModelDiffEntry::edits (Edited only)
};
struct DiffGraphEdge {
  int from = 0, to = 0;                      // indices into DiffGraph::nodes: from produces an input of to
  bool in_before = false, in_after = false;  // the versions holding the edge
};
struct DiffGraph {
  std::vector<DiffGraphNode> nodes;  // the drawn changed nodes first (in drawing order), then the context
  std::vector<DiffGraphEdge> edges;
  size_t changed = 0;                // added + removed + edited nodes in all
  size_t drawn_changed = 0;          // of those, the ones in `nodes`
  // Changed nodes not drawn (over the bound), per op_type, most first.
  std::vector<std::pair<std::string, size_t>> not_drawn;
  size_t context_not_drawn = 0;      // unchanged neighbours left out (the context is bounded as the changed nodes are)
};
inline constexpr size_t kDiffGraphMaxChanged = 300;
// Changed nodes are grouped by op_type, the group with the most nodes first (ties by
// op_type), within a group removed, then edited, then added nodes, each in row order.
// In that order each node not drawn yet is drawn with the changed nodes connected to it
// (breadth first, through changed nodes only), until `max_changed` are drawn; then at
// most `max_changed` context nodes.
DiffGraph diff_graph(const std::vector<DiffRow>& before, const std::vector<DiffRow>& after,
                     size_t max_changed = kDiffGraphMaxChanged);
std::string_view diff_node_kind_name(DiffGraphNode::Kind k);  // "added", "removed", "edited", "context"

}  // namespace trtlens
