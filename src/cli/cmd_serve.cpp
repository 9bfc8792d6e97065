// `trtlens serve`: the dashboard server; `trtlens admin`: its accounts and
// projects (run on the server's machine, against the same data folder or database).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/format.h>

#include <ctime>
#include <memory>

#include "cli/app.h"
#include "serve/serve.h"
#include "store/store.h"
#include "trtlens/error.h"

namespace trtlens::cli {

namespace {

// Store refusals are the user's input problems: one line, exit 2.
template <class F>
void store_call(F&& f) {
  try {
    f();
  } catch (const store::StoreError& e) {
    throw UsageError(e.what());
  }
}

struct AdminArgs {
  std::string data, db, name, project, role, model, text, tag;
  int version = 0, engine = 0;
  int64_t token_id = 0;
  int64_t min_age_s = 3600;
  bool remove = false, admin = false, clear = false;
  std::vector<std::string> pins;
};

std::string day(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  return std::string(buf, std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm));
}

// The id of version `number` of a model; StoreError(NotFound) otherwise.
int64_t version_id_of(store::Store& s, const std::string& project, const std::string& model, int number) {
  auto v = s.version(project, model, number);
  if (!v)
    throw store::StoreError(store::StoreError::Kind::NotFound,
                            project + "/" + model + " has no version " + std::to_string(number));
  return v->id;
}

void print_removed(std::pair<int, int> removed) {
  fmt::print("removed {} stored tree(s) and {} cached result file(s) nothing names any more\n", removed.first,
             removed.second);
}

// After a deletion: what the collection removed, and that younger files wait for `admin gc`.
void print_removed_after_delete(std::pair<int, int> removed) {
  print_removed(removed);
  fmt::print("files stored in the last minute, and cached results of the last hour, are left to the next "
             "`admin gc`\n");
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<serve::ServeOptions>();
  auto data = std::make_shared<std::string>();
  auto max_mb = std::make_shared<uint64_t>(4096);
  CLI::App* cmd = app.add_subcommand(
      "serve", "Run the dashboard: tracked models, their versions, report pages and engines, with a JSON API "
               "(docs/serve.md)");
  cmd->add_option("--data", *data, "folder for the database and the stored files (created if absent)")->required();
  cmd->add_option("--db", o->db_url, "postgresql://user@host/db to keep metadata in PostgreSQL (default: SQLite "
                                     "in --data); servers sharing one database share one --data folder");
  cmd->add_option("--host", o->host, "address to listen on")->capture_default_str();
  cmd->add_option("--port", o->port, "port to listen on (0: any free port)")->capture_default_str()->check(
      CLI::Range(0, 65535));
  cmd->add_option("--port-file", o->port_file, "write the port listened on to this file");
  cmd->add_option("--threads", o->threads, "HTTP worker threads")->capture_default_str()->check(CLI::Range(2, 1024));
  cmd->add_option("--analysis-threads", o->analysis_threads, "models analysed at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--max-upload-mb", *max_mb, "largest upload, MB (larger: 413)")->capture_default_str()->check(
      CLI::Range(1, 1 << 20));
  cmd->add_option("--pin", o->pins, "RELEASE:PRECISION[:TARGET] whose converts yes/no the model lists show (repeatable; "
                                    "default: fp16 on the newest release of each of the three newest majors; "
                                    "TARGET as check --target takes it, one per pin: 8.5:fp16:orin-dla)");
  cmd->callback([o, data, max_mb, &exit_code] {
    o->data_dir = *data;
    o->max_upload_bytes = *max_mb * 1000 * 1000;
    store_call([&] { serve::run_server(*o); });
    exit_code = kExitOk;
  });
}

void add_admin_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<AdminArgs>();
  CLI::App* cmd = app.add_subcommand("admin", "Accounts, projects and roles of a `trtlens serve` data folder");
  cmd->add_option("--data", a->data, "the server's --data folder")->required();
  cmd->add_option("--db", a->db, "the server's --db URL, if it uses PostgreSQL");
  cmd->require_subcommand(1);
  auto with_store = [a](auto&& f) {
    return [a, f] { store_call([&] { f(*store::Store::open(a->data, a->db)); }); };
  };
  auto* user = cmd->add_subcommand("user", "Create a user and print its first API token (shown once)");
  user->add_option("name", a->name, "user name")->required();
  user->add_flag("--admin", a->admin, "a site administrator (the admin page: users, projects, tokens, pins)");
  user->callback(with_store([a, &exit_code](store::Store& s) {
    s.create_user(a->name);
    if (a->admin) s.set_admin(a->name, true);
    fmt::print("{}\n", s.issue_token(a->name));
    exit_code = kExitOk;
  }));
  auto* token = cmd->add_subcommand("token", "Print a new API token for a user (shown once; older ones stay valid "
                                             "until revoked: admin tokens, admin revoke)");
  token->add_option("name", a->name, "user name")->required();
  token->callback(with_store([a, &exit_code](store::Store& s) {
    fmt::print("{}\n", s.issue_token(a->name));
    exit_code = kExitOk;
  }));
  auto* project = cmd->add_subcommand("project", "Create a project");
  project->add_option("name", a->project, "project name")->required();
  project->callback(with_store([a, &exit_code](store::Store& s) {
    s.create_project(a->project);
    exit_code = kExitOk;
  }));
  auto* grant = cmd->add_subcommand("grant", "Give a user a role on a project: read, write, or none");
  grant->add_option("user", a->name, "user name")->required();
  grant->add_option("project", a->project, "project name")->required();
  grant->add_option("role", a->role, "read, write or none")->required();
  grant->callback(with_store([a, &exit_code](store::Store& s) {
    s.grant(a->name, a->project, store::parse_role(a->role));
    exit_code = kExitOk;
  }));

