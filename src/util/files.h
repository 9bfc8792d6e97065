// Whole-file reading and all-or-nothing writing, with errors that name the file.
#pragma once
#include <cstdint>
#include <string>

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
// InputError(path, "cannot write: <reason>").
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace trtlens
