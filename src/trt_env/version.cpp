// TensorRT version numbers: text, the packed integers, agreement between sources.
#include <charconv>

#include "trtlens/trt_env.h"

namespace trtlens {

std::string TrtVersion::str() const {
  if (!known()) return "unknown";
  std::string s = std::to_string(major);
  for (int c : {minor, patch, build}) {
    if (c < 0) break;
    s += "." + std::to_string(c);
  }
  return s;
}

bool TrtVersion::agrees_with(const TrtVersion& o) const {
  const int a[] = {major, minor, patch, build};
  const int b[] = {o.major, o.minor, o.patch, o.build};
  for (int i = 0; i < 4; ++i)
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) return false;
  return true;
}

std::optional<TrtVersion> parse_trt_version(std::string_view text) {
  int parts[4] = {-1, -1, -1, -1};
  int n = 0;
  size_t i = 0;
  while (true) {
    if (n == 4 || i >= text.size()) return std::nullopt;
    int v = 0;
    auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (ec != std::errc() || v < 0) return std::nullopt;
    parts[n++] = v;
    i = static_cast<size_t>(p - text.data());
    if (i == text.size()) break;
    if (text[i] != '.') return std::nullopt;
    ++i;
  }
  return TrtVersion{parts[0], parts[1], parts[2], parts[3]};
}

TrtVersion decode_trt_version_number(long value) {
  if (value <= 0) return {};
  // Releases before 10 packed the major by 1000, so every value below 10000 is old-style.
  long unit = value < 10000 ? 1000 : 10000;
  return TrtVersion{static_cast<int>(value / unit), static_cast<int>(value % unit / 100),
                    static_cast<int>(value % 100), -1};
}

std::string_view load_verdict_name(LoadVerdict::Kind k) {
  switch (k) {
    case LoadVerdict::Yes: return "yes";
    case LoadVerdict::No: return "no";
    case LoadVerdict::Depends: return "depends";
  }
  return "depends";
}

}  // namespace trtlens
