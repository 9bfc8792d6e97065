#include "render/report.h"

#include <fmt/core.h>

#include <future>
#include <vector>

#include "compat/annotator.h"
#include "render/report_html.h"
#include "trtlens/error.h"
#include "trtlens/partition.h"

namespace trtlens {

std::string render_report(const Model& model, const KnowledgeBase& kb, const ReportOptions& options,
                          unsigned threads) {
  if (model.node_count() > kMaxReportNodes)
    throw InputError(model.path, fmt::format("{} nodes; a report page holds at most {} (use `trtlens check` or "
                                             "`trtlens partition` on models this large)",
                                             model.node_count(), kMaxReportNodes));
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
  const size_t initial_release =
      options.initial_release < 0 || static_cast<size_t>(options.initial_release) >= releases.size()
          ? releases.size() - 1
          : static_cast<size_t>(options.initial_release);
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
    for (size_t j = 0; j < batch.size(); ++j) {
      const Job& job = jobs[start + j];
      Annotations a = batch[j].get();
      // The region toggle shows the partition of the runtime the page opens on.
      if (job.release == initial_release && job.precision == options.initial_precision)
        builder.set_partition(partition_model(model, a, PartitionOptions{}), a);
      builder.add(job.release, job.precision, a);
    }
    if (options.on_progress) options.on_progress(start + batch.size(), jobs.size());
  }
  layout.get();
  return assemble_report_page(options.title, builder.json());
}

}  // namespace trtlens
