// Zip archives written by tests with libarchive's writer, which writes what
// it is given: names with "..", duplicates and links included.
#pragma once
#include <archive_entry.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trtlens::test {

// One entry of a zip a test writes. `zeros` bytes of zeros follow `data`
// (a highly compressible payload without holding it in memory).
struct Entry {
  std::string name, data;
  unsigned type = AE_IFREG;
  std::string symlink;  // target, for AE_IFLNK
  uint64_t zeros = 0;
};
Entry file_entry(const std::string& name, const std::string& data, uint64_t zeros = 0);
Entry folder_entry(const std::string& name);
Entry symlink_entry(const std::string& name, const std::string& target);

// Writes `entries` to `path` as a zip (deflate); a libarchive failure fails the test.
void write_zip(const std::string& path, const std::vector<Entry>& entries);

}  // namespace trtlens::test
