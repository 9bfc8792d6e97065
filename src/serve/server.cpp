#include <fmt/core.h>

#include <sys/socket.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "serve/context.h"
#include "trtlens/error.h"
#include "util/files.h"

namespace trtlens::serve {

namespace {

// cpp-httplib 0.11 listens with a backlog of 5: a burst of connections (200
// clients at once) overflows it and the kernel drops their handshakes, which
// clients see as reset connections. Linux lets listen() be called again on a
// listening socket to raise the backlog; this gives access to the socket.
class Server : public httplib::Server {
 public:
  void raise_backlog(int backlog) {
    if (::listen(svr_sock_, backlog) != 0)
      fmt::print(stderr, "serve: cannot raise the listen backlog: {}\n", std::strerror(errno));
  }
};

constexpr int kListenBacklog = 1024;

Server* g_server = nullptr;  // for the signal handler only

void stop_on_signal(int) {
  // Server::stop() only flips a flag and shuts the listening socket down.
  if (g_server) g_server->stop();
}

int status_of(std::exception_ptr ep, std::string& message) {
  try {
    std::rethrow_exception(ep);
  } catch (const store::StoreError& e) {
    message = e.what();
    return status_for(e);
  } catch (const InputError& e) {
    message = e.what();
    return 400;
  } catch (const UsageError& e) {
    message = e.what();
    return 400;
  } catch (const std::exception& e) {
    message = std::string("internal error: ") + e.what();
  } catch (...) {
    message = "internal error";
  }
  return 500;
}

}  // namespace

void run_server(const ServeOptions& options) {
  Context ctx;
  ctx.options = options;
  std::vector<Pin> pins = resolve_pins(options.pins);
  ctx.store = store::Store::open(options.data_dir, options.db_url);
  ctx.analyzer = std::make_unique<Analyzer>(*ctx.store, std::move(pins), options.analysis_threads);

  Server server;
  const unsigned threads = std::max(2u, options.threads);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(options.max_upload_bytes);
  // A slow client on a big upload is fine; a stalled one is dropped.
  server.set_read_timeout(60);
  server.set_write_timeout(60);
  server.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string message;
    int status = status_of(ep, message);
    if (status == 500) fmt::print(stderr, "serve: {} {}: {}\n", req.method, req.path, message);
    send_error(res, status, message);
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    // Handlers that answered already have a body; this fills the bare ones
    // (no route: 404; httplib's own 413 and 400).
    if (!res.body.empty()) return;
    std::string message = res.status == 404   ? "no such page: " + req.path
                          : res.status == 413 ? "upload too large"
                                              : "bad request";
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
