#include "backends.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace trtlens::store::test {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(TRTLENS_TEST_TMP) / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

StoreError::Kind error_kind(const std::function<void()>& f) {
  try {
    f();
  } catch (const StoreError& e) {
    return e.kind;
  }
  ADD_FAILURE() << "no StoreError thrown";
  return StoreError::Kind::Backend;
}

std::string all_bytes_under(const std::vector<fs::path>& dirs) {
  std::string out;
  for (const auto& d : dirs)
    for (const auto& e : fs::recursive_directory_iterator(d, fs::directory_options::skip_permission_denied)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      out.append(std::istreambuf_iterator<char>(in), {});
    }
  return out;
}

namespace {

struct Server {
  std::string skip;  // why PostgreSQL tests are skipped, when they are
  fs::path bin;      // .../postgresql/N/bin
  fs::path dir;      // temporary: data/, the socket, logs
  std::string as_owner;  // "runuser -u postgres -- " when we are root (initdb refuses root)
  int port = 0;
  bool running = false;
  int databases = 0;
};

Server& server() {
  static Server s;
  return s;
}

// The newest installed PostgreSQL with initdb and pg_ctl, or empty.
fs::path find_bin() {
  fs::path best;
  int best_version = -1;
  std::error_code ec;
  for (fs::directory_iterator it("/usr/lib/postgresql", ec), end; !ec && it != end; it.increment(ec)) {
    fs::path bin = it->path() / "bin";
    if (!fs::exists(bin / "initdb") || !fs::exists(bin / "pg_ctl")) continue;
    int v = std::atoi(it->path().filename().c_str());
    if (v > best_version) best_version = v, best = bin;
  }
  return best;
}

int run(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string read_log(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

void PostgresBackend::start() {
  Server& s = server();
  if (s.running || !s.skip.empty()) return;
  s.bin = find_bin();
  if (s.bin.empty()) {
    s.skip = "no PostgreSQL server installed (/usr/lib/postgresql/*/bin/initdb)";
    return;
  }
  struct passwd* pw = nullptr;
  if (::geteuid() == 0) {
    pw = ::getpwnam("postgres");
    if (!pw) {
      s.skip = "running as root and there is no user postgres to run the server as";
      return;
    }
    s.as_owner = "runuser -u postgres -- ";
  }
  std::string tmpl = "/tmp/trtlens-pg-XXXXXX";  // short: a socket path is at most 107 bytes
  if (!::mkdtemp(tmpl.data())) {
    ADD_FAILURE() << "cannot create " << tmpl;
    s.skip = "no temporary folder";
    return;
  }
  s.dir = tmpl;
  if (pw && ::chown(s.dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
    ADD_FAILURE() << "cannot chown " << s.dir;
    s.skip = "cannot chown the temporary folder";
    return;
  }
  // The port only names the socket file inside our own folder (no TCP), so any number is free.
  s.port = 50000 + ::getpid() % 10000;
  std::string data = (s.dir / "data").string(), dir = s.dir.string();
  if (run(s.as_owner + (s.bin / "initdb").string() + " -D " + data +
          " -U postgres -A trust -E UTF8 --locale=C --no-sync >" + dir + "/initdb.log 2>&1") != 0) {
    ADD_FAILURE() << "initdb failed:\n" << read_log(s.dir / "initdb.log");
    s.skip = "initdb failed";
    return;
  }
  std::atexit([] { PostgresBackend::stop(); });  // a test that exits early still stops the server
  std::string opts = "-c listen_addresses='' -c unix_socket_directories=" + dir + " -p " + std::to_string(s.port) +
                     " -c fsync=off -c max_connections=40";
  if (run(s.as_owner + (s.bin / "pg_ctl").string() + " -D " + data + " -l " + dir + "/server.log -w -t 60 -o \"" +
          opts + "\" start >" + dir + "/pg_ctl.log 2>&1") != 0) {
    ADD_FAILURE() << "pg_ctl start failed:\n" << read_log(s.dir / "pg_ctl.log") << read_log(s.dir / "server.log");
    s.skip = "the server did not start";
    return;
  }
  s.running = true;
}

void PostgresBackend::stop() {
  Server& s = server();
  if (s.running) {
    run(s.as_owner + (s.bin / "pg_ctl").string() + " -D " + (s.dir / "data").string() +
        " -m immediate -w stop >/dev/null 2>&1");
    s.running = false;
  }
  if (!s.dir.empty()) {
    std::error_code ec;
    fs::remove_all(s.dir, ec);
    s.dir.clear();
  }
}

std::string PostgresBackend::skip_reason() { return server().skip; }

std::string PostgresBackend::new_database() {
  Server& s = server();
  std::string name = "t" + std::to_string(++s.databases);
  std::string cmd = (s.bin / "createdb").string() + " -h " + s.dir.string() + " -p " + std::to_string(s.port) +
                    " -U postgres " + name;
  if (run(cmd) != 0) throw std::runtime_error("createdb failed: " + cmd);
  return "postgresql://postgres@/" + name + "?host=" + s.dir.string() + "&port=" + std::to_string(s.port);
}

std::vector<fs::path> PostgresBackend::storage(const fs::path& data_dir) { return {data_dir, server().dir}; }

}  // namespace trtlens::store::test
