// An ONNX model as trtlens sees it: graphs, nodes, and what is known about
// every tensor (element type, rank, shape, where its value comes from).
// Weights are never held in memory: large tensor payloads stay in the file
// (memory-mapped) or in external data and are only described here.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

namespace trtlens {

// ONNX TensorProto.DataType values (onnx.proto, IR version 11).
enum class ElemType : int {
  UNDEFINED = 0, FLOAT = 1, UINT8 = 2, INT8 = 3, UINT16 = 4, INT16 = 5, INT32 = 6,
  INT64 = 7, STRING = 8, BOOL = 9, FLOAT16 = 10, DOUBLE = 11, UINT32 = 12, UINT64 = 13,
  COMPLEX64 = 14, COMPLEX128 = 15, BFLOAT16 = 16, FLOAT8E4M3FN = 17, FLOAT8E4M3FNUZ = 18,
  FLOAT8E5M2 = 19, FLOAT8E5M2FNUZ = 20, UINT4 = 21, INT4 = 22, FLOAT4E2M1 = 23,
  FLOAT8E8M0 = 24,  // exponent-only scale of MXFP8 block quantization (onnx 1.18)
};

// ONNX spelling ("FLOAT", "INT64", ...); "UNDEFINED" for unknown values.
std::string_view elem_type_name(ElemType t);
// Name used by the TensorRT support tables ("FP32", "FP16", "INT64", ...), or
// the ONNX spelling when the tables have no name for it (e.g. "STRING").
std::string_view elem_type_trt_name(ElemType t);
// Floating-point types (DOUBLE, FLOAT, FLOAT16, BFLOAT16, the FP8 and FP4 kinds).
bool is_float(ElemType t);

// Where a tensor's value comes from.
enum class TensorOrigin {
  Unknown,      // referenced but never produced (a bad model; the loader rejects it)
  GraphInput,   // a graph (or subgraph/function) input without initializer
  Initializer,  // a graph initializer
  ConstantNode, // the output of a Constant node
  Computed,     // the output of any other node
  OuterScope,   // a subgraph reads a tensor of an enclosing graph
};

// One dimension: a fixed size, a symbolic name, or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when fixed
  std::string param;   // symbolic name (dim_param), may be empty
  bool fixed() const { return value >= 0; }
};

struct TensorInfo {
  std::string name;
  ElemType type = ElemType::UNDEFINED;
  int rank = -1;            // -1 when unknown
  std::vector<Dim> dims;    // size == rank when rank >= 0
  TensorOrigin origin = TensorOrigin::Unknown;
  // True for initializers, Constant outputs, and outputs of nodes whose every
  // input is constant-foldable (what a constant-folding pass could remove).
  bool const_foldable = false;
  // Element values, for small constants only (<= 4096 elements), integers
  // and floats both as double. Null: value not known statically (most tensors:
  // a pointer rather than an optional saves 24 bytes each).
  std::unique_ptr<std::vector<double>> values;
  // Where the type came from: "value_info", "onnx-shape-inference", "trtlens"
  // (own propagation), "initializer", "graph-input", "call-site" (a local function input typed
  // from the calls, all of which agree); empty when unknown. Always a string literal.
  std::string_view type_source;
};

// One attribute of a node (onnx AttributeProto, flattened).
struct Attribute {
  enum class Kind { Undefined, Int, Float, String, Tensor, Graph, Ints, Floats, Strings, Tensors, Graphs, Other };
  std::string name;
  Kind kind = Kind::Undefined;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  // Tensor attributes (Constant.value, ConstantOfShape.value): element type,
  // dims and, when small, the values.
  ElemType tensor_type = ElemType::UNDEFINED;
  std::vector<int64_t> tensor_dims;
  std::optional<std::vector<double>> tensor_values;
  // Graph attributes: indices into Model::graphs.
  std::vector<int> graphs;
};

// A tensor of one graph: an index into Graph::tensors (names are interned once
// per graph by the loader); kNoTensor for an omitted optional input or output.
using TensorId = int;
inline constexpr TensorId kNoTensor = -1;

struct Node {
  int index = 0;  // position in its graph's node list
  // Where this node's input then output ids start in its graph's node_ids (Graph::input_ids).
  uint32_t ids_at = 0;
  std::string name, op_type, domain;  // domain "" means the default ONNX domain
  std::vector<std::string> inputs;    // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;
  const Attribute* attribute(std::string_view name) const;  // nullptr when absent
};

