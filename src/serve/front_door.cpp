#include "serve/front_door.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "util/strings.h"

namespace trtlens::serve {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// Routes whose body is an upload (api.cpp, pages.cpp); every other body is small.
bool is_upload(std::string_view method, std::string_view target) {
  if (method != "POST") return false;
  std::string_view path = target.substr(0, target.find('?'));
  return ends_with(path, "/versions") || ends_with(path, "/engines") || ends_with(path, "/upload");
}

const char* reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
  }
  return "Error";
}

// Where the head ends (one past its blank line) in `buf`, or npos.
size_t head_end(std::string_view buf) {
  for (size_t i = buf.find('\n'); i != std::string_view::npos; i = buf.find('\n', i + 1)) {
    if (i + 1 < buf.size() && buf[i + 1] == '\n') return i + 2;
    if (i + 2 < buf.size() && buf[i + 1] == '\r' && buf[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

// The access-log line of a request the front door refuses (the workers log the rest, server.cpp):
// common log style, the request line as received (at most 200 bytes, control bytes and quotes
// replaced), no user (no credential is looked at here).
void log_refusal(int fd, std::string_view buf, int status) {
  std::string address = "-";
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  char ip[INET6_ADDRSTRLEN] = {};
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    if (a.ss_family == AF_INET)
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&a)->sin_addr, ip, sizeof ip);
    else if (a.ss_family == AF_INET6)
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&a)->sin6_addr, ip, sizeof ip);
    if (ip[0]) address = ip;
  }
  std::string line(buf.substr(0, std::min<size_t>({buf.find('\n'), buf.size(), 200})));
  while (!line.empty() && line.back() == '\r') line.pop_back();
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == 0x7f) c = '?';
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char date[40];
  size_t n = std::strftime(date, sizeof date, "%d/%b/%Y:%H:%M:%S +0000", &tm);
  std::fprintf(stderr, "%s - - [%.*s] \"%s\" %d 0 0ms\n", address.c_str(), static_cast<int>(n), date, line.c_str(),
               status);
}

}  // namespace

