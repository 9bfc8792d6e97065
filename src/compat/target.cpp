// Narrows annotations to a deployment target and places nodes on a DLA core (include/trtlens/target.h).
// Every judgement reads data/targets/ (through TargetCatalog); nothing here names a device or a release.
#include "trtlens/target.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compat/annotator.h"
#include "util/strings.h"

namespace trtlens {
namespace {

bool listed(std::string_view list, std::string_view item, char sep) {
  for (auto x : split(list, sep))
    if (x == item) return true;
  return false;
}

// The float and quantized precisions a support matrix names; integer nodes are never narrowed.
bool is_kernel_precision(std::string_view p) {
  return p == "FP32" || p == "TF32" || p == "FP16" || p == "BF16" || p == "INT8" || p == "FP8" || p == "FP4";
}

void recount(Annotations& a) {
  a.summary = {};
  for (const auto& v : a.nodes) ++a.summary[static_cast<size_t>(v.verdict)];
  a.converts = a.summary[static_cast<size_t>(Verdict::UNSUPPORTED)] == 0;
}

void narrow_precisions(Annotations& a, const Target& t, const TargetCatalog& catalog) {
  const TargetRow* row = t.precisions_at(*a.release);
  if (!row) return;
  a.notes.push_back(
      fmt::format("target {} (compute capability {}): kernels at {} ({})", t.name, t.cc, row->value, row->source));
  std::string_view wider = a.precision == Precision::BEST && listed(row->value, "FP16", ',') ? "FP16" : "FP32";
  // Which targets do have the missing precision: one hint per precision, computed once.
  std::vector<std::pair<std::string_view, std::string>> hints;
  auto hint_for = [&](std::string_view p) -> const std::string& {
    for (const auto& [name, text] : hints)
      if (name == p) return text;
    std::string with;
    for (const auto& other : catalog.targets()) {
      const TargetRow* r = other.dla ? nullptr : other.precisions_at(*a.release);
      if (r && listed(r->value, p, ',') && other.runs_release(*a.release))
        with += (with.empty() ? "" : ", ") + other.name;
    }
    hints.emplace_back(
        p, with.empty() ? std::string() : fmt::format("{} kernels run on {} at TensorRT {}", p, with, a.release->name));
    return hints.back().second;
  };
  bool changed = false;
  for (auto& v : a.nodes) {
    if (v.verdict == Verdict::UNSUPPORTED || v.verdict == Verdict::UNKNOWN) continue;
    if (!is_kernel_precision(v.precision) || listed(row->value, v.precision, ',')) continue;
    v.reasons.push_back({"target",
                         fmt::format("{} has no {} kernels: this node runs at {}", t.label(), v.precision, wider),
                         row->source});
    if (const std::string& h = hint_for(v.precision); !h.empty()) v.hints.push_back(h);
    if (v.verdict == Verdict::SUPPORTED) v.verdict = Verdict::FALLBACK;
    v.precision = wider;
    changed = true;
  }
  if (changed) recount(a);
}

// ---- DLA placement ---------------------------------------------------------------------------

std::vector<int64_t> ints_attr(const Node& n, std::string_view name) {
  const Attribute* at = n.attribute(name);
  return at ? at->ints : std::vector<int64_t>{};
}

int64_t int_attr(const Node& n, std::string_view name, int64_t dflt) {
  const Attribute* at = n.attribute(name);
  return at ? at->i : dflt;
}

bool all_fixed(const TensorInfo* t) {
  if (!t || t->rank < 0) return false;
  return std::all_of(t->dims.begin(), t->dims.end(), [](const Dim& d) { return d.fixed(); });
}

int64_t elements(const TensorInfo* t) {
  if (!all_fixed(t)) return -1;
  int64_t n = 1;
  for (const auto& d : t->dims) n *= d.value;
  return n;
}

bool is_constant(const TensorInfo* t) {
  return t && (t->origin == TensorOrigin::Initializer || t->origin == TensorOrigin::ConstantNode);
}

std::string shape_text(const TensorInfo* t) {
  if (!t || t->rank < 0) return "?";
  std::string s;
  for (const auto& d : t->dims)
    s += (s.empty() ? "" : "x") + (d.fixed() ? std::to_string(d.value) : d.param.empty() ? "?" : d.param);
  return "[" + s + "]";
}

// Multiply-accumulates of the layers that dominate a CNN's work; 0 when not computable.
int64_t macs_of(const Graph& g, const Node& n) {
  const TensorInfo* out = g.output(n, 0);
  const TensorInfo* x = n.inputs.empty() ? nullptr : g.input(n, 0);
  const TensorInfo* w = n.inputs.size() > 1 ? g.input(n, 1) : nullptr;
  auto tail = [](const TensorInfo* t, size_t from) {
    int64_t p = 1;
    for (size_t i = from; i < t->dims.size(); ++i) p *= t->dims[i].value;
    return p;
  };
  if (n.op_type == "Conv" && all_fixed(w) && elements(out) > 0) return elements(out) * tail(w, 1);
  if (n.op_type == "ConvTranspose" && all_fixed(w) && elements(x) > 0) return elements(x) * tail(w, 1);
  if ((n.op_type == "Gemm" || n.op_type == "MatMul") && all_fixed(x) && x->rank >= 1 && elements(out) > 0) {
    int64_t k = x->dims.back().value;
    if (n.op_type == "Gemm" && int_attr(n, "transA", 0) && x->rank == 2) k = x->dims[0].value;
    return elements(out) * k;
  }
  return 0;
}

struct Range {
  int64_t lo = 0, hi = 0;
};
Range parse_range(std::string_view s) {
  Range r;
  size_t dots = s.find("..");
  r.lo = std::stoll(std::string(s.substr(0, dots)));
  r.hi = dots == std::string_view::npos ? r.lo : std::stoll(std::string(s.substr(dots + 2)));
  return r;
}

// "kernel size 37 > 32" for the first value outside `range`; "" when all lie inside.
std::string out_of(std::string_view what, const std::vector<int64_t>& values, std::string_view range) {
  Range r = parse_range(range);
  for (int64_t v : values) {
    if (v > r.hi) return fmt::format("{} {} > {}", what, v, r.hi);
    if (v < r.lo) return fmt::format("{} {} < {}", what, v, r.lo);
  }
  return {};
}

// The check names of data/targets/dla (kDlaChecks), resolved once per placement rather than compared per node.
enum class K {
  supported_,
  static_,
  max_batch_,
  max_dim_,
  precision_,
  loadables_,
  spatial_,
  rank_,
  kernel_,
  stride_,
  padding_,
  dilation_,
  groups_,
  window_,
  out_channels_,
  pad_lt_kernel_,
  modes_,
  clip_,
  const_input_,
  axis_,
  same_spatial_,
  broadcast_,
  attr_,
  steps_,
  keep_axis_,
  scales_,
  stride_is_kernel_,
  mode_precision_,
  other
};
K kind_of(std::string_view name) {
  if (name == "supported") return K::supported_;
  if (name == "static") return K::static_;
  if (name == "max_batch") return K::max_batch_;
  if (name == "max_dim") return K::max_dim_;
  if (name == "precision") return K::precision_;
  if (name == "loadables") return K::loadables_;
  if (name == "spatial") return K::spatial_;
  if (name == "rank") return K::rank_;
  if (name == "kernel") return K::kernel_;
  if (name == "stride") return K::stride_;
  if (name == "padding") return K::padding_;
  if (name == "dilation") return K::dilation_;
  if (name == "groups") return K::groups_;
  if (name == "window") return K::window_;
  if (name == "out_channels") return K::out_channels_;
  if (name == "pad_lt_kernel") return K::pad_lt_kernel_;
  if (name == "modes") return K::modes_;
  if (name == "clip") return K::clip_;
  if (name == "const_input") return K::const_input_;
  if (name == "axis") return K::axis_;
  if (name == "same_spatial") return K::same_spatial_;
  if (name == "broadcast") return K::broadcast_;
  if (name == "attr") return K::attr_;
  if (name == "steps") return K::steps_;
  if (name == "keep_axis") return K::keep_axis_;
  if (name == "scales") return K::scales_;
  if (name == "stride_is_kernel") return K::stride_is_kernel_;
  if (name == "mode_precision") return K::mode_precision_;
  return K::other;
}

class DlaJudge {
 public:
  DlaJudge(const Model& m, const Annotations& a, const Target& t, const DlaRules& rules, const TargetCatalog& catalog)
      : m_(m), g_(m.graphs[0]), a_(a), t_(t), rules_(rules), catalog_(catalog) {
    // Indexed once per placement: a node then reads only its op's rows and its layers' checks.
    for (const LayerMapping& l : catalog_.layers()) by_op_[l.op].push_back(&l);
    for (const DlaCheck& c : rules_.checks) {
      if (!applies(c)) continue;
      if (c.check == "supported")
        supported_.insert(c.layer);
      else
        by_layer_[c.layer].push_back({&c, kind_of(c.check)});
    }
  }

