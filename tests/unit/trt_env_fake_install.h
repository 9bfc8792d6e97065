// Fake TensorRT installs for the trt_env tests: the fake libraries built by
// tests/trt_env_fakes.cmake, copied into the layouts real installs use, plus
// headers, ld.so.cache files and plan files written here.
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/paths.h"
#include "support/plan_bytes.h"

namespace trtlens::test::fake {

namespace fs = std::filesystem;

inline std::string fixtures() { return TRT_FAKE_FIXTURES; }

// Copies a built library into `dir` under its real name (libnvinfer.so.10.3.0)
// with the soname and development links real packages have. Returns the
// path of the real file.
inline std::string install_lib(const std::string& built, const std::string& dir) {
  fs::create_directories(dir);
  std::string name = fs::path(built).filename().string();  // libX.so.M.m.p
  fs::copy_file(built, fs::path(dir) / name, fs::copy_options::overwrite_existing);
  size_t so = name.find(".so.");
  std::string base = name.substr(0, so + 3);                                 // libX.so
  std::string major = name.substr(0, name.find('.', so + 4));                // libX.so.M
  if (major != name && !fs::exists(fs::path(dir) / major)) fs::create_symlink(name, fs::path(dir) / major);
  if (!fs::exists(fs::path(dir) / base)) fs::create_symlink(major, fs::path(dir) / base);
  return (fs::path(dir) / name).string();
}

// NvInferVersion.h as 8.x (literal values) or 10.11+ (through TRT_*_ENTERPRISE) write it.
inline void write_header(const std::string& dir, int major, int minor, int patch, int build, bool enterprise) {
  std::string h = "/* test header */\n#ifndef NV_INFER_VERSION_H\n#define NV_INFER_VERSION_H\n\n";
  if (enterprise) {
    h += "#define TRT_MAJOR_ENTERPRISE " + std::to_string(major) + "\n";
    h += "#define TRT_MINOR_ENTERPRISE " + std::to_string(minor) + "\n";
    h += "#define TRT_PATCH_ENTERPRISE " + std::to_string(patch) + "\n";
    h += "#define TRT_BUILD_ENTERPRISE " + std::to_string(build) + "\n";
    h += "#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE //!< TensorRT major version.\n";
    h += "#define NV_TENSORRT_MINOR TRT_MINOR_ENTERPRISE //!< TensorRT minor version.\n";
    h += "#define NV_TENSORRT_PATCH TRT_PATCH_ENTERPRISE //!< TensorRT patch version.\n";
    h += "#define NV_TENSORRT_BUILD TRT_BUILD_ENTERPRISE //!< TensorRT build number.\n";
  } else {
    h += "#define NV_TENSORRT_MAJOR " + std::to_string(major) + " //!< TensorRT major version.\n";
    h += "#define NV_TENSORRT_MINOR " + std::to_string(minor) + " //!< TensorRT minor version.\n";
    h += "#define NV_TENSORRT_PATCH " + std::to_string(patch) + " //!< TensorRT patch version.\n";
    h += "#define NV_TENSORRT_BUILD " + std::to_string(build) + " //!< TensorRT build number.\n";
  }
  h += "\n#endif\n";
  write_text(dir + "/NvInferVersion.h", h);
}

// A tarball install: <root>/lib (libnvinfer, libnvonnxparser) and <root>/include.
inline std::string tarball_10(const std::string& root) {
  install_lib(TRT_FAKE_NVINFER_10, root + "/lib");
  install_lib(TRT_FAKE_NVONNXPARSER_10, root + "/lib");
  write_header(root + "/include", 10, 3, 0, 26, true);
  return root;
}

// Debian packages on a desktop: /usr/lib/x86_64-linux-gnu and /usr/include/x86_64-linux-gnu.
inline void desktop_8(const std::string& sysroot) {
  install_lib(TRT_FAKE_NVINFER_8, sysroot + "/usr/lib/x86_64-linux-gnu");
  write_header(sysroot + "/usr/include/x86_64-linux-gnu", 8, 6, 1, 6, false);
}

// JetPack: /usr/lib/aarch64-linux-gnu and /usr/include/aarch64-linux-gnu.
inline void jetson_10(const std::string& sysroot) {
  install_lib(TRT_FAKE_NVINFER_10, sysroot + "/usr/lib/aarch64-linux-gnu");
  install_lib(TRT_FAKE_NVONNXPARSER_10, sysroot + "/usr/lib/aarch64-linux-gnu");
  write_header(sysroot + "/usr/include/aarch64-linux-gnu", 10, 3, 0, 26, true);
}

// An ld.so.cache in the glibc 1.1 format listing `paths`.
inline void write_ld_cache(const std::string& file, const std::vector<std::string>& paths) {
  std::string strings;
  std::vector<std::pair<uint32_t, uint32_t>> offsets;
  size_t header = 48, entries = 24 * paths.size();
  for (const auto& p : paths) {
    uint32_t key = uint32_t(header + entries + strings.size());
    strings += fs::path(p).filename().string() + '\0';
    uint32_t value = uint32_t(header + entries + strings.size());
    strings += p + '\0';
    offsets.push_back({key, value});
  }
  std::string out(header, '\0');
  std::memcpy(out.data(), "glibc-ld.so.cache1.1", 20);
  uint32_t n = uint32_t(paths.size()), len = uint32_t(strings.size());
  std::memcpy(out.data() + 20, &n, 4);
  std::memcpy(out.data() + 24, &len, 4);
  for (const auto& [k, v] : offsets) {
    std::string e(24, '\0');
    int32_t flags = 0x0303;  // ELF, x86-64 libc6
    std::memcpy(e.data(), &flags, 4);
    std::memcpy(e.data() + 4, &k, 4);
    std::memcpy(e.data() + 8, &v, 4);
    out += e;
  }
  out += strings;
  write_text(file, out);
}

// Plan bytes (plan_10, plan_8, with_metadata) are in support/plan_bytes.h.
using trtlens::test::plan_10;
using trtlens::test::plan_8;
using trtlens::test::with_metadata;

// Environment for running trtlens with only the given locations visible.
inline std::vector<std::string> hermetic_env(const std::string& sysroot, const std::string& path_dirs = "") {
  return {"TRTLENS_SYSROOT=" + sysroot, "LD_LIBRARY_PATH=", "TENSORRT_ROOT=", "TRTLENS_ENV_SYSTEM_PATHS=1",
          "PATH=" + (path_dirs.empty() ? std::string() : path_dirs + ":") + "/usr/bin:/bin", "NO_COLOR=1"};
}

}  // namespace trtlens::test::fake
