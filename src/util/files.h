// Whole-file reading and all-or-nothing writing, with errors that name the file.
#pragma once
#include <string>

namespace trtlens {

// Contents of `path`. Throws InputError(path, "cannot read: <reason>").
std::string read_file(const std::string& path);

// Writes `contents` to `path` through a temporary file in the same folder and
// a rename, so a failure never leaves a partial file. Throws
// InputError(path, "cannot write: <reason>").
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace trtlens
