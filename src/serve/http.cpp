#include <fmt/core.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

#include "serve/context.h"

namespace trtlens::serve {

std::string request_cookie(const httplib::Request& req, std::string_view name) {
  const std::string header = req.get_header_value("Cookie");
  size_t pos = 0;
  while (pos < header.size()) {
    size_t end = header.find(';', pos);
    if (end == std::string::npos) end = header.size();
    std::string_view part(header.data() + pos, end - pos);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=')
      return std::string(part.substr(name.size() + 1));
    pos = end + 1;
  }
  return "";
}

LiveAnalyses::Turn::Turn(LiveAnalyses& l) : l_(l) {
  std::unique_lock<std::mutex> lock(l.mutex_);
  if (!l.freed_.wait_for(lock, l.wait_, [&] { return l.free_ > 0; }))
    throw BusyError("the server is judging other models; try again in a minute, or ask for a pinned runtime "
                    "(its result is stored)");
  --l.free_;
}

LiveAnalyses::Turn::~Turn() {
  {
    std::lock_guard<std::mutex> lock(l_.mutex_);
    ++l_.free_;
  }
  l_.freed_.notify_one();
}

std::string session_cookie(const httplib::Request& req) { return request_cookie(req, kSessionCookie); }

void FailureLimiter::check(const std::string& address, int64_t now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = failures_.find(address);
  if (it == failures_.end()) return;
  auto& times = it->second;
  while (!times.empty() && times.front() <= now - kWindowSeconds) times.pop_front();
  if (times.size() < kMaxFailures) return;
  throw RateLimited(fmt::format("too many failed sign-ins or unknown tokens from {}; try again in {} s", address,
                                times.front() + kWindowSeconds - now));
}

void FailureLimiter::failed(const std::string& address, int64_t now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, added] = failures_.try_emplace(address);
  if (added) {
    order_.push_back(address);
    if (order_.size() > kMaxAddresses) {
      failures_.erase(order_.front());
      order_.pop_front();
    }
  }
  auto& times = it->second;
  times.push_back(now);
  while (times.size() > kMaxFailures) times.pop_front();
  if (times.size() == kMaxFailures && times.front() > now - kWindowSeconds)
    fmt::print(stderr, "serve: {} failed {} sign-ins or tokens within {} s; refused for now\n", address, kMaxFailures,
               kWindowSeconds);
}

namespace {
// Whether the last authenticate() on this thread met a revoked token (sign_in_message).
thread_local bool t_token_revoked = false;

std::optional<Caller> authenticate_once(Context& ctx, const httplib::Request& req) {
  t_token_revoked = false;
  const std::string auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) == 0) {
    ctx.failures.check(req.remote_addr, std::time(nullptr));
    auto user = ctx.store->user_for_token(auth.substr(7));
    if (!user) {
      ctx.failures.failed(req.remote_addr, std::time(nullptr));
      t_token_revoked = ctx.store->token_revoked(auth.substr(7));
      return std::nullopt;
    }
    return Caller{user->id, user->name, false, "", user->admin, ""};
  }
  std::string cookie = session_cookie(req);
  if (cookie.empty()) return std::nullopt;
  auto session = ctx.store->session(cookie);
  if (!session) return std::nullopt;
  return Caller{session->user_id, session->user_name, true, session->csrf, session->admin, ""};
}
}  // namespace

// The signed-in user of the request this worker thread serves, for the access log.
thread_local std::string t_request_user;
void note_request_user(const std::string& user) { t_request_user = user; }
const std::string& request_user() { return t_request_user; }

std::optional<Caller> authenticate(Context& ctx, const httplib::Request& req) {
  auto caller = authenticate_once(ctx, req);
  if (caller) note_request_user(caller->user);
  return caller;
}

std::string sign_in_message() {
  return t_token_revoked ? "token revoked: ask an administrator for a new one (trtlens admin token USER)"
                         : "sign in: send Authorization: Bearer <token> (trtlens admin token USER)";
}

std::string utc_time(int64_t unix_seconds, const char* format) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, format, &tm));
}

void send_json(httplib::Response& res, const std::string& json, int status) {
  res.status = status;
  res.set_content(json, "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  nlohmann::json body = {{"error", message}};
  send_json(res, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", status);
}

int status_for(const store::StoreError& e) {
  switch (e.kind) {
    case store::StoreError::Kind::NotFound: return 404;
    case store::StoreError::Kind::Conflict: return 409;
    case store::StoreError::Kind::Invalid: return 400;
    case store::StoreError::Kind::Backend: break;
  }
  return 500;
}

bool allowed(Context& ctx, const std::optional<Caller>& caller, const std::string& project, store::Role needed,
             httplib::Response& res) {
  if (!caller) {
    send_error(res, 401, sign_in_message());
    return false;
  }
  store::Role role = ctx.store->role(caller->user_id, project);
  if (role == store::Role::None) {
    // Unknown and unreadable projects look the same, so names do not leak.
    send_error(res, 404, fmt::format("no project {} readable by {}", project, caller->user));
    return false;
  }
  if (static_cast<int>(role) < static_cast<int>(needed)) {
    send_error(res, 403, fmt::format("{} may only read project {}", caller->user, project));
    return false;
  }
  return true;
}

}  // namespace trtlens::serve
