// The TensorRT environment, read without a GPU and without TensorRT's own API:
// which TensorRT is installed (headers, library symbols, the library's own
// version function), which TensorRT wrote a plan file, whether an INT8
// calibration cache fits a release, and a trtexec driver for `trtlens build`.
//
// Where the facts come from, and how sure they are:
// - NvInferVersion.h (older releases: NvInfer.h): NV_TENSORRT_MAJOR/MINOR/
//   PATCH/BUILD, macro indirection followed (10.11+ defines them through
//   TRT_MAJOR_ENTERPRISE and friends).
// - libnvinfer.so dynamic symbols (read from .dynsym, never by loading):
//   `tensorrt_version_M_m_p_b` and `tensorrt_build_...` (build date, changelist).
// - getInferLibVersion() (and, from 10.0, getInferLibMajorVersion/Minor/Patch/
//   Build), called in a child process so a library that crashes while loading
//   cannot take trtlens down.
// - Plan headers: the tag and the version bytes trtexec --getPlanVersionOnly
//   reads (10.0+); the 8.x serialization number is a heuristic, labelled so.
//
// Errors: functions that read one named file throw InputError(file, problem);
// discovery never throws for what it finds, it records problems per install.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trtlens {

// ---------------------------------------------------------------- versions

// A TensorRT version. Components not stated are -1 ("10.3" has patch -1).
struct TrtVersion {
  int major = -1, minor = -1, patch = -1, build = -1;
  bool known() const { return major >= 0; }
  // "10.3.0.26", "10.3", ... only the stated components.
  std::string str() const;
  // True when every component stated in both agrees.
  bool agrees_with(const TrtVersion& other) const;
};

// Parses "10", "10.3", "10.3.0" or "10.3.0.26"; nullopt for anything else.
std::optional<TrtVersion> parse_trt_version(std::string_view text);

// Decodes the integer of getInferLibVersion() and of calibration-cache
// headers: M*1000+m*100+p up to 8.x (8601 = 8.6.1), M*10000+m*100+p from
// 10.0 (100300 = 10.3.0). Returns an unknown version for values <= 0.
TrtVersion decode_trt_version_number(long value);

// ------------------------------------------------------------ header files

// NV_TENSORRT_* macros of one header file.
struct HeaderVersion {
  std::string path;
  TrtVersion version;            // build from NV_TENSORRT_BUILD when present
  std::vector<std::string> notes;  // e.g. "NV_TENSORRT_MAJOR via TRT_MAJOR_ENTERPRISE"
};
// Reads NvInferVersion.h or NvInfer.h. Throws InputError(path, problem) when
// the file is unreadable, lacks NV_TENSORRT_MAJOR/MINOR/PATCH, or a macro
// leads to something that is not a number.
HeaderVersion read_version_header(const std::string& path);
// Same, on header text already read; `path` names it in errors.
HeaderVersion parse_version_header(const std::string& path, const std::string& text);

// --------------------------------------------------------------------- ELF

struct ElfInfo {
  std::string machine;  // "x86_64", "aarch64", or "machine 0x.." for others
  int bits = 0;         // 32 or 64
  std::string soname;   // DT_SONAME, may be empty
  std::vector<std::string> dynamic_symbols;  // defined symbols of .dynsym
};
// Reads the ELF header and .dynsym/.dynstr of a shared library (little-endian
// ELF32/ELF64), reading only those sections. Throws InputError(path, problem)
// for a file that is not ELF, truncated, or has no dynamic symbol table.
ElfInfo read_elf_dynamic(const std::string& path);
// Machine name of this process ("x86_64" ...), in ElfInfo::machine spelling.
std::string host_machine();

// TensorRT facts in libnvinfer's dynamic symbols.
struct LibrarySymbols {
  std::string version_symbol;  // "tensorrt_version_10_3_0_26" or ""
  TrtVersion version;          // from version_symbol
  std::string build_symbol;    // "tensorrt_build_..." or ""
  std::string build_date;      // YYYY-MM-DD from build_symbol (heuristic), or ""
  std::string changelist;      // number in build_symbol after the date (heuristic), or ""
};
LibrarySymbols trt_symbols(const std::vector<std::string>& dynamic_symbols);

