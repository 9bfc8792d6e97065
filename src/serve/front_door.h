// The dashboard's front door: every connection's request head (request line and
// headers) is read by one poll() thread with bounds on size, header lines and
// time, and checked before cpp-httplib parses it or any credential is looked at.
// Only a complete, acceptable head reaches a worker thread, so a slow or hostile
// client (slowloris, header floods, huge or encoded bodies) costs a buffer, not a worker.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace trtlens::serve {

// What one request may send. Documented in docs/serve.md ("Limits and what an attacker gets").
struct RequestLimits {
  size_t head_bytes = 32 * 1024;  // request line and headers together
  size_t header_lines = 100;
  int head_seconds = 10;              // from accept to the end of the head
  // Connections still sending a head (or small body); more are answered 503 with Retry-After at once.
  // run_server lowers it to what the open-file limit allows (fd_budget).
  size_t pending_connections = 1024;
  size_t pending_per_address = 64;  // of those, from one client address
  uint64_t body_bytes = 16 * 1024;    // every route but uploads (login, logout, API reads)
  uint64_t upload_bytes = uint64_t{4} << 30;  // POST .../versions, .../engines, .../upload (ServeOptions)
  // A body must arrive within body_grace_seconds plus its length at this rate.
  int body_grace_seconds = 30;
  uint64_t body_bytes_per_second = 32 * 1024;
  // A worker reading an upload waits at most this long for its next byte, and after the grace
  // the body must have come at least at upload_min_bytes_per_second on average (nginx's
  // client_body_timeout): a stalled upload frees its worker in seconds, not at its deadline.
  int body_idle_seconds = 15;
  uint64_t upload_min_bytes_per_second = 4 * 1024;
  // Whether METHOD and the decoded path name an upload route (server.cpp: the routes that
  // read their body as a stream). Null: none is.
  std::function<bool(std::string_view method, std::string_view path)> is_upload;
};

// The verdict on one request head.
struct HeadCheck {
  int status = 0;          // 0: accepted; else the status to answer (400, 411, 413, 415, 431)
  std::string message;     // why, for the error reply
  std::string head;        // accepted: the head to hand on (a multi-range Range header dropped)
  uint64_t body_bytes = 0;  // accepted: the Content-Length (0 without one)
  bool upload = false;      // an upload route (its body is streamed by the worker)
};

// Parses a complete head (up to and including the blank line) strictly as RFC 9112 spells it,
// and gives the canonical head that cpp-httplib then reads in its place (so both see one parse):
// request line "METHOD SP /target SP HTTP/1.0|1.1", each field "name: value", CRLF line ends.
// Refuses with 400: a line end that is not CRLF (bare LF, CR alone), a NUL or other control
// byte, obs-fold (a line starting with SP or HTAB), a field name that is not a token (a space
// before the colon), a malformed request line, a target not starting with '/', two Host
// fields, a Content-Length that is not 1-19 digits or comes twice. Refuses with 411:
// Transfer-Encoding (any), POST/PUT/PATCH without Content-Length; 415: Content-Encoding but
// identity; 413: a body over the route's limit (limits.is_upload); 431: more than
// limits.header_lines fields. A Range field naming more than one range is dropped (the reply
// is the whole resource).
HeadCheck check_head(std::string_view head, const RequestLimits& limits);

// Where a head ends in `buf` (one past its CRLF CRLF); npos while incomplete. Sets `bad`
// when a line end that is not CRLF comes first (the head is refused at once, not waited for).
size_t find_head_end(std::string_view buf, bool& bad);

// How many connections the front door may hold, from the open-file limit `nofile`: what is
// left after `reserve` descriptors (analyses, the database, the listener) and `workers`
// connections being served; at least 16, at most 1024.
size_t fd_budget(uint64_t nofile, size_t reserve, size_t workers);

// Starts the thread that reads heads, and whole bodies of every route but uploads
// (at most RequestLimits::body_bytes, within the same head_seconds), so only an upload,
// whose route checks credentials before reading it, is read by a worker.
// `dispatch(fd, head, rest, body_deadline_ms, upload)` runs for each accepted request
// (`head`: the canonical head check_head gave; `rest`: body bytes read past the head, at most
// its Content-Length; a deadline on monotonic_ms(); `upload`: an upload route's); it owns and
// closes `fd` and must return quickly. Refused requests are answered and closed here.
class FrontDoor {
 public:
  using Dispatch =
      std::function<void(int fd, std::string head, std::string rest, int64_t body_deadline_ms, bool upload)>;
  FrontDoor(RequestLimits limits, Dispatch dispatch);
  ~FrontDoor();  // stops the thread and closes the connections still pending
  FrontDoor(const FrontDoor&) = delete;
  FrontDoor& operator=(const FrontDoor&) = delete;
  // Takes a newly accepted connection (any thread).
  void add(int fd);
  const RequestLimits& limits() const { return limits_; }

 private:
  struct Impl;
  RequestLimits limits_;
  Impl* impl_;
};

// Milliseconds on the monotonic clock (what body deadlines count in).
int64_t monotonic_ms();

// Ends a connection both ways and closes its socket.
void close_connection(int fd);

// Writes a complete JSON error reply and closes nothing (best effort, bounded by a short send
// timeout). A 503 says Retry-After: 5.
void send_raw_error(int fd, int status, std::string_view message);

}  // namespace trtlens::serve
