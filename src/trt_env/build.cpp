#include "trt_env/build.h"
#include "util/sha256.h"

#include <re2/re2.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "trt_env/process.h"
#include "trtlens/error.h"
#include "util/files.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace trtlens {
namespace {

// A number as a double; null past a double's range (a hostile log's 1e400).
json number_of(const std::string& n) {
  double d = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), d);
  return ec == std::errc() && end == n.data() + n.size() ? json(d) : json(nullptr);
}

// "1.41 GHz" -> 1.41, "8.0" -> 8.0; other values stay text ("80994 MiB").
json value_of(const std::string& v) {
  static const RE2 num(R"((-?[0-9]+(?:\.[0-9]+)?)(?: (?:GHz|MHz|bits|qps|ms))?)");
  std::string n;
  if (RE2::FullMatch(v, num, &n)) {
    json d = number_of(n);
    if (!d.is_null()) return d;
  }
  return v;
}

// "min = 0.85 ms, max = 0.87 ms, mean = ..." -> [0.85, 0.87, ...]
json numbers_of(const std::string& v) {
  static const RE2 num(R"(= (-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?))");
  json out = json::array();
  re2::StringPiece rest(v);
  std::string n;
  while (RE2::FindAndConsume(&rest, num, &n)) out.push_back(number_of(n));
  if (out.empty()) return value_of(v);
  return out;
}

// A log section as TREx's metadata files hold it: values as text, as numbers
// (device), or as the list of numbers in them (performance summary).
enum class Values { Text, Number, Numbers };
json section_json(const KeyValues& section, Values as) {
  json out = json::object();
  for (const auto& [k, v] : section)
    out[k] = as == Values::Numbers ? numbers_of(v) : as == Values::Number ? value_of(v) : json(v);
  return out;
}

// Copies `from` to `to` all-or-nothing (OutputStream: a regular file or a new path only).
void copy_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw InputError(from, "cannot read: no such file or not readable");
  OutputStream out(to);
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    out.write({buf.data(), static_cast<size_t>(in.gcount())});
  if (in.bad()) throw InputError(from, "cannot read: I/O error");
  out.commit();
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

const std::vector<std::string>& engine_file_suffixes() {
  static const std::vector<std::string> s = {"",
                                             ".graph.json",
                                             ".profile.json",
                                             ".timing.json",
                                             ".build.metadata.json",
                                             ".profile.metadata.json",
                                             ".trtexec.log"};
  return s;
}

std::string default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return (fs::path(xdg) / "trtlens").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".cache" / "trtlens").string();
}

std::vector<std::string> precision_flags(const std::string& precision) {
  std::vector<std::string> flags;
  size_t start = 0;
  while (start <= precision.size()) {
    size_t end = precision.find(',', start);
    if (end == std::string::npos) end = precision.size();
    std::string p = precision.substr(start, end - start);
    for (char& c : p) c = char(std::tolower(static_cast<unsigned char>(c)));
    start = end + 1;
    if (p == "fp32") continue;  // trtexec's default
    if (p == "fp16" || p == "bf16" || p == "int8" || p == "fp8" || p == "best") flags.push_back("--" + p);
    else throw UsageError("unknown precision '" + p + "'; use fp32, fp16, bf16, int8, fp8 or best");
  }
  return flags;
}