// ------------------------------------------------------------ load probing

// Outcome of dlopen'ing a library in a child process and calling int-valued
// version functions of it.
struct LoadProbe {
  bool loaded = false;
  std::string error;  // why it did not load (dlerror text, or the signal that killed the child)
  // Symbol name -> value, for each requested function that exists.
  std::vector<std::pair<std::string, long>> values;
  std::optional<long> value(std::string_view symbol) const;
};
// `int32_t f(void)` functions and `int f(int*)` functions (CUDA style) to call.
LoadProbe probe_library(const std::string& path, const std::vector<std::string>& int_functions,
                        const std::vector<std::string>& out_param_functions = {});

// ---------------------------------------------------------------- discovery

// Where to look. System locations are the ldconfig cache, /usr/lib/x86_64-
// linux-gnu, /usr/lib/aarch64-linux-gnu (Jetson), /usr/local/tensorrt and
// /usr/local/cuda, all under `sysroot` (a mounted Jetson image, or a test tree).
struct SearchOptions {
  std::vector<std::string> paths;  // --path: install roots or library folders
  std::string tensorrt_root;       // $TENSORRT_ROOT
  std::string ld_library_path;     // $LD_LIBRARY_PATH
  bool system = true;              // false: --no-system or TRTLENS_ENV_SYSTEM_PATHS=0
  std::string sysroot;             // --sysroot or $TRTLENS_SYSROOT; "" = /
  bool query_gpus = true;          // run nvidia-smi (from PATH) or NVML
};
// Reads TENSORRT_ROOT, LD_LIBRARY_PATH, TRTLENS_SYSROOT and
// TRTLENS_ENV_SYSTEM_PATHS from the environment.
SearchOptions search_options_from_environment();

// A version read from one source, for side-by-side display.
struct VersionSource {
  std::string source;  // "header", "symbol", "getInferLibVersion", "file name"
  std::string where;   // file it came from, or the raw value
  TrtVersion version;
};

struct TrtInstall {
  std::string library;                // libnvinfer path as found (a symlink, often)
  std::string real_library;           // canonical path of the file
  std::vector<std::string> found_via; // "--path", "TENSORRT_ROOT", "LD_LIBRARY_PATH", "ldconfig cache", "system"
  std::string machine;                // ELF machine of the library
  std::vector<VersionSource> versions;  // every source that answered
  LibrarySymbols symbols;
  std::optional<long> infer_lib_version;  // raw getInferLibVersion()
  std::string header;                 // header read, or ""
  std::string load_error;             // why getInferLibVersion could not be called, or ""
  std::vector<std::string> problems;  // unreadable header, broken ELF, ...
  // One per source that contradicts the best one: "header says 10.2.0.19, getInferLibVersion says 10.3.0";
  // also an ONNX parser library of another release.
  std::vector<std::string> disagreements;
  TrtVersion version;                 // best: getInferLibVersion > symbol > header > file name
  std::string release;                // knowledge-base release ("10.3"), or "" when none
  std::string release_note;           // why there is none, when release is ""
  // ONNX parser library beside libnvinfer.
  std::string parser_library;
  TrtVersion parser_version;          // from its file name
  std::optional<long> parser_api_version;  // getNvOnnxParserVersion() (the parser API, not TensorRT)
  std::string parser_load_error;
};

struct CudaRuntime {
  std::string library;
  TrtVersion version;                // major.minor[.patch] from cudaRuntimeGetVersion or the file name
  std::string source;                // "cudaRuntimeGetVersion" or "file name"
  std::string load_error;
};

struct GpuInfo {
  int index = 0;
  std::string name, driver, memory, compute_capability;  // as the tool reports them
};

struct EnvReport {
  std::vector<TrtInstall> installs;  // first is the one a default search would load
  std::vector<CudaRuntime> cuda;
  std::vector<GpuInfo> gpus;
  std::string gpu_source;            // "nvidia-smi", "NVML" or ""
  std::string gpu_note;              // why no GPU information, when none
  std::vector<std::string> searched; // folders looked in, in order
};

