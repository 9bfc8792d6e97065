// trtexec logs (its console output): the option sections, the device, the
// performance summary. A log is hostile input like any file: lines of any
// length, invalid UTF-8, figures that are not numbers; it is scanned once as a
// view of the mapped file and only short pieces of it are copied.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/internal.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "trtlens/trt_env.h"
#include "util/files.h"
#include "util/mapped_file.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace trtlens {

using engine_detail::number_and_unit;

namespace {

constexpr size_t kMaxValue = 4096;  // bytes kept of a value or command line

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Text we keep: cut to kMaxValue, invalid UTF-8 replaced.
std::string keep(std::string_view s) {
  if (s.size() > kMaxValue) s = s.substr(0, kMaxValue);
  return to_valid_utf8(s);
}

// A log line without its "[09/12/2023-10:01:02] " timestamp and "[I] "
// severity. `severity` is 'I', 'W', 'E', 'V', 'F', or 0 when the line has none.
std::string_view body_of(std::string_view line, char& severity) {
  severity = 0;
  if (starts_with(line, "[")) {
    size_t close = line.find(']');
    // A timestamp is digits and "/-:." ; a severity is one letter.
    if (close != std::string_view::npos && close > 2 && close < 40 &&
        line.substr(1, close - 1).find_first_not_of("0123456789/-:. ") == std::string_view::npos) {
      line.remove_prefix(close + 1);
      if (starts_with(line, " ")) line.remove_prefix(1);
    }
  }
  if (line.size() >= 3 && line[0] == '[' && line[2] == ']' && std::string_view("IWEVF").find(line[1]) != std::string_view::npos) {
    severity = line[1];
    line.remove_prefix(3);
    if (starts_with(line, " ")) line.remove_prefix(1);
  }
  return line;
}

constexpr double kMaxMs = 1e9, kMaxQps = 1e12;

// A time in `unit` as ms; false for an unknown unit or a value out of range.
bool to_ms(double v, std::string_view unit, double& ms) {
  if (unit == "ms") ms = v;
  else if (unit == "s" || unit == "sec") ms = v * 1000;
  else if (unit == "us") ms = v / 1000;
  else return false;
  return ms >= 0 && ms <= kMaxMs;
}

struct Parser {
  TrtexecLog& log;
  size_t line_no = 0;
  size_t section_lines_left_out = 0;  // past kTrtexecLogLinesKept in their section

  void note(const std::string& what) {
    if (log.notes.size() < 20) log.notes.push_back(fmt::format("line {}: {}", line_no, what));
  }

  // "min = 0.85 ms, max = 0.9 ms, mean = ..., median = ..., percentile(99%) = ..."
  std::optional<TrtexecStat> stat_of(std::string_view key, std::string_view value) {
    TrtexecStat st;
    bool any = false;
    for (std::string_view item : split(value, ',')) {
      auto eq = item.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view name = trim_blanks(item.substr(0, eq));
      double v = 0, ms = 0;
      std::string_view unit;
      if (!number_and_unit(item.substr(eq + 1), v, unit) || !to_ms(v, unit, ms)) {
        note(fmt::format("{} {}: not a time in ms in range 0-1e9; left out", keep(key), keep(name)));
        continue;
      }
      any = true;
      if (name == "min") st.min = ms;
      else if (name == "max") st.max = ms;
      else if (name == "mean") st.mean = ms;
      else if (name == "median") st.median = ms;
      else if (starts_with(name, "percentile(")) {
        double p = 0;
        std::string_view pct = name.substr(11);
        auto [end, ec] = std::from_chars(pct.data(), pct.data() + pct.size(), p);
        if (ec == std::errc() && p > 0 && p <= 100 && std::string_view(end, pct.data() + pct.size()) == "%)")
          st.percentiles.emplace_back(p, ms);
        else
          note(fmt::format("{} {}: not a percentile; left out", keep(key), keep(name)));
      }
    }
    if (!any) return std::nullopt;
    return st;
  }

  void performance_line(std::string_view key, std::string_view value) {
    auto& p = log.perf ? *log.perf : log.perf.emplace();
    double v = 0, ms = 0;
    std::string_view unit;
    if (key == "Throughput") {
      if (number_and_unit(value, v, unit) && (unit == "qps" || unit.empty()) && v >= 0 && v <= kMaxQps)
        p.throughput_qps = v;
      else
        note("Throughput: not a number of qps in range 0-1e12; left out");
    } else if (key == "Total Host Walltime" || key == "Total GPU Compute Time") {
      if (number_and_unit(value, v, unit) && to_ms(v, unit.empty() ? "s" : unit, ms))
        (key == "Total Host Walltime" ? p.host_walltime_s : p.gpu_compute_total_s) = ms / 1000;
      else
        note(fmt::format("{}: not a time in range; left out", key));
    } else {
      std::optional<TrtexecStat>* dst = key == "Latency"            ? &p.latency
                                        : key == "Enqueue Time"     ? &p.enqueue
                                        : key == "H2D Latency"      ? &p.h2d
                                        : key == "GPU Compute Time" ? &p.gpu_compute
                                        : key == "D2H Latency"      ? &p.d2h
                                                                    : nullptr;
      if (dst) *dst = stat_of(key, value);
    }
  }

