// The SQL seam under Store (private to src/store): one connection, statements
// written once with `?` placeholders, run by SQLite or PostgreSQL.
//
// Every value comes back as text (SQLite converts integers, libpq sends text),
// so rows are vectors of optional strings; Row::integer parses.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "store/store.h"

namespace trtlens::store {

// A bound parameter: NULL, an integer or text.
using Param = std::variant<std::monostate, int64_t, std::string>;
using Params = std::vector<Param>;

struct Row {
  std::vector<std::optional<std::string>> cells;
  const std::string& text(size_t i) const;  // StoreError(Backend) on NULL
  int64_t integer(size_t i) const;          // StoreError(Backend) on NULL or not a number
};

// A transient failure (SQLite busy past its timeout, PostgreSQL serialization
// failure or deadlock): the whole transaction may be run again.
struct DbRetry : StoreError {
  explicit DbRetry(const std::string& message) : StoreError(Kind::Backend, message) {}
};

// A unique constraint refused a row (kind Conflict, the database's message).
struct DbConflict : StoreError {
  explicit DbConflict(const std::string& message) : StoreError(Kind::Conflict, message) {}
};

class Db {
 public:
  virtual ~Db() = default;
  // Runs a statement; returns the number of rows it inserted, updated or deleted.
  virtual int64_t exec(const std::string& sql, const Params& params = {}) = 0;
  virtual std::vector<Row> query(const std::string& sql, const Params& params = {}) = 0;

  // `write`: the transaction will write. SQLite takes the write lock at once
  // (BEGIN IMMEDIATE) so read-then-write sequences never deadlock across processes.
  virtual void begin(bool write) = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;

  // Column type of an autoincrement primary key (the one dialect difference in the schema).
  virtual const char* id_column() const = 0;
  // Serializes schema migration between processes (inside the open transaction).
  virtual void lock_schema() = 0;
};

// `file`: the SQLite database file (WAL, busy timeout, foreign keys on).
std::unique_ptr<Db> open_sqlite(const std::string& file);
// `url`: a libpq connection URL. Errors name the URL without its password.
std::unique_ptr<Db> open_postgres(const std::string& url);

// `url` with any password (user:PASSWORD@ or password=...) replaced by "***".
std::string redact_url(const std::string& url);

}  // namespace trtlens::store
