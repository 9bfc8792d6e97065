// The dashboard's HTML pages. Every string that came from a user or a model
// goes through esc(); forms that change anything carry the session's CSRF
// token; the analysed report is the `report` page itself, served in a frame.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "render/html.h"
#include "render/report_html.h"
#include "serve/context.h"
#include "store/hash.h"
#include "trtlens/error.h"
#include "util/embedded.h"

namespace trtlens::serve {

namespace {

using store::Role;

constexpr const char* kName = "([A-Za-z0-9._-]{1,64})";
constexpr int64_t kSessionSeconds = 7 * 24 * 3600;
// What a form did, carried over its redirect to the next dashboard page and shown there once. A
// cookie, not a query parameter, so that no link can make a page claim something happened.
constexpr const char* kFlashCookie = "trtlens_flash";
constexpr size_t kMaxFlashBytes = 600;
constexpr size_t kHistoryRows = 50;

std::string esc(std::string_view s) { return html_escape(s); }

std::string when(int64_t unix_seconds) { return utc_time(unix_seconds, "%Y-%m-%d %H:%M UTC"); }

std::string size_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.1f} kB", bytes / 1e3);
}

void secure_headers(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "same-origin");
  res.set_header("X-Frame-Options", "SAMEORIGIN");
}

// A dashboard page: scripts and styles only from this server.
void send_page(httplib::Response& res, const std::string& title, const std::optional<Caller>& caller,
               const std::string& body, int status = 200) {
  secure_headers(res);
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; script-src 'self'; style-src 'self'; frame-src 'self'; "
                 "frame-ancestors 'self'; form-action 'self'");
  std::string flash;
  if (caller && !caller->flash.empty()) {
    flash = fmt::format("<p class=\"notice flash\" role=\"status\">{}</p>\n", esc(caller->flash));
    res.set_header("Set-Cookie", fmt::format("{}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0", kFlashCookie));
  }
  std::string nav = caller ? fmt::format("{}<span class=\"who\">{}</span> <form method=\"post\" action=\"/logout\" "
                                         "class=\"inline\"><input type=\"hidden\" name=\"csrf\" value=\"{}\">"
                                         "<button>sign out</button></form>",
                                         caller->admin ? "<a class=\"admin-link\" href=\"/admin\">admin</a> " : "",
                                         esc(caller->user), esc(caller->csrf))
                           : "";
  res.status = status;
  res.set_content(fmt::format("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} · trtlens"
                              "</title><link rel=\"stylesheet\" href=\"/static/dashboard.css\">"
                              "<script src=\"/static/dashboard.js\" defer></script></head>\n<body><header>"
                              "<a class=\"brand\" href=\"/\">trtlens</a><nav>{}</nav></header>\n<main>\n{}{}</main>"
                              "</body></html>\n",
                              esc(title), nav, flash, body),
                  "text/html; charset=utf-8");
}

// A stored page of our own making (report, engine report): inline scripts and
// styles are its own, so it may run them, but it may load nothing.
// `back` (a dashboard URL) is linked from the top of the page, out of any frame.
void send_stored_page(Context& ctx, httplib::Response& res, const std::string& hash, const std::string& back,
                      const std::string& back_label) {
  secure_headers(res);
  res.set_header("Content-Security-Policy",
                 "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; "
                 "frame-ancestors 'self'");
  std::string page = ctx.store->objects().get_blob(hash);
  size_t body = page.find("<body");
  size_t open_end = body == std::string::npos ? std::string::npos : page.find('>', body);
  if (open_end != std::string::npos)
    page.insert(open_end + 1,
                fmt::format("<a class=\"trtlens-back\" href=\"{}\" target=\"_top\" style=\"position:fixed;left:8px;"
                            "bottom:8px;z-index:1000;font:12px sans-serif;background:#fff;border:1px solid #ccc;"
                            "padding:2px 6px;border-radius:4px;color:#235\">&larr; {}</a>",
                            esc(back), esc(back_label)));
  res.set_content(page, "text/html; charset=utf-8");
}

void redirect(httplib::Response& res, const std::string& to) {
  res.status = 303;
  res.set_header("Location", to);
}

