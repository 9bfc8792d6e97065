// The data a report page carries: the model's graphs laid out (region by
// region for big graphs), and the verdict of every node for every
// (release, precision) pair, de-duplicated so a 10,000-node model stays small.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "trtlens/compat.h"
#include "trtlens/engine.h"
#include "trtlens/kb.h"
#include "trtlens/model.h"
#include "trtlens/overlay.h"
#include "trtlens/partition.h"
#include "trtlens/target.h"

namespace trtlens {

// A built engine of the model, drawn over its graph (`report --engine`).
struct ReportEngine {
  const EnginePlan* plan = nullptr;
  const Overlay* overlay = nullptr;       // overlay_engine(model, *plan)
  const PredictionCheck* check = nullptr; // compare_with_prediction for the engine's runtime
};

struct ReportOptions {
  std::string title;             // page title, usually the model file name
  const Release* initial_release = nullptr;  // one of the releases given; nullptr = the newest
  Precision initial_precision = Precision::FP32;
  // Graphs with more nodes than this are laid out and shown one region (a run
  // of this many nodes in topological order) at a time, so neither Graphviz
  // nor the browser ever handles the whole of a huge graph at once.
  size_t region_nodes = 500;
  // When set (and outliving the builder), the page carries the engine overlay:
  // `engine` in the page data (docs/report.md).
  const ReportEngine* engine = nullptr;
  // A deployment target (`report --target`): the page carries a second set of runtimes, every
  // runtime the target runs narrowed to it (with DLA placement per node for a DLA core), opens
  // on the target, and gets a Target select (`target` in the page data). Null: none.
  const Target* target = nullptr;
  // KnowledgeBase::fingerprint of the knowledge base judged with (ReportPage sets it).
  std::string kb_fingerprint;
};

// Folds the annotations of every runtime into the page data, one runtime at a
// time, so the annotations of 198 runtimes never sit in memory together.
class ReportBuilder {
 public:
  // `releases` is the selector's list, oldest first; the runtimes are
  // (release, precision) for every release and every kAllPrecisions entry.
  ReportBuilder(const Model& model, std::vector<const Release*> releases, ReportOptions options);
  ~ReportBuilder();
  ReportBuilder(const ReportBuilder&) = delete;
  ReportBuilder& operator=(const ReportBuilder&) = delete;

  // Lays the graphs out with Graphviz (json() does it if not done before).
  // Touches nothing add() touches, so it may run on another thread meanwhile;
  // never run two lay_out() at once (Graphviz is not thread-safe).
  // Throws std::runtime_error if Graphviz fails.
  void lay_out();

  // Records the annotations of releases[release_index] at `precision` (narrowed to
  // options.target when annotations.target is set). Runtimes never added show every node as UNKNOWN.
  void add(size_t release_index, Precision precision, const Annotations& annotations);

  // Records `p`, the partition of the main graph for the runtime of
  // `annotations` (the one the page opens on): the page's region toggle and summary.
  void set_partition(const Partition& p, const Annotations& annotations);

  // The page data as JSON (schema in docs/report.md).
  std::string json() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Shape as the page shows it: "[1, 3, 224, 224]", "[N, 3, ?, ?]", "?" for an
// unknown rank, "[]" for a scalar.
std::string format_shape(const TensorInfo& t);
// An attribute's value for people, long lists cut after `max_items`.
std::string format_attribute(const Attribute& a, size_t max_items = 32);

}  // namespace trtlens
