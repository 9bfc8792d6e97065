// Db over libsqlite3: one connection in WAL mode, so readers in other
// processes never block on a writer and writers queue on the busy timeout.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/db.h"

namespace trtlens::store {

namespace {

// How long a writer waits for another process's write lock before giving up (ms).
constexpr int kBusyTimeoutMs = 30000;

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
      fail();
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(const Params& params) {
    for (size_t i = 0; i < params.size(); ++i) {
      int at = static_cast<int>(i) + 1, rc = SQLITE_OK;
      if (auto* n = std::get_if<int64_t>(&params[i]))
        rc = sqlite3_bind_int64(stmt_, at, *n);
      else if (auto* s = std::get_if<std::string>(&params[i]))
        rc = sqlite3_bind_text(stmt_, at, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      else
        rc = sqlite3_bind_null(stmt_, at);
      if (rc != SQLITE_OK) fail();
    }
  }

  // Steps once: true while a row is ready.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail();
  }

  Row row() const {
    Row r;
    int n = sqlite3_column_count(stmt_);
    for (int i = 0; i < n; ++i) {
      if (sqlite3_column_type(stmt_, i) == SQLITE_NULL) {
        r.cells.emplace_back(std::nullopt);
      } else {
        auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i));
        r.cells.emplace_back(std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, i))));
      }
    }
    return r;
  }

  [[noreturn]] void fail() const {
    int code = sqlite3_extended_errcode(db_);
    std::string msg = std::string("sqlite: ") + sqlite3_errmsg(db_);
    if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) throw DbRetry(msg);
    if (code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY) throw DbConflict(msg);
    throw StoreError(StoreError::Kind::Backend, msg);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteDb : public Db {
 public:
  explicit SqliteDb(const std::string& file) {
    create_private(file);
    int rc = sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
      std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw StoreError(StoreError::Kind::Backend, file + ": " + why);
    }
    try {
      sqlite3_busy_timeout(db_, kBusyTimeoutMs);
      query("PRAGMA journal_mode=WAL", {});
      exec("PRAGMA foreign_keys=ON", {});
    } catch (const StoreError& e) {
      sqlite3_close(db_);
      throw StoreError(StoreError::Kind::Backend, file + ": " + e.what());
    }
  }
  ~SqliteDb() override { sqlite3_close(db_); }

  int64_t exec(const std::string& sql, const Params& params) override {
    Statement st(db_, sql);
    st.bind(params);
    while (st.step()) {
    }
    return sqlite3_changes64(db_);
  }

  std::vector<Row> query(const std::string& sql, const Params& params) override {
    Statement st(db_, sql);
    st.bind(params);
    std::vector<Row> rows;
    while (st.step()) rows.push_back(st.row());
    return rows;
  }

  void begin(bool write) override { exec(write ? "BEGIN IMMEDIATE" : "BEGIN", {}); }
  void commit() override { exec("COMMIT", {}); }
  void rollback() noexcept override {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  const char* id_column() const override { return "INTEGER PRIMARY KEY"; }  // the rowid alias
  void lock_schema() override {}  // BEGIN IMMEDIATE already excludes other writers

 private:
  // A new database file is created here 0600 (whatever the umask) before SQLite
  // opens it: SQLite gives its -wal and -shm files the database file's mode.
  static void create_private(const std::string& file) {
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) return;  // an existing database keeps its mode
      throw StoreError(StoreError::Kind::Backend, file + ": cannot create: " + std::strerror(errno));
    }
    int rc = ::fchmod(fd, 0600), err = errno;
    ::close(fd);
    if (rc != 0) throw StoreError(StoreError::Kind::Backend, file + ": cannot set its mode: " + std::strerror(err));
  }

  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<Db> open_sqlite(const std::string& file) { return std::make_unique<SqliteDb>(file); }

}  // namespace trtlens::store
