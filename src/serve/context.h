// Private to src/serve: what every route handler shares.
#pragma once
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "serve/serve.h"
#include "store/store.h"
#include "trtlens/analysis.h"
#include "trtlens/compat.h"
#include "trtlens/engine.h"
#include "trtlens/target.h"

namespace trtlens::serve {

struct Pin {
  const Release* release = nullptr;
  Precision precision = Precision::FP16;
  std::string label;  // "10.16 fp16", "8.5 fp16 orin-dla"
  const Target* target = nullptr;  // RELEASE:PRECISION:TARGET; null: none
  std::string spec;   // canonical "10.16:fp16", "8.5:fp16:orin-dla"
};
// "RELEASE:PRECISION[:TARGET]" each (`what` names them in errors: "--pin", "pins of vision").
// Throws UsageError for a malformed spec, an unknown release, precision or target, a release
// the target does not run, a pin given twice, or more than store::kMaxPins. Pins may name
// different targets (8.5:fp16:orin-dla 10.8:fp8:h100).
// No specs: fp16 on the newest release of each of the three newest majors.
std::vector<Pin> resolve_pins(const std::vector<std::string>& specs, const std::string& what = "--pin");

// The runtimes one project's analyses are stored at: its own pins, else the server's.
struct PinSet {
  std::vector<Pin> pins;
  std::string key;             // part of the analysis key: the canonical specs joined by ',', or their hash when long
  bool project_own = false;    // the project's pins (else the server's --pin)
};

// What one analysis produced (stored as a JSON blob; see Analyzer):
// {schema_version, page, nodes, converts: [{runtime, converts, unsupported, check, diff}]}.
// 4: pages and checks name the model as pushed, not by its stored path.
// 5: pages open at the first pinned runtime; engine results carry a note (no overlay, or no release).
// 6: diff rows carry each node's producers and attribute digest (the diff's graph view).
inline constexpr int kResultSchema = 6;

// A pinned runtime's nodes as a version diff matches them, stored so that two
// versions compare without loading either model: [[graph, node, op_type,
// verdict, first reason, [producer row per input, -1 for none], attribute digest], ...].
// Rows read back own their verdicts.
std::string diff_rows_json(const std::vector<DiffRow>& rows);
struct StoredDiffRows {
  std::vector<NodeVerdict> verdicts;
  std::vector<DiffRow> rows;  // point into `verdicts`
};
// Throws std::exception for a blob that is not such a document.
std::unique_ptr<StoredDiffRows> read_diff_rows(const std::string& json);
struct PinResult {
  std::string runtime;
  bool converts = false;
  int unsupported = 0;
  std::string check_hash;  // ObjectStore blob: `check --format json` at this runtime
  std::string diff_hash;   // ObjectStore blob: the diff rows at this runtime (diff_rows_json)
  // A DLA target's pin: nodes placed on the DLA, of the main-graph nodes placed (-1: not a DLA
  // pin, or a result stored before these were).
  int dla_nodes = -1;
  int placed_nodes = 0;
  // "DLA 94%" ("" when dla_nodes is not known).
  std::string dla_share() const;
};
struct ModelResult {
  std::string page_hash;  // ObjectStore blob: the report page
  size_t nodes = 0;
  std::vector<PinResult> converts;
};
struct EngineResult {
  std::string report_hash;   // engine report card, with the model overlaid when its layers name its nodes
  std::string overlay_hash;  // the model's report page with the engine drawn over it; "" when no layer names a node
  std::string note;          // why there is no overlay, or why it shows no disagreement ("" when neither)
};

// Runs analyses on its own threads, one job per (tree, knowledge base),
// recording progress in the store so any server process (and any page) can
// show it. A job another process already claimed is left to it.
//
// A model's analysis is keyed by its files and the pins it is stored at ("<tree>/<main>?pins=
// 8.6:fp16,10.16:fp16"), so a project whose pins change is analysed again when a version is
// next opened, and the results at the former pins stay (setting them back finds them). An engine's
// analysis does not depend on pins: its key is the files alone.
class Analyzer {
 public:
  Analyzer(store::Store& store, std::vector<Pin> default_pins, unsigned threads);
  ~Analyzer();  // finishes the job in progress, drops the queue

