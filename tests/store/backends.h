// The databases the store suite runs on: SQLite in the data folder, and a real
// PostgreSQL server the test starts itself (skipped when none is installed).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "store/store.h"

namespace trtlens::store::test {

// A fresh, empty folder for one test under the build tree.
std::filesystem::path fresh_dir(const std::string& name);

// Every byte of the regular files under `dirs` (to check what reached the disk).
std::string all_bytes_under(const std::vector<std::filesystem::path>& dirs);

// The default: DATA/trtlens.db.
// Runs `f` and returns the kind of StoreError it threw (fails the test when it throws none).
StoreError::Kind error_kind(const std::function<void()>& f);

struct SqliteBackend {
  static std::vector<std::filesystem::path> storage(const std::filesystem::path& data_dir) { return {data_dir}; }
};

// One server per test process (initdb and start cost a second or two), listening
// only on a unix socket in its own temporary folder; a new database per test.
struct PostgresBackend {
  static void start();  // sets skip_reason() when PostgreSQL is not installed
  static void stop();   // pg_ctl stop -m immediate; also run at exit
  static std::string skip_reason();
  static std::string new_database();  // its URL
  static std::vector<std::filesystem::path> storage(const std::filesystem::path& data_dir);
};

}  // namespace trtlens::store::test
