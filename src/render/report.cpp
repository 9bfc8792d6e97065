#include "render/report.h"

#include <future>
#include <vector>

#include "compat/annotator.h"
#include "render/report_html.h"

namespace trtlens {

std::string render_report(const Model& model, const KnowledgeBase& kb, const ReportOptions& options,
                          unsigned threads) {
  std::vector<const Release*> releases;
  for (const Release& r : kb.releases()) releases.push_back(&r);
  ReportBuilder builder(model, releases, options);
  // One annotator for all runtimes: its per-model facts are computed once.
  const Annotator annotator(model, kb);
  struct Job {
    size_t release;
    Precision precision;
  };
  std::vector<Job> jobs;
  for (size_t r = 0; r < releases.size(); ++r)
    for (Precision p : kAllPrecisions) jobs.push_back({r, p});
  if (threads < 1) threads = 1;
  // Layout depends on the model only: it runs beside the annotators.
  std::future<void> layout = std::async(threads > 1 ? std::launch::async : std::launch::deferred,
                                        [&builder] { builder.lay_out(); });
  // Annotate a batch in parallel, then fold it in job order: the page is the
  // same whatever the thread count, and only one batch is held in memory.
  for (size_t start = 0; start < jobs.size(); start += threads) {
    std::vector<std::future<Annotations>> batch;
    for (size_t j = start; j < jobs.size() && j < start + threads; ++j) {
      const Release* rel = releases[jobs[j].release];
      Precision p = jobs[j].precision;
      batch.push_back(std::async(threads > 1 ? std::launch::async : std::launch::deferred,
                                 [&annotator, rel, p] { return annotator.run(*rel, p); }));
    }
    for (size_t j = 0; j < batch.size(); ++j) builder.add(jobs[start + j].release, jobs[start + j].precision, batch[j].get());
  }
  layout.get();
  return assemble_report_page(options.title, builder.json());
}

}  // namespace trtlens