  DlaNode judge(const Node& n, const NodeVerdict& v, DlaPlacement& placed) {
    auto intern = [this, &placed](std::string text) -> std::string_view {
      if (text.empty()) return {};
      auto it = interned_.find(text);
      if (it != interned_.end()) return it->second;
      std::string_view view = placed.texts.emplace_back(text);
      interned_.emplace(std::move(text), view);
      return view;
    };
    DlaNode out;
    out.index = n.index;
    out.macs = macs_of(g_, n);
    // NONE: a Constant, or a node computing a constant (an Identity on weights) that the builder folds.
    bool constant = !n.outputs.empty();
    for (size_t k = 0; k < n.outputs.size() && constant; ++k) {
      const TensorInfo* t = g_.output(n, k);
      constant = t && t->const_foldable;
    }
    if (constant || (n.op_type == "Constant" && n.domain.empty())) return out;
    auto fallback = [&](std::string reason, std::string source) {
      out.verdict = DlaVerdict::GPU_FALLBACK;
      out.reason = std::move(reason);
      out.source = intern(std::move(source));
      return out;
    };
    if (v.verdict == Verdict::UNSUPPORTED) {
      out.verdict = DlaVerdict::UNSUPPORTED;
      out.reason = "does not import: " + (v.reasons.empty() ? std::string("unsupported") : v.reasons[0].message);
      out.source = intern(v.reasons.empty() ? a_.release->citation() : v.reasons[0].source);
      return out;
    }
    const LayerMapping* map = mapping(n);
    if (!map)
      return fallback(fmt::format("no DLA layer for {}: the importer creates layers the DLA does not run", n.op_type),
                      "data/targets/layers.tsv");
    auto text = layers_text_.find(map);
    if (text == layers_text_.end())
      text = layers_text_.emplace(map, intern(fmt::format("{}", fmt::join(map->layers, ",")))).first;
    out.layers = text->second;
    for (const auto& [c, kind] : checks_of(general_))
      if (std::string why = check(*c, kind, n, v, *map); !why.empty()) return fallback(why, c->source);
    for (const std::string& layer : map->layers) {
      if (!supported_.count(layer))
        return fallback(fmt::format("the {} layer ({} imports as {}) does not run on the DLA in TensorRT {}", layer,
                                    n.op_type, out.layers, rules_.release),
                        fmt::format("data/targets/dla/{}.tsv; importer {}", rules_.release, map->where));
      for (const auto& [c, kind] : checks_of(layer))
        if (std::string why = check(*c, kind, n, v, *map); !why.empty()) return fallback(why, c->source);
    }
    out.verdict = DlaVerdict::DLA;
    return out;
  }

