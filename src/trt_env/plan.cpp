// Plan (serialized engine) headers, read offline without deserializing.
#include <filesystem>
#include <fstream>
#include <fmt/core.h>
#include <map>

#include "trtlens/error.h"
#include "util/files.h"
#include "trtlens/trt_env.h"

namespace trtlens {
namespace {

uint32_t le32(const std::string& b, size_t off) {
  return uint32_t(uint8_t(b[off])) | uint32_t(uint8_t(b[off + 1])) << 8 | uint32_t(uint8_t(b[off + 2])) << 16 |
         uint32_t(uint8_t(b[off + 3])) << 24;
}

bool is_tag(const std::string& b, size_t off) {
  return off + 4 <= b.size() && (b.compare(off, 4, "ftrt") == 0 || b.compare(off, 4, "ptrt") == 0);
}

std::string hex_bytes(const std::string& b, size_t off, size_t n) {
  std::string s;
  for (size_t i = off; i < off + n && i < b.size(); ++i) s += fmt::format("{}{:02x}", s.empty() ? "" : " ", uint8_t(b[i]));
  return s;
}

std::string printable(const std::string& b, size_t off, size_t n) {
  std::string s;
  for (size_t i = off; i < off + n && i < b.size(); ++i) s += (b[i] >= 0x20 && b[i] < 0x7f) ? b[i] : '.';
  return s;
}

// Serialization numbers seen at offset 8 of 8.x plans, with the release that wrote them.
const std::map<uint32_t, TrtVersion>& seen_serializations() {
  static const std::map<uint32_t, TrtVersion> m = {
      {205, {8, 2, -1, -1}}, {213, {8, 4, -1, -1}}, {232, {8, 5, 3, -1}}};
  return m;
}

constexpr size_t kHeaderBytes = 28;     // through the version bytes 24-27
constexpr uint32_t kMaxMetadata = 64u << 20;  // a metadata block larger than this is not one

}  // namespace

PlanInfo parse_plan(const std::string& path, const std::string& b, uint64_t file_size) {
  PlanInfo p;
  p.path = path;
  p.file_size = file_size;
  if (b.size() < 4) throw InputError(path, fmt::format("too short for a TensorRT plan ({} bytes)", b.size()));
  if (!is_tag(b, 0)) {
    uint32_t n = le32(b, 0);
    bool prefixed = n > 0 && n <= kMaxMetadata && b.size() > 4 && b[4] == '{' && is_tag(b, 4 + size_t(n));
    if (!prefixed)
      throw InputError(path, fmt::format("not a TensorRT plan: starts with {} ('{}'), expected the tag 'ftrt' or 'ptrt', "
                                         "or a 4-byte length and a JSON metadata block before it",
                                         hex_bytes(b, 0, 8), printable(b, 0, 8)));
    p.plan_offset = 4 + size_t(n);
    p.metadata_json = b.substr(4, n);
    p.fields.push_back({0, 4, "metadata length", fmt::format("{} bytes", n), false});
    p.fields.push_back({4, n, "metadata", "JSON block written by the exporter", false});
  }
  const size_t o = p.plan_offset;
  if (b.size() < o + kHeaderBytes)
    throw InputError(path, fmt::format("truncated plan header: {} bytes after the tag at offset {}, {} needed",
                                       b.size() - o, o, kHeaderBytes));
  p.tag = b.substr(o, 4);
  p.fields.push_back({o, 4, "tag", "'" + p.tag + "'", false});
  p.word4 = le32(b, o + 4);
  p.head.assign(b.begin() + long(o), b.begin() + long(std::min(b.size(), o + 64)));
  if (p.word4 == 0) {
    p.fields.push_back({o + 4, 4, "layout word", "0 (the layout trtexec --getPlanVersionOnly reads, 10.0+)", false});
    p.version = TrtVersion{uint8_t(b[o + 24]), uint8_t(b[o + 25]), uint8_t(b[o + 26]), uint8_t(b[o + 27])};
    p.version_note = "bytes 24-27 (major, minor, patch, build), as trtexec --getPlanVersionOnly reads them";
    if (p.version.major == 0 || p.version.major > 30) {  // no TensorRT release has such a major
      p.version_heuristic = true;
      p.version_note += "; the value is not a plausible release, the layout may differ";
    }
    p.fields.push_back({o + 24, 4, "version", p.version.str(), p.version_heuristic});
    return p;
  }
  p.fields.push_back({o + 4, 4, "layout word", fmt::format("{} (non-zero: not the 10.0+ layout)", p.word4), false});
  p.serialization = le32(b, o + 8);
  const auto& seen = seen_serializations();
  auto it = seen.find(*p.serialization);
  p.version_heuristic = true;
  if (it != seen.end()) {
    p.version = it->second;
    p.version_note = fmt::format("heuristic: serialization number {} was seen in plans written by TensorRT {}",
                                 *p.serialization, it->second.str());
  } else {
    std::string known;
    for (const auto& [n, v] : seen) known += fmt::format("{}{} = {}", known.empty() ? "" : ", ", n, v.str());
    p.version_note = fmt::format("heuristic: serialization number {} matches no plan seen before ({})",
                                 *p.serialization, known);
    auto after = seen.upper_bound(*p.serialization);
    if (after == seen.begin()) p.version_note += fmt::format("; older than {}", after->second.str());
    else if (after == seen.end()) p.version_note += fmt::format("; newer than {}", std::prev(after)->second.str());
    else p.version_note += fmt::format("; between {} and {}", std::prev(after)->second.str(), after->second.str());
  }
  p.fields.push_back({o + 8, 4, "serialization number", std::to_string(*p.serialization), true});
  return p;
}

PlanInfo read_plan(const std::string& path) {
  uint64_t size = regular_file_size(path);  // a folder, FIFO or device is refused without blocking
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot read: no such file or not readable");
  in.seekg(0);
  auto read_n = [&](size_t n) {
    std::string b(std::min<uint64_t>(n, size), '\0');
    in.seekg(0);
    in.read(b.data(), long(b.size()));
    if (!in) throw InputError(path, "cannot read: I/O error");
    return b;
  };
  std::string b = read_n(4096);
  if (b.size() >= 5 && !is_tag(b, 0) && b[4] == '{') {  // a metadata prefix may be longer than the first read
    uint32_t n = le32(b, 0);
    if (n <= kMaxMetadata && 4 + uint64_t(n) + 64 > b.size()) b = read_n(4 + size_t(n) + 64);
  }
  return parse_plan(path, b, size);
}

LoadVerdict plan_loadable(const PlanInfo& plan, const TrtVersion& t) {
  const TrtVersion& v = plan.version;
  if (!v.known())
    return {LoadVerdict::Depends, "the plan's TensorRT version could not be read; try `trtexec --loadEngine` on the target"};
  std::string label = plan.version_heuristic ? "(by heuristic) " : "";
  if (!v.agrees_with(t) || v.major != t.major) {
    std::string extra = (t.major == v.major && (v.major > 8 || (v.major == 8 && v.minor >= 6)))
                            ? "; only a plan built version-compatible (--versionCompatible) runs on a later release "
                              "of the same major, and the header does not say whether it was"
                            : "";
    return {LoadVerdict::No, fmt::format("written {}by TensorRT {}; TensorRT {} cannot deserialize it: plans are not "
                                     "portable across TensorRT versions{}",
                                     label, v.str(), t.str(), extra)};
  }
  if (plan.version_heuristic)
    return {LoadVerdict::Depends, fmt::format("the plan's version {} is a heuristic; it agrees with {} as far as known",
                                          v.str(), t.str())};
  bool t_full = t.build >= 0, v_full = v.build >= 0;
  if (t_full && v_full)
    return {LoadVerdict::Yes, fmt::format("written by TensorRT {}, the same version; the GPU must still match the one it "
                                      "was built for (unless built hardware-compatible)",
                                      v.str())};
  return {LoadVerdict::Depends, fmt::format("written by TensorRT {}; TensorRT loads only plans of its exact version, so {} "
                                        "must be {}",
                                        v.str(), t.str(), v.str())};
}

}  // namespace trtlens
