// Lines that reach clients (error replies, analysis messages on pages and in
// the API) never name the server's folders: a path under the data folder is
// replaced by what the user knows it as (the file's path inside the upload),
// and the whole line goes to the server's log instead.
#include <fmt/core.h>

#include "serve/context.h"
#include "trtlens/error.h"

namespace trtlens::serve {

namespace {

bool ends_path(char c) {
  return c == ':' || c == ' ' || c == '\'' || c == '"' || c == '\n' || c == ',' || c == ';' || c == '(' ||
         c == ')';
}

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// The component of `s` at `at` (up to '/' or a character that ends a path).
std::string_view component(std::string_view s, size_t at) {
  size_t end = at;
  while (end < s.size() && s[end] != '/' && !ends_path(s[end])) ++end;
  return s.substr(at, end - at);
}

// `rest` follows the data folder in a message ("/objects/ab/<hash>/model.onnx: ...").
// Returns how many of its bytes name the server's place, and what to say instead.
std::pair<size_t, std::string> replace_place(std::string_view rest) {
  auto tree = [&](size_t used, std::string_view whole) -> std::pair<size_t, std::string> {
    // Inside an upload: its own path (the user's names) stays; the folder itself is named.
    if (used < rest.size() && rest[used] == '/') return {used + 1, ""};
    return {used, std::string(whole)};
  };
  if (rest.starts_with("/objects/blobs/")) {
    size_t at = 15;
    at += component(rest, at).size();
    if (at < rest.size() && rest[at] == '/') at += 1 + component(rest, at + 1).size();
    return {at, "a stored result"};
  }
  if (rest.starts_with("/objects/")) {
    std::string_view prefix = component(rest, 9);
    if (prefix.size() == 2 && rest.size() > 12 && rest[11] == '/' && is_hex64(component(rest, 12)))
      return tree(12 + 64, "the stored upload");
  }
  if (rest.starts_with("/tmp/blob-")) return {5 + component(rest, 5).size(), "a stored result"};
  if (rest.starts_with("/tmp/")) return tree(5 + component(rest, 5).size(), "the upload");
  size_t end = 0;
  while (end < rest.size() && !ends_path(rest[end])) ++end;
  return {end, "the data folder"};
}

}  // namespace

std::string without_server_paths(std::string_view text, const store::ObjectStore& objects) {
  std::string out(text);
  for (const std::string& root : objects.data_paths()) {
    if (root.empty() || root == "/") continue;
    std::string next;
    size_t from = 0;
    for (size_t at = out.find(root); at != std::string::npos; at = out.find(root, from)) {
      size_t after = at + root.size();
      if (after < out.size() && out[after] != '/' && !ends_path(out[after])) {  // "/data2" is not "/data"
        next.append(out, from, after - from);
        from = after;
        continue;
      }
      auto [used, instead] = replace_place(std::string_view(out).substr(after));
      next.append(out, from, at - from);
      next += instead;
      from = after + used;
    }
    next.append(out, from, std::string::npos);
    out = std::move(next);
  }
  return out;
}

namespace {

// Rethrows the exception in flight; when its line names a server path, as the
// same kind of error without it (the exception handler sends what()), after
// logging the whole line.
[[noreturn]] void rethrow_without_paths(Context& ctx, const httplib::Request& req) {
  const store::ObjectStore& objects = ctx.store->objects();
  auto clean = [&](const char* what) {
    std::string line = without_server_paths(what, objects);
    if (line != what) fmt::print(stderr, "serve: {} {}: {}\n", req.method, req.path, what);
    return line;
  };
  try {
    throw;
  } catch (const store::StoreError& e) {
    std::string line = clean(e.what());
    if (line != e.what()) throw store::StoreError(e.kind, line);
    throw;
  } catch (const InputError& e) {
    std::string line = clean(e.what());
    if (line != e.what())
      throw InputError(without_server_paths(e.file(), objects), without_server_paths(e.problem(), objects));
    throw;
  } catch (const UsageError& e) {
    std::string line = clean(e.what());
    if (line != e.what()) throw UsageError(line);
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    std::string line = clean(e.what());
    if (line != e.what()) throw std::runtime_error(line);
    throw;
  }
}

}  // namespace

namespace {

// `handler` with every exception it throws re-thrown without server paths.
template <typename Handler>
auto without_paths(Context& ctx, Handler handler) {
  return [&ctx, handler = std::move(handler)](const httplib::Request& req, auto&&... rest) {
    try {
      handler(req, rest...);
    } catch (...) {
      rethrow_without_paths(ctx, req);
    }
  };
}

}  // namespace

void Routes::Get(const std::string& pattern, httplib::Server::Handler handler) {
  server_.Get(pattern, httplib::Server::Handler(without_paths(ctx_, std::move(handler))));
}

void Routes::Post(const std::string& pattern, httplib::Server::Handler handler) {
  server_.Post(pattern, httplib::Server::Handler(without_paths(ctx_, std::move(handler))));
}

void Routes::Delete(const std::string& pattern, httplib::Server::Handler handler) {
  server_.Delete(pattern, httplib::Server::Handler(without_paths(ctx_, std::move(handler))));
}

void Routes::Post(const std::string& pattern, httplib::Server::HandlerWithContentReader handler) {
  ctx_.upload_routes.emplace_back(pattern);
  server_.Post(pattern, httplib::Server::HandlerWithContentReader(without_paths(ctx_, std::move(handler))));
}

}  // namespace trtlens::serve
