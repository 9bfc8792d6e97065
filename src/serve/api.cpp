// The JSON API under /api (documented in web/openapi.json, served at
// /api/openapi.json). Callers sign in with "Authorization: Bearer <token>";
// a browser session may call it too, and then writes need X-CSRF-Token.
#include <fmt/core.h>

#include <charconv>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "render/check_output.h"
#include "render/html.h"
#include "render/model_diff.h"
#include "render/overlay_output.h"
#include "serve/context.h"
#include "serve/model_archive.h"
#include "store/hash.h"
#include "trtlens/analysis.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "trtlens/overlay.h"
#include "util/embedded.h"

namespace trtlens::serve {

namespace {

using json = nlohmann::ordered_json;
using store::Role;

constexpr const char* kName = "([A-Za-z0-9._-]{1,64})";

// Every API reply is an object that starts with its schema_version (DESIGN.md).
constexpr int kApiSchemaVersion = 1;
std::string dump(const json& j) {
  json out = {{"schema_version", kApiSchemaVersion}};
  for (const auto& [key, value] : j.items()) out[key] = value;
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string iso_time(int64_t unix_seconds) { return utc_time(unix_seconds, "%Y-%m-%dT%H:%M:%SZ"); }

int parse_number(const std::string& text, const char* what) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(what, "expected a number, got " + text.substr(0, 20));
  return std::stoi(text);
}

// `queue` false (listings): no analysis is started; a version this binary has not
// analysed reads "stale" until it is opened.
json analysis_json(Context& ctx, const store::Version& v, bool queue) {
  std::optional<store::Analysis> known = queue ? ctx.analyzer->ensure(v) : ctx.analyzer->peek(v);
  if (!known)
    return {{"status", "stale"},
            {"progress_percent", 0},
            {"message", "not analysed by this server's version yet; opening the version analyses it"}};
  const store::Analysis& a = *known;
  json out = {{"status", store::status_name(a.status)},
              {"progress_percent", a.progress_percent},
              {"message", without_server_paths(a.message, ctx.store->objects())}};
  if (auto r = ctx.analyzer->model_result(v)) {
    json converts = json::array();
    for (const PinResult& p : r->converts) {
      converts.push_back({{"runtime", p.runtime}, {"converts", p.converts}, {"unsupported", p.unsupported}});
      if (p.dla_nodes >= 0) {
        converts.back()["dla_nodes"] = p.dla_nodes;
        converts.back()["placed_nodes"] = p.placed_nodes;
      }
    }
    out["nodes"] = r->nodes;
    out["converts"] = converts;
  }
  return out;
}

json version_doc(Context& ctx, const store::Version& v, bool queue) {
  return {{"project", v.project},
          {"model", v.model},
          {"version", v.number},
          {"tree_hash", v.tree_hash},
          {"size_bytes", v.size_bytes},
          {"main_file", v.main_file},
          {"opsets", v.opsets},
          {"created_at", iso_time(v.created_at)},
          {"created_by", v.created_by},
          {"git_sha", v.git_sha},
          {"branch", v.git_branch},
          {"io", v.io},
          {"tags", v.tags},
          {"url", fmt::format("/projects/{}/models/{}/versions/{}", v.project, v.model, v.number)},
          {"analysis", analysis_json(ctx, v, queue)}};
}

json engine_doc(Context& ctx, const store::Version& v, const store::Engine& e) {
  store::Analysis a = ctx.analyzer->ensure(v, e);
  auto result = ctx.analyzer->engine_result(v, e);
  return {{"engine", e.number},
          {"label", e.label},
          {"release", e.release},
          {"release_source", e.release_source},
          {"note", result ? result->note : ""},
          {"tree_hash", e.tree_hash},
          {"created_at", iso_time(e.created_at)},
          {"created_by", e.created_by},
          {"url", fmt::format("/projects/{}/models/{}/versions/{}/engines/{}", v.project, v.model, v.number, e.number)},
          {"analysis", {{"status", store::status_name(a.status)},
                        {"progress_percent", a.progress_percent},
                        {"message", without_server_paths(a.message, ctx.store->objects())}}}};
}

// Writes by a browser session must carry the session's CSRF token in X-CSRF-Token; else 403 is sent.
bool csrf_ok(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
  if (!caller.by_session || store::same_secret(req.get_header_value("X-CSRF-Token"), caller.csrf)) return true;
  send_error(res, 403, "a form or script write needs the session's X-CSRF-Token");
  return false;
}

// The caller when it may act on the project (with `needed`, or as a site administrator when
// `admins`); else the error is sent.
std::optional<Caller> caller_for(Context& ctx, const httplib::Request& req, httplib::Response& res,
                                 const std::string& project, Role needed, bool admins = false) {
  auto caller = authenticate(ctx, req);
  if (!(admins && caller && caller->admin) && !allowed(ctx, caller, project, needed, res)) return std::nullopt;
  if (needed == Role::Write && !csrf_ok(req, res, *caller)) return std::nullopt;
  return caller;
}

// The caller when a site administrator; else 401 or 403 is sent.
std::optional<Caller> admin_caller(Context& ctx, const httplib::Request& req, httplib::Response& res, bool write) {
  auto caller = authenticate(ctx, req);
  if (!caller) {
    send_error(res, 401, sign_in_message());
    return std::nullopt;
  }
  if (!caller->admin) {
    send_error(res, 403, caller->user + " is not an administrator (trtlens admin promote USER)");
    return std::nullopt;
  }
  if (write && !csrf_ok(req, res, *caller)) return std::nullopt;
  return caller;
}

// Every tag of a model with the version it names: [{"tag": "production", "version": 1}].
json tags_doc(const store::ModelSummary& m) {
  json out = json::array();
  for (const auto& [tag, number] : m.tags) out.push_back({{"tag", tag}, {"version", number}});
  return out;
}

json optional_time(int64_t unix_seconds) { return unix_seconds ? json(iso_time(unix_seconds)) : json(nullptr); }

// A project's pins: the specs, their runtime labels, and whose they are.
json pins_doc(Context& ctx, const std::string& project) {
  auto set = ctx.analyzer->pins_for(project);
  json specs = json::array(), runtimes = json::array();
  for (const Pin& p : set->pins) {
    specs.push_back(p.spec);
    runtimes.push_back(p.label);
  }
  return {{"project", project}, {"pins", specs}, {"runtimes", runtimes},
          {"source", set->project_own ? "project" : "server"}};
}

}  // namespace

std::string version_json(Context& ctx, const store::Version& v) { return dump(version_doc(ctx, v, true)); }

store::Version find_version(Context& ctx, const std::string& project, const std::string& model,
                            const std::string& number) {
  // A number, else a tag (a tag is never all digits: store::valid_tag).
  const bool is_number = !number.empty() && number.find_first_not_of("0123456789") == std::string::npos;
  if (!is_number && !store::valid_name(number))
    throw InputError("version", "expected a number or a tag, got " + number.substr(0, 20));
  auto v = is_number ? ctx.store->version(project, model, parse_number(number, "version"))
                     : ctx.store->tagged_version(project, model, number);
  if (!v) throw store::StoreError(store::StoreError::Kind::NotFound,
                                  fmt::format("{}/{} has no version {}{}", project, model, is_number ? "" : "or tag ",
                                              number));
  return *v;
}

store::Engine find_engine(Context& ctx, const store::Version& v, const std::string& number) {
  int n = parse_number(number, "engine");
  for (store::Engine& e : ctx.store->engines(v.id))
    if (e.number == n) return e;
  throw store::StoreError(store::StoreError::Kind::NotFound,
                          fmt::format("{}/{} version {} has no engine {}", v.project, v.model, v.number, n));
}

Model load_stored_model(const store::ObjectStore& objects, const store::Version& v) {
  Model m;
  try {
    m = load_model((objects.tree_path(v.tree_hash) / v.main_file).string());
  } catch (const InputError& e) {
    throw InputError(v.main_file, e.problem());
  }
  m.path = v.main_file;  // what pages, checks and errors call it
  return m;
}

EnginePlan load_stored_plan(const store::ObjectStore& objects, const store::Engine& e) {
  const std::filesystem::path dir = objects.tree_path(e.tree_hash);
  EnginePlan plan;
  try {
    plan = load_plan(find_plan_files((e.prefix.empty() ? dir : dir / e.prefix).string()));
  } catch (const InputError& err) {
    throw InputError("engine " + e.label, err.problem());
  }
  // Its files as named in the upload (pages, overlays and errors show them).
  auto as_uploaded = [&](std::string& text) { text = without_server_paths(text, objects); };
  for (std::string* f : {&plan.files.graph, &plan.files.profile, &plan.files.timing, &plan.files.profile_metadata,
                         &plan.files.build_metadata, &plan.device_source, &plan.builder_source,
                         &plan.performance_source})
    as_uploaded(*f);
  for (std::string& f : plan.files.logs) as_uploaded(f);
  for (TrtexecLog& log : plan.logs) as_uploaded(log.file);
  for (std::string& note : plan.notes) as_uploaded(note);
  return plan;
}

void add_api_routes(httplib::Server& http, Context& ctx) {
  Routes server(http, ctx);  // replies name no server path
  const std::string P = std::string("/api/projects/") + kName;
  const std::string M = P + "/models/" + kName;
  const std::string V = M + "/versions/" + kName;  // a number or a tag (find_version)

  server.Get("/api/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, std::string(embedded_file("web/openapi.json")));
  });

