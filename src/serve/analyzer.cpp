#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "render/check_output.h"
#include "render/engine_render.h"
#include "render/report.h"
#include "serve/context.h"
#include "trtlens/analysis.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "trtlens/overlay.h"
#include "trtlens/trt_env.h"
#include "util/embedded.h"
#include "util/sha256.h"

namespace trtlens::serve {

namespace {

using json = nlohmann::json;
using store::Analysis;

constexpr int kHeartbeatSeconds = 30;
constexpr size_t kMaxCachedResults = 10000;  // about 200 bytes each
constexpr int64_t kStaleSeconds = 120;

// Engines above this many layers draw their graph region by region (as `engine report`).
constexpr size_t kEngineGraphMaxLayers = 1500;

std::string files_key(const store::Version& v) { return v.tree_hash + "/" + v.main_file; }
// The release is part of the key: the same files judged against another release are another result.
// Pins are not: an engine's pages and overlay do not depend on them.
std::string engine_key(const store::Version& v, const store::Engine& e) {
  return "engine:" + e.tree_hash + (e.release.empty() ? "" : "@" + e.release) + "+" + files_key(v);
}

// Pin sets resolved from stored text, kept at most this many (a server sees a handful).
constexpr size_t kMaxPinSets = 1000;

// Longer pin lists enter analysis keys by their hash: a key over the store's 256 bytes is
// stored hashed, and an analysis under a hashed key is never garbage-collected.
constexpr size_t kMaxPinKeyBytes = 48;

std::shared_ptr<const PinSet> make_pin_set(std::vector<Pin> pins, bool project_own) {
  auto set = std::make_shared<PinSet>();
  for (const Pin& p : pins) set->key += (set->key.empty() ? "" : ",") + p.spec;
  if (set->key.size() > kMaxPinKeyBytes) set->key = "sha256:" + sha256_hex(set->key).substr(0, 32);
  set->pins = std::move(pins);
  set->project_own = project_own;
  return set;
}

// The line a failed analysis shows for `error`, without the server's folders
// (files are named by their paths in the upload); "" when even that cannot be built.
std::string failure_message(std::exception_ptr error, const store::ObjectStore& objects) noexcept {
  try {
    try {
      std::rethrow_exception(error);
    } catch (const InputError& e) {
      return without_server_paths(e.what(), objects);
    } catch (const std::bad_alloc&) {
      return "the server ran out of memory during the analysis";
    } catch (const std::exception& e) {
      return "the server could not finish the analysis: " + without_server_paths(e.what(), objects);
    }
  } catch (...) {
  }
  return {};
}

std::string what_of(std::exception_ptr error) noexcept {
  try {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      return e.what();
    }
  } catch (...) {
  }
  return "an exception that is not a std::exception";
}

}  // namespace

const std::string& analysis_fingerprint() {
  static const std::string fingerprint = [] {
    // The stored result's layout and the page code are part of it: a new layout
    // or page re-analyses (lazily). The knowledge base enters by its own fingerprint.
    std::string all = "result schema " + std::to_string(kResultSchema) + '\0' + KnowledgeBase::builtin().fingerprint();
    for (const EmbeddedFile& f : embedded_files())
      if (f.path.starts_with("web/")) all += fmt::format("\n{}  {}", f.sha256, f.path);
    return sha256_hex(all);
  }();
  return fingerprint;
}