  // The state of v's analysis; queues it when it has none (or it failed
  // under an older binary, or its server died).
  store::Analysis ensure(const store::Version& v);
  store::Analysis ensure(const store::Version& v, const store::Engine& e);
  // As ensure, and a failed analysis is run again (the retry button of a page).
  store::Analysis retry(const store::Version& v, const std::optional<store::Engine>& e);
  // v's analysis under this binary and knowledge base, without queuing one
  // (listings: a new binary re-analyses a version when it is opened, never a whole list).
  std::optional<store::Analysis> peek(const store::Version& v);
  // The result when done; nullopt otherwise.
  std::optional<ModelResult> model_result(const store::Version& v);
  std::optional<EngineResult> engine_result(const store::Version& v, const store::Engine& e);

  // The pins of `project`: its own (store::Store::project_pins), else the server's. Pins a
  // project stored that this binary cannot resolve fall back to the server's (logged once).
  std::shared_ptr<const PinSet> pins_for(const std::string& project);
  const PinSet& default_pins() const { return *defaults_; }

 private:
  struct Job {
    std::string key;
    store::Version version;
    std::optional<store::Engine> engine;
    std::shared_ptr<const PinSet> pins;  // model analyses
  };
  Job model_job(const store::Version& v);  // keyed by v's files and its project's pins
  std::optional<std::string> result_hash(const std::string& key);  // when done
  void work();
  void heartbeat();
  // Runs one job; never throws: whatever goes wrong (a model that does not
  // load, a full disk, no memory) ends as a failed analysis.
  void run(const Job& job) noexcept;
  void analyse(const Job& job, store::Analysis& state);  // throws; `state` keeps the progress reached
  store::Analysis ensure_job(Job job, bool retry_failed = false);
  // Records `state` of a job this process owns (and forgets it when it ended).
  void record(const std::string& key, const store::Analysis& state);
  // Ends a job as failed with `message`. When the store cannot take even that
  // (disk full), the failure is kept in memory and this server shows it.
  void fail(const std::string& key, store::Analysis state, const std::string& message) noexcept;
  std::optional<store::Analysis> unrecorded_failure(const std::string& key);