  server.Get("/api/projects", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto caller = authenticate(ctx, req);
    if (!caller) return send_error(res, 401, sign_in_message());
    json out = json::array();
    for (const std::string& p : ctx.store->projects_for(caller->user_id))
      out.push_back({{"name", p}, {"role", store::role_name(ctx.store->role(caller->user_id, p))}});
    send_json(res, dump({{"user", caller->user}, {"projects", out}}));
  });

  server.Get(P + "/models", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string project = req.matches[1];
    if (!caller_for(ctx, req, res, project, Role::Read)) return;
    json out = json::array();
    for (const store::ModelSummary& m : ctx.store->models(project))
      out.push_back({{"name", m.name}, {"description", m.description}, {"versions", m.versions},
                     {"tags", tags_doc(m)}, {"latest", version_doc(ctx, m.latest, false)}});
    send_json(res, dump({{"project", project}, {"models", out}}));
  });

  server.Get(M + "/versions", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string project = req.matches[1], model = req.matches[2];
    if (!caller_for(ctx, req, res, project, Role::Read)) return;
    json out = json::array();
    int64_t limit = req.has_param("limit") ? parse_number(req.get_param_value("limit"), "limit") : INT64_MAX;
    for (const store::Version& v : ctx.store->versions(project, model, limit)) out.push_back(version_doc(ctx, v, false));
    if (out.empty()) return send_error(res, 404, fmt::format("no model {} in project {}", model, project));
    send_json(res, dump({{"project", project}, {"model", model}, {"versions", out}}));
  });

  // The pre-flight of a push: the answer the upload would get for its token, project,
  // role, model name and size, before a byte of it is sent (`trtlens push` asks first,
  // so a refusal is read as a reply, not as a broken pipe mid-upload).
  server.Get(M + "/upload-check", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string project = req.matches[1], model = req.matches[2];
    if (!caller_for(ctx, req, res, project, Role::Write)) return;
    if (!store::valid_name(model))
      return send_error(res, 400, "model name: 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'");
    const uint64_t limit = ctx.options.max_upload_bytes;
    if (req.has_param("size_bytes")) {
      const std::string text = req.get_param_value("size_bytes");
      uint64_t size = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), size);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return send_error(res, 400, "size_bytes: expected a number of bytes");
      if (size > limit)
        return send_error(res, 413, fmt::format("upload of {} bytes; this server takes at most {} (--max-upload-mb)",
                                                size, limit));
    }
    send_json(res, dump({{"ok", true}, {"max_upload_bytes", limit}}));
  });

  // A new version: the raw body is the .onnx, or a zip of the model's folder.
  server.Post(M + "/versions", [&ctx](const httplib::Request& req, httplib::Response& res,
                                      const httplib::ContentReader& reader) {
    const std::string project = req.matches[1], model = req.matches[2];
    auto caller = caller_for(ctx, req, res, project, Role::Write);
    if (!caller) return;
    if (!store::valid_name(model))
      return send_error(res, 400, "model name: 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'");
    std::string name = req.has_param("filename") ? req.get_param_value("filename") : "model.onnx";
    name = safe_upload_name(name);
    if (req.get_header_value("Content-Type") == "application/zip" && name.find(".zip") == std::string::npos)
      name += ".zip";
    auto upload = receive_body(ctx, res, reader, std::filesystem::path(name).filename().string(),
                               req.get_param_value("main"));
    if (!upload) return;
    upload->file_name = name;
    PushOptions options{req.get_param_value("git_sha"), req.get_param_value("branch"), req.get_param_value("tag"),
                        req.get_param_value("force") == "1" || req.get_param_value("force") == "true"};
    PushResult pushed = store_model_upload(ctx, *upload, project, model, *caller, options);
    json doc = version_doc(ctx, pushed.version, true);
    if (pushed.unchanged) {
      doc["unchanged"] = true;
      doc["message"] = fmt::format("no change: same as version {} (push with force=1 for a new version anyway)",
                                   pushed.version.number);
    }
    send_json(res, dump(doc), pushed.unchanged ? 200 : 201);
  });

  server.Get(V, [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Read)) return;
    send_json(res, version_json(ctx, find_version(ctx, req.matches[1], req.matches[2], req.matches[3])));
  });

  server.Get(V + "/analysis", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Read)) return;
    send_json(res, dump(analysis_json(ctx, find_version(ctx, req.matches[1], req.matches[2], req.matches[3]), true)));
  });

  // `trtlens check --format json` for one runtime (default: newest release, fp32).
  server.Get(V + "/check", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Read)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    const KnowledgeBase& kb = KnowledgeBase::builtin();
    const Release& r = req.has_param("trt") ? kb.resolve(req.get_param_value("trt")) : kb.releases().back();
    Precision p = parse_precision(req.has_param("precision") ? req.get_param_value("precision") : "fp32");
    // `target` as --target takes it (an unknown one, or a release it does not run: 400).
    Runtime runtime{&r, p};
    if (req.has_param("target")) {
      const TargetCatalog& catalog = TargetCatalog::builtin();
      runtime.target = &catalog.resolve(req.get_param_value("target"));
      catalog.check_release(*runtime.target, r);
    }
    // A pinned runtime is read from the stored analysis; any other is judged now.
    if (auto result = ctx.analyzer->model_result(v)) {
      std::string label = r.name + " " + std::string(precision_name(p)) + (runtime.target ? " " + runtime.target->name : "");
      for (const PinResult& pin : result->converts)
        if (pin.runtime == label && !pin.check_hash.empty()) {
          send_json(res, ctx.store->objects().get_blob(pin.check_hash));
          return;
        }
    }
    LiveAnalyses::Turn turn(*ctx.live);
    Model m = load_stored_model(ctx.store->objects(), v);
    send_json(res, check_json(m, annotate_runtime(m, kb, runtime), kb));
  });

  server.Get(V + "/diff", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Read)) return;
    store::Version after = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Version before = find_version(ctx, req.matches[1], req.matches[2], req.get_param_value("against"));
    // ?format=svg|dot: the graph view alone (Graphviz's SVG, or DOT text to lay out elsewhere).
    const std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
    if (format != "json" && format != "svg" && format != "dot")
      return send_error(res, 400, "format must be json, svg or dot");
    const DiffOutput output = format == "svg" ? DiffOutput::Svg : format == "dot" ? DiffOutput::Dot : DiffOutput::Json;
    std::string body = version_diff(
        ctx, before, after, req.get_param_value("trt"), req.get_param_value("precision"),
        req.has_param("target") ? std::optional<std::string>(req.get_param_value("target")) : std::nullopt, output);
    if (output == DiffOutput::Json) return send_json(res, body);
    // Opened on its own, the SVG is a document: nothing in it may run or load.
    res.set_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_content(body, output == DiffOutput::Svg ? "image/svg+xml" : "text/vnd.graphviz; charset=utf-8");
  });

  server.Get(V + "/engines", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Read)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    json out = json::array();
    for (const store::Engine& e : ctx.store->engines(v.id)) out.push_back(engine_doc(ctx, v, e));
    send_json(res, dump({{"engines", out}}));
  });

  // trtexec's files of an engine built from this version: a zip of them, or
  // one graph.json (?filename=).
  server.Post(V + "/engines", [&ctx](const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader& reader) {
    auto caller = caller_for(ctx, req, res, req.matches[1], Role::Write);
    if (!caller) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    std::string name = safe_upload_name(req.has_param("filename") ? req.get_param_value("filename") : "engine.zip");
    std::string label = req.has_param("label") ? req.get_param_value("label") : name;
    auto upload = receive_body(ctx, res, reader, std::filesystem::path(name).filename().string(), "");
    if (!upload) return;
    upload->file_name = name;
    store::Engine e = store_engine_upload(ctx, *upload, v, label.substr(0, 200), *caller, req.get_param_value("release"));
    send_json(res, dump(engine_doc(ctx, v, e)), 201);
  });

  // The overlay document (`report MODEL --engine PLAN --format json`), at the engine's release;
  // without one, no disagreement is listed (release_source says why).
  server.Get(V + "/engines/([0-9]{1,9})/overlay", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Read)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Engine e = find_engine(ctx, v, req.matches[4]);
    LiveAnalyses::Turn turn(*ctx.live);
    Model m = load_stored_model(ctx.store->objects(), v);
    EnginePlan plan = load_stored_plan(ctx.store->objects(), e);
    EngineOverlay eo;
    try {
      eo = overlay_and_check(m, plan, KnowledgeBase::builtin(), e.release, std::nullopt);
    } catch (const InputError& err) {
      return send_error(res, 422, std::string(err.what()) + " (the engine's report card reads the engine alone)");
    }
    if (e.release.empty()) {
      eo.check.disagreements.clear();
      eo.check.runtime.release_source = "not known: no disagreement is listed (attach the engine with its release)";
    } else {
      eo.check.runtime.release_source = e.release_source;  // where the dashboard got it, not "--trt"
    }
    send_json(res, overlay_json({&m, &plan, &eo.overlay, &eo.check, &eo.predicted}));
  });

  // Administration by a project's writers. A failed analysis is run again (engines' as models').
  server.Post(V + "/retry", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Write)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    ctx.analyzer->retry(v, std::nullopt);
    send_json(res, version_json(ctx, v));
  });
  server.Post(V + "/engines/([0-9]{1,9})/retry", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Write)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Engine e = find_engine(ctx, v, req.matches[4]);
    ctx.analyzer->retry(v, e);
    send_json(res, dump(engine_doc(ctx, v, e)));
  });
  server.Delete(V + "/engines/([0-9]{1,9})", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Write)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    store::Engine e = find_engine(ctx, v, req.matches[4]);
    ctx.store->delete_engine(v.id, e.number);
    auto [trees, blobs] = ctx.store->collect_garbage();
    send_json(res, dump({{"deleted", fmt::format("engine {} of {}/{} version {}", e.number, v.project, v.model,
                                                 v.number)},
                         {"removed_trees", trees}, {"removed_blobs", blobs}}));
  });
  server.Delete(V, [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Write)) return;
    store::Version v = find_version(ctx, req.matches[1], req.matches[2], req.matches[3]);
    ctx.store->delete_version(v.project, v.model, v.number);
    auto [trees, blobs] = ctx.store->collect_garbage();
    send_json(res, dump({{"deleted", fmt::format("{}/{} version {}", v.project, v.model, v.number)},
                         {"removed_trees", trees}, {"removed_blobs", blobs}}));
  });
  server.Delete(M, [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string project = req.matches[1], model = req.matches[2];
    if (!caller_for(ctx, req, res, project, Role::Write)) return;
    ctx.store->delete_model(project, model);
    auto [trees, blobs] = ctx.store->collect_garbage();
    send_json(res, dump({{"deleted", project + "/" + model}, {"removed_trees", trees}, {"removed_blobs", blobs}}));
  });
  // A project's pins (read role), set by its writers or an administrator: pins=TEXT
  // ("8.6:fp16 10.16:fp16", spaces or commas between; empty: the server's --pin again).
  server.Get(P + "/pins", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!caller_for(ctx, req, res, req.matches[1], Role::Read, /*admins=*/true)) return;
    send_json(res, dump(pins_doc(ctx, req.matches[1])));
  });
  server.Post(P + "/pins", [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string project = req.matches[1];
    if (!caller_for(ctx, req, res, project, Role::Write, /*admins=*/true)) return;
    if (!req.has_param("pins"))
      return send_error(res, 400, "pins: give pins=RELEASE:PRECISION[:TARGET] ... (empty: the server's --pin)");
    set_project_pins(ctx, project, req.get_param_value("pins"));
    send_json(res, dump(pins_doc(ctx, project)));
  });

  // Site administration (administrators only): users, projects and tokens (never a token,
  // only its id and last characters), and revoking a token.
  server.Get("/api/admin/users", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admin_caller(ctx, req, res, false)) return;
    json users = json::array();
    for (const store::UserInfo& u : ctx.store->users()) {
      json roles = json::array();
      for (const auto& [project, role] : u.grants) roles.push_back({{"project", project}, {"role", store::role_name(role)}});
      users.push_back({{"name", u.name}, {"admin", u.admin}, {"created_at", iso_time(u.created_at)},
                       {"tokens", u.tokens}, {"roles", roles}});
    }
    send_json(res, dump({{"users", users}}));
  });
  server.Get("/api/admin/projects", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admin_caller(ctx, req, res, false)) return;
    json projects = json::array();
    for (const store::ProjectInfo& p : ctx.store->projects()) {
      json doc = pins_doc(ctx, p.name);
      projects.push_back({{"name", p.name}, {"created_at", iso_time(p.created_at)}, {"models", p.models},
                          {"pins", doc["pins"]}, {"pins_source", doc["source"]}});
    }
    send_json(res, dump({{"projects", projects}}));
  });
  server.Get("/api/admin/tokens", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admin_caller(ctx, req, res, false)) return;
    json tokens = json::array();
    for (const store::TokenInfo& t : ctx.store->tokens(req.get_param_value("user")))
      tokens.push_back({{"id", t.id}, {"user", t.user}, {"hint", t.hint}, {"created_at", iso_time(t.created_at)},
                        {"last_used_at", optional_time(t.last_used_at)}, {"revoked", t.revoked_at != 0},
                        {"revoked_at", optional_time(t.revoked_at)}});
    send_json(res, dump({{"tokens", tokens}}));
  });
  server.Post("/api/admin/tokens/([0-9]{1,9})/revoke", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admin_caller(ctx, req, res, true)) return;
    const int id = parse_number(req.matches[1], "token");
    ctx.store->revoke_token(id);
    send_json(res, dump({{"revoked", id}}));
  });

  // Model settings (form fields or query): description=TEXT, name=NEW (a rename),
  // tag=T with version=N (moves the tag), untag=T.
  server.Post(M, [&ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string project = req.matches[1];
    std::string model = req.matches[2];
    if (!caller_for(ctx, req, res, project, Role::Write)) return;
    if (req.has_param("description")) ctx.store->set_description(project, model, req.get_param_value("description"));
    if (req.has_param("tag"))
      ctx.store->set_tag(project, model, req.get_param_value("tag"), parse_number(req.get_param_value("version"), "version"));
    if (req.has_param("untag")) ctx.store->remove_tag(project, model, req.get_param_value("untag"));
    if (req.has_param("name")) {
      ctx.store->rename_model(project, model, req.get_param_value("name"));
      model = req.get_param_value("name");
    }
    for (const store::ModelSummary& m : ctx.store->models(project))
      if (m.name == model)
        return send_json(res, dump({{"name", m.name}, {"description", m.description}, {"versions", m.versions},
                                    {"tags", tags_doc(m)}, {"latest", version_doc(ctx, m.latest, false)}}));
    send_error(res, 404, "no model " + model + " in project " + project);
  });
}

