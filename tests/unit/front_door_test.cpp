// The dashboard's request-head check (src/serve/front_door.h), before any credential is looked at.
#include <gtest/gtest.h>

#include "serve/front_door.h"

namespace trtlens::serve {
namespace {

std::string head(const std::string& request_line, const std::vector<std::string>& headers) {
  std::string h = request_line + "\r\n";
  for (const auto& x : headers) h += x + "\r\n";
  return h + "\r\n";
}

TEST(FrontDoor, AcceptsAPlainRequestAsItCame) {
  std::string h = head("GET /api/projects HTTP/1.1", {"Host: x", "Authorization: Bearer t"});
  HeadCheck c = check_head(h, RequestLimits{});
  EXPECT_EQ(c.status, 0) << c.message;
  EXPECT_EQ(c.head, h);
  EXPECT_EQ(c.body_bytes, 0u);
}

TEST(FrontDoor, BodiesNeedALengthWithinTheRoutesLimit) {
  RequestLimits limits;
  limits.body_bytes = 1000;
  limits.upload_bytes = 5000;
  // The server's upload routes (server.cpp); any other path, whatever it ends in, takes the small limit.
  limits.is_upload = [](std::string_view method, std::string_view path) {
    return method == "POST" && (path == "/api/projects/p/models/m/versions" || path == "/projects/p/upload");
  };
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Content-Length: 1000"}), limits).status, 0);
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Content-Length: 1001"}), limits).status, 413);
  // Uploads take the upload limit, on their path (not their query).
  EXPECT_EQ(check_head(head("POST /api/projects/p/models/m/versions?filename=a HTTP/1.1", {"Content-Length: 5000"}),
                       limits).status, 0);
  EXPECT_EQ(check_head(head("POST /projects/p/upload HTTP/1.1", {"Content-Length: 5001"}), limits).status, 413);
  EXPECT_EQ(check_head(head("POST /projects/%70/upload HTTP/1.1", {"Content-Length: 5000"}), limits).status, 0);
  // Unrouted paths that merely end like an upload are small requests (was: read up to the upload limit).
  for (const char* path : {"/p/m/upload", "/x/versions", "/api/projects/p/engines", "/projects/p/upload/x"})
    EXPECT_EQ(check_head(head(std::string("POST ") + path + " HTTP/1.1", {"Content-Length: 1001"}), limits).status,
              413) << path;
  // A body method without a length is refused before its body (was: read until the connection closed).
  for (const char* m : {"POST", "PUT", "PATCH"})
    EXPECT_EQ(check_head(head(std::string(m) + " /login HTTP/1.1", {"Host: x"}), limits).status, 411) << m;
  EXPECT_EQ(check_head(head("GET /login HTTP/1.1", {"Host: x"}), limits).status, 0);
  EXPECT_EQ(check_head(head("POST /login?x=/versions HTTP/1.1", {"Content-Length: 1001"}), limits).status, 413);
  // Chunked or encoded bodies are never read: their size is not known up front.
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Transfer-Encoding: chunked"}), limits).status, 411);
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"content-encoding: gzip", "Content-Length: 10"}), limits).status,
            415);
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Content-Encoding: identity", "Content-Length: 10"}), limits)
                .status, 0);
  // A length that is not one number, or two of them, is refused.
  for (const char* bad : {"Content-Length: -1", "Content-Length: 1e3", "Content-Length: 99999999999999999999999",
                          "Content-Length: ", "Content-Length: +1", "Content-Length: 1,1", "Content-Length: 0x10",
                          "Content-Length : 3", "Content-Length: 1 2"})
    EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {bad}), limits).status, 400) << bad;
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Content-Length: 1", "Content-Length: 1"}), limits).status, 400);
}

TEST(FrontDoor, HeaderLinesAreCounted) {
  RequestLimits limits;
  limits.header_lines = 3;
  EXPECT_EQ(check_head(head("GET / HTTP/1.1", {"A: 1", "B: 2", "C: 3"}), limits).status, 0);
  EXPECT_EQ(check_head(head("GET / HTTP/1.1", {"A: 1", "B: 2", "C: 3", "D: 4"}), limits).status, 431);
}

TEST(FrontDoor, MalformedHeadsAreRefused) {
  EXPECT_EQ(check_head("GET\r\n\r\n", RequestLimits{}).status, 400);
  EXPECT_EQ(check_head("GET / FTP/1.0\r\n\r\n", RequestLimits{}).status, 400);
  EXPECT_EQ(check_head(head("GET / HTTP/1.1", {"no colon here"}), RequestLimits{}).status, 400);
}

