// Content-addressed files under DATA/objects: trees of uploaded files and
// small blobs, always written under DATA/tmp first, synced, then renamed in.
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>
#include <system_error>

#include "store/hash.h"
#include "store/store.h"

namespace trtlens::store {

namespace fs = std::filesystem;

namespace {

using Kind = StoreError::Kind;

[[noreturn]] void fail(const fs::path& path, const char* action, int err) {
  throw StoreError(Kind::Backend, path.string() + ": cannot " + action + ": " + std::strerror(err));
}

// Creates `dir` and its missing parents (below the data folder) 0700, whatever the umask.
void make_dirs(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  if (dir.has_parent_path() && dir.parent_path() != dir) make_dirs(dir.parent_path());
  if (::mkdir(dir.c_str(), 0700) != 0) {
    if (errno == EEXIST && fs::is_directory(dir, ec)) return;  // made by another thread or process meanwhile
    fail(dir, "create the folder", errno);
  }
  if (::chmod(dir.c_str(), 0700) != 0) fail(dir, "set the mode of", errno);
}

// fsync of a file or folder, so a rename that follows is durable.
void sync_path(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "open", errno);
  int rc = ::fsync(fd), err = errno;
  ::close(fd);
  if (rc != 0) fail(path, "sync", err);
}

void write_all(int fd, const char* data, size_t size, const fs::path& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "write", errno);
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Reads `fd` (of `path`) to its end, handing each chunk to `take`; closes it on error.
void read_chunks(int fd, const fs::path& path, const std::function<void(const char*, size_t)>& take) {
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      fail(path, "read", err);
    }
    if (n == 0) return;
    take(buf.data(), static_cast<size_t>(n));
  }
}

// SHA-256 of a regular file (opened without following a link, made 0600, then synced).
std::string hash_file(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(path, "open", errno);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {  // swapped for something else since the walk
    ::close(fd);
    throw StoreError(Kind::Invalid, path.string() + ": not a regular file");
  }
  if ((info.st_mode & 07777) != 0600 && ::fchmod(fd, 0600) != 0) {
    int err = errno;
    ::close(fd);
    fail(path, "set the mode of", err);
  }
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  read_chunks(fd, path, [&st](const char* data, size_t size) {
    crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(data), size);
  });
  int rc = ::fsync(fd), err = errno;
  ::close(fd);
  if (rc != 0) fail(path, "sync", err);
  unsigned char out[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&st, out);
  return to_hex(out, sizeof out);
}

fs::path object_path(const fs::path& root, const std::string& hash) {
  return root / "objects" / hash.substr(0, 2) / hash;
}

fs::path blob_path(const fs::path& root, const std::string& hash) {
  return root / "objects" / "blobs" / hash.substr(0, 2) / hash;
}

}  // namespace

ObjectStore::ObjectStore(fs::path data_dir) : root_(fs::absolute(data_dir).lexically_normal()) {
  // Messages name files by this absolute path (a server strips it from replies).
  if (!root_.has_filename() && root_.has_relative_path()) root_ = root_.parent_path();  // "data/"
  paths_.push_back(root_.string());
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(root_, ec);
  if (!ec && canonical != root_) paths_.push_back(canonical.string());
  make_dirs(root_ / "tmp");
  make_dirs(root_ / "objects" / "blobs");
}

