// `trtlens serve`: a self-hosted dashboard of tracked models (docs/serve.md).
// Teams push ONNX models; each push is a version, analysed once per knowledge
// base and shown as the `report` page, with version history, comparison of two
// versions and attached engines. JSON API under /api (OpenAPI at
// /api/openapi.json). Storage: src/store (SQLite by default, or PostgreSQL).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trtlens::serve {

struct ServeOptions {
  std::filesystem::path data_dir;  // created if absent: database, objects, temporary uploads
  std::string db_url;              // "" = SQLite in data_dir; "postgresql://..." = that server
  std::string host = "127.0.0.1";
  int port = 8080;                 // 0 = any free port (see port_file)
  std::string port_file;           // when set: the bound port is written here (atomically) once listening
  unsigned threads = 256;          // HTTP worker threads (each holds one keep-alive connection at a time)
  unsigned analysis_threads = 1;   // models analysed at once
  uint64_t max_upload_bytes = uint64_t{4} << 30;  // per request body, bytes; larger → 413
  // Runtimes whose converts yes/no the model lists show, "RELEASE:PRECISION[:TARGET]"
  // ("8.6:fp16"), for projects without pins of their own (Store::project_pins); at most
  // store::kMaxPins. Empty: fp16 on the newest release of each of the three newest majors.
  std::vector<std::string> pins;
};

// Pins as the server stores them: each "RELEASE:PRECISION[:TARGET]" of `specs` checked as
// --pin is (UsageError naming `what` otherwise) and spelled canonically ("8.6.1:FP16" ->
// "8.6:fp16"). For `trtlens admin pins`.
std::vector<std::string> canonical_pins(const std::vector<std::string>& specs, const std::string& what);

// Serves until SIGINT or SIGTERM, then finishes the requests in progress and
// returns. Throws UsageError (bad pin, port in use), store::StoreError (the
// database or data folder cannot be opened).
void run_server(const ServeOptions& options);

// Identifies the knowledge base and page code compiled into this binary (hex
// SHA-256 over the result schema, KnowledgeBase::fingerprint and the embedded web
// files): cached analyses are keyed by it, so a new trtlens re-analyses on first view.
const std::string& analysis_fingerprint();

}  // namespace trtlens::serve