// Searches, reads and probes. Never throws for what it finds.
EnvReport discover_trt(const SearchOptions& options);

// Maps a found version to the knowledge-base release `trtlens check` would
// use: fills `release` or `release_note`.
void map_to_release(const TrtVersion& version, std::string& release, std::string& note);

// Parses an ld.so.cache (new "glibc-ld.so.cache1.1" format, alone or after
// the old one): the library paths it lists. Throws InputError on a bad file.
std::vector<std::string> read_ld_so_cache(const std::string& path);

// ------------------------------------------------------ verdicts, plan, calib

// Whether a TensorRT release can load a plan or use a calibration cache:
// yes, no, or it depends (on a component the target does not state, or on a
// heuristic), always with the reason.
struct LoadVerdict {
  enum Kind { Yes, No, Depends } kind = Depends;
  std::string reason;
};
std::string_view load_verdict_name(LoadVerdict::Kind k);  // "yes", "no", "depends"

struct PlanField {
  size_t offset = 0, size = 0;  // bytes, from the start of the file
  std::string name;             // "tag", "version", ...
  std::string value;
  bool heuristic = false;
};

struct PlanInfo {
  std::string path;
  uint64_t file_size = 0;        // bytes
  size_t plan_offset = 0;        // where the plan tag starts (after a metadata prefix)
  std::string metadata_json;     // JSON block of a length-prefixed metadata header, or ""
  std::string tag;               // "ftrt" or "ptrt"
  uint32_t word4 = 0;            // 32-bit word at plan offset 4
  TrtVersion version;            // from bytes 24-27 (word4 == 0), or the 8.x heuristic
  bool version_heuristic = false;
  std::string version_note;      // how the version was read
  std::optional<uint32_t> serialization;  // 8.x serialization number at plan offset 8
  std::vector<PlanField> fields;
  std::vector<uint8_t> head;     // first bytes of the plan (from plan_offset), up to 64
};
// Reads the header of a serialized engine. Throws InputError(path, problem)
// for an unreadable file, one shorter than a plan header, or one without a
// plan tag (naming the bytes found).
PlanInfo read_plan(const std::string& path);
PlanInfo parse_plan(const std::string& path, const std::string& bytes, uint64_t file_size);
// Whether TensorRT `target` can deserialize the plan: yes only when every
// version component agrees (TensorRT loads plans of its exact version); no
// when any stated component differs.
LoadVerdict plan_loadable(const PlanInfo& plan, const TrtVersion& target);

struct CalibEntry {
  std::string tensor;
  uint32_t bits = 0;  // IEEE-754 float32 bit pattern as written
  float scale = 0;
  int line = 0;       // 1-based
};

struct CalibCache {
  std::string path;
  std::string header;        // first line, e.g. "TRT-8601-EntropyCalibration2"
  long version_number = 0;   // 8601
  TrtVersion version;        // 8.6.1
  std::string calibrator;    // "EntropyCalibration2"
  std::vector<CalibEntry> entries;
  std::vector<std::string> warnings;  // duplicate names, non-positive or non-finite scales
  // Smallest and largest positive finite scale; 0 when none.
  float min_scale = 0, max_scale = 0;
};
// Throws InputError(path, "line N: problem") for an empty file, a first line
// that is not TRT-<number>-<calibrator>, or a line that is not "name: hex"
// with 1 to 8 hex digits.
CalibCache read_calib_cache(const std::string& path);
CalibCache parse_calib_cache(const std::string& path, const std::string& text);
// Whether TensorRT `target` uses the cache (11.x: implicit INT8 calibration removed).
LoadVerdict calib_usable(const CalibCache& cache, const TrtVersion& target);

// ------------------------------------------------------------------ trtexec

// trtexec to run: `explicit_path` when given, else PATH, else
// <sysroot>/usr/src/tensorrt/bin/trtexec when system locations are on.
// Returns "" when none is found; throws UsageError when `explicit_path` is
// not an executable file.
std::string find_trtexec(const std::string& explicit_path, const SearchOptions& options);

// trtexec's console log is read by parse_trtexec_log (trtlens/engine.h).

}  // namespace trtlens
