#include <fmt/core.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <memory>
#include <regex>
#include <nlohmann/json.hpp>

#include "serve/context.h"
#include "serve/front_door.h"
#include "trtlens/error.h"
#include "util/files.h"

namespace trtlens::serve {

namespace {

// A connection after its head passed the front door: the canonical head it
// parsed and the body bytes that came with it are replayed to cpp-httplib, then
// the socket is read until the body deadline, each read waiting at most
// body_idle_seconds and the whole at least at the upload rate after the grace,
// and written until the reply deadline (a client that stops reading or sending
// holds a worker for seconds, not for its declared length).
class GuardedStream : public httplib::Stream {
 public:
  GuardedStream(int fd, std::string prefix, int64_t read_deadline_ms, const RequestLimits& limits)
      : fd_(fd), prefix_(std::move(prefix)), read_deadline_ms_(read_deadline_ms), limits_(limits),
        start_ms_(monotonic_ms()) {}
  bool is_readable() const override { return pos_ < prefix_.size() || wait(POLLIN, next_read_deadline()); }
  bool is_writable() const override { return wait(POLLOUT, write_deadline()); }
  ssize_t read(char* ptr, size_t size) override {
    if (pos_ < prefix_.size()) {
      size_t n = std::min(size, prefix_.size() - pos_);
      std::memcpy(ptr, prefix_.data() + pos_, n);
      pos_ += n;
      return static_cast<ssize_t>(n);
    }
    if (!wait(POLLIN, next_read_deadline())) return -1;
    ssize_t n = ::recv(fd_, ptr, size, 0);
    if (n > 0) received_ += static_cast<uint64_t>(n);
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!wait(POLLOUT, write_deadline())) return -1;
    return ::send(fd_, ptr, size, MSG_NOSIGNAL);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(false, ip, port); }
  socket_t socket() const override { return fd_; }

 private:
  static constexpr int64_t kReplySeconds = 300;  // the longest a reply may take to be read
  // The next socket read's deadline: the body's, the idle timeout's, or now when the body
  // came slower than the minimum rate since the grace ended.
  int64_t next_read_deadline() const {
    int64_t now = monotonic_ms(), elapsed_s = (now - start_ms_) / 1000;
    if (elapsed_s > limits_.body_grace_seconds &&
        received_ < static_cast<uint64_t>(elapsed_s - limits_.body_grace_seconds) * limits_.upload_min_bytes_per_second)
      return now;
    return std::min(read_deadline_ms_, now + int64_t{limits_.body_idle_seconds} * 1000);
  }
  int64_t write_deadline() const {
    if (write_deadline_ms_ == 0) write_deadline_ms_ = monotonic_ms() + kReplySeconds * 1000;
    return write_deadline_ms_;
  }
  bool wait(short events, int64_t deadline_ms) const {
    for (;;) {
      int64_t left = deadline_ms - monotonic_ms();
      if (left <= 0) return false;
      pollfd p{fd_, events, 0};
      int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 60000)));
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return false;
    }
  }
  void address(bool peer, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    int r = peer ? ::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len)
                 : ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    if (r != 0) return;
    char buf[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
      port = ntohs(in->sin_port);
    } else if (a.ss_family == AF_INET6) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
      port = ntohs(in6->sin6_port);
    }
    ip = buf;
  }
  int fd_;
  std::string prefix_;
  size_t pos_ = 0;
  int64_t read_deadline_ms_;
  const RequestLimits& limits_;
  int64_t start_ms_;
  uint64_t received_ = 0;  // body bytes read from the socket
  mutable int64_t write_deadline_ms_ = 0;
};

class Server : public httplib::Server {
 public:
  Server(const RequestLimits& limits, unsigned workers, size_t queue_limit)
      : limits_(limits), workers_count_(workers), workers_(workers), queue_limit_(queue_limit),
        door_(std::make_unique<FrontDoor>(limits, [this](int fd, std::string head, std::string rest, int64_t deadline, bool upload) {
          dispatch(fd, std::move(head), std::move(rest), deadline, upload);
        })) {}
  ~Server() override {
    door_.reset();  // no more dispatches
    workers_.shutdown();  // requests in progress finish
  }