std::string build_metadata_json(const TrtexecLog& log) {
  json j;
  j["model_options"] = section_json(log.model_options, Values::Text);
  j["build_options"] = section_json(log.build_options, Values::Text);
  // TREx's files do not record the release; `report --engine` compares with check for it.
  if (!log.tensorrt_version.empty()) j["build_options"]["TensorRT version"] = log.tensorrt_version;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string profile_metadata_json(const TrtexecLog& log) {
  json j;
  j["performance_summary"] = section_json(log.performance, Values::Numbers);
  j["inference_options"] = section_json(log.inference_options, Values::Text);
  j["device_information"] = section_json(log.device, Values::Number);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

BuildOutcome build_engine(const BuildRequest& req, const std::function<void(const std::string&)>& on_line) {
  BuildOutcome out;
  regular_file_size(req.model);  // refuses a FIFO or device, and notes the model as an input
  std::string model_hash = sha256_file(req.model);
  std::vector<std::string> flags = precision_flags(req.precision);
  out.trtexec = find_trtexec(req.trtexec, req.search);
  if (out.trtexec.empty())
    throw UsageError("trtexec not found (looked in PATH" +
                     std::string(req.search.system ? " and /usr/src/tensorrt/bin" : "") +
                     "); install TensorRT or give --trtexec PATH");
  out.prefix = req.prefix.empty() ? req.model + ".engine" : req.prefix;

  // The TensorRT beside trtexec (<root>/bin/trtexec -> <root>/lib) comes first.
  SearchOptions search = req.search;
  search.paths.insert(search.paths.begin(), fs::path(fs::absolute(out.trtexec)).parent_path().parent_path().string());
  EnvReport env = discover_trt(search);
  out.trt_version = env.installs.empty() || !env.installs.front().version.known() ? "unknown"
                                                                                   : env.installs.front().version.str();
  for (const auto& g : env.gpus) out.gpu += (out.gpu.empty() ? "" : "; ") + g.name;
  if (out.gpu.empty()) out.gpu = "none";

  if (!req.shapes.empty()) flags.push_back("--shapes=" + req.shapes);
  for (const auto& a : req.extra_args) flags.push_back(a);
  // trtexec's own content joins the key: when no library is found to name the
  // TensorRT version, an upgraded trtexec still invalidates the cache.
  std::string key_text = fmt::format("model-sha256={}\ntensorrt={}\ngpu={}\ntrtexec-sha256={}\n", model_hash,
                                     out.trt_version, out.gpu, sha256_file(out.trtexec));
  for (const auto& f : flags) key_text += "flag=" + f + "\n";
  out.key = sha256_hex(key_text);
  std::string cache = req.cache_dir.empty() ? default_cache_dir() : req.cache_dir;
  out.cache_entry = (fs::path(cache) / "engines" / out.key).string();
  const auto& suffixes = engine_file_suffixes();
  for (const auto& s : suffixes) check_output_target(out.prefix + s);  // before trtexec runs, not after

  auto entry_complete = [&] {
    for (const auto& s : suffixes)
      if (!fs::exists(out.cache_entry + "/engine" + s)) return false;
    return fs::exists(out.cache_entry + "/key.txt");
  };
  auto deliver = [&] {
    std::error_code ec;
    fs::path dir = fs::path(out.prefix).parent_path();
    if (!dir.empty()) fs::create_directories(dir, ec);
    for (const auto& s : suffixes) {
      copy_file(out.cache_entry + "/engine" + s, out.prefix + s);
      out.files.push_back(out.prefix + s);
    }
  };
  if (!req.force && entry_complete()) {
    out.cached = true;
    std::string key_file = read_file(out.cache_entry + "/key.txt");
    size_t at = key_file.find("trtexec-tensorrt=");
    if (at != std::string::npos) out.trtexec_reports = key_file.substr(at + 17, key_file.find('\n', at) - at - 17);
    deliver();
    return out;
  }

  // trtexec writes into a staging folder of the cache; only a complete,
  // successful build becomes an entry, and only then are the user's files replaced.
  std::error_code ec;
  fs::create_directories(fs::path(cache) / "engines", ec);
  if (ec) throw InputError(cache, "cannot create the engine cache: " + ec.message());
  std::string tmpl = (fs::path(cache) / "engines" / ".build-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw InputError(cache, "cannot create a build folder in the engine cache");
  std::string staging = tmpl;
  std::string eng = staging + "/engine";
  std::vector<std::string> argv = {out.trtexec,
                                   "--onnx=" + req.model,
                                   "--saveEngine=" + eng,
                                   "--profilingVerbosity=detailed",
                                   "--exportLayerInfo=" + eng + ".graph.json",
                                   "--exportProfile=" + eng + ".profile.json",
                                   "--exportTimes=" + eng + ".timing.json",
                                   "--separateProfileRun"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  std::string log_text, first_error;
  ProcessResult pr = run_process(argv, [&](const std::string& line) {
    log_text += line + "\n";
    // The first error is the cause; later ones ("Failed to parse onnx file") follow from it.
    if (first_error.empty() && (line.find("[E]") != std::string::npos || line.find("ERROR") != std::string::npos)) {
      first_error = line;
      // The timestamp trtexec puts first says nothing in a one-line error.
      if (first_error.rfind('[', 0) == 0 && first_error.find(']') != std::string::npos &&
          first_error.substr(0, first_error.find(']')).find('/') != std::string::npos)
        first_error = first_error.substr(std::min(first_error.size(), first_error.find(']') + 2));
    }
    on_line(line);
  });
  write_file_atomic(eng + ".trtexec.log", log_text);
  auto fail = [&](const std::string& why) {
    std::string kept = out.prefix + ".trtexec.log";
    fs::path dir = fs::path(kept).parent_path();
    if (!dir.empty()) fs::create_directories(dir, ec);
    copy_file(eng + ".trtexec.log", kept);
    fs::remove_all(staging, ec);
    throw InputError(req.model, why + "; its log is in " + kept);
  };
  if (!pr.started) fail("cannot run " + out.trtexec + ": " + pr.error);
  if (pr.exit_code != 0)
    fail(fmt::format("trtexec failed ({}{}){}", pr.signal ? "killed by signal " : "exit status ",
                     pr.signal ? pr.signal : pr.exit_code, first_error.empty() ? "" : ": " + first_error));
  for (const auto& s : {std::string(), std::string(".graph.json"), std::string(".profile.json"), std::string(".timing.json")})
    if (!fs::exists(eng + s)) fail("trtexec succeeded but did not write " + fs::path(eng + s).filename().string());
  TrtexecLog log;
  try {
    log = parse_trtexec_log(log_text, "trtexec's output");
  } catch (const InputError&) {
    // trtexec succeeded without printing its banner or sections: metadata files stay empty.
  }
  write_file_atomic(eng + ".build.metadata.json", build_metadata_json(log));
  write_file_atomic(eng + ".profile.metadata.json", profile_metadata_json(log));
  out.trtexec_reports = log.tensorrt_version;
  if (!log.tensorrt_version.empty() && out.trt_version != "unknown") {
    auto a = parse_trt_version(log.tensorrt_version), b = parse_trt_version(out.trt_version);
    if (a && b && !a->agrees_with(*b))
      out.warning = fmt::format("trtexec reports TensorRT {}, but the library found for the cache key is {}; the "
                                "cache entry is keyed by {}",
                                log.tensorrt_version, out.trt_version, out.trt_version);
  }
  write_file_atomic(staging + "/key.txt", key_text + "built=" + now_utc() + "\ntrtexec=" + out.trtexec + "\n" +
                                              (log.tensorrt_version.empty() ? "" : "trtexec-tensorrt=" + log.tensorrt_version + "\n"));
  fs::remove_all(out.cache_entry, ec);
  fs::rename(staging, out.cache_entry, ec);
  if (ec) throw InputError(out.cache_entry, "cannot store the engine in the cache: " + ec.message());
  deliver();
  return out;
}

}  // namespace trtlens
