// Finding TensorRT installs and reading their versions from every source.
#include <dlfcn.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/core.h>
#include <set>

#include "trt_env/process.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"
#include "trtlens/trt_env.h"
#include "util/files.h"

namespace fs = std::filesystem;

namespace trtlens {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A system path under the sysroot.
std::string under(const std::string& sysroot, const std::string& path) {
  if (sysroot.empty() || sysroot == "/") return path;
  return (fs::path(sysroot) / fs::path(path).relative_path()).string();
}

bool is_dir(const std::string& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// "libnvinfer.so", "libnvinfer.so.10", "libnvinfer.so.10.3.0" but not libnvinfer_plugin.so.
bool is_library_named(const std::string& filename, const std::string& stem) {
  std::string prefix = stem + ".so";
  if (filename.rfind(prefix, 0) != 0) return false;
  std::string rest = filename.substr(prefix.size());
  static const RE2 suffix(R"((\.[0-9]+)*)");
  return RE2::FullMatch(rest, suffix);
}

// Version in a library file name: libnvinfer.so.10.3.0 -> 10.3.0.
TrtVersion version_from_file_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  size_t so = name.find(".so.");
  if (so == std::string::npos) return {};
  auto v = parse_trt_version(name.substr(so + 4));
  return v ? *v : TrtVersion{};
}

// Files named like `stem` in dir, most specific (longest) name first.
std::vector<std::string> libraries_in(const std::string& dir, const std::string& stem) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (is_library_named(name, stem)) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  return out;
}

std::string canonical_or_empty(const std::string& p) {
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  return ec ? std::string() : c.string();
}

struct SearchDir {
  std::string dir;
  std::string via;
};