// Graph facts every analysis reads, built once by index_graphs (load_model runs it).
// Per-tensor vectors are indexed by TensorId.
struct GraphIndex {
  std::vector<int> order;       // node indices, topological; file order among ready nodes
  std::vector<int> producer;    // the node writing each tensor; -1 for inputs, initializers, outer reads
  // Nodes reading each tensor as an input, ascending and each once: consumer_nodes[consumer_start[t] ..
  // consumer_start[t + 1]). A node whose subgraph reads the tensor is not listed (its body's
  // readers are, in the body's index), though the order puts it after the tensor's producer.
  std::vector<int> consumer_start, consumer_nodes;
  // For each OuterScope entry, the enclosing graph's tensor it reads.
  std::unordered_map<TensorId, const TensorInfo*> outer_tensor;
  std::vector<TensorId> outer_reads;  // OuterScope entries: what this graph and its subgraphs read from outside
};

struct Graph {
  // "" for the main graph, "<node name or op_index>/<attribute>" for a subgraph
  // (e.g. "Loop_3/body", nested: "If_1/then_branch/Loop_0/body"),
  // "fn:<Name>" for a local function.
  std::string path;
  int parent = -1;  // index of the enclosing graph in Model::graphs, -1 for main and functions
  int parent_node = -1;  // node index in the parent graph that owns this subgraph
  std::vector<Node> nodes;
  std::vector<std::string> inputs, outputs;
  // Every tensor named in this graph, in first-mention order; a TensorId indexes it.
  // A deque: entries never move, so pointers to them stay valid as tensors are added.
  std::deque<TensorInfo> tensors;
  GraphIndex index;

  Graph() = default;
  Graph(Graph&&) noexcept = default;
  Graph& operator=(Graph&&) noexcept = default;
  // Move-only: the name table and the index point into `tensors` (and enclosing graphs').
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // The id of `name` in this graph; kNoTensor when it is not named here.
  TensorId id(std::string_view name) const;
  // The id of the tensor named `name` here, added (origin Unknown) when new.
  TensorId intern(std::string_view name);
  void reserve_names(size_t count) { ids_.reserve(count); }
  // The tensor named `name` here (not in enclosing graphs); nullptr when unknown.
  const TensorInfo* local(std::string_view name) const;
  TensorInfo* local(std::string_view name);
  // Looks a tensor up here, then in enclosing graphs; nullptr when unknown.
  const TensorInfo* find(std::string_view name, const std::vector<Graph>& all) const;
  // Every node's input then output ids, node after node (one array, not two
  // vectors per node: a million-node graph saves 100 MB). Filled by index_graphs;
  // a read of an enclosing graph's tensor has the id of this graph's OuterScope entry.
  std::vector<TensorId> node_ids;
  std::span<const TensorId> input_ids(const Node& n) const { return {node_ids.data() + n.ids_at, n.inputs.size()}; }
  std::span<const TensorId> output_ids(const Node& n) const {
    return {node_ids.data() + n.ids_at + n.inputs.size(), n.outputs.size()};
  }
  TensorId input_id(const Node& n, size_t k) const { return k < n.inputs.size() ? node_ids[n.ids_at + k] : kNoTensor; }
  TensorId output_id(const Node& n, size_t k) const {
    return k < n.outputs.size() ? node_ids[n.ids_at + n.inputs.size() + k] : kNoTensor;
  }
  // Input/output `k` of `n` (a node of this graph) as its readers see it, through
  // the index (enclosing graphs' tensors for outer reads); nullptr when omitted.
  const TensorInfo* input(const Node& n, size_t k) const { return at(input_id(n, k)); }
  const TensorInfo* output(const Node& n, size_t k) const { return at(output_id(n, k)); }
  // Tensor `t` as its readers see it: itself, or for an OuterScope entry the enclosing graph's.
  const TensorInfo* at(TensorId t) const {
    if (t < 0) return nullptr;
    const TensorInfo& x = tensors[static_cast<size_t>(t)];
    if (x.origin != TensorOrigin::OuterScope) return &x;
    auto it = index.outer_tensor.find(t);
    return it == index.outer_tensor.end() ? &x : it->second;
  }
  // The nodes reading tensor `t` (see GraphIndex::consumer_nodes).
  std::span<const int> consumers(TensorId t) const;

