// The ONNX model overlaid with the engine TensorRT built from it: which engine
// layer each ONNX node became, the precision that layer ran at and its share
// of the time; and where `check`'s prediction for the engine's release and
// precision disagrees with what the engine did.
//
// Facts come from the engine's graph.json (EnginePlan, engine.h):
//  1. layer Metadata, TensorRT 8.6+: one "[ONNX Layer: <node>]" record per ONNX
//     node imported into the layer (the importer's processMetadata; text after
//     " | " is the node's doc string or the local-function call it came from);
//  2. otherwise the layer name: TensorRT names a layer after its node and joins
//     fused nodes with " + " ("Conv_5 + Add_6 + Relu_7"), pointwise fusions as
//     "PWN(Sigmoid_3, Mul_4)"; TensorRT's own reformat copies ("Reformatting
//     CopyNode for ...") name no node;
//  3. a Myelin region "{ForeignNode[first...last]}" holds the nodes from first to
//     last in its graph's node order that no other layer names.
// An unnamed ONNX node is known to TensorRT as "node_of_<its first output>".
// Latencies are the layers' average latencies from profile.json, in ms; shares
// are percent (0-100) of the sum of all layers' averages (as in engine.h).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trtlens/compat.h"
#include "trtlens/engine.h"
#include "trtlens/kb.h"
#include "trtlens/model.h"

