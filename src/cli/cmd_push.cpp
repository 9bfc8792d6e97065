// `trtlens push`: uploads a model (with its external data) to a `trtlens serve` dashboard.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <poll.h>
#include <re2/re2.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/app.h"
#include "render/html.h"
#include "render/table.h"
#include "serve/model_archive.h"
#include "store/store.h"
#include "trtlens/error.h"
#include "trtlens/model.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace trtlens::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct PushArgs {
  std::string model, to, project, name, token, main, format = "text";
  std::string tag, git_sha, branch;
  bool wait = false, force = false;
  double timeout_s = 600;
};

// Replies are small JSON documents; anything larger or deeper is not the contract.
constexpr size_t kMaxReplyBytes = 1 << 20;
constexpr int kMaxReplyDepth = 32;

// "http://host[:port]" without a trailing slash; UsageError for anything else
// (a path, credentials, another scheme).
std::string parse_server(const std::string& to) {
  static const RE2 re(R"(https?://(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?/?)");
  std::string port;
  if (!RE2::FullMatch(to, re, &port) || (!port.empty() && (std::stoi(port) < 1 || std::stoi(port) > 65535)))
    throw UsageError("push --to " + printable_line(to) + ": expected http://host[:port] or https://host[:port]");
  std::string base = to;
  if (base.back() == '/') base.pop_back();
  return base;
}

// Percent-encoding for a path segment or a query value (RFC 3986 unreserved kept).
std::string url_encode(std::string_view s) { return percent_encode(s); }

// The one line a failed request reports: the server's {"error": ...} when it sent one.
std::string server_error_line(const httplib::Response& res) {
  std::string line;
  try {
    json j = json::parse(res.body);
    if (j.is_object() && j.contains("error") && j["error"].is_string()) line = j["error"].get<std::string>();
  } catch (const json::exception&) {
  }
  if (line.empty()) line = res.body.substr(0, res.body.find('\n'));
  std::string status = fmt::format("HTTP {}", res.status);
  return line.empty() ? status : status + ": " + printable_line(line);
}

// The JSON body of a successful reply; InputError(url, ...) when it is not JSON.
json reply_json(const std::string& url, const httplib::Response& res) {
  if (res.body.size() > kMaxReplyBytes || json_nesting_depth(res.body, kMaxReplyDepth) > kMaxReplyDepth)
    throw InputError(url, "the server's reply is too large or too deeply nested to be a trtlens reply");
  try {
    return json::parse(res.body);
  } catch (const json::exception&) {
    throw InputError(url, "the server's reply is not JSON: " + printable_line(res.body.substr(0, 100)));
  }
}

// httplib 0.11's to_string(Error) is the enumerator's name ("Connection"): say what happened.
std::string transport_problem(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection: return "cannot connect to the server";
    case httplib::Error::ConnectionTimeout: return "the server did not accept the connection in time";
    case httplib::Error::Read: return "the connection broke or timed out while reading the server's reply";
    case httplib::Error::Write: return "the connection broke or timed out while sending the upload";
    case httplib::Error::Canceled: return "the upload stopped: the file could not be read to its end";
    case httplib::Error::SSLConnection: return "the TLS handshake with the server failed";
    case httplib::Error::SSLServerVerification: return "the server's TLS certificate does not verify";
    default: return "cannot reach the server (" + httplib::to_string(e) + ")";
  }
}