int64_t monotonic_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void close_connection(int fd) {
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

void send_raw_error(int fd, int status, std::string_view message) {
  std::string body = nlohmann::json({{"error", message}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string reply = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
                      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                      "\r\nConnection: close\r\n\r\n" + body;
  timeval tv{2, 0};  // a client that does not read its error is not waited for
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
}

HeadCheck check_head(std::string_view head, const RequestLimits& limits) {
  HeadCheck out;
  auto refuse = [&](int status, std::string message) {
    out.status = status;
    out.message = std::move(message);
    return out;
  };
  size_t line_end = head.find('\n');
  if (line_end == std::string_view::npos) return refuse(400, "bad request line");
  std::string_view request_line = trim_blanks(head.substr(0, line_end));
  size_t sp1 = request_line.find(' '), sp2 = request_line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1 || request_line.substr(sp2 + 1).substr(0, 5) != "HTTP/")
    return refuse(400, "bad request line");
  std::string_view method = request_line.substr(0, sp1);
  std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  out.upload = is_upload(method, target);
  const uint64_t body_limit = out.upload ? limits.upload_bytes : limits.body_bytes;

  out.head.reserve(head.size());
  out.head.append(head.substr(0, line_end + 1));
  bool have_length = false;
  size_t lines = 0;
  for (size_t pos = line_end + 1; pos < head.size();) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size() - 1;
    std::string_view raw = head.substr(pos, end + 1 - pos);
    pos = end + 1;
    std::string_view line = trim_blanks(raw.substr(0, raw.size() - 1));
    if (line.empty()) {  // the blank line: the end of the head
      out.head.append(raw);
      break;
    }
    if (++lines > limits.header_lines)
      return refuse(431, "more than " + std::to_string(limits.header_lines) + " header lines");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return refuse(400, "bad header line");
    std::string_view name = trim_blanks(line.substr(0, colon)), value = trim_blanks(line.substr(colon + 1));
    if (iequals(name, "Content-Encoding") && !iequals(value, "identity"))
      return refuse(415, "request bodies are not decoded: send them without Content-Encoding");
    if (iequals(name, "Transfer-Encoding"))
      return refuse(411, "send the body with a Content-Length, not Transfer-Encoding");
    if (iequals(name, "Content-Length")) {
      uint64_t n = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (have_length || value.empty() || ec != std::errc() || p != value.data() + value.size())
        return refuse(400, "bad Content-Length");
      have_length = true;
      if (n > body_limit)
        return refuse(413, "request body of " + std::to_string(n) + " bytes; this route takes at most " +
                               std::to_string(body_limit));
      out.body_bytes = n;
    }
    // One range or none: a multipart reply of many ranges is built in memory.
    if (iequals(name, "Range") && value.find(',') != std::string_view::npos) continue;
    out.head.append(raw);
  }
  return out;
}

struct FrontDoor::Impl {
  struct Pending {
    int fd;
    std::string buf;
    int64_t deadline_ms;
    size_t head_end = 0;  // once the head is checked: its length, and `check` what it gave
    HeadCheck check;
    // Refused and answered: what the client still sends is read and dropped (this many
    // bytes at most, until the deadline), so it reads the answer instead of a reset.
    int64_t linger_bytes = -1;
  };
  static constexpr int64_t kLingerBytes = 16 << 20;
  static constexpr int64_t kLingerMs = 2000;
  const RequestLimits& limits;
  Dispatch dispatch;
  std::mutex mutex;
  std::vector<int> incoming;  // guarded by mutex
  int wake[2] = {-1, -1};
  std::atomic<bool> stopping{false};
  std::thread thread;

  Impl(const RequestLimits& l, Dispatch d) : limits(l), dispatch(std::move(d)) {
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("serve: cannot create a pipe");
    thread = std::thread([this] { loop(); });
  }

  ~Impl() {
    stopping = true;
    char c = 0;
    (void)!::write(wake[1], &c, 1);
    thread.join();
    ::close(wake[0]);
    ::close(wake[1]);
    for (int fd : incoming) ::close(fd);
  }

  void add(int fd) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      incoming.push_back(fd);
    }
    char c = 0;
    (void)!::write(wake[1], &c, 1);
  }

  void loop() {
    std::deque<Pending> pending;  // oldest first
    std::vector<pollfd> fds;
    char chunk[4096];
    while (!stopping) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        for (int fd : incoming) {
          if (pending.size() >= limits.pending_connections) {  // full: the new one waits nowhere
            close_connection(fd);
            continue;
          }
          pending.push_back({fd, {}, monotonic_ms() + int64_t{limits.head_seconds} * 1000, 0, {}});
        }
        incoming.clear();
      }
      fds.assign(1, pollfd{wake[0], POLLIN, 0});
      int64_t now = monotonic_ms(), next = now + 1000;
      for (const auto& p : pending) {
        fds.push_back(pollfd{p.fd, POLLIN, 0});
        next = std::min(next, p.deadline_ms);
      }
      ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(0, next - now)));
      if (fds[0].revents & POLLIN)
        while (::read(wake[0], chunk, sizeof chunk) > 0) {
        }
      now = monotonic_ms();
      std::deque<Pending> still;
      for (size_t i = 0; i < pending.size(); ++i) {
        Pending& p = pending[i];
        short ev = fds[i + 1].revents;
        if (ev & (POLLIN | POLLHUP | POLLERR)) {
          ssize_t n = ::recv(p.fd, chunk, sizeof chunk, MSG_DONTWAIT);
          if (n <= 0) {
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
              still.push_back(std::move(p));
            } else {
              close_connection(p.fd);
            }
            continue;
          }
          if (p.linger_bytes >= 0) {
            p.linger_bytes -= n;
            if (p.linger_bytes < 0) {
              close_connection(p.fd);
              continue;
            }
          } else {
            p.buf.append(chunk, static_cast<size_t>(n));
            if (advance(p)) continue;  // dispatched
          }
        }
        if (now >= p.deadline_ms && p.linger_bytes >= 0) {
          close_connection(p.fd);
          continue;
        }
        if (now >= p.deadline_ms) {
          log_refusal(p.fd, p.buf, 408);
          send_raw_error(p.fd, 408, "request head not received in " + std::to_string(limits.head_seconds) + " s");
          close_connection(p.fd);
          continue;
        }
        still.push_back(std::move(p));
      }
      pending.swap(still);
    }
    for (auto& p : pending) close_connection(p.fd);
  }

  // After new bytes: checks the head once it is complete, and dispatches once what
  // the front door reads has arrived. True when `p` is dispatched; a refused one is
  // answered and left lingering.
  bool advance(Pending& p) {
    auto refuse = [&](int status, const std::string& message) {
      log_refusal(p.fd, p.buf, status);
      send_raw_error(p.fd, status, message);
      ::shutdown(p.fd, SHUT_WR);
      p.buf = std::string();
      p.linger_bytes = kLingerBytes;
      p.deadline_ms = monotonic_ms() + kLingerMs;
      return false;
    };
    if (p.head_end == 0) {
      size_t end = head_end(p.buf);
      if (end == std::string::npos ? p.buf.size() > limits.head_bytes : end > limits.head_bytes)
        return refuse(431, "request head over " + std::to_string(limits.head_bytes) + " bytes");
      if (end == std::string::npos) return false;
      p.check = check_head(std::string_view(p.buf).substr(0, end), limits);
      if (p.check.status != 0) return refuse(p.check.status, p.check.message);
      p.head_end = end;
    }
    const HeadCheck& c = p.check;
    if (!c.upload && p.buf.size() - p.head_end < c.body_bytes) return false;  // the rest of a small body
    int64_t seconds = limits.body_grace_seconds +
                      static_cast<int64_t>(c.body_bytes / std::max<uint64_t>(1, limits.body_bytes_per_second));
    dispatch(p.fd, std::move(p.check.head), p.buf.substr(p.head_end), monotonic_ms() + seconds * 1000);
    return true;
  }
};

FrontDoor::FrontDoor(RequestLimits limits, Dispatch dispatch) : limits_(limits), impl_(new Impl(limits_, std::move(dispatch))) {}
FrontDoor::~FrontDoor() { delete impl_; }
void FrontDoor::add(int fd) { impl_->add(fd); }

}  // namespace trtlens::serve