fs::path ObjectStore::make_temp_dir() {
  std::string tmpl = (root_ / "tmp" / "upload-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) fail(root_ / "tmp", "create a temporary folder", errno);
  if (::chmod(tmpl.c_str(), 0700) != 0) {
    int err = errno;
    ::rmdir(tmpl.c_str());
    fail(tmpl, "set the mode of", err);
  }
  return tmpl;
}

std::string ObjectStore::adopt_tree(const fs::path& dir) {
  std::error_code ec;
  if (!fs::equivalent(dir.parent_path(), root_ / "tmp", ec))
    throw StoreError(Kind::Invalid, dir.string() + ": not a folder made by make_temp_dir");

  // Walk without following links: each file's path and hash, each folder to sync.
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<fs::path> folders{dir};
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    std::string rel = it->path().lexically_relative(dir).generic_string();
    if (fs::is_directory(st)) {
      folders.push_back(it->path());
    } else if (fs::is_regular_file(st)) {
      files.emplace_back(rel, hash_file(it->path()));
    } else {
      fs::remove_all(dir, ec);
      throw StoreError(Kind::Invalid, rel + ": " + (fs::is_symlink(st) ? "a symbolic link" : "a special file") +
                                          "; an upload holds regular files and folders only");
    }
  }
  if (ec) throw StoreError(Kind::Backend, dir.string() + ": cannot list the upload: " + ec.message());

  // The tree hash: SHA-256 over sorted "path\0<file sha256>\n" lines (a path holds no NUL, so
  // the lines parse back unambiguously).
  std::sort(files.begin(), files.end());
  std::string lines;
  for (const auto& [rel, sha] : files) {
    lines += rel;
    lines += '\0';
    lines += sha;
    lines += '\n';
  }
  std::string hash = sha256_hex(lines);
  for (const auto& f : folders) {
    if (::chmod(f.c_str(), 0700) != 0) fail(f, "set the mode of", errno);  // the files are 0600 (hash_file)
    sync_path(f);
  }

  fs::path target = object_path(root_, hash);
  make_dirs(target.parent_path());
  if (fs::exists(target, ec)) {
    fs::remove_all(dir, ec);
    // Fresh again: a garbage collection running now keeps it for the version about to name it.
    ::utimensat(AT_FDCWD, target.c_str(), nullptr, 0);
    return hash;
  }
  if (::rename(dir.c_str(), target.c_str()) != 0) {
    int err = errno;
    // Another thread or process stored the same tree first: keep theirs.
    if (err == EEXIST || err == ENOTEMPTY) {
      fs::remove_all(dir, ec);
      return hash;
    }
    fail(target, "move the upload into the store", err);
  }
  sync_path(target.parent_path());
  sync_path(root_ / "objects");
  return hash;
}

fs::path ObjectStore::tree_path(const std::string& hash) const {
  std::error_code ec;
  if (is_digest_hex(hash)) {
    fs::path p = object_path(root_, hash);
    if (fs::is_directory(p, ec)) return p;
  }
  throw StoreError(Kind::NotFound, "no stored tree " + hash.substr(0, 80));
}

std::string ObjectStore::put_blob(const std::string& bytes) {
  std::string hash = sha256_hex(bytes);
  fs::path target = blob_path(root_, hash);
  std::error_code ec;
  if (fs::exists(target, ec)) return hash;
  make_dirs(target.parent_path());
  std::string tmpl = (root_ / "tmp" / "blob-XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail(root_ / "tmp", "create a temporary file", errno);
  try {
    write_all(fd, bytes.data(), bytes.size(), tmpl);
    if (::fchmod(fd, 0600) != 0 || ::fsync(fd) != 0) fail(tmpl, "sync", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw;
  }
  ::close(fd);
  // Same name, same bytes: replacing a blob another writer just stored is harmless.
  if (::rename(tmpl.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    fail(target, "store the blob", err);
  }
  sync_path(target.parent_path());
  return hash;
}

std::string ObjectStore::get_blob(const std::string& hash) const {
  if (!is_digest_hex(hash)) throw StoreError(Kind::NotFound, "no stored blob " + hash.substr(0, 80));
  fs::path path = blob_path(root_, hash);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) throw StoreError(Kind::NotFound, "no stored blob " + hash);
  if (fd < 0) fail(path, "open", errno);
  std::string out;
  read_chunks(fd, path, [&out](const char* data, size_t size) { out.append(data, size); });
  ::close(fd);
  return out;
}

// Seconds now, read from the clock file times come from. time() reads the coarse clock, which can
// lag a file written a moment ago (fine-grained "multigrain" timestamps, Linux 6.13+) by a second
// at a boundary: such a file looked younger than the collection and was kept.
static time_t file_clock_now() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec;
}

std::pair<int, int> ObjectStore::collect(const std::vector<std::string>& keep_trees,
                                         const std::vector<std::string>& keep_blobs, std::chrono::seconds tree_min_age,
                                         std::chrono::seconds blob_min_age) {
  const time_t now = file_clock_now();
  std::vector<std::string> trees = keep_trees, blobs = keep_blobs;
  std::sort(trees.begin(), trees.end());
  std::sort(blobs.begin(), blobs.end());
  auto old_enough = [&](const fs::path& p, std::chrono::seconds min_age) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && st.st_mtime <= now - static_cast<time_t>(min_age.count());
  };
  std::pair<int, int> removed{0, 0};
  std::error_code ec;
  // objects/<2 hex>/<hash> are trees, objects/blobs/<2 hex>/<hash> blobs.
  for (fs::directory_iterator fan(root_ / "objects", ec), end; !ec && fan != end; fan.increment(ec)) {
    const bool blob_dir = fan->path().filename() == "blobs";
    std::vector<fs::path> dirs;
    if (!blob_dir) dirs.push_back(fan->path());
    std::error_code sub;
    if (blob_dir)
      for (fs::directory_iterator b(fan->path(), sub); !sub && b != end; b.increment(sub)) dirs.push_back(b->path());
    for (const fs::path& d : dirs) {
      std::error_code walk;
      for (fs::directory_iterator it(d, walk); !walk && it != end; it.increment(walk)) {
        const std::string name = it->path().filename().string();
        const auto& keep = blob_dir ? blobs : trees;
        if (!is_digest_hex(name) || std::binary_search(keep.begin(), keep.end(), name) || !old_enough(it->path(), blob_dir ? blob_min_age : tree_min_age))
          continue;
        std::error_code rm;
        fs::remove_all(it->path(), rm);
        if (!rm) ++(blob_dir ? removed.second : removed.first);
      }
    }
  }
  return removed;
}