std::string diff_rows_json(const std::vector<DiffRow>& rows) {
  json out = json::array();
  for (const DiffRow& r : rows)
    out.push_back({r.graph, r.node, r.op_type, verdict_name(r.verdict->verdict),
                   r.verdict->reasons.empty() ? std::string() : r.verdict->reasons[0].message, r.producers,
                   r.attributes});
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string PinResult::dla_share() const {
  if (dla_nodes < 0 || placed_nodes <= 0) return "";
  // Rounded down: "DLA 100%" only when every node is on the DLA.
  return fmt::format("DLA {}%", static_cast<int64_t>(dla_nodes) * 100 / placed_nodes);
}

std::unique_ptr<StoredDiffRows> read_diff_rows(const std::string& text) {
  json doc = json::parse(text);
  auto out = std::make_unique<StoredDiffRows>();
  out->verdicts.reserve(doc.size());  // rows point into it: no reallocation below
  for (const auto& r : doc) {
    NodeVerdict v;
    std::string verdict = r.at(3).get<std::string>();
    for (Verdict x : kAllVerdicts)
      if (verdict_name(x) == verdict) v.verdict = x;
    std::string reason = r.at(4).get<std::string>();
    if (!reason.empty()) v.reasons.push_back({"", reason, ""});
    out->verdicts.push_back(std::move(v));
    out->rows.push_back({r.at(0).get<std::string>(), r.at(1).get<std::string>(), r.at(2).get<std::string>(),
                         &out->verdicts.back(), r.at(5).get<std::vector<int>>(), r.at(6).get<std::string>()});
    for (int p : out->rows.back().producers)
      if (p < -1 || static_cast<size_t>(p + 1) > doc.size()) throw std::out_of_range("diff row: producer out of range");
  }
  return out;
}

std::vector<Pin> resolve_pins(const std::vector<std::string>& specs, const std::string& what) {
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  std::vector<Pin> pins;
  if (specs.size() > store::kMaxPins)
    throw UsageError(fmt::format("{}: {} pins; at most {} (each is stored with every version)", what, specs.size(),
                                 store::kMaxPins));
  if (specs.empty()) {
    // The newest release of each of the three newest majors, at fp16.
    const auto& releases = kb.releases();
    for (auto it = releases.rbegin(); it != releases.rend() && pins.size() < 3; ++it)
      if (pins.empty() || pins.back().release->major != it->major) pins.push_back({&*it, Precision::FP16, "", nullptr, ""});
  } else {
    for (const std::string& spec : specs) {
      size_t colon = spec.find(':');
      const std::string shown = spec.substr(0, 80);
      if (colon == std::string::npos)
        throw UsageError(what + " " + shown + ": expected RELEASE:PRECISION[:TARGET], e.g. 8.6:fp16 or 8.5:fp16:orin-dla");
      size_t second = spec.find(':', colon + 1);
      // Each refusal names the pin: "pins of vision 99.1:fp16: unknown TensorRT release 99.1; known: ...".
      try {
        Pin pin{&kb.resolve(spec.substr(0, colon)), parse_precision(spec.substr(colon + 1, second - colon - 1)), "",
                nullptr, ""};
        if (second != std::string::npos) {
          const TargetCatalog& catalog = TargetCatalog::builtin();
          pin.target = &catalog.resolve(spec.substr(second + 1));
          catalog.check_release(*pin.target, *pin.release);
        }
        pins.push_back(pin);
      } catch (const UsageError& e) {
        throw UsageError(what + " " + shown + ": " + e.what());
      } catch (const InputError& e) {
        throw UsageError(what + " " + shown + ": " + e.what());
      }
    }
  }
  // Each pin may name its own target: pins are narrowed one by one (analyze_model); the report
  // page's Target select carries the first pin's target (Analyzer::analyse).
  for (Pin& p : pins) {
    p.label = p.release->name + " " + std::string(precision_name(p.precision)) + (p.target ? " " + p.target->name : "");
    p.spec = p.release->name + ":" + std::string(precision_name(p.precision)) + (p.target ? ":" + p.target->name : "");
  }
  for (size_t i = 0; i < pins.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (pins[i].spec == pins[j].spec) throw UsageError(what + ": " + pins[i].spec + " is given twice");
  return pins;
}

std::vector<std::string> canonical_pins(const std::vector<std::string>& specs, const std::string& what) {
  std::vector<std::string> out;
  if (specs.empty()) return out;  // resolve_pins would give the defaults
  for (const Pin& p : resolve_pins(specs, what)) out.push_back(p.spec);
  return out;
}

Analyzer::Analyzer(store::Store& store, std::vector<Pin> default_pins, unsigned threads)
    : store_(store), defaults_(make_pin_set(std::move(default_pins), false)) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { work(); });
  heartbeat_ = std::thread([this] { heartbeat(); });
}

