// `trtlens push` against an in-test fake dashboard that records what it receives
// and answers per the serve API contract.
#include <archive.h>
#include <archive_entry.h>
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>
#include <thread>

#include <fcntl.h>
#include <onnx/onnx_pb.h>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "support/serve_process.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace trtlens::test {
namespace {

struct Request {
  std::string method, path, body;
  httplib::Headers headers;
  httplib::Params params;
  std::string header(const std::string& key) const {
    auto it = headers.find(key);
    return it == headers.end() ? "" : it->second;
  }
};

// A dashboard on 127.0.0.1 (any free port) serving the push and analysis
// endpoints. Replies are set before the binary runs; requests are recorded.
class FakeDashboard {
 public:
  int push_status = 201;
  json push_error = {{"error", "unused"}};
  std::string push_body;  // when set: the body of the 201 reply, in place of push_reply()
  std::atomic<int> preflights{0};  // GET .../upload-check requests
  std::string preflight_size;      // the last one's size_bytes
  // Analysis replies, served in order; the last one repeats.
  std::vector<json> analysis = {{{"status", "done"}, {"progress_percent", 100}, {"converts", json::array()}}};

  FakeDashboard() {
    port_ = server_.bind_to_any_port("127.0.0.1");  // listening from here on: no start-up race
    server_.Post(R"(/api/projects/([^/]+)/models/([^/]+)/versions)", [this](const httplib::Request& req, httplib::Response& res) {
      record(req);
      if (push_status != 201) {
        res.status = push_status;
        res.set_content(push_error.dump(), "application/json");
        return;
      }
      res.status = 201;
      res.set_content(push_body.empty() ? push_reply(req.matches[1], req.matches[2], req.body.size()).dump() : push_body,
                      "application/json");
    });
    // The push's pre-flight answers what the upload would (not recorded: requests() are the uploads and polls).
    server_.Get(R"(/api/projects/([^/]+)/models/([^/]+)/upload-check)", [this](const httplib::Request& req,
                                                                              httplib::Response& res) {
      ++preflights;
      preflight_size = req.get_param_value("size_bytes");
      if (push_status != 201) {
        res.status = push_status;
        res.set_content(push_error.dump(), "application/json");
        return;
      }
      res.set_content(R"({"schema_version": 1, "ok": true})", "application/json");
    });
    server_.Get(R"(/api/projects/([^/]+)/models/([^/]+)/versions/(\d+)/analysis)",
                [this](const httplib::Request& req, httplib::Response& res) {
                  record(req);
                  std::lock_guard<std::mutex> lock(mutex_);
                  const json& reply = analysis[std::min(polls_++, analysis.size() - 1)];
                  res.set_content(reply.dump(), "application/json");
                });
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeDashboard() {
    // stop() is a no-op until the accept loop runs: wait for it, or join would hang.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  std::vector<Request> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

  // What the dashboard answers to a push: version 3 of `model` in `project`.
  static json push_reply(const std::string& project, const std::string& model, size_t size) {
    return {{"project", project},
            {"model", model},
            {"version", 3},
            {"tree_hash", "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"},
            {"size_bytes", size},
            {"main_file", "model.onnx"},
            {"url", "/projects/" + project + "/models/" + model + "/versions/3"},
            {"analysis", {{"status", "queued"}, {"progress_percent", 0}}}};
  }

 private:
  void record(const httplib::Request& req) {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back({req.method, req.path, req.body, req.headers, req.params});
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<Request> requests_;
  size_t polls_ = 0;
};

// A small model without external data.
std::string save_plain_model(const std::string& dir, const std::string& file = "model.onnx") {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.node("Relu", {"x"}, {"y"});
  g.output("y", kFloat, {1, 4});
  return mb.save(dir + "/" + file);
}

// Entries of a zip held in memory: name -> contents.
std::map<std::string, std::string> zip_entries(const std::string& bytes) {
  std::map<std::string, std::string> out;
  archive* a = archive_read_new();
  archive_read_support_format_zip(a);
  EXPECT_EQ(archive_read_open_memory(a, bytes.data(), bytes.size()), ARCHIVE_OK);
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    std::string data(static_cast<size_t>(archive_entry_size(e)), '\0');
    EXPECT_EQ(archive_read_data(a, data.data(), data.size()), static_cast<la_ssize_t>(data.size()));
    out[archive_entry_pathname(e)] = data;
  }
  archive_read_free(a);
  return out;
}

const std::vector<std::string> kToken = {"TRTLENS_TOKEN=s3cret"};

std::vector<std::string> push_args(const std::string& model, const FakeDashboard& d) {
  return {"push", model, "--to", d.url(), "--project", "vision", "--name", "detector"};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

}  // namespace

TEST(PushCli, UploadsTheOnnxFileItselfWithTheTokenFromTheEnvironment) {
  std::string dir = temp_dir("push_plain");
  std::string model = save_plain_model(dir);
  FakeDashboard d;
  RunResult r = run_trtlens(push_args(model, d), kToken);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reqs = d.requests();
  EXPECT_EQ(d.preflights, 1);  // asked first, with the size it was about to send
  EXPECT_EQ(d.preflight_size, std::to_string(std::filesystem::file_size(model)));
  ASSERT_EQ(reqs.size(), 1u);
  const Request& q = reqs[0];
  EXPECT_EQ(q.method, "POST");
  EXPECT_EQ(q.path, "/api/projects/vision/models/detector/versions");
  EXPECT_EQ(q.body, read_text(model));
  EXPECT_EQ(q.header("Authorization"), "Bearer s3cret");
  EXPECT_EQ(q.header("Content-Type"), "application/octet-stream");
  EXPECT_EQ(q.header("Content-Length"), std::to_string(fs::file_size(model)));  // streamed with its length, not chunked
  EXPECT_EQ(q.params, (httplib::Params{{"filename", "model.onnx"}}));
  EXPECT_EQ(r.out, "pushed vision/detector version 3 (sha256 abcdef012345…, " + std::to_string(q.body.size()) +
                       " B): " + d.url() + "/projects/vision/models/detector/versions/3\n");
}

TEST(PushCli, ModelWithExternalDataGoesAsAZipOfAllItsFiles) {
  std::string dir = temp_dir("push_external");
  std::string model = save_external_data_model(dir + "/m");
  std::string tmp = dir + "/tmp";
  fs::create_directories(tmp);
  FakeDashboard d;
  RunResult r = run_trtlens(push_args(model, d), kToken + std::vector<std::string>{"TMPDIR=" + tmp});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reqs = d.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].header("Content-Type"), "application/zip");
  EXPECT_EQ(reqs[0].params, (httplib::Params{{"filename", "model.zip"}, {"main", "model.onnx"}}));
  auto entries = zip_entries(reqs[0].body);
  EXPECT_EQ(entries, (std::map<std::string, std::string>{{"model.onnx", read_text(model)},
                                                         {"weights/w.bin", read_text(dir + "/m/weights/w.bin")},
                                                         {"b.bin", read_text(dir + "/m/b.bin")}}));
  EXPECT_TRUE(folder_entries(tmp).empty());  // the zip was removed after the upload
  EXPECT_EQ(folder_entries(dir + "/m"), (std::vector<std::string>{"b.bin", "model.onnx", "weights"}));
}

TEST(PushCli, FolderHoldingOneModelOrNamedByMain) {
  std::string dir = temp_dir("push_folder");
  save_external_data_model(dir);
  FakeDashboard d;
  RunResult r = run_trtlens(push_args(dir, d), kToken);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(d.requests().size(), 1u);
  EXPECT_EQ(d.requests()[0].params.find("main")->second, "model.onnx");

  save_plain_model(dir, "other.onnx");
  r = run_trtlens(push_args(dir, d), kToken);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "trtlens: " + dir + ": folder holds 2 .onnx files (model.onnx, other.onnx); name one with --main\n");
  r = run_trtlens(push_args(dir, d) + std::vector<std::string>{"--main", "other.onnx"}, kToken);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(d.requests().size(), 2u);
  EXPECT_EQ(d.requests()[1].body, read_text(dir + "/other.onnx"));
  EXPECT_EQ(d.requests()[1].params, (httplib::Params{{"filename", "other.onnx"}}));

