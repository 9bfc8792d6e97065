// `trtlens serve` bounds every request before authentication (issue 19): raw
// sockets on 127.0.0.1 play the hostile client; each case failed before the front door.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "support/paths.h"
#include "support/serve_process.h"

namespace trtlens::test {
namespace {

// A connected TCP socket to the server, closed when it goes.
class Socket {
 public:
  // `from`: the client address to connect from (127.0.0.2 plays another client than the tests' own 127.0.0.1).
  explicit Socket(int port, const char* from = nullptr) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (from) {
      sockaddr_in b{};
      b.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &b.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&b), sizeof b) != 0) throw std::runtime_error("cannot bind");
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("cannot connect");
    timeval tv{30, 0};  // a test that would hang fails instead
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Socket() { ::close(fd_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  // Sends what it can; false once the server has closed the connection.
  bool send(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  // The reply's status line ("" when the connection closed without one).
  std::string status_line() {
    std::string got;
    char c;
    while (got.find("\r\n") == std::string::npos && ::recv(fd_, &c, 1, 0) == 1) got += c;
    return got.substr(0, got.find("\r\n"));
  }
  // Everything until the server closes the connection (or the 30 s receive timeout).
  std::string rest() {
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<size_t>(n));
    return got;
  }
  void set_receive_timeout(int seconds) {
    timeval tv{seconds, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }

 private:
  int fd_;
};

struct Server {
  std::unique_ptr<ServeProcess> process;
  std::string token;  // alice's, write on "vision"
  explicit Server(const std::string& name, std::vector<std::string> extra = {}) {
    std::string data = temp_dir(name) + "/data";
    token = make_user(data, "alice", {"vision"});
    process = std::make_unique<ServeProcess>(data, extra);
  }
  int port() const { return process->port(); }
  // A well-behaved request still gets its page.
  int login_page_status() const {
    httplib::Client c("127.0.0.1", port());
    c.set_connection_timeout(10);
    c.set_read_timeout(10);
    auto r = c.Get("/login");
    return r ? r->status : -1;
  }
};

TEST(ServeLimits, LoginBodiesAreBoundedBeforeAnyCredential) {
  Server s("serve_limits_login");
  {  // chunked: its size is not known up front, so it is never read (was: held whole in memory)
    Socket k(s.port());
    k.send("POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n" + std::string(4096, 'a'));
    EXPECT_EQ(k.status_line(), "HTTP/1.1 411 Length Required");
  }
  {  // gzip: never inflated (was: 1 MiB inflated to 1 GiB before the 413)
    Socket k(s.port());
    k.send("POST /login HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 20\r\n\r\n");
    EXPECT_EQ(k.status_line(), "HTTP/1.1 415 Unsupported Media Type");
  }
  {  // a 1 GiB login body is refused on its length, before a byte of it is sent
    Socket k(s.port());
    k.send("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n");
    EXPECT_EQ(k.status_line(), "HTTP/1.1 413 Payload Too Large");
  }
  EXPECT_EQ(s.login_page_status(), 200);
}

TEST(ServeLimits, HeaderFloodsGet431) {
  Server s("serve_limits_headers");
  {  // many lines (was: 40,000 lines of 8 KB accepted, +430 MB)
    Socket k(s.port());
    std::string head = "GET /login HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 500; ++i) head += "X-Flood-" + std::to_string(i) + ": y\r\n";
    k.send(head + "\r\n");
    EXPECT_EQ(k.status_line(), "HTTP/1.1 431 Request Header Fields Too Large");
  }
  {  // one endless header line: refused once past the head's size, not read to its end
    Socket k(s.port());
    k.send("GET /login HTTP/1.1\r\nX-Long: ");
    for (int i = 0; i < 64; ++i)
      if (!k.send(std::string(4096, 'z'))) break;
    EXPECT_EQ(k.status_line(), "HTTP/1.1 431 Request Header Fields Too Large");
  }
  EXPECT_EQ(s.login_page_status(), 200);
}

TEST(ServeLimits, SlowClientsDoNotHoldTheWorkers) {
  // Two workers; sixty clients stall in their heads and two in a login body
  // (was: each held a worker, and nobody else was served).
  Server s("serve_limits_slowloris", {"--threads", "2"});
  std::vector<std::unique_ptr<Socket>> slow;
  for (int i = 0; i < 60; ++i) {
    slow.push_back(std::make_unique<Socket>(s.port()));
    slow.back()->send("GET /login HTTP/1.1\r\nHost: x\r\nX-Slow: ");
  }
  for (int i = 0; i < 2; ++i) {
    slow.push_back(std::make_unique<Socket>(s.port()));
    slow.back()->send("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\ntoken=");
  }
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.login_page_status(), 200) << "request " << i;
}

TEST(ServeLimits, ManyRangesGetTheWholeDocumentOnce) {
  Server s("serve_limits_ranges");
  httplib::Client c("127.0.0.1", s.port());
  auto whole = c.Get("/api/openapi.json");
  ASSERT_TRUE(whole);
  std::string ranges = "bytes=0-";
  for (int i = 0; i < 100; ++i) ranges += ",0-";
  // (was: a multipart reply of 101 copies built in memory)
  auto r = c.Get("/api/openapi.json", {{"Range", ranges}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, whole->body);
  auto one = c.Get("/api/openapi.json", {{"Range", "bytes=0-9"}});
  ASSERT_TRUE(one);  // one range is still served (cpp-httplib 0.11 keeps status 200 with Content-Range)
  EXPECT_EQ(one->body, whole->body.substr(0, 10));
}

// The sign-in form's CSRF token and the cookie GET /login set with it.
std::pair<std::string, std::string> login_form(httplib::Client& c) {
  auto form = c.Get("/login");
  std::string cookie = form->get_header_value("Set-Cookie");
  size_t at = form->body.find("name=\"login_csrf\" value=\"");
  return {cookie.substr(0, cookie.find(';')), form->body.substr(at + 25, form->body.find('"', at + 25) - at - 25)};
}

TEST(ServeLimits, AnotherSiteCannotSignABrowserIn) {
  Server s("serve_limits_login_csrf");
  const std::string& token = s.token;  // the attacker's own account
  httplib::Client c("127.0.0.1", s.port());
  const std::string form_type = "application/x-www-form-urlencoded";
  // A page elsewhere posts the attacker's token (was: 303 and a session for mallory).
  auto bare = c.Post("/login", "token=" + token, form_type);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 403);
  EXPECT_EQ(bare->get_header_value("Set-Cookie"), "");
  const auto form = login_form(c);
  ASSERT_EQ(form.second.size(), 32u);
  // The form's token without its cookie, or from another origin, is refused too.
  EXPECT_EQ(c.Post("/login", "login_csrf=" + form.second + "&token=" + token, form_type)->status, 403);
  EXPECT_EQ(c.Post("/login", {{"Cookie", form.first}, {"Origin", "http://evil.example"}},
                   "login_csrf=" + form.second + "&token=" + token, form_type)->status, 403);
  auto ok = c.Post("/login", {{"Cookie", form.first}}, "login_csrf=" + form.second + "&token=" + token, form_type);
  EXPECT_EQ(ok->status, 303);
  EXPECT_NE(ok->get_header_value("Set-Cookie").find("trtlens_session="), std::string::npos);
}

TEST(ServeLimits, GuessingTokensIsRefusedAfterTwentyFailures) {
  Server s("serve_limits_guess");
  const std::string& token = s.token;
  httplib::Client c("127.0.0.1", s.port());
  const httplib::Headers wrong = {{"Authorization", "Bearer trt_" + std::string(64, '0')}};
  for (int i = 0; i < 20; ++i) EXPECT_EQ(c.Get("/api/projects", wrong)->status, 401) << "guess " << i;
  // (was: unlimited guesses) the address is refused, even with a right token, for a minute
  EXPECT_EQ(c.Get("/api/projects", wrong)->status, 429);
  EXPECT_EQ(c.Get("/api/projects", {{"Authorization", "Bearer " + token}})->status, 429);
  const auto form = login_form(c);
  EXPECT_EQ(c.Post("/login", {{"Cookie", form.first}}, "login_csrf=" + form.second + "&token=" + token,
                   "application/x-www-form-urlencoded")->status, 429);
  EXPECT_NE(s.process->log().find("refused for now"), std::string::npos);
}

// A field of /proc/PID/status ("VmRSS" in kB, "Threads").
long proc_status(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return -1;
}

// Spellings that the front door and cpp-httplib once split differently (issue 33): each is
// answered from its head alone, the server's memory and threads stay flat, pages still load.
TEST(ServeLimits, MalformedHeadsAreRefusedBeforeTheirBodies) {
  Server s("serve_limits_spellings");
  std::string ranges = "bytes=0-";
  for (int i = 0; i < 2700; ++i) ranges += ",0-";
  const std::string gib = "Content-Length: 1073741824\r\n";
  const std::string upload = "POST /api/projects/vision/models/m/versions HTTP/1.1\r\nHost: x\r\n";
  const struct {
    const char* name;
    std::string request;
    std::string status;
  } cases[] = {
      // was: httplib saw the 2,700 ranges the front door never parsed (147 MB per request)
      {"bare LF", "GET /api/openapi.json HTTP/1.1\nHost: x\nRange: " + ranges + "\n\n", "400 Bad Request"},
      {"bare LF at the end", "GET /api/openapi.json HTTP/1.1\r\nRange: " + ranges + "\r\n\n", "400 Bad Request"},
      {"CR only", "GET /login HTTP/1.1\rHost: x\r\r", "400 Bad Request"},
      {"obs-fold", "GET /api/openapi.json HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n Range: " + ranges + "\r\n\r\n",
       "400 Bad Request"},
      {"CL and TE", "POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n",
       "411 Length Required"},
      {"chunked gzip", "POST /login HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n",
       "411 Length Required"},
      {"duplicate CL", "POST /login HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", "400 Bad Request"},
      {"NUL", std::string("GET /login HTTP/1.1\r\nHost: x") + '\0' + "\r\n\r\n", "400 Bad Request"},
      // was: read until the 30 s deadline (512 MiB in 1.5 s)
      {"space before the colon", "POST /login HTTP/1.1\r\nContent-Length : 3\r\n\r\n", "400 Bad Request"},
      {"POST without a length", "POST /login HTTP/1.1\r\nHost: x\r\n\r\n", "411 Length Required"},
      // was: read up to the 4 GB upload limit, then 404
      {"unrouted upload lookalike", "POST /nowhere/upload HTTP/1.1\r\nHost: x\r\n" + gib + "\r\n",
       "413 Payload Too Large"},
      {"unrouted versions lookalike", "POST /api/x/versions HTTP/1.1\r\nHost: x\r\n" + gib + "\r\n",
       "413 Payload Too Large"},
      // a routed upload without a credential: refused from its head, not a body byte read
      {"upload without a token", upload + gib + "\r\n", "401 Unauthorized"},
      {"upload with a wrong token", upload + "Authorization: Bearer trt_nope\r\n" + gib + "\r\n", "401 Unauthorized"},
  };
  const pid_t pid = s.process->pid();
  EXPECT_EQ(s.login_page_status(), 200);
  const long rss = proc_status(pid, "VmRSS"), threads = proc_status(pid, "Threads");
  ASSERT_GT(rss, 0);
  for (int round = 0; round < 3; ++round)
    for (const auto& c : cases) {
      Socket k(s.port());
      k.send(c.request);
      auto t0 = std::chrono::steady_clock::now();
      EXPECT_EQ(k.status_line(), "HTTP/1.1 " + c.status) << c.name;
      EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << c.name;
    }
  EXPECT_EQ(s.login_page_status(), 200);
  EXPECT_LT(proc_status(pid, "VmRSS") - rss, 64 * 1024) << "kB";
  EXPECT_EQ(proc_status(pid, "Threads"), threads);
}

TEST(ServeLimits, PipelinedRequestsGetOneAnswer) {
  Server s("serve_limits_pipelined");
  Socket k(s.port());
  // The body of the first (and the request smuggled after it) is never read as a request.
  k.send("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\ntokenGET /api/openapi.json HTTP/1.1\r\n"
         "Host: x\r\n\r\nGET /api/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string reply = k.rest();
  EXPECT_EQ(reply.rfind("HTTP/1.1 403", 0), 0u) << reply.substr(0, 80);  // the sign-in form's CSRF check
  EXPECT_EQ(reply.find("HTTP/1.1", 1), std::string::npos);
}

// 60 stalled heads and 300 idle connections from one client address, at --threads 8: the
// address gets its share of the front door and 503 past it; another client is still answered
// at once (was: the pool and the workers filled, 1 of 50 answered).
TEST(ServeLimits, IdleAndSlowClientsCostSocketsNotWorkers) {
  Server s("serve_limits_idle", {"--threads", "8"});
  std::vector<std::unique_ptr<Socket>> idle;
  for (int i = 0; i < 360; ++i) {
    idle.push_back(std::make_unique<Socket>(s.port(), "127.0.0.2"));
    if (i < 60) idle.back()->send("GET /login HTTP/1.1\r\nHost: x\r\nX-Slow: ");
  }
  for (int i = 0; i < 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(s.login_page_status(), 200) << "request " << i;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1)) << "request " << i;
  }
  // The connections past the address's share were answered 503 with Retry-After, not left hanging.
  Socket late(s.port(), "127.0.0.2");
  late.send("GET /login HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string reply = late.rest();
  EXPECT_EQ(reply.rfind("HTTP/1.1 503", 0), 0u) << reply.substr(0, 80);
  EXPECT_NE(reply.find("Retry-After: "), std::string::npos);
}

// Signed-in uploads that declare 1 GiB and send nothing, at --threads 8: at most half the
// workers take uploads (the rest 503), each stalled one is cut off after the idle timeout,
// and pages are answered throughout (was: every worker held, for a deadline of 34 hours).
TEST(ServeLimits, StalledUploadsFreeTheirWorkers) {
  Server s("serve_limits_stalled", {"--threads", "8"});
  std::vector<std::unique_ptr<Socket>> stalled;
  int busy = 0;
  for (int i = 0; i < 8; ++i) {
    stalled.push_back(std::make_unique<Socket>(s.port()));
    stalled.back()->send("POST /api/projects/vision/models/m/versions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                         s.token + "\r\nContent-Length: 1073741824\r\n\r\n");
  }
  for (auto& k : stalled) {  // the four past the share are answered at once
    k->set_receive_timeout(1);
    if (k->status_line() == "HTTP/1.1 503 Service Unavailable") ++busy;
  }
  EXPECT_EQ(busy, 4);
  for (int i = 0; i < 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(s.login_page_status(), 200) << "request " << i;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1)) << "request " << i;
  }
  // The held ones end at the idle timeout (15 s), not at their 34-hour deadline: each is
  // answered (an error line) or closed, and its worker takes uploads again.
  auto t0 = std::chrono::steady_clock::now();
  std::string lines;
  for (auto& k : stalled) {
    k->set_receive_timeout(25);
    lines += "[" + k->status_line() + "]";
    k->rest();
  }
  EXPECT_EQ(lines.find("[HTTP/1.1 2"), std::string::npos) << lines;
  Socket again(s.port());
  again.set_receive_timeout(1);
  again.send("POST /api/projects/vision/models/m/versions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + s.token +
             "\r\nContent-Length: 1073741824\r\n\r\n");
  EXPECT_EQ(again.status_line(), "") << "a worker for uploads again (was 503)";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(25));
}

}  // namespace
}  // namespace trtlens::test
