// The analysis layer (src/analysis): what every front door (check, matrix,
// report, engine report, the dashboard) asks for data. Front doors render what it returns;
// none of them assembles the annotator, the sweep or the partition itself.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "trtlens/compat.h"
#include "trtlens/engine.h"
#include "trtlens/overlay.h"
#include "trtlens/partition.h"
#include "trtlens/target.h"

namespace trtlens {

// One TensorRT release at one precision.
struct Runtime {
  const Release* release = nullptr;
  Precision precision = Precision::FP32;
  // The deployment target (target.h); null: none. Pins with a target are narrowed to it
  // (apply_target) after they are annotated; the sweep is not.
  const Target* target = nullptr;
};

// One runtime's annotations: annotate(model, kb, release, precision), narrowed to
// runtime.target when set. What `check` prints. Throws what annotate throws.
Annotations annotate_runtime(const Model& model, const KnowledgeBase& kb, const Runtime& runtime);

// Receives one runtime's annotations of a sweep: the release's index in the
// knowledge base, the precision, and the annotations (valid during the call only).
using AnnotationSink = std::function<void(size_t release, Precision precision, const Annotations& a)>;

struct AnalysisRequest {
  // Runtimes whose annotations the caller keeps (ModelAnalysis::pinned, same order).
  std::vector<Runtime> pins;
  // Every release × precision of the knowledge base (release-major, kAllPrecisions
  // order), each handed to `sweep` in that order whatever the thread count; pins are
  // taken from the sweep, not annotated again. Empty: no sweep.
  AnnotationSink sweep;
  // With a sweep: each runtime whose release this target runs (with DLA facts, for a DLA
  // core) is handed to `sweep` a second time, narrowed to it (apply_target; Annotations::target
  // set), right after the plain one. Null: the sweep judges runtimes without a target.
  const Target* sweep_target = nullptr;
  // partition_model at pins[*partition_pin] (ModelAnalysis::partition).
  std::optional<size_t> partition_pin;
  unsigned threads = 2;  // annotators at once (at least 1)
  // Called after each batch of the sweep: runtimes done, runtimes in all.
  std::function<void(size_t done, size_t total)> progress;
};

struct ModelAnalysis {
  std::vector<Annotations> pinned;  // one per AnalysisRequest::pins
  std::optional<Partition> partition;
};

// Annotates `model` as `request` asks: the pins (each judged once), the sweep
// (each node's import judged once per release and its precision once per runtime;
// one Annotator, so per-model facts are computed once), the partition. Pins naming a release outside `kb` are
// annotated on their own. Throws what annotate throws.
ModelAnalysis analyze_model(const Model& model, const KnowledgeBase& kb, const AnalysisRequest& request);

// What `engine summary`, `engine report`, `report --engine` and the dashboard read
// about one engine: its summary and lint findings, computed once, and with a model
// the overlay (layers on nodes) checked against check's prediction.
struct EngineAnalysis {
  const EnginePlan* plan = nullptr;
  const Model* model = nullptr;  // set with the overlay
  EngineSummary summary;
  std::vector<Finding> findings;
  std::optional<EngineOverlay> overlay;
};

// summarize(plan, slowest) and lint(plan); with `model`, overlay_and_check(model,
// plan, kb, trt, precision) ("" / nullopt: the release and precision the engine's
// files record). `plan` and `model` must outlive the result. Throws what
// overlay_and_check throws (UsageError for an unknown `trt`, InputError when no
// layer names a node of the model).
EngineAnalysis analyze_engine(const EnginePlan& plan, const Model* model, const KnowledgeBase& kb,
                              std::string_view trt = "", std::optional<Precision> precision = std::nullopt,
                              int slowest = 15);

}  // namespace trtlens
