// Whole-file reading and all-or-nothing writing, with errors that name the file.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace trtlens {

// Inputs larger than this are refused unless a reader sets its own cap (bytes).
inline constexpr uint64_t kMaxInputBytes = uint64_t{1} << 30;

// Size in bytes of `path` when it is a regular file. Opened without blocking, so
// a FIFO or device is refused rather than waited on. Throws InputError(path,
// "cannot read: ..."): missing, unreadable, a folder, a FIFO, a device, a socket;
// InputError(path, "is N bytes; ... up to M bytes") past `max_bytes`.
uint64_t regular_file_size(const std::string& path, uint64_t max_bytes = UINT64_MAX);

// Contents of `path`, a regular file of at most `max_bytes` bytes. Throws
// InputError(path, "cannot read: <reason>") as regular_file_size does, or
// InputError(path, "is N bytes; ... at most M") past the cap.
std::string read_file(const std::string& path, uint64_t max_bytes = kMaxInputBytes);

// Writes `contents` to `path` through a temporary file in the same folder and
// a rename, so a failure never leaves a partial file. Throws
// InputError(path, "cannot write: <reason>"), or check_output_target's refusal.
void write_file_atomic(const std::string& path, const std::string& contents);

// Temporaries of all-or-nothing writes are named this, beside their target.
inline constexpr std::string_view kTempPrefix = ".trtlens-tmp-";

// Throws InputError(path, ...) unless `path` is new or a regular file that is
// not an input of this run: a device, FIFO, socket, folder or symbolic link is
// never replaced by a rename, nor a file this process read (same device and
// inode, so another name or a hard link counts too).
void check_output_target(const std::string& path);

// Removes temporaries (kTempPrefix) in `dir` older than an hour: what a run
// killed mid-write left behind. Errors are ignored.
void remove_stale_temporaries(const std::string& dir);

// Output written piece by piece, so a large document is never held whole:
// to stdout when `path` is empty, else to `path` all-or-nothing (a temporary
// in the same folder, renamed by commit(); destroyed uncommitted, the
// temporary is removed and `path` is untouched). The constructor and commit()
// run check_output_target; the constructor also removes stale temporaries.
// Throws InputError(path, "cannot write: <reason>") from the constructor,
// write() or commit() (EFBIG past a file-size limit: main ignores SIGXFSZ).
class OutputStream {
 public:
  explicit OutputStream(const std::string& path);
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;
  void write(std::string_view text);
  OutputStream& operator<<(std::string_view text) {
    write(text);
    return *this;
  }
  void commit();

 private:
  void flush();
  void write_all(std::string_view text);
  std::string path_, tmp_;
  int fd_ = -1;  // -1: stdout
  std::string buffer_;
};

}  // namespace trtlens
