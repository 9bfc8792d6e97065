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
  size_t pending_connections = 1024;  // connections still sending a head (or small body); more are closed at once
  uint64_t body_bytes = 16 * 1024;    // every route but uploads (login, logout, API reads)
  uint64_t upload_bytes = uint64_t{4} << 30;  // POST .../versions, .../engines, .../upload (ServeOptions)
  // A body must arrive within body_grace_seconds plus its length at this rate.
  int body_grace_seconds = 30;
  uint64_t body_bytes_per_second = 32 * 1024;
};

// The verdict on one request head.
struct HeadCheck {
  int status = 0;          // 0: accepted; else the status to answer (400, 411, 413, 415, 431)
  std::string message;     // why, for the error reply
  std::string head;        // accepted: the head to hand on (a multi-range Range header dropped)
  uint64_t body_bytes = 0;  // accepted: the Content-Length (0 without one)
  bool upload = false;      // an upload route (its body is streamed by the worker)
};

// Checks a complete head (up to and including the blank line; "\r\n" or "\n" line ends).
// Refuses: a malformed request line (400), more than limits.header_lines lines (431),
// any Content-Encoding but identity (415), Transfer-Encoding (411: send Content-Length),
// a bad or repeated Content-Length (400), a body over the route's limit (413). A Range
// header naming more than one range is dropped: the reply is the whole resource.
HeadCheck check_head(std::string_view head, const RequestLimits& limits);

// Starts the thread that reads heads, and whole bodies of every route but uploads
// (at most RequestLimits::body_bytes, within the same head_seconds), so only an upload,
// whose route checks credentials before reading it, is read by a worker.
// `dispatch(fd, head, rest, body_deadline_ms)` runs for each accepted request
// (`rest`: bytes read past the head; a deadline on monotonic_ms()); it owns and
// closes `fd` and must return quickly. Refused requests are answered and closed here.
class FrontDoor {
 public:
  using Dispatch = std::function<void(int fd, std::string head, std::string rest, int64_t body_deadline_ms)>;
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

// Writes a complete JSON error reply and closes nothing (best effort, bounded by a short send timeout).
void send_raw_error(int fd, int status, std::string_view message);

}  // namespace trtlens::serve
