// Deployment targets: the device a model is deployed on (a GPU by name or compute
// capability, a Jetson, a Jetson's DLA core). Facts come from data/targets/ (one file
// per target family, one DLA file per release, the importer's op -> layer map), each
// row citing its source; docs/targets.md describes the format. A target narrows a
// verdict (no FP8 kernels on an A100: FALLBACK), limits the releases (a Jetson runs
// what its JetPack ships, and the later releases a runs row names), and for a DLA core
// places every node on the DLA or the GPU.
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
  std::string releases;  // "8.5", "8.5..10.16", "10.8..", or "-" (every release); never empty ("11.5..11.4")
  std::string note;      // "JetPack 5.1 - 5.1.4, L4T 35.2 - 35.6", "JetPack 7.2.2 or later, ...", "no FP8"
  std::string source;    // the page (and table row) it was read from
  bool covers(const Release& r) const;  // r lies in `releases`
};

struct Target {
  std::string name;    // "a100", "orin-dla": what --target takes
  std::string family;  // the data file: "ampere", "jetson-orin"
  std::string device;  // "NVIDIA A100"
  std::string cc;      // compute capability, "8.0"
  bool dla = false;    // the DLA core of the SoC (GPU fallback on its GPU)
  int row = 0;         // its device row's line in its family file: a compute capability names the first declared
  std::string source;
  std::vector<TargetRow> precisions;  // kernels' precisions, per range of releases
  // Ranges of releases whose support matrix lists the cc; on a Jetson, the releases it runs beyond those its
  // JetPack ships (Orin and Thor: 11.4.., TensorRT's SBSA build on JetPack 7.2.2 or later).
  std::vector<TargetRow> runs;
  std::vector<TargetRow> ships;       // a Jetson: each release its JetPack ships
  // The precisions row covering `r`; nullptr when none states it (nothing narrowed).
  const TargetRow* precisions_at(const Release& r) const;
  // True when a ships row names `r` or a runs row's range holds it.
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
  // A target by name ("h100", "orin-dla", case-insensitive), by an alias a family file
  // declares ("agx-orin" -> orin) or by compute capability ("sm_89", "sm89", "8.9", and
  // "sm_90a" / "sm_100f": the arch- and family-specific suffixes name the base capability;
  // the first GPU of that capability its family file declares, Target::row). Throws UsageError for "" ("an empty target; ...")
  // and for an unknown name ("unknown target 'x'; known: a10, a100, ...", target names
  // only, not every alias).
  const Target& resolve(std::string_view text) const;
  // Throws UsageError when `t` does not run `r` ("TensorRT 11.1 does not run on orin (...):
  // it runs TensorRT 8.4 (JetPack 5.0.2, ...), ..., 11.4.. (JetPack 7.2.2 or later, ...)"), or when
  // `t` is a DLA core and no DLA facts for `r` exist ("no DLA facts for TensorRT 11.5 (target
  // orin-dla): data/targets/dla has 8.2, ..., 11.4").
  void check_release(const Target& t, const Release& r) const;
  // The release a target takes without --trt: the newest of `kb` that a ships row names (a
  // Jetson's newest JetPack: 10.3 on Orin, though it also runs 11.4..), else the newest a runs
  // row holds; with DLA facts for a DLA core. nullptr when none.
  const Release* newest_release(const Target& t, const KnowledgeBase& kb) const;
  const DlaRules* dla_rules(std::string_view release) const;  // nullptr when none
  const std::vector<LayerMapping>& layers() const { return layers_; }

 private:
  struct Alias {
    std::string name, target;  // "agx-orin" -> "orin"
    std::string where;         // "data/targets/jetson-orin.tsv: line 12", for errors
  };
  std::vector<Target> targets_;
  std::vector<Alias> aliases_;
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
  // Multiply-accumulates (Conv, ConvTranspose, Gemm, MatMul); 0 for other ops; -1 for one of those four whose
  // shapes are not known (a dynamic dimension: pass --shapes), which no total counts.
  int64_t macs = 0;
  int outcome = 0;                      // its entry of DlaPlacement::outcomes (every node has one, NONE too)
};

struct DlaPlacement {
  std::string release;
  std::vector<DlaNode> nodes;  // one per main-graph node, in node order
  int dla_nodes = 0, gpu_nodes = 0, unsupported_nodes = 0;  // NONE nodes are not counted
  // MACs of the placed nodes whose MACs are known (DlaNode::macs >= 0), and of those on the DLA.
  int64_t dla_macs = 0, total_macs = 0;
  // Placed nodes whose MACs are unknown (DlaNode::macs -1): with any, total_macs is a lower bound and no share of
  // MACs on the DLA can be stated.
  int macs_unknown_nodes = 0;
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
