// Output of `trtlens report MODEL --engine PLAN --format text|json|markdown`:
// the model overlaid with its engine (include/trtlens/overlay.h). JSON is a
// public, versioned document (docs/report.md); text and markdown are for people.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "trtlens/compat.h"
#include "trtlens/engine.h"
#include "trtlens/model.h"
#include "trtlens/overlay.h"

namespace trtlens {

inline constexpr int kOverlaySchemaVersion = 1;

// Everything one overlay view prints; the pointers must outlive the renderers.
struct OverlayView {
  const Model* model = nullptr;
  const EnginePlan* plan = nullptr;
  const Overlay* overlay = nullptr;
  const PredictionCheck* check = nullptr;
  const Annotations* predicted = nullptr;  // annotate() for check->runtime
  const KnowledgeBase* kb = nullptr;       // judged with (its fingerprint is recorded); null: the built-in one
};

std::string overlay_json(const OverlayView& v);
// The same document as JSON data (to embed in a page without printing and parsing it).
nlohmann::ordered_json overlay_document(const OverlayView& v);
std::string overlay_text(const OverlayView& v, bool color);
std::string overlay_markdown(const OverlayView& v);


}  // namespace trtlens
