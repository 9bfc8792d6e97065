// Deployment targets: the device a model is deployed on (a GPU by name or compute
// capability, a Jetson, a Jetson's DLA core). Facts come from data/targets/ (one file
// per target family, one DLA file per release, the importer's op -> layer map), each
// row citing its source; docs/targets.md describes the format. A target narrows a
// verdict (no FP8 kernels on an A100: FALLBACK), limits the releases (a Jetson runs
// what its JetPack ships), and for a DLA core places every node on the DLA or the GPU.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trtlens/compat.h"
#include "trtlens/kb.h"
#include "trtlens/model.h"

namespace trtlens {

// One row of a target family file that holds for a range of releases.
struct TargetRow {
  std::string value;     // precisions: "FP32,FP16,INT8"; ships: the release ("8.5")
  std::string releases;  // "8.5", "8.5..10.16", "10.8..", or "-" (every release)
  std::string note;      // "JetPack 5.1 - 5.1.4 (L4T 35.2 - 35.6)", "no FP8"
  std::string source;    // the page (and table row) it was read from
  bool covers(const Release& r) const;  // r lies in `releases`
};

struct Target {
  std::string name;    // "a100", "orin-dla": what --target takes
  std::string family;  // the data file: "ampere", "jetson-orin"
  std::string device;  // "NVIDIA A100"
  std::string cc;      // compute capability, "8.0"
  bool dla = false;    // the DLA core of the SoC (GPU fallback on its GPU)
  std::string source;
  std::vector<TargetRow> precisions;  // kernels' precisions, per range of releases
  std::vector<TargetRow> runs;        // ranges of releases whose support matrix lists the cc
  std::vector<TargetRow> ships;       // a Jetson: each release its JetPack ships (and then only those)
  // The precisions row covering `r`; nullptr when none states it (nothing narrowed).
  const TargetRow* precisions_at(const Release& r) const;
  // True when the target runs release `r` (ships rows when present, else runs rows).
  bool runs_release(const Release& r) const;
  // "orin (NVIDIA Jetson AGX Orin, sm_87)".
  std::string label() const;
};

// One DLA restriction of one release (data/targets/dla/<release>.tsv).
struct DlaCheck {
  std::string layer;    // TensorRT layer kind ("convolution") or "general"
  std::string check;    // "kernel", "stride", "modes", ... (docs/targets.md)
  std::string args;     // "1..32", "relu|sigmoid", "-"
  std::string devices;  // "-" (every DLA) or the one SoC ("orin")
  std::string source;
};

struct DlaRules {
  std::string release;  // "8.5"
  std::vector<DlaCheck> checks;
};

// Which layers the importer creates for an op (data/targets/layers.tsv).
struct LayerMapping {
  std::string op;
  std::vector<std::string> layers;  // the node's layers, main layer first
  std::string mode;                 // the layer operation ("relu", "sum", "max,min"), "-" when none
  std::vector<int> const_inputs;    // `when`: these inputs (where present) must be constants; empty = always
  std::string where;                // importer lines, "8.5-GA builtin_op_importers.cpp:662; ..."
};

class TargetCatalog {
 public:
  // The catalog compiled into the binary (data/targets/), parsed once. Throws
  // std::runtime_error if the embedded data is malformed (a build bug).
  static const TargetCatalog& builtin();
  // Parses (path, contents) pairs: "data/targets/<family>.tsv", "data/targets/dla/<release>.tsv",
  // "data/targets/layers.tsv". Throws InputError(path, problem) on a malformed file.
  static TargetCatalog parse(const std::vector<std::pair<std::string_view, std::string_view>>& files);

  const std::vector<Target>& targets() const { return targets_; }
  // A target by name ("h100", "orin-dla", case-insensitive) or compute capability
  // ("sm_89", "8.9": the first GPU of that capability). Throws UsageError
  // ("unknown target 'x'; known: a10, a100, ...") otherwise.
  const Target& resolve(std::string_view text) const;
  // Throws UsageError when `t` does not run `r` ("TensorRT 11.1 does not run on orin (...):
  // it runs 8.4 (JetPack 5.0.2), ..."), or when `t` is a DLA core and no DLA facts for
  // `r` exist ("no DLA facts for TensorRT 8.4; data/targets/dla has 8.5, 8.6, 10.3").
  void check_release(const Target& t, const Release& r) const;
  // The newest release of `kb` that `t` runs (a Jetson's newest JetPack, with DLA facts
  // for a DLA core); nullptr when none.
  const Release* newest_release(const Target& t, const KnowledgeBase& kb) const;
  const DlaRules* dla_rules(std::string_view release) const;  // nullptr when none
  const std::vector<LayerMapping>& layers() const { return layers_; }