// Sets the line the next dashboard page shows once (send_page), after a form's redirect. In hex:
// httplib percent-decodes header values, so an encoded ';' would end the cookie early.
void flash(httplib::Response& res, const std::string& message) {
  std::string hex;
  for (unsigned char c : message.substr(0, kMaxFlashBytes)) hex += fmt::format("{:02x}", c);
  res.set_header("Set-Cookie",
                 fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age=120", kFlashCookie, hex));
}

// The flash cookie's text; "" when it is not what flash() writes.
std::string flash_text(const std::string& hex) {
  if (hex.size() % 2 || hex.size() > 2 * kMaxFlashBytes ||
      hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "";
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// What a deletion's collection removed, and that younger files wait (Store::collect_garbage).
std::string removed_text(std::pair<int, int> removed) {
  return fmt::format("{} stored file tree(s) and {} cached page(s) removed (files of the last minute, pages of the "
                     "last hour, wait for the next collection)",
                     removed.first, removed.second);
}

// A redirect after a form, with what it did.
void done(httplib::Response& res, const std::string& to, const std::string& message) {
  flash(res, message);
  redirect(res, to);
}

// Pages need a session; without one they go to the sign-in page.
std::optional<Caller> page_caller(Context& ctx, const httplib::Request& req, httplib::Response& res) {
  auto caller = authenticate(ctx, req);
  if (!caller) {
    redirect(res, "/login");
    return caller;
  }
  caller->flash = flash_text(request_cookie(req, kFlashCookie));
  return caller;
}

bool page_allowed(Context& ctx, const std::optional<Caller>& caller, const std::string& project, Role needed,
                  httplib::Response& res) {
  if (allowed(ctx, caller, project, needed, res)) return true;
  // allowed() wrote a JSON error; a person gets a page.
  int status = res.status;
  send_page(res, "not allowed", caller,
            fmt::format("<p class=\"error\">{}</p>", status == 403 ? "You may only read this project."
                                                                   : "No such project, or you may not read it."),
            status);
  return false;
}

// Each pin links to the version's nodes that do not convert at that runtime (`version_url` given).
// A small form (application/x-www-form-urlencoded) that changes something: the caller's
// write role and the session's CSRF token in its "csrf" field; else a page says why.
bool form_csrf_ok(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
  if (caller.by_session && store::same_secret(req.get_param_value("csrf"), caller.csrf)) return true;
  send_page(res, "not allowed", caller,
            "<p class=\"error\">The form is stale or not from this site (CSRF token); reload the page.</p>", 403);
  return false;
}

std::optional<Caller> form_caller(Context& ctx, const httplib::Request& req, httplib::Response& res,
                                  const std::string& project) {
  auto caller = page_caller(ctx, req, res);
  if (!caller || !page_allowed(ctx, caller, project, Role::Write, res) || !form_csrf_ok(req, res, *caller))
    return std::nullopt;
  return caller;
}

// The same for site administrators' pages and forms (`form`: check the CSRF token too).
std::optional<Caller> admin_page_caller(Context& ctx, const httplib::Request& req, httplib::Response& res, bool form) {
  auto caller = page_caller(ctx, req, res);
  if (!caller) return std::nullopt;
  if (!caller->admin) {
    send_page(res, "not allowed", caller,
              "<p class=\"error\">Only administrators see this page (<code>trtlens admin promote USER</code>).</p>",
              403);
    return std::nullopt;
  }
  if (form && !form_csrf_ok(req, res, *caller)) return std::nullopt;
  return caller;
}

// A button that POSTs one action with the session's CSRF token (and a confirmation when `confirm`).
std::string action_button(const std::string& action, const Caller& caller, const std::string& label,
                          bool confirm = false) {
  return fmt::format("<form class=\"inline{}\" method=\"post\" action=\"{}\"><input type=\"hidden\" name=\"csrf\" "
                     "value=\"{}\"><button>{}</button></form>",
                     confirm ? " confirm" : "", esc(action), esc(caller.csrf), esc(label));
}

std::string converts_badges(const std::vector<PinResult>& pins, const std::string& version_url = "") {
  std::string out;
  for (const PinResult& p : pins) {
    // A DLA target's pin also says how much of the model the DLA runs.
    const std::string dla = p.dla_share();
    std::string badge = fmt::format(
        "<span class=\"pin {}\" title=\"{} unsupported node(s){}\">{} {}{}</span>", p.converts ? "yes" : "no",
        p.unsupported,
        dla.empty() ? "" : fmt::format("; {} of {} placed nodes on the DLA", p.dla_nodes, p.placed_nodes),
        esc(p.runtime), p.converts ? "✓" : "✗", dla.empty() ? "" : " <span class=\"dla\">" + dla + "</span>");
    // "RELEASE PRECISION[ TARGET]" (resolve_pins).
    const std::string runtime = p.runtime;
    const size_t sp = runtime.find(' '), sp2 = sp == std::string::npos ? sp : runtime.find(' ', sp + 1);
    if (!version_url.empty() && sp != std::string::npos)
      badge = fmt::format("<a class=\"pin-link\" href=\"{}/nodes?trt={}&amp;precision={}{}\">{}</a>", version_url,
                          esc(runtime.substr(0, sp)), esc(runtime.substr(sp + 1, sp2 - sp - 1)),
                          sp2 == std::string::npos ? "" : "&amp;target=" + esc(runtime.substr(sp2 + 1)), badge);
    out += badge + " ";
  }
  return out;
}

// A model's page (names are store::valid_name: escaping changes nothing, and keeps it so if that widens).
std::string model_url(const std::string& project, const std::string& model) {
  return fmt::format("/projects/{}/models/{}", esc(project), esc(model));
}

std::string version_url(const store::Version& v) {
  return fmt::format("{}/versions/{}", model_url(v.project, v.model), v.number);
}

// `retry`: the retry button shown under a failed analysis (writers only; "" for none).
std::string analysis_box(Context& ctx, const store::Version& v, const std::string& retry = "") {
  store::Analysis a = ctx.analyzer->ensure(v);
  std::string api = fmt::format("/api/projects/{}/models/{}/versions/{}/analysis", v.project, v.model, v.number);
  if (a.status == store::Analysis::Status::Done) {
    auto r = ctx.analyzer->model_result(v);
    return fmt::format("<p class=\"converts\">{} nodes. Converts: {}</p>", r ? r->nodes : 0,
                       r ? converts_badges(r->converts, version_url(v)) : "");
  }
  if (a.status == store::Analysis::Status::Failed)
    return fmt::format("<p class=\"error\">analysis failed: {} {}</p>",
                       esc(without_server_paths(a.message, ctx.store->objects())), retry);
  return fmt::format("<div id=\"analysis\" data-url=\"{}\"><progress max=\"100\" value=\"{}\"></progress> "
                     "<span class=\"stage\">{} {}%</span></div>",
                     esc(api), a.progress_percent, esc(a.message.empty() ? "queued" : a.message),
                     a.progress_percent);
}

// Every stored file of a tree (a version's model files, an engine's trtexec files), each with its
// size and a download link under `url_base` + "/files/". At most kMaxListedFiles are listed.
constexpr size_t kMaxListedFiles = 500;
std::string files_section(Context& ctx, const std::string& tree_hash, const std::string& url_base) {
  namespace fs = std::filesystem;
  const fs::path root = ctx.store->objects().tree_path(tree_hash);
  std::vector<std::pair<std::string, uint64_t>> files;
  size_t more = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    if (files.size() >= kMaxListedFiles) {
      ++more;
      continue;
    }
    files.emplace_back(it->path().lexically_relative(root).generic_string(), it->file_size(ec));
  }
  std::sort(files.begin(), files.end());
  std::string rows;
  for (const auto& [rel, size] : files)
    rows += fmt::format("<tr><td><a class=\"file\" href=\"{}/files/{}\" download><code>{}</code></a></td>"
                        "<td class=\"size\">{}</td></tr>\n",
                        esc(url_base), esc(percent_encode(rel, "/")), esc(rel), size_text(size));
  if (more) rows += fmt::format("<tr><td colspan=\"2\">and {} more file(s)</td></tr>\n", more);
  return fmt::format("<details class=\"files\"><summary>Files ({})</summary><table class=\"files\"><tr><th>file"
                     "</th><th>size</th></tr>\n{}</table></details>\n",
                     files.size() + more, rows);
}

std::string lower_text(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The models of a project; `query` (from ?q=) keeps those whose name, description, tags,
// opsets or branch hold it (any case), and "converts:no" those failing a pin.
std::string models_table(Context& ctx, const std::string& project, const std::string& query = "") {
  std::string rows;
  const std::string q = lower_text(query);
  const bool failing_only = q == "converts:no";
  for (const store::ModelSummary& m : ctx.store->models(project)) {
    // Every tag of the model, whichever version it names ("production → v1").
    std::string tag_words, tags;
    for (const auto& [tag, number] : m.tags) {
      tag_words += " " + tag;
      tags += fmt::format(" <a class=\"tag\" href=\"/projects/{0}/models/{1}/versions/{2}\" title=\"{2} names "
                          "version {3}\">{2} → v{3}</a>",
                          esc(project), esc(m.name), esc(tag), number);
    }
    std::string haystack = lower_text(m.name + " " + m.description + " " + m.latest.opsets + " " +
                                      m.latest.git_branch + tag_words);
    if (!q.empty() && !failing_only && haystack.find(q) == std::string::npos) continue;
    ctx.analyzer->ensure(m.latest);
    auto r = ctx.analyzer->model_result(m.latest);
    if (failing_only && (!r || std::all_of(r->converts.begin(), r->converts.end(),
                                           [](const PinResult& p) { return p.converts; })))
      continue;
    rows += fmt::format(
        "<tr data-search=\"{8}\"><td><a href=\"/projects/{0}/models/{1}/versions/{2}\">{1}</a>{9}"
        "<div class=\"description\">{10}</div></td><td>v{2} of {3}</td><td>{4}</td>"
        "<td>{5}</td><td>{6}</td><td>{7}</td></tr>\n",
        esc(project), esc(m.name), m.latest.number, m.versions, size_text(m.latest.size_bytes), esc(m.latest.opsets),
        when(m.latest.created_at),
        r ? converts_badges(r->converts, version_url(m.latest)) : "<span class=\"pending\">analysing…</span>",
        esc(haystack), tags, esc(m.description));
  }
  if (rows.empty()) return q.empty() ? "<p>No models yet.</p>\n" : "<p>No model matches.</p>\n";
  return "<table class=\"models\"><tr><th>model</th><th>latest</th><th>size</th><th>opsets</th><th>pushed</th>"
         "<th>converts</th></tr>\n" +
         rows + "</table>\n";
}

// The compare form's Release, Precision and Target, prefilled from the project's first pin (what a
// diff without them is judged at, diff_runtime); Target offers the pins' targets, then the catalogue's.
std::string runtime_fields(Context& ctx, const std::string& project, const Runtime* shown = nullptr) {
  auto pins = ctx.analyzer->pins_for(project);
  Runtime at;  // what the fields hold: `shown`, else the first pin
  if (shown)
    at = *shown;
  else if (!pins->pins.empty())
    at = {pins->pins.front().release, pins->pins.front().precision, pins->pins.front().target};
  std::string out = fmt::format("at <label>release <input name=\"trt\" size=\"8\" value=\"{}\" "
                                "placeholder=\"newest\"></label> <label>precision <select name=\"precision\">",
                                at.release ? esc(at.release->name) : "");
  for (const char* p : {"fp32", "fp16", "bf16", "int8", "fp8", "best"})
    out += fmt::format("<option{}>{}</option>", at.release && precision_name(at.precision) == p ? " selected" : "", p);
  out += "</select></label> <label>target <select name=\"target\"><option value=\"\">none</option>";
  std::vector<std::string> names;
  for (const Pin& pin : pins->pins)
    if (pin.target && std::find(names.begin(), names.end(), pin.target->name) == names.end())
      names.push_back(pin.target->name);
  for (const Target& t : TargetCatalog::builtin().targets())
    if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
  for (const std::string& n : names)
    out += fmt::format("<option{}>{}</option>", at.target && at.target->name == n ? " selected" : "", esc(n));
  return out + "</select></label>";
}

std::string search_form(const std::string& action, const std::string& query) {
  return fmt::format("<form class=\"search\" method=\"get\" action=\"{}\"><input type=\"search\" name=\"q\" "
                     "value=\"{}\" placeholder=\"filter: name, tag, opset, branch, or converts:no\" size=\"40\"> "
                     "<button>filter</button></form>\n",
                     esc(action), esc(query));
}

std::string upload_form(const std::string& project, const Caller& caller) {
  return fmt::format(
      "<form class=\"upload\" method=\"post\" action=\"/projects/{0}/upload\" enctype=\"multipart/form-data\">"
      "<input type=\"hidden\" name=\"csrf\" value=\"{1}\">"
      "<label>model name <input name=\"model\" required pattern=\"[A-Za-z0-9_\\-][A-Za-z0-9._\\-]{{0,63}}\"></label> "
      "<label>file (.onnx, or .zip of its folder) <input type=\"file\" name=\"file\" required></label> "
      "<button>upload</button></form>\n",
      esc(project), esc(caller.csrf));
}

// The form that sets a project's pins; `back` is where it returns ("admin" or the project page).
std::string pins_form(const std::string& project, const Caller& caller, const PinSet& set, const PinSet& defaults,
                      const std::string& back) {
  std::string own, server;
  for (const Pin& p : set.pins) own += (own.empty() ? "" : " ") + p.spec;
  for (const Pin& p : defaults.pins) server += (server.empty() ? "" : " ") + p.spec;
  return fmt::format(
      "<form class=\"pins\" method=\"post\" action=\"/projects/{0}/pins\"><input type=\"hidden\" name=\"csrf\" "
      "value=\"{1}\"><input type=\"hidden\" name=\"back\" value=\"{2}\"><input name=\"pins\" size=\"44\" "
      "maxlength=\"1000\" value=\"{3}\" placeholder=\"{4}\" aria-label=\"pins of {0}\"> <button>save pins</button></form>",
      esc(project), esc(caller.csrf), esc(back), set.project_own ? esc(own) : "", esc(server));
}

// Site administration: users, projects (with their pins) and tokens (never a token: its id and
// last characters), each token with a revoke button.
void add_admin_pages(Routes& server, Context& ctx) {
  server.Get("/admin", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = admin_page_caller(ctx, req, res, false);
    if (!caller) return;
    std::string body = "<h1>Administration</h1>\n<h2>Users</h2>\n<table class=\"users\"><tr><th>user</th><th>roles</th>"
                       "<th>tokens</th><th>since</th></tr>\n";
    for (const store::UserInfo& u : ctx.store->users()) {
      std::string roles;
      for (const auto& [project, role] : u.grants)
        roles += fmt::format("{}{} {}", roles.empty() ? "" : ", ", esc(project), store::role_name(role));
      body += fmt::format("<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(u.name),
                          u.admin ? " <span class=\"tag\">admin</span>" : "", roles.empty() ? "-" : roles, u.tokens,
                          when(u.created_at));
    }
    body += "</table>\n<h2>Projects</h2>\n<table class=\"projects\"><tr><th>project</th><th>models</th>"
            "<th>pinned runtimes</th><th>since</th></tr>\n";
    for (const store::ProjectInfo& p : ctx.store->projects()) {
      auto set = ctx.analyzer->pins_for(p.name);
      std::string labels;
      for (const Pin& pin : set->pins) labels += fmt::format("<span class=\"pin\">{}</span> ", esc(pin.label));
      body += fmt::format("<tr data-project=\"{0}\"><td>{0}</td><td>{1}</td><td>{2}<span class=\"meta\">{3}</span>{4}"
                          "</td><td>{5}</td></tr>\n",
                          esc(p.name), p.models, labels, set->project_own ? "" : "(the server's)",
                          pins_form(p.name, *caller, *set, ctx.analyzer->default_pins(), "admin"), when(p.created_at));
    }
    body += "</table>\n<p class=\"hint\">Pins: up to " + std::to_string(store::kMaxPins) +
            " of RELEASE:PRECISION[:TARGET], as <code>serve --pin</code> takes them; empty: the server's. A "
            "project's versions are analysed again at new pins when next opened.</p>\n";
    body += "<h2>API tokens</h2>\n<table class=\"tokens\"><tr><th>id</th><th>user</th><th>token</th><th>issued</th>"
            "<th>last used</th><th>state</th></tr>\n";
    for (const store::TokenInfo& t : ctx.store->tokens()) {
      std::string state = t.revoked_at ? "revoked " + when(t.revoked_at)
                                       : "active " + action_button(fmt::format("/admin/tokens/{}/revoke", t.id), *caller,
                                                                   fmt::format("revoke token {}", t.id), true);
      body += fmt::format("<tr data-token=\"{0}\" class=\"{6}\"><td>{0}</td><td>{1}</td><td><code>{2}</code></td>"
                          "<td>{3}</td><td>{4}</td><td>{5}</td></tr>\n",
                          t.id, esc(t.user), esc(t.hint.empty() ? "-" : t.hint), when(t.created_at),
                          t.last_used_at ? when(t.last_used_at) : "never", state, t.revoked_at ? "revoked" : "active");
    }
    body += "</table>\n<p class=\"hint\">A revoked token gets 401, and browsers signed in with it are signed out. "
            "New tokens and users: <code>trtlens admin token USER</code>, <code>trtlens admin user NAME</code>.</p>\n";
    send_page(res, "administration", caller, body);
  });

  server.Post("/admin/tokens/([0-9]{1,9})/revoke", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admin_page_caller(ctx, req, res, true)) return;
    const int64_t id = std::stoll(req.matches[1]);
    ctx.store->revoke_token(id);
    done(res, "/admin", fmt::format("revoked token {}: it gets 401 from now on, and its browser sessions ended", id));
  });

  // A project's pins, from the project page (its writers) or the admin page (administrators).
  server.Post(std::string("/projects/") + kName + "/pins", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string project = req.matches[1];
    auto caller = page_caller(ctx, req, res);
    if (!caller || (!caller->admin && !page_allowed(ctx, caller, project, Role::Write, res)) ||
        !form_csrf_ok(req, res, *caller))
      return;
    set_project_pins(ctx, project, req.get_param_value("pins"));
    const std::vector<std::string> now = ctx.store->project_pins(project);
    done(res, req.get_param_value("back") == "admin" ? "/admin" : "/projects/" + project,
         now.empty() ? fmt::format("project {} uses the server's pins again", project)
                     : fmt::format("pins of {} set to {}; its versions are analysed again when next opened", project,
                                   fmt::join(now, " ")));
  });
}

}  // namespace