 private:
  bool applies(const DlaCheck& c) const { return c.devices == "-" || t_.family == "jetson-" + c.devices; }

  const std::vector<std::pair<const DlaCheck*, K>>& checks_of(const std::string& layer) const {
    static const std::vector<std::pair<const DlaCheck*, K>> none;
    auto it = by_layer_.find(layer);
    return it == by_layer_.end() ? none : it->second;
  }

  const LayerMapping* mapping(const Node& n) const {
    if (!n.domain.empty() && n.domain != "ai.onnx") return nullptr;
    auto rows = by_op_.find(n.op_type);
    if (rows == by_op_.end()) return nullptr;
    for (const LayerMapping* lp : rows->second) {
      const LayerMapping& l = *lp;
      bool holds = std::all_of(l.const_inputs.begin(), l.const_inputs.end(), [&](int i) {
        return static_cast<size_t>(i) >= n.inputs.size() || n.inputs[static_cast<size_t>(i)].empty() ||
               is_constant(g_.input(n, static_cast<size_t>(i)));
      });
      if (holds) return &l;
    }
    return nullptr;
  }

  // Spatial values of a conv/pool attribute: `name` or, for the kernel, the weight's trailing dims.
  std::vector<int64_t> kernel(const Node& n) const {
    std::vector<int64_t> k = ints_attr(n, "kernel_shape");
    if (k.empty() && n.inputs.size() > 1)
      if (const TensorInfo* w = g_.input(n, 1); all_fixed(w) && w->rank > 2)
        for (size_t i = 2; i < w->dims.size(); ++i) k.push_back(w->dims[i].value);
    return k;
  }
  std::vector<int64_t> pads(const Node& n) const {
    std::vector<int64_t> p = ints_attr(n, "pads");
    const Attribute* ap = n.attribute("auto_pad");
    if (p.empty() && ap && (ap->s == "SAME_UPPER" || ap->s == "SAME_LOWER"))
      for (int64_t k : kernel(n)) p.push_back(k / 2);  // SAME: (k - 1) split over both sides, the larger half
    return p;
  }