// Library folders an install root or a folder given by the user may hold:
// a tarball (lib, lib64, CUDA-style targets/<arch>/lib), and a Debian or
// JetPack root filesystem whose packages put libraries in the multiarch
// folders (lib/<triplet>, usr/lib/<triplet>); include_dirs_for pairs each
// with its include/<triplet>.
void add_root(std::vector<SearchDir>& dirs, const std::string& root, const std::string& via) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec) || fs::is_symlink(root, ec)) {  // a library file itself
    dirs.push_back({fs::path(root).parent_path().string(), via});
    return;
  }
  for (const char* sub : {"", "/lib", "/lib64", "/targets/x86_64-linux/lib", "/targets/aarch64-linux/lib",
                          "/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                          "/usr/lib/aarch64-linux-gnu"})
    dirs.push_back({root + sub, via});
}

// Header folders for a library folder: <dir>/../include, and for Debian
// multiarch folders (/usr/lib/<triplet>) /usr/include/<triplet> then /usr/include.
std::vector<std::string> include_dirs_for(const std::string& libdir) {
  fs::path lib(libdir);
  std::vector<std::string> out;
  out.push_back((lib.parent_path() / "include").string());
  std::string base = lib.filename().string();
  if (base.find("-linux-gnu") != std::string::npos || base.find("-linux") != std::string::npos) {
    fs::path top = lib.parent_path().parent_path();
    out.push_back((top / "include" / base).string());
    out.push_back((top / "include").string());
  }
  return out;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

void fill_versions(TrtInstall& in, const std::vector<std::string>& libdirs) {
  // 1. Header.
  for (const auto& libdir : libdirs) {
    for (const auto& inc : include_dirs_for(libdir)) {
      std::string header;
      if (exists(inc + "/NvInferVersion.h")) header = inc + "/NvInferVersion.h";
      else if (exists(inc + "/NvInfer.h")) header = inc + "/NvInfer.h";  // releases before NvInferVersion.h
      if (header.empty()) continue;
      in.header = header;
      try {
        HeaderVersion h = read_version_header(header);
        std::string where = header;
        if (!h.notes.empty()) where += " (follows " + h.notes[0] + (h.notes.size() > 1 ? ", ..." : "") + ")";
        in.versions.push_back({"header", where, h.version});
      } catch (const InputError& e) {
        in.problems.push_back(e.what());
      }
      break;
    }
    if (!in.header.empty()) break;
  }
  // 2. Dynamic symbols.
  bool can_load = true;
  try {
    ElfInfo elf = read_elf_dynamic(in.real_library.empty() ? in.library : in.real_library);
    in.machine = elf.machine;
    in.symbols = trt_symbols(elf.dynamic_symbols);
    if (in.symbols.version.known()) in.versions.push_back({"symbol", in.symbols.version_symbol, in.symbols.version});
    std::string host = host_machine();
    if (!host.empty() && elf.machine != host) {
      can_load = false;
      in.load_error = "not loaded: built for " + elf.machine + ", this machine is " + host;
    }
  } catch (const InputError& e) {
    in.problems.push_back(e.what());
  }
  // 3. The library's own answer.
  if (can_load) {
    LoadProbe p = probe_library(in.library, {"getInferLibVersion", "getInferLibMajorVersion", "getInferLibMinorVersion",
                                             "getInferLibPatchVersion", "getInferLibBuildVersion"});
    if (!p.loaded) {
      in.load_error = "cannot load: " + p.error;
    } else if (auto v = p.value("getInferLibVersion")) {
      in.infer_lib_version = *v;
      in.versions.push_back({"getInferLibVersion", std::to_string(*v), decode_trt_version_number(*v)});
      auto ma = p.value("getInferLibMajorVersion"), mi = p.value("getInferLibMinorVersion"),
           pa = p.value("getInferLibPatchVersion"), bu = p.value("getInferLibBuildVersion");
      if (ma && mi && pa) {
        TrtVersion parts{int(*ma), int(*mi), int(*pa), bu ? int(*bu) : -1};
        in.versions.push_back({"getInferLibMajor/Minor/Patch/BuildVersion", parts.str(), parts});
      }
    } else {
      in.load_error = "loaded, but it has no getInferLibVersion function";
    }
  }
  // 4. File name of the real library.
  TrtVersion fv = version_from_file_name(in.real_library.empty() ? in.library : in.real_library);
  if (fv.known()) in.versions.push_back({"file name", fs::path(in.real_library).filename().string(), fv});

  // Best version: what the library itself answers, then the symbol, the header, the file name.
  static const std::vector<std::string> order = {"getInferLibMajor/Minor/Patch/BuildVersion", "getInferLibVersion",
                                                 "symbol", "header", "file name"};
  const VersionSource* best = nullptr;
  for (const auto& src : order) {
    auto it = std::find_if(in.versions.begin(), in.versions.end(), [&](const VersionSource& v) { return v.source == src; });
    if (it == in.versions.end()) continue;
    best = &*it;
    break;
  }
  if (!best) return;
  in.version = best->version;
  // One line per source the best one contradicts.
  for (const auto& v : in.versions)
    if (!v.version.agrees_with(best->version))
      in.disagreements.push_back(
          fmt::format("{} says {}, {} says {}", v.source, v.version.str(), best->source, best->version.str()));
  if (in.version.build < 0)  // the build number from any source that agrees
    for (const auto& v : in.versions)
      if (v.version.build >= 0 && v.version.agrees_with(in.version)) {
        in.version.build = v.version.build;
        break;
      }
  map_to_release(in.version, in.release, in.release_note);
}

void fill_parser(TrtInstall& in, const std::string& libdir) {
  auto libs = libraries_in(libdir, "libnvonnxparser");
  if (libs.empty()) return;
  // With several releases in one folder, the parser of this release.
  auto version_of = [](const std::string& lib) {
    std::string real = canonical_or_empty(lib);
    return version_from_file_name(real.empty() ? lib : real);
  };
  in.parser_library = libs.front();
  for (const auto& lib : libs)
    if (version_of(lib).agrees_with(in.version)) {
      in.parser_library = lib;
      break;
    }
  in.parser_version = version_of(in.parser_library);
  if (in.parser_version.known() && in.version.known() && !in.parser_version.agrees_with(in.version))
    in.disagreements.push_back(fmt::format("the ONNX parser library is {}, libnvinfer is {}", in.parser_version.str(),
                                           in.version.str()));
  if (!in.machine.empty() && in.machine != host_machine()) {
    in.parser_load_error = "not loaded: built for " + in.machine;
    return;
  }
  LoadProbe p = probe_library(in.parser_library, {"getNvOnnxParserVersion"});
  if (!p.loaded) in.parser_load_error = "cannot load: " + p.error;
  else if (auto v = p.value("getNvOnnxParserVersion")) in.parser_api_version = *v;
}

std::vector<std::string> ld_cache_paths(const SearchOptions& o, std::vector<std::string>& problems) {
  std::string cache = under(o.sysroot, "/etc/ld.so.cache");
  if (!exists(cache)) return {};
  try {
    return read_ld_so_cache(cache);
  } catch (const InputError& e) {
    problems.push_back(e.what());
    return {};
  }
}

// nvidia-smi from PATH, else NVML when `nvml` (it is loaded in-process from
// the host's driver, so not under a sysroot nor with system locations off).
void query_gpus(EnvReport& r, bool nvml) {
  std::string smi = find_in_path("nvidia-smi");
  if (!smi.empty()) {
    std::string out;
    std::string fields = "index,name,driver_version,memory.total,compute_cap";
    ProcessResult pr = run_capture({smi, "--query-gpu=" + fields, "--format=csv,noheader"}, out);
    if (pr.started && pr.exit_code != 0) {  // drivers before 510 do not know compute_cap
      fields = "index,name,driver_version,memory.total";
      pr = run_capture({smi, "--query-gpu=" + fields, "--format=csv,noheader"}, out);
    }
    if (!pr.started || pr.exit_code != 0) {
      std::string first = out.substr(0, out.find('\n'));
      r.gpu_note = pr.started ? fmt::format("nvidia-smi failed (exit {}): {}", pr.exit_code, first)
                              : "nvidia-smi could not run: " + pr.error;
      return;
    }
    r.gpu_source = "nvidia-smi";
    for (const auto& line : split(out, '\n')) {
      auto cells = split(line, ',');
      for (auto& c : cells) {
        size_t b = c.find_first_not_of(' ');
        c = b == std::string::npos ? "" : c.substr(b);
      }
      if (cells.size() < 4) continue;
      GpuInfo g;
      try {
        g.index = std::stoi(cells[0]);
      } catch (const std::exception&) {
        continue;
      }
      g.name = cells[1];
      g.driver = cells[2];
      g.memory = cells[3];
      if (cells.size() > 4) g.compute_capability = cells[4];
      r.gpus.push_back(g);
    }
    if (r.gpus.empty()) r.gpu_note = "nvidia-smi lists no GPU";
    return;
  }
  if (!nvml) {
    r.gpu_note = "none found: nvidia-smi is not in PATH (NVML is not consulted with --no-system or --sysroot)";
    return;
  }
  // NVML, the library nvidia-smi itself uses; part of the driver.
  void* h = ::dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    r.gpu_note = "none found: nvidia-smi is not in PATH and NVML (libnvidia-ml.so.1) is not installed";
    return;
  }
  using InitFn = int (*)();
  using CountFn = int (*)(unsigned*);
  using HandleFn = int (*)(unsigned, void**);
  using NameFn = int (*)(void*, char*, unsigned);
  using DriverFn = int (*)(char*, unsigned);
  using CapFn = int (*)(void*, int*, int*);
  auto init = reinterpret_cast<InitFn>(::dlsym(h, "nvmlInit_v2"));
  auto count = reinterpret_cast<CountFn>(::dlsym(h, "nvmlDeviceGetCount_v2"));
  auto handle = reinterpret_cast<HandleFn>(::dlsym(h, "nvmlDeviceGetHandleByIndex_v2"));
  auto name = reinterpret_cast<NameFn>(::dlsym(h, "nvmlDeviceGetName"));
  auto driver = reinterpret_cast<DriverFn>(::dlsym(h, "nvmlSystemGetDriverVersion"));
  auto cap = reinterpret_cast<CapFn>(::dlsym(h, "nvmlDeviceGetCudaComputeCapability"));
  auto shutdown = reinterpret_cast<InitFn>(::dlsym(h, "nvmlShutdown"));
  unsigned n = 0;
  if (!init || !count || !handle || !name || init() != 0) {
    r.gpu_note = "NVML is installed but could not be initialised (no driver loaded?)";
    ::dlclose(h);
    return;
  }
  r.gpu_source = "NVML";
  char drv[96] = "";
  if (driver) driver(drv, sizeof drv);
  if (count(&n) == 0)
    for (unsigned i = 0; i < n; ++i) {
      void* dev = nullptr;
      if (handle(i, &dev) != 0) continue;
      GpuInfo g;
      g.index = static_cast<int>(i);
      char buf[96] = "";
      if (name(dev, buf, sizeof buf) == 0) g.name = buf;
      g.driver = drv;
      int ma = 0, mi = 0;
      if (cap && cap(dev, &ma, &mi) == 0) g.compute_capability = fmt::format("{}.{}", ma, mi);
      r.gpus.push_back(g);
    }
  if (shutdown) shutdown();
  ::dlclose(h);
  if (r.gpus.empty()) r.gpu_note = "NVML lists no GPU";
}

}  // namespace

