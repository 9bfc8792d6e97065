#include "serve/model_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <utility>

#include "trtlens/error.h"
#include "trtlens/model.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace trtlens {

namespace fs = std::filesystem;

namespace {

// Names shown in messages ('' for an empty one): one printable line.
std::string printable(std::string_view name) { return name.empty() ? "''" : printable_line(name); }

bool is_onnx_name(std::string_view name) {
  constexpr std::string_view kExt = ".onnx";
  if (name.size() <= kExt.size()) return false;
  std::string_view tail = name.substr(name.size() - kExt.size());
  return std::equal(tail.begin(), tail.end(), kExt.begin(),
                    [](char a, char b) { return (a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a) == b; });
}

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void write_all(int fd, const char* p, size_t n, const std::function<void(int)>& fail) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail(errno);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;

std::string archive_message(archive* a) {
  const char* s = archive_error_string(a);
  return printable(s ? s : "unknown libarchive error");
}

// ------------------------------------------------------------ extraction

// Writes the entries of one archive below `root` (a descriptor of the destination
// folder), refusing what an upload may not hold.
class Extractor {
 public:
  Extractor(archive* a, int root, const fs::path& dest, const std::string& upload, const ArchiveLimits& limits)
      : a_(a), root_(root), dest_(dest), upload_(upload), limits_(limits) {}

  std::vector<std::string> run() {
    for (;;) {
      archive_entry* e = nullptr;
      int r = archive_read_next_header(a_, &e);
      if (r == ARCHIVE_EOF) break;
      if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
        refuse("corrupt or truncated zip archive (" + archive_message(a_) + ")");
      }
      if (++entries_ > limits_.max_files)
        refuse(fmt::format("holds more than {} entries (files and folders), the limit", limits_.max_files));
      entry(e);
    }
    return files_;
  }

 private:
  [[noreturn]] void refuse(const std::string& reason) const { throw InputError(upload_, reason); }

  void entry(archive_entry* e) {
    const char* raw = archive_entry_pathname_utf8(e);
    if (!raw) raw = archive_entry_pathname(e);
    if (!raw) refuse(fmt::format("entry {} has no name", entries_));
    std::string name;
    try {
      name = safe_upload_name(raw);
    } catch (const InputError& err) {
      refuse(fmt::format("entry '{}': {}", err.file(), err.problem()));
    }
    if (archive_entry_hardlink(e)) refuse(fmt::format("entry '{}' is a hard link; only files and folders are accepted", name));
    if (archive_entry_is_encrypted(e)) refuse(fmt::format("entry '{}' is encrypted", name));
    switch (archive_entry_filetype(e)) {
      case AE_IFDIR:
        folder_entry(name);
        return;
      case AE_IFREG:
        if (archive_entry_symlink(e)) break;
        file_entry(name, e);
        return;
      default:
        break;
    }
    refuse(fmt::format("entry '{}' is {}; only files and folders are accepted", name, kind(e)));
  }

  static const char* kind(archive_entry* e) {
    switch (archive_entry_filetype(e)) {
      case AE_IFLNK: return "a symbolic link";
      case AE_IFCHR: case AE_IFBLK: return "a device";
      case AE_IFIFO: return "a FIFO";
      case AE_IFSOCK: return "a socket";
      default: return archive_entry_symlink(e) ? "a symbolic link" : "not a regular file";
    }
  }

  void folder_entry(const std::string& name) {
    if (files_set_.count(name)) refuse(fmt::format("'{}' is both a file and a folder", name));
    if (!explicit_folders_.insert(name).second) refuse(fmt::format("entry '{}' appears twice", name));
    open_folders(name, name.size());
  }

  void file_entry(const std::string& name, archive_entry* e) {
    if (files_set_.count(name)) refuse(fmt::format("entry '{}' appears twice", name));
    if (folders_.count(name)) refuse(fmt::format("'{}' is both a file and a folder", name));
    // Headers are not trusted to allow anything, only to refuse early.
    if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0 &&
        static_cast<uint64_t>(archive_entry_size(e)) > limits_.max_total_bytes - total_)
      too_big();
    size_t slash = name.rfind('/');
    Fd parent = slash == std::string::npos ? Fd(::dup(root_)) : open_folders(name, slash);
    if (parent.fd < 0) cannot_write(name, errno);
    std::string leaf = slash == std::string::npos ? name : name.substr(slash + 1);
    Fd out(::openat(parent.fd, leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out.fd < 0) cannot_write(name, errno);
    files_set_.insert(name);
    files_.push_back(name);
    std::vector<char> buf(256 * 1024);
    for (;;) {
      la_ssize_t n = archive_read_data(a_, buf.data(), buf.size());
      if (n == 0) break;
      if (n < 0) refuse(fmt::format("corrupt or truncated zip archive at '{}' ({})", name, archive_message(a_)));
      if (static_cast<uint64_t>(n) > limits_.max_total_bytes - total_) too_big();
      total_ += static_cast<uint64_t>(n);
      write_all(out.fd, buf.data(), static_cast<size_t>(n), [&](int err) { cannot_write(name, err); });
    }
  }

