#include "util/embedded.h"

#include <stdexcept>
#include <string>

namespace trtlens {

std::string_view embedded_file(std::string_view path) {
  for (const auto& f : embedded_files())
    if (f.path == path) return f.contents;
  throw std::out_of_range("no embedded file " + std::string(path));
}

}  // namespace trtlens