void set_project_pins(Context& ctx, const std::string& project, const std::string& text) {
  std::vector<std::string> specs;
  for (size_t at = text.find_first_not_of(" ,\t\r\n"); at != std::string::npos;
       at = text.find_first_not_of(" ,\t\r\n", at)) {
    size_t end = std::min(text.find_first_of(" ,\t\r\n", at), text.size());
    specs.push_back(text.substr(at, end - at));
    at = end;
  }
  ctx.store->set_project_pins(project, canonical_pins(specs, "pins of " + project));
}

namespace {

// What changed between two versions, above the node lists: nodes added and removed by
// op_type ("-19 HardSwish, +19 HardSigmoid, +19 Mul"), opsets, inputs and outputs, and per
// pinned runtime whether it converts and how many nodes changed verdict (stored rows).
json diff_summary(Context& ctx, const store::Version& before, const store::Version& after, const ModelDiff& d) {
  std::map<std::string, std::pair<int, int>> by_op;  // op_type -> (removed, added)
  for (const ModelDiffEntry& e : d.removed) ++by_op[e.op_type].first;
  for (const ModelDiffEntry& e : d.added) ++by_op[e.op_type].second;
  std::vector<std::pair<std::string, std::pair<int, int>>> ops(by_op.begin(), by_op.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.second.first + a.second.second > b.second.first + b.second.second;
  });
  json op_types = json::array();
  std::string text;
  for (const auto& [op, n] : ops) {
    op_types.push_back({{"op_type", op}, {"removed", n.first}, {"added", n.second}});
    if (n.first) text += fmt::format("{}-{} {}", text.empty() ? "" : ", ", n.first, op);
    if (n.second) text += fmt::format("{}+{} {}", text.empty() ? "" : ", ", n.second, op);
  }
  json pins = json::array();
  auto rb = ctx.analyzer->model_result(before), ra = ctx.analyzer->model_result(after);
  if (rb && ra)
    for (const PinResult& pb : rb->converts)
      for (const PinResult& pa : ra->converts)
        if (pa.runtime == pb.runtime && !pa.diff_hash.empty() && !pb.diff_hash.empty()) {
          auto rows_b = read_diff_rows(ctx.store->objects().get_blob(pb.diff_hash));
          auto rows_a = read_diff_rows(ctx.store->objects().get_blob(pa.diff_hash));
          ModelDiff pd = diff_models(rows_b->rows, rows_a->rows);
          pins.push_back({{"runtime", pa.runtime},
                          {"converts_before", pb.converts},
                          {"converts_after", pa.converts},
                          {"unsupported_before", pb.unsupported},
                          {"unsupported_after", pa.unsupported},
                          {"changed", pd.changed.size()}});
        }
  return {{"text", text.empty() ? "no node added or removed" : text},
          {"op_types", op_types},
          {"opsets", {{"before", before.opsets}, {"after", after.opsets}, {"changed", before.opsets != after.opsets}}},
          {"inputs_outputs",
           {{"before", before.io}, {"after", after.io}, {"changed", !before.io.empty() && before.io != after.io}}},
          {"pins", pins}};
}