  r = run_trtlens(push_args(dir + "/other.onnx", d) + std::vector<std::string>{"--main", "model.onnx"}, kToken);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--main names the model inside a folder"), std::string::npos) << r.err;
}

TEST(PushCli, TokenFromTheFlagOrAUsageError) {
  std::string dir = temp_dir("push_token");
  std::string model = save_plain_model(dir);
  FakeDashboard d;
  RunResult r = run_trtlens(push_args(model, d) + std::vector<std::string>{"--token", "flag-token"}, {"TRTLENS_TOKEN="});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(d.requests().at(0).header("Authorization"), "Bearer flag-token");

  r = run_trtlens(push_args(model, d), {"TRTLENS_TOKEN="});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("set TRTLENS_TOKEN"), std::string::npos) << r.err;
  EXPECT_EQ(d.requests().size(), 1u);  // nothing sent
}

TEST(PushCli, ServerErrorsExitTwoWithTheUrlAndTheServersLine) {
  std::string dir = temp_dir("push_http_errors");
  std::string model = save_plain_model(dir);
  for (int status : {401, 413}) {
    FakeDashboard d;
    d.push_status = status;
    d.push_error = {{"error", status == 401 ? "unknown or revoked token" : "upload is over the 2 GiB limit"}};
    RunResult r = run_trtlens(push_args(model, d), kToken);
    EXPECT_EQ(r.exit_code, 2) << status;
    EXPECT_EQ(r.err, "trtlens: " + d.url() + "/api/projects/vision/models/detector/versions: HTTP " +
                         std::to_string(status) + ": " + d.push_error["error"].get<std::string>() + "\n");
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(d.preflights, 1);
    EXPECT_TRUE(d.requests().empty());  // refused by the pre-flight: no byte of the model was sent
  }
}