  // cpp-httplib 0.11 listens with a backlog of 5: a burst of connections (200
  // clients at once) overflows it and the kernel drops their handshakes, which
  // clients see as reset connections. Linux lets listen() be called again on a
  // listening socket to raise the backlog; this gives access to the socket.
  void raise_backlog(int backlog) {
    if (::listen(svr_sock_, backlog) != 0)
      fmt::print(stderr, "serve: cannot raise the listen backlog: {}\n", std::strerror(errno));
  }

 private:
  // cpp-httplib's accept loop hands each connection here (on its small pool):
  // the front door reads the head, off the workers.
  bool process_and_close_socket(socket_t sock) override {
    door_->add(sock);
    return true;
  }

  void dispatch(int fd, std::string head, std::string rest, int64_t deadline_ms, bool upload) {
    if (queued_.fetch_add(1) >= queue_limit_) {
      --queued_;
      send_raw_error(fd, 503, "the server is busy; try again");
      close_connection(fd);
      return;
    }
    // Uploads read their body on a worker: at most half the workers do, so slow or stalled
    // uploaders (signed in or not yet refused) never hold the workers every page needs.
    if (upload && uploads_.fetch_add(1) >= upload_limit()) {
      --uploads_;
      --queued_;
      send_raw_error(fd, 503, "the server takes " + std::to_string(upload_limit()) + " uploads at once; try again");
      close_connection(fd);
      return;
    }
    workers_.enqueue([this, fd, prefix = std::move(head) + rest, deadline_ms, upload]() mutable {
      GuardedStream stream(fd, std::move(prefix), deadline_ms, limits_);
      bool closed = false;
      process_request(stream, /*close_connection=*/true, closed, nullptr);
      close_connection(fd);
      if (upload) --uploads_;
      --queued_;
    });
  }

  size_t upload_limit() const { return std::max<size_t>(1, workers_count_ / 2); }

  const RequestLimits limits_;  // outlives the workers (the front door goes first)
  const size_t workers_count_;
  httplib::ThreadPool workers_;
  const size_t queue_limit_;  // requests running or waiting for a worker; more get 503
  std::atomic<size_t> queued_{0};
  std::atomic<size_t> uploads_{0};  // upload requests queued or running
  std::unique_ptr<FrontDoor> door_;
};

constexpr int kListenBacklog = 1024;
// Descriptors kept for analyses (a model's files, external data), the database and the listener.
constexpr uint64_t kReservedFds = 256;

Server* g_server = nullptr;  // for the signal handler only

void stop_on_signal(int) {
  // Server::stop() only flips a flag and shuts the listening socket down.
  if (g_server) g_server->stop();
}

int status_of(std::exception_ptr ep, std::string& message) {
  auto said = [&](const std::exception& e, int status) {
    message = e.what();
    return status;
  };
  try {
    std::rethrow_exception(ep);
  } catch (const store::StoreError& e) {
    return said(e, status_for(e));
  } catch (const BusyError& e) {
    return said(e, 503);
  } catch (const RateLimited& e) {
    return said(e, 429);
  } catch (const InputError& e) {
    return said(e, 400);
  } catch (const UsageError& e) {
    return said(e, 400);
  } catch (const std::exception& e) {
    message = std::string("internal error: ") + e.what();
  } catch (...) {
    message = "internal error";
  }
  return 500;
}

thread_local int64_t t_request_start_ms = 0;

// One line per request in the common log format, and the time it took:
// 127.0.0.1 - alice [24/Nov/2026:21:10:00 +0000] "GET /api/projects HTTP/1.1" 200 154 3ms
void log_request(const httplib::Request& req, const httplib::Response& res) {
  const std::string& user = request_user();
  std::string path = req.path;
  for (char& c : path)  // one line, whatever the client sent
    if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == 0x7f) c = '?';
  fmt::print(stderr, "{} - {} [{}] \"{} {} {}\" {} {} {}ms\n", req.remote_addr.empty() ? "-" : req.remote_addr,
             user.empty() ? "-" : user, utc_time(std::time(nullptr), "%d/%b/%Y:%H:%M:%S +0000"), req.method, path,
             req.version, res.status, res.body.size(), t_request_start_ms ? monotonic_ms() - t_request_start_ms : 0);
  t_request_start_ms = 0;
}

