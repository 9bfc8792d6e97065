// The dashboard's storage (`trtlens serve`): metadata in SQL, files
// content-addressed on disk under the data folder.
//
// SQL: SQLite in WAL mode at DATA/trtlens.db by default; a "postgresql://..."
// URL uses PostgreSQL instead (libpq), so several `serve` processes behind a
// proxy share one database and one data folder. Both run the same statements.
//
// Thread safety: one Store is shared by every worker thread of a server; each
// call is atomic (its own transaction).
//
// Text: names follow valid_name; text that identifies something (main_file,
// engine prefix, analysis key and kb) must be valid UTF-8 without NUL
// (StoreError Invalid); text for people (opsets, label, analysis message) is
// stored repaired (invalid bytes and NUL become U+FFFD), the same on both databases.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace trtlens::store {

// A request the store refuses: unknown name, duplicate name, invalid name.
// `what()` is one line for people; `kind` lets the server pick the HTTP status.
struct StoreError : std::runtime_error {
  enum class Kind { NotFound, Conflict, Invalid, Backend };
  Kind kind;
  StoreError(Kind k, const std::string& message) : std::runtime_error(message), kind(k) {}
};

enum class Role { None = 0, Read = 1, Write = 2 };
std::string_view role_name(Role r);        // "none", "read", "write"
Role parse_role(std::string_view text);    // throws StoreError(Invalid)

// Names of users, projects and models: 1..64 characters of [A-Za-z0-9._-],
// not starting with '.' (they appear in URLs and folder names).
bool valid_name(std::string_view name);
// Tags: valid names that are not all digits (a version is addressed by its number or by a tag,
// so "12" could only ever mean version 12).
bool valid_tag(std::string_view tag);
// The one line that says why `tag` is refused ("" when valid_tag).
std::string tag_problem(std::string_view tag);

struct User {
  int64_t id = 0;
  std::string name;
  bool admin = false;    // a site administrator (admin promote): the admin page and API
  int64_t token_id = 0;  // the token it signed in with (user_for_token), else 0
};

// Pins a project may set (runtimes its lists, checks and diffs are stored at), at most.
inline constexpr size_t kMaxPins = 8;

// What `admin users` lists.
struct UserInfo {
  std::string name;
  int64_t created_at = 0;
  int tokens = 0;  // not revoked
  bool admin = false;
  std::vector<std::pair<std::string, Role>> grants;  // (project, role), by project
};

// An API token as `admin tokens` lists it: never the token, only its id and its last
// four characters (tokens issued before schema 3 have no hint).
struct TokenInfo {
  int64_t id = 0;
  std::string user;
  std::string hint;  // "…1a2b" or ""
  int64_t created_at = 0;
  // Unix seconds; 0 = never (or before schema 4). Recorded at most once a minute per token.
  int64_t last_used_at = 0;
  int64_t revoked_at = 0;  // 0 = valid
};

// What `admin projects` lists.
struct ProjectInfo {
  std::string name;
  int64_t created_at = 0;
  int models = 0;
  std::vector<std::string> pins;  // the project's own pins (set_project_pins); empty: the server's
};

// A browser session: created at sign-in (with a token), carried in a cookie.
struct Session {
  int64_t user_id = 0;
  std::string user_name;
  bool admin = false;  // the user is a site administrator
  // The token every form of this session posts back: derived from the cookie
  // value (keyed BLAKE2b), never stored; the same in every server process.
  std::string csrf;
};

// One pushed file tree of a model (a .onnx, or a folder with external data).
struct Version {
  int64_t id = 0;
  std::string project, model;
  int number = 0;             // 1, 2, ... per model
  std::string tree_hash;      // ObjectStore hash of the uploaded tree (hex SHA-256)
  std::string main_file;      // path of the .onnx inside the tree
  uint64_t size_bytes = 0;    // all files of the tree
  std::string opsets;         // e.g. "ai.onnx:17, com.microsoft:1"
  int64_t created_at = 0;     // Unix time, seconds
  std::string created_by;     // user name
  std::string git_sha, git_branch;  // as the push recorded them ("" when not given)
  std::string io;  // the main graph's inputs and outputs, "x FLOAT[1,3,224,224] -> y FLOAT[1,1000]" ("" before schema 3)
  std::vector<std::string> tags;    // tags naming this version (by name); filled by version() and versions()
};

