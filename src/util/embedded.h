// Files compiled into the binary at build time (cmake/embed.cmake): the
// knowledge base under data/trt/ and the page assets under web/.
#pragma once
#include <string_view>
#include <vector>

namespace trtlens {

struct EmbeddedFile {
  std::string_view path;      // relative to the source tree, e.g. "data/trt/8.6.tsv"
  std::string_view contents;  // whole file, bytes as on disk
  std::string_view sha256;    // of the contents, lowercase hex, computed at build time
};

// Every embedded file, in build order. Never throws.
const std::vector<EmbeddedFile>& embedded_files();

// Contents of the embedded file at `path`; throws std::out_of_range when absent.
std::string_view embedded_file(std::string_view path);

}  // namespace trtlens
