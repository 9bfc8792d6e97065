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
#include <cstring>
#include <map>
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

// RFC 9110 5.6.2: token characters (method, field name).
bool is_tchar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar); }

// A field value's bytes: visible ASCII, SP, HTAB and obs-text (RFC 9110 5.5); no NUL, CR, LF or other control.
bool is_value_char(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u == '\t' || (u >= 0x20 && u != 0x7f);
}

// The path of a target as cpp-httplib matches routes on it: before '?', percent-decoded.
std::string decoded_path(std::string_view target) {
  std::string_view path = target.substr(0, target.find('?'));
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 2 < path.size() && std::isxdigit(static_cast<unsigned char>(path[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(path[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(path.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += path[i];
    }
  }
  return out;
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

// The access-log line of a request the front door refuses (the workers log the rest, server.cpp):
// common log style, the request line as received (at most 200 bytes, control bytes and quotes
// replaced), no user (no credential is looked at here).
std::string peer_address(int fd) {
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
  return address;
}

void log_refusal(int fd, std::string_view buf, int status) {
  std::string address = peer_address(fd);
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
                      (status == 503 ? "\r\nRetry-After: 5" : "") +
                      "\r\nConnection: close\r\n\r\n" + body;
  timeval tv{2, 0};  // a client that does not read its error is not waited for
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
}

size_t find_head_end(std::string_view buf, bool& bad) {
  bad = false;
  for (size_t i = 0; i < buf.size(); ++i) {
    if (buf[i] == '\n' && (i == 0 || buf[i - 1] != '\r')) return bad = true, std::string_view::npos;
    if (buf[i] == '\r' && i + 1 < buf.size() && buf[i + 1] != '\n') return bad = true, std::string_view::npos;
    if (buf[i] == '\n' && i >= 3 && buf.substr(i - 3, 4) == "\r\n\r\n") return i + 1;
  }
  return std::string_view::npos;
}

size_t fd_budget(uint64_t nofile, size_t reserve, size_t workers) {
  uint64_t left = nofile > reserve + workers ? nofile - reserve - workers : 0;
  return static_cast<size_t>(std::clamp<uint64_t>(left, 16, 1024));
}

HeadCheck check_head(std::string_view head, const RequestLimits& limits) {
  HeadCheck out;
  auto refuse = [&](int status, std::string message) {
    out = HeadCheck{};
    out.status = status;
    out.message = std::move(message);
    return out;
  };
  bool bad_ending = false;
  if (find_head_end(head, bad_ending) != head.size())
    return refuse(400, bad_ending ? "line ends must be CRLF" : "incomplete request head");
  head.remove_suffix(2);  // the blank line's CRLF: every line below ends in CRLF
  size_t line_end = head.find("\r\n");
  std::string_view request_line = head.substr(0, line_end);
  size_t sp1 = request_line.find(' '), sp2 = request_line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos)
    return refuse(400, "bad request line");
  std::string_view method = request_line.substr(0, sp1);
  std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = request_line.substr(sp2 + 1);
  if (!is_token(method) || target.empty() || target[0] != '/' ||
      !std::all_of(target.begin(), target.end(), [](char c) { return c > 0x20 && c < 0x7f; }) ||
      (version != "HTTP/1.1" && version != "HTTP/1.0"))
    return refuse(400, "bad request line");
  out.upload = limits.is_upload && limits.is_upload(method, decoded_path(target));
  const uint64_t body_limit = out.upload ? limits.upload_bytes : limits.body_bytes;

  out.head.reserve(head.size() + 2);
  out.head.append(request_line).append("\r\n");
  bool have_length = false, have_host = false;
  size_t lines = 0;
  for (size_t pos = line_end + 2; pos < head.size();) {
    size_t end = head.find("\r\n", pos);
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 2;
    if (++lines > limits.header_lines)
      return refuse(431, "more than " + std::to_string(limits.header_lines) + " header lines");
    if (line.empty() || line[0] == ' ' || line[0] == '\t') return refuse(400, "folded header line (obs-fold)");
    size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    if (colon == std::string_view::npos || !is_token(name)) return refuse(400, "bad header name");
    std::string_view value = line.substr(colon + 1);
    if (!std::all_of(value.begin(), value.end(), is_value_char)) return refuse(400, "control byte in a header");
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (iequals(name, "Content-Encoding") && !iequals(value, "identity"))
      return refuse(415, "request bodies are not decoded: send them without Content-Encoding");
    if (iequals(name, "Transfer-Encoding"))
      return refuse(411, "send the body with a Content-Length, not Transfer-Encoding");
    if (iequals(name, "Host")) {
      if (have_host) return refuse(400, "two Host fields");
      have_host = true;
    }
    if (iequals(name, "Content-Length")) {
      uint64_t n = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (have_length || value.empty() || value.size() > 19 || value[0] == '-' || value[0] == '+' ||
          ec != std::errc() || p != value.data() + value.size())
        return refuse(400, "bad Content-Length");
      have_length = true;
      if (n > body_limit)
        return refuse(413, "request body of " + std::to_string(n) + " bytes; this route takes at most " +
                               std::to_string(body_limit));
      out.body_bytes = n;
    }
    // One range or none: a multipart reply of many ranges is built in memory.
    if (iequals(name, "Range") && value.find(',') != std::string_view::npos) continue;
    out.head.append(name).append(": ").append(value).append("\r\n");
  }
  // cpp-httplib reads these methods' bodies until the connection closes when no length is given.
  if (!have_length && (method == "POST" || method == "PUT" || method == "PATCH" || method == "PRI"))
    return refuse(411, "send the body with a Content-Length");
  out.head.append("\r\n");
  return out;
}

struct FrontDoor::Impl {
  struct Pending {
    int fd;
    std::string address;
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
    std::map<std::string, size_t> per_address;  // pending connections by client address
    auto drop = [&](const Pending& p) {
      auto it = per_address.find(p.address);
      if (it != per_address.end() && --it->second == 0) per_address.erase(it);
    };
    std::vector<pollfd> fds;
    char chunk[4096];
    while (!stopping) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        for (int fd : incoming) {
          std::string address = peer_address(fd);
          size_t& mine = per_address[address];
          // Full, or this address holds its share: answered now (a small reply fits the socket's
          // buffer, so this thread does not wait), and the connection waits nowhere.
          if (pending.size() >= limits.pending_connections || mine >= limits.pending_per_address) {
            if (mine == 0) per_address.erase(address);
            log_refusal(fd, "", 503);
            send_raw_error(fd, 503, "too many connections; try again");
            close_connection(fd);
            continue;
          }
          ++mine;
          pending.push_back({fd, std::move(address), {}, monotonic_ms() + int64_t{limits.head_seconds} * 1000, 0, {}});
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
              drop(p);
              close_connection(p.fd);
            }
            continue;
          }
          if (p.linger_bytes >= 0) {
            p.linger_bytes -= n;
            if (p.linger_bytes < 0) {
              drop(p);
              close_connection(p.fd);
              continue;
            }
          } else {
            p.buf.append(chunk, static_cast<size_t>(n));
            if (advance(p)) {  // dispatched
              drop(p);
              continue;
            }
          }
        }
        if (now >= p.deadline_ms && p.linger_bytes >= 0) {
          drop(p);
          close_connection(p.fd);
          continue;
        }
        if (now >= p.deadline_ms) {
          drop(p);
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
      bool bad = false;
      size_t end = find_head_end(p.buf, bad);
      if (bad) return refuse(400, "line ends must be CRLF");
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
    // What follows the body (a pipelined request) is never handed on: one request per connection.
    std::string rest = p.buf.substr(p.head_end, std::min<uint64_t>(c.body_bytes, p.buf.size() - p.head_end));
    dispatch(p.fd, std::move(p.check.head), std::move(rest), monotonic_ms() + seconds * 1000, c.upload);
    return true;
  }
};

FrontDoor::FrontDoor(RequestLimits limits, Dispatch dispatch) : limits_(limits), impl_(new Impl(limits_, std::move(dispatch))) {}
FrontDoor::~FrontDoor() { delete impl_; }
void FrontDoor::add(int fd) { impl_->add(fd); }

}  // namespace trtlens::serve