void Analyzer::heartbeat() {
  std::unique_lock lock(mutex_);
  while (!stopped_.wait_for(lock, std::chrono::seconds(kHeartbeatSeconds), [this] { return stopping_; })) {
    lock.unlock();
    {
      std::lock_guard live(live_mutex_);
      for (const auto& [key, state] : live_) {
        // A store that refuses (disk full) fails this beat, not the server; the next one tries again.
        try {
          store_.update_analysis(key, analysis_fingerprint(), state);
        } catch (const std::exception& e) {
          fmt::print(stderr, "serve: cannot record the progress of analysis {}: {}\n", key, e.what());
        } catch (...) {
          fmt::print(stderr, "serve: cannot record the progress of analysis {}\n", key);
        }
      }
    }
    lock.lock();
  }
}

void Analyzer::record(const std::string& key, const store::Analysis& state) {
  // Under live_mutex_, so a heartbeat never writes an older state over a newer one.
  std::lock_guard live(live_mutex_);
  store_.update_analysis(key, analysis_fingerprint(), state);
  if (state.status == Analysis::Status::Done || state.status == Analysis::Status::Failed)
    live_.erase(key);
  else
    live_[key] = state;
}

void Analyzer::fail(const std::string& key, store::Analysis state, const std::string& message) noexcept {
  try {
    state.status = Analysis::Status::Failed;
    state.message = message.empty() ? "the server could not finish the analysis" : message;
    state.result_hash.clear();
    try {
      record(key, state);
      return;
    } catch (const std::exception& e) {
      fmt::print(stderr, "serve: cannot record the failure of analysis {}: {}\n", key, e.what());
    }
    // The store refuses even the failure (disk full): this server shows it from
    // memory, and no heartbeat keeps the job looking alive.
    std::lock_guard live(live_mutex_);
    live_.erase(key);
    if (unrecorded_failures_.size() >= kMaxCachedResults) unrecorded_failures_.clear();
    unrecorded_failures_[key] = state;
  } catch (...) {
    // No memory left even for that: the job's row stops being re-recorded and
    // is claimed again after kStaleSeconds.
    std::lock_guard live(live_mutex_);
    live_.erase(key);
  }
}

std::optional<store::Analysis> Analyzer::unrecorded_failure(const std::string& key) {
  std::lock_guard live(live_mutex_);
  auto it = unrecorded_failures_.find(key);
  if (it == unrecorded_failures_.end()) return std::nullopt;
  return it->second;
}

Analyzer::~Analyzer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  stopped_.notify_all();
  for (auto& t : threads_) t.join();
  heartbeat_.join();
}

std::shared_ptr<const PinSet> Analyzer::pins_for(const std::string& project) {
  // Read on every call (another server, or `admin pins`, may have changed them); only the
  // resolution is cached.
  std::vector<std::string> stored = store_.project_pins(project);
  if (stored.empty()) return defaults_;
  std::string text;
  for (const std::string& p : stored) text += (text.empty() ? "" : " ") + p;
  std::lock_guard lock(pins_mutex_);
  if (auto it = pin_sets_.find(text); it != pin_sets_.end()) return it->second;
  std::shared_ptr<const PinSet> set;
  try {
    set = make_pin_set(resolve_pins(stored, "pins of " + project), true);
  } catch (const UsageError& e) {
    // Stored by a trtlens whose knowledge base knew them: this project shows the server's pins.
    fmt::print(stderr, "serve: {}; the project is shown at the server's pins\n", e.what());
    set = defaults_;
  }
  if (pin_sets_.size() >= kMaxPinSets) pin_sets_.clear();
  return pin_sets_[text] = set;
}

Analyzer::Job Analyzer::model_job(const store::Version& v) {
  auto pins = pins_for(v.project);
  // No pin spec holds '?' (resolve_pins), so the last "?pins=" splits a key unambiguously.
  return {files_key(v) + "?pins=" + pins->key, v, std::nullopt, pins};
}

store::Analysis Analyzer::ensure(const store::Version& v) { return ensure_job(model_job(v)); }
store::Analysis Analyzer::ensure(const store::Version& v, const store::Engine& e) {
  return ensure_job({engine_key(v, e), v, e, nullptr});
}
store::Analysis Analyzer::retry(const store::Version& v, const std::optional<store::Engine>& e) {
  return ensure_job(e ? Job{engine_key(v, *e), v, e, nullptr} : model_job(v), /*retry_failed=*/true);
}

