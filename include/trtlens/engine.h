// Built TensorRT engines, as trtexec describes them: the layer graph
// (--exportLayerInfo, IEngineInspector JSON), per-layer timing
// (--exportProfile), per-iteration timing (--exportTimes) and the metadata
// files written beside them. Layouts of TensorRT 8.x, 10.x and 11.x.
//
// Figures follow the definitions of NVIDIA's TensorRT Engine Explorer (TREx)
// so that both tools agree on the same files: a layer's type is its
// ParameterType (LayerType when absent); NoOp layers are folded away and
// Constant layers set aside; a layer's precision is that of its first input;
// reformat layers are found by type; profile records join layers by position
// when the counts match, otherwise by name; a layer's share of time is its
// average latency over the sum of all layers' averages.
//
// Units: latencies in ms, sizes in bytes, shares in percent (0-100).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trtlens {

// The files describing one engine. Only `graph` is required.
struct PlanFiles {
  std::string graph;             // <prefix>.graph.json
  std::string profile;           // <prefix>.profile.json, "" when absent
  std::string timing;            // <prefix>.timing.json, "" when absent
  std::string profile_metadata;  // <prefix>.profile.metadata.json, "" when absent
  std::string build_metadata;    // <prefix>.build.metadata.json, "" when absent
};

// Resolves `spec` to the files of one plan. `spec` is a path prefix
// ("resnet.onnx.engine" → resnet.onnx.engine.graph.json, ...), a graph.json
// path (its siblings are looked up by the same prefix), a folder holding
// exactly one *.graph.json, or any other .json file (taken as the graph, with
// no siblings). Absent siblings are left "". Throws InputError(spec, ...) when
// no graph.json is found or a folder holds several.
PlanFiles find_plan_files(const std::string& spec);

using KeyValues = std::vector<std::pair<std::string, std::string>>;  // in file order

// One tensor (an IEngineInspector "region") as a layer reads or writes it.
struct EngineTensor {
  std::string name;
  std::vector<int64_t> dims;  // "Dimensions"; -1 for a dynamic dimension or one that is not an integer in int64's range
  std::string format;         // format description as written ("Channel major FP16 format where channel % 8 == 0")
  std::string precision;      // "FP32", "FP16", "BF16", "INT8", "FP8", "INT32", "INT64", "BOOL", ... ; "" unknown
  std::string layout;         // TensorRT TensorFormat name: "LINEAR", "CHW4", "CHW32", "HWC8", ...; "" unknown
  std::string location;       // "Device", "Host", "" when absent
  // Elements × element size; 0 when a dimension is dynamic or the precision
  // unknown; INT64_MAX when the product overflows (hostile dimensions).
  int64_t size_bytes() const;
  // "FP16 HWC8", "FP32 LINEAR", or the raw format when it could not be parsed.
  std::string short_format() const;
};

struct EngineLayer {
  std::string name;       // unique: a repeated name gets "_2", "_3", ... (as TREx does)
  std::string raw_name;   // as written (control-character separators kept)
  std::string type;       // ParameterType, LayerType when absent ("Convolution", "Reformat", ...); "Unknown" for names-only graphs
  std::string subtype;    // LayerType ("CaskConvolution", "Reformat", "Myelin", ...)
  std::string origin;     // "Origin" ("REFORMAT", "QDQ", ...), "" when absent
  std::string tactic;     // TacticName, "" when absent
  std::string tactic_value;  // TacticValue ("0x..."), "" when absent
  std::string metadata;   // Metadata, separators replaced by " + "
  std::vector<std::string> onnx_nodes;  // ONNX nodes named in Metadata ("[ONNX Layer: Conv_0]" → "Conv_0")
  std::vector<EngineTensor> inputs, outputs;
  std::string precision;  // precision of the first input; "" when the layer has no input
  int64_t weights_bytes = 0;  // Weights + Bias (Count × element size); INT64_MAX when that overflows
  // The layer's other fields (Kernel, Groups, Weights, ...) as one compact JSON
  // object, in file order: "{\"Kernel\":[3,3],\"Groups\":1}"; "{}" when none.
  std::string attributes_json = "{}";
  int file_index = 0;     // position in graph.json's Layers
  // Timing from profile.json; absent when the profile is absent or has no record for this layer.
  bool timed = false;
  double avg_ms = 0, median_ms = 0, time_ms = 0;
  double percent = 0;     // avg_ms over the sum of all layers' avg_ms, × 100 (filled by load_plan)
  bool is_reformat() const { return type == "Reformat"; }
  bool is_fused() const;  // name joins several nodes (" + ") or Metadata names several ONNX nodes, or a Myelin ForeignNode
};

