// Rendering of engine plans: summary, layer table, lint findings and
// comparisons as text, json, csv or markdown; the plan graph; the HTML report.
#pragma once
#include <string>
#include <vector>

#include "render/graphviz.h"
#include "trtlens/engine.h"

namespace trtlens {

struct EngineAnalysis;  // trtlens/analysis.h

enum class OutputFormat { Text, Json, Csv, Markdown };
// "text", "json", "csv", "markdown" (or "md"); throws UsageError otherwise.
OutputFormat parse_output_format(const std::string& s);

inline constexpr int kEngineSchemaVersion = 1;

// A device-information value for people, with its unit: profile.metadata.json
// keeps numbers without units (TREx's parse drops them: "SMs": 108.0,
// "Compute Clock Rate": 1.41), so "108", "1.41 GHz", "5120 bits"; text values
// (a log's "1.41 GHz", "80994 MiB") pass unchanged.
std::string device_value_text(const std::string& key, const std::string& value);

// `findings` may be null (lint not run).
std::string render_engine_summary(const EnginePlan& plan, const EngineSummary& s, const std::vector<Finding>* findings,
                                  OutputFormat f, bool color);
// Columns of the layer table in text and markdown: the default (type,
// precision, tensors, tactic, latency), "compute" (implicit GEMM M/N/K, MACs,
// arithmetic intensity, achieved GFLOP/s and GB/s against the device peaks;
// Convolution/Deconvolution/FullyConnected/MatrixMultiply layers only) or
// "memory" (weights, bias, input, output and footprint bytes, achieved GB/s).
// JSON and CSV always carry every column.
enum class LayersView { Default, Compute, Memory };
// "default", "compute", "memory"; throws UsageError otherwise.
LayersView parse_layers_view(const std::string& s);

// `rows` are indices into plan.layers, in display order; `a` is analyze_layers(plan).
std::string render_engine_layers(const EnginePlan& plan, const LayerAnalysis& a, const std::vector<size_t>& rows,
                                 OutputFormat f, LayersView view = LayersView::Default);
std::string render_engine_lint(const EnginePlan& plan, const std::vector<Finding>& findings, OutputFormat f, bool color);
std::string render_engine_compare(const PlanComparison& c, OutputFormat f, size_t max_layers);

struct EngineGraphOptions {
  std::string color_by = "type";  // layer fill: "type" (TREx's palette) or "precision" (the edge palette)
  std::string highlight;          // RE2 regular expression; matching layer names get a thick magenta border
  std::string select;             // RE2 regular expression; when set, draw only matching layers...
  int hops = 0;                   // ...and the layers within this many data edges of them
  size_t max_layers = 0;          // refuse to draw more layers than this (0: no cap)
};

// The most layers `engine graph` has Graphviz lay out (svg, png, pdf) without
// --force: layout time grows faster than the graph (2,000 layers take 0.6 s
// of CPU, 4,300 about 7 s, 20,000 more than 300 s; bench/README.md). The
// same figure as `engine report`'s --graph-max-layers default.
inline constexpr size_t kEngineGraphMaxLayers = 1500;

// The data-dependency graph: layers as nodes coloured by type (or precision),
// tensors as edges coloured by precision (FP32 red, FP16 orange, INT8 green).
// Throws UsageError for an unknown color_by, an invalid regex, a selection
// that matches no layer, or more layers to draw than max_layers.
DotGraph engine_dot_graph(const EnginePlan& plan, const EngineGraphOptions& options = {});
// Fill colour of a layer type and colour of a precision (TREx's palettes).
std::string engine_type_color(const std::string& type);
std::string engine_precision_color(const std::string& precision);

// The self-contained HTML report card of one or more plans. The graph is laid
// out here (Graphviz, fixed-size boxes, no fonts) and drawn by the page; a plan
// of more than `graph_max_layers` layers is cut into regions of
// `region_layers` consecutive layers (execution order), each laid out on its
// own and shown one at a time with nodes leading to the neighbouring regions,
// as `report` does for big ONNX graphs (Graphviz time grows faster than the
// graph). Plans are named by plan_labels(plans, labels). An engine analysed
// with a model carries the overlay_document() of the model on it: the page then
// lists each node's layer, precision and time, and the disagreements with check.
std::string render_engine_report(const std::vector<const EngineAnalysis*>& engines, size_t graph_max_layers,
                                 const std::vector<std::string>& labels = {}, size_t region_layers = 500);

}  // namespace trtlens