std::optional<store::Analysis> Analyzer::peek(const store::Version& v) {
  const std::string key = model_job(v).key;
  auto a = store_.analysis(key, analysis_fingerprint());
  if (a && (a->status == Analysis::Status::Done || a->status == Analysis::Status::Failed)) return a;
  if (auto f = unrecorded_failure(key)) return f;
  return a;
}

store::Analysis Analyzer::ensure_job(Job job, bool retry_failed) {
  const std::string& kb = analysis_fingerprint();
  // A failure is kept (the page shows its line) rather than retried on every view; retry() asks again.
  auto a = store_.analysis(job.key, kb);
  if (a && (a->status == Analysis::Status::Done || (a->status == Analysis::Status::Failed && !retry_failed))) return *a;
  if (retry_failed) {
    std::lock_guard live(live_mutex_);
    unrecorded_failures_.erase(job.key);
  } else if (auto f = unrecorded_failure(job.key)) {
    return *f;
  }
  if (store_.claim_analysis(job.key, kb, kStaleSeconds)) {
    {
      std::lock_guard live(live_mutex_);
      live_[job.key] = Analysis{};
    }
    std::lock_guard lock(mutex_);
    queue_.push_back(job);
    wake_.notify_one();
  }
  return store_.analysis(job.key, kb).value_or(Analysis{});
}

void Analyzer::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    run(job);
  }
}

void Analyzer::run(const Job& job) noexcept {
  Analysis state;
  std::string failure;
  std::exception_ptr error;
  try {
    analyse(job, state);
    return;
  } catch (...) {
    error = std::current_exception();
  }
  failure = failure_message(error, store_.objects());
  try {  // the log has the whole line, server paths included
    const store::Version& v = job.version;
    fmt::print(stderr, "serve: analysis of {}/{} v{}{} failed: {}\n", v.project, v.model, v.number,
               job.engine ? " engine " + std::to_string(job.engine->number) : "", what_of(error));
  } catch (...) {
  }
  fail(job.key, state, failure);
}