// Spellings that two parsers split differently (issue 33): each is refused, before any body.
TEST(FrontDoor, OnlyCanonicalSpellingsPass) {
  const struct {
    const char* name;
    std::string head;
    int status;
  } cases[] = {
      {"bare LF", "GET / HTTP/1.1\nHost: x\n\n", 400},
      {"bare LF at the end", "GET / HTTP/1.1\r\nHost: x\r\n\n", 400},
      {"LF then CRLF", "GET / HTTP/1.1\r\nHost: x\n\r\n", 400},
      {"CR alone", "GET / HTTP/1.1\rHost: x\r\n\r\n", 400},
      {"obs-fold", "GET / HTTP/1.1\r\nHost: x\r\n Range: bytes=0-,0-\r\n\r\n", 400},
      {"tab fold", "GET / HTTP/1.1\r\nHost: x\r\n\tx\r\n\r\n", 400},
      {"space before colon", "POST /login HTTP/1.1\r\nContent-Length : 3\r\n\r\n", 400},
      {"NUL in a value", std::string("GET / HTTP/1.1\r\nHost: x") + '\0' + "y\r\n\r\n", 400},
      {"NUL in the target", std::string("GET /") + '\0' + " HTTP/1.1\r\n\r\n", 400},
      {"CL and TE", "POST /login HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 411},
      {"TE identity", "POST /login HTTP/1.1\r\nTransfer-Encoding: identity\r\nContent-Length: 3\r\n\r\n", 411},
      {"duplicate CL", "POST /login HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", 400},
      {"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
      {"two spaces", "GET  / HTTP/1.1\r\n\r\n", 400},
      {"absolute target", "GET http://x/ HTTP/1.1\r\n\r\n", 400},
      {"HTTP/2 line", "GET / HTTP/2.0\r\n\r\n", 400},
      {"leading blank line", "\r\nGET / HTTP/1.1\r\n\r\n", 400},
      {"gzip body", "POST /login HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\n", 415},
  };
  for (const auto& c : cases) {
    HeadCheck got = check_head(c.head, RequestLimits{});
    EXPECT_EQ(got.status, c.status) << c.name << ": " << got.message;
    EXPECT_TRUE(got.head.empty()) << c.name;
  }
}

TEST(FrontDoor, TheHeadHandedOnIsCanonical) {
  HeadCheck c = check_head("GET /a?b=c HTTP/1.0\r\nhost:x \r\nX-A:\t 1 2\t\r\n\r\n", RequestLimits{});
  EXPECT_EQ(c.status, 0) << c.message;
  EXPECT_EQ(c.head, "GET /a?b=c HTTP/1.0\r\nhost: x\r\nX-A: 1 2\r\n\r\n");
}

TEST(FrontDoor, HeadEndsAreFoundOnlyAtCrlfCrlf) {
  bool bad = false;
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\n\r\nbody", bad), 18u);
  EXPECT_FALSE(bad);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\nHost: x\r\n", bad), std::string::npos);
  EXPECT_FALSE(bad);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\n\n", bad), std::string::npos);
  EXPECT_TRUE(bad);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r", bad), std::string::npos);  // its LF may still come
  EXPECT_FALSE(bad);
}

TEST(FrontDoor, ConnectionsAreBudgetedFromTheFileLimit) {
  EXPECT_EQ(fd_budget(1024, 256, 384), 384u);
  EXPECT_EQ(fd_budget(1 << 20, 256, 1024), 1024u);
  EXPECT_EQ(fd_budget(100, 256, 8), 16u);
}

TEST(FrontDoor, ManyRangesBecomeTheWholeResource) {
  HeadCheck many = check_head(head("GET /api/openapi.json HTTP/1.1", {"Host: x", "Range: bytes=0-,0-,0-"}),
                              RequestLimits{});
  EXPECT_EQ(many.status, 0);
  EXPECT_EQ(many.head, head("GET /api/openapi.json HTTP/1.1", {"Host: x"}));
  std::string one = head("GET /api/openapi.json HTTP/1.1", {"Range: bytes=0-99"});
  EXPECT_EQ(check_head(one, RequestLimits{}).head, one);
}

}  // namespace
}  // namespace trtlens::serve