  store::Store& store_;
  std::shared_ptr<const PinSet> defaults_;
  std::mutex pins_mutex_;
  std::map<std::string, std::shared_ptr<const PinSet>> pin_sets_;  // by stored text, bounded
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  // Jobs this process owns, re-recorded every kHeartbeatSeconds so that other
  // servers see them alive; a job not recorded for kStaleSeconds (its server
  // died) is claimed again by the next view.
  std::mutex live_mutex_;
  std::map<std::string, store::Analysis> live_;
  // Failures the store could not record (under live_mutex_), bounded like the result cache.
  std::map<std::string, store::Analysis> unrecorded_failures_;
  std::mutex cache_mutex_;
  std::map<std::string, ModelResult> model_results_;  // by result hash
  std::condition_variable stopped_;  // wakes the heartbeat only (wake_ wakes workers)
  std::thread heartbeat_;
};

// The signed-in caller of a request: by API token (Authorization: Bearer) or
// by browser session cookie.
struct Caller {
  int64_t user_id = 0;
  std::string user;
  bool by_session = false;
  std::string csrf;  // the session's form token (empty for tokens)
  bool admin = false;  // a site administrator (store::User::admin)
  std::string flash;   // pages: what the form before the redirect did, shown once (pages.cpp)
};

// Refused for now: the request may be sent again later (503).
struct BusyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Models a request loads and judges itself (/check or /diff at a runtime the stored
// analysis lacks, an engine overlay): at most this many at once over the whole server,
// so readers cannot each hold a model in memory. A request waits up to `wait` for a turn.
class LiveAnalyses {
 public:
  explicit LiveAnalyses(unsigned slots, std::chrono::milliseconds wait = std::chrono::seconds(10))
      : free_(slots), wait_(wait) {}
  class Turn {
   public:
    explicit Turn(LiveAnalyses& l);  // throws BusyError when no turn comes in time
    ~Turn();
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;

   private:
    LiveAnalyses& l_;
  };

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  unsigned free_;
  std::chrono::milliseconds wait_;
};

// Too many failed sign-ins or unknown tokens from one client address (429).
struct RateLimited : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Failed sign-ins and unknown tokens per client address: after kMaxFailures within
// kWindowSeconds the address is refused (RateLimited) until its oldest failure is that
// old; the first refusal of a run is logged. At most kMaxAddresses are tracked (the
// oldest forgotten first), so the table is bounded whatever the number of clients.
class FailureLimiter {
 public:
  static constexpr size_t kMaxFailures = 20;
  static constexpr int64_t kWindowSeconds = 60;
  static constexpr size_t kMaxAddresses = 10000;
  // Throws RateLimited when `address` is over the limit at `now` (unix seconds).
  void check(const std::string& address, int64_t now);
  void failed(const std::string& address, int64_t now);

 private:
  std::mutex mutex_;
  std::map<std::string, std::deque<int64_t>> failures_;  // address -> failure times, oldest first
  std::deque<std::string> order_;                         // addresses, by first failure
};

struct Context {
  FailureLimiter failures;
  // The routes that stream their body (uploads), as Routes registered them: the front door
  // gives these the upload limit and every other request the small one, before any body byte.
  std::vector<std::regex> upload_routes;
  ServeOptions options;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<Analyzer> analyzer;
  std::unique_ptr<LiveAnalyses> live;
};

inline constexpr const char* kSessionCookie = "trtlens_session";
inline constexpr const char* kLoginCookie = "trtlens_login";  // the sign-in form's CSRF token

std::optional<Caller> authenticate(Context& ctx, const httplib::Request& req);
// The 401 line for a request authenticate() refused on this thread: "token revoked: ..." when it
// sent a revoked token, else how to sign in.
std::string sign_in_message();
// The user authenticate() last found on this thread ("" when none): the access log's user.
// note_request_user("") starts each request.
void note_request_user(const std::string& user);
const std::string& request_user();
// A page for a person in place of a JSON error (browsers on pages, not /api/): the line and a
// link back to the dashboard.
void send_error_page(httplib::Response& res, int status, const std::string& message);
// The value of cookie `name` in the request ("" when it has none).
std::string request_cookie(const httplib::Request& req, std::string_view name);
// The session cookie's value in the request ("" when it has none).
std::string session_cookie(const httplib::Request& req);
// A JSON error body {"error": message} with `status`.
void send_error(httplib::Response& res, int status, const std::string& message);
void send_json(httplib::Response& res, const std::string& json, int status = 200);
// HTTP status for a store refusal (404, 409, 400, 500).
int status_for(const store::StoreError& e);
// Checks the caller may act on `project` with `needed`; sends 401/403/404
// and returns false otherwise. Unreadable projects answer 404, as unknown ones do.
bool allowed(Context& ctx, const std::optional<Caller>& caller, const std::string& project, store::Role needed,
             httplib::Response& res);
// Sets a project's pins from text ("8.6:fp16 10.16:fp16:orin-dla", spaces or commas between;
// "" = the server's). UsageError (400) for a pin resolve_pins refuses.
void set_project_pins(Context& ctx, const std::string& project, const std::string& text);

// Upload of a model version (a .onnx, or a .zip of its folder) streamed to a
// temporary folder, checked (it must load), then stored. Used by the API
// (raw body) and the page form (multipart). Returns the version or throws
// InputError (400, names the upload) / StoreError.
struct Upload {
  std::filesystem::path dir;    // temporary folder (ObjectStore::make_temp_dir)
  std::string file_name;        // as the client named it, checked by safe_upload_name
  std::string main_hint;        // for a zip: which .onnx (optional)
};
// What a push records beside its files, and whether the same files make a new version.
struct PushOptions {
  std::string git_sha, git_branch;
  std::string tag;     // "" or a name (store::valid_name) moved to the version
  bool force = false;  // a new version even when the files equal the newest version's
};
struct PushResult {
  store::Version version;
  bool unchanged = false;  // the files equal the newest version's, which `version` is (no new one)
};
PushResult store_model_upload(Context& ctx, const Upload& u, const std::string& project, const std::string& model,
                              const Caller& caller, const PushOptions& options = {});
// `release` ("" = as the engine's files record it, see docs/serve.md) is the TensorRT
// release the overlay judges against; an unknown one is InputError("release", ...).
store::Engine store_engine_upload(Context& ctx, const Upload& u, const store::Version& v, const std::string& label,
                                  const Caller& caller, const std::string& release = "");

// Streams a raw request body into a new temporary folder as `file_name`
// (already checked by safe_upload_name). On failure (over the size limit:
// 413, cut off: 400) sends the error, removes the folder, returns nullopt.
std::optional<Upload> receive_body(Context& ctx, httplib::Response& res,
                                   const httplib::ContentReader& reader, const std::string& file_name,
                                   const std::string& main_hint);
// Streams a multipart form of a browser session (403 at once for any other
// caller): its fields into `fields`, its files into a new temporary folder
// under their checked names. The form's first part must be the field "csrf"
// holding the session's token; it is checked as soon as that part ends, so a
// forged form has nothing else kept (403). At most 32 fields, each at most
// 4 KiB and 16 KiB in all (names included), and 64 files whose bytes together
// are at most --max-upload-mb (413 past any). `check` sees the fields before
// the first file byte is stored; a non-empty answer refuses the form with 403
// (names). Failures are sent as receive_body's are.
std::optional<Upload> receive_form(Context& ctx, const httplib::Request& req, httplib::Response& res,
                                   const httplib::ContentReader& reader, const Caller& caller,
                                   std::map<std::string, std::string>& fields,
                                   const std::function<std::string(const std::map<std::string, std::string>&)>& check);

// Unix seconds as UTC text with a strftime format ("%Y-%m-%dT%H:%M:%SZ").
std::string utc_time(int64_t unix_seconds, const char* format);

// The project page's pinned runtimes, with a form for its writers and administrators.
std::string project_pins_section(Context& ctx, const std::string& project, const Caller& caller);

void add_api_routes(httplib::Server& server, Context& ctx);
void add_page_routes(httplib::Server& server, Context& ctx);

// `text` (an error line, an analysis message) without the server's folders:
// a path under the data folder becomes the file's path inside its upload
// ("model.onnx"), or "the upload", "a stored result", "the data folder".
std::string without_server_paths(std::string_view text, const store::ObjectStore& objects);

// Registers routes on `server` whose errors reach clients without server
// paths: an exception whose line names one is logged whole (stderr) and
// rethrown, the same kind of error, with the paths replaced.
class Routes {
 public:
  Routes(httplib::Server& server, Context& ctx) : server_(server), ctx_(ctx) {}
  void Get(const std::string& pattern, httplib::Server::Handler handler);
  void Post(const std::string& pattern, httplib::Server::Handler handler);
  void Post(const std::string& pattern, httplib::Server::HandlerWithContentReader handler);
  void Delete(const std::string& pattern, httplib::Server::Handler handler);

 private:
  httplib::Server& server_;
  Context& ctx_;
};

// Version JSON as the API returns it, and the analysis state with results.
std::string version_json(Context& ctx, const store::Version& v);
// Lookups by URL parts; StoreError(NotFound) / InputError for a bad number.
store::Version find_version(Context& ctx, const std::string& project, const std::string& model,
                            const std::string& number);
store::Engine find_engine(Context& ctx, const store::Version& v, const std::string& number);
// A stored version's model, loaded and named as pushed (Model::path is
// v.main_file): pages, checks and errors name no server folder.
Model load_stored_model(const store::ObjectStore& objects, const store::Version& v);
// A stored engine's plan, its files named by their paths in the upload;
// InputError("engine <label>", ...) when it does not load.
EnginePlan load_stored_plan(const store::ObjectStore& objects, const store::Engine& e);
// The runtime a diff of `project` is judged at: each of release and precision as given, else
// the project's first pin's (else the newest release, fp32); the target as given ("" = none),
// else the first pin's when neither release nor precision is given. Throws UsageError for an
// unknown release, precision or target, or a release the target does not run.
struct DiffRuntime {
  Runtime runtime;
  std::string label;  // "8.5 fp16 orin-dla", as PinResult::runtime
};
DiffRuntime diff_runtime(Context& ctx, const std::string& project, const std::string& trt,
                         const std::string& precision, const std::optional<std::string>& target);
// The comparison of two versions at one runtime (diff_runtime), as JSON (the API), an HTML
// section (the page), or its graph view alone as Graphviz SVG or DOT text.
enum class DiffOutput { Json, Html, Svg, Dot };
std::string version_diff(Context& ctx, const store::Version& before, const store::Version& after,
                         const std::string& trt, const std::string& precision,
                         const std::optional<std::string>& target, DiffOutput output);

}  // namespace trtlens::serve