  void banner(std::string_view body) {
    // "&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --onnx=m.onnx --fp16"
    if (starts_with(body, "&&&& RUNNING ")) {
      auto hash = body.find(" # ");
      if (hash != std::string_view::npos) log.command = keep(trim_blanks(body.substr(hash + 3)));
      auto v = body.find("[TensorRT v");
      if (v != std::string_view::npos && log.tensorrt_version.empty()) {
        int64_t n = 0;
        std::string_view digits = body.substr(v + 11);
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (ec == std::errc() && n > 0 && n < 10000000) log.tensorrt_version = decode_trt_version_number(long(n)).str();
      }
    } else if (starts_with(body, "&&&& PASSED")) {
      log.result = "PASSED";
    } else if (starts_with(body, "&&&& FAILED")) {
      log.result = "FAILED";
    }
  }
};

}  // namespace

TrtexecLog parse_trtexec_log(std::string_view text, const std::string& file_name) {
  TrtexecLog log;
  log.file = file_name;
  Parser ps{log};
  KeyValues* section = nullptr;
  bool in_performance = false, recognised = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++ps.line_no;
    // Lines of interest are short; a megabyte-long line is cut for the scan.
    if (line.size() > 2 * kMaxValue) line = line.substr(0, 2 * kMaxValue);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (starts_with(line, "&&&& ")) {
      recognised = true;
      ps.banner(line);
      section = nullptr;
      in_performance = false;
      continue;
    }
    char sev = 0;
    std::string_view body = body_of(line, sev);
    if (sev == 'I' || sev == 0) {
      std::string_view b = trim_blanks(body);
      if (starts_with(b, "=== ") && b.size() > 8 && b.substr(b.size() - 4) == " ===") {
        std::string_view name = b.substr(4, b.size() - 8);
        recognised = true;
        in_performance = name == "Performance summary";
        section = name == "Model Options"        ? &log.model_options
                  : name == "Build Options"      ? &log.build_options
                  : name == "Inference Options"  ? &log.inference_options
                  : name == "Device Information" ? &log.device
                  : in_performance               ? &log.performance
                                                 : nullptr;
        if (section) section->clear();  // a repeated section: the latest wins
        if (in_performance) log.perf.reset();
        continue;
      }
      if (starts_with(b, "TensorRT version: ")) log.tensorrt_version = keep(trim_blanks(b.substr(18)));
      if (starts_with(b, "Engine built in ")) {
        double v = 0;
        std::string_view unit;
        if (number_and_unit(b.substr(16), v, unit) && v >= 0 && v <= kMaxMs) log.build_time_s = v;
      }
    }
    if (!section && !in_performance) continue;
    // Warnings printed with the performance summary belong to it.
    if (in_performance && sev == 'W') {
      std::string_view w = trim_blanks(body);
      if (w.empty()) continue;
      auto& p = log.perf ? *log.perf : log.perf.emplace();
      if (starts_with(w, "* ") || (p.warnings.empty() && p.warnings_left_out == 0)) {
        if (p.warnings.size() < kTrtexecLogLinesKept) p.warnings.push_back(keep(starts_with(w, "* ") ? w.substr(2) : w));
        else ++p.warnings_left_out;
      } else if (p.warnings_left_out == 0 && p.warnings.back().size() < kMaxValue) {
        p.warnings.back() += " " + keep(w);  // a warning's next line (once one is left out, so are its lines)
      }
      continue;
    }
    auto colon = body.find(':');
    std::string_view key = colon == std::string_view::npos ? std::string_view() : trim_blanks(body.substr(0, colon));
    // A section runs while lines are "[I] Key: value"; anything else ends it.
    if ((sev != 'I' && sev != 0) || key.empty() || starts_with(key, "[")) {
      section = nullptr;
      in_performance = false;
      continue;
    }
    std::string_view value = trim_blanks(body.substr(colon + 1));
    if (section && section->size() < kTrtexecLogLinesKept) section->emplace_back(keep(key), keep(value));
    else if (section) ++ps.section_lines_left_out;
    if (in_performance) ps.performance_line(key, value);
  }
  if (!recognised)
    throw InputError(file_name, "not a trtexec log: no \"&&&& RUNNING TensorRT.trtexec\" line and no "
                                "\"=== ... ===\" section");
  if (ps.section_lines_left_out > 0)
    log.notes.push_back(fmt::format("{} lines of sections past the first {} of their section are left out",
                                    ps.section_lines_left_out, kTrtexecLogLinesKept));
  return log;
}