SearchOptions search_options_from_environment() {
  SearchOptions o;
  o.tensorrt_root = env_or_empty("TENSORRT_ROOT");
  o.ld_library_path = env_or_empty("LD_LIBRARY_PATH");
  o.sysroot = env_or_empty("TRTLENS_SYSROOT");
  std::string sys = env_or_empty("TRTLENS_ENV_SYSTEM_PATHS");
  if (sys == "0" || sys == "no" || sys == "off" || sys == "false") o.system = false;
  return o;
}

void map_to_release(const TrtVersion& version, std::string& release, std::string& note) {
  release.clear();
  note.clear();
  TrtVersion mmp{version.major, version.minor, version.patch, -1};
  try {
    release = KnowledgeBase::builtin().resolve(mmp.str()).name;
  } catch (const UsageError& e) {
    note = e.what();
  }
}

std::vector<std::string> read_ld_so_cache(const std::string& path) {
  std::string data = read_file(path);
  static const char kNew[] = "glibc-ld.so.cache1.1";
  static const char kOld[] = "ld.so-1.7.0";
  size_t base = 0;
  if (data.compare(0, sizeof kOld - 1, kOld) == 0) {
    // Old format first: 12-byte magic, count, 12-byte entries, then the new
    // format aligned to 8 bytes.
    if (data.size() < 16) throw InputError(path, "truncated ld.so.cache");
    uint32_t n;
    std::memcpy(&n, data.data() + 12, 4);
    base = (16 + size_t(n) * 12 + 7) & ~size_t(7);
  }
  if (data.size() < base + 48 || data.compare(base, sizeof kNew - 1, kNew) != 0)
    throw InputError(path, "not an ld.so.cache in the glibc 1.1 format");
  uint32_t nlibs;
  std::memcpy(&nlibs, data.data() + base + 20, 4);
  if (size_t(nlibs) * 24 > data.size() - base - 48) throw InputError(path, "truncated ld.so.cache: entry table");
  std::vector<std::string> out;
  for (uint32_t i = 0; i < nlibs; ++i) {
    uint32_t value;
    std::memcpy(&value, data.data() + base + 48 + size_t(i) * 24 + 8, 4);
    // String offsets count from the start of the new-format header.
    size_t off = base + value;
    if (off >= data.size()) throw InputError(path, fmt::format("ld.so.cache entry {} points past the end", i));
    size_t end = data.find('\0', off);
    out.push_back(data.substr(off, end == std::string::npos ? std::string::npos : end - off));
  }
  return out;
}