  // Values of input i where it is a constant the loader read (Slice starts/ends/axes/steps, Resize scales/sizes),
  // else of attribute `attr` (Slice before opset 10); null when neither is known.
  std::optional<std::vector<int64_t>> int_values(const Node& n, size_t i, std::string_view attr) const {
    if (i < n.inputs.size() && !n.inputs[i].empty()) {
      const TensorInfo* t = g_.input(n, i);
      if (!t || !t->values) return std::nullopt;
      std::vector<int64_t> out;
      for (double d : *t->values)  // INT64_MAX ends ("to the end") do not survive a double: clamp, never overflow
        out.push_back(d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(d));
      return out;
    }
    if (const Attribute* at = attr.empty() ? nullptr : n.attribute(attr)) return at->ints;
    return std::nullopt;
  }

  // Slice: every step (input 4, default 1) equals `want`.
  std::string slice_steps(const Node& n, int64_t want) const {
    auto steps = int_values(n, 4, "");
    if (!steps) return {};
    for (int64_t s : *steps)
      if (s != want) return fmt::format("slice step {}; DLA slices with step {} only", s, want);
    return {};
  }

  // Slice: axis `keep` is taken whole (start 0, end at or past its length) or not named at all.
  std::string slice_keeps_axis(const Node& n, int64_t keep) const {
    const TensorInfo* x = n.inputs.empty() ? nullptr : g_.input(n, 0);
    auto starts = int_values(n, 1, "starts"), ends = int_values(n, 2, "ends"), axes = int_values(n, 3, "axes");
    if (!starts || !ends || !x || x->rank < 0) return {};
    for (size_t k = 0; k < starts->size() && k < ends->size(); ++k) {
      if (axes && k >= axes->size()) break;
      int64_t axis = axes ? (*axes)[k] : static_cast<int64_t>(k);
      if (axis < 0) axis += x->rank;
      if (axis != keep || axis >= x->rank) continue;
      const Dim& d = x->dims[static_cast<size_t>(axis)];
      int64_t start = (*starts)[k], end = (*ends)[k];
      if (d.fixed()) {
        if (start < 0) start += d.value;
        if (end < 0) end += d.value;
      }
      bool whole = start == 0 && (d.fixed() ? end >= d.value : end >= INT32_MAX);
      if (!whole)
        return fmt::format("slices axis {} ({}..{}); DLA slices the C, H and W axes only", axis, (*starts)[k],
                           (*ends)[k]);
    }
    return {};
  }