 private:
  // Open addressing (no node per name): a million-name table is looked up and grown
  // without a cache miss per chain link or a malloc per entry (bench/README.md, issue 18).
  absl::flat_hash_map<std::string_view, TensorId> ids_;  // views into tensors[i].name
};

struct OpsetImport {
  std::string domain;  // "" = default ONNX domain ("ai.onnx")
  int64_t version = 0;
};

struct LocalFunction {
  std::string name, domain;
  int graph = -1;  // index into Model::graphs
};

// Shapes the user gives a graph input (trtexec's --shapes, or an optimization profile's
// --minShapes/--optShapes/--maxShapes): min == opt == max for --shapes. Dimensions are counts.
struct InputShape {
  std::string name;
  std::vector<int64_t> min, opt, max;
};

// Parses trtexec's shape list "name:1x3x224x224[,name2:1x16]" (a name holding ':' may be
// quoted: 'in:0':1x3); `option` names the option in errors. Throws UsageError for garbage,
// an empty name, a dimension that is not a positive integer, or a name given twice.
std::vector<std::pair<std::string, std::vector<int64_t>>> parse_shape_list(std::string_view text,
                                                                           std::string_view option);
// The shapes of --shapes and of a --minShapes/--optShapes/--maxShapes profile as one list.
// Throws UsageError when an input is in some of min/opt/max but not all, is in both --shapes and
// the profile, has min/opt/max of different ranks, or min > opt or opt > max in some dimension.
std::vector<InputShape> input_shape_profile(std::string_view shapes, std::string_view min_shapes,
                                            std::string_view opt_shapes, std::string_view max_shapes);

struct Model {
  std::string path;
  int64_t ir_version = 0;
  std::string producer_name, producer_version;
  std::vector<OpsetImport> opsets;
  std::vector<Graph> graphs;  // graphs[0] is the main graph
  std::vector<LocalFunction> functions;
  // The external data files the model's tensors reference (ONNX external_data
  // "location"), relative to the model's folder, lexically normalized
  // ("weights/./w.bin" -> "weights/w.bin"), each once, in first-reference order.
  // The loader has checked that each exists and stays inside the folder.
  std::vector<std::string> external_data_files;
  // Input shapes the user gave (load_model's `shapes`), in the order given; empty when none.
  std::vector<InputShape> input_shapes;
  // Opset of the default ONNX domain (0 when not imported).
  int64_t default_opset() const;
  // Total nodes over all graphs (main, subgraphs, local functions).
  size_t node_count() const;
  // True when (domain, op_type) names a local function of this model.
  bool is_local_function(std::string_view domain, std::string_view op_type) const;
};

// Loads an ONNX model from `path` and infers tensor facts (types, ranks,
// constness). Embedded weights are skipped in place (the file is
// memory-mapped; pages holding raw_data are never read); external data files
// are checked for existence and bounds but not read.
// Throws InputError("<path>", problem) for: a missing, empty or unparsable
// file, a truncated model, a missing external data file, an external location
// that is absolute or escapes the model folder, a cycle in a graph, a node
// input that is never produced.
Model load_model(const std::string& path);
// The same, with the main graph's inputs shaped by `shapes` before any inference (a dimension is
// fixed where min == max, free otherwise), so ranks, shapes and dynamic-dimension rules follow.
// Throws UsageError for an input the model does not have (or that is an initializer), a rank
// other than the one the model declares, or a dimension the model fixes to another value.
Model load_model(const std::string& path, const std::vector<InputShape>& shapes);

// How messages and tables name a node: its name, or "#<index>" when it has none.
std::string node_label(const Node& n);

// Fills every graph's GraphIndex and its nodes' input/output ids (names not yet in
// a graph's tensors are added; a read of an enclosing graph's tensor gets an
// OuterScope entry). load_model builds the index (and refuses unproduced inputs
// and cycles); a model built by hand must run this before any analysis. Here an
// unproduced input stays a tensor without producer, and a cycle's nodes end the order.
void index_graphs(Model& m);

}  // namespace trtlens