// An engine input or output ("Bindings" up to 10.x, "I/O Tensors" from 11.x).
struct EngineIO {
  std::string name;
  std::string mode;        // "Input", "Output", "" when the layout does not say (Bindings)
  std::string data_type;   // 11.x DataType ("Float", ...), "" when absent
  std::vector<int64_t> dims;
};

// Per-iteration timing from timing.json (latencyMs of each record).
struct IterationTiming {
  size_t iterations = 0;
  double mean_ms = 0, median_ms = 0, p90_ms = 0, p99_ms = 0, min_ms = 0, max_ms = 0;
};

struct EnginePlan {
  std::string name;       // file name of the graph without ".graph.json"
  PlanFiles files;
  // "8.x" (Bindings, no Metadata), "8.6+" (Bindings and Metadata), "10.x"
  // (Myelin/kgen formats), "11.x" (I/O Tensors) — a guess from the fields present.
  std::string layout;
  bool detailed = true;   // false: Layers holds names only (built without --profilingVerbosity=detailed)
  int profile_id = 0;     // which optimization profile's layers were kept
  int profiles = 1;       // optimization profiles found in the graph
  std::vector<EngineLayer> layers;     // NoOps folded, Constants set aside, in execution order
  std::vector<EngineLayer> constants;  // Constant layers
  int noops_folded = 0;
  int signal_wait_removed = 0;
  std::vector<EngineIO> io;
  bool has_profile = false;       // profile.json was read
  std::string profile_join;       // "position", "name" or "" without a profile
  int untimed_layers = 0;         // layers without a profile record (0 when there is no profile)
  // From the metadata files: device_information (profile.metadata.json),
  // model_options + build_options (build.metadata.json), performance_summary.
  // Values as text for people; the *_json strings hold the same objects as
  // compact JSON for machine output ("{}" when absent).
  KeyValues device, builder, performance;
  std::string device_json = "{}", builder_json = "{}", performance_json = "{}";
  std::optional<IterationTiming> timing;
  // Why results are incomplete, one sentence each (missing files, names-only
  // graph, unmatched profile records). Empty when everything is present.
  std::vector<std::string> notes;
  bool partial() const { return !notes.empty(); }
  double total_latency_ms() const;  // sum of the layers' avg_ms
};

struct LoadOptions {
  int profile_id = 0;  // optimization profile whose layers to keep (names suffixed " [profile N]" for N > 0)
};

// Loads a plan. Throws InputError(file, problem) for: an unreadable file,
// invalid JSON (with its byte offset), JSON nested deeper than
// kMaxNestingDepth (src/util/limits.h) or a number past the range of a double
// in a layer attribute or a metadata value, a graph of an unknown layout (not an
// object with a "Layers" list of layer objects or names), no layer in the
// requested optimization profile, a profile.json that is not a list of records
// or none of whose records names a layer, a timing.json that is not a list,
// invalid metadata JSON. A missing profile, layers without a profile record,
// a names-only graph, a profile whose names disagree by position, or times
// that are not finite numbers (NaN, Infinity, 1e400; counted as 0 ms) do not
// throw: they add notes (EnginePlan::notes) and the result is partial.
// Invalid UTF-8 in the files is replaced by U+FFFD. Layer and binding names
// whose "[profile N]" suffix has N >= INT_MAX are taken as plain names.
EnginePlan load_plan(const PlanFiles& files, const LoadOptions& options = {});
// Parses graph.json text (and optional profile.json text); `graph_name` and
// `profile_name` name them in errors. For tests and tools holding text in memory.
EnginePlan parse_plan(const std::string& graph_json, const std::string& graph_name,
                      const std::string& profile_json = "", const std::string& profile_name = "",
                      const LoadOptions& options = {});

// Profile records as trtexec writes them. Tolerant: layer names with
// unescaped quotes, backslashes or control characters are accepted.
struct ProfileRecord {
  std::string name;
  // NaN when the file holds nan, inf, NaN, Infinity, a string or a number past double's range.
  double time_ms = 0, avg_ms = 0, median_ms = 0, percent = 0;
};
// Throws InputError(file_name, ...) when `text` is not a list of records.
std::vector<ProfileRecord> parse_profile(const std::string& text, const std::string& file_name);

// Canonical precision of a datatype word of the inspector ("Half" → "FP16", "Int8" → "INT8"); "" unknown.
std::string precision_of_datatype(const std::string& word);

// ---- summary ----

struct GroupStat {
  std::string key;       // layer type or precision
  int count = 0;
  double latency_ms = 0;
  double percent = 0;    // of total latency
};

struct ReformatInfo {
  const EngineLayer* layer = nullptr;
  std::string from, to;  // short formats of input 0 and output 0
  std::string reason;    // why it exists, from Origin and the name
};