TEST(PushCli, UnreachableServerExitsTwo) {
  std::string dir = temp_dir("push_unreachable");
  std::string model = save_plain_model(dir);
  std::string url;
  {
    FakeDashboard gone;  // a port that was free a moment ago and is closed again
    url = gone.url();
  }
  RunResult r = run_trtlens({"push", model, "--to", url, "--project", "p", "--name", "n"}, kToken);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "trtlens: " + url + "/api/projects/p/models/n/versions: cannot connect to the server\n");
}

TEST(PushCli, RepliesOutsideTheContractExitTwo) {
  std::string dir = temp_dir("push_bad_reply");
  std::string model = save_plain_model(dir);
  for (auto [body, problem] : std::vector<std::pair<std::string, std::string>>{
           {"<html>oops</html>", "the server's reply is not JSON: <html>oops</html>"},
           {"{\"project\": \"vision\"}", "the server's reply names no version: {\"project\":\"vision\"}"},
           {std::string(100, '[') + std::string(100, ']'), "the server's reply is too large or too deeply nested"}}) {
    FakeDashboard d;
    d.push_body = body;
    RunResult r = run_trtlens(push_args(model, d), kToken);
    EXPECT_EQ(r.exit_code, 2) << body;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("trtlens: " + d.url() + "/api/projects/vision/models/detector/versions: " + problem),
              std::string::npos)
        << r.err;
  }
}

TEST(PushCli, UsageErrorsExitTwoBeforeAnyUpload) {
  std::string dir = temp_dir("push_usage");
  std::string model = save_plain_model(dir);
  fs::create_directories(dir + "/empty");
  FakeDashboard d;
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  std::vector<Case> cases = {
      {{"push", model, "--to", d.url(), "--project", "", "--name", "n"}, "push needs a non-empty --project and --name"},
      {push_args(model, d) + std::vector<std::string>{"--wait", "--timeout", "0"},
       "push --timeout must be a positive number of seconds"},
      {push_args(dir + "/empty", d), dir + "/empty: folder holds no .onnx file"},
      {push_args(dir + "/missing.onnx", d), dir + "/missing.onnx: cannot read"},
  };
  for (const Case& c : cases) {
    RunResult r = run_trtlens(c.args, kToken);
    EXPECT_EQ(r.exit_code, 2) << c.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_EQ(r.err.rfind("trtlens: " + c.err, 0), 0u) << r.err;
  }
  EXPECT_TRUE(d.requests().empty());
}

