// INT8 calibration caches: "TRT-<version>-<calibrator>" then "tensor: <hex float32 bits>".
#include <bit>
#include <cmath>
#include <filesystem>
#include <fmt/core.h>
#include <set>
#include <sstream>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"
#include "util/files.h"

namespace trtlens {
namespace {

const std::set<std::string, std::less<>>& known_calibrators() {
  static const std::set<std::string, std::less<>> s = {"EntropyCalibration", "EntropyCalibration2",
                                                       "MinMaxCalibration", "LegacyCalibration"};
  return s;
}

// A line as it may appear in a one-line error: at most 60 characters, bytes
// outside printable ASCII (a binary file given by mistake) shown as '.'.
std::string shorten(const std::string& s) {
  std::string out = s.size() > 60 ? s.substr(0, 57) + "..." : s;
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '.';
  return out;
}

}  // namespace

CalibCache parse_calib_cache(const std::string& path, const std::string& text) {
  CalibCache c;
  c.path = path;
  if (text.empty()) throw InputError(path, "empty file; not a calibration cache");
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::set<std::string> names;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineno == 1) {
      // TRT-<digits>-<calibrator>
      bool ok = line.rfind("TRT-", 0) == 0;
      size_t dash = ok ? line.find('-', 4) : std::string::npos;
      std::string num = dash == std::string::npos ? "" : line.substr(4, dash - 4);
      ok = ok && !num.empty() && num.size() <= 9 && num.find_first_not_of("0123456789") == std::string::npos &&
           dash + 1 < line.size();
      if (!ok)
        throw InputError(path, fmt::format("line 1: '{}' is not a calibration cache header "
                                           "(expected TRT-<version>-<calibrator>, e.g. TRT-8601-EntropyCalibration2)",
                                           shorten(line)));
      c.header = line;
      c.version_number = std::stol(num);
      c.version = decode_trt_version_number(c.version_number);
      c.calibrator = line.substr(dash + 1);
      if (!known_calibrators().count(c.calibrator))
        c.warnings.push_back(fmt::format("unknown calibrator '{}' (known: EntropyCalibration2, EntropyCalibration, "
                                         "MinMaxCalibration, LegacyCalibration)", c.calibrator));
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    // The name may itself hold ':', so the last one separates it from the scale.
    size_t colon = line.rfind(':');
    if (colon == std::string::npos || colon == 0)
      throw InputError(path, fmt::format("line {}: '{}' is not 'tensor: scale'", lineno, shorten(line)));
    std::string hex = line.substr(colon + 1);
    size_t b = hex.find_first_not_of(' ');
    hex = b == std::string::npos ? "" : hex.substr(b);
    while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t')) hex.pop_back();
    if (hex.empty() || hex.size() > 8 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw InputError(path, fmt::format("line {}: scale '{}' is not 1 to 8 hex digits (a float32 bit pattern)",
                                         lineno, shorten(hex)));
    CalibEntry e;
    e.tensor = line.substr(0, colon);
    e.bits = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
    e.scale = std::bit_cast<float>(e.bits);
    e.line = lineno;
    if (!names.insert(e.tensor).second)
      c.warnings.push_back(fmt::format("line {}: tensor '{}' appears again; the last scale wins", lineno, e.tensor));
    if (!std::isfinite(e.scale) || e.scale <= 0)
      c.warnings.push_back(fmt::format("line {}: tensor '{}' has scale {} (bits {}), not a positive number", lineno,
                                       e.tensor, e.scale, hex));
    else {
      if (c.min_scale == 0 || e.scale < c.min_scale) c.min_scale = e.scale;
      if (e.scale > c.max_scale) c.max_scale = e.scale;
    }
    c.entries.push_back(std::move(e));
  }
  return c;
}

CalibCache read_calib_cache(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a folder, not a calibration cache");
  // Calibration caches are a few KB: one line per tensor.
  return parse_calib_cache(path, read_file(path, uint64_t{64} << 20));
}

LoadVerdict calib_usable(const CalibCache& c, const TrtVersion& t) {
  if (t.major >= 11)
    return {LoadVerdict::No, fmt::format("TensorRT {} has no implicit INT8 calibration (removed in TensorRT 11), so no "
                                     "calibration cache is used; quantize explicitly with Q/DQ nodes instead",
                                     t.str())};
  TrtVersion cv = c.version;
  if (!cv.agrees_with(t))
    return {LoadVerdict::No, fmt::format("written by TensorRT {}; TensorRT {} will not use it: calibration caches are not "
                                     "portable across TensorRT versions, recalibrate with {}",
                                     cv.str(), t.str(), t.str())};
  if (t.patch < 0)
    return {LoadVerdict::Depends, fmt::format("written by TensorRT {}: usable only if your {} is {} (caches are not portable "
                                          "across versions, patch releases included)",
                                          cv.str(), t.str(), cv.str())};
  return {LoadVerdict::Yes, fmt::format("written by TensorRT {}, the same version; a different GPU is fine", cv.str())};
}

}  // namespace trtlens