int ObjectStore::remove_stale_temp(std::chrono::seconds max_age) {
  // An upload in progress keeps touching its folder or its files: go by the newest time inside.
  time_t cutoff = file_clock_now() - static_cast<time_t>(max_age.count());
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(root_ / "tmp", ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) continue;
    time_t newest = st.st_mtime;
    std::error_code walk;
    if (S_ISDIR(st.st_mode))
      for (fs::recursive_directory_iterator r(it->path(), walk), rend; !walk && r != rend; r.increment(walk))
        if (::lstat(r->path().c_str(), &st) == 0) newest = std::max(newest, st.st_mtime);
    if (walk || newest >= cutoff) continue;
    fs::remove_all(it->path(), walk);
    if (!walk) ++removed;
  }
  return removed;
}

// ---- StreamedFile ----

struct StreamedFile::State {
  fs::path path;
  int fd = -1;
  uint64_t max_bytes = 0, size = 0;
  crypto_hash_sha256_state sha;
  std::string hex;  // set by close()
};

StreamedFile::StreamedFile(const fs::path& path, uint64_t max_bytes) : state_(std::make_unique<State>()) {
  init_sodium();
  state_->path = path;
  state_->max_bytes = max_bytes;
  state_->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (state_->fd < 0) fail(path, "create", errno);
  if (::fchmod(state_->fd, 0600) != 0) fail(path, "set the mode of", errno);
  crypto_hash_sha256_init(&state_->sha);
}

StreamedFile::~StreamedFile() {
  if (state_->fd >= 0) ::close(state_->fd);
}

void StreamedFile::write(const char* data, size_t size) {
  State& s = *state_;
  if (s.fd < 0) throw StoreError(Kind::Backend, s.path.string() + ": written after close");
  if (size > s.max_bytes - s.size)
    throw StoreError(Kind::Invalid, "upload is over " + std::to_string(s.max_bytes) + " bytes");
  write_all(s.fd, data, size, s.path);
  crypto_hash_sha256_update(&s.sha, reinterpret_cast<const unsigned char*>(data), size);
  s.size += size;
}

void StreamedFile::close() {
  State& s = *state_;
  if (s.fd < 0) return;
  int rc = ::fsync(s.fd), err = errno;
  if (::close(s.fd) != 0 && rc == 0) rc = -1, err = errno;
  s.fd = -1;
  if (rc != 0) fail(s.path, "sync", err);
  unsigned char out[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&s.sha, out);
  s.hex = to_hex(out, sizeof out);
}

uint64_t StreamedFile::size_bytes() const { return state_->size; }

std::string StreamedFile::sha256_hex() {
  if (state_->fd >= 0) throw StoreError(Kind::Backend, state_->path.string() + ": hash asked before close()");
  return state_->hex;
}

}  // namespace trtlens::store
