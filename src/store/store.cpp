// Store over the Db seam: the domain rules of store.h in one set of SQL
// statements that SQLite and PostgreSQL both run.
#include "store/store.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <mutex>
#include <type_traits>

#include "store/db.h"
#include "store/hash.h"
#include "util/utf8.h"

namespace trtlens::store {

namespace fs = std::filesystem;
using Kind = StoreError::Kind;

std::string_view role_name(Role r) {
  switch (r) {
    case Role::Read: return "read";
    case Role::Write: return "write";
    case Role::None: break;
  }
  return "none";
}

Role parse_role(std::string_view text) {
  for (Role r : {Role::None, Role::Read, Role::Write})
    if (text == role_name(r)) return r;
  throw StoreError(Kind::Invalid, "unknown role '" + std::string(text.substr(0, 64)) + "' (none, read, write)");
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      return false;
  return true;
}

std::string tag_problem(std::string_view tag) {
  if (!valid_name(tag))
    return "invalid tag '" + std::string(tag.substr(0, 80)) + "' (1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.')";
  if (tag.find_first_not_of("0123456789") == std::string_view::npos)
    return "tag '" + std::string(tag) + "' is a number: it would read as version " + std::string(tag) +
           " (use a name, e.g. v" + std::string(tag) + ")";
  return "";
}

bool valid_tag(std::string_view tag) { return tag_problem(tag).empty(); }

std::string_view status_name(Analysis::Status s) {
  switch (s) {
    case Analysis::Status::Queued: return "queued";
    case Analysis::Status::Running: return "running";
    case Analysis::Status::Done: return "done";
    case Analysis::Status::Failed: return "failed";
  }
  return "queued";
}

const std::string& Row::text(size_t i) const {
  if (i >= cells.size() || !cells[i]) throw StoreError(Kind::Backend, "database: unexpected NULL");
  return *cells[i];
}

int64_t Row::integer(size_t i) const {
  const std::string& t = text(i);
  try {
    size_t used = 0;
    int64_t v = std::stoll(t, &used);
    if (used == t.size()) return v;
  } catch (const std::exception&) {
  }
  throw StoreError(Kind::Backend, "database: '" + t.substr(0, 40) + "' is not an integer");
}

namespace {

// The row found by a hash lookup really holds that hash (compared in constant time).
bool same_hash(const std::string& stored, const std::string& hash) { return same_secret(stored, hash); }

// A session's CSRF token: the cookie value's BLAKE2b under this fixed key, so that
// it differs from the hash the sessions table keeps and cannot be had from it;
// every server process derives the same token, and the table holds none.
constexpr std::string_view kCsrfKey = "trtlens session csrf token, v1";
std::string csrf_token(const std::string& cookie_value) { return blake2b_keyed_hex(cookie_value, kCsrfKey); }

// How many times a transaction that hit a transient failure is run (SQLite has already
// waited its busy timeout before reporting one).
constexpr int kRetries = 5;
// Longest cache key stored as it is, and longest knowledge-base fingerprint (bytes).
constexpr size_t kMaxKeyBytes = 256;

// Schema migrations: entry i brings the schema from version i to i+1. "{id}" is
// the dialect's autoincrement key. Hashes are lowercase hex text in both dialects.
const std::vector<std::vector<std::string>>& migrations() {
  static const std::vector<std::vector<std::string>> m = {{
      "CREATE TABLE users (id {id}, name TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL)",
      "CREATE TABLE tokens (id {id}, user_id BIGINT NOT NULL REFERENCES users(id), hash TEXT NOT NULL UNIQUE,"
      " created_at BIGINT NOT NULL)",
      "CREATE TABLE projects (id {id}, name TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL)",
      "CREATE TABLE grants (user_id BIGINT NOT NULL REFERENCES users(id),"
      " project_id BIGINT NOT NULL REFERENCES projects(id), role INTEGER NOT NULL, PRIMARY KEY (user_id, project_id))",
      "CREATE TABLE sessions (hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),"
      " csrf TEXT NOT NULL, expires_at BIGINT NOT NULL)",
      // last_number: the row lock that numbers versions (UPDATE ... RETURNING).
      "CREATE TABLE models (id {id}, project_id BIGINT NOT NULL REFERENCES projects(id), name TEXT NOT NULL,"
      " last_number INTEGER NOT NULL DEFAULT 0, created_at BIGINT NOT NULL, UNIQUE (project_id, name))",
      "CREATE TABLE versions (id {id}, model_id BIGINT NOT NULL REFERENCES models(id), number INTEGER NOT NULL,"
      " tree_hash TEXT NOT NULL, main_file TEXT NOT NULL, size_bytes BIGINT NOT NULL, opsets TEXT NOT NULL,"
      " created_at BIGINT NOT NULL, created_by BIGINT NOT NULL REFERENCES users(id),"
      " last_engine INTEGER NOT NULL DEFAULT 0, UNIQUE (model_id, number))",
      "CREATE TABLE engines (id {id}, version_id BIGINT NOT NULL REFERENCES versions(id), number INTEGER NOT NULL,"
      " label TEXT NOT NULL, tree_hash TEXT NOT NULL, prefix TEXT NOT NULL, created_at BIGINT NOT NULL,"
      " created_by BIGINT NOT NULL REFERENCES users(id), UNIQUE (version_id, number))",
      "CREATE TABLE analyses (cache_key TEXT NOT NULL, kb TEXT NOT NULL, status TEXT NOT NULL,"
      " progress INTEGER NOT NULL, message TEXT NOT NULL, result_hash TEXT NOT NULL, updated_at BIGINT NOT NULL,"
      " PRIMARY KEY (cache_key, kb))",
  }, {
      // Sessions without their CSRF token in clear (it is derived from the cookie now):
      // the sessions of schema 1 end, their users sign in again.
      "DROP TABLE sessions",
      "CREATE TABLE sessions (hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),"
      " expires_at BIGINT NOT NULL)",
  }, {
      // Administration and what a push records (issue 22): token hints for listing, the git
      // commit and branch of a version, model descriptions, tags, and the release an engine
      // is judged against. Existing rows get empty values.
      "ALTER TABLE tokens ADD COLUMN hint TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE versions ADD COLUMN git_sha TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE versions ADD COLUMN git_branch TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE versions ADD COLUMN io TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE models ADD COLUMN description TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE engines ADD COLUMN trt_release TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE engines ADD COLUMN trt_release_source TEXT NOT NULL DEFAULT ''",
      "CREATE TABLE tags (model_id BIGINT NOT NULL REFERENCES models(id), name TEXT NOT NULL,"
      " version_id BIGINT NOT NULL REFERENCES versions(id), PRIMARY KEY (model_id, name))",
  }, {
      // Site administrators, tokens revoked (kept, listed as revoked) and last used, the token
      // a session signed in with (revoking it ends the session), per-project pins (issue 22).
      // Sessions of schema 3 do not know their token, so no revocation could end them: they
      // end now, their users sign in again once.
      "ALTER TABLE users ADD COLUMN admin INTEGER NOT NULL DEFAULT 0",
      "ALTER TABLE tokens ADD COLUMN last_used_at BIGINT NOT NULL DEFAULT 0",
      "ALTER TABLE tokens ADD COLUMN revoked_at BIGINT NOT NULL DEFAULT 0",
      "DELETE FROM sessions",
      "ALTER TABLE sessions ADD COLUMN token_id BIGINT NOT NULL DEFAULT 0",
      "ALTER TABLE projects ADD COLUMN pins TEXT NOT NULL DEFAULT ''",
  }};
  return m;
}

int64_t now() { return static_cast<int64_t>(::time(nullptr)); }

Analysis::Status parse_status(const std::string& s) {
  for (auto st : {Analysis::Status::Queued, Analysis::Status::Running, Analysis::Status::Done,
                  Analysis::Status::Failed})
    if (s == status_name(st)) return st;
  throw StoreError(Kind::Backend, "database: unknown analysis status '" + s.substr(0, 40) + "'");
}

// A token's last use is written at most this often (a write per request would serialise readers).
constexpr int64_t kLastUsedEverySeconds = 60;

// Tokens: "trt_" + 64 hex digits.
bool token_shape(const std::string& token) {
  return token.size() == 68 && token.compare(0, 4, "trt_") == 0 && is_digest_hex(std::string_view(token).substr(4));
}

// The columns every version query selects, in Version order, and where they come from.
const std::string kVersionSelect =
    "SELECT v.id, p.name, m.name, v.number, v.tree_hash, v.main_file, v.size_bytes, v.opsets, v.created_at, u.name,"
    " v.git_sha, v.git_branch, v.io";
constexpr size_t kVersionColumns = 13;
const std::string kVersionFrom =
    " FROM versions v JOIN models m ON m.id = v.model_id JOIN projects p ON p.id = m.project_id"
    " JOIN users u ON u.id = v.created_by ";

Version version_of(const Row& r) {
  Version v;
  v.id = r.integer(0);
  v.project = r.text(1);
  v.model = r.text(2);
  v.number = static_cast<int>(r.integer(3));
  v.tree_hash = r.text(4);
  v.main_file = r.text(5);
  v.size_bytes = static_cast<uint64_t>(r.integer(6));
  v.opsets = r.text(7);
  v.created_at = r.integer(8);
  v.created_by = r.text(9);
  v.git_sha = r.text(10);
  v.git_branch = r.text(11);
  v.io = r.text(12);
  return v;
}

const std::string kEngineColumns =
    "SELECT e.id, e.version_id, e.number, e.label, e.tree_hash, e.prefix, e.created_at, u.name, e.trt_release,"
    " e.trt_release_source FROM engines e JOIN users u ON u.id = e.created_by ";

Engine engine_of(const Row& r) {
  Engine e;
  e.id = r.integer(0);
  e.version_id = r.integer(1);
  e.number = static_cast<int>(r.integer(2));
  e.label = r.text(3);
  e.tree_hash = r.text(4);
  e.prefix = r.text(5);
  e.created_at = r.integer(6);
  e.created_by = r.text(7);
  e.release = r.text(8);
  e.release_source = r.text(9);
  return e;
}

// Text shown to people (labels, opsets, messages): repaired, so both databases store the same
// thing (PostgreSQL refuses invalid UTF-8; libpq would cut a string at NUL).
std::string display_text(const std::string& text) {
  std::string out = to_valid_utf8(text), nul;
  for (char c : out) c == '\0' ? nul += "\xEF\xBF\xBD" : nul += c;
  return nul;
}

// Text that names something (a path in a tree, a cache key): refused unless stored exactly.
void check_exact_text(const std::string& what, const std::string& text) {
  if (text.find('\0') != std::string::npos || to_valid_utf8(text) != text)
    throw StoreError(Kind::Invalid, what + " is not valid UTF-8 text");
}

// A pin as the store keeps it: RELEASE:PRECISION[:TARGET] in 1..64 of [A-Za-z0-9._:-].
bool pin_shape(const std::string& pin) {
  if (pin.empty() || pin.size() > 64) return false;
  for (char c : pin)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-' || c == ':'))
      return false;
  return true;
}

// The pins column: pins separated by single spaces ("" = none).
std::vector<std::string> split_pins(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

void check_name(const std::string& what, const std::string& name) {
  if (!valid_name(name))
    throw StoreError(Kind::Invalid, "invalid " + what + " name '" + name.substr(0, 80) +
                                        "' (1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.')");
}

class SqlStore : public Store {
 public:
  SqlStore(const fs::path& data_dir, std::unique_ptr<Db> db) : db_(std::move(db)), objects_(data_dir) {
    migrate();
  }

  ObjectStore& objects() override { return objects_; }

  User create_user(const std::string& name) override {
    check_name("user", name);
    return tx(true, [&] {
      auto rows = db_->query("INSERT INTO users (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING"
                             " RETURNING id",
                             {name, now()});
      if (rows.empty()) throw StoreError(Kind::Conflict, "user " + name + " already exists");
      return User{rows[0].integer(0), name};
    });
  }

  std::string issue_token(const std::string& user_name) override {
    std::string token = "trt_" + random_hex(32);
    std::string hash = blake2b_hex(token);
    tx(true, [&] {
      int64_t uid = user_id(user_name);
      db_->exec("INSERT INTO tokens (user_id, hash, created_at, hint) VALUES (?, ?, ?, ?)",
                {uid, hash, now(), "…" + token.substr(token.size() - 4)});
    });
    return token;
  }

  bool token_revoked(const std::string& token) override {
    if (!token_shape(token)) return false;
    std::string hash = blake2b_hex(token);
    return tx(false, [&] {
      auto rows = db_->query("SELECT hash FROM tokens WHERE hash = ? AND revoked_at <> 0", {hash});
      return !rows.empty() && same_hash(rows[0].text(0), hash);
    });
  }

  std::optional<User> user_for_token(const std::string& token) override {
    if (!token_shape(token)) return std::nullopt;
    std::string hash = blake2b_hex(token);
    const int64_t t = now();
    int64_t last_used = 0;
    auto user = tx(false, [&]() -> std::optional<User> {
      auto rows = db_->query("SELECT u.id, u.name, t.hash, u.admin, t.id, t.last_used_at FROM tokens t"
                             " JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND t.revoked_at = 0",
                             {hash});
      if (rows.empty() || !same_hash(rows[0].text(2), hash)) return std::nullopt;
      last_used = rows[0].integer(5);
      return User{rows[0].integer(0), rows[0].text(1), rows[0].integer(3) != 0, rows[0].integer(4)};
    });
    if (user && last_used <= t - kLastUsedEverySeconds) {
      // Best effort: a store that cannot write (disk full) still signs the caller in.
      try {
        tx(true, [&] {
          db_->exec("UPDATE tokens SET last_used_at = ? WHERE id = ? AND last_used_at <= ?",
                    {t, user->token_id, t - kLastUsedEverySeconds});
        });
      } catch (const StoreError&) {
      }
    }
    return user;
  }

  void set_admin(const std::string& user_name, bool admin) override {
    tx(true, [&] { db_->exec("UPDATE users SET admin = ? WHERE id = ?", {int64_t{admin ? 1 : 0}, user_id(user_name)}); });
  }

  void create_project(const std::string& name) override {
    check_name("project", name);
    tx(true, [&] {
      if (db_->exec("INSERT INTO projects (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                    {name, now()}) == 0)
        throw StoreError(Kind::Conflict, "project " + name + " already exists");
    });
  }

  void grant(const std::string& user_name, const std::string& project, Role role) override {
    tx(true, [&] {
      int64_t uid = user_id(user_name), pid = project_id(project);
      if (role == Role::None) {
        db_->exec("DELETE FROM grants WHERE user_id = ? AND project_id = ?", {uid, pid});
      } else {
        db_->exec("INSERT INTO grants (user_id, project_id, role) VALUES (?, ?, ?)"
                  " ON CONFLICT (user_id, project_id) DO UPDATE SET role = excluded.role",
                  {uid, pid, static_cast<int64_t>(role)});
      }
    });
  }

  Role role(int64_t user_id, const std::string& project) override {
    return tx(false, [&] {
      auto rows = db_->query("SELECT g.role FROM grants g JOIN projects p ON p.id = g.project_id"
                             " WHERE g.user_id = ? AND p.name = ?",
                             {user_id, project});
      if (rows.empty()) return Role::None;
      int64_t r = rows[0].integer(0);
      return r >= static_cast<int64_t>(Role::Write) ? Role::Write : r >= 1 ? Role::Read : Role::None;
    });
  }

  std::vector<std::string> projects_for(int64_t user_id) override {
    return tx(false, [&] {
      std::vector<std::string> out;
      for (const auto& r : db_->query("SELECT p.name FROM grants g JOIN projects p ON p.id = g.project_id"
                                      " WHERE g.user_id = ? AND g.role >= ? ORDER BY p.name",
                                      {user_id, static_cast<int64_t>(Role::Read)}))
        out.push_back(r.text(0));
      return out;
    });
  }

  std::string create_session(int64_t user_id, int64_t ttl_seconds, int64_t token_id) override {
    std::string cookie = random_hex(32);
    std::string hash = blake2b_hex(cookie);
    int64_t t = now();
    tx(true, [&] {
      if (db_->query("SELECT id FROM users WHERE id = ?", {user_id}).empty())
        throw StoreError(Kind::NotFound, "no user with id " + std::to_string(user_id));
      // Expired sessions are dropped as new ones are made, so the table stays small.
      db_->exec("DELETE FROM sessions WHERE expires_at <= ?", {t});
      db_->exec("INSERT INTO sessions (hash, user_id, expires_at, token_id) VALUES (?, ?, ?, ?)",
                {hash, user_id, t + std::max<int64_t>(ttl_seconds, 0), token_id});
    });
    return cookie;
  }

  std::optional<Session> session(const std::string& cookie_value) override {
    if (!is_digest_hex(cookie_value)) return std::nullopt;
    std::string hash = blake2b_hex(cookie_value);
    return tx(false, [&]() -> std::optional<Session> {
      auto rows = db_->query("SELECT s.user_id, u.name, s.hash, u.admin FROM sessions s JOIN users u ON u.id = s.user_id"
                             " WHERE s.hash = ? AND s.expires_at > ?",
                             {hash, now()});
      if (rows.empty() || !same_hash(rows[0].text(2), hash)) return std::nullopt;
      return Session{rows[0].integer(0), rows[0].text(1), rows[0].integer(3) != 0, csrf_token(cookie_value)};
    });
  }

  void end_session(const std::string& cookie_value) override {
    std::string hash = blake2b_hex(cookie_value);
    tx(true, [&] { db_->exec("DELETE FROM sessions WHERE hash = ?", {hash}); });
  }

  Version add_version(const std::string& project, const std::string& model, const NewVersion& nv,
                      int64_t user_id) override {
    check_name("model", model);
    if (!is_digest_hex(nv.tree_hash)) throw StoreError(Kind::Invalid, "invalid tree hash '" + nv.tree_hash.substr(0, 80) + "'");
    if (nv.main_file.empty()) throw StoreError(Kind::Invalid, "a version needs its main .onnx file");
    check_exact_text("the main file name", nv.main_file);
    if (nv.size_bytes > static_cast<uint64_t>(INT64_MAX))
      throw StoreError(Kind::Invalid, "version size " + std::to_string(nv.size_bytes) + " bytes is out of range");
    return tx(true, [&] {
      int64_t pid = project_id(project);
      auto users = db_->query("SELECT name FROM users WHERE id = ?", {user_id});
      if (users.empty()) throw StoreError(Kind::NotFound, "no user with id " + std::to_string(user_id));
      int64_t t = now();
      // A concurrent first push of the same model waits on this insert and then does nothing.
      db_->exec("INSERT INTO models (project_id, name, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT (project_id, name) DO NOTHING",
                {pid, model, t});
      // The update locks the model row until commit (PostgreSQL; SQLite holds the write
      // lock since BEGIN IMMEDIATE), so concurrent pushes take numbers one after another.
      auto m = db_->query("UPDATE models SET last_number = last_number + 1 WHERE project_id = ? AND name = ?"
                          " RETURNING id, last_number",
                          {pid, model});
      if (m.empty()) throw StoreError(Kind::Backend, "database: model " + model + " vanished while adding a version");
      Version v;
      v.project = project;
      v.model = model;
      v.number = static_cast<int>(m[0].integer(1));
      v.tree_hash = nv.tree_hash;
      v.main_file = nv.main_file;
      v.size_bytes = nv.size_bytes;
      v.opsets = display_text(nv.opsets);
      v.created_at = t;
      v.created_by = users[0].text(0);
      v.git_sha = display_text(nv.git_sha.substr(0, 200));
      v.git_branch = display_text(nv.git_branch.substr(0, 200));
      v.io = display_text(nv.io.substr(0, 4000));
      v.id = db_->query("INSERT INTO versions (model_id, number, tree_hash, main_file, size_bytes, opsets, created_at,"
                        " created_by, git_sha, git_branch, io) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                        {m[0].integer(0), static_cast<int64_t>(v.number), v.tree_hash, v.main_file,
                         static_cast<int64_t>(v.size_bytes), v.opsets, t, user_id, v.git_sha, v.git_branch, v.io})[0]
                 .integer(0);
      return v;
    });
  }

  std::vector<ModelSummary> models(const std::string& project) override {
    return tx(false, [&] {
      const int64_t pid = project_id(project);
      std::map<int64_t, std::vector<std::string>> tags;  // by version id, one query for the project
      std::map<std::string, std::vector<std::pair<std::string, int>>> model_tags;  // by model name
      for (const auto& r : db_->query("SELECT t.version_id, t.name, m.name, v.number FROM tags t"
                                      " JOIN models m ON m.id = t.model_id JOIN versions v ON v.id = t.version_id"
                                      " WHERE m.project_id = ? ORDER BY t.name",
                                      {pid})) {
        tags[r.integer(0)].push_back(r.text(1));
        model_tags[r.text(2)].emplace_back(r.text(1), static_cast<int>(r.integer(3)));
      }
      std::vector<ModelSummary> out;
      // The newest version is the highest number left (a deleted one leaves last_number behind).
      auto rows = db_->query(kVersionSelect + ", (SELECT COUNT(*) FROM versions c WHERE c.model_id = m.id), m.description" +
                                 kVersionFrom + "WHERE p.name = ? AND v.number = (SELECT MAX(c.number) FROM versions c"
                                                " WHERE c.model_id = m.id) ORDER BY m.name",
                             {project});
      for (const auto& r : rows) {
        ModelSummary s;
        s.latest = version_of(r);
        s.project = s.latest.project;
        s.name = s.latest.model;
        s.versions = static_cast<int>(r.integer(kVersionColumns));
        s.description = r.text(kVersionColumns + 1);
        if (auto it = tags.find(s.latest.id); it != tags.end()) s.latest.tags = it->second;
        if (auto it = model_tags.find(s.name); it != model_tags.end()) s.tags = it->second;
        out.push_back(std::move(s));
      }
      return out;
    });
  }

  std::vector<Version> versions(const std::string& project, const std::string& model, int64_t limit) override {
    return tx(false, [&] {
      int64_t pid = project_id(project);
      if (db_->query("SELECT id FROM models WHERE project_id = ? AND name = ?", {pid, model}).empty())
        throw StoreError(Kind::NotFound, "no model " + model.substr(0, 80) + " in project " + project);
      std::vector<Version> out;
      for (const auto& r : db_->query(kVersionSelect + kVersionFrom + "WHERE p.name = ? AND m.name = ?"
                                                                     " ORDER BY v.number DESC LIMIT ?",
                                      {project, model, std::max<int64_t>(limit, 0)}))
        out.push_back(version_of(r));
      // The model's tags in one query (a page lists 50 versions; a query each held the store's lock 50 times).
      std::map<int64_t, std::vector<std::string>> tags;
      for (const auto& r : db_->query("SELECT t.version_id, t.name FROM tags t JOIN models m ON m.id = t.model_id"
                                      " WHERE m.project_id = ? AND m.name = ? ORDER BY t.name",
                                      {pid, model}))
        tags[r.integer(0)].push_back(r.text(1));
      for (Version& v : out)
        if (auto it = tags.find(v.id); it != tags.end()) v.tags = it->second;
      return out;
    });
  }

  std::optional<Version> version(const std::string& project, const std::string& model, int number) override {
    return tx(false, [&]() -> std::optional<Version> {
      auto rows = db_->query(kVersionSelect + kVersionFrom + "WHERE p.name = ? AND m.name = ? AND v.number = ?",
                             {project, model, static_cast<int64_t>(number)});
      if (rows.empty()) return std::nullopt;
      Version v = version_of(rows[0]);
      v.tags = tags_of(v.id);
      return v;
    });
  }

  std::optional<Version> tagged_version(const std::string& project, const std::string& model,
                                        const std::string& tag) override {
    return tx(false, [&]() -> std::optional<Version> {
      auto rows = db_->query(kVersionSelect + kVersionFrom + "JOIN tags t ON t.version_id = v.id"
                                                             " WHERE p.name = ? AND m.name = ? AND t.name = ?",
                             {project, model, tag});
      if (rows.empty()) return std::nullopt;
      Version v = version_of(rows[0]);
      v.tags = tags_of(v.id);
      return v;
    });
  }

  Engine add_engine(int64_t version_id, const std::string& label, const std::string& tree_hash,
                    const std::string& prefix, int64_t user_id, const std::string& release,
                    const std::string& release_source) override {
    if (!is_digest_hex(tree_hash)) throw StoreError(Kind::Invalid, "invalid tree hash '" + tree_hash.substr(0, 80) + "'");
    check_exact_text("the engine prefix", prefix);
    return tx(true, [&] {
      auto users = db_->query("SELECT name FROM users WHERE id = ?", {user_id});
      if (users.empty()) throw StoreError(Kind::NotFound, "no user with id " + std::to_string(user_id));
      auto n = db_->query("UPDATE versions SET last_engine = last_engine + 1 WHERE id = ? RETURNING last_engine",
                          {version_id});
      if (n.empty()) throw StoreError(Kind::NotFound, "no model version with id " + std::to_string(version_id));
      Engine e;
      e.version_id = version_id;
      e.number = static_cast<int>(n[0].integer(0));
      e.label = display_text(label);
      e.tree_hash = tree_hash;
      e.prefix = prefix;
      e.created_at = now();
      e.created_by = users[0].text(0);
      e.release = display_text(release.substr(0, 64));
      e.release_source = display_text(release_source.substr(0, 400));
      e.id = db_->query("INSERT INTO engines (version_id, number, label, tree_hash, prefix, created_at, created_by,"
                        " trt_release, trt_release_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                        {version_id, static_cast<int64_t>(e.number), e.label, tree_hash, prefix, e.created_at, user_id,
                         e.release, e.release_source})[0]
                 .integer(0);
      return e;
    });
  }

  std::vector<Engine> engines(int64_t version_id) override {
    return tx(false, [&] {
      std::vector<Engine> out;
      for (const auto& r : db_->query(kEngineColumns + "WHERE e.version_id = ? ORDER BY e.number",
                                      {version_id}))
        out.push_back(engine_of(r));
      return out;
    });
  }

  std::vector<UserInfo> users() override {
    return tx(false, [&] {
      std::vector<UserInfo> out;
      for (const auto& r : db_->query("SELECT u.name, u.created_at, (SELECT COUNT(*) FROM tokens t WHERE t.user_id = u.id"
                                      " AND t.revoked_at = 0), u.id, u.admin FROM users u ORDER BY u.name")) {
        UserInfo info{r.text(0), r.integer(1), static_cast<int>(r.integer(2)), r.integer(4) != 0, {}};
        for (const auto& g : db_->query("SELECT p.name, g.role FROM grants g JOIN projects p ON p.id = g.project_id"
                                        " WHERE g.user_id = ? ORDER BY p.name",
                                        {r.integer(3)}))
          info.grants.emplace_back(g.text(0), g.integer(1) >= 2 ? Role::Write : Role::Read);
        out.push_back(std::move(info));
      }
      return out;
    });
  }

  std::vector<ProjectInfo> projects() override {
    return tx(false, [&] {
      std::vector<ProjectInfo> out;
      for (const auto& r : db_->query("SELECT p.name, p.created_at, (SELECT COUNT(*) FROM models m WHERE m.project_id = p.id),"
                                      " p.pins FROM projects p ORDER BY p.name"))
        out.push_back({r.text(0), r.integer(1), static_cast<int>(r.integer(2)), split_pins(r.text(3))});
      return out;
    });
  }

  std::vector<TokenInfo> tokens(const std::string& user_name) override {
    return tx(false, [&] {
      std::vector<TokenInfo> out;
      std::vector<Row> rows;
      const std::string sql = "SELECT t.id, u.name, t.hint, t.created_at, t.last_used_at, t.revoked_at FROM tokens t"
                              " JOIN users u ON u.id = t.user_id";
      if (user_name.empty())
        rows = db_->query(sql + " ORDER BY t.id");
      else
        rows = db_->query(sql + " WHERE t.user_id = ? ORDER BY t.id", {user_id(user_name)});
      for (const auto& r : rows)
        out.push_back({r.integer(0), r.text(1), r.text(2), r.integer(3), r.integer(4), r.integer(5)});
      return out;
    });
  }

  void revoke_token(int64_t id) override {
    tx(true, [&] {
      if (db_->exec("UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at = 0", {now(), id}) == 0) {
        if (db_->query("SELECT id FROM tokens WHERE id = ?", {id}).empty())
          throw StoreError(Kind::NotFound, "no token with id " + std::to_string(id));
        throw StoreError(Kind::Conflict, "token " + std::to_string(id) + " is revoked already");
      }
      db_->exec("DELETE FROM sessions WHERE token_id = ?", {id});
    });
  }

  void set_project_pins(const std::string& project, const std::vector<std::string>& pins) override {
    if (pins.size() > kMaxPins)
      throw StoreError(Kind::Invalid, std::to_string(pins.size()) + " pins; a project takes at most " + std::to_string(kMaxPins));
    std::string text;
    for (const std::string& p : pins) {
      if (!pin_shape(p)) throw StoreError(Kind::Invalid, "invalid pin '" + display_text(p.substr(0, 80)) + "'");
      text += (text.empty() ? "" : " ") + p;
    }
    tx(true, [&] { db_->exec("UPDATE projects SET pins = ? WHERE id = ?", {text, project_id(project)}); });
  }

  std::vector<std::string> project_pins(const std::string& project) override {
    return tx(false, [&] {
      auto rows = db_->query("SELECT pins FROM projects WHERE name = ?", {project});
      if (rows.empty()) throw StoreError(Kind::NotFound, "no project named " + project.substr(0, 80));
      return split_pins(rows[0].text(0));
    });
  }

  void set_description(const std::string& project, const std::string& model, const std::string& text) override {
    tx(true, [&] { db_->exec("UPDATE models SET description = ? WHERE id = ?", {display_text(text.substr(0, 4000)),
                                                                                  model_id(project, model)}); });
  }

  void rename_model(const std::string& project, const std::string& model, const std::string& new_name) override {
    check_name("model", new_name);
    tx(true, [&] {
      int64_t mid = model_id(project, model);
      if (!db_->query("SELECT id FROM models WHERE project_id = ? AND name = ?", {project_id(project), new_name}).empty())
        throw StoreError(Kind::Conflict, "project " + project + " already has a model " + new_name);
      db_->exec("UPDATE models SET name = ? WHERE id = ?", {new_name, mid});
    });
  }

  void set_tag(const std::string& project, const std::string& model, const std::string& tag, int number) override {
    if (std::string problem = tag_problem(tag); !problem.empty()) throw StoreError(Kind::Invalid, problem);
    tx(true, [&] {
      int64_t mid = model_id(project, model);
      auto v = db_->query("SELECT id FROM versions WHERE model_id = ? AND number = ?", {mid, static_cast<int64_t>(number)});
      if (v.empty()) throw StoreError(Kind::NotFound, project + "/" + model + " has no version " + std::to_string(number));
      db_->exec("INSERT INTO tags (model_id, name, version_id) VALUES (?, ?, ?)"
                " ON CONFLICT (model_id, name) DO UPDATE SET version_id = excluded.version_id",
                {mid, tag, v[0].integer(0)});
    });
  }

  void remove_tag(const std::string& project, const std::string& model, const std::string& tag) override {
    tx(true, [&] {
      if (db_->exec("DELETE FROM tags WHERE model_id = ? AND name = ?", {model_id(project, model), tag}) == 0)
        throw StoreError(Kind::NotFound, project + "/" + model + " has no tag " + tag.substr(0, 80));
    });
  }

  void relabel_engine(int64_t version_id, int number, const std::string& label) override {
    tx(true, [&] {
      if (db_->exec("UPDATE engines SET label = ? WHERE version_id = ? AND number = ?",
                    {display_text(label.substr(0, 200)), version_id, static_cast<int64_t>(number)}) == 0)
        throw StoreError(Kind::NotFound, "no engine " + std::to_string(number));
    });
  }

  Deleted delete_model(const std::string& project, const std::string& model) override {
    return tx(true, [&] {
      int64_t mid = model_id(project, model);
      Deleted out;
      db_->exec("DELETE FROM tags WHERE model_id = ?", {mid});
      out.engines = static_cast<int>(
          db_->exec("DELETE FROM engines WHERE version_id IN (SELECT id FROM versions WHERE model_id = ?)", {mid}));
      out.versions = static_cast<int>(db_->exec("DELETE FROM versions WHERE model_id = ?", {mid}));
      db_->exec("DELETE FROM models WHERE id = ?", {mid});
      return out;
    });
  }

  Deleted delete_version(const std::string& project, const std::string& model, int number) override {
    return tx(true, [&] {
      int64_t mid = model_id(project, model);
      auto v = db_->query("SELECT id FROM versions WHERE model_id = ? AND number = ?", {mid, static_cast<int64_t>(number)});
      if (v.empty()) throw StoreError(Kind::NotFound, project + "/" + model + " has no version " + std::to_string(number));
      int64_t vid = v[0].integer(0);
      Deleted out{1, 0};
      db_->exec("DELETE FROM tags WHERE version_id = ?", {vid});
      out.engines = static_cast<int>(db_->exec("DELETE FROM engines WHERE version_id = ?", {vid}));
      db_->exec("DELETE FROM versions WHERE id = ?", {vid});
      // A model without versions is gone too (its numbers start again at 1).
      if (db_->query("SELECT id FROM versions WHERE model_id = ?", {mid}).empty())
        db_->exec("DELETE FROM models WHERE id = ?", {mid});
      return out;
    });
  }

  void delete_engine(int64_t version_id, int number) override {
    tx(true, [&] {
      if (db_->exec("DELETE FROM engines WHERE version_id = ? AND number = ?", {version_id, static_cast<int64_t>(number)}) == 0)
        throw StoreError(Kind::NotFound, "no engine " + std::to_string(number));
    });
  }

  std::pair<int, int> collect_garbage(std::chrono::seconds tree_min_age, std::chrono::seconds blob_min_age) override {
    // Mark: trees named by a version or an engine; results of cached analyses and the
    // blobs they name. Analyses keyed by a tree no row names any more are dropped first.
    std::vector<std::string> trees, blobs;
    tx(true, [&] {
      for (const auto& r : db_->query("SELECT tree_hash FROM versions UNION SELECT tree_hash FROM engines"))
        trees.push_back(r.text(0));
      std::sort(trees.begin(), trees.end());
      for (const auto& r : db_->query("SELECT cache_key, kb FROM analyses")) {
        const std::string& key = r.text(0);
        // "<tree>/<main>?pins=<pins>" or "engine:<engine tree>[@<release>]+<tree>/<main>" (the
        // server's keys, analyzer.cpp); hashed long keys are kept.
        std::vector<std::string> named;
        if (key.rfind("engine:", 0) == 0) {
          named.push_back(key.substr(7, 64));
          if (size_t plus = key.find('+', 7 + 64); plus != std::string::npos) named.push_back(key.substr(plus + 1, 64));
        } else if (key.rfind("blake2b:", 0) != 0) {
          named.push_back(key.substr(0, 64));
        }
        for (const std::string& t : named)
          if (is_digest_hex(t) && !std::binary_search(trees.begin(), trees.end(), t)) {
            db_->exec("DELETE FROM analyses WHERE cache_key = ? AND kb = ?", {key, r.text(1)});
            break;
          }
      }
      for (const auto& r : db_->query("SELECT result_hash FROM analyses WHERE result_hash <> ''"))
        blobs.push_back(r.text(0));
    });
    // A result names its page, checks and diff rows: every digest-shaped string in it.
    const size_t results = blobs.size();
    for (size_t i = 0; i < results; ++i) {
      std::string doc;
      try {
        doc = objects_.get_blob(blobs[i]);
      } catch (const StoreError&) {
        continue;
      }
      for (size_t q = doc.find('"'); q != std::string::npos; q = doc.find('"', q + 1)) {
        std::string_view word(doc.data() + q + 1, std::min<size_t>(64, doc.size() - q - 1));
        if (word.size() == 64 && q + 65 < doc.size() && doc[q + 65] == '"' && is_digest_hex(word)) {
          blobs.emplace_back(word);
          q += 65;
        }
      }
    }
    return objects_.collect(trees, blobs, tree_min_age, blob_min_age);
  }

  std::optional<Analysis> analysis(const std::string& key, const std::string& kb) override {
    const std::string row = row_key(key, kb);
    return tx(false, [&]() -> std::optional<Analysis> {
      auto rows = db_->query("SELECT status, progress, message, result_hash FROM analyses WHERE cache_key = ? AND kb = ?",
                             {row, kb});
      if (rows.empty()) return std::nullopt;
      Analysis a;
      a.status = parse_status(rows[0].text(0));
      a.progress_percent = static_cast<int>(rows[0].integer(1));
      a.message = rows[0].text(2);
      a.result_hash = rows[0].text(3);
      return a;
    });
  }

  bool claim_analysis(const std::string& key, const std::string& kb, int64_t stale_seconds) override {
    const std::string row = row_key(key, kb);
    return tx(true, [&] {
      int64_t t = now();
      if (db_->exec("INSERT INTO analyses (cache_key, kb, status, progress, message, result_hash, updated_at)"
                    " VALUES (?, ?, 'queued', 0, '', '', ?) ON CONFLICT (cache_key, kb) DO NOTHING",
                    {row, kb, t}) > 0)
        return true;
      // One statement that re-checks the row it replaces: of two claimers, one wins.
      return db_->exec("UPDATE analyses SET status = 'queued', progress = 0, message = '', result_hash = '',"
                       " updated_at = ? WHERE cache_key = ? AND kb = ? AND (status = 'failed'"
                       " OR (status IN ('queued', 'running') AND updated_at <= ?))",
                       {t, row, kb, t - std::clamp<int64_t>(stale_seconds, 0, t)}) > 0;
    });
  }

  void update_analysis(const std::string& key, const std::string& kb, const Analysis& a) override {
    const std::string row = row_key(key, kb);
    if (!a.result_hash.empty() && !is_digest_hex(a.result_hash))
      throw StoreError(Kind::Invalid, "invalid result hash '" + a.result_hash.substr(0, 80) + "'");
    tx(true, [&] {
      db_->exec("INSERT INTO analyses (cache_key, kb, status, progress, message, result_hash, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (cache_key, kb) DO UPDATE SET status = excluded.status,"
                " progress = excluded.progress, message = excluded.message, result_hash = excluded.result_hash,"
                " updated_at = excluded.updated_at",
                {row, kb, std::string(status_name(a.status)), static_cast<int64_t>(std::clamp(a.progress_percent, 0, 100)),
                 display_text(a.message), a.result_hash, now()});
    });
  }

 private:
  // Runs `f` in one transaction under the connection mutex; runs it again after a
  // transient failure (busy database, serialization failure).
  template <typename F>
  auto tx(bool write, F&& f) -> decltype(f()) {
    std::lock_guard lock(mutex_);
    for (int attempt = 1;; ++attempt) {
      try {
        db_->begin(write);
        if constexpr (std::is_void_v<decltype(f())>) {
          f();
          db_->commit();
          return;
        } else {
          auto result = f();
          db_->commit();
          return result;
        }
      } catch (const DbRetry&) {
        db_->rollback();
        if (attempt >= kRetries) throw;
      } catch (...) {
        db_->rollback();
        throw;
      }
    }
  }

  void migrate() {
    tx(true, [&] {
      db_->lock_schema();
      db_->exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
      auto rows = db_->query("SELECT version FROM schema_version");
      int64_t current = rows.empty() ? 0 : rows[0].integer(0);
      int64_t latest = static_cast<int64_t>(migrations().size());
      if (current > latest)
        throw StoreError(Kind::Backend, "database schema version " + std::to_string(current) +
                                            " is newer than this trtlens understands (" + std::to_string(latest) + ")");
      for (int64_t v = current; v < latest; ++v)
        for (std::string sql : migrations()[static_cast<size_t>(v)]) {
          for (size_t p = sql.find("{id}"); p != std::string::npos; p = sql.find("{id}", p))
            sql.replace(p, 4, db_->id_column());
          db_->exec(sql);
        }
      if (rows.empty())
        db_->exec("INSERT INTO schema_version (version) VALUES (?)", {latest});
      else if (current != latest)
        db_->exec("UPDATE schema_version SET version = ?", {latest});
    });
  }

  int64_t user_id(const std::string& name) {
    auto rows = db_->query("SELECT id FROM users WHERE name = ?", {name});
    if (rows.empty()) throw StoreError(Kind::NotFound, "no user named " + name.substr(0, 80));
    return rows[0].integer(0);
  }

  int64_t model_id(const std::string& project, const std::string& model) {
    auto rows = db_->query("SELECT id FROM models WHERE project_id = ? AND name = ?", {project_id(project), model});
    if (rows.empty()) throw StoreError(Kind::NotFound, "no model " + model.substr(0, 80) + " in project " + project);
    return rows[0].integer(0);
  }

  std::vector<std::string> tags_of(int64_t version_id) {
    std::vector<std::string> out;
    for (const auto& r : db_->query("SELECT name FROM tags WHERE version_id = ? ORDER BY name", {version_id}))
      out.push_back(r.text(0));
    return out;
  }

  int64_t project_id(const std::string& name) {
    auto rows = db_->query("SELECT id FROM projects WHERE name = ?", {name});
    if (rows.empty()) throw StoreError(Kind::NotFound, "no project named " + name.substr(0, 80));
    return rows[0].integer(0);
  }

  // The cache_key column of `key`: the key itself up to kMaxKeyBytes, else
  // "blake2b:" and its hash, so a key built from a long path in an upload stays
  // bounded (the server's own keys never start with "blake2b:").
  static std::string row_key(const std::string& key, const std::string& kb) {
    if (key.empty() || kb.empty() || kb.size() > kMaxKeyBytes)
      throw StoreError(Kind::Invalid, "an analysis key is not empty; a knowledge-base fingerprint is 1 to 256 bytes");
    check_exact_text("the analysis key", key);
    check_exact_text("the knowledge-base fingerprint", kb);
    return key.size() <= kMaxKeyBytes ? key : "blake2b:" + blake2b_hex(key);
  }

  std::mutex mutex_;
  std::unique_ptr<Db> db_;
  ObjectStore objects_;
};

}  // namespace

std::unique_ptr<Store> Store::open(const fs::path& data_dir, const std::string& db_url) {
  init_sodium();
  std::error_code ec;
  // A new data folder is the server's alone (0700, whatever the umask); an existing one keeps its mode.
  if (!fs::exists(data_dir, ec) && fs::create_directories(data_dir, ec) && !ec)
    fs::permissions(data_dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec || !fs::is_directory(data_dir))
    throw StoreError(Kind::Backend, data_dir.string() + ": cannot use as the data folder: " +
                                        (ec ? ec.message() : std::string("not a folder")));
  std::unique_ptr<Db> db;
  std::string where;
  if (db_url.empty()) {
    where = (data_dir / "trtlens.db").string();
    db = open_sqlite(where);
  } else if (db_url.rfind("postgresql://", 0) == 0 || db_url.rfind("postgres://", 0) == 0) {
    where = redact_url(db_url);
    db = open_postgres(db_url);
  } else {
    throw StoreError(Kind::Backend, redact_url(db_url) + ": not a database URL (postgresql://...)");
  }
  std::unique_ptr<SqlStore> store;
  try {
    store = std::make_unique<SqlStore>(data_dir, std::move(db));
  } catch (const StoreError& e) {
    // Messages from the seam and the object store already name their database or folder.
    std::string msg = e.what();
    if (msg.rfind(where, 0) != 0 && msg.rfind(data_dir.string(), 0) != 0) msg = where + ": " + msg;
    throw StoreError(Kind::Backend, msg);
  }
  store->objects().remove_stale_temp(std::chrono::hours(1));
  return store;
}

}  // namespace trtlens::store
