// Splitting a model between TensorRT and another runtime (`trtlens partition`):
// the regions that TensorRT would take, as ONNX Runtime's TensorRT execution
// provider forms them, decided offline from `annotate`'s verdicts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trtlens/compat.h"
#include "trtlens/model.h"

namespace trtlens {

struct PartitionOptions {
  // TensorRT regions with fewer main-graph nodes than this are left to the
  // other runtime (an engine boundary costs more than it saves); >= 1.
  // 1 keeps every region, as ONNX Runtime's trt_min_subgraph_size does by default.
  int min_nodes = 1;
  // op_types (default domain) left to the other runtime even when they import, as
  // ONNX Runtime's trt_op_types_to_exclude does; see default_exclude_ops.
  std::vector<std::string> exclude_ops;
  // With annotations placed on a DLA core (Annotations::dla, apply_target), cut every
  // TensorRT region further into DLA loadables and GPU regions (Partition::dla). Off:
  // regions stay whole, as the report's region overlay draws them.
  bool cut_for_dla = false;
};

// The ops ONNX Runtime's TensorRT provider leaves out at release `r` by default:
// NonMaxSuppression, NonZero, RoiAlign from 8.5 on (the parser's supportsOperator,
// and ONNX Runtime 1.20.1 for TensorRT 10), NonMaxSuppression alone at 8.0-8.4,
// none before. ONNX Runtime 1.21 and later exclude nothing unless asked.
std::vector<std::string> default_exclude_ops(const Release& r);

// One step of the chain: a set of main-graph nodes run by one runtime.
struct Part {
  bool tensorrt = false;        // true: a TensorRT region (one engine); false: left to another runtime
  // TensorRT parts: the region they belong to, 0, 1, ... in chain order; -1 otherwise. Without a
  // DLA cut a region is one part; with one (Partition::dla) it is one or more DLA and GPU parts.
  int region = -1;
  // DLA cut only: true when the part is a DLA loadable (its nodes run on the DLA core), false for
  // a GPU region (TensorRT on the GPU) or another runtime's part. Always false without a DLA cut.
  bool dla = false;
  int loadable = -1;            // DLA loadables: 0, 1, ... in chain order; -1 otherwise
  std::vector<int> nodes;       // main-graph node indices, in an order where producers come first
  // Tensors the part reads that are graph inputs or outputs of earlier parts,
  // in the order its nodes first read them (includes what If/Loop/Scan bodies read
  // from the main graph).
  std::vector<std::string> inputs;
  // Tensors it produces that later parts read or that are graph outputs, in production order.
  std::vector<std::string> outputs;
  std::vector<std::string> initializers;  // main-graph initializers its nodes read, by first use
  int64_t macs = 0;             // multiply-accumulates of its Conv/ConvTranspose/MatMul/Gemm nodes with known shapes, bodies included
  int64_t parameters = 0;       // elements of the initializers it reads and of its Constant nodes' values
};

// A main-graph node that TensorRT does not take, with why.
struct OutsideNode {
  int index = 0;        // main-graph node index
  Verdict verdict = Verdict::UNSUPPORTED;  // its own verdict (an If/Loop/Scan that imports keeps SUPPORTED etc.)
  std::string reason;   // one sentence: its first reason, the body node that does not import, or the --min-nodes cut
};

// The DLA cut's figures (Partition::dla): the TensorRT regions cut into DLA loadables and
// GPU regions by the placement of apply_target (include/trtlens/target.h).
struct DlaCut {
  std::string target;              // "orin-dla"
  std::string release;             // the release whose DLA facts placed the nodes ("8.5")
  int loadables = 0;               // DLA parts: each one loadable on a DLA core
  int gpu_regions = 0;             // TensorRT parts on the GPU
  // TensorRT loads at most this many loadables per DLA core (the release's DLA facts,
  // "General Restrictions" of the developer guide's DLA section; `max_loadables_source`).
  // The chain runs on one core, so `loadables` above it cannot all be loaded at once.
  int max_loadables = 16;
  std::string max_loadables_source;
  // Boundary tensors between a DLA loadable and another part (a GPU region or another runtime),
  // counted once per reading part: each is a reformat between the DLA's and the GPU's formats.
  int transitions = 0;
  // Main-graph nodes the placement counts (DLA, GPU_FALLBACK and UNSUPPORTED verdicts; a constant
  // the builder folds is not counted), and those of them inside DLA loadables.
  int placed_nodes = 0, nodes_on_dla = 0;
  int64_t macs_on_dla = 0;         // MACs (as Partition::macs counts them) of the DLA loadables' nodes
};

struct Partition {
  int min_nodes = 1;
  std::vector<std::string> exclude_ops;
  // The chain: part k reads only graph inputs, initializers and outputs of parts
  // before k. A TensorRT region and the runtime's remainder alternate; the
  // remainder is cut into several parts because it usually sits both before
  // and after a region (pre- and post-processing).
  std::vector<Part> parts;
  int regions = 0;                 // TensorRT parts of the main graph
  // Regions inside the bodies of If/Loop/Scan nodes that run outside TensorRT (the
  // provider partitions those bodies too). Engines TensorRT builds = regions + body_regions.
  int body_regions = 0;
  // Counts are of every node, bodies included (an If/Loop/Scan and each of its body nodes).
  int nodes = 0, nodes_in_tensorrt = 0;
  int64_t macs = 0, macs_in_tensorrt = 0;
  int macs_unknown = 0;            // Conv/ConvTranspose/MatMul/Gemm nodes whose MACs are unknown (symbolic or unknown shapes)
  // Weight elements (input 1) of all MAC-counted nodes and of those with unknown MACs:
  // the share of compute that `macs` leaves out, measured by weight.
  int64_t mac_weights = 0, mac_weights_unknown = 0;
  // Parameter elements; an initializer shared by a TensorRT region and another part counts as inside TensorRT.
  int64_t parameters = 0, parameters_in_tensorrt = 0;
  std::vector<OutsideNode> outside;  // in node index order
  // Set when the regions were cut for a DLA target (PartitionOptions::cut_for_dla and a placement).
  std::optional<DlaCut> dla;
};

// Splits `model` by the verdicts in `annotations` (which must be annotate(model, ...)):
// SUPPORTED, FALLBACK and IMPLICIT_CAST nodes not in options.exclude_ops form
// TensorRT regions that are convex (no path leaves a region and comes back, so the
// parts chain without cycles). Groups are the runs of a schedule in dependency order
// that stays on one runtime while it has a ready node; groups below min_nodes are
// dropped; then all groups become one region when that is convex (ONNX Runtime's
// consolidation). An If/Loop/Scan node joins a region only when every node of its
// bodies does; otherwise it runs outside and its bodies are partitioned the same way
// (counted in body_regions; the written parts keep it whole in an other-runtime part).
// Constant nodes (inputs all initializers or constants, importing, deterministic) are
// copied into every part that reads them.
// With options.cut_for_dla and `annotations.dla` set, each main-graph region is cut into DLA
// loadables and GPU regions: the runs of a schedule of the region's nodes in dependency order
// that stays on one device while it has a ready node (DLA verdict, or not; a node the builder
// folds goes with its first reader), two runs of one device joining when the part between them
// does not read the earlier one (it then runs first: no cycle). Never throws for a loaded model.
Partition partition_model(const Model& model, const Annotations& annotations, const PartitionOptions& options);

// File name of part `k` in an output folder: "part<k>_trt.onnx" or
// "part<k>_rest.onnx", k zero-padded to the width of the last index; with a DLA cut
// "part<k>_dla.onnx", "part<k>_gpu.onnx" or "part<k>_rest.onnx".
std::string part_file_name(const Partition& p, size_t k);

// Name of the external data file shared by the written parts.
inline constexpr const char* kPartitionWeightsFile = "weights.data";

// Writes every part of `p` as an ONNX model into folder `dir`, plus
// `manifest` as manifest.json. Each model has the part's nodes, typed and
// shaped inputs/outputs (from the model's value_info, shape inference or our
// propagation), the initializers and value_info it uses, and the local
// functions it calls. Weights above the loader's inline limit (16 KiB) and
// external data are streamed from their file ranges into kPartitionWeightsFile
// (each range once) and referenced from there; small ones stay inline.
// All files go to a temporary folder beside `dir` that then replaces it, so a
// failure leaves `dir` untouched.
// Throws InputError(dir, ...) when `dir` exists and is not an empty folder and
// `force` is false, when it holds the model itself, or on a write error;
// InputError(model.path, ...) when a weight is stored in typed fields
// (float_data, ...) larger than 16 KiB, which the loader does not keep.
void write_partition(const Model& model, const Partition& p, const std::string& manifest, const std::string& dir,
                     bool force);

}  // namespace trtlens
