// `trtlens serve`: the dashboard server; `trtlens admin`: its accounts and
// projects (run on the server's machine, against the same data folder or database).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

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
  std::string data, db, name, project, role;
};

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
  cmd->add_option("--pin", o->pins, "RELEASE:PRECISION whose converts yes/no the model lists show (repeatable; "
                                    "default: fp16 on the newest release of each of the three newest majors)");
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
  user->callback(with_store([a, &exit_code](store::Store& s) {
    s.create_user(a->name);
    fmt::print("{}\n", s.issue_token(a->name));
    exit_code = kExitOk;
  }));
  auto* token = cmd->add_subcommand("token", "Print a new API token for a user (shown once; older ones stay valid)");
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
}

}  // namespace trtlens::cli
