// libFuzzer target: the engine JSON loader (graph.json and profile.json through
// simdjson, the profile pre-pass), then every analysis and writer `engine`
// runs on what loads: summary, linters, per-layer analysis, comparison, layer table, graph.
// Input: graph.json text, optionally followed by a NUL byte and profile.json text.
// Contract: InputError is the only way out; anything else is a finding.
#include <cstdint>
#include <string>

#include "render/engine_render.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  size_t nul = input.find('\0');
  std::string graph = input.substr(0, nul);
  std::string profile = nul == std::string::npos ? std::string() : input.substr(nul + 1);
  try {
    trtlens::EnginePlan plan =
        trtlens::parse_plan(graph, "fuzz.graph.json", profile, profile.empty() ? "" : "fuzz.profile.json");
    trtlens::EngineSummary summary = trtlens::summarize(plan);
    std::vector<trtlens::Finding> findings = trtlens::lint(plan);
    trtlens::LayerAnalysis analysis = trtlens::analyze_layers(plan);
    std::vector<size_t> rows(plan.layers.size());
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    for (auto format : {trtlens::OutputFormat::Text, trtlens::OutputFormat::Json}) {
      (void)trtlens::render_engine_summary(plan, summary, &findings, format, false);
      for (auto view : {trtlens::LayersView::Default, trtlens::LayersView::Compute, trtlens::LayersView::Memory})
        (void)trtlens::render_engine_layers(plan, analysis, rows, format, view);
    }
    trtlens::PlanComparison c = trtlens::compare_plans({&plan, &plan});
    (void)trtlens::render_engine_compare(c, trtlens::OutputFormat::Json, 50);
    (void)trtlens::engine_dot_graph(plan);
  } catch (const trtlens::InputError&) {
  }
  return 0;
}