std::string summary_html(const json& s) {
  std::string out = "<section class=\"diff-summary\"><h2>Summary</h2><ul>";
  out += "<li>nodes: " + html_escape(s["text"].get<std::string>()) + "</li>";
  const json& o = s["opsets"];
  out += o["changed"].get<bool>() ? fmt::format("<li class=\"changed\">opsets: {} → {}</li>",
                                                html_escape(o["before"].get<std::string>()),
                                                html_escape(o["after"].get<std::string>()))
                                  : fmt::format("<li>opsets: {} (unchanged)</li>", html_escape(o["after"].get<std::string>()));
  const json& io = s["inputs_outputs"];
  // Stored as "x FLOAT[1] -> y FLOAT[1]"; shown with the page's one arrow, and "was … now" for
  // the change, so that no arrow means two things on one line.
  auto io_text = [](const json& text) {
    std::string t = text.get<std::string>();
    for (size_t at = t.find(" -> "); at != std::string::npos; at = t.find(" -> ", at + 5)) t.replace(at, 4, " → ");
    return html_escape(t);
  };
  if (io["changed"].get<bool>())
    out += fmt::format("<li class=\"changed\">inputs and outputs: was {}, now {}</li>", io_text(io["before"]),
                       io_text(io["after"]));
  else if (!io["after"].get<std::string>().empty())
    out += fmt::format("<li>inputs and outputs: {} (unchanged)</li>", io_text(io["after"]));
  for (const json& p : s["pins"])
    out += fmt::format("<li>{}: converts {} → {}, unsupported {} → {}, {} node(s) changed verdict</li>",
                       html_escape(p["runtime"].get<std::string>()), p["converts_before"].get<bool>() ? "✓" : "✗",
                       p["converts_after"].get<bool>() ? "✓" : "✗", p["unsupported_before"].get<int>(),
                       p["unsupported_after"].get<int>(), p["changed"].get<size_t>());
  return out + "</ul></section>\n";
}

}  // namespace