TEST(PushCli, ToMustBeAServerUrl) {
  std::string dir = temp_dir("push_bad_url");
  std::string model = save_plain_model(dir);
  for (std::string to : {"localhost:8080", "ftp://host", "http://host/api", "http://user@host", "http://host:99999"}) {
    RunResult r = run_trtlens({"push", model, "--to", to, "--project", "p", "--name", "n"}, kToken);
    EXPECT_EQ(r.exit_code, 2) << to;
    EXPECT_EQ(r.err, "trtlens: push --to " + to + ": expected http://host[:port] or https://host[:port]\n");
  }
}

TEST(PushCli, NamesAreEncodedInThePath) {
  std::string dir = temp_dir("push_encoding");
  std::string model = save_plain_model(dir, "my model.onnx");
  FakeDashboard d;
  RunResult r = run_trtlens({"push", model, "--to", d.url() + "/", "--project", "a/b", "--name", "x y"}, kToken);
  // "a/b" is one segment (%2F): the fake's route has no match for it, so it answers 404.
  EXPECT_EQ(r.exit_code, 2);
  r = run_trtlens({"push", model, "--to", d.url() + "/", "--project", "team one", "--name", "det?v=2"}, kToken);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reqs = d.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].path, "/api/projects/team one/models/det?v=2/versions");  // as decoded by the server
  EXPECT_EQ(reqs[0].params, (httplib::Params{{"filename", "my model.onnx"}}));
}

TEST(PushCli, BadModelIsRefusedBeforeAnyUpload) {
  std::string dir = temp_dir("push_bad_model");
  write_text(dir + "/bad.onnx", "not a model");
  FakeDashboard d;
  RunResult r = run_trtlens(push_args(dir + "/bad.onnx", d), kToken);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_EQ(r.err.rfind("trtlens: " + dir + "/bad.onnx: ", 0), 0u) << r.err;
  EXPECT_TRUE(d.requests().empty());
}

TEST(PushCli, JsonIsTheServersReply) {
  std::string dir = temp_dir("push_json");
  std::string model = save_plain_model(dir);
  FakeDashboard d;
  RunResult r = run_trtlens(push_args(model, d) + std::vector<std::string>{"--format", "json"}, kToken);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), FakeDashboard::push_reply("vision", "detector", fs::file_size(model)));
}

const json kRunning = {{"status", "running"}, {"progress_percent", 40}};
const json kDoneOneFails = {{"status", "done"},
                            {"progress_percent", 100},
                            {"message", ""},
                            {"converts", {{{"runtime", "10.8 fp16"}, {"converts", true}},
                                          {{"runtime", "8.6 int8"}, {"converts", false}}}}};

TEST(PushCli, WaitExitsOneWhenAPinnedRuntimeDoesNotConvert) {
  std::string dir = temp_dir("push_wait_fails");
  std::string model = save_plain_model(dir);
  FakeDashboard d;
  d.analysis = {kRunning, kDoneOneFails};
  RunResult r = run_trtlens(push_args(model, d) + std::vector<std::string>{"--wait"}, kToken);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "analysis: running 40%\nanalysis: done 100%\n");
  EXPECT_NE(r.out.find("10.8 fp16  yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8.6 int8   no"), std::string::npos) << r.out;
  auto reqs = d.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[1].method, "GET");
  EXPECT_EQ(reqs[1].path, "/api/projects/vision/models/detector/versions/3/analysis");
  EXPECT_EQ(reqs[1].header("Authorization"), "Bearer s3cret");
}

TEST(PushCli, WaitExitsZeroWhenEveryRuntimeConverts) {
  std::string dir = temp_dir("push_wait_ok");
  std::string model = save_plain_model(dir);
  FakeDashboard d;
  json done = kDoneOneFails;
  done["converts"][1]["converts"] = true;
  d.analysis = {done};
  RunResult r = run_trtlens(push_args(model, d) + std::vector<std::string>{"--wait", "--format", "json"}, kToken);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The push reply with the final analysis in place of the queued one.
  json expected = FakeDashboard::push_reply("vision", "detector", fs::file_size(model));
  expected["analysis"] = done;
  EXPECT_EQ(json::parse(r.out), expected);
}