  for (const bool promote : {true, false}) {
    auto* sub = cmd->add_subcommand(promote ? "promote" : "demote",
                                    promote ? "Make a user a site administrator (the dashboard's admin page and API)"
                                            : "Make a site administrator an ordinary user again");
    sub->add_option("user", a->name, "user name")->required();
    sub->callback(with_store([a, promote, &exit_code](store::Store& s) {
      s.set_admin(a->name, promote);
      exit_code = kExitOk;
    }));
  }
  auto* pins = cmd->add_subcommand("pins", "Show or set a project's pinned runtimes (its lists, reports and diffs); "
                                           "without pins, print them");
  pins->add_option("project", a->project, "project")->required();
  pins->add_option("pins", a->pins, "RELEASE:PRECISION[:TARGET] as serve --pin takes them (at most " +
                                        std::to_string(store::kMaxPins) + ")");
  pins->add_flag("--clear", a->clear, "use the server's --pin again");
  pins->callback(with_store([a, &exit_code](store::Store& s) {
    if (a->clear && !a->pins.empty()) throw UsageError("admin pins: give pins or --clear, not both");
    if (a->clear || !a->pins.empty()) s.set_project_pins(a->project, serve::canonical_pins(a->pins, "pins of " + a->project));
    const std::vector<std::string> now = s.project_pins(a->project);
    fmt::print("{}\n", now.empty() ? "- (the server's --pin)" : fmt::format("{}", fmt::join(now, " ")));
    exit_code = kExitOk;
  }));

  auto* users = cmd->add_subcommand("users", "List users: tokens and roles");
  users->callback(with_store([&exit_code](store::Store& s) {
    fmt::print("user\ttokens\tcreated\troles\tadmin\n");
    for (const store::UserInfo& u : s.users()) {
      std::string grants;
      for (const auto& [p, r] : u.grants) grants += fmt::format("{}{}:{}", grants.empty() ? "" : ", ", p, store::role_name(r));
      fmt::print("{}\t{} token(s)\tsince {}\t{}\t{}\n", u.name, u.tokens, day(u.created_at), grants.empty() ? "-" : grants,
                 u.admin ? "admin" : "-");
    }
    exit_code = kExitOk;
  }));
  auto* projects = cmd->add_subcommand("projects", "List projects and their model counts");
  projects->callback(with_store([&exit_code](store::Store& s) {
    fmt::print("project\tmodels\tcreated\tpins\n");
    for (const store::ProjectInfo& p : s.projects())
      fmt::print("{}\t{} model(s)\tsince {}\tpins {}\n", p.name, p.models, day(p.created_at),
                 p.pins.empty() ? "- (the server's)" : fmt::format("{}", fmt::join(p.pins, " ")));
    exit_code = kExitOk;
  }));
  auto* tokens = cmd->add_subcommand("tokens", "List API tokens (id, user, last characters, issued, last used, "
                                               "revoked); never the tokens");
  tokens->add_option("user", a->name, "only this user's");
  tokens->callback(with_store([a, &exit_code](store::Store& s) {
    fmt::print("id\tuser\ttoken\tissued\tlast used\tstate\n");
    for (const store::TokenInfo& t : s.tokens(a->name))
      fmt::print("{}\t{}\t{}\t{}\tused {}\t{}\n", t.id, t.user, t.hint.empty() ? "-" : t.hint, day(t.created_at),
                 t.last_used_at ? day(t.last_used_at) : "never", t.revoked_at ? "revoked " + day(t.revoked_at) : "active");
    exit_code = kExitOk;
  }));
  auto* revoke = cmd->add_subcommand("revoke", "Revoke an API token by its id (admin tokens): it gets 401 from then on");
  revoke->add_option("id", a->token_id, "token id")->required();
  revoke->callback(with_store([a, &exit_code](store::Store& s) {
    s.revoke_token(a->token_id);
    exit_code = kExitOk;
  }));

