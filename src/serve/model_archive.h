// Model uploads as files: names a client gives, zip archives a team uploads
// (a model with its external data), and the zip `trtlens push` sends.
// Every name and archive here is hostile until checked.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace trtlens {

struct Model;

// Limits of one relative name (bytes): POSIX NAME_MAX per component, PATH_MAX in all.
inline constexpr size_t kMaxNameComponentBytes = 255;
inline constexpr size_t kMaxNameBytes = 4096;

// Checks a file name a client gives (an upload's file name, an entry name inside
// an archive) and returns it as a normalized relative path: components joined
// by '/', empty and "." components dropped ("a//./b/" -> "a/b").
// Throws InputError(<name, made printable>, reason) when the name is: empty
// (or nothing but separators), absolute ("/x"), has a ".." component, a
// backslash, a NUL or other control character, invalid UTF-8, a component over
// kMaxNameComponentBytes or more than kMaxNameBytes in all, a component starting
// with '-' (read as an option by tools) or '.' (hidden).
std::string safe_upload_name(std::string_view name);

// Bounds on one archive, checked while extracting.
struct ArchiveLimits {
  uint64_t max_total_bytes = 0;  // uncompressed bytes of all files together
  uint64_t max_files = 0;        // entries (regular files and folders)
};

// Extracts the zip archive `zip` into `dest_dir`, an existing empty folder, and
// returns the relative paths (safe_upload_name form) of the regular files it
// wrote, in archive order. Only the zip format is read (libarchive).
// Bytes are counted as they are written, never taken from the archive's headers,
// so a zip bomb stops at `limits.max_total_bytes`. Files are created with
// openat(O_EXCL | O_NOFOLLOW) below a descriptor of `dest_dir`, so nothing is
// written outside it whatever the names say.
// Throws InputError(upload_name, one-line reason), after emptying `dest_dir`
// again, for: a file that is not a zip archive, a corrupt or truncated one, an
// encrypted entry, an entry whose name safe_upload_name refuses (traversal,
// absolute, ...), a symbolic link, hard link, device, FIFO or socket entry, a
// name given twice (or as both a file and a folder), more than
// `limits.max_files` entries, more than `limits.max_total_bytes` uncompressed
// bytes. Throws InputError(dest_dir, reason) when `dest_dir` is not an empty
// folder or a file cannot be written there.
std::vector<std::string> extract_model_archive(const std::filesystem::path& zip, const std::filesystem::path& dest_dir,
                                               const std::string& upload_name, const ArchiveLimits& limits);

// The ONNX model to analyse among `files` (as extract_model_archive returns
// them): `hint` (made safe by safe_upload_name) when it is non-empty, else the
// only file ending in ".onnx". Throws InputError(upload_name, reason) when
// `hint` is not among `files` or is not a .onnx file, when there is no .onnx
// file, or when there are several and no hint ("has 3 .onnx files; name one
// with ?main=...").
std::string find_main_model(const std::vector<std::string>& files, std::string_view hint,
                            const std::string& upload_name);

// Writes to `zip_out` a zip of the model file (at its file name) and every
// external data file it references (Model::external_data_files, at their
// locations, relative to the model's folder), stored uncompressed (weights
// barely compress; zip64 past 4 GiB). Contents are streamed from disk, never
// held in memory. Written through a temporary file beside `zip_out` and a
// rename: a failure leaves no partial file.
// Throws InputError(model.path, reason) for an external data location that
// safe_upload_name refuses (escaping the folder, hidden, ...) or a file that
// cannot be read; InputError(zip_out, "cannot write: ...") when the zip cannot
// be written.
void pack_model(const Model& model, const std::filesystem::path& zip_out);
// Loads `model_path` (load_model: its InputErrors propagate) and packs it as above.
void pack_model(const std::string& model_path, const std::filesystem::path& zip_out);

}  // namespace trtlens
