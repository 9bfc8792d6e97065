// Per-layer memory and arithmetic (TREx's convolution annotations, extended to
// GEMMs) and the device peaks they are measured against.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens {

namespace {

using u128 = unsigned __int128;
constexpr u128 kMax64 = static_cast<u128>(INT64_MAX);

// Dense multiply-accumulates per clock per SM, by compute capability (major·10
// + minor) and input precision: the best dense rate of the architecture
// (Tensor Cores with FP16 accumulation; FP32 through TF32 Tensor Cores where
// they exist, else the FP32 units). From NVIDIA's whitepapers, each checked
// against the board peak it gives (SMs × boost clock × rate × 2):
//   7.0 Volta (V100: 80 SMs, 1.53 GHz): FP32 15.7 TFLOPS, FP16 Tensor 125;
//   7.5 Turing (TITAN RTX: 72 SMs, 1.77 GHz): FP32 16.3, FP16 130.5, INT8 261 TOPS;
//   8.0 A100 (108 SMs, 1.41 GHz): TF32 156, FP16/BF16 312, INT8 624;
//   8.6 GA10x (A40: 84 SMs, 1.74 GHz): TF32 74.8, FP16/BF16 150, INT8 299;
//   8.9 Ada (RTX 6000 Ada: 142 SMs, 2.505 GHz): TF32 91.1, FP16/BF16 364, FP8/INT8 728;
//   9.0 Hopper (H100 SXM5: 132 SMs, 1.83 GHz): TF32 495, FP16/BF16 989, FP8/INT8 1979.
struct ArchRate {
  int cc;
  const char* arch;
  int fp32, fp16, bf16, int8, fp8;  // 0: no such path on this architecture (no peak given)
};
constexpr ArchRate kRates[] = {
    {70, "Volta", 64, 512, 0, 0, 0},          {75, "Turing", 64, 512, 0, 1024, 0},
    {80, "Ampere A100", 512, 1024, 1024, 2048, 0}, {86, "Ampere GA10x", 256, 512, 512, 1024, 0},
    {89, "Ada", 128, 512, 512, 1024, 1024},   {90, "Hopper", 1024, 2048, 2048, 4096, 4096},
};

// A device figure: the first number of the first key present, in range, in GHz when a clock.
struct Figure {
  std::optional<double> value;
  std::string key;  // the key it came from
  std::string why;  // why it is absent
};

Figure figure(const KeyValues& kv, std::initializer_list<const char*> keys, double lo, double hi, bool clock) {
  Figure f;
  for (const char* k : keys)
    for (const auto& [key, value] : kv) {
      if (key != k) continue;
      double v = 0;
      std::string_view unit;
      f.key = key;
      if (!engine_detail::number_and_unit(value, v, unit)) {
        f.why = fmt::format("{} is not a number", key);
        return f;
      }
      if (clock) {
        if (unit == "MHz") v /= 1e3;
        else if (unit == "kHz") v /= 1e6;
        else if (!unit.empty() && unit != "GHz") {
          f.why = fmt::format("{} has an unknown unit", key);
          return f;
        }
      }
      if (!(v >= lo && v <= hi)) {
        f.why = fmt::format("{} = {} is out of range", key, v);
        return f;
      }
      f.value = v;
      return f;
    }
  f.why = fmt::format("the device information has no {}", *keys.begin());
  return f;
}

std::string num(double v) { return fmt::format("{:g}", v); }

// Product of `dims` from `from` on; absent when one is dynamic or it passes int64.
std::optional<u128> volume(const std::vector<int64_t>& dims, size_t from = 0) {
  u128 v = 1;
  for (size_t i = from; i < dims.size(); ++i) {
    if (dims[i] < 0) return std::nullopt;
    v *= static_cast<u128>(dims[i]);
    if (v > kMax64) return std::nullopt;
  }
  return v;
}

// a·b·... within int64, else absent.
std::optional<u128> product(std::initializer_list<u128> xs) {
  u128 v = 1;
  for (u128 x : xs) {
    if (x != 0 && v > kMax64 / x) return std::nullopt;
    v *= x;
  }
  return v;
}

int64_t clamp64(u128 v) { return v > kMax64 ? INT64_MAX : static_cast<int64_t>(v); }

// "MatrixOpA" of a MatrixMultiply layer, as written ("" when absent).
std::string matrix_op_a(const EngineLayer& l) {
  if (l.attributes_json.find("MatrixOpA") == std::string::npos) return "";
  auto j = nlohmann::json::parse(l.attributes_json, nullptr, false);
  if (!j.is_object()) return "";
  auto it = j.find("MatrixOpA");
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The arithmetic of one layer, or why it cannot be worked out ("" when the
// layer type has none).
std::optional<LayerCompute> compute_of(const EngineLayer& l, std::string& why) {
  const bool conv = l.type == "Convolution", deconv = l.type == "Deconvolution";
  const bool fc = l.type == "FullyConnected", mm = l.type == "MatrixMultiply";
  if (!conv && !deconv && !fc && !mm) return std::nullopt;
  if (l.inputs.empty() || l.outputs.empty()) {
    why = "no input or output tensor";
    return std::nullopt;
  }
  const EngineTensor &in = l.inputs[0], &out = l.outputs[0];
  const int in_es = engine_detail::element_size(in.precision), out_es = engine_detail::element_size(out.precision);
  auto in_vol = volume(in.dims), out_vol = volume(out.dims);
  if (!in_vol || !out_vol) {
    why = "dynamic or oversized shape";
    return std::nullopt;
  }
  if (in_es == 0 || out_es == 0) {
    why = "unknown element size of input 0 or output 0";
    return std::nullopt;
  }
  LayerCompute c;
  std::optional<u128> macs, bytes;
  if (conv || deconv) {
    // [N, C, spatial...]; a NoOp folded into the layer may have dropped
    // trailing 1s ([N, K] for [N, K, 1, 1]), so missing spatial dimensions are 1.
    if (in.dims.size() < 2 || out.dims.size() < 2 || l.kernel.empty()) {
      why = "input/output are not [N, C, spatial...] or the layer has no Kernel";
      return std::nullopt;
    }
    const u128 n = static_cast<u128>(in.dims[0]), ch = static_cast<u128>(in.dims[1]), k = static_cast<u128>(out.dims[1]);
    const u128 groups = l.groups > 0 ? static_cast<u128>(l.groups) : 1;
    auto rs = volume(l.kernel);
    auto out_spatial = volume(out.dims, 2), in_spatial = volume(in.dims, 2);
    if (!rs || !out_spatial || !in_spatial) {
      why = "oversized kernel or shape";
      return std::nullopt;
    }
    auto full = conv ? product({n, k, *out_spatial, ch, *rs}) : product({n, ch, *in_spatial, k, *rs});
    auto w = product({k, ch, *rs});
    if (full) macs = *full / groups;
    if (w) bytes = product({*w / groups, static_cast<u128>(in_es)});
    if (bytes) bytes = *bytes + *in_vol * in_es + *out_vol * out_es;
    if (conv) {
      auto m = product({n, *out_spatial}), kk = product({ch, *rs});
      if (m && kk) c.gemm_m = clamp64(*m), c.gemm_n = clamp64(k), c.gemm_k = clamp64(*kk);
    }
  } else if (fc) {
    const int64_t n = in.dims.empty() ? 0 : in.dims[0];
    if (n <= 0) {
      why = "input has no batch dimension";
      return std::nullopt;
    }
    const u128 kin = *in_vol / static_cast<u128>(n), nout = *out_vol / static_cast<u128>(n);
    macs = product({static_cast<u128>(n), kin, nout});
    c.gemm_m = n, c.gemm_n = clamp64(nout), c.gemm_k = clamp64(kin);
    bytes = *in_vol * in_es + *out_vol * out_es + static_cast<u128>(std::max<int64_t>(l.weights_bytes, 0));
  } else {
    const auto& a = in.dims;
    if (a.empty() || out.dims.empty()) {
      why = "input 0 or output 0 is a scalar";
      return std::nullopt;
    }
    std::string op = matrix_op_a(l);
    int64_t k = a.back();
    const int64_t out_rows = out.dims.size() >= 2 ? out.dims[out.dims.size() - 2] : 1;
    if (op.find("VECTOR") != std::string::npos || a.size() < 2) k = a.back();
    else if (op.find("TRANSPOSE") != std::string::npos) k = a[a.size() - 2];
    else if (op.empty() && a[a.size() - 2] != out_rows && a.back() == out_rows) k = a[a.size() - 2];  // transposed, by shape
    const int64_t n_cols = out.dims.back();
    if (k < 0 || n_cols <= 0) {
      why = "dynamic or empty matrix dimension";
      return std::nullopt;
    }
    macs = product({*out_vol, static_cast<u128>(k)});
    c.gemm_m = clamp64(*out_vol / static_cast<u128>(n_cols)), c.gemm_n = n_cols, c.gemm_k = k;
    u128 b = *out_vol * out_es;
    for (const auto& t : l.inputs) b += static_cast<u128>(std::max<int64_t>(t.size_bytes(), 0));
    bytes = b;
  }
  if (!macs || !bytes || *bytes > kMax64) {
    why = "more than 2^63 MACs or bytes";
    return std::nullopt;
  }
  c.macs = clamp64(*macs);
  c.bytes = clamp64(*bytes);
  c.arithmetic_intensity = c.bytes > 0 ? static_cast<double>(c.macs) / static_cast<double>(c.bytes) : 0.0;
  return c;
}

}  // namespace

std::optional<double> DevicePeaks::compute_for(const std::string& precision) const {
  for (const auto& [p, v] : compute_gflops)
    if (p == precision) return v;
  return std::nullopt;
}

DevicePeaks device_peaks(const EnginePlan& plan) {
  DevicePeaks d;
  d.source = plan.device_source;
  for (const auto& [k, v] : plan.device)
    if (k == "Selected Device") d.device = v;
  const std::string from = plan.device_source.empty() ? "" : " (" + plan.device_source + ")";
  if (plan.device.empty()) {
    d.memory_basis = d.compute_basis =
        "unknown: no device information (profile.metadata.json, or a trtexec log given with --log)";
    return d;
  }
  auto bus = figure(plan.device, {"Memory Bus Width"}, 1, 1e5, false);
  auto mclk = figure(plan.device, {"Memory Clock Rate", "Application Memory Clock Rate"}, 0.01, 100, true);
  if (bus.value && mclk.value) {
    d.memory_gbps = *bus.value / 8 * *mclk.value * 2;
    d.memory_basis = fmt::format("{} {} bits / 8 × {} {} GHz × 2 (double data rate) = {:.1f} GB/s{}", bus.key,
                                 num(*bus.value), mclk.key, num(*mclk.value), *d.memory_gbps, from);
  } else {
    d.memory_basis = "unknown: " + (bus.value ? mclk.why : bus.why) + from;
  }
  auto sms = figure(plan.device, {"SMs"}, 1, 1e5, false);
  auto clk = figure(plan.device, {"Compute Clock Rate", "Application Compute Clock Rate"}, 0.01, 20, true);
  auto cc = figure(plan.device, {"Compute Capability"}, 1, 99, false);
  if (!sms.value || !clk.value || !cc.value) {
    d.compute_basis = "unknown: " + (!sms.value ? sms.why : !clk.value ? clk.why : cc.why) + from;
    return d;
  }
  const int ccode = static_cast<int>(std::lround(*cc.value * 10));
  const ArchRate* r = nullptr;
  for (const auto& x : kRates)
    if (x.cc == ccode) r = &x;
  if (!r) {
    d.compute_basis = fmt::format("unknown: no per-SM rate known for compute capability {}{}", num(*cc.value), from);
    return d;
  }
  std::string rates;
  for (auto [p, rate] : {std::pair{"FP32", r->fp32}, std::pair{"FP16", r->fp16}, std::pair{"BF16", r->bf16},
                         std::pair{"INT8", r->int8}, std::pair{"FP8", r->fp8}}) {
    if (rate == 0) continue;
    d.compute_gflops.emplace_back(p, *sms.value * *clk.value * rate * 2);
    rates += fmt::format("{}{} {}", rates.empty() ? "" : ", ", p, rate);
  }
  d.compute_basis = fmt::format(
      "{} {} × {} {} GHz × dense MACs per clock per SM of compute capability {} ({}: {}{}) × 2 FLOP per MAC{}",
      sms.key, num(*sms.value), clk.key, num(*clk.value), fmt::format("{:.1f}", *cc.value), r->arch, rates,
      ccode >= 80 ? "; FP32 through TF32 Tensor Cores" : "", from);
  if (d.device.find("GeForce") != std::string::npos)
    d.compute_basis += "; a GeForce board runs FP16 with FP32 accumulation and TF32 at half these rates";
  return d;
}

LayerAnalysis analyze_layers(const EnginePlan& plan) {
  LayerAnalysis a;
  a.peaks = device_peaks(plan);
  a.layers.reserve(plan.layers.size());
  u128 macs = 0;
  for (const auto& l : plan.layers) {
    LayerStats s;
    s.layer = &l;
    for (const auto& t : l.inputs) s.input_bytes = engine_detail::saturating_add(s.input_bytes, t.size_bytes());
    for (const auto& t : l.outputs) s.output_bytes = engine_detail::saturating_add(s.output_bytes, t.size_bytes());
    s.footprint_bytes =
        engine_detail::saturating_add(engine_detail::saturating_add(s.input_bytes, s.output_bytes), l.weights_bytes);
    // Rates need a measured time: bytes / ms / 1e6 = GB/s.
    const bool timed = l.avg_ms > 0 && (l.timed || !plan.has_profile);
    if (timed && s.footprint_bytes < INT64_MAX) {
      s.gbps = static_cast<double>(s.footprint_bytes) / (l.avg_ms * 1e6);
      if (a.peaks.memory_gbps) s.memory_efficiency = 100 * *s.gbps / *a.peaks.memory_gbps;
    }
    std::string why;
    s.compute = compute_of(l, why);
    if (s.compute) {
      auto& c = *s.compute;
      if (timed) {
        c.gflops = 2 * static_cast<double>(c.macs) / (l.avg_ms * 1e6);
        if (auto peak = a.peaks.compute_for(l.precision)) c.compute_efficiency = 100 * *c.gflops / *peak;
      }
      ++a.compute_layers;
      macs += static_cast<u128>(c.macs);
      a.compute_ms += l.avg_ms;
    } else if (!why.empty()) {
      a.skipped.emplace_back(&l, why);
    }
    a.layers.push_back(std::move(s));
  }
  a.macs = clamp64(macs);
  if (a.compute_ms > 0 && a.macs < INT64_MAX) a.gflops = 2 * static_cast<double>(a.macs) / (a.compute_ms * 1e6);
  return a;
}

}  // namespace trtlens