std::string project_pins_section(Context& ctx, const std::string& project, const Caller& caller) {
  auto set = ctx.analyzer->pins_for(project);
  std::string labels;
  for (const Pin& p : set->pins) labels += fmt::format("<span class=\"pin\">{}</span> ", esc(p.label));
  std::string out = fmt::format("<section class=\"pins\"><h2>Pinned runtimes</h2><p>{}<span class=\"meta\">{}</span>"
                                "</p>\n",
                                labels, set->project_own ? "this project's" : "the server's (serve --pin)");
  if (caller.admin || ctx.store->role(caller.user_id, project) == Role::Write)
    out += pins_form(project, caller, *set, ctx.analyzer->default_pins(), "project") +
           fmt::format("<p class=\"hint\">Up to {} of RELEASE:PRECISION[:TARGET], as <code>serve --pin</code> takes "
                       "them (8.6:fp16, 8.5:fp16:orin-dla); empty: the server's. The lists, reports and diffs of this "
                       "project use them; its versions are analysed again when next opened.</p>\n",
                       store::kMaxPins);
  return out + "</section>\n";
}

void add_page_routes(httplib::Server& http, Context& ctx) {
  Routes server(http, ctx);  // replies name no server path
  add_admin_pages(server, ctx);
  const std::string P = std::string("/projects/") + kName;
  const std::string M = P + "/models/" + kName;
  const std::string V = M + "/versions/" + kName;  // a number or a tag (find_version)

  for (const char* asset : {"dashboard.css", "dashboard.js"}) {
    std::string path = asset;
    server.Get("/static/" + path, [path](const httplib::Request&, httplib::Response& res) {
      secure_headers(res);
      res.set_header("Cache-Control", "max-age=3600");
      res.set_content(std::string(embedded_file("web/" + path)),
                      path.ends_with(".css") ? "text/css" : "text/javascript");
    });
  }

  // Login CSRF: the form carries a token that must match a cookie set with it, which
  // another site can neither read nor send (SameSite=Strict), so it cannot sign a
  // visitor's browser in as someone else; a cross-site Origin is refused as well.
  server.Get("/login", [](const httplib::Request&, httplib::Response& res) {
    const std::string token = store::random_hex(16);
    res.set_header("Set-Cookie", fmt::format("{}={}; Path=/login; HttpOnly; SameSite=Strict; Max-Age=3600",
                                             kLoginCookie, token));
    send_page(res, "sign in", std::nullopt,
              fmt::format("<h1>Sign in</h1><form method=\"post\" action=\"/login\"><input type=\"hidden\" "
                          "name=\"login_csrf\" value=\"{}\"><label>API token <input type=\"password\" "
                          "name=\"token\" autocomplete=\"off\" required></label> <button>sign in</button></form>\n"
                          "<p>An administrator makes tokens with <code>trtlens admin token USER</code>.</p>\n",
                          token));
  });

  server.Post("/login", [&ctx](const httplib::Request& req, httplib::Response& res) {
    ctx.failures.check(req.remote_addr, std::time(nullptr));
    const std::string origin = req.get_header_value("Origin"), host = req.get_header_value("Host");
    const bool same_origin = origin.empty() || origin == "http://" + host || origin == "https://" + host;
    const std::string expected = request_cookie(req, kLoginCookie);
    if (!same_origin || expected.empty() || req.get_param_value("login_csrf") != expected)
      return send_page(res, "sign in", std::nullopt,
                       "<h1>Sign in</h1><p class=\"error\">This sign-in form is not this server's, or it expired.</p>"
                       "<p><a href=\"/login\">Sign in again</a></p>", 403);
    auto user = ctx.store->user_for_token(req.get_param_value("token"));
    if (!user) {
      ctx.failures.failed(req.remote_addr, std::time(nullptr));
      return send_page(res, "sign in", std::nullopt,
                       std::string("<h1>Sign in</h1><p class=\"error\">") +
                           (ctx.store->token_revoked(req.get_param_value("token"))
                                ? "This token was revoked: ask an administrator for a new one."
                                : "Unknown token.") +
                           "</p><p><a href=\"/login\">Try again</a></p>",
                       401);
    }
    std::string cookie = ctx.store->create_session(user->id, kSessionSeconds, user->token_id);
    // Behind a TLS-terminating proxy the cookie must never travel in clear.
    const bool https = req.get_header_value("X-Forwarded-Proto") == "https";
    res.set_header("Set-Cookie", fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{}", kSessionCookie,
                                             cookie, kSessionSeconds, https ? "; Secure" : ""));
    redirect(res, "/");
  });

  server.Post("/logout", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = authenticate(ctx, req);
    if (caller && caller->by_session && store::same_secret(req.get_param_value("csrf"), caller->csrf))
      ctx.store->end_session(session_cookie(req));
    res.set_header("Set-Cookie", fmt::format("{}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0", kSessionCookie));
    redirect(res, "/login");
  });

  server.Get("/", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    if (!caller) return;
    const std::string q = req.get_param_value("q").substr(0, 200);
    std::string body = "<h1>Tracked models</h1>\n" + search_form("/", q);
    auto projects = ctx.store->projects_for(caller->user_id);
    if (projects.empty()) body += "<p>You may read no project yet: ask for a role (trtlens admin grant).</p>\n";
    for (const std::string& p : projects)
      body += fmt::format("<h2><a href=\"/projects/{0}\">{0}</a></h2>\n{1}", esc(p), models_table(ctx, p, q));
    send_page(res, "models", caller, body);
  });

  server.Get(P, [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    const std::string project = req.matches[1];
    if (!caller || !page_allowed(ctx, caller, project, Role::Read, res)) return;
    const std::string q = req.get_param_value("q").substr(0, 200);
    std::string body = fmt::format("<h1>{}</h1>\n{}{}", esc(project), search_form("/projects/" + project, q),
                                   models_table(ctx, project, q));
    body += project_pins_section(ctx, project, *caller);
    if (ctx.store->role(caller->user_id, project) == Role::Write)
      body += "<h2>Upload a model</h2>\n" + upload_form(project, *caller);
    send_page(res, project, caller, body);
  });

  server.Post(P + "/upload", [&ctx](const httplib::Request& req, httplib::Response& res,
                                    const httplib::ContentReader& reader) {
    auto caller = page_caller(ctx, req, res);
    const std::string project = req.matches[1];
    if (!caller || !page_allowed(ctx, caller, project, Role::Write, res)) return;
    std::map<std::string, std::string> fields;
    auto upload = receive_form(ctx, req, res, reader, *caller, fields, [&](const auto& f) {
      return !f.count("model") || !store::valid_name(f.at("model"))
                 ? std::string("model name: 1 to 64 letters, digits, '.', '_' or '-'")
                 : std::string();
    });
    if (!upload) return;
    PushResult pushed = store_model_upload(ctx, *upload, project, fields["model"], *caller);
    if (pushed.unchanged) return redirect(res, version_url(pushed.version) + "?unchanged=1");
    done(res, version_url(pushed.version),
         fmt::format("uploaded {} as version {}; its analysis runs", pushed.version.model, pushed.version.number));
  });

  server.Get(M, [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    const std::string project = req.matches[1], model = req.matches[2];
    if (!caller || !page_allowed(ctx, caller, project, Role::Read, res)) return;
    auto versions = ctx.store->versions(project, model, 1);
    redirect(res, fmt::format("{}/versions/{}", model_url(project, model), versions.front().number));
  });

  server.Get(V, [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    const std::string project = req.matches[1], model = req.matches[2];
    if (!caller || !page_allowed(ctx, caller, project, Role::Read, res)) return;
    store::Version v = find_version(ctx, project, model, req.matches[3]);
    const std::string base = model_url(project, model);
    const bool writer = ctx.store->role(caller->user_id, project) == Role::Write;
    std::string tags;
    for (const std::string& t : v.tags) tags += fmt::format(" <span class=\"tag\">{}</span>", esc(t));
    std::string git;
    if (!v.git_sha.empty() || !v.git_branch.empty())
      git = fmt::format(" · git <code>{}</code>{}", esc(v.git_sha.substr(0, 12)),
                        v.git_branch.empty() ? "" : " on " + esc(v.git_branch));
    std::string body = fmt::format(
        "<h1><a href=\"/projects/{0}\">{0}</a> / {1} <span class=\"version\">version {2}</span>{10}</h1>\n"
        "<p class=\"meta\">{3} · {4} · opsets {5} · pushed {6} by {7}{11} · sha256 <code>{8}</code> · "
        "<a href=\"{12}/files/{13}\" download>download {3}</a></p>\n{9}",
        esc(project), esc(model), v.number, esc(v.main_file), size_text(v.size_bytes), esc(v.opsets),
        when(v.created_at), esc(v.created_by), esc(v.tree_hash.substr(0, 16)),
        analysis_box(ctx, v, writer ? action_button(version_url(v) + "/retry", *caller, "retry") : "") +
            files_section(ctx, v.tree_hash, version_url(v)),
        tags, git, version_url(v),
        esc(percent_encode(v.main_file, "/")));
    if (req.has_param("unchanged"))
      body = fmt::format("<p class=\"notice\">No change: the upload has the same files as version {}, so no new "
                         "version was made (<code>trtlens push --force</code> makes one anyway).</p>\n",
                         v.number) +
             body;

    // History (the newest kHistoryRows; the API lists all), with the comparison form.
    auto versions = ctx.store->versions(project, model, kHistoryRows + 1);
    const bool older = versions.size() > kHistoryRows;
    if (older) versions.pop_back();
    body += "<details class=\"history\"" + std::string(versions.size() > 1 ? " open" : "") +
            "><summary>Version history</summary><table><tr><th>version</th><th>size</th><th>pushed</th><th>by</th>"
            "<th>converts</th></tr>\n";
    for (const store::Version& h : versions) {
      auto r = ctx.analyzer->model_result(h);
      std::string htags;
      for (const std::string& t : h.tags) htags += fmt::format(" <span class=\"tag\">{}</span>", esc(t));
      body += fmt::format("<tr{}><td><a href=\"{}/versions/{}\">v{}</a>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                          "<td>{}</td></tr>\n",
                          h.number == v.number ? " class=\"current\"" : "", base, h.number, h.number, htags,
                          size_text(h.size_bytes), when(h.created_at), esc(h.created_by),
                          r ? converts_badges(r->converts, version_url(h)) : "");
    }
    if (older)
      body += fmt::format("<tr><td colspan=\"5\">older versions: <code>GET /api/projects/{}/models/{}/versions"
                          "</code></td></tr>\n",
                          esc(project), esc(model));
    body += "</table>\n";
    if (versions.size() > 1) {
      body += fmt::format("<form class=\"compare\" method=\"get\" action=\"{}/versions/{}/diff\">Compare with "
                          "<select name=\"against\">",
                          base, v.number);
      for (const store::Version& h : versions)
        if (h.number != v.number)
          body += fmt::format("<option value=\"{0}\">v{0}</option>", h.number);
      body += "</select> " + runtime_fields(ctx, project) + " <button>compare</button></form>\n";
    }
    body += "</details>\n";

    // Engines.
    auto engines = ctx.store->engines(v.id);
    body += "<details class=\"engines\"" + std::string(engines.empty() ? "" : " open") +
            "><summary>Engines (" + std::to_string(engines.size()) + ")</summary><ul>\n";
    for (const store::Engine& e : engines) {
      store::Analysis a = ctx.analyzer->ensure(v, e);
      std::string link = fmt::format("{}/versions/{}/engines/{}", base, v.number, e.number);
      std::string release = e.release.empty() ? "release not known"
                                              : fmt::format("TensorRT {} ({})", esc(e.release), esc(e.release_source));
      std::string item;
      if (a.status == store::Analysis::Status::Done) {
        auto r = ctx.analyzer->engine_result(v, e);
        item = fmt::format("<a href=\"{2}\">{0}</a> — {1} · <a href=\"{2}/card\">engine report</a>", esc(e.label),
                           release, link);
        if (r && !r->overlay_hash.empty()) item += fmt::format(" · <a href=\"{}/overlay\">model with the engine</a>", link);
        if (r && !r->note.empty()) item += fmt::format("<div class=\"note\">{}</div>", esc(r->note));
      } else {
        item = fmt::format("<a href=\"{}\">{}</a> — {} · {} {}%: {}", link, esc(e.label), release,
                           store::status_name(a.status), a.progress_percent,
                           esc(without_server_paths(a.message, ctx.store->objects())));
        if (writer && a.status == store::Analysis::Status::Failed)
          item += " " + action_button(link + "/retry", *caller, "retry");
      }
      if (writer) item += " " + action_button(link + "/delete", *caller, "delete engine", true);
      body += "<li>" + item + "</li>\n";
    }
    body += "</ul>\n";
    if (writer) {
      // The releases the knowledge base knows: the field's suggestions, and what the page's
      // script may fill it with (a plan of a release not listed is left to the server).
      std::string releases;
      for (const Release& r : KnowledgeBase::builtin().releases())
        releases += fmt::format("<option value=\"{}\">", esc(r.name));
      body += fmt::format(
          "<form class=\"upload\" method=\"post\" action=\"{}/versions/{}/engines\" enctype=\"multipart/form-data\">"
          "<input type=\"hidden\" name=\"csrf\" value=\"{}\"><label>label <input name=\"label\" required "
          "maxlength=\"200\"></label> <label>TensorRT release <input name=\"release\" size=\"8\" "
          "placeholder=\"from the files\" pattern=\"[0-9][0-9.]{{0,15}}\" list=\"trt-releases\"></label>"
          "<datalist id=\"trt-releases\">{}</datalist> <span class=\"release-source\"></span> <label>trtexec files "
          "(graph.json, profile.json, …, the plan, or a .zip) <input type=\"file\" name=\"files\" multiple required>"
          "</label> <button>attach engine</button></form>\n"
          "<p class=\"hint\">Without a release, the header of an attached plan (*.plan, *.engine, *.trt) tells it, "
          "else the engine's metadata, else the newest release of its graph.json layout's major; the list above "
          "says which.</p>\n",
          base, v.number, esc(caller->csrf), releases);
    }
    body += "</details>\n";
    if (writer) body += "<details class=\"push\"><summary>Upload a new version</summary>" +
                        upload_form(project, *caller) + "</details>\n";
    if (writer) {
      // Each of the model's tags on this version can be removed; the rest act on the version or the model.
      std::string untag;
      for (const std::string& t : v.tags)
        untag += fmt::format("<form class=\"inline untag\" method=\"post\" action=\"{}/untag\"><input type=\"hidden\" "
                             "name=\"csrf\" value=\"{}\"><input type=\"hidden\" name=\"tag\" value=\"{}\"><button>"
                             "remove tag {}</button></form> ",
                             base, esc(caller->csrf), esc(t), esc(t));
      body += fmt::format(
          "<details class=\"admin\"><summary>Manage</summary>"
          "<form method=\"post\" action=\"{0}/tag\"><input type=\"hidden\" name=\"csrf\" value=\"{1}\">"
          "<label>tag this version <input name=\"tag\" required placeholder=\"production\" "
          "pattern=\"(?![0-9]+$)[A-Za-z0-9_\\-][A-Za-z0-9._\\-]{{0,63}}\" title=\"a name, not a number\"></label> "
          "<button>tag</button></form>{4}"
          "<form method=\"post\" action=\"{2}/describe\"><input type=\"hidden\" name=\"csrf\" value=\"{1}\">"
          "<label>model description <input name=\"description\" size=\"60\" maxlength=\"4000\"></label> "
          "<button>save</button></form>"
          "<form method=\"post\" action=\"{2}/rename\"><input type=\"hidden\" name=\"csrf\" value=\"{1}\">"
          "<label>rename the model to <input name=\"name\" required value=\"{5}\" "
          "pattern=\"[A-Za-z0-9_\\-][A-Za-z0-9._\\-]{{0,63}}\"></label> <button>rename</button></form>"
          "{3} <a class=\"danger\" href=\"{2}/delete\">delete the model…</a></details>\n",
          version_url(v), esc(caller->csrf), base,
          action_button(version_url(v) + "/delete", *caller, "delete version " + std::to_string(v.number), true),
          untag, esc(model));
    }
    // The frame's URL (its #node= anchor) is not the address bar's: a link opens the report alone.
    if (ctx.analyzer->model_result(v))
      body += fmt::format("<p class=\"report-open\"><a href=\"{0}/versions/{1}/report\">open the report on its own</a> "
                          "(its URL names the node you select)</p>\n<iframe class=\"report\" src=\"{0}/versions/{1}/report\" "
                          "title=\"report\"></iframe>\n",
                          base, v.number);
    send_page(res, model + " v" + std::to_string(v.number), caller, body);
  });

  server.Get(V + "/report", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    if (!caller || !page_allowed(ctx, caller, req.matches[1], Role::Read, res)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    auto r = ctx.analyzer->model_result(v);
    if (!r) return send_page(res, "analysing", caller, analysis_box(ctx, v), 202);
    send_stored_page(ctx, res, r->page_hash, version_url(v), "dashboard: " + v.model + " v" + std::to_string(v.number));
  });

  server.Get(V + "/diff", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    const std::string project = req.matches[1], model = req.matches[2];
    if (!caller || !page_allowed(ctx, caller, project, Role::Read, res)) return;
    store::Version after = find_version(ctx, project, model, req.matches[3]);
    store::Version before = find_version(ctx, project, model, req.get_param_value("against"));
    std::string body = fmt::format("<h1><a href=\"/projects/{0}\">{0}</a> / <a href=\"/projects/{0}/models/{1}/"
                                   "versions/{2}\">{1} v{2}</a></h1>\n",
                                   esc(project), esc(model), after.number);
    const auto target =
        req.has_param("target") ? std::optional<std::string>(req.get_param_value("target")) : std::nullopt;
    // The form again, at the runtime shown (the first pin's when none was asked for).
    const DiffRuntime at = diff_runtime(ctx, project, req.get_param_value("trt"), req.get_param_value("precision"),
                                        target);
    body += fmt::format("<form class=\"compare\" method=\"get\" action=\"{}/diff\"><input type=\"hidden\" "
                        "name=\"against\" value=\"{}\">Compared with v{} {}<button>compare</button></form>\n",
                        version_url(after), before.number, before.number,
                        runtime_fields(ctx, project, &at.runtime));
    body += version_diff(ctx, before, after, req.get_param_value("trt"), req.get_param_value("precision"), target,
                         DiffOutput::Html);
    send_page(res, model + " compare", caller, body);
  });

  server.Post(V + "/engines", [&ctx](const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader& reader) {
    auto caller = page_caller(ctx, req, res);
    if (!caller || !page_allowed(ctx, caller, req.matches[1], Role::Write, res)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    std::map<std::string, std::string> fields;
    auto upload = receive_form(ctx, req, res, reader, *caller, fields, [](const auto&) { return std::string(); });
    if (!upload) return;
    std::string label = fields["label"].empty() ? upload->file_name : fields["label"];
    store::Engine e = store_engine_upload(ctx, *upload, v, label.substr(0, 200), *caller, fields["release"]);
    done(res, version_url(v),
         fmt::format("attached engine {} ({}) to {} v{}; its analysis runs", e.number, e.label, v.model, v.number));
  });

  // An engine's page: what it is, its files, its administration, and its report card in a frame.
  server.Get(V + "/engines/([0-9]{1,9})", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    if (!caller || !page_allowed(ctx, caller, req.matches[1], Role::Read, res)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Engine e = find_engine(ctx, v, req.matches[4]);
    store::Analysis a = ctx.analyzer->ensure(v, e);
    auto r = ctx.analyzer->engine_result(v, e);
    const bool writer = ctx.store->role(caller->user_id, v.project) == Role::Write;
    const std::string link = fmt::format("{}/engines/{}", version_url(v), e.number);
    std::string body = fmt::format(
        "<h1><a href=\"/projects/{0}\">{0}</a> / <a href=\"{1}\">{2} v{3}</a> / engine {4} <span class=\"label\">{5}"
        "</span></h1>\n<p class=\"meta\">{6} · attached {7} by {8}</p>\n",
        esc(v.project), version_url(v), esc(v.model), v.number, e.number, esc(e.label),
        e.release.empty() ? "release not known" : fmt::format("TensorRT {} ({})", esc(e.release), esc(e.release_source)),
        when(e.created_at), esc(e.created_by));
    if (r) {
      body += fmt::format("<p><a href=\"{}/card\">the report card on its own</a>", link);
      if (!r->overlay_hash.empty()) body += fmt::format(" · <a href=\"{}/overlay\">the model with the engine</a>", link);
      body += "</p>\n";
      if (!r->note.empty()) body += fmt::format("<p class=\"note\">{}</p>\n", esc(r->note));
    } else {
      body += fmt::format("<p class=\"{}\">analysis {} {}%: {}</p>\n",
                          a.status == store::Analysis::Status::Failed ? "error" : "stage", store::status_name(a.status),
                          a.progress_percent, esc(without_server_paths(a.message, ctx.store->objects())));
    }
    body += files_section(ctx, e.tree_hash, link);
    if (writer) {
      body += fmt::format(
          "<details class=\"admin\"><summary>Manage</summary><form method=\"post\" action=\"{0}/relabel\">"
          "<input type=\"hidden\" name=\"csrf\" value=\"{1}\"><label>label <input name=\"label\" required "
          "maxlength=\"200\" value=\"{2}\"></label> <button>relabel</button></form>{3}{4}</details>\n",
          link, esc(caller->csrf), esc(e.label),
          a.status == store::Analysis::Status::Failed ? action_button(link + "/retry", *caller, "retry") : "",
          action_button(link + "/delete", *caller, "delete engine " + std::to_string(e.number), true));
    }
    if (r) body += fmt::format("<iframe class=\"report\" src=\"{}/card\" title=\"engine report card\"></iframe>\n", link);
    send_page(res, fmt::format("{} v{} engine {}", v.model, v.number, e.number), caller, body,
              r || a.status != store::Analysis::Status::Failed ? 200 : 422);
  });

  // The stored pages of an engine: its report card, and the model with the engine drawn over it.
  for (const char* which : {"/card", "/overlay"}) {
    const bool overlay = std::string_view(which) == "/overlay";
    server.Get(V + "/engines/([0-9]{1,9})" + which, [&ctx, overlay](const httplib::Request& req,
                                                                   httplib::Response& res) {
      auto caller = page_caller(ctx, req, res);
      if (!caller || !page_allowed(ctx, caller, req.matches[1], Role::Read, res)) return;
      store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
      store::Engine e = find_engine(ctx, v, req.matches[4]);
      store::Analysis a = ctx.analyzer->ensure(v, e);
      auto r = ctx.analyzer->engine_result(v, e);
      const std::string engine_page = fmt::format("{}/engines/{}", version_url(v), e.number);
      if (!r)
        return send_page(res, "engine", caller,
                         fmt::format("<p>{} {}%: {}</p><p><a href=\"{}\">back to engine {} of {} v{}</a></p>",
                                     store::status_name(a.status), a.progress_percent,
                                     esc(without_server_paths(a.message, ctx.store->objects())), engine_page, e.number,
                                     esc(v.model), v.number),
                         a.status == store::Analysis::Status::Failed ? 422 : 202);
      if (overlay && r->overlay_hash.empty())
        return send_page(res, "engine", caller,
                         fmt::format("<p class=\"error\">{}</p><p><a href=\"{}/card\">the engine's report "
                                     "card</a> · <a href=\"{}\">back to {} v{}</a></p>",
                                     esc(r->note), engine_page, version_url(v), esc(v.model), v.number),
                         422);
      send_stored_page(ctx, res, overlay ? r->overlay_hash : r->report_hash, engine_page,
                       fmt::format("dashboard: {} v{} engine {}", v.model, v.number, e.number));
    });
  }

  // The nodes that do not convert at one pinned runtime (where a converts badge links),
  // read from the stored check; each links into the served report at that node and runtime.
  server.Get(V + "/nodes", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    if (!caller || !page_allowed(ctx, caller, req.matches[1], Role::Read, res)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    std::string runtime = req.get_param_value("trt") + " " + req.get_param_value("precision");
    if (req.has_param("target")) runtime += " " + req.get_param_value("target");
    auto r = ctx.analyzer->model_result(v);
    if (!r) return send_page(res, "analysing", caller, analysis_box(ctx, v), 202);
    const PinResult* pin = nullptr;
    for (const PinResult& p : r->converts)
      if (p.runtime == runtime && !p.check_hash.empty()) pin = &p;
    if (!pin)
      return send_page(res, "nodes", caller,
                       fmt::format("<p class=\"error\">{} is not a pinned runtime of this project.</p>", esc(runtime)),
                       404);
    nlohmann::json check = nlohmann::json::parse(ctx.store->objects().get_blob(pin->check_hash));
    const std::string report = version_url(v) + "/report";
    std::string rows;
    size_t shown = 0, failing = 0;
    std::set<std::pair<std::string, std::string>> named;  // (graph, name) seen so far
    for (const auto& n : check["nodes"]) {
      const std::string verdict = n.value("verdict", ""), name = n.value("name", ""), graph = n.value("graph", "");
      // The page opens the first node of a name in its graph; others go by their page id.
      const bool first_of_name = !name.empty() && named.emplace(graph, name).second;
      if (verdict != "UNSUPPORTED" && verdict != "UNKNOWN") continue;
      ++failing;
      if (++shown > 2000) continue;  // a page stays readable; the API's /check has every node
      std::string reasons;
      if (n.contains("reasons"))
        for (const auto& why : n["reasons"]) reasons += esc(why.value("message", "")) + "<br>";
      if (n.contains("hints"))
        for (const auto& hint : n["hints"])
          if (hint.is_string()) reasons += "<i>" + esc(hint.get<std::string>()) + "</i><br>";
      const std::string anchor =
          first_of_name ? report_anchor(name, graph, pin->runtime)
                        : report_anchor(graph + "/" + std::to_string(n.value("index", 0)), "", pin->runtime);
      rows += fmt::format("<tr><td class=\"verdict {0}\">{0}</td><td><a class=\"node-link\" href=\"{1}\"><code>{2}"
                          "</code></a></td><td>{3}</td><td>{4}</td><td>{5}</td></tr>\n",
                          esc(verdict), esc(report + anchor), name.empty() ? "(unnamed)" : esc(name),
                          esc(n.value("op_type", "")), esc(graph), reasons);
    }
    std::string body = fmt::format(
        "<h1><a href=\"{0}\">{1} v{2}</a> at TensorRT {3}</h1>\n<p>{4} node(s) UNSUPPORTED or UNKNOWN{5}. "
        "<a href=\"/api/projects/{6}/models/{1}/versions/{2}/check?trt={7}&amp;precision={8}{9}\">all nodes as JSON</a>"
        " · <a class=\"report-link\" href=\"{10}\">the report at this runtime</a></p>\n",
        version_url(v), esc(v.model), v.number, esc(runtime), failing, shown > 2000 ? " (the first 2,000 shown)" : "",
        esc(v.project), esc(req.get_param_value("trt")), esc(req.get_param_value("precision")),
        req.has_param("target") ? "&amp;target=" + esc(req.get_param_value("target")) : "",
        esc(report + report_anchor("", "", pin->runtime)));
    if (!rows.empty())
      body += "<table class=\"nodes\"><tr><th>verdict</th><th>node</th><th>op_type</th><th>graph</th><th>why</th></tr>\n" +
              rows + "</table>\n";
    send_page(res, v.model + " at " + runtime, caller, body);
  });

  // Downloads of stored files: a version's (the .onnx and its external data) and an engine's.
  auto send_tree_file = [&ctx](httplib::Response& res, const std::string& tree_hash, const std::string& rel) {
    namespace fs = std::filesystem;
    const fs::path root = ctx.store->objects().tree_path(tree_hash);
    // Only a regular file listed in the tree: no "..", no link, nothing outside it.
    std::error_code ec;
    fs::path file;
    size_t seen = 0;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end && ++seen < 20000; it.increment(ec))
      if (it->is_regular_file(ec) && !it->is_symlink(ec) && it->path().lexically_relative(root).generic_string() == rel)
        file = it->path();
    if (file.empty()) return send_error(res, 404, "no stored file " + rel.substr(0, 200));
    const uint64_t size = fs::file_size(file, ec);
    auto in = std::make_shared<std::ifstream>(file, std::ios::binary);
    if (ec || !*in) return send_error(res, 500, "the stored file cannot be read");
    secure_headers(res);
    std::string name = fs::path(rel).filename().string();
    for (char& c : name)
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
    res.set_header("Content-Disposition", "attachment; filename=\"" + name + "\"");
    res.set_content_provider(size, "application/octet-stream",
                             [in](size_t offset, size_t length, httplib::DataSink& sink) {
                               std::vector<char> buf(std::min<size_t>(length, 256 * 1024));
                               in->seekg(static_cast<std::streamoff>(offset));
                               in->read(buf.data(), static_cast<std::streamsize>(buf.size()));
                               if (in->gcount() <= 0) return false;
                               return sink.write(buf.data(), static_cast<size_t>(in->gcount()));
                             });
  };
  server.Get(V + "/files/(.{1,4096})", [&ctx, send_tree_file](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    if (!caller || !page_allowed(ctx, caller, req.matches[1], Role::Read, res)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    send_tree_file(res, v.tree_hash, req.matches[4]);
  });
  server.Get(V + "/engines/([0-9]{1,9})/files/(.{1,4096})",
             [&ctx, send_tree_file](const httplib::Request& req, httplib::Response& res) {
               auto caller = page_caller(ctx, req, res);
               if (!caller || !page_allowed(ctx, caller, req.matches[1], Role::Read, res)) return;
               store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
               store::Engine e = find_engine(ctx, v, req.matches[4]);
               send_tree_file(res, e.tree_hash, req.matches[5]);
             });

  // Administration by a project's writers (small forms with the session's CSRF token). Each
  // redirects to the page it acted on, or the nearest left, with a line saying what it did.
  server.Post(V + "/retry", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    ctx.analyzer->retry(v, std::nullopt);
    done(res, version_url(v), fmt::format("version {} is analysed again", v.number));
  });
  server.Post(V + "/engines/([0-9]{1,9})/retry", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Engine e = find_engine(ctx, v, req.matches[4]);
    ctx.analyzer->retry(v, e);
    done(res, fmt::format("{}/engines/{}", version_url(v), e.number),
         fmt::format("engine {} ({}) is analysed again", e.number, e.label));
  });
  server.Post(V + "/engines/([0-9]{1,9})/delete", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Engine e = find_engine(ctx, v, req.matches[4]);
    ctx.store->delete_engine(v.id, e.number);
    done(res, version_url(v),
         fmt::format("deleted engine {} ({}) of {} v{}; {}", e.number, e.label, v.model, v.number,
                     removed_text(ctx.store->collect_garbage())));
  });
  server.Post(V + "/engines/([0-9]{1,9})/relabel", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Engine e = find_engine(ctx, v, req.matches[4]);
    const std::string label = req.get_param_value("label").substr(0, 200);
    if (label.empty()) throw InputError("label", "give the engine a label");
    ctx.store->relabel_engine(v.id, e.number, label);
    done(res, fmt::format("{}/engines/{}", version_url(v), e.number),
         fmt::format("relabelled engine {}: {} → {}", e.number, e.label, label));
  });
  server.Post(V + "/delete", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Store::Deleted d = ctx.store->delete_version(v.project, v.model, v.number);
    done(res, "/projects/" + v.project,
         fmt::format("deleted {} version {} and its {} engine(s); {}", v.model, v.number, d.engines,
                     removed_text(ctx.store->collect_garbage())));
  });
  server.Post(V + "/tag", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    const std::string tag = req.get_param_value("tag");
    auto before = store::valid_tag(tag) ? ctx.store->tagged_version(v.project, v.model, tag) : std::nullopt;
    ctx.store->set_tag(v.project, v.model, tag, v.number);
    done(res, version_url(v),
         before && before->number != v.number
             ? fmt::format("moved tag {} from v{} to v{}", tag, before->number, v.number)
             : fmt::format("tagged v{} {}: {}/versions/{} opens it", v.number, tag, model_url(v.project, v.model), tag));
  });
  server.Post(M + "/untag", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    const std::string project = req.matches[1], model = req.matches[2], tag = req.get_param_value("tag");
    auto named = store::valid_name(tag) ? ctx.store->tagged_version(project, model, tag) : std::nullopt;
    ctx.store->remove_tag(project, model, tag);
    done(res, named ? version_url(*named) : model_url(project, model),
         fmt::format("removed tag {}{}", tag, named ? fmt::format(" (it named v{})", named->number) : ""));
  });
  server.Post(M + "/describe", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    const std::string project = req.matches[1], model = req.matches[2], text = req.get_param_value("description");
    ctx.store->set_description(project, model, text);
    done(res, model_url(project, model),
         text.empty() ? "cleared the description of " + model : "saved the description of " + model);
  });
  server.Post(M + "/rename", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!form_caller(ctx, req, res, req.matches[1])) return;
    const std::string project = req.matches[1], model = req.matches[2], name = req.get_param_value("name");
    ctx.store->rename_model(project, model, name);
    done(res, model_url(project, name),
         fmt::format("renamed model {} to {}; its versions, engines and tags go with it (old links to {} now answer "
                     "404)",
                     model, name, model));
  });
  // Deleting a whole model asks first on a page of its own (no script needed), saying what goes.
  server.Get(M + "/delete", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = page_caller(ctx, req, res);
    const std::string project = req.matches[1], model = req.matches[2];
    if (!caller || !page_allowed(ctx, caller, project, Role::Write, res)) return;
    auto versions = ctx.store->versions(project, model);
    size_t engines = 0;
    for (const store::Version& h : versions) engines += ctx.store->engines(h.id).size();
    send_page(res, "delete " + model, caller,
              fmt::format("<h1><a href=\"/projects/{0}\">{0}</a> / {1}: delete the model?</h1>\n<p class=\"error\">"
                          "This deletes {1} with its {2} version(s), {3} engine(s) and its tags. It cannot be "
                          "undone.</p>\n<form method=\"post\" action=\"/projects/{0}/models/{1}/delete\"><input "
                          "type=\"hidden\" name=\"csrf\" value=\"{4}\"><input type=\"hidden\" name=\"confirm\" "
                          "value=\"{1}\"><button class=\"danger\">delete {1}</button></form> <a href=\"/projects/{0}/"
                          "models/{1}\">keep it</a>\n",
                          esc(project), esc(model), versions.size(), engines, esc(caller->csrf)));
  });
  server.Post(M + "/delete", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = form_caller(ctx, req, res, req.matches[1]);
    if (!caller) return;
    const std::string project = req.matches[1], model = req.matches[2];
    // Only from the confirmation page, which names the model it asked about.
    if (req.get_param_value("confirm") != model)
      return redirect(res, model_url(project, model) + "/delete");
    store::Store::Deleted d = ctx.store->delete_model(project, model);
    done(res, "/projects/" + project,
         fmt::format("deleted model {}: {} version(s), {} engine(s); {}", model, d.versions, d.engines,
                     removed_text(ctx.store->collect_garbage())));
  });
}

void send_error_page(httplib::Response& res, int status, const std::string& message) {
  send_page(res, "error", std::nullopt,
            fmt::format("<h1>{}</h1><p class=\"error\">{}</p><p><a href=\"/\">back to the dashboard</a></p>\n",
                        status, esc(message)),
            status);
}

}  // namespace trtlens::serve