struct NewVersion {
  std::string tree_hash, main_file, opsets;
  uint64_t size_bytes = 0;
  std::string git_sha, git_branch;  // at most 200 bytes each, repaired as display text
  std::string io;                   // as Version::io, at most 4000 bytes
};

struct ModelSummary {
  std::string project, name;
  Version latest;
  int versions = 0;
  std::string description;
  std::vector<std::pair<std::string, int>> tags;  // every tag of the model: (tag, version number), by tag
};

// trtexec output attached to a model version (the files `trtlens engine` reads).
struct Engine {
  int64_t id = 0;
  int64_t version_id = 0;
  int number = 0;           // 1, 2, ... per version
  std::string label;        // e.g. "fp16 A100"
  std::string tree_hash;    // the files, in the ObjectStore
  std::string prefix;       // the trtexec prefix inside the tree (e.g. "resnet.onnx.engine")
  int64_t created_at = 0;
  std::string created_by;
  // The TensorRT release the overlay judges against ("8.6"; "" = not known: the overlay
  // shows no disagreements), and where it came from ("the attach form", "engine metadata", ...).
  std::string release, release_source;
};

// Analysis of one model tree by one knowledge base: cached, with progress.
struct Analysis {
  enum class Status { Queued, Running, Done, Failed };
  Status status = Status::Queued;
  int progress_percent = 0;
  std::string message;       // stage while running; the error line when failed
  std::string result_hash;   // ObjectStore blob of the result when done
};
std::string_view status_name(Analysis::Status s);  // "queued", "running", "done", "failed"

// Content-addressed files under DATA/objects. Uploads are streamed into
// DATA/tmp first and moved in by rename only when complete and synced, so a
// crash leaves at most a stray temporary file (removed by the next open).
class ObjectStore {
 public:
  // Everything it makes is the server's alone: folders 0700, files 0600, whatever the umask.
  explicit ObjectStore(std::filesystem::path data_dir);

  // The data folder (absolute), and its canonical spelling when that differs:
  // how the store's error messages name files, for a server to strip from replies.
  const std::vector<std::string>& data_paths() const { return paths_; }

  // A fresh, empty temporary folder under DATA/tmp (for one upload).
  std::filesystem::path make_temp_dir();

  // Moves the finished tree `dir` (a folder made by make_temp_dir) into the
  // store (its files made 0600, its folders 0700) and returns its hash: hex SHA-256 over its sorted relative paths and
  // file hashes. If the tree is already stored, `dir` is removed instead.
  // Symbolic links and special files are refused (StoreError Invalid, and
  // `dir` is removed). Empty folders are kept but do not count in the hash.
  // StoreError(Invalid) when `dir` is not directly under DATA/tmp.
  std::string adopt_tree(const std::filesystem::path& dir);

  // Folder of a stored tree; StoreError(NotFound) for an unknown hash.
  std::filesystem::path tree_path(const std::string& hash) const;

  // Small results (analysis pages): stored whole, by hex SHA-256 of `bytes`.
  std::string put_blob(const std::string& bytes);
  std::string get_blob(const std::string& hash) const;  // StoreError(NotFound)

  // Removes stored trees not in `keep_trees` and blobs not in `keep_blobs`, each only when
  // older than its min age (a push or analysis in flight stores its objects before the
  // database names them). Returns {trees, blobs} removed.
  std::pair<int, int> collect(const std::vector<std::string>& keep_trees, const std::vector<std::string>& keep_blobs,
                              std::chrono::seconds tree_min_age, std::chrono::seconds blob_min_age);

  // Removes entries of DATA/tmp whose newest file or folder time is older than
  // `max_age` (left by a server killed mid-upload; a live upload in another
  // process keeps touching its files). Returns how many were removed.
  int remove_stale_temp(std::chrono::seconds max_age);

