#include "util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trtlens/error.h"
#include "util/files.h"

namespace trtlens {

MappedFile::MappedFile(const std::string& path) {
  uint64_t size = regular_file_size(path);  // refuses folders, FIFOs and devices without blocking
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  size_ = static_cast<size_t>(size);
  if (size_ > 0) {
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data_ == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      data_ = nullptr;
      throw InputError(path, std::string("cannot map: ") + std::strerror(err));
    }
    // Reads are sparse (headers between skipped payloads): no readahead or
    // fault-around, so untouched weight pages never enter the process.
    ::madvise(data_, size_, MADV_RANDOM);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

void MappedFile::drop_pages() {
  if (data_ && size_ > 0) ::madvise(data_, size_, MADV_DONTNEED);
}

}  // namespace trtlens
