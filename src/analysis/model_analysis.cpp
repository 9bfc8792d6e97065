#include "trtlens/analysis.h"

#include <future>

#include "compat/annotator.h"

namespace trtlens {
namespace {

// The releases a sweep narrows to the target: those it runs, with DLA facts for a DLA core.
bool targets_release(const Target& t, const Release& r) {
  return t.runs_release(r) && (!t.dla || TargetCatalog::builtin().dla_rules(r.name));
}

}  // namespace

ModelAnalysis analyze_model(const Model& model, const KnowledgeBase& kb, const AnalysisRequest& request) {
  ModelAnalysis out;
  out.pinned.resize(request.pins.size());
  std::vector<bool> have(request.pins.size(), false);
  const Annotator annotator(model, kb);
  const auto& releases = kb.releases();
  auto pin_of = [&](const Release* r, Precision p, size_t from) {
    for (size_t i = from; i < request.pins.size(); ++i)
      if (request.pins[i].release == r && request.pins[i].precision == p) return i;
    return request.pins.size();
  };
  if (request.sweep) {
    struct Job {
      size_t release;
      Precision precision;
    };
    std::vector<Job> jobs;
    for (size_t r = 0; r < releases.size(); ++r)
      for (Precision p : kAllPrecisions) jobs.push_back({r, p});
    unsigned threads = std::max(1u, request.threads);
    auto policy = threads > 1 ? std::launch::async : std::launch::deferred;
    // Annotate a batch in parallel, then hand it over in job order: the sink sees
    // the same sequence whatever the thread count, and one batch is held at a time.
    // Each release's imports are judged once, for all its precisions (jobs are release-major).
    std::shared_ptr<const Annotator::ReleaseImports> imports;
    size_t imports_of = releases.size();
    for (size_t start = 0; start < jobs.size(); start += threads) {
      std::vector<std::future<Annotations>> batch;
      for (size_t j = start; j < jobs.size() && j < start + threads; ++j) {
        if (imports_of != jobs[j].release) {
          imports_of = jobs[j].release;
          imports = annotator.import_release(releases[imports_of]);
        }
        const Release* rel = &releases[jobs[j].release];
        Precision p = jobs[j].precision;
        batch.push_back(std::async(policy, [&annotator, rel, p, imports] { return annotator.run(*rel, p, imports.get()); }));
      }
      for (size_t j = 0; j < batch.size(); ++j) {
        const Job& job = jobs[start + j];
        Annotations a = batch[j].get();
        request.sweep(job.release, job.precision, a);
        const Release* rel = &releases[job.release];
        if (request.sweep_target && targets_release(*request.sweep_target, *rel)) {
          Annotations narrowed = a;
          apply_target(model, narrowed, *request.sweep_target);
          request.sweep(job.release, job.precision, narrowed);
        }
        for (size_t i = pin_of(rel, job.precision, 0); i < request.pins.size(); i = pin_of(rel, job.precision, i + 1)) {
          out.pinned[i] = a;
          have[i] = true;
        }
      }
      if (request.progress) request.progress(start + batch.size(), jobs.size());
    }
  }
  for (size_t i = 0; i < request.pins.size(); ++i) {
    if (!have[i]) out.pinned[i] = annotator.run(*request.pins[i].release, request.pins[i].precision);
    if (request.pins[i].target) apply_target(model, out.pinned[i], *request.pins[i].target);
  }
  if (request.partition_pin && *request.partition_pin < out.pinned.size())
    out.partition = partition_model(model, out.pinned[*request.partition_pin],
                                    PartitionOptions{1, default_exclude_ops(*request.pins[*request.partition_pin].release)});
  return out;
}

Annotations annotate_runtime(const Model& model, const KnowledgeBase& kb, const Runtime& runtime) {
  Annotations a = annotate(model, kb, *runtime.release, runtime.precision);
  if (runtime.target) apply_target(model, a, *runtime.target);
  return a;
}

}  // namespace trtlens