// The reply a server sent before reading the whole upload (a refused token,
// project or role), read from the socket once sending fails: httplib reads a
// reply only after the request is sent. Null when none arrives.
std::optional<httplib::Response> early_reply(int sock) {
  std::string data;
  char buf[4096];
  while (data.size() < kMaxReplyBytes) {
    pollfd p{sock, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) break;
    ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  // RE2, as for every pattern on untrusted text: the head may be a megabyte long.
  static const RE2 status_line(R"(^HTTP/1\.[01] ([0-9]{3})[^\r\n]*\r\n)");
  size_t head_end = data.find("\r\n\r\n");
  std::string head = data.substr(0, std::min(head_end, data.size()));
  int status = 0;
  if (head_end == std::string::npos || !RE2::PartialMatch(head, status_line, &status)) return std::nullopt;
  httplib::Response res;
  res.status = status;
  res.body = data.substr(head_end + 4);
  return res;
}

using Clock = std::chrono::steady_clock;

// The HTTP side of one push, bounded. A reply is read up to kMaxReplyBytes as
// it arrives (decompression is off and no Accept-Encoding is sent, so nothing
// inflates). A watchdog ends the connection at the push's deadline: httplib's
// timeouts are per read and write, so a server sending a byte every few
// seconds never trips them. Failures are InputError(url, one line).
class PushClient {
 public:
  PushClient(const std::string& base, double timeout_s)
      : client_(base), timeout_s_(timeout_s),
        deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(std::min(timeout_s, 1e7)))) {
    client_.set_connection_timeout(10);
    client_.set_write_timeout(60);
    client_.set_read_timeout(600);  // the server hashes and stores the upload before it answers
    client_.set_decompress(false);
    watchdog_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (cv_.wait_until(lock, deadline_, [this] { return done_; })) return;
      fired_ = true;
      do client_.stop();  // again and again: a request may still be connecting
      while (!cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return done_; }));
    });
  }
  ~PushClient() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    watchdog_.join();
  }

  Clock::time_point deadline() const { return deadline_; }
  double timeout_s() const { return timeout_s_; }

  // `any_status`: a reply of any status is returned; else one outside 2xx throws.
  httplib::Response get(const std::string& url, const std::string& target, const httplib::Headers& headers,
                        bool any_status = false) {
    httplib::Request req;
    req.method = "GET";
    req.path = target;
    req.headers = headers;
    return send(url, req, any_status);
  }

  // POSTs the file at `path` as the body, read from disk as it is sent.
  httplib::Response post_file(const std::string& url, const std::string& target, const httplib::Headers& headers,
                              const std::string& path, const std::string& content_type) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    std::shared_ptr<int> guard(new int(fd), [](int* p) {
      ::close(*p);
      delete p;
    });
    auto buf = std::make_shared<std::vector<char>>(256 * 1024);
    httplib::Request req;
    req.method = "POST";
    req.path = target;
    req.headers = headers;
    req.headers.emplace("Content-Type", content_type);
    req.content_length_ = static_cast<size_t>(st.st_size);
    req.content_provider_ = [this, fd, buf](size_t offset, size_t length, httplib::DataSink& sink) {
      ssize_t n = ::pread(fd, buf->data(), std::min(length, buf->size()), static_cast<off_t>(offset));
      if (n <= 0) return false;  // the file shrank or failed: the upload is abandoned
      if (sink.write(buf->data(), static_cast<size_t>(n))) return true;
      send_failed_ = true;
      early_ = early_reply(client_.socket());
      return false;
    };
    return send(url, req);
  }

 private:
  httplib::Response send(const std::string& url, httplib::Request& req, bool any_status = false) {
    bool too_large = false;
    std::string body;
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
      if (body.size() + n > kMaxReplyBytes) return !(too_large = true);
      body.append(data, n);
      return true;
    };
    send_failed_ = false;
    early_.reset();
    httplib::Result res = client_.send(req);
    if (early_) throw InputError(url, server_error_line(*early_));
    if (too_large)
      throw InputError(url, fmt::format("the server's reply is over {} bytes; a trtlens reply is a small JSON document",
                                        kMaxReplyBytes));
    if (fired_) throw InputError(url, fmt::format("no complete reply within {} s (--timeout)", timeout_s_));
    if (send_failed_) throw InputError(url, transport_problem(httplib::Error::Write));
    if (!res) throw InputError(url, transport_problem(res.error()));
    res->body = std::move(body);
    if (!any_status && (res->status < 200 || res->status >= 300)) throw InputError(url, server_error_line(*res));
    return std::move(*res);
  }

  httplib::Client client_;
  double timeout_s_;
  Clock::time_point deadline_;
  bool send_failed_ = false;
  std::optional<httplib::Response> early_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> fired_{false};
  std::thread watchdog_;  // last: started once the members it reads exist
};

