// A read-only memory map of a whole file: pages are read only when touched,
// so skipping a region costs nothing.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace trtlens {

class MappedFile {
 public:
  // Maps `path`. Throws InputError(path, ...) when it cannot be opened or is a
  // folder. An empty file maps to an empty view.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view view() const { return {static_cast<const char*>(data_), size_}; }
  size_t size() const { return size_; }
  // Lets the kernel take back the pages read so far (they stay in the page
  // cache, and a later read maps them again): a loader done with a large
  // file need not count it in its memory.
  void drop_pages();

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace trtlens
