#include "util/files.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "trtlens/error.h"

namespace trtlens {

namespace {

// What a non-regular file is, for the message.
const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Files this process read (device, inode), which -o must not replace. Capped:
// a one-shot command reads a few files; a dashboard reads many and writes none.
struct Inputs {
  std::mutex mutex;
  std::set<std::pair<dev_t, ino_t>> files;
};
Inputs& inputs() {
  static Inputs* in = new Inputs;  // never destroyed: readers may run during exit
  return *in;
}
void note_input(const struct stat& st) {
  Inputs& in = inputs();
  std::lock_guard<std::mutex> lock(in.mutex);
  if (in.files.size() < 65536) in.files.emplace(st.st_dev, st.st_ino);
}
bool is_input(const struct stat& st) {
  Inputs& in = inputs();
  std::lock_guard<std::mutex> lock(in.mutex);
  return in.files.count({st.st_dev, st.st_ino}) > 0;
}

// An fd of `path` after checking it is a regular file (O_NONBLOCK: opening a FIFO
// with no writer would otherwise wait forever). Sets `size`; refuses files past `max_bytes`.
int open_regular(const std::string& path, uint64_t max_bytes, uint64_t& size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path, std::string("cannot read: ") + file_kind(st.st_mode) + ", not a regular file");
  }
  note_input(st);
  size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    ::close(fd);
    throw InputError(path, fmt::format("is {} bytes; trtlens reads files of this kind up to {} bytes", size, max_bytes));
  }
  return fd;
}

}  // namespace

uint64_t regular_file_size(const std::string& path, uint64_t max_bytes) {
  uint64_t size = 0;
  ::close(open_regular(path, max_bytes, size));
  return size;
}

std::string read_file(const std::string& path, uint64_t max_bytes) {
  uint64_t size = 0;
  int fd = open_regular(path, max_bytes, size);
  std::string out(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      throw InputError(path, std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;  // the file shrank while being read: keep what is there
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return out;
}

void check_output_target(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw InputError(path, std::string("cannot write: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode))  // lstat: a symbolic link is not a regular file
    throw InputError(path, std::string("will not replace ") +
                               (S_ISLNK(st.st_mode) ? "a symbolic link" : file_kind(st.st_mode)) +
                               "; give a regular file or a new path");
  if (is_input(st)) throw InputError(path, "is an input of this command; give another output file");
}

void remove_stale_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto cutoff = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->path().filename().string().starts_with(kTempPrefix)) continue;
    std::error_code e2;
    auto st = it->symlink_status(e2);
    if (e2 || !(fs::is_regular_file(st) || fs::is_directory(st))) continue;  // only what we create
    if (fs::last_write_time(it->path(), e2) < cutoff && !e2) fs::remove_all(it->path(), e2);
  }
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  OutputStream out(path.empty() ? "./" : path);  // "" is not stdout here: let the open fail
  out.write(contents);
  out.commit();
}

namespace {
constexpr size_t kOutputBuffer = size_t{1} << 16;  // bytes per write(2)
}

OutputStream::OutputStream(const std::string& path) : path_(path) {
  buffer_.reserve(kOutputBuffer);
  if (path.empty()) return;
  namespace fs = std::filesystem;
  check_output_target(path);
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  remove_stale_temporaries(dir.string());
  tmp_ = (dir / (std::string(kTempPrefix) + "XXXXXX")).string();
  fd_ = ::mkostemp(tmp_.data(), O_CLOEXEC);
  if (fd_ < 0) throw InputError(path, std::string("cannot write: ") + std::strerror(errno));
}

OutputStream::~OutputStream() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void OutputStream::write(std::string_view text) {
  if (buffer_.size() + text.size() <= kOutputBuffer) {
    buffer_.append(text);
    return;
  }
  flush();
  if (text.size() < kOutputBuffer) buffer_.append(text);
  else write_all(text);
}

void OutputStream::flush() {
  write_all(buffer_);
  buffer_.clear();
}

void OutputStream::write_all(std::string_view text) {
  if (fd_ < 0) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  while (!text.empty()) {
    ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path_, std::string("cannot write: ") + std::strerror(errno));
    text.remove_prefix(static_cast<size_t>(n));
  }
}

void OutputStream::commit() {
  flush();
  if (fd_ < 0) {
    std::fflush(stdout);
    return;
  }
  ::fchmod(fd_, 0644);
  try {
    check_output_target(path_);  // it may have changed while the output was written
  } catch (...) {
    ::close(std::exchange(fd_, -1));
    ::unlink(tmp_.c_str());
    throw;
  }
  int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0 || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp_.c_str());
    throw InputError(path_, std::string("cannot write: ") + std::strerror(err));
  }
}

}  // namespace trtlens