  // Resize: scales (the constant scales input, or sizes over a static input shape) are 1 on N and C and
  // integers in the range `spec` gives the resize mode ("nearest:1..32,linear:1..4").
  std::string resize_scales(const Node& n, std::string_view spec) const {
    const Attribute* m = n.attribute("mode");
    std::string mode = m ? m->s : "nearest";
    std::string_view range;
    for (auto part : split(spec, ','))
      if (part.substr(0, part.find(':')) == mode) range = part.substr(part.find(':') + 1);
    if (range.empty()) return {};  // a mode the DLA lacks: the attr row says so
    const TensorInfo* x = n.inputs.empty() ? nullptr : g_.input(n, 0);
    size_t at = n.inputs.size() == 2 ? 1 : 2;  // opset 10: (X, scales); 11+: (X, roi, scales, sizes)
    std::vector<double> scales;
    if (at < n.inputs.size() && !n.inputs[at].empty()) {
      const TensorInfo* s = g_.input(n, at);
      if (s && s->values)
        scales = *s->values;
      else if (!is_constant(s) && !(s && s->const_foldable))
        return "Resize scales are computed at run time; DLA needs them at build time";
    } else if (n.inputs.size() > 3 && !n.inputs[3].empty()) {
      const TensorInfo* sz = g_.input(n, 3);
      if (sz && sz->values && all_fixed(x) && sz->values->size() == x->dims.size()) {
        for (size_t i = 0; i < x->dims.size(); ++i)
          scales.push_back(x->dims[i].value > 0 ? (*sz->values)[i] / static_cast<double>(x->dims[i].value) : 0);
      } else if (!is_constant(sz) && !(sz && sz->const_foldable)) {
        return "Resize sizes are computed at run time; DLA needs them at build time";
      }
    }
    Range r = parse_range(range);
    for (size_t i = 0; i < scales.size(); ++i) {
      double s = scales[i];
      if (i < 2 && s != 1.0)
        return fmt::format("Resize scale {} on axis {}; DLA resizes H and W only (scale 1 on N and C)", s, i);
      if (i >= 2 && (s != std::floor(s) || s < static_cast<double>(r.lo) || s > static_cast<double>(r.hi)))
        return fmt::format("Resize scale {} on axis {} is not an integer in {} (DLA's {} resize)", s, i, range, mode);
    }
    return {};
  }

  // Deconvolution: stride equal to the kernel in each dimension.
  std::string stride_is_kernel(const Node& n) const {
    std::vector<int64_t> k = kernel(n), s = ints_attr(n, "strides");
    for (size_t i = 0; i < k.size(); ++i) {
      int64_t stride = i < s.size() ? s[i] : 1;
      if (stride != k[i])
        return fmt::format("stride {} != kernel size {}; DLA deconvolves with stride = kernel", stride, k[i]);
    }
    return {};
  }

