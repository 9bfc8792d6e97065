// Inspector format descriptions → precision and layout, and small text helpers.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "engine/internal.h"

namespace trtlens {

std::string precision_of_datatype(const std::string& w) {
  // Spellings seen in IEngineInspector formats (8.x-10.x), kgen formats (10.x)
  // and the DataType names of 11.x.
  static const std::pair<const char*, const char*> table[] = {
      {"FP32", "FP32"},   {"Float", "FP32"},   {"FLOAT", "FP32"},  {"kFLOAT", "FP32"},
      {"FP16", "FP16"},   {"Half", "FP16"},    {"HALF", "FP16"},   {"kHALF", "FP16"},
      {"BFloat16", "BF16"}, {"BF16", "BF16"},  {"kBF16", "BF16"},
      {"Int8", "INT8"},   {"INT8", "INT8"},    {"kINT8", "INT8"},
      {"FP8", "FP8"},     {"Fp8", "FP8"},      {"kFP8", "FP8"},    {"E4M3", "FP8"},
      {"Int32", "INT32"}, {"INT32", "INT32"},  {"kINT32", "INT32"},
      {"Int64", "INT64"}, {"INT64", "INT64"},  {"kINT64", "INT64"},
      {"Bool", "BOOL"},   {"BOOL", "BOOL"},    {"kBOOL", "BOOL"},
      {"UInt8", "UINT8"}, {"UINT8", "UINT8"},  {"kUINT8", "UINT8"},
      {"Int4", "INT4"},   {"INT4", "INT4"},    {"kINT4", "INT4"},
      {"FP4", "FP4"},     {"kFP4", "FP4"},     {"Double", "FP64"}, {"Int16", "INT16"},
      {"UInt16", "UINT16"}, {"UInt32", "UINT32"}, {"UInt64", "UINT64"},
  };
  for (const auto& [k, v] : table)
    if (w == k) return v;
  return "";
}

namespace engine_detail {

namespace {
std::string channel_modulo(std::string_view f) {
  // "... where channel % 8 == 0" → "8"
  auto p = f.find("channel % ");
  if (p == std::string_view::npos) return "";
  p += 10;
  size_t e = p;
  while (e < f.size() && std::isdigit(static_cast<unsigned char>(f[e]))) ++e;
  return std::string(f.substr(p, e - p));
}
}  // namespace

void parse_format(std::string_view f, std::string& precision, std::string& layout) {
  precision.clear();
  layout.clear();
  // Precision: the first word naming a datatype.
  size_t i = 0;
  while (i < f.size() && precision.empty()) {
    while (i < f.size() && !std::isalnum(static_cast<unsigned char>(f[i]))) ++i;
    size_t j = i;
    while (j < f.size() && std::isalnum(static_cast<unsigned char>(f[j]))) ++j;
    if (j > i) precision = precision_of_datatype(std::string(f.substr(i, j - i)));
    i = j;
  }
  // 11.x spells the TensorFormat: "Row major linear FP32 format (kLINEAR)".
  if (auto p = f.find("(k"); p != std::string_view::npos) {
    auto e = f.find(')', p);
    if (e != std::string_view::npos) {
      layout = std::string(f.substr(p + 2, e - p - 2));
      return;
    }
  }
  const bool spatial3 = f.find("3 spatial") != std::string_view::npos;
  if (f.find("Row major linear") != std::string_view::npos) {
    layout = "LINEAR";
  } else if (f.find("Two wide channel vectorized") != std::string_view::npos) {
    layout = "CHW2";
  } else if (f.find("Four wide channel vectorized") != std::string_view::npos) {
    layout = "CHW4";
  } else if (f.find("Sixteen wide channel vectorized") != std::string_view::npos) {
    layout = "CHW16";
  } else if (f.find("Thirty-two wide channel vectorized") != std::string_view::npos) {
    layout = spatial3 ? "CDHW32" : "CHW32";
  } else if (f.find("Channel major") != std::string_view::npos) {
    if (f.find("column stride % 32") != std::string_view::npos) {
      layout = "DLA_HWC4";
    } else {
      layout = std::string(spatial3 ? "DHWC" : "HWC") + channel_modulo(f);
    }
  } else if (f.find("Row major") != std::string_view::npos) {
    layout = f.find("column stride % 64") != std::string_view::npos ? "DLA_LINEAR" : "LINEAR";
  }
}

bool number_and_unit(std::string_view s, double& v, std::string_view& unit) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || !std::isfinite(v)) return false;
  std::string_view rest = s.substr(static_cast<size_t>(end - s.data()));
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  size_t e = 0;
  while (e < rest.size() && std::isalpha(static_cast<unsigned char>(rest[e]))) ++e;
  unit = rest.substr(0, e);
  return true;
}