TEST(PushCli, WaitReportsAFailedOrUnfinishedAnalysis) {
  std::string dir = temp_dir("push_wait_failed");
  std::string model = save_plain_model(dir);
  FakeDashboard d;
  d.analysis = {{{"status", "failed"}, {"progress_percent", 10}, {"message", "model does not parse\nat all"}}};
  RunResult r = run_trtlens(push_args(model, d) + std::vector<std::string>{"--wait"}, kToken);
  EXPECT_EQ(r.exit_code, 2);
  std::string analysis_url = d.url() + "/api/projects/vision/models/detector/versions/3/analysis";
  EXPECT_NE(r.err.find("trtlens: " + analysis_url + ": the analysis failed: model does not parse\\x0aat all\n"),
            std::string::npos)
      << r.err;

  FakeDashboard unfinished;
  unfinished.analysis = {{{"status", "done"}, {"progress_percent", 100}}};
  r = run_trtlens(push_args(model, unfinished) + std::vector<std::string>{"--wait"}, kToken);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(": the finished analysis has no \"converts\" list\n"), std::string::npos) << r.err;

  FakeDashboard slow;
  slow.analysis = {kRunning};
  r = run_trtlens(push_args(model, slow) + std::vector<std::string>{"--wait", "--timeout", "1"}, kToken);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(": the analysis is still running after 1 s (--timeout)\n"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------- hostile servers

namespace {

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// A server on 127.0.0.1 speaking raw HTTP: for each connection it reads the
// request's head (and its body, when `read_body`), then `reply` writes what it
// likes on the socket; the connection is closed after it returns.
class RawServer {
 public:
  RawServer(std::function<void(int fd, const std::atomic<bool>& stopping)> reply, bool read_body)
      : reply_(std::move(reply)), read_body_(read_body) {
    listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(listen_, 8) != 0 ||
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("cannot listen");
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawServer() {
    stopping_ = true;
    ::shutdown(listen_, SHUT_RDWR);  // wakes accept()
    thread_.join();
    ::close(listen_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void serve() {
    while (!stopping_) {
      int fd = ::accept(listen_, nullptr, nullptr);
      if (fd < 0) return;
      std::string head;
      char buf[65536];
      while (head.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        head.append(buf, static_cast<size_t>(n));
      }
      size_t at = head.find("Content-Length: ");
      size_t body = at == std::string::npos ? 0 : std::stoull(head.substr(at + 16));
      size_t got = head.size() - std::min(head.size(), head.find("\r\n\r\n") + 4);
      while (read_body_ && got < body) {
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      }
      // The push's pre-flight gets what an older trtlens serve answers (no such route),
      // so the upload itself meets the reply under test.
      if (head.rfind("GET ", 0) == 0 && head.find("/upload-check") != std::string::npos) {
        std::string missing = R"({"error": "no such page: /upload-check"})";
        send_all(fd, "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nConnection: close\r\n"
                     "Content-Length: " + std::to_string(missing.size()) + "\r\n\r\n" + missing);
      } else {
        reply_(fd, stopping_);
      }
      ::close(fd);
    }
  }

  std::function<void(int, const std::atomic<bool>&)> reply_;
  bool read_body_;
  int listen_ = -1, port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Sends `head`, then `piece` again and again until the client goes away.
std::function<void(int, const std::atomic<bool>&)> endless(std::string head, std::string piece) {
  return [head, piece](int fd, const std::atomic<bool>& stopping) {
    if (!send_all(fd, head)) return;
    while (!stopping && send_all(fd, piece)) {
    }
  };
}

// Raw deflate data that inflates to 1 MiB of zeros and ends on a full flush,
// so that it can follow itself any number of times in one stream.
std::string deflated_mebibyte() {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string zeros(1 << 20, '\0'), out(1 << 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(zeros.data());
  z.avail_in = static_cast<uInt>(zeros.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FULL_FLUSH), Z_OK);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

std::string chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

// A model of about 20 MiB: larger than what the socket buffers take before a server reads.
std::string save_big_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 5 << 20});
  g.init_float("w", {1, 5 << 20}, std::vector<float>(5 << 20, 0.5f));
  g.node("Add", {"x", "w"}, {"y"});
  g.output("y", kFloat, {1, 5 << 20});
  return mb.save(dir + "/big.onnx");
}

// A hang guard, not a timing assertion (the old client took 600 s or more), and
// a memory bound that an unbounded read of the reply hits.
constexpr RunLimits kHostileBounds{60, 1ull << 30};

std::vector<std::string> hostile_push(const std::string& model, const std::string& url) {
  return {"push", model, "--to", url, "--project", "vision", "--name", "detector"};
}

}  // namespace

TEST(PushCli, RepliesPastOneMebibyteAreCutOffAsTheyArrive) {
  std::string model = save_plain_model(temp_dir("push_hostile_size"));
  const std::string ok = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n";
  struct Case {
    const char* what;
    std::function<void(int, const std::atomic<bool>&)> reply;
  };
  std::string spaces(1 << 16, ' ');
  std::string gzip_head("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  std::vector<Case> cases = {
      {"a 1 GiB reply", endless(ok + "Content-Length: 1073741824\r\n\r\n", spaces)},
      {"an endless chunked reply", endless(ok + "Transfer-Encoding: chunked\r\n\r\n", chunk(spaces))},
      {"a gzip reply inflating without end",
       endless(ok + "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(gzip_head),
               chunk(deflated_mebibyte()))},
  };
  for (const Case& c : cases) {
    RawServer server(c.reply, true);
    RunResult r = run_trtlens(hostile_push(model, server.url()), kToken, kHostileBounds);
    EXPECT_EQ(r.exit_code, 2) << c.what << ": " << r.err;
    EXPECT_TRUE(one_line(r.err)) << c.what << ": " << r.err;
    EXPECT_EQ(r.err, "trtlens: " + server.url() + "/api/projects/vision/models/detector/versions: the server's reply "
                         "is over 1048576 bytes; a trtlens reply is a small JSON document\n")
        << c.what;
  }
}

TEST(PushCli, ADrippingServerMeetsTheDeadline) {
  std::string model = save_plain_model(temp_dir("push_hostile_drip"));
  // A byte a second: every read succeeds well within httplib's read timeout.
  RawServer server(
      [](int fd, const std::atomic<bool>& stopping) {
        if (!send_all(fd, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"))
          return;
        while (!stopping && send_all(fd, " ")) std::this_thread::sleep_for(std::chrono::seconds(1));
      },
      true);
  RunResult r = run_trtlens(hostile_push(model, server.url()) + std::vector<std::string>{"--timeout", "2"}, kToken,
                            kHostileBounds);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "trtlens: " + server.url() +
                       "/api/projects/vision/models/detector/versions: no complete reply within 2 s (--timeout)\n");
}

TEST(PushCli, AServerThatRefusesBeforeReadingTheUploadIsOneLine) {
  std::string model = save_big_model(temp_dir("push_hostile_refusal"));
  std::string versions = "/api/projects/vision/models/detector/versions: ";
  {
    // Closes once it has the request's head, as a proxy or a crashed server would.
    RawServer server([](int, const std::atomic<bool>&) {}, false);
    RunResult r = run_trtlens(hostile_push(model, server.url()), kToken, kHostileBounds);
    EXPECT_EQ(r.exit_code, 2) << r.err;  // was 141: SIGPIPE
    EXPECT_EQ(r.err, "trtlens: " + server.url() + versions +
                         "the connection broke or timed out while sending the upload\n");
  }
  {
    // trtlens serve refusing a token, project or role: it answers, then closes without reading the body.
    std::string body = R"({"error": "unknown or revoked token"})";
    RawServer server(
        [body](int fd, const std::atomic<bool>&) {
          send_all(fd, "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nConnection: close\r\n"
                       "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
        },
        false);
    RunResult r = run_trtlens(hostile_push(model, server.url()), kToken, kHostileBounds);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "trtlens: " + server.url() + versions + "HTTP 401: unknown or revoked token\n");
  }
}

}  // namespace trtlens::test

namespace trtlens::test {
namespace {

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

size_t varint_size(uint64_t v) {
  std::string s;
  put_varint(s, v);
  return s.size();
}

// A model of about `bytes` bytes that costs nothing to write: x -> Relu -> y whose
// graph also holds an unused FLOAT initializer of zeros. The graph field is written
// last, its initializer last in it and the initializer's raw_data last in that, so
// the zeros are the file's tail and come from ftruncate (a sparse file).
std::string save_sparse_model(const std::string& path, uint64_t bytes) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.node("Relu", {"x"}, {"y"});
  g.output("y", kFloat, {1, 4});
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(mb.bytes()));
  std::string graph = model.graph().SerializeAsString();
  model.clear_graph();
  const uint64_t raw = bytes / 4 * 4;
  std::string tensor_head;
  tensor_head += '\x08';  // dims
  put_varint(tensor_head, raw / 4);
  tensor_head += "\x10\x01";        // data_type FLOAT
  tensor_head += "\x42\x03pad";     // name
  tensor_head += '\x4a';            // raw_data
  put_varint(tensor_head, raw);
  const uint64_t tensor_size = tensor_head.size() + raw;
  std::string graph_tail = "\x2a";  // initializer
  put_varint(graph_tail, tensor_size);
  const uint64_t graph_size = graph.size() + graph_tail.size() + tensor_size;
  std::string head = model.SerializeAsString() + "\x3a";  // graph
  put_varint(head, graph_size);
  head += graph + graph_tail + tensor_head;
  EXPECT_EQ(tensor_head.size(), 1 + varint_size(raw / 4) + 2 + 5 + 1 + varint_size(raw));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(head.size() + raw)), 0);
  ::close(fd);
  return path;
}

}  // namespace