  std::string check(const DlaCheck& c, K k, const Node& n, const NodeVerdict& v, const LayerMapping& map) const {
    const TensorInfo* x = n.inputs.empty() ? nullptr : g_.input(n, 0);
    if (k == K::precision_) {
      if (listed(c.args, v.precision, '|')) return {};
      return fmt::format("DLA runs {} only: this node runs at {} (--precision {})", c.args, v.precision,
                         precision_name(a_.precision));
    }
    if (k == K::static_) {
      auto dynamic = [&](const TensorInfo* t, std::string_view role, size_t i) -> std::string {
        if (!t || is_constant(t)) return {};
        if (t->rank < 0)
          return fmt::format("the rank of {} {} ({}) is unknown: DLA needs static shapes", role, i, t->name);
        for (const auto& d : t->dims)
          if (!d.fixed())
            return fmt::format("dynamic dimension {} of {} {} ({}): DLA needs static shapes",
                               d.param.empty() ? "?" : d.param, role, i, t->name);
        return {};
      };
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (auto why = dynamic(g_.input(n, i), "input", i); !why.empty()) return why;
      for (size_t i = 0; i < n.outputs.size(); ++i)
        if (auto why = dynamic(g_.output(n, i), "output", i); !why.empty()) return why;
      return {};
    }
    if (k == K::max_batch_ || k == K::max_dim_) {
      if (!all_fixed(x) || x->rank < 1) return {};
      size_t chw = std::min<size_t>(3, x->dims.size() - 1);  // the last three dims are C, H, W
      size_t split_at = x->dims.size() - chw;
      if (k == K::max_batch_) {
        int64_t batch = 1;
        for (size_t i = 0; i < split_at; ++i) batch *= x->dims[i].value;
        return out_of("batch", {batch}, "0.." + c.args);
      }
      std::vector<int64_t> rest;
      for (size_t i = split_at; i < x->dims.size(); ++i) rest.push_back(x->dims[i].value);
      return out_of("dimension", rest, "0.." + c.args);
    }
    if (k == K::loadables_) return {};
    if (k == K::spatial_) {
      int want = std::stoi(c.args) + 2;
      if (x && x->rank >= 0 && x->rank != want)
        return fmt::format("{} spatial dimensions (input rank {}); DLA runs {}", x->rank - 2, x->rank, c.args);
      return {};
    }
    if (k == K::rank_) {
      if (x && x->rank >= 0 && x->rank != std::stoi(c.args))
        return fmt::format("input rank {}; DLA needs rank {}", x->rank, c.args);
      return {};
    }
    if (k == K::kernel_) return out_of("kernel size", kernel(n), c.args);
    if (k == K::window_) return out_of("window size", kernel(n), c.args);
    if (k == K::stride_) return out_of("stride", ints_attr(n, "strides"), c.args);
    if (k == K::padding_) return out_of("padding", pads(n), c.args);
    if (k == K::dilation_) return out_of("dilation", ints_attr(n, "dilations"), c.args);
    if (k == K::groups_) return out_of("groups", {int_attr(n, "group", 1)}, c.args);
    if (k == K::out_channels_) {
      const TensorInfo* w = n.inputs.size() > 1 ? g_.input(n, 1) : nullptr;
      if (!all_fixed(w) || w->rank < 2) return {};
      int64_t ch = n.op_type == "ConvTranspose" ? w->dims[1].value * int_attr(n, "group", 1) : w->dims[0].value;
      return out_of("output channels", {ch}, c.args);
    }
    if (k == K::pad_lt_kernel_) {
      std::vector<int64_t> kk = kernel(n), p = pads(n);
      for (size_t i = 0; i < p.size() && !kk.empty(); ++i)
        if (p[i] >= kk[i % kk.size()]) return fmt::format("padding {} >= kernel size {}", p[i], kk[i % kk.size()]);
      return {};
    }
    if (k == K::modes_) {
      for (auto mode : split(map.mode, ','))
        if (mode != "-" && !listed(c.args, mode, '|'))
          return fmt::format("{} mode {} is not one the DLA runs ({})", map.layers[0], mode, c.args);
      return {};
    }
    if (k == K::clip_) {
      if (map.mode != "clip") return {};
      auto bounds = split(c.args, ',');
      double lo = -INFINITY, hi = INFINITY;
      if (const Attribute* at = n.attribute("min")) lo = at->f;
      if (const Attribute* at = n.attribute("max")) hi = at->f;
      auto value = [&](size_t i, double& out) {
        const TensorInfo* t = i < n.inputs.size() && !n.inputs[i].empty() ? g_.input(n, i) : nullptr;
        if (t && t->values && t->values->size() == 1) out = (*t->values)[0];
      };
      value(1, lo);
      value(2, hi);
      Range rl = parse_range(bounds[0]), rh = parse_range(bounds.size() > 1 ? bounds[1] : bounds[0]);
      if (!(lo >= static_cast<double>(rl.lo) && lo <= static_cast<double>(rl.hi)))
        return fmt::format("Clip lower bound {} outside {} (DLA's clipped ReLU)", lo, bounds[0]);
      if (!(hi >= static_cast<double>(rh.lo) && hi <= static_cast<double>(rh.hi)))
        return fmt::format("Clip upper bound {} outside {} (DLA's clipped ReLU)", hi,
                           bounds.size() > 1 ? bounds[1] : bounds[0]);
      return {};
    }
    if (k == K::const_input_) {
      for (auto s : split(c.args, ',')) {
        size_t i = static_cast<size_t>(std::stoi(std::string(s)));
        if (i >= n.inputs.size() || n.inputs[i].empty()) continue;
        const TensorInfo* t = g_.input(n, i);
        if (!is_constant(t))
          return fmt::format("input {} ({}) is computed at run time; DLA needs a build-time constant", i, n.inputs[i]);
      }
      return {};
    }
    if (k == K::axis_) {
      if (!x || x->rank < 0) return {};
      int64_t axis = int_attr(n, "axis", 1);
      if (axis < 0) axis += x->rank;
      if (axis != std::stoll(c.args))
        return fmt::format("concatenation along axis {}; DLA concatenates along axis {} (channels) only", axis, c.args);
      return {};
    }
    if (k == K::same_spatial_) {
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        const TensorInfo* y = g_.input(n, i);
        if (!all_fixed(x) || !all_fixed(y) || x->rank != y->rank || x->rank < 3) continue;
        if (!std::equal(x->dims.begin() + 2, x->dims.end(), y->dims.begin() + 2,
                        [](const Dim& a, const Dim& b) { return a.value == b.value; }))
          return fmt::format("inputs differ in spatial dimensions ({} vs {})", shape_text(x), shape_text(y));
      }
      return {};
    }
    if (k == K::broadcast_) {
      if (n.inputs.size() < 2) return {};
      const TensorInfo* y = g_.input(n, 1);
      if (!all_fixed(x) || !all_fixed(y)) return {};
      std::vector<int64_t> a(4, 1), b(4, 1);
      if (x->rank > 4 || y->rank > 4) return {};
      for (int i = 0; i < x->rank; ++i) a[static_cast<size_t>(4 - x->rank + i)] = x->dims[static_cast<size_t>(i)].value;
      for (int i = 0; i < y->rank; ++i) b[static_cast<size_t>(4 - y->rank + i)] = y->dims[static_cast<size_t>(i)].value;
      if (a == b) return {};
      auto kind = [](const std::vector<int64_t>& big, const std::vector<int64_t>& small) -> std::string_view {
        if (small[2] == 1 && small[3] == 1 && small[0] == big[0] && small[1] == big[1]) return "channel";
        if (small[1] == 1 && small[2] == 1 && small[3] == 1 && small[0] == big[0]) return "scalar";
        return "other";
      };
      std::string_view kd = kind(a, b);
      if (kd == "other") kd = kind(b, a);
      if (listed(c.args, kd, '|')) return {};
      return fmt::format("broadcast of {} and {} ({}); DLA takes {}", shape_text(x), shape_text(y), kd, c.args);
    }
    if (k == K::steps_) return slice_steps(n, std::stoll(c.args));
    if (k == K::keep_axis_) return slice_keeps_axis(n, std::stoll(c.args));
    if (k == K::scales_) return resize_scales(n, c.args);
    if (k == K::stride_is_kernel_) return stride_is_kernel(n);
    if (k == K::mode_precision_) {  // "equal|greater|less:INT8": those operations run on the DLA at these precisions
      std::string_view modes = std::string_view(c.args).substr(0, c.args.find(':'));
      std::string_view precisions = std::string_view(c.args).substr(c.args.find(':') + 1);
      for (auto mode : split(map.mode, ','))
        if (listed(modes, mode, '|') && !listed(precisions, v.precision, '|'))
          return fmt::format("{} {} runs on the DLA at {} only: this node runs at {}", map.layers[0], mode, precisions,
                             v.precision);
      return {};
    }
    if (k == K::attr_) {
      auto parts = split(c.args, ':');
      std::string_view name = parts[0], allowed = parts.size() > 1 ? parts[1] : "";
      const Attribute* at = n.attribute(name);
      std::string value = at                 ? (at->kind == Attribute::Kind::Int ? std::to_string(at->i) : at->s)
                          : parts.size() > 2 ? std::string(parts[2])
                                             : std::string();
      if (listed(allowed, value, '|')) return {};
      return fmt::format("{} {} is not one the DLA runs ({})", name, value.empty() ? "(absent)" : value, allowed);
    }
    return {};
  }

