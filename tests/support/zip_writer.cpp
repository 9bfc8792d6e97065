#include "support/zip_writer.h"

#include <archive.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace trtlens::test {

Entry file_entry(const std::string& name, const std::string& data, uint64_t zeros) {
  return {name, data, AE_IFREG, "", zeros};
}
Entry folder_entry(const std::string& name) { return {name, "", AE_IFDIR, "", 0}; }
Entry symlink_entry(const std::string& name, const std::string& target) { return {name, "", AE_IFLNK, target, 0}; }

void write_zip(const std::string& path, const std::vector<Entry>& entries) {
  archive* a = archive_write_new();
  ASSERT_EQ(archive_write_set_format_zip(a), ARCHIVE_OK);
  ASSERT_EQ(archive_write_set_options(a, "zip:compression=deflate"), ARCHIVE_OK);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  std::string chunk(1 << 20, '\0');
  for (const Entry& e : entries) {
    archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e.name.c_str());
    archive_entry_set_filetype(ae, e.type);
    archive_entry_set_perm(ae, 0644);
    if (e.type == AE_IFLNK) archive_entry_set_symlink(ae, e.symlink.c_str());
    if (e.type == AE_IFREG) archive_entry_set_size(ae, static_cast<la_int64_t>(e.data.size() + e.zeros));
    ASSERT_EQ(archive_write_header(a, ae), ARCHIVE_OK) << archive_error_string(a);
    if (e.type == AE_IFREG) {
      archive_write_data(a, e.data.data(), e.data.size());
      for (uint64_t left = e.zeros; left > 0;) {
        size_t n = std::min<uint64_t>(left, chunk.size());
        archive_write_data(a, chunk.data(), n);
        left -= n;
      }
    }
    archive_entry_free(ae);
  }
  ASSERT_EQ(archive_write_close(a), ARCHIVE_OK);
  archive_write_free(a);
}


}  // namespace trtlens::test
