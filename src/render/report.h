// `trtlens report`: the self-contained HTML visualizer of one model.
#pragma once
#include <string>

#include "render/report_data.h"

namespace trtlens {

// Most nodes a page holds. Every node carries a verdict for each release and
// precision (about 200 per node), so memory and page size grow with both: a
// 100,000-node model makes a 20 MB page in about 0.8 GB; a 10^6-node one would
// need over 6 GB and make a page no browser opens. Past the limit, `check` and
// `partition` still work.
inline constexpr size_t kMaxReportNodes = 200000;

// Annotates `model` for every release of `kb` at every precision and returns
// the whole HTML page. `threads` annotators run at once (at least 1).
// Throws InputError(model.path, ...) for a model of more than kMaxReportNodes nodes.
std::string render_report(const Model& model, const KnowledgeBase& kb, const ReportOptions& options,
                          unsigned threads = 2);

}  // namespace trtlens