void Analyzer::analyse(const Job& job, Analysis& state) {
  const store::Version& v = job.version;
  state.status = Analysis::Status::Running;
  auto report = [&](int percent, const std::string& message) {
    state.progress_percent = percent;
    state.message = message;
    record(job.key, state);
  };
  report(1, "loading the model");
  Model model = load_stored_model(store_.objects(), v);
  json result;
  if (!job.engine) {
    const std::vector<Pin>& pin_set = job.pins->pins;
    ReportOptions options;
    // Not the version: the page is shared by every version with these files (a --force push).
    options.title = v.model;
    // The page opens where the dashboard's badges look: the first pinned runtime.
    if (!pin_set.empty()) {
      options.initial_release = pin_set.front().release;
      options.initial_precision = pin_set.front().precision;
    }
    // A pinned target: the page gets its Target select (report --target), opening on the target.
    // A page carries one target: the first a pin names (the other pins' checks and badges are
    // narrowed to theirs; their report links open the page at their release and precision).
    for (const Pin& p : pin_set)
      if (p.target && !options.target) options.target = p.target;
    ReportPage page(model, KnowledgeBase::builtin(), options);
    std::vector<Runtime> pins;
    for (const Pin& p : pin_set) pins.push_back({p.release, p.precision, p.target});
    AnalysisRequest request = page.request(2, pins);
    int last = 0;
    request.progress = [&](size_t done, size_t total) {
      int percent = 5 + static_cast<int>(85 * done / std::max<size_t>(total, 1));
      if (percent != last) report(last = percent, fmt::format("annotating runtime {} of {}", done, total));
    };
    // The pins come from the sweep (pinned[1..]), each stored as its `check --format json`.
    ModelAnalysis analysis = analyze_model(model, KnowledgeBase::builtin(), request);
    report(92, "storing the pinned runtimes");
    json converts = json::array();
    for (size_t i = 0; i < pin_set.size(); ++i) {
      const Annotations& a = analysis.pinned[i + 1];
      json pin = {{"runtime", pin_set[i].label},
                  {"converts", a.converts},
                  {"unsupported", a.summary[static_cast<int>(Verdict::UNSUPPORTED)]},
                  {"check", store_.objects().put_blob(check_json(model, a, KnowledgeBase::builtin()))},
                  {"diff", store_.objects().put_blob(diff_rows_json(diff_rows(model, a)))}};
      // A DLA target's share of the nodes it places (as `check --target` counts them), for the badges.
      if (a.dla) {
        pin["dla_nodes"] = a.dla->dla_nodes;
        pin["placed_nodes"] = a.dla->dla_nodes + a.dla->gpu_nodes + a.dla->unsupported_nodes;
      }
      converts.push_back(std::move(pin));
    }
    result = {{"schema_version", kResultSchema},
              {"page", store_.objects().put_blob(page.html(analysis))},
              {"nodes", model.node_count()},
              {"converts", converts}};
  } else {
    report(10, "loading the engine");
    EnginePlan plan = load_stored_plan(store_.objects(), *job.engine);
    report(30, "mapping layers to nodes");
    const store::Engine& e = *job.engine;
    EngineAnalysis ea;
    std::string mismatch;
    try {
      ea = analyze_engine(plan, &model, KnowledgeBase::builtin(), e.release);
    } catch (const InputError& err) {
      // No layer names a node of this version: the engine alone is still readable, so
      // its report card is made without the model, and the page says why there is no overlay.
      mismatch = without_server_paths(err.what(), store_.objects()) +
                 " (node names change between exports: attach the engine to the version it was built from)";
      ea = analyze_engine(plan, nullptr, KnowledgeBase::builtin());
    }
    std::string note = mismatch;
    if (ea.overlay && !e.release.empty()) ea.overlay->check.runtime.release_source = e.release_source;
    if (ea.overlay && e.release.empty()) {
      // Judged against a guess, every precision difference would read as a disagreement
      // (48 of 48 on a ResNet18 built by 8.6 and judged as 11.1): none are shown.
      ea.overlay->check.disagreements.clear();
      note = ea.overlay->check.runtime.release_source =
          "not known: the engine's files do not record its TensorRT release and none was given when it was "
          "attached, so no disagreement with check is shown (attach it again with its release)";
    }
    report(50, "drawing the engine report");
    std::string card = render_engine_report({&ea}, kEngineGraphMaxLayers, {e.label});
    result = {{"report", store_.objects().put_blob(card)}, {"overlay", ""}, {"note", note}};
    if (ea.overlay) {
      EngineOverlay& eo = *ea.overlay;
      report(70, "drawing the model with the engine");
      ReportEngine re{&plan, &eo.overlay, &eo.check};
      ReportOptions options;
      options.title = v.model + " + " + e.label;
      options.engine = &re;
      options.initial_precision = eo.check.runtime.precision;
      options.initial_release = eo.check.runtime.release;
      std::string page = render_report(model, KnowledgeBase::builtin(), options);
      result["overlay"] = store_.objects().put_blob(page);
    }
  }
  state.result_hash = store_.objects().put_blob(result.dump());
  state.status = Analysis::Status::Done;
  report(100, "done");
}

std::optional<std::string> Analyzer::result_hash(const std::string& key) {
  auto a = store_.analysis(key, analysis_fingerprint());
  if (!a || a->status != Analysis::Status::Done) return std::nullopt;
  return a->result_hash;
}

std::optional<ModelResult> Analyzer::model_result(const store::Version& v) {
  auto hash = result_hash(model_job(v).key);
  if (!hash) return std::nullopt;
  // Results never change once written: parsed once, then served from memory.
  std::lock_guard lock(cache_mutex_);
  if (auto it = model_results_.find(*hash); it != model_results_.end()) return it->second;
  json r = json::parse(store_.objects().get_blob(*hash));
  ModelResult out{r["page"], r["nodes"], {}};
  for (const auto& c : r["converts"])
    out.converts.push_back({c["runtime"], c["converts"], c["unsupported"], c.value("check", std::string()),
                            c.value("diff", std::string()), c.value("dla_nodes", -1), c.value("placed_nodes", 0)});
  if (model_results_.size() >= kMaxCachedResults) model_results_.clear();
  return model_results_[*hash] = out;
}

std::optional<EngineResult> Analyzer::engine_result(const store::Version& v, const store::Engine& e) {
  auto hash = result_hash(engine_key(v, e));
  if (!hash) return std::nullopt;
  json r = json::parse(store_.objects().get_blob(*hash));
  return EngineResult{r["report"], r["overlay"], r.value("note", std::string())};
}

}  // namespace trtlens::serve
