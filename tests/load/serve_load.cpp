// Load on a real `trtlens serve`: R concurrent readers (the model page, its
// report and the API's model list, each signed in) and U concurrent uploaders
// (pushes through the API) for S seconds. Fails (exit 1) on any error: a
// refused connection, a timeout, or a status other than the expected one.
// Prints request counts and latency percentiles (ms); timings are reported,
// never asserted (figures: bench/README.md).
//
// usage: serve_load WORK_DIR [SECONDS=30] [READERS=200] [UPLOADERS=20]
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/onnx_builder.h"
#include "support/paths.h"
#include "support/serve_process.h"

using namespace trtlens::test;
using Clock = std::chrono::steady_clock;

namespace {

std::string model_bytes(int variant) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 64, 64});
  std::string last = "x";
  for (int i = 0; i < 20 + variant; ++i) {
    std::string out = "t" + std::to_string(i);
    g.node(i % 2 ? "Relu" : "Sigmoid", {last}, {out}, "n" + std::to_string(i));
    last = out;
  }
  g.output(last);
  return mb.bytes();
}

struct Stats {
  std::mutex mutex;
  std::vector<double> page_ms, api_ms, upload_ms;
  std::atomic<long> errors{0};
  std::string first_error;
  void error(const std::string& what) {
    std::lock_guard lock(mutex);
    if (errors++ == 0) first_error = what;
  }
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: serve_load WORK_DIR [SECONDS] [READERS] [UPLOADERS]\n");
    return 2;
  }
  const std::string work = argv[1];
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 30;
  const int readers = argc > 3 ? std::atoi(argv[3]) : 200;
  const int uploaders = argc > 4 ? std::atoi(argv[4]) : 20;
  std::filesystem::remove_all(work);
  std::filesystem::create_directories(work);
  const std::string data = work + "/data";
  const std::string token = make_user(data, "load", {"bench"});
  ServeProcess server(data);
  const httplib::Headers auth = {{"Authorization", "Bearer " + token}};
  // force: uploaders send the same files, which would otherwise answer "no change" (200) and store nothing.
  const std::string push_path = "/api/projects/bench/models/m/versions?filename=m.onnx&force=1";
  {
    httplib::Client c("127.0.0.1", server.port());
    auto r = c.Post(push_path.c_str(), auth, model_bytes(0), "application/octet-stream");
    if (!r || r->status != 201) {
      std::fprintf(stderr, "serve_load: first push failed\n");
      return 1;
    }
    // The page readers load is the analysed one.
    for (int i = 0; i < 600; ++i) {
      auto a = c.Get("/api/projects/bench/models/m/versions/1/analysis", auth);
      if (a && a->body.find("\"done\"") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  Stats stats;
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  auto timed = [](auto&& call) {
    auto t0 = Clock::now();
    auto r = call();
    return std::make_pair(std::move(r), std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < readers; ++i)
    threads.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", server.port());
      c.set_read_timeout(60);
      c.set_connection_timeout(60);
      // The sign-in form's token and cookie, as a browser gets them.
      auto form = c.Get("/login");
      if (!form) return stats.error("sign-in form: error " + httplib::to_string(form.error()));
      std::string form_cookie = form->get_header_value("Set-Cookie");
      size_t at = form->body.find("name=\"login_csrf\" value=\"");
      if (at == std::string::npos) return stats.error("sign-in form without its token");
      std::string login_csrf = form->body.substr(at + 25, form->body.find('"', at + 25) - at - 25);
      auto login = c.Post("/login", {{"Cookie", form_cookie.substr(0, form_cookie.find(';'))}},
                          "login_csrf=" + login_csrf + "&token=" + token, "application/x-www-form-urlencoded");
      if (!login || login->status != 303)
        return stats.error("sign-in: " + (login ? "status " + std::to_string(login->status) + " " + login->body
                                                : "error " + httplib::to_string(login.error())));
      std::string cookie = login->get_header_value("Set-Cookie");
      httplib::Headers session = {{"Cookie", cookie.substr(0, cookie.find(';'))}};
      const char* paths[] = {"/projects/bench/models/m/versions/1", "/projects/bench/models/m/versions/1/report"};
      for (int k = i; Clock::now() < end; ++k) {
        bool api = k % 3 == 2;
        auto [r, ms] = timed([&] {
          return api ? c.Get("/api/projects/bench/models", auth) : c.Get(paths[k % 3], session);
        });
        if (!r || r->status != 200) {
          stats.error(r ? "status " + std::to_string(r->status) : "error " + httplib::to_string(r.error()));
          continue;
        }
        std::lock_guard lock(stats.mutex);
        (api ? stats.api_ms : stats.page_ms).push_back(ms);
      }
    });
  for (int i = 0; i < uploaders; ++i)
    threads.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", server.port());
      c.set_read_timeout(60);
      c.set_connection_timeout(60);
      const std::string body = model_bytes(i % 4);
      while (Clock::now() < end) {
        auto [r, ms] = timed([&] { return c.Post(push_path.c_str(), auth, body, "application/octet-stream"); });
        if (!r || r->status != 201) {
          stats.error(r ? "upload status " + std::to_string(r->status) + " " + r->body
                        : "upload error " + httplib::to_string(r.error()));
          continue;
        }
        std::lock_guard lock(stats.mutex);
        stats.upload_ms.push_back(ms);
      }
    });
  for (auto& t : threads) t.join();
  std::printf("serve_load: %d s, %d readers, %d uploaders\n", seconds, readers, uploaders);
  auto line = [](const char* what, const std::vector<double>& v) {
    std::printf("  %-8s %7zu requests  p50 %7.1f ms  p95 %7.1f ms  p99 %7.1f ms  max %7.1f ms\n", what, v.size(),
                percentile(v, 0.5), percentile(v, 0.95), percentile(v, 0.99), percentile(v, 1.0));
  };
  line("pages", stats.page_ms);
  line("api", stats.api_ms);
  line("uploads", stats.upload_ms);
  std::printf("  errors   %ld%s%s\n", stats.errors.load(), stats.errors ? ", first: " : "", stats.first_error.c_str());
  if (server.stop() != 0) {
    std::printf("  the server did not stop cleanly:\n%s\n", server.log().c_str());
    return 1;
  }
  return stats.errors == 0 && !stats.page_ms.empty() && !stats.upload_ms.empty() ? 0 : 1;
}
