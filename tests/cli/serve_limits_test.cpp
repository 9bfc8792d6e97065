// `trtlens serve` bounds every request before authentication (issue 19): raw
// sockets on 127.0.0.1 play the hostile client; each case failed before the front door.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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
  explicit Socket(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
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

}  // namespace
}  // namespace trtlens::test
