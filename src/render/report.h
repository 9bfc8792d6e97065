// `trtlens report`: the self-contained HTML visualizer of one model.
#pragma once
#include <string>

#include "render/report_data.h"

namespace trtlens {

// Annotates `model` for every release of `kb` at every precision and returns
// the whole HTML page. `threads` annotators run at once (at least 1).
std::string render_report(const Model& model, const KnowledgeBase& kb, const ReportOptions& options,
                          unsigned threads = 2);

}  // namespace trtlens