  const Model& m_;
  const Graph& g_;
  const Annotations& a_;
  const Target& t_;
  const DlaRules& rules_;
  const TargetCatalog& catalog_;
  std::unordered_map<std::string_view, std::vector<const LayerMapping*>> by_op_;
  std::unordered_map<std::string, std::vector<std::pair<const DlaCheck*, K>>> by_layer_;
  const std::string general_ = "general";
  std::unordered_map<const LayerMapping*, std::string_view> layers_text_;  // interned "a,b" per mapping
  std::unordered_set<std::string> supported_;
  std::unordered_map<std::string, std::string_view> interned_;  // into DlaPlacement::texts
};

std::shared_ptr<DlaPlacement> place_on_dla(const Model& m, const Annotations& a, const Target& t, const DlaRules& rules,
                                           const TargetCatalog& catalog) {
  auto out = std::make_shared<DlaPlacement>();
  out->release = rules.release;
  for (const DlaCheck& c : rules.checks)
    if (c.layer == "general" && c.check == "loadables") out->max_loadables = std::stoi(c.args);
  if (m.graphs.empty()) return out;
  const Graph& g = m.graphs[0];
  DlaJudge judge(m, a, t, rules, catalog);  // not const: it interns texts
  out->nodes.reserve(g.nodes.size());
  for (const Node& n : g.nodes) {
    DlaNode d = judge.judge(n, a.nodes[static_cast<size_t>(n.index)], *out);
    if (d.verdict != DlaVerdict::NONE) {
      out->total_macs += d.macs;
      if (d.verdict == DlaVerdict::DLA)
        ++out->dla_nodes, out->dla_macs += d.macs;
      else if (d.verdict == DlaVerdict::GPU_FALLBACK)
        ++out->gpu_nodes;
      else
        ++out->unsupported_nodes;
    }
    out->nodes.push_back(std::move(d));
  }
  // Transitions: data edges between a DLA node and a node elsewhere; loadables: groups of DLA nodes joined by edges.
  std::vector<int> parent(g.nodes.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&parent](int i) {
    while (parent[static_cast<size_t>(i)] != i)
      i = parent[static_cast<size_t>(i)] = parent[static_cast<size_t>(parent[static_cast<size_t>(i)])];
    return i;
  };
  const auto& nodes = out->nodes;
  for (const Node& n : g.nodes) {
    DlaVerdict to = nodes[static_cast<size_t>(n.index)].verdict;
    if (to == DlaVerdict::NONE) continue;
    for (TensorId t : g.input_ids(n)) {
      if (t < 0 || static_cast<size_t>(t) >= g.index.producer.size()) continue;
      int p = g.index.producer[static_cast<size_t>(t)];
      if (p < 0) continue;
      DlaVerdict from = nodes[static_cast<size_t>(p)].verdict;
      if (from == DlaVerdict::NONE) continue;
      bool dla_from = from == DlaVerdict::DLA, dla_to = to == DlaVerdict::DLA;
      if (dla_from != dla_to)
        ++out->transitions;
      else if (dla_from)
        parent[static_cast<size_t>(find(p))] = find(n.index);
    }
  }
  for (const Node& n : g.nodes)
    if (nodes[static_cast<size_t>(n.index)].verdict == DlaVerdict::DLA && find(n.index) == n.index) ++out->loadables;
  if (out->loadables > out->max_loadables)
    out->notes.push_back(fmt::format("{} DLA loadables > {} per DLA core: TensorRT cannot load them all at once",
                                     out->loadables, out->max_loadables));
  return out;
}

}  // namespace

