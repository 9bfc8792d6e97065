// `trtlens report`: the self-contained HTML visualizer of one model.
#pragma once
#include <future>
#include <string>

#include "render/report_data.h"
#include "trtlens/analysis.h"

namespace trtlens {

// Most nodes a page holds. Every node carries a verdict for each release and
// precision (about 200 per node), so memory and page size grow with both: a
// 100,000-node model makes a 20 MB page in about 0.8 GB; a 10^6-node one would
// need over 6 GB and make a page no browser opens. Past the limit, `check` and
// `partition` still work.
inline constexpr size_t kMaxReportNodes = 200000;

// The report page of one model, drawn from an analysis that sweeps every
// release × precision of `kb`:
//   ReportPage page(model, kb, options);
//   ModelAnalysis a = analyze_model(model, kb, page.request(threads, extra_pins));
//   std::string html = page.html(a);
// The graphs are laid out beside the sweep (on its own thread when threads > 1).
class ReportPage {
 public:
  // Throws InputError(model.path, ...) for a model of more than kMaxReportNodes nodes.
  ReportPage(const Model& model, const KnowledgeBase& kb, ReportOptions options);
  ~ReportPage();
  // The sweep feeding this page; pins[0] is the runtime the page opens on (its
  // partition is the region toggle), followed by `extra_pins`.
  AnalysisRequest request(unsigned threads, const std::vector<Runtime>& extra_pins = {});
  // The whole HTML page, once `analysis` (from request()) is done.
  std::string html(const ModelAnalysis& analysis);

 private:
  Runtime initial_;
  ReportOptions options_;
  ReportBuilder builder_;
  std::future<void> layout_;
};

// ReportPage and analyze_model in one call, for callers that need nothing else.
std::string render_report(const Model& model, const KnowledgeBase& kb, const ReportOptions& options,
                          unsigned threads = 2);

}  // namespace trtlens
