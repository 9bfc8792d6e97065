#include "util/files.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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

void write_file_atomic(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) throw InputError(path, std::string("cannot write: ") + std::strerror(errno));
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw InputError(path, std::string("cannot write: ") + std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::close(fd) != 0 || std::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw InputError(path, std::string("cannot write: ") + std::strerror(err));
  }
}

}  // namespace trtlens