  // Creates (or reuses) the folders of name[0, end) one component at a time,
  // never following a link; returns a descriptor of the innermost.
  Fd open_folders(const std::string& name, size_t end) {
    Fd cur(::dup(root_));
    if (cur.fd < 0) cannot_write(name, errno);
    size_t start = 0;
    while (start < end) {
      size_t slash = name.find('/', start);
      if (slash == std::string::npos || slash > end) slash = end;
      std::string prefix = name.substr(0, slash);
      if (files_set_.count(prefix)) refuse(fmt::format("'{}' is both a file and a folder", prefix));
      std::string comp = name.substr(start, slash - start);
      if (::mkdirat(cur.fd, comp.c_str(), 0700) != 0 && errno != EEXIST) cannot_write(prefix, errno);
      Fd next(::openat(cur.fd, comp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (next.fd < 0) cannot_write(prefix, errno);
      folders_.insert(prefix);
      cur = std::move(next);
      start = slash + 1;
    }
    return cur;
  }

  [[noreturn]] void too_big() const {
    refuse(fmt::format("unpacks to more than {} bytes, the limit", limits_.max_total_bytes));
  }
  [[noreturn]] void cannot_write(const std::string& name, int err) const {
    throw InputError(dest_.string(), fmt::format("cannot write '{}': {}", name, std::strerror(err)));
  }

  archive* a_;
  int root_;
  const fs::path& dest_;
  const std::string& upload_;
  const ArchiveLimits& limits_;
  uint64_t entries_ = 0, total_ = 0;
  std::vector<std::string> files_;
  std::set<std::string> files_set_, folders_, explicit_folders_;
};

// Removes everything inside `dir` (it was empty before extraction began).
void empty_folder(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

// ------------------------------------------------------------ packing

// A temporary file beside `target`, removed unless committed by a rename.
class TempFile {
 public:
  explicit TempFile(const fs::path& target) : target_(target) {
    fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    path_ = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    fd_ = ::mkstemp(path_.data());
    if (fd_ < 0) fail(errno);
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  void commit() {
    ::fchmod(fd_, 0644);
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0 || std::rename(path_.c_str(), target_.c_str()) != 0) fail(errno);
    committed_ = true;
  }
  [[noreturn]] void fail(int err) const {
    throw InputError(target_.string(), std::string("cannot write: ") + std::strerror(err));
  }

 private:
  fs::path target_;
  std::string path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

std::string safe_upload_name(std::string_view name) {
  auto refuse = [&](const std::string& reason) { throw InputError(printable(name), reason); };
  if (name.empty()) refuse("empty name");
  if (name.size() > kMaxNameBytes) refuse(fmt::format("name is {} bytes; at most {} are accepted", name.size(), kMaxNameBytes));
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) refuse("name holds a control character");
    if (c == '\\') refuse("name holds a backslash; use '/' between folders");
  }
  if (to_valid_utf8(name) != name) refuse("name is not valid UTF-8");
  if (name.front() == '/') refuse("absolute path; names must be relative");
  std::string out;
  for (std::string_view part : split(name, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") refuse("'..' in a name would leave the folder");
    if (part.size() > kMaxNameComponentBytes)
      refuse(fmt::format("a component is {} bytes; at most {} are accepted", part.size(), kMaxNameComponentBytes));
    if (part.front() == '-') refuse(fmt::format("component '{}' starts with '-'", part));
    if (part.front() == '.') refuse(fmt::format("component '{}' is hidden (starts with '.')", part));
    if (!out.empty()) out += '/';
    out += part;
  }
  if (out.empty()) refuse("names no file");
  return out;
}

std::vector<std::string> extract_model_archive(const fs::path& zip, const fs::path& dest_dir,
                                               const std::string& upload_name, const ArchiveLimits& limits) {
  Fd root(::open(dest_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.fd < 0) throw InputError(dest_dir.string(), std::string("cannot open folder: ") + std::strerror(errno));
  std::error_code ec;
  if (!fs::is_empty(dest_dir, ec) || ec) throw InputError(dest_dir.string(), "is not an empty folder");

  Fd in(::open(zip.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) throw InputError(upload_name, std::string("cannot read: ") + std::strerror(errno));
  ArchivePtr a(archive_read_new(), archive_read_free);
  if (!a) throw std::bad_alloc();
  archive_read_support_format_zip(a.get());
  // Opening reads the first bytes and decides the format: the file is readable, so a failure is the format.
  if (archive_read_open_fd(a.get(), in.fd, 64 * 1024) != ARCHIVE_OK)
    throw InputError(upload_name, "not a zip archive (" + archive_message(a.get()) + ")");
  try {
    return Extractor(a.get(), root.fd, dest_dir, upload_name, limits).run();
  } catch (...) {
    empty_folder(dest_dir);  // nothing half-extracted stays behind
    throw;
  }
}

std::string find_main_model(const std::vector<std::string>& files, std::string_view hint,
                            const std::string& upload_name) {
  std::vector<std::string> models;
  for (const auto& f : files)
    if (is_onnx_name(f)) models.push_back(f);
  // At most five names, so the message stays one readable line.
  auto listed = [&] {
    std::string s;
    for (size_t i = 0; i < models.size() && i < 5; ++i) s += (i ? ", " : "") + models[i];
    if (models.size() > 5) s += ", ...";
    return s;
  };
  if (!hint.empty()) {
    std::string main;
    try {
      main = safe_upload_name(hint);
    } catch (const InputError& e) {
      throw InputError(upload_name, fmt::format("main file '{}': {}", e.file(), e.problem()));
    }
    if (!is_onnx_name(main)) throw InputError(upload_name, fmt::format("main file '{}' is not a .onnx file", main));
    if (std::find(files.begin(), files.end(), main) == files.end())
      throw InputError(upload_name, models.empty() ? fmt::format("has no file '{}' and no .onnx file", main)
                                                   : fmt::format("has no file '{}'; its .onnx files: {}", main, listed()));
    return main;
  }
  if (models.empty()) throw InputError(upload_name, "has no .onnx file");
  if (models.size() > 1)
    throw InputError(upload_name,
                     fmt::format("has {} .onnx files ({}); name one with ?main=...", models.size(), listed()));
  return models.front();
}

void pack_model(const Model& model, const fs::path& zip_out) {
  fs::path model_file(model.path);
  fs::path dir = model_file.parent_path();
  // (zip entry name, file on disk); names are checked as the server will check them.
  std::vector<std::pair<std::string, fs::path>> items;
  std::set<std::string> seen;
  auto add = [&](const std::string& location, const char* what) {
    std::string name;
    try {
      name = safe_upload_name(location);
    } catch (const InputError& e) {
      throw InputError(model.path, fmt::format("{} '{}': {}", what, e.file(), e.problem()));
    }
    if (seen.insert(name).second) items.emplace_back(name, dir / name);
  };
  add(model_file.filename().string(), "file name");
  for (const auto& location : model.external_data_files) add(location, "external data location");

  TempFile tmp(zip_out);
  ArchivePtr a(archive_write_new(), archive_write_free);
  if (!a) throw std::bad_alloc();
  auto check = [&](int r) {
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
      throw InputError(zip_out.string(), "cannot write: " + archive_message(a.get()));
  };
  check(archive_write_set_format_zip(a.get()));
  check(archive_write_set_options(a.get(), "zip:compression=store"));
  check(archive_write_open_fd(a.get(), tmp.fd()));
  std::vector<char> buf(256 * 1024);
  for (const auto& [name, source] : items) {
    Fd in(::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    if (in.fd < 0 || ::fstat(in.fd, &st) != 0)
      throw InputError(model.path, fmt::format("cannot read '{}': {}", name, std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw InputError(model.path, fmt::format("'{}' is not a regular file", name));
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname_utf8(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), st.st_size);
    archive_entry_set_mtime(e.get(), st.st_mtime, 0);
    check(archive_write_header(a.get(), e.get()));
    uint64_t copied = 0;
    for (;;) {
      ssize_t n = ::read(in.fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(model.path, fmt::format("cannot read '{}': {}", name, std::strerror(errno)));
      if (n == 0) break;
      // The entry's size is in its header already: a file that grows is packed as it was.
      size_t take = std::min<uint64_t>(static_cast<uint64_t>(n), static_cast<uint64_t>(st.st_size) - copied);
      if (take > 0 && archive_write_data(a.get(), buf.data(), take) != static_cast<la_ssize_t>(take))
        throw InputError(zip_out.string(), "cannot write: " + archive_message(a.get()));
      copied += take;
      if (copied == static_cast<uint64_t>(st.st_size)) break;
    }
    if (copied != static_cast<uint64_t>(st.st_size))
      throw InputError(model.path, fmt::format("'{}' shrank while it was being packed", name));
    check(archive_write_finish_entry(a.get()));
  }
  check(archive_write_close(a.get()));
  tmp.commit();
}

void pack_model(const std::string& model_path, const fs::path& zip_out) { pack_model(load_model(model_path), zip_out); }

}  // namespace trtlens
