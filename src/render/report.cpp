#include "render/report.h"

#include <fmt/core.h>

#include <vector>

#include "render/report_html.h"
#include "trtlens/error.h"

namespace trtlens {
namespace {

std::vector<const Release*> releases_of(const KnowledgeBase& kb) {
  std::vector<const Release*> out;
  for (const Release& r : kb.releases()) out.push_back(&r);
  return out;
}

const Model& checked_size(const Model& model) {
  if (model.node_count() > kMaxReportNodes)
    throw InputError(model.path, fmt::format("{} nodes; a report page holds at most {} (use `trtlens check` or "
                                             "`trtlens partition` on models this large)",
                                             model.node_count(), kMaxReportNodes));
  return model;
}

}  // namespace

namespace {

ReportOptions with_fingerprint(ReportOptions options, const KnowledgeBase& kb) {
  options.kb_fingerprint = kb.fingerprint();
  return options;
}

}  // namespace

ReportPage::ReportPage(const Model& model, const KnowledgeBase& kb, ReportOptions options)
    : initial_{options.initial_release ? options.initial_release : &kb.releases().back(), options.initial_precision,
               options.target},
      options_(options),
      builder_(checked_size(model), releases_of(kb), with_fingerprint(std::move(options), kb)) {}

ReportPage::~ReportPage() {
  if (layout_.valid()) layout_.wait();
}

AnalysisRequest ReportPage::request(unsigned threads, const std::vector<Runtime>& extra_pins) {
  // Layout depends on the model only: it runs beside the annotators.
  layout_ = std::async(threads > 1 ? std::launch::async : std::launch::deferred, [this] { builder_.lay_out(); });
  AnalysisRequest r;
  r.pins.push_back(initial_);
  r.pins.insert(r.pins.end(), extra_pins.begin(), extra_pins.end());
  r.partition_pin = 0;
  r.threads = threads;
  r.sweep_target = options_.target;
  r.sweep = [this](size_t release, Precision p, const Annotations& a) { builder_.add(release, p, a); };
  return r;
}

std::string ReportPage::html(const ModelAnalysis& analysis) {
  if (analysis.partition && !analysis.pinned.empty()) builder_.set_partition(*analysis.partition, analysis.pinned[0]);
  if (layout_.valid()) layout_.get();
  return assemble_report_page(options_.title, builder_.json());
}

std::string render_report(const Model& model, const KnowledgeBase& kb, const ReportOptions& options,
                          unsigned threads) {
  ReportPage page(model, kb, options);
  ModelAnalysis analysis = analyze_model(model, kb, page.request(threads));
  return page.html(analysis);
}

}  // namespace trtlens