// A person's browser on a page (not /api/, asking for HTML) gets an error page, not JSON.
bool wants_html(const httplib::Request& req) {
  return req.path.rfind("/api/", 0) != 0 && req.get_header_value("Accept").find("text/html") != std::string::npos;
}

}  // namespace

void run_server(const ServeOptions& options) {
  Context ctx;
  ctx.options = options;
  std::vector<Pin> pins = resolve_pins(options.pins);
  ctx.store = store::Store::open(options.data_dir, options.db_url);
  ctx.analyzer = std::make_unique<Analyzer>(*ctx.store, std::move(pins), options.analysis_threads);
  ctx.live = std::make_unique<LiveAnalyses>(std::max(1u, options.analysis_threads));

  RequestLimits limits;
  limits.upload_bytes = options.max_upload_bytes;
  limits.is_upload = [&ctx](std::string_view method, std::string_view path) {
    if (method != "POST") return false;
    const std::string p(path);
    return std::any_of(ctx.upload_routes.begin(), ctx.upload_routes.end(),
                       [&](const std::regex& r) { return std::regex_match(p, r); });
  };
  // Descriptors: the limit raised to the hard one, then shared out so that connections can
  // never take the ones analyses and the database need (kReservedFds).
  const unsigned workers = std::max(2u, options.threads);
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
    nofile.rlim_cur = nofile.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &nofile);
    ::getrlimit(RLIMIT_NOFILE, &nofile);
  }
  const uint64_t fds = nofile.rlim_cur == RLIM_INFINITY ? uint64_t{1} << 20 : nofile.rlim_cur;
  const size_t usable = fds > kReservedFds ? static_cast<size_t>(fds - kReservedFds) : 32;
  const size_t queue_limit = std::clamp<size_t>(usable / 2, 8, size_t{workers} * 4);
  limits.pending_connections = fd_budget(fds, kReservedFds, queue_limit);
  limits.pending_per_address = std::max<size_t>(8, limits.pending_connections / 4);
  Server server(limits, workers, queue_limit);
  // cpp-httplib's own pool only hands accepted connections to the front door.
  server.new_task_queue = [] { return new httplib::ThreadPool(2); };
  server.set_payload_max_length(options.max_upload_bytes);
  server.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
    t_request_start_ms = monotonic_ms();
    note_request_user("");
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_logger(log_request);
  server.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string message;
    int status = status_of(ep, message);
    if (status == 500) fmt::print(stderr, "serve: {} {}: {}\n", req.method, req.path, message);
    send_error(res, status, message);
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    // Handlers that answered already have a body; this fills the bare ones
    // (no route: 404; httplib's own 413 and 400), and turns JSON errors into pages for people.
    std::string message;
    if (res.body.empty()) {
      message = res.status == 404 ? "no such page: " + req.path : res.status == 413 ? "upload too large" : "bad request";
    } else if (wants_html(req) && res.get_header_value("Content-Type") == "application/json") {
      try {
        message = nlohmann::json::parse(res.body).value("error", std::string());
      } catch (const nlohmann::json::exception&) {
      }
      if (message.empty()) return;
    } else {
      return;
    }
    if (wants_html(req))
      send_error_page(res, res.status, message);
    else
      send_error(res, res.status, message);
  });

  add_api_routes(server, ctx);
  add_page_routes(server, ctx);

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) throw UsageError(fmt::format("serve: cannot listen on {}", options.host));
  } else if (!server.bind_to_port(options.host, port)) {
    throw UsageError(fmt::format("serve: cannot listen on {}:{} (in use?)", options.host, port));
  }
  server.raise_backlog(kListenBacklog);
  if (!options.port_file.empty()) write_file_atomic(options.port_file, std::to_string(port) + "\n");
  fmt::print(stderr, "serve: http://{}:{}/ (data {}, {})\n", options.host, port, options.data_dir.string(),
             options.db_url.empty() ? "SQLite" : "PostgreSQL");
  g_server = &server;
  std::signal(SIGINT, stop_on_signal);
  std::signal(SIGTERM, stop_on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  server.listen_after_bind();
  g_server = nullptr;
}

}  // namespace trtlens::serve