namespace trtlens {

// How a node's layer was found.
enum class OverlayMatch {
  None,         // no layer holds the node
  Metadata,     // a layer's Metadata names it (8.6+)
  Name,         // a layer's name names it
  ForeignRange, // it lies inside a "{ForeignNode[first...last]}" range and no layer names it
  Neighbours,   // a QuantizeLinear/DequantizeLinear no layer names, whose consumers (else producers) all sit
                // in one layer: TensorRT fused it there without naming it (an inference, not a record)
};
std::string_view overlay_match_name(OverlayMatch m);  // "", "metadata", "name", "foreign-node-range", "neighbours"

// Why a node has no engine layer of its own.
enum class Vanished {
  None,            // it is (part of) a layer named after it
  ForeignNode,     // fused into a Myelin region ({ForeignNode[...]}): `layer` is the region; its own time is unknown
  ConstantFolded,  // every output is constant-foldable (TensorInfo::const_foldable): computed at build time,
                   // folded into the weights of the layers that read it (or kept as a Constant layer)
  NotFound,        // no layer names it and nothing places it: removed (Identity, Dropout, a reshape that
                   // became a NoOp) or renamed by TensorRT
};
std::string_view vanished_name(Vanished v);  // "", "foreign-node", "constant-folded", "not-found"

// One ONNX node and the engine layer it became.
struct NodeOverlay {
  int graph = 0;            // index into Model::graphs
  int index = 0;            // Node::index in that graph
  int layer = -1;           // index into EnginePlan::layers; -1 when in no layer
  // Every layer that holds the node, in execution order (`layer` first); a
  // node TensorRT split into several layers has more than one.
  std::vector<int> layers;
  OverlayMatch match = OverlayMatch::None;
  Vanished vanished = Vanished::None;
  std::string precision;    // precision `layer` ran at (its input 0, engine.h); "" without a layer or a detailed graph
  bool timed = false;       // every layer in `layers` has a profile record
  double latency_ms = 0;    // sum of the avg_ms of `layers`: the whole time of a fused layer, not a split of it
  double percent = 0;       // the same as percent of the total latency
  // For Vanished::ConstantFolded: the layer reading its output, or the Constant layer named after it; -1 when none.
  int folded_into = -1;
};

// One engine layer and the ONNX nodes it holds.
struct LayerOverlay {
  std::vector<int> nodes;   // indices into Overlay::nodes of the nodes whose `layers` include this layer
};

struct Overlay {
  // Every node of every graph, graph by graph, in node order (as Annotations::nodes).
  std::vector<NodeOverlay> nodes;
  // Parallel to EnginePlan::layers. Fused neighbours of a node: the other
  // nodes of layers[node.layer].nodes.
  std::vector<LayerOverlay> layers;
  int in_layers = 0;        // nodes with a layer (ForeignNode regions and neighbours included)
  int foreign_node = 0, constant_folded = 0, not_found = 0;
  int layers_with_nodes = 0;
  // Layers that name no node although they are not TensorRT's own reformat
  // copies: indices into EnginePlan::layers.
  std::vector<int> unmatched_layers;
  bool used_metadata = false;  // some layer carried "[ONNX Layer: ...]" Metadata
  // Remarks for people, one sentence each (layers naming no node, a plan
  // without profile, nodes named twice).
  std::vector<std::string> notes;
};

// Maps every node of `model` to the layers of `plan`. Never throws: an engine
// whose layers name none of the model's nodes gives an Overlay with
// in_layers == 0 and a note saying so (the CLI turns that into bad input).
// Linear in nodes + layers + the characters of layer names and Metadata.
Overlay overlay_engine(const Model& model, const EnginePlan& plan);

// ---- prediction against measurement ----

// The TensorRT version an engine's metadata records ("8.6.1"): a "TensorRT
// version" entry of build.metadata.json (`trtlens build` writes it under
// build_options) or of the other metadata sections. "" when none does: TREx's
// files and trtexec's exports do not record it.
std::string engine_trt_version(const EnginePlan& plan);

// The precision the engine was built for, from build.metadata.json's
// "Precision": one reduced precision enabled gives it ("FP32+FP16" → FP16,
// "FP32+INT8" → INT8); several ("FP32+FP16+INT8", trtexec --best) give BEST,
// where each layer takes the fastest enabled; "FP32" → FP32; nullopt when not
// recorded.
std::optional<Precision> engine_build_precision(const EnginePlan& plan);

// The runtime `check` is run for to compare with the engine.
struct OverlayRuntime {
  const Release* release = nullptr;
  Precision precision = Precision::FP32;
  std::string release_source;    // "--trt", "engine metadata (TensorRT 8.6.1)", or why the newest release was taken
  std::string precision_source;  // "--precision", "build metadata (FP32+FP16)", or "default (not recorded)"
};

// `trt` ("" when not given) wins over engine_trt_version, which wins over the
// newest release of `kb`; `precision` (nullopt when not given) wins over
// engine_build_precision, then FP32. Throws UsageError for a `trt` that `kb`
// does not know; an unknown version in the metadata falls back to the newest
// release and says so in release_source.
OverlayRuntime overlay_runtime(const EnginePlan& plan, const KnowledgeBase& kb, std::string_view trt,
                               std::optional<Precision> precision);

// Where `check` and the engine disagree about one node.
struct OverlayDisagreement {
  int node = 0;              // index into Overlay::nodes
  // "unsupported-but-built": predicted UNSUPPORTED, yet the node is in an engine layer;
  // "fallback-not-predicted": predicted to run at P, its layer ran at a wider precision;
  // "fallback-not-observed": predicted FALLBACK to a wider precision, its layer ran narrower (as asked);
  // "precision-differs": any other float-precision difference.
  std::string kind;
  Verdict predicted = Verdict::SUPPORTED;
  std::string predicted_precision;  // NodeVerdict::precision
  std::string measured_precision;   // NodeOverlay::precision
  std::string message;              // one sentence for people, naming the layer
};

struct PredictionCheck {
  OverlayRuntime runtime;
  int compared = 0;  // nodes compared: in a layer by Metadata, name or ForeignNode range
  std::vector<OverlayDisagreement> disagreements;  // in node order
};

// Compares `predicted` (annotate() of `model` for runtime.release and
// runtime.precision) with `overlay` (overlay_engine(model, plan)). Nodes placed by Neighbours inference are
// not compared, nor the precisions of QuantizeLinear/DequantizeLinear (their
// layers convert by definition); precisions are compared only when both are
// float or INT8 (FP8, INT8 < FP16, BF16 < FP32).
PredictionCheck compare_with_prediction(const Model& model, const Overlay& overlay, const EnginePlan& plan,
                                        const Annotations& predicted, const OverlayRuntime& runtime);

// All of it for one model and engine: overlay_engine, overlay_runtime(plan,
// kb, trt, precision), annotate for that runtime and compare_with_prediction.
struct EngineOverlay {
  Overlay overlay;
  Annotations predicted;  // check's verdicts for check.runtime
  PredictionCheck check;
};
// Throws UsageError for an unknown `trt`, and InputError(plan.files.graph,
// ...) when no layer names a node of the model (another model's engine).
EngineOverlay overlay_and_check(const Model& model, const EnginePlan& plan, const KnowledgeBase& kb,
                                std::string_view trt, std::optional<Precision> precision);

}  // namespace trtlens