 private:
  std::vector<Target> targets_;
  std::vector<DlaRules> dla_;
  std::vector<LayerMapping> layers_;
};

// Where a node runs on a DLA target.
enum class DlaVerdict { DLA, GPU_FALLBACK, UNSUPPORTED, NONE };
std::string_view dla_verdict_name(DlaVerdict v);  // "DLA", "GPU_FALLBACK", "UNSUPPORTED", "-"

// One distinct judgement of the placement: nodes with the same verdict, layers, reason and source share it
// (a 100k-node model has a few dozen), so outputs can write each once and cite it by position.
struct DlaOutcome {
  DlaVerdict verdict = DlaVerdict::NONE;
  std::string_view layers, reason, source;  // as in DlaNode (in DlaPlacement::texts)
};

struct DlaNode {
  int index = 0;                        // node index in the main graph
  // NONE: a Constant, or a node computing a constant (an Identity on weights) that the builder folds.
  DlaVerdict verdict = DlaVerdict::NONE;
  std::string_view layers;  // "convolution", "matrix_multiply,elementwise"; "" when unknown (in DlaPlacement::texts)
  std::string_view reason;  // why not on the DLA: "kernel size 37 > 32 (...)"; "" on the DLA (in DlaPlacement::texts)
  std::string_view source;  // the restriction's or importer's citation (in DlaPlacement::texts)
  int64_t macs = 0;                     // multiply-accumulates (Conv, ConvTranspose, Gemm, MatMul); 0 otherwise
  int outcome = 0;                      // its entry of DlaPlacement::outcomes (every node has one, NONE too)
};

struct DlaPlacement {
  std::string release;
  std::vector<DlaNode> nodes;  // one per main-graph node, in node order
  int dla_nodes = 0, gpu_nodes = 0, unsupported_nodes = 0;  // NONE nodes are not counted
  int64_t dla_macs = 0, total_macs = 0;
  // Data edges between a DLA node and a GPU node (each a reformat at the boundary).
  int transitions = 0;
  // DLA loadables: connected groups of DLA nodes; TensorRT loads at most `max_loadables` per core.
  int loadables = 0, max_loadables = 16;
  std::vector<std::string> notes;
  // Each distinct (verdict, layers, reason, source) once, in first-use order; DlaNode::outcome indexes it.
  std::vector<DlaOutcome> outcomes;
  // Each distinct layers, reason and source text once (a 100k-node model repeats a few dozen); nodes and
  // outcomes view them.
  std::deque<std::string> texts;
  DlaPlacement() = default;
  DlaPlacement(const DlaPlacement&) = delete;  // nodes view `texts`
  DlaPlacement& operator=(const DlaPlacement&) = delete;
};

// Narrows `a` (annotations of `model` at a release `t` runs) to target `t`: nodes
// running at a precision the target has no kernels for become FALLBACK (FP32, or
// FP16 under "best") citing the support matrix row; for a DLA target, also places
// every main-graph node (a.dla). Sets a.target. `a.release` must not be null.
void apply_target(const Model& model, Annotations& a, const Target& t,
                  const TargetCatalog& catalog = TargetCatalog::builtin());

// The release × precision matrix restricted to the releases `t` runs, each cell
// narrowed to `t` (apply_target).
Matrix compute_target_matrix(const Model& model, const KnowledgeBase& kb, const Target& t,
                             const TargetCatalog& catalog = TargetCatalog::builtin());

// compute_target_matrix with each cell of a DLA target placed on its DLA core (apply_target): MatrixCell::dla
// holds the placement's counts. The same as compute_target_matrix for a target without a DLA.
Matrix compute_dla_matrix(const Model& model, const KnowledgeBase& kb, const Target& t,
                          const TargetCatalog& catalog = TargetCatalog::builtin());

}  // namespace trtlens