struct EngineSummary {
  int layers = 0;
  double total_latency_ms = 0;
  std::vector<GroupStat> by_type;       // by latency, then count, descending
  std::vector<GroupStat> by_precision;  // same order; "" precision shown as "none"
  std::vector<const EngineLayer*> slowest;  // top N by avg_ms
  std::vector<ReformatInfo> reformats;
  int reformat_count = 0;
  double reformat_ms = 0, reformat_percent = 0;
  std::vector<const EngineLayer*> fused;
  int64_t weights_bytes = 0;
  // Every layer's inputs plus outputs, summed: the bytes layers read and
  // write (a tensor counts once per reader and once for its writer).
  int64_t layer_io_bytes = 0;
  // Each distinct tensor once (by name, its largest size): what the
  // activations occupy if none shared memory; TensorRT reuses memory, so
  // the device footprint is at most this.
  int64_t tensor_bytes = 0;
};

// Pointers refer into `plan`, which must outlive the summary.
EngineSummary summarize(const EnginePlan& plan, int slowest = 10);

// ---- lint ----

enum class Severity { Info, Warning, Error };
const char* severity_name(Severity s);  // "info", "warning", "error"

struct Finding {
  std::string linter;     // "conv-int8-float-output", ...
  std::string layer;      // layer name
  Severity severity = Severity::Warning;
  std::string message;    // what is wrong
  std::string suggestion; // what to do
};

struct Linter {
  const char* name;
  const char* description;
  void (*run)(const EnginePlan& plan, std::vector<Finding>& out);
};
// Every linter (src/engine/lint_*.cpp), registered in src/engine/lint.cpp.
const std::vector<Linter>& linters();
// Runs every linter (or the named ones); findings by severity, then layer order.
std::vector<Finding> lint(const EnginePlan& plan, const std::vector<std::string>& only = {});

// ---- compare ----

// Names that tell plans apart: `given` (--label) where present, else the plan
// name; plans whose names repeat (resnet.onnx.engine built twice) get their
// folder ("resnet18-pt-a100-fp16/resnet.onnx.engine"), then a number.
std::vector<std::string> plan_labels(const std::vector<const EnginePlan*>& plans,
                                     const std::vector<std::string>& given = {});

// End-to-end figures of one plan, beside the sum of its layers. Each is absent
// when its source file is: timing.json (--exportTimes) gives the per-iteration
// latency; trtexec's performance summary (profile.metadata.json) gives its
// mean latency and throughput.
struct EndToEnd {
  double layers_ms = 0;                        // sum of layer averages (profile.json)
  std::optional<double> median_ms, mean_ms;    // timing.json, per iteration
  std::optional<double> trtexec_mean_ms;       // performance summary "Latency" [min, max, mean, median, p99], ms
  std::optional<double> throughput_qps;        // performance summary "Throughput", inferences per second
};
EndToEnd end_to_end(const EnginePlan& plan);

// One row of the layer diff: the same layer in each plan, or absent.
struct LayerMatch {
  std::string name;                    // from the first plan that has the layer
  std::string type;
  std::vector<int> index;              // per plan: index into plans[p]->layers, -1 when absent
  // "signature" (type and input/output shapes, aligned in order), "name", or
  // "" when the layer is in one plan only.
  std::string matched_by;
  std::vector<std::optional<double>> avg_ms;  // per plan, ms; nullopt when absent there, or untimed in a plan with a profile
  // Against the first plan that has the layer, over the plans that have it:
  bool precision_differs = false;      // layer precision (input 0)
  bool tactic_differs = false;         // TacticName, or TacticValue when unnamed
  bool format_differs = false;         // precision/layout of any input or output
};

struct PlanComparison {
  std::vector<const EnginePlan*> plans;
  std::vector<std::string> labels;                // plan_labels()
  std::vector<EndToEnd> end_to_end;
  std::vector<double> total_ms;
  std::vector<int> layer_counts;
  std::vector<std::string> types;                 // union, by latency in the first plan
  std::vector<std::vector<double>> type_ms;       // [type][plan]
  std::vector<std::vector<int>> type_count;       // [type][plan]
  std::vector<std::string> precisions;            // union
  std::vector<std::vector<int>> precision_count;  // [precision][plan]
  std::vector<std::vector<double>> precision_ms;  // [precision][plan]
  // Every plan is aligned with the first, as TREx does: layers whose signature
  // (type, input shapes, output shapes) agrees are matched in order (longest
  // common subsequence; past 4M layer pairs a greedy in-order match), then
  // layers left over are matched by name. Rows follow the first plan, with
  // the other plans' unmatched layers after the row they follow.
  std::vector<LayerMatch> layers;
  int matched_in_all = 0;                         // rows present in every plan
};

// `labels` as plan_labels() takes them.
PlanComparison compare_plans(const std::vector<const EnginePlan*>& plans, const std::vector<std::string>& labels = {});

}  // namespace trtlens