int element_size(std::string_view p) {
  if (p == "FP32" || p == "INT32" || p == "UINT32") return 4;
  if (p == "FP16" || p == "BF16" || p == "INT16" || p == "UINT16") return 2;
  if (p == "INT8" || p == "UINT8" || p == "FP8" || p == "BOOL") return 1;
  if (p == "INT64" || p == "FP64" || p == "UINT64") return 8;
  return 0;  // INT4/FP4 are sub-byte; treated as unknown size
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += 'x';
    s += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return s;
}

std::string ms_text(double ms) {
  if (ms == 0) return "0";
  if (ms < 0.01) return fmt::format("{:.5f}", ms);
  return fmt::format("{:.4f}", ms);
}

std::string percent_text(double pct) { return fmt::format("{:.1f}%", pct); }

bool is_float_precision(std::string_view p) {
  return p == "FP32" || p == "FP16" || p == "BF16" || p == "FP8" || p == "FP4" || p == "FP64";
}

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

std::string trtexec_io_format(const EngineTensor& t) {
  static const std::pair<const char*, const char*> types[] = {
      {"FP32", "fp32"}, {"FP16", "fp16"}, {"BF16", "bf16"}, {"INT8", "int8"},
      {"FP8", "fp8"},   {"INT32", "int32"}, {"INT64", "int64"}, {"BOOL", "bool"}, {"UINT8", "uint8"}};
  // trtexec's format names (its --inputIOFormats help); LINEAR is "chw".
  static const std::pair<const char*, const char*> layouts[] = {
      {"LINEAR", "chw"}, {"CHW2", "chw2"}, {"CHW4", "chw4"}, {"HWC8", "hwc8"},   {"CHW16", "chw16"},
      {"CHW32", "chw32"}, {"DHWC8", "dhwc8"}, {"CDHW32", "cdhw32"}, {"HWC", "hwc"}, {"HWC16", "hwc16"},
      {"DHWC", "dhwc"}};
  const char *ty = nullptr, *lay = nullptr;
  for (const auto& [k, v] : types)
    if (t.precision == k) ty = v;
  for (const auto& [k, v] : layouts)
    if (t.layout == k) lay = v;
  return ty && lay ? fmt::format("{}:{}", ty, lay) : std::string();
}

bool is_unfused_qdq(const EngineLayer& l) {
  if (l.inputs.empty() || l.outputs.empty()) return false;
  if (l.type != "Scale" && !(l.is_reformat() && l.origin == "QDQ")) return false;
  return (l.inputs[0].precision == "INT8") != (l.outputs[0].precision == "INT8");
}

}  // namespace engine_detail

int64_t EngineTensor::size_bytes() const {
  int64_t n = engine_detail::element_size(precision);
  if (n == 0) return 0;
  for (int64_t d : dims) {
    if (d < 0) return 0;
    n = engine_detail::saturating_mul(n, d);
  }
  return n;
}

std::string EngineTensor::short_format() const {
  if (precision.empty() && layout.empty()) return format;
  if (layout.empty()) return precision;
  if (precision.empty()) return layout;
  return precision + " " + layout;
}

bool EngineLayer::is_fused() const {
  // Reformat names quote the layer they feed ("... to conv1 + relu1"): not a fusion.
  if (is_reformat()) return false;
  return name.find(" + ") != std::string::npos || onnx_nodes.size() > 1 ||
         name.rfind("{ForeignNode[", 0) == 0;
}

double EnginePlan::total_latency_ms() const {
  double t = 0;
  for (const auto& l : layers) t += l.avg_ms;
  return t;
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "?";
}

}  // namespace trtlens