// The model to push: MODEL itself, or the .onnx inside folder MODEL (--main, or the only one).
std::string resolve_model(const PushArgs& a) {
  std::error_code ec;
  if (!fs::is_directory(a.model, ec)) {
    if (!a.main.empty()) throw UsageError("push --main names the model inside a folder; " + a.model + " is not a folder");
    return a.model;
  }
  if (!a.main.empty()) return (fs::path(a.model) / a.main).string();
  std::vector<std::string> models;
  for (const auto& e : fs::directory_iterator(a.model, ec))
    if (e.is_regular_file() && e.path().extension() == ".onnx") models.push_back(e.path().filename().string());
  std::sort(models.begin(), models.end());
  if (models.empty()) throw InputError(a.model, "folder holds no .onnx file");
  if (models.size() > 1)
    throw InputError(a.model, fmt::format("folder holds {} .onnx files ({}); name one with --main", models.size(),
                                          fmt::join(models, ", ")));
  return (fs::path(a.model) / models.front()).string();
}

// A private temporary folder, removed with everything in it.
struct TempFolder {
  fs::path path;
  TempFolder() {
    std::string tmpl = (fs::temp_directory_path() / "trtlens-push-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw InputError(tmpl, std::string("cannot create: ") + std::strerror(errno));
    path = tmpl;
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// "abcdef012345…" for a content hash in text.
std::string short_hash(const std::string& hex) { return hex.size() > 12 ? hex.substr(0, 12) + "…" : hex; }

std::string field_text(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "?";
  const json& v = j[key];
  return printable_line(v.is_string() ? v.get<std::string>() : v.dump());
}

// Polls the analysis of the pushed version until it is done or failed, printing
// progress to stderr when it changes. Returns the final analysis.
json wait_for_analysis(PushClient& client, const std::string& base, const std::string& target,
                       const httplib::Headers& headers) {
  std::string url = base + target;
  constexpr auto kPoll = std::chrono::milliseconds(500);
  std::string last;
  for (;;) {
    json j = reply_json(url, client.get(url, target, headers));
    if (!j.is_object() || !j.contains("status") || !j["status"].is_string())
      throw InputError(url, "the server's analysis reply has no status");
    std::string status = j["status"].get<std::string>();
    std::string shown = status;
    if (j.contains("progress_percent") && j["progress_percent"].is_number())
      shown += fmt::format(" {:.0f}%", j["progress_percent"].get<double>());
    if (shown != last) fmt::print(stderr, "analysis: {}\n", printable_line(shown));
    last = shown;
    if (status == "done") return j;
    if (status == "failed") throw InputError(url, "the analysis failed: " + field_text(j, "message"));
    if (Clock::now() + kPoll >= client.deadline())
      throw InputError(url, fmt::format("the analysis is still {} after {} s (--timeout)", printable_line(status),
                                        client.timeout_s()));
    std::this_thread::sleep_for(kPoll);
  }
}

// Per pinned runtime, whether the model converts (the analysis's "converts" list).
Table converts_table(const std::string& url, const json& analysis, bool& all_convert) {
  Table t{{"runtime", "converts"}, {}, {false, false}};
  all_convert = true;
  if (!analysis.contains("converts") || !analysis["converts"].is_array())
    throw InputError(url, "the finished analysis has no \"converts\" list");
  for (const json& c : analysis["converts"]) {
    if (!c.is_object() || !c.contains("converts") || !c["converts"].is_boolean())
      throw InputError(url, "a \"converts\" item has no true/false \"converts\"");
    bool ok = c["converts"].get<bool>();
    all_convert = all_convert && ok;
    t.rows.push_back({field_text(c, "runtime"), ok ? "yes" : "no"});
  }
  return t;
}

// Asks the server whether it would take an upload of `upload`'s size for this token,
// project, role and name, before sending a byte of it: a refusal is then a reply read
// whole (HTTP 401/403/404/413 and the server's line), whatever the model's size. A
// server without the pre-flight route (an older trtlens) answers "no such page"; the
// upload then goes ahead, and a refusal is read from the socket as it breaks.
void preflight(PushClient& client, const std::string& url, const std::string& check_target,
               const httplib::Headers& headers, const std::string& upload) {
  std::error_code ec;
  uintmax_t size = fs::file_size(upload, ec);
  if (ec) throw InputError(upload, "cannot read: " + ec.message());
  httplib::Response res = client.get(url, check_target + "?size_bytes=" + std::to_string(size), headers, true);
  if (res.status >= 200 && res.status < 300) return;
  if (res.status == 404 && res.body.find("no such page") != std::string::npos) return;
  throw InputError(url, server_error_line(res));
}

int run_push(const PushArgs& a) {
  // Usage first, before any file is read or byte sent.
  std::string base = parse_server(a.to);
  std::string token = a.token;
  if (token.empty())
    if (const char* env = std::getenv("TRTLENS_TOKEN")) token = env;
  if (token.empty()) throw UsageError("push needs a token: set TRTLENS_TOKEN (or --token, which other users can see in ps)");
  if (token.find_first_of("\r\n") != std::string::npos) throw UsageError("push: the token holds a line break");
  if (a.project.empty() || a.name.empty()) throw UsageError("push needs a non-empty --project and --name");
  if (!(a.timeout_s > 0)) throw UsageError("push --timeout must be a positive number of seconds");
  if (!a.tag.empty() && !store::valid_tag(a.tag)) throw UsageError("push --tag: " + store::tag_problem(a.tag));

  // A server that refuses an upload (token, project, role) answers and closes
  // before reading it: writing on is EPIPE, reported as one line, not a SIGPIPE death.
  std::signal(SIGPIPE, SIG_IGN);
  PushClient client(base, a.timeout_s);  // the deadline covers the whole push from here

  std::string model_path = resolve_model(a);
  Model model = load_model(model_path);  // bad models are refused here, not after an upload
  std::string model_file = fs::path(model_path).filename().string();

  std::optional<TempFolder> tmp;
  std::string upload = model_path, filename = model_file, content_type = "application/octet-stream", main;
  if (!model.external_data_files.empty()) {
    tmp.emplace();
    filename = fs::path(model_file).stem().string() + ".zip";
    upload = (tmp->path / filename).string();
    pack_model(model, upload);
    content_type = "application/zip";
    main = model_file;
  }

  std::string versions = fmt::format("/api/projects/{}/models/{}/versions", url_encode(a.project), url_encode(a.name));
  std::string target = versions + "?filename=" + url_encode(filename) + (main.empty() ? "" : "&main=" + url_encode(main));
  // The commit and branch: given, else what the CI sets (GitHub Actions, GitLab CI, generic).
  auto first_env = [](std::initializer_list<const char*> names) -> std::string {
    for (const char* n : names)
      if (const char* v = std::getenv(n); v && *v) return v;
    return "";
  };
  std::string git_sha = a.git_sha.empty() ? first_env({"GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT"}) : a.git_sha;
  std::string branch =
      a.branch.empty() ? first_env({"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "GIT_BRANCH"}) : a.branch;
  if (!git_sha.empty()) target += "&git_sha=" + url_encode(git_sha.substr(0, 200));
  if (!branch.empty()) target += "&branch=" + url_encode(branch.substr(0, 200));
  if (!a.tag.empty()) target += "&tag=" + url_encode(a.tag);
  if (a.force) target += "&force=1";
  httplib::Headers headers = {{"Authorization", "Bearer " + token}};
  std::string url = base + versions;
  preflight(client, url, fmt::format("/api/projects/{}/models/{}/upload-check", url_encode(a.project), url_encode(a.name)),
            headers, upload);
  json pushed = reply_json(url, client.post_file(url, target, headers, upload, content_type));
  tmp.reset();  // the zip is sent: remove it before a long wait
  if (!pushed.is_object() || !pushed.contains("version"))
    throw InputError(url, "the server's reply names no version: " + printable_line(pushed.dump(), 100));

  std::optional<json> analysis;
  if (a.wait) {
    std::string analysis_target = fmt::format("{}/{}/analysis", versions, url_encode(field_text(pushed, "version")));
    analysis = wait_for_analysis(client, base, analysis_target, headers);
  }
  bool all_convert = true;
  Table converts;
  if (analysis) converts = converts_table(base + versions, *analysis, all_convert);

  if (a.format == "json") {
    // The server's reply, with the final analysis in place of the queued one.
    if (analysis) pushed["analysis"] = *analysis;
    fmt::print("{}\n", pushed.dump(2, ' ', false, json::error_handler_t::replace));
  } else {
    int64_t size = pushed.contains("size_bytes") && pushed["size_bytes"].is_number_integer()
                       ? pushed["size_bytes"].get<int64_t>()
                       : 0;
    const bool unchanged = pushed.contains("unchanged") && pushed["unchanged"] == true;
    fmt::print("{} {}/{} version {} (sha256 {}, {}): {}{}\n", unchanged ? "no change: same as" : "pushed",
               field_text(pushed, "project"), field_text(pushed, "model"), field_text(pushed, "version"),
               short_hash(field_text(pushed, "tree_hash")), mib(size), base, field_text(pushed, "url"));
    if (analysis) fmt::print("{}", to_text(converts));
  }
  return all_convert ? kExitOk : kExitNotConverting;
}

}  // namespace

void add_push_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PushArgs>();
  CLI::App* cmd = app.add_subcommand(
      "push", "Upload a model (with its external data) to a trtlens serve dashboard as a new version.");
  cmd->add_option("model", args->model, "ONNX model file, or a folder holding one (see --main)")->required();
  cmd->add_option("--to", args->to, "the dashboard: http://host[:port] or https://host[:port]")->required();
  cmd->add_option("--project", args->project, "project on the dashboard")->required();
  cmd->add_option("--name", args->name, "model name within the project")->required();
  cmd->add_option("--token", args->token,
                  "API token (default: $TRTLENS_TOKEN; prefer the variable: a command line is visible in ps)");
  cmd->add_option("--main", args->main, "when MODEL is a folder: the .onnx file inside it to push");
  cmd->add_option("--tag", args->tag, "tag the version (e.g. production); a tag names one version and moves");
  cmd->add_option("--git-sha", args->git_sha,
                  "commit the model comes from (default: $GITHUB_SHA, $CI_COMMIT_SHA or $GIT_COMMIT)");
  cmd->add_option("--branch", args->branch,
                  "branch the model comes from (default: $GITHUB_HEAD_REF, $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME or "
                  "$GIT_BRANCH)");
  cmd->add_flag("--force", args->force,
                "make a new version even when the files equal the newest version's (else: 'no change: same as vN')");
  cmd->add_flag("--wait", args->wait,
                "wait for the dashboard's analysis and print, per pinned runtime, whether the model converts "
                "(exit 1 when one does not)");
  cmd->add_option("--timeout", args->timeout_s,
                  "seconds the whole push may take: the upload, the reply and, with --wait, the analysis")
      ->capture_default_str();
  cmd->add_option("--format", args->format, "text or json (the server's reply)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([args, &exit_code] { exit_code = run_push(*args); });
}

}  // namespace trtlens::cli