DiffRuntime diff_runtime(Context& ctx, const std::string& project, const std::string& trt,
                         const std::string& precision, const std::optional<std::string>& target) {
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  auto pins = ctx.analyzer->pins_for(project);
  const Pin* first = pins->pins.empty() ? nullptr : &pins->pins.front();
  DiffRuntime out;
  out.runtime.release = !trt.empty() ? &kb.resolve(trt) : first ? first->release : &kb.releases().back();
  out.runtime.precision = !precision.empty() ? parse_precision(precision) : first ? first->precision : Precision::FP32;
  // The pin's target only when the whole runtime is the pin's (a release or precision asked
  // for alone is judged without one).
  const bool pinned = trt.empty() && precision.empty() && !target;
  if (target && !target->empty()) {
    out.runtime.target = &TargetCatalog::builtin().resolve(*target);
    TargetCatalog::builtin().check_release(*out.runtime.target, *out.runtime.release);
  } else if (pinned && first) {
    out.runtime.target = first->target;
  }
  out.label = out.runtime.release->name + " " + std::string(precision_name(out.runtime.precision)) +
              (out.runtime.target ? " " + out.runtime.target->name : "");
  return out;
}

std::string version_diff(Context& ctx, const store::Version& before, const store::Version& after,
                         const std::string& trt, const std::string& precision,
                         const std::optional<std::string>& target, DiffOutput output) {
  const KnowledgeBase& kb = KnowledgeBase::builtin();
  const DiffRuntime at = diff_runtime(ctx, after.project, trt, precision, target);
  const std::string& runtime = at.label;
  auto report_of = [](const store::Version& v) {
    return fmt::format("/projects/{}/models/{}/versions/{}/report", v.project, v.model, v.number);
  };
  auto view_of = [&](const std::vector<DiffRow>& rows_b, const std::vector<DiffRow>& rows_a, bool converts_before,
                     bool converts_after) {
    ModelDiff d = diff_models(rows_b, rows_a);
    DiffGraph g = diff_graph(rows_b, rows_a);
    ModelDiffView view{&d, fmt::format("version {}", before.number), fmt::format("version {}", after.number), runtime,
                       converts_before, converts_after, &g, report_of(before), report_of(after)};
    if (output == DiffOutput::Svg || output == DiffOutput::Dot)
      return render_graph(diff_dot_graph(g, view.before_link, view.after_link, runtime),
                          output == DiffOutput::Svg ? "svg" : "dot");
    json summary = diff_summary(ctx, before, after, d);
    if (output == DiffOutput::Html) return summary_html(summary) + model_diff_html(view);
    json doc = json::parse(model_diff_json(view));
    doc["summary"] = summary;
    return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  };
  // A pinned runtime both versions' analyses stored: compared without loading either model.
  auto stored = [&](const store::Version& v) -> std::optional<PinResult> {
    if (auto result = ctx.analyzer->model_result(v))
      for (const PinResult& pin : result->converts)
        if (pin.runtime == runtime && !pin.diff_hash.empty()) return pin;
    return std::nullopt;
  };
  if (auto sb = stored(before), sa = stored(after); sb && sa) {
    auto rb = read_diff_rows(ctx.store->objects().get_blob(sb->diff_hash));
    auto ra = read_diff_rows(ctx.store->objects().get_blob(sa->diff_hash));
    return view_of(rb->rows, ra->rows, sb->converts, sa->converts);
  }
  LiveAnalyses::Turn turn(*ctx.live);
  Model a = load_stored_model(ctx.store->objects(), before), b = load_stored_model(ctx.store->objects(), after);
  Annotations aa = annotate_runtime(a, kb, at.runtime), bb = annotate_runtime(b, kb, at.runtime);
  return view_of(diff_rows(a, aa), diff_rows(b, bb), aa.converts, bb.converts);
}

}  // namespace trtlens::serve
