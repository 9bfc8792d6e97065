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
#include <string_view>
#include <utility>
#include <unordered_map>
#include <vector>

namespace trtlens {

// The files describing one engine. Only `graph` is required.
struct PlanFiles {
  std::string graph;             // <prefix>.graph.json
  std::string profile;           // <prefix>.profile.json, "" when absent
  std::string timing;            // <prefix>.timing.json, "" when absent
  std::string profile_metadata;  // <prefix>.profile.metadata.json, "" when absent
  std::string build_metadata;    // <prefix>.build.metadata.json, "" when absent
  // trtexec logs: <prefix>.build.log and <prefix>.profile.log when present (the
  // names TREx's process_engine.py gives them), or those given with --log.
  // Their device, builder and performance sections replace the metadata
  // files' (see apply_trtexec_log).
  std::vector<std::string> logs;
};

// Resolves `spec` to the files of one plan. `spec` is a path prefix
// ("resnet.onnx.engine" → resnet.onnx.engine.graph.json, .profile.json,
// .timing.json, .profile.metadata.json, .build.metadata.json, .build.log,
// .profile.log), a graph.json
// path (its siblings are looked up by the same prefix), a folder holding
// exactly one *.graph.json, or any other .json file (taken as the graph, with
// no siblings). A layers_<name>.json (layer_, layers-, any case) takes the
// profile_<name>.json beside it as its profile, as TensorRT 11.1's
// perf-analysis skill pairs them; a folder with no *.graph.json and exactly
// one such layer file is that file. Absent siblings are left "". Throws
// InputError(spec, ...) when no graph.json is found or a folder holds several.
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
  // "Strides" and "StrideOrder" (11.x layer info, in elements); empty when absent.
  std::vector<int64_t> strides, stride_order;
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
  std::vector<EngineTensor> inputs, outputs;  // after NoOp folding (what the layer reads and writes in the plan's graph)
  // The tensors as graph.json wrote them, kept only for a layer whose ports
  // NoOp folding rewired (empty otherwise). TREx's linters and its compare read
  // the layer as written (its DataFrame holds the raw Inputs/Outputs,
  // release/10.16:tools/experimental/trt-engine-explorer/trex/engine_plan.py:103),
  // so a classifier [1,1000,1,1] whose output a NoOp squeezes to [1,1000] is
  // still checked as 4-D.
  std::vector<EngineTensor> written_inputs, written_outputs;
  const std::vector<EngineTensor>& inputs_as_written() const { return written_inputs.empty() ? inputs : written_inputs; }
  const std::vector<EngineTensor>& outputs_as_written() const { return written_outputs.empty() ? outputs : written_outputs; }
  std::string precision;  // precision of the first input; "" when the layer has no input
  // 11.x "Constants": the constant tensors (weights) a layer reads, kept apart
  // from `inputs` (they are no data edge and do not set the precision).
  std::vector<EngineTensor> constant_inputs;
  int stream_id = -1;     // "StreamId" (the CUDA stream the layer runs on, 10.x+); -1 when absent
  // "Weights" and "Bias" as Count × element size of their Type, kept apart:
  // TREx counts Weights only (its weights_size). INT64_MAX when that overflows.
  int64_t weights_bytes = 0, bias_bytes = 0;
  // Convolution and Deconvolution parameters: "Kernel" (R, S, ...) and
  // "Groups"; empty and 0 when absent or not non-negative integers.
  std::vector<int64_t> kernel;
  int64_t groups = 0;
  // PointWise layers: "NbOperations" (PointWiseV2) or "NbInstructions"
  // (PointWise), the operations TensorRT fused into the kernel; -1 when absent.
  int n_operations = -1;
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
// Up to 10.x the graph names the bindings only: their mode, shape and format
// are taken from the layer tensors of the same name (after NoOp folding), as
// TREx's get_bindings does; 11.x states shape and DataType itself.
struct EngineIO {
  std::string name;
  std::string mode;        // "Input", "Output"; from the layers for Bindings ("" when no layer touches it)
  std::string data_type;   // 11.x DataType ("Float", ...), "" when absent
  std::vector<int64_t> dims;
  std::string format;      // short format of the layer tensor ("FP32 LINEAR"), "" when none
};

// Per-iteration timing from timing.json (latencyMs of each record).
struct IterationTiming {
  size_t iterations = 0;
  double mean_ms = 0, median_ms = 0, p90_ms = 0, p99_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<double> latencies_ms;  // every iteration's latencyMs, in file order (the report plots them)
};

struct EnginePlan;

// ---- trtexec logs ----

// One metric of trtexec's performance summary, in ms ("Latency: min = 0.85 ms,
// max = 0.87 ms, mean = 0.86 ms, median = 0.86 ms, percentile(99%) = 0.87 ms").
struct TrtexecStat {
  std::optional<double> min, max, mean, median;
  std::vector<std::pair<double, double>> percentiles;  // (percent, ms) in the order printed
};

// trtexec's "=== Performance summary ===". From a log every figure is named;
// from profile.metadata.json (TREx's parse of the log) a metric is a list whose
// first four values are min, max, mean and median, and the percentiles that
// follow are unnamed there, so they are left out.
struct TrtexecPerformance {
  std::optional<double> throughput_qps;  // inferences per second ("Throughput: 1155.36 qps")
  std::optional<TrtexecStat> latency, enqueue, h2d, gpu_compute, d2h;  // ms
  std::optional<double> host_walltime_s, gpu_compute_total_s;         // "Total Host Walltime", "Total GPU Compute Time", s
  std::vector<std::string> warnings;  // the [W] lines printed with the summary ("GPU compute time is unstable, ...")
  size_t warnings_left_out = 0;       // warnings past the first kTrtexecLogLinesKept, counted only
};

// A log keeps at most this many lines per section and warnings of its summary
// (real logs have tens): a log of millions of short lines costs no more memory
// or output than this many.
inline constexpr size_t kTrtexecLogLinesKept = 1000;

// What a trtexec log (its console output, 8.x to 10.x) says. Sections are the
// "=== Name ===" blocks of "[timestamp] [I] Key: value" lines; a value is all
// of the line after the first ": " (TREx keeps only up to the next ':', so
// its "Memory Pools" reads "workspace").
struct TrtexecLog {
  std::string file;
  std::string tensorrt_version;  // "8.6.1": the "TensorRT version:" line, else decoded from "[TensorRT v8601]"
  std::string command;           // the command line of the "&&&& RUNNING TensorRT.trtexec" banner
  std::string result;            // "PASSED" or "FAILED" ("&&&& PASSED ..."); "" when the log stops before
  KeyValues model_options, build_options, inference_options, device;  // as printed
  KeyValues performance;         // the summary's lines as printed (text for people)
  std::optional<TrtexecPerformance> perf;  // the same, as numbers; absent without a summary
  std::optional<double> build_time_s;      // "Engine built in 35.2 sec."
  // Lines whose figures were refused (not a number, out of range, unknown
  // unit), one sentence each naming the line number.
  std::vector<std::string> notes;
};

// Parses the text of a trtexec log. Lines may end in \n or \r\n and be of
// any length (values past 4 KiB are cut); invalid UTF-8 is replaced by U+FFFD.
// Each section keeps its first kTrtexecLogLinesKept lines (a note counts the
// rest), the summary its first kTrtexecLogLinesKept warnings (warnings_left_out
// counts the rest).
// A figure must be a finite number in a sane range (latencies and times
// 0-1e9, throughput 0-1e12) in a known unit (ms, s, us for times; qps), else
// it is left out with a note. Throws InputError(file_name, ...) when the text
// has neither the trtexec banner nor any "=== ... ===" section (not a trtexec
// log, binary data).
TrtexecLog parse_trtexec_log(std::string_view text, const std::string& file_name);
// Reads and parses a log file: a regular file of at most 1 GiB (kMaxInputBytes),
// memory-mapped. Throws InputError(path, ...) as read_file and parse_trtexec_log do.
TrtexecLog read_trtexec_log(const std::string& path);

// Puts a log's sections in `plan`: device ("Device Information"), builder
// ("Model Options" + "Build Options", from a log with Build Options: one that
// built the engine) and performance ("Performance summary") replace those read
// from the metadata files when the log has them, and the
// *_source fields name the log. Logs are applied in order, so a build log and
// a profiling log complete each other. Called by load_plan for files.logs.
void apply_trtexec_log(EnginePlan& plan, const TrtexecLog& log);

// The shape of a layer-info file, as detect_layout() (src/engine/load.cpp)
// names it before the loader's passes run. docs/engine.md ("Layouts") says
// which TensorRT release writes which.
struct PlanLayout {
  // "8.x" (no Metadata), "8.6+" (Metadata), "10.x" (Myelin/kgen layers),
  // "11.x" (I/O Tensors, or tensors with Format + Datatype), "names only".
  std::string release;
  // Where the layer list is: "Layers" (trtexec), "layers", "LayerInfo",
  // "layerInfo", or "bare list" (the file is the list).
  std::string layer_list;
  // Tensor fields: "Format/Datatype", "Format + Datatype", both, or "none";
  // ", Strides" appended when tensors carry Strides/StrideOrder.
  std::string tensor_fields;
  std::vector<std::string> layer_fields;  // of Metadata, StreamId, Constants, _subgraph: those present
  std::string io;  // "Bindings", "I/O Tensors", or "none (taken from the graph)"
  // "11.x; layer list: bare list; tensors: Format + Datatype, Strides; layers: StreamId, Constants; I/O: ..."
  std::string describe() const;
};

struct EnginePlan {
  std::string name;       // file name of the graph without ".graph.json"
  PlanFiles files;
  // "8.x" (Bindings, no Metadata), "8.6+" (Bindings and Metadata), "10.x"
  // (Myelin/kgen formats), "11.x" (I/O Tensors) — a guess from the fields
  // present; layout_detail.release.
  std::string layout;
  PlanLayout layout_detail;
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
  // Where each of the three came from: "profile.metadata.json",
  // "build.metadata.json", "trtexec log <file>"; "" when absent.
  std::string device_source, builder_source, performance_source;
  std::optional<TrtexecPerformance> perf;  // `performance` as numbers (from the metadata or a log)
  std::vector<TrtexecLog> logs;            // the logs applied, in order
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
// invalid metadata JSON, a trtexec log that read_trtexec_log refuses. Logs
// (files.logs) are applied after the metadata files (apply_trtexec_log). A missing profile, layers without a profile record,
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

// ---- analytics: compute, memory, device peaks ----

// What the device can do at best, from its device information (the
// profile.metadata.json "device_information" section or a log's "Device
// Information"). Each figure says what it is computed from; a figure whose
// inputs are missing or out of range is absent, with the reason in its basis.
struct DevicePeaks {
  std::string device;  // "Selected Device", "" when absent
  std::string source;  // EnginePlan::device_source
  // Memory: "Memory Bus Width" (bits) / 8 × "Memory Clock Rate" (GHz;
  // "Application Memory Clock Rate" in 8.6+ logs) × 2 transfers per clock
  // (double data rate, as CUDA reports the clock of HBM and GDDR alike). GB/s.
  std::optional<double> memory_gbps;
  std::string memory_basis;
  // Compute: "SMs" × "Compute Clock Rate" (GHz; "Application Compute Clock
  // Rate" in 8.6+ logs) × dense multiply-accumulates per clock per SM for the
  // "Compute Capability" and precision × 2 FLOP per MAC, in GFLOP/s. The
  // per-SM rates are the architecture's best dense rate for an input precision
  // (Tensor Cores with FP16 accumulation; TF32 Tensor Cores for FP32 from 8.0),
  // from NVIDIA's architecture whitepapers (Volta, Turing, A100, GA102, Ada,
  // H100); see src/engine/analytics.cpp. Compute capabilities or precisions
  // not in that table have no peak. GeForce boards run FP16 with FP32
  // accumulation and TF32 at half these rates, so their efficiencies can read
  // up to 2x low (the basis says so).
  std::vector<std::pair<std::string, double>> compute_gflops;  // (precision, GFLOP/s), FP32 first
  std::string compute_basis;
  std::optional<double> compute_for(const std::string& precision) const;  // GFLOP/s; absent when unknown
};
DevicePeaks device_peaks(const EnginePlan& plan);

// A Convolution, Deconvolution, FullyConnected or MatrixMultiply layer as
// arithmetic. Convolutions follow TREx (annotate_convolutions): input 0 is
// [N, C, spatial...], output 0 [N, K, spatial...], kernel R×S...:
//   MACs = N·K·P·Q·C·R·S / Groups;  implicit GEMM M = N·P·Q, N = K, K = C·R·S
//   (TREx does not divide K by the groups);  bytes = input 0 + output 0 +
//   K·C·R·S/Groups weights at input 0's element size.
// Deconvolutions: MACs = N·C·H·W·K·R·S / Groups (each input element meets
// K/Groups·R·S weights), bytes as above, no GEMM shape. FullyConnected:
// M = N, N = output elements / N, K = input elements / N. MatrixMultiply:
// output [..., M, N], K from input 0's last two dimensions ("MatrixOpA"
// naming TRANSPOSE swaps them, VECTOR makes it the last), M counting every
// batch; bytes = every input + output 0.
struct LayerCompute {
  int64_t macs = 0;
  std::optional<int64_t> gemm_m, gemm_n, gemm_k;
  int64_t bytes = 0;                // what the arithmetic intensity divides by (above)
  double arithmetic_intensity = 0;  // MACs per byte, as TREx (FLOP per byte is twice this)
  std::optional<double> gflops;     // achieved: 2·MACs / avg_ms; absent when untimed or 0 ms
  std::optional<double> compute_efficiency;  // gflops over the peak for the layer's precision, percent
};

// One layer's memory and, for the layer types above, its arithmetic.
struct LayerStats {
  const EngineLayer* layer = nullptr;
  int64_t input_bytes = 0, output_bytes = 0;  // every input, every output (size_bytes; saturating)
  // TREx's total_footprint_bytes: inputs + outputs + weights_bytes (not the bias).
  int64_t footprint_bytes = 0;
  std::optional<double> gbps;               // achieved: footprint_bytes / avg_ms; absent when untimed or 0 ms
  std::optional<double> memory_efficiency;  // gbps over DevicePeaks::memory_gbps, percent
  std::optional<LayerCompute> compute;      // absent for other types, or when a shape is dynamic or missing
};

struct LayerAnalysis {
  DevicePeaks peaks;
  std::vector<LayerStats> layers;  // one per plan.layers, same order
  // Totals over the layers with `compute`:
  int compute_layers = 0;
  int64_t macs = 0;          // saturating
  double compute_ms = 0;     // their summed avg_ms
  std::optional<double> gflops;  // 2·macs / compute_ms
  // Layers of the four types whose arithmetic could not be worked out, with why ("dynamic shape").
  std::vector<std::pair<const EngineLayer*, std::string>> skipped;
};

// Pointers refer into `plan`, which must outlive the result.
LayerAnalysis analyze_layers(const EnginePlan& plan);

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

// PointWise layers that fused the same number of operations (TREx's
// report_card_pointwise_lint).
struct PointwiseStat {
  int n_operations = -1;  // -1: the layer does not say
  int count = 0;
  double latency_ms = 0;
  double percent = 0;     // of total latency
  double ms_per_operation = 0;  // latency_ms / (count × n_operations); 0 when n_operations <= 0
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
  int64_t weights_bytes = 0;  // every layer's Weights (TREx's total_weights_size)
  int64_t bias_bytes = 0;     // every layer's Bias, which TREx leaves out
  // Every layer's inputs plus outputs, summed: the bytes layers read and
  // write (a tensor counts once per reader and once for its writer).
  int64_t layer_io_bytes = 0;
  // Each distinct tensor once (by name, its largest size): what the
  // activations occupy if none shared memory; TensorRT reuses memory, so
  // the device footprint is at most this.
  int64_t tensor_bytes = 0;
  // Roll-ups of TREx's report card: latency and count by TacticName ("TensorRT"
  // for layers without one, as TREx), reformats by Origin ("none" when
  // absent), PointWise layers by their number of operations (fewest first).
  std::vector<GroupStat> by_tactic;
  std::vector<GroupStat> reformats_by_origin;
  std::vector<PointwiseStat> pointwise;
  LayerAnalysis analysis;  // per-layer memory and arithmetic, device peaks
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

// One data edge between an engine's layers: `from` -1 is an engine input, `to` -1
// an engine output. Tensors nobody writes that are not inputs (constants,
// Myelin-internal weights) have no edge, as TREx hides them.
struct EngineEdge {
  int from, to;
  const EngineTensor* tensor;  // points into plan.layers
};

// The data flow of a plan's layers, what TREx's EnginePlan graph holds: built
// once per analysis by index_plan and read by the linters, the graph drawings
// and the report card. Keys and pointers refer to the plan, which must outlive it.
struct PlanIndex {
  // Each layer input from its last earlier writer (or -1 when it is an engine
  // input, or every unwritten input when the plan lists no I/O), then each
  // engine output from its last writer.
  std::vector<EngineEdge> edges;
  std::unordered_map<std::string_view, int> writer;                // tensor -> the last layer writing it
  std::unordered_map<std::string_view, std::vector<int>> readers;  // tensor -> layers reading it, once per input port
};
PlanIndex index_plan(const EnginePlan& plan);

struct Linter {
  const char* name;
  const char* description;
  void (*run)(const EnginePlan& plan, const PlanIndex& index, std::vector<Finding>& out);
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
// latency; trtexec's performance summary (EnginePlan::perf: profile.metadata.json
// or a trtexec log) gives its mean latency and throughput.
struct EndToEnd {
  double layers_ms = 0;                        // sum of layer averages (profile.json)
  std::optional<double> median_ms, mean_ms;    // timing.json, per iteration
  // Performance summary "Latency" mean and median, ms: the end-to-end figures
  // of a plan without timing.json.
  std::optional<double> trtexec_mean_ms, trtexec_median_ms;
  std::optional<double> throughput_qps;        // performance summary "Throughput", inferences per second
};
EndToEnd end_to_end(const EnginePlan& plan);

// A layer's input and output precisions, one per tensor as graph.json wrote
// it (before NoOp folding), joined with ", ": "INT8", "FP16, FP16"; "?" for a
// tensor of unknown precision, "" for none (TREx's get_io_precisions).
std::string input_precisions(const EngineLayer& l);
std::string output_precisions(const EngineLayer& l);

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
  // Input and output precisions (every tensor, as input_precisions() and
  // output_precisions() write them); precision_differs is either, as TREx's
  // "Precision Mismatch" filter (in-p or out-p).
  bool precision_differs = false;
  bool input_precision_differs = false, output_precision_differs = false;
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