TrtexecLog read_trtexec_log(const std::string& path) {
  uint64_t size = regular_file_size(path);  // refuses folders, FIFOs, devices
  if (size > kMaxInputBytes)
    throw InputError(path, fmt::format("is {} bytes; a trtexec log is read up to {} bytes", size, kMaxInputBytes));
  MappedFile map(path);
  return parse_trtexec_log(map.view(), path);
}

namespace {

// TREx's profile.metadata.json form of a metric: [min, max, mean, median, percentiles...].
nlohmann::ordered_json stat_list(const TrtexecStat& s) {
  if (!s.min || !s.max || !s.mean || !s.median) return nullptr;
  auto a = nlohmann::ordered_json::array({*s.min, *s.max, *s.mean, *s.median});
  for (const auto& [p, v] : s.percentiles) a.push_back(v);
  return a;
}

std::string object_json(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void apply_trtexec_log(EnginePlan& plan, const TrtexecLog& log) {
  const std::string source = "trtexec log " + log.file;
  if (!log.device.empty()) {
    plan.device = log.device;
    // Figures as numbers, as TREx's parse writes them into profile.metadata.json.
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [k, v] : log.device) {
      double x = 0;
      std::string_view unit;
      bool numeric = k == "Compute Capability" || k == "SMs" || k.find("Clock Rate") != std::string::npos ||
                     k == "Memory Bus Width";
      if (numeric && number_and_unit(v, x, unit)) j[k] = x;
      else j[k] = v;
    }
    plan.device_json = object_json(j);
    plan.device_source = source;
  }
  // A run that loads an engine prints empty Model Options ("Format: *") and
  // no Build Options: only a build's log describes the builder.
  if (!log.build_options.empty()) {
    plan.builder = log.model_options;
    plan.builder.insert(plan.builder.end(), log.build_options.begin(), log.build_options.end());
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [k, v] : plan.builder) j[k] = v;
    plan.builder_json = object_json(j);
    plan.builder_source = source;
  }
  if (log.perf) {
    plan.performance = log.performance;
    plan.perf = log.perf;
    const auto& p = *log.perf;
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (p.throughput_qps) j["Throughput"] = *p.throughput_qps;
    for (auto [name, st] : {std::pair{"Latency", &p.latency}, std::pair{"Enqueue Time", &p.enqueue},
                            std::pair{"H2D Latency", &p.h2d}, std::pair{"GPU Compute Time", &p.gpu_compute},
                            std::pair{"D2H Latency", &p.d2h}})
      if (*st) j[name] = stat_list(**st);
    if (p.host_walltime_s) j["Total Host Walltime"] = *p.host_walltime_s;
    if (p.gpu_compute_total_s) j["Total GPU Compute Time"] = *p.gpu_compute_total_s;
    plan.performance_json = object_json(j);
    plan.performance_source = source;
  }
  for (const auto& n : log.notes) plan.notes.push_back(fmt::format("{}: {}", log.file, n));
  plan.logs.push_back(log);
}

namespace engine_detail {

std::optional<TrtexecPerformance> performance_from_metadata(const std::string& json_text) {
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_object() || j.empty()) return std::nullopt;
  TrtexecPerformance p;
  auto num = [](const nlohmann::json& v, double hi) -> std::optional<double> {
    if (!v.is_number()) return std::nullopt;
    double x = v.get<double>();
    return std::isfinite(x) && x >= 0 && x <= hi ? std::optional<double>(x) : std::nullopt;
  };
  if (auto t = j.find("Throughput"); t != j.end()) p.throughput_qps = num(*t, kMaxQps);
  if (auto t = j.find("Total Host Walltime"); t != j.end()) p.host_walltime_s = num(*t, kMaxMs);
  if (auto t = j.find("Total GPU Compute Time"); t != j.end()) p.gpu_compute_total_s = num(*t, kMaxMs);
  for (auto [name, dst] : {std::pair{"Latency", &p.latency}, std::pair{"Enqueue Time", &p.enqueue},
                           std::pair{"H2D Latency", &p.h2d}, std::pair{"GPU Compute Time", &p.gpu_compute},
                           std::pair{"D2H Latency", &p.d2h}}) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_array() || it->size() < 4) continue;
    TrtexecStat st;
    st.min = num((*it)[0], kMaxMs);
    st.max = num((*it)[1], kMaxMs);
    st.mean = num((*it)[2], kMaxMs);
    st.median = num((*it)[3], kMaxMs);
    *dst = st;
  }
  return p;
}

}  // namespace engine_detail

}  // namespace trtlens
