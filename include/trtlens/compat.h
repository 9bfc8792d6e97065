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

// One node of a comparison of two versions of a model (`trtlens serve`).
struct ModelDiffEntry {
  std::string graph;    // Graph::path ("" = main graph)
  std::string node;     // node name, or "<op_type> -> <first output>" for an unnamed node
  std::string op_type;
  const NodeVerdict* before = nullptr;  // into the older annotations; null for an added node
  const NodeVerdict* after = nullptr;   // into the newer annotations; null for a removed node
};

// Two versions of a model judged at one runtime: nodes added, removed, and
// kept with a different verdict. Nodes are matched by (graph path, node name),
// unnamed nodes by their first output's name; with several nodes of one key,
// the n-th matches the n-th.
struct ModelDiff {
  std::vector<ModelDiffEntry> added, removed, changed;
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
};
// The rows of every node of `m`, graph by graph; verdicts point into `a`.
std::vector<DiffRow> diff_rows(const Model& m, const Annotations& a);
// diff_models on rows; entries point at the rows' verdicts.
ModelDiff diff_models(const std::vector<DiffRow>& before, const std::vector<DiffRow>& after);

}  // namespace trtlens