  auto* del = cmd->add_subcommand("delete", "Delete a model, or one version of it, or one engine of a version; "
                                            "stored files no other version or engine names are removed");
  del->add_option("project", a->project, "project")->required();
  del->add_option("model", a->model, "model")->required();
  del->add_option("version", a->version, "version number (default: the whole model)");
  del->add_option("engine", a->engine, "engine number of that version (default: the whole version)");
  del->callback(with_store([a, &exit_code](store::Store& s) {
    const std::string model = a->project + "/" + a->model;
    if (a->engine > 0) {
      s.delete_engine(version_id_of(s, a->project, a->model, a->version), a->engine);
      fmt::print("deleted engine {} of {} version {}\n", a->engine, model, a->version);
    } else if (a->version > 0) {
      store::Store::Deleted d = s.delete_version(a->project, a->model, a->version);
      fmt::print("deleted {} version {} and its {} engine(s)\n", model, a->version, d.engines);
    } else {
      store::Store::Deleted d = s.delete_model(a->project, a->model);
      fmt::print("deleted model {}: {} version(s), {} engine(s)\n", model, d.versions, d.engines);
    }
    print_removed_after_delete(s.collect_garbage());
    exit_code = kExitOk;
  }));
  auto* rename = cmd->add_subcommand("rename", "Rename a model, or relabel an engine (with --version and --engine)");
  rename->add_option("project", a->project, "project")->required();
  rename->add_option("model", a->model, "model")->required();
  rename->add_option("new", a->text, "new model name, or the engine's new label")->required();
  rename->add_option("--version", a->version, "version of the engine to relabel");
  rename->add_option("--engine", a->engine, "engine to relabel");
  rename->callback(with_store([a, &exit_code](store::Store& s) {
    if (a->engine > 0) {
      const int64_t vid = version_id_of(s, a->project, a->model, a->version);
      std::string old_label;
      for (const store::Engine& e : s.engines(vid))
        if (e.number == a->engine) old_label = e.label;
      s.relabel_engine(vid, a->engine, a->text);
      fmt::print("relabelled engine {} of {}/{} version {}: \"{}\" → \"{}\"\n", a->engine, a->project, a->model,
                 a->version, old_label, a->text.substr(0, 200));
    } else {
      s.rename_model(a->project, a->model, a->text);
      fmt::print("renamed model {}/{} to {}/{} (its versions, engines and tags go with it)\n", a->project, a->model,
                 a->project, a->text);
    }
    exit_code = kExitOk;
  }));
  auto* describe = cmd->add_subcommand("describe", "Set a model's description (shown in the models list)");
  describe->add_option("project", a->project, "project")->required();
  describe->add_option("model", a->model, "model")->required();
  describe->add_option("text", a->text, "description (\"\" clears it)")->required();
  describe->callback(with_store([a, &exit_code](store::Store& s) {
    s.set_description(a->project, a->model, a->text);
    exit_code = kExitOk;
  }));
  auto* tag = cmd->add_subcommand("tag", "Point a tag (e.g. production) at a version; it moves from any other");
  tag->add_option("project", a->project, "project")->required();
  tag->add_option("model", a->model, "model")->required();
  tag->add_option("tag", a->tag, "tag name")->required();
  tag->add_option("version", a->version, "version number (omit with --remove)");
  tag->add_flag("--remove", a->remove, "remove the tag");
  tag->callback(with_store([a, &exit_code](store::Store& s) {
    if (a->remove)
      s.remove_tag(a->project, a->model, a->tag);
    else if (a->version <= 0)
      throw UsageError("admin tag: give the version number (or --remove)");
    else
      s.set_tag(a->project, a->model, a->tag, a->version);
    exit_code = kExitOk;
  }));
  auto* gc = cmd->add_subcommand("gc", "Remove stored files that no version, engine or cached analysis names");
  gc->add_option("--min-age", a->min_age_s, "seconds a file must have been stored (in-flight pushes and analyses "
                                            "store files before naming them)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  gc->callback(with_store([a, &exit_code](store::Store& s) {
    print_removed(s.collect_garbage(std::chrono::seconds(a->min_age_s), std::chrono::seconds(a->min_age_s)));
    exit_code = kExitOk;
  }));
}

}  // namespace trtlens::cli