EnvReport discover_trt(const SearchOptions& o) {
  EnvReport r;
  std::vector<SearchDir> dirs;
  for (const auto& p : o.paths) add_root(dirs, p, "--path");
  if (!o.tensorrt_root.empty()) add_root(dirs, o.tensorrt_root, "TENSORRT_ROOT");
  for (const auto& d : split(o.ld_library_path, ':')) dirs.push_back({d, "LD_LIBRARY_PATH"});
  std::vector<std::string> cache_problems;
  std::vector<std::string> cached;
  if (o.system) {
    cached = ld_cache_paths(o, cache_problems);
    for (const auto& lib : cached) {
      std::string name = fs::path(lib).filename().string();
      if (is_library_named(name, "libnvinfer"))
        dirs.push_back({under(o.sysroot, fs::path(lib).parent_path().string()), "ldconfig cache"});
    }
    for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"})
      dirs.push_back({under(o.sysroot, d), "system"});
    add_root(dirs, under(o.sysroot, "/usr/local/tensorrt"), "system");
  }

  // Each real libnvinfer file is one install, however many names and routes
  // lead to it; one folder may hold several releases side by side.
  std::vector<std::vector<std::string>> install_dirs;
  std::vector<std::string> cuda_dirs;
  for (const auto& sd : dirs) {
    if (!is_dir(sd.dir)) continue;
    add_unique(r.searched, sd.dir);
    add_unique(cuda_dirs, sd.dir);
    std::vector<std::string> broken;
    bool resolved = false;
    for (const auto& lib : libraries_in(sd.dir, "libnvinfer")) {  // most specific name first
      std::string real = canonical_or_empty(lib);
      if (real.empty()) {
        broken.push_back(lib);
        continue;
      }
      resolved = true;
      auto it = std::find_if(r.installs.begin(), r.installs.end(),
                             [&](const TrtInstall& in) { return in.real_library == real; });
      if (it != r.installs.end()) {
        add_unique(it->found_via, sd.via);
        add_unique(install_dirs[size_t(it - r.installs.begin())], sd.dir);
        continue;
      }
      TrtInstall in;
      in.library = lib;
      in.real_library = real;
      in.found_via.push_back(sd.via);
      r.installs.push_back(std::move(in));
      install_dirs.push_back({sd.dir});
    }
    if (!resolved && !broken.empty()) {
      TrtInstall in;
      in.library = broken.front();
      in.found_via.push_back(sd.via);
      in.problems.push_back(broken.front() + ": broken symbolic link");
      r.installs.push_back(std::move(in));
      install_dirs.push_back({sd.dir});
    }
  }
  for (size_t i = 0; i < r.installs.size(); ++i) {
    TrtInstall& in = r.installs[i];
    if (in.real_library.empty()) continue;
    std::vector<std::string> libdirs = install_dirs[i];
    add_unique(libdirs, fs::path(in.real_library).parent_path().string());
    fill_versions(in, libdirs);
    fill_parser(in, install_dirs[i].front());
  }
  if (!r.installs.empty()) r.installs.front().problems.insert(r.installs.front().problems.end(), cache_problems.begin(), cache_problems.end());

  // CUDA runtime: beside TensorRT, then the CUDA toolkit's own folders.
  if (o.system) {
    for (const auto& lib : cached)
      if (is_library_named(fs::path(lib).filename().string(), "libcudart"))
        add_unique(cuda_dirs, under(o.sysroot, fs::path(lib).parent_path().string()));
    for (const char* d : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                          "/usr/local/cuda/targets/aarch64-linux/lib"})
      add_unique(cuda_dirs, under(o.sysroot, d));
  }
  std::set<std::string> seen;
  for (const auto& d : cuda_dirs) {
    if (!is_dir(d)) continue;
    auto libs = libraries_in(d, "libcudart");
    if (libs.empty()) continue;
    std::string real = canonical_or_empty(libs.front());
    if (real.empty() || !seen.insert(real).second) continue;
    CudaRuntime c;
    c.library = libs.front();
    c.version = version_from_file_name(real);
    c.source = c.version.known() ? "file name" : "";
    std::string machine;
    try {
      machine = read_elf_dynamic(real).machine;
    } catch (const InputError& e) {
      c.load_error = e.what();
    }
    if (!machine.empty() && machine != host_machine()) {
      c.load_error = "not loaded: built for " + machine;
    } else if (c.load_error.empty()) {
      LoadProbe p = probe_library(c.library, {}, {"cudaRuntimeGetVersion"});
      if (!p.loaded) c.load_error = "cannot load: " + p.error;
      else if (auto v = p.value("cudaRuntimeGetVersion")) {
        // CUDART_VERSION packing: major*1000 + minor*10.
        c.version = TrtVersion{int(*v / 1000), int(*v % 1000 / 10), -1, -1};
        c.source = "cudaRuntimeGetVersion";
      }
    }
    r.cuda.push_back(c);
  }

  if (o.query_gpus) query_gpus(r, o.system && (o.sysroot.empty() || o.sysroot == "/"));
  else r.gpu_note = "not queried (--no-gpu)";
  return r;
}

}  // namespace trtlens