std::string_view dla_verdict_name(DlaVerdict v) {
  switch (v) {
    case DlaVerdict::DLA:
      return "DLA";
    case DlaVerdict::GPU_FALLBACK:
      return "GPU_FALLBACK";
    case DlaVerdict::UNSUPPORTED:
      return "UNSUPPORTED";
    case DlaVerdict::NONE:
      break;
  }
  return "-";
}

void apply_target(const Model& model, Annotations& a, const Target& t, const TargetCatalog& catalog) {
  a.target = &t;
  narrow_precisions(a, t, catalog);
  if (!t.dla) return;
  const DlaRules* rules = catalog.dla_rules(a.release->name);
  if (!rules) {
    a.notes.push_back(fmt::format("target {}: no DLA facts for TensorRT {}", t.name, a.release->name));
    return;
  }
  auto placed = place_on_dla(model, a, t, *rules, catalog);
  for (const auto& note : placed->notes) a.notes.push_back(note);
  a.dla = std::move(placed);
}

Matrix compute_target_matrix(const Model& model, const KnowledgeBase& kb, const Target& t,
                             const TargetCatalog& catalog) {
  Matrix mx;
  mx.target = &t;
  const Annotator annotator(model, kb);
  for (const Release& r : kb.releases()) {
    if (!t.runs_release(r) || (t.dla && !catalog.dla_rules(r.name))) continue;
    auto imports = annotator.import_release(r);
    for (Precision p : kAllPrecisions) {
      Annotations a = annotator.run(r, p, imports.get());
      narrow_precisions(a, t, catalog);  // the matrix counts verdicts: no DLA placement needed
      mx.cells.push_back({&r, p, a.summary, a.converts});
      if (a.converts && !mx.min_converting) mx.min_converting = &r;
    }
  }
  return mx;
}

}  // namespace trtlens