 private:
  std::filesystem::path root_;
  std::vector<std::string> paths_;
};

// Writes one uploaded file while hashing it. Throws StoreError(Invalid,
// "upload is over N bytes") once more than `max_bytes` arrive, and
// StoreError(Backend) on a write error. close() syncs the file to disk.
class StreamedFile {
 public:
  StreamedFile(const std::filesystem::path& path, uint64_t max_bytes);
  ~StreamedFile();
  StreamedFile(const StreamedFile&) = delete;
  StreamedFile& operator=(const StreamedFile&) = delete;
  void write(const char* data, size_t size);
  void close();
  uint64_t size_bytes() const;
  std::string sha256_hex();  // after close()

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class Store {
 public:
  virtual ~Store() = default;

  // Opens (and creates or migrates) the store. `db_url` empty: SQLite at
  // DATA/trtlens.db; "postgresql://..." or "postgres://...": that database.
  // Throws StoreError(Backend, "<url or file>: <reason>") when it cannot; a
  // password in the URL is shown as "***". Removes DATA/tmp leftovers older
  // than an hour.
  static std::unique_ptr<Store> open(const std::filesystem::path& data_dir, const std::string& db_url = "");

  virtual ObjectStore& objects() = 0;

  // Accounts. Tokens are 32 random bytes (libsodium), shown once as
  // "trt_<64 hex>", stored only as their BLAKE2b hash.
  virtual User create_user(const std::string& name) = 0;              // Conflict, Invalid
  virtual std::string issue_token(const std::string& user_name) = 0;  // NotFound
  // nullopt for an unknown or revoked token. Records the token's last use (at most once a
  // minute; a store that cannot write still answers).
  virtual std::optional<User> user_for_token(const std::string& token) = 0;
  // Whether `token` is a token that was revoked (so a refusal can say so rather than "sign in").
  virtual bool token_revoked(const std::string& token) = 0;
  // Site administrators see every user, project and token (the admin page) and set any
  // project's pins; roles on projects are still per project.
  virtual void set_admin(const std::string& user_name, bool admin) = 0;  // NotFound
  virtual void create_project(const std::string& name) = 0;  // Conflict, Invalid
  // Role::None removes the grant.
  virtual void grant(const std::string& user_name, const std::string& project, Role role) = 0;  // NotFound
  virtual Role role(int64_t user_id, const std::string& project) = 0;
  virtual std::vector<std::string> projects_for(int64_t user_id) = 0;  // readable ones, by name

  // Browser sessions (cookie value is returned; only its hash is stored, and
  // the session's CSRF token not at all).
  // `token_id`: the token signed in with (User::token_id); revoking it ends the session.
  virtual std::string create_session(int64_t user_id, int64_t ttl_seconds, int64_t token_id = 0) = 0;
  // nullopt for an unknown, ended or expired session (ttl_seconds <= 0 expires at once).
  virtual std::optional<Session> session(const std::string& cookie_value) = 0;
  virtual void end_session(const std::string& cookie_value) = 0;

  // Models and versions. add_version creates the model on its first version
  // and numbers versions in order, even with concurrent pushes.
  virtual Version add_version(const std::string& project, const std::string& model, const NewVersion& v,
                              int64_t user_id) = 0;  // NotFound (project), Invalid (model name)
  virtual std::vector<ModelSummary> models(const std::string& project) = 0;  // by name; NotFound (project)
  // The newest `limit` versions of a model, newest first; NotFound for an unknown model.
  virtual std::vector<Version> versions(const std::string& project, const std::string& model,
                                        int64_t limit = INT64_MAX) = 0;
  virtual std::optional<Version> version(const std::string& project, const std::string& model, int number) = 0;
  // The version `tag` names; nullopt for an unknown model or tag.
  virtual std::optional<Version> tagged_version(const std::string& project, const std::string& model,
                                                const std::string& tag) = 0;

  virtual Engine add_engine(int64_t version_id, const std::string& label, const std::string& tree_hash,
                            const std::string& prefix, int64_t user_id, const std::string& release = "",
                            const std::string& release_source = "") = 0;  // NotFound (version, user), Invalid (hash)
  virtual std::vector<Engine> engines(int64_t version_id) = 0;  // by number

  // Administration (schemas 3 and 4). Each throws StoreError NotFound for an unknown name or number.
  virtual std::vector<UserInfo> users() = 0;                         // by name
  virtual std::vector<ProjectInfo> projects() = 0;                   // by name
  virtual std::vector<TokenInfo> tokens(const std::string& user_name = "") = 0;  // "" = every user's; by id
  // The token gets 401 from then on, and the sessions signed in with it end; it stays listed
  // as revoked. NotFound for an unknown id, Conflict for one already revoked.
  virtual void revoke_token(int64_t id) = 0;
  // A project's pins, "RELEASE:PRECISION[:TARGET]" each as the server checked them (the store
  // checks only their shape: at most kMaxPins of 1..64 characters of [A-Za-z0-9._:-], else
  // Invalid); empty = the server's --pin. NotFound for an unknown project.
  virtual void set_project_pins(const std::string& project, const std::vector<std::string>& pins) = 0;
  virtual std::vector<std::string> project_pins(const std::string& project) = 0;
  virtual void set_description(const std::string& project, const std::string& model, const std::string& text) = 0;
  virtual void rename_model(const std::string& project, const std::string& model, const std::string& new_name) = 0;
  // A tag names one version of a model; setting it again moves it. Names as valid_tag (Invalid
  // otherwise: a tag of digits only is refused, it would read as a version number).
  virtual void set_tag(const std::string& project, const std::string& model, const std::string& tag, int number) = 0;
  virtual void remove_tag(const std::string& project, const std::string& model, const std::string& tag) = 0;
  virtual void relabel_engine(int64_t version_id, int number, const std::string& label) = 0;
  // Deletions remove the rows (a version's engines and tags with it, a model's versions);
  // the files go with the next collect_garbage(), which keeps what any other row names.
  // They return what went: versions and engines (a version deleted with its model counts too).
  struct Deleted {
    int versions = 0, engines = 0;
  };
  virtual Deleted delete_model(const std::string& project, const std::string& model) = 0;
  virtual Deleted delete_version(const std::string& project, const std::string& model, int number) = 0;
  virtual void delete_engine(int64_t version_id, int number) = 0;
  // Removes stored trees no version or engine names, cached analyses of trees gone, and
  // blobs no cached analysis names. Younger objects stay: trees for `tree_min_age` (a push
  // stores its tree a moment before its version names it; storing the same tree again
  // makes it young), blobs for `blob_min_age` (an analysis stores its pages before its
  // result names them). Returns {trees, blobs} removed.
  virtual std::pair<int, int> collect_garbage(std::chrono::seconds tree_min_age = std::chrono::minutes(1),
                                              std::chrono::seconds blob_min_age = std::chrono::hours(1)) = 0;

  // Analysis cache, keyed by (key, knowledge-base fingerprint).
  // claim_analysis inserts a Queued row and returns true when none existed,
  // the existing one Failed, or it is Queued/Running but was not updated for
  // `stale_seconds` (its server died), so one worker runs each analysis.
  // `key` is non-empty UTF-8 text (the server uses "<tree hash>/<main file>?pins=<pins>" for
  // a model and "engine:<engine tree>[@<release>]+<tree hash>/<main file>" for an engine page); a key
  // over 256 bytes (a long path in an upload) is stored as "blake2b:<its hash>",
  // so keys of any length work. `kb` is 1 to 256 bytes. StoreError(Invalid) otherwise.
  virtual std::optional<Analysis> analysis(const std::string& key, const std::string& kb) = 0;
  virtual bool claim_analysis(const std::string& key, const std::string& kb, int64_t stale_seconds = 600) = 0;
  virtual void update_analysis(const std::string& key, const std::string& kb, const Analysis& a) = 0;
};

}  // namespace trtlens::store