// Issue 21, item 7: a real `trtlens serve` refusing a 50 MB push (token, role, project,
// size) gives one line naming the URL and the server's reason, exit 2, for every refusal;
// the push's pre-flight hears the refusal before a byte of the model is sent.
TEST(PushCli, EveryRefusalOfARealServerIsOneLineWhateverTheModelsSize) {
  const std::string dir = temp_dir("push_real_refusals");
  const std::string model = save_sparse_model(dir + "/big.onnx", uint64_t{50} << 20);
  ASSERT_GE(std::filesystem::file_size(model), uint64_t{50} << 20);
  const std::string data = dir + "/data";
  const std::string writer = make_user(data, "alice", {"vision"});
  const std::string reader = make_user(data, "bob", {"vision"}, "read");
  ServeProcess server(data, {"--max-upload-mb", "10"});
  struct Case {
    int status;
    std::string token, project, reason;
  };
  const std::vector<Case> cases = {
      {401, "trt_" + std::string(64, '0'), "vision", "sign in"},
      {403, reader, "vision", "may only read"},
      {404, writer, "nosuch", "nosuch"},
      {413, writer, "vision", "at most 10000000"},
  };
  for (const Case& c : cases) {
    RunResult r = run_trtlens({"push", model, "--to", server.url(), "--project", c.project, "--name", "detector"},
                              {"TRTLENS_TOKEN=" + c.token}, RunLimits{120, 0});
    EXPECT_EQ(r.exit_code, 2) << c.status << ": " << r.err;  // was 141 (SIGPIPE) and nothing printed
    const std::string prefix = "trtlens: " + server.url() + "/api/projects/" + c.project +
                               "/models/detector/versions: HTTP " + std::to_string(c.status) + ": ";
    EXPECT_EQ(r.err.substr(0, prefix.size()), prefix) << r.err;
    EXPECT_NE(r.err.find(c.reason), std::string::npos) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  // Nothing was stored.
  httplib::Client client("127.0.0.1", server.port());
  auto list = client.Get("/api/projects/vision/models", {{"Authorization", "Bearer " + writer}});
  ASSERT_TRUE(list);
  EXPECT_EQ(nlohmann::json::parse(list->body)["models"].size(), 0u) << list->body;
}

}  // namespace trtlens::test
