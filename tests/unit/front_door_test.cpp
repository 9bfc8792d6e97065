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
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Content-Length: 1000"}), limits).status, 0);
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Content-Length: 1001"}), limits).status, 413);
  // Uploads take the upload limit, on their path (not their query).
  EXPECT_EQ(check_head(head("POST /api/projects/p/models/m/versions?filename=a HTTP/1.1", {"Content-Length: 5000"}),
                       limits).status, 0);
  EXPECT_EQ(check_head(head("POST /p/m/upload HTTP/1.1", {"Content-Length: 5001"}), limits).status, 413);
  EXPECT_EQ(check_head(head("POST /login?x=/versions HTTP/1.1", {"Content-Length: 1001"}), limits).status, 413);
  // Chunked or encoded bodies are never read: their size is not known up front.
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Transfer-Encoding: chunked"}), limits).status, 411);
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"content-encoding: gzip", "Content-Length: 10"}), limits).status,
            415);
  EXPECT_EQ(check_head(head("POST /login HTTP/1.1", {"Content-Encoding: identity", "Content-Length: 10"}), limits)
                .status, 0);
  // A length that is not one number, or two of them, is refused.
  for (const char* bad : {"Content-Length: -1", "Content-Length: 1e3", "Content-Length: 99999999999999999999999",
                          "Content-Length: "})
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
