// Narrows annotations to a deployment target and places nodes on a DLA core (include/trtlens/target.h).
// Every judgement reads data/targets/ (through TargetCatalog); nothing here names a device or a release.
#include "trtlens/target.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <absl/container/flat_hash_map.h>

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
  const std::vector<std::string_view> kernels = split(row->value, ',');
  // The asked precision when the device has no kernels of it (fp8 on an A100): then the device is the first reason
  // every float node misses it, before the release's own (FP8 only through Q/DQ), and no hint says to quantize to
  // it; the hint names the precisions the device has.
  const std::string_view asked = precision_type_name(a.precision);
  const bool asked_missing = a.precision != Precision::FP32 && a.precision != Precision::BEST &&
                             !listed(row->value, asked, ',');
  std::string device_hint;
  if (asked_missing) {
    std::vector<std::string_view> has;  // --precision names
    for (Precision p : {Precision::FP16, Precision::BF16, Precision::INT8})
      if (listed(row->value, precision_type_name(p), ',')) has.push_back(precision_name(p));
    std::string list;
    for (size_t i = 0; i < has.size(); ++i)
      list.append(i == 0 ? "" : i + 1 == has.size() ? " or " : ", ").append(has[i]);
    device_hint = has.empty() ? fmt::format("{} runs FP32 only", t.label())
                              : fmt::format("build at a precision {} has kernels for: --precision {}", t.name, list);
    a.notes.push_back(fmt::format("{} has no {} kernels in TensorRT {}: {}", t.label(), asked, a.release->name,
                                  device_hint));
  }
  // What a node at a missing precision is told (the reason and which targets do have it): once per precision.
  struct Missing {
    std::string_view precision;
    std::string message, hint;
  };
  std::deque<Missing> missing;
  auto missing_for = [&](std::string_view p) -> const Missing& {
    for (const Missing& m : missing)
      if (m.precision == p) return m;
    std::string with;
    for (const auto& other : catalog.targets()) {
      const TargetRow* r = other.dla ? nullptr : other.precisions_at(*a.release);
      if (r && listed(r->value, p, ',') && other.runs_release(*a.release))
        with += (with.empty() ? "" : ", ") + other.name;
    }
    missing.push_back(
        {p, fmt::format("{} has no {} kernels in TensorRT {}: this node runs at {}", t.label(), p, a.release->name, wider),
         with.empty() ? std::string() : fmt::format("{} kernels run on {} at TensorRT {}", p, with, a.release->name)});
    return missing.back();
  };
  // The device first: its reason at the front, hints that lead to the missing precision (quantize to it, a release
  // with it) replaced by the device's precisions, then the targets that have it.
  auto tell = [&](NodeVerdict& v, const Missing& why) {
    v.reasons.insert(v.reasons.begin(), {"target", why.message, row->source});
    // A release's "quantize the model first" (11.x: FP8/INT8 only through Q/DQ) leads to the asked precision too.
    const bool asked_one = asked_missing && why.precision == asked;
    std::erase_if(v.hints, [&](const std::string& h) {
      return h.find(why.precision) != std::string::npos || (asked_one && h.find("quantize") != std::string::npos);
    });
    std::vector<std::string> first;
    if (!device_hint.empty()) first.push_back(device_hint);
    if (!why.hint.empty()) first.push_back(why.hint);
    v.hints.insert(v.hints.begin(), first.begin(), first.end());
  };
  bool changed = false;
  std::string_view kept = "-";  // the last precision found to have kernels (nodes mostly share one)
  for (auto& v : a.nodes) {
    if (v.verdict == Verdict::UNSUPPORTED || v.verdict == Verdict::UNKNOWN) continue;
    // A float node that did not reach the asked precision for a reason of the release (FP8 only through Q/DQ): the
    // device would not run it there either.
    if (asked_missing && v.precision != asked && is_kernel_precision(v.precision) &&
        std::any_of(v.reasons.begin(), v.reasons.end(), [](const Reason& r) { return r.rule == "precision"; })) {
      tell(v, missing_for(asked));
      continue;
    }
    if (v.precision == kept) continue;
    if (!is_kernel_precision(v.precision) || std::find(kernels.begin(), kernels.end(), v.precision) != kernels.end()) {
      kept = v.precision;
      continue;
    }
    tell(v, missing_for(v.precision));
    if (v.verdict == Verdict::SUPPORTED) v.verdict = Verdict::FALLBACK;
    v.precision = wider;
    changed = true;
  }
  if (changed) recount(a);
}

// ---- DLA placement ---------------------------------------------------------------------------

const std::vector<int64_t>& ints_attr(const Node& n, std::string_view name) {
  static const std::vector<int64_t> none;
  const Attribute* at = n.attribute(name);
  return at ? at->ints : none;
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

// A fixed tensor's batch (the product of the dims before the last three, C, H, W) and its largest other
// dim, as the DLA's max_batch and max_dim restrictions read them; {0, 0} when not fixed or rank 0.
std::pair<int64_t, int64_t> batch_and_dim(const TensorInfo* x) {
  if (!x || x->rank < 1) return {0, 0};
  size_t split_at = x->dims.size() - std::min<size_t>(3, x->dims.size() - 1);
  int64_t batch = 1, dim = 0;
  for (size_t i = 0; i < x->dims.size(); ++i) {
    int64_t v = x->dims[i].value;
    if (v < 0) return {0, 0};  // not fixed
    if (i < split_at)
      batch *= v;
    else
      dim = std::max(dim, v);
  }
  return {batch, dim};
}

// Multiply-accumulates of the layers that dominate a CNN's work (Conv, ConvTranspose, Gemm, MatMul); 0 for other
// ops; -1 for one of those four whose shapes are not known (a dynamic dimension): unknown, not zero.
int64_t macs_of(const Graph& g, const Node& n) {
  std::string_view op = n.op_type;
  bool conv = op == "Conv", deconv = op == "ConvTranspose", gemm = op == "Gemm", matmul = op == "MatMul";
  if (!conv && !deconv && !gemm && !matmul) return 0;
  const TensorInfo* out = g.output(n, 0);
  const TensorInfo* x = n.inputs.empty() ? nullptr : g.input(n, 0);
  const TensorInfo* w = n.inputs.size() > 1 ? g.input(n, 1) : nullptr;
  auto tail = [](const TensorInfo* t, size_t from) {
    int64_t p = 1;
    for (size_t i = from; i < t->dims.size(); ++i) p *= t->dims[i].value;
    return p;
  };
  if (conv && all_fixed(w) && elements(out) > 0) return elements(out) * tail(w, 1);
  if (deconv && all_fixed(w) && elements(x) > 0) return elements(x) * tail(w, 1);
  if ((gemm || matmul) && all_fixed(x) && x->rank >= 1 && elements(out) > 0) {
    int64_t k = x->dims.back().value;
    if (gemm && int_attr(n, "transA", 0) && x->rank == 2) k = x->dims[0].value;
    return elements(out) * k;
  }
  return -1;
}

int64_t to_int(std::string_view s) {
  int64_t v = 0;
  auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (err != std::errc() || end != s.data() + s.size())
    throw std::invalid_argument(fmt::format("DLA check argument '{}' is not an integer", s));
  return v;
}

struct Range {
  int64_t lo = 0, hi = 0;
};
// "A..B", or "N" (A = B = N).
Range parse_range(std::string_view s) {
  size_t dots = s.find("..");
  if (dots == std::string_view::npos) return {to_int(s), to_int(s)};
  return {to_int(s.substr(0, dots)), to_int(s.substr(dots + 2))};
}

// "kernel size 37 > 32" for the first value outside `r`; "" when all lie inside.
std::string out_of(std::string_view what, std::span<const int64_t> values, Range r) {
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

// A restriction with its arguments read once per placement, not once per node.
struct Rule {
  const DlaCheck* c = nullptr;
  K kind = K::other;
  Range range;                         // args "A..B" or "N"; has_range false for other args
  bool has_range = false;
  std::vector<std::string_view> alts;  // args "a|b|c"
  std::string_view source;             // c->source, interned
  const Range& bounds() const {
    if (!has_range) throw std::invalid_argument(fmt::format("DLA check {} needs A..B or N, not '{}'", c->check, c->args));
    return range;
  }
  bool allows(std::string_view value) const { return std::find(alts.begin(), alts.end(), value) != alts.end(); }
};

bool range_text(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return (ch >= '0' && ch <= '9') || ch == '.'; });
}

// Places each node of the main graph. Each distinct text (layers, reason, source) is interned once in the
// placement's `texts` and each distinct outcome once in its `outcomes`: a 100k-node model repeats a few dozen, so
// the reasons that depend only on the rule and one number (a rank, a precision, an op) are formatted once too.
class DlaJudge {
 public:
  DlaJudge(const Model& m, const Annotations& a, const Target& t, const DlaRules& rules, const TargetCatalog& catalog,
           DlaPlacement& placed)
      : g_(m.graphs[0]), a_(a), t_(t), rules_(rules), placed_(placed), layers_(catalog.layers()) {
    implicit_int8_ = a.release->policy.implicit_int8 && !a.qdq;  // as the annotator quantizes float nodes
    for (const LayerMapping& l : layers_) by_op_[l.op].push_back(&l);
    plans_.resize(layers_.size());
    // The general rules on tensors (static shapes, batch, dims) hold for every node when they hold for every
    // tensor, as they do in most models: then no node walks them. One pass over the tensors decides.
    bool dynamic = false;
    int64_t batch = 0, dim = 0;
    for (const TensorInfo& t : g_.tensors) {
      if (!is_constant(&t) && (t.rank < 0 || !all_fixed(&t))) dynamic = true;
      auto [b, d] = batch_and_dim(&t);
      batch = std::max(batch, b), dim = std::max(dim, d);
    }
    auto can_fail = [&](const Rule& r) {
      if (r.kind == K::static_) return dynamic;
      if (r.kind == K::max_batch_) return batch > r.bounds().hi;
      if (r.kind == K::max_dim_) return dim > r.bounds().hi;
      return true;
    };
    for (const DlaCheck& c : rules_.checks) {
      if (!applies(c)) continue;
      if (c.check == "supported") {
        supported_.insert(c.layer);
        continue;
      }
      if (c.check == "loadables") continue;  // a limit on the whole placement (place_on_dla), not a node's
      Rule r;
      r.c = &c;
      r.kind = kind_of(c.check);
      if (range_text(c.args)) r.range = parse_range(c.args), r.has_range = true;
      r.alts = split(c.args, '|');
      r.source = intern(c.source);
      rule_store_.push_back(std::move(r));
    }
    for (const Rule& r : rule_store_) {
      if (!can_fail(r)) continue;
      if (r.c->layer == "general")
        general_.push_back(&r);
      else
        by_layer_[r.c->layer].push_back(&r);
    }
  }

  // Judges `n` into `out` (a fresh DlaNode, judged in place: a 100k-node model moves none).
  void judge(const Node& n, const NodeVerdict& v, DlaNode& out) {
    out.index = n.index;
    out.macs = macs_of(g_, n);
    // NONE: a Constant, or a node computing a constant (an Identity on weights) that the builder folds.
    bool constant = !n.outputs.empty();
    for (size_t k = 0; k < n.outputs.size() && constant; ++k) {
      const TensorInfo* t = g_.output(n, k);
      constant = t && t->const_foldable;
    }
    if (constant || (std::string_view(n.op_type) == "Constant" && n.domain.empty())) return finish(out, {});
    auto fallback = [&](std::string_view reason, std::string_view source) {
      out.verdict = DlaVerdict::GPU_FALLBACK;
      return finish(out, reason, source);
    };
    if (v.verdict == Verdict::UNSUPPORTED) {
      out.verdict = DlaVerdict::UNSUPPORTED;
      return finish(out,
                    intern("does not import: " + (v.reasons.empty() ? std::string("unsupported") : v.reasons[0].message)),
                    intern(v.reasons.empty() ? a_.release->citation() : v.reasons[0].source));
    }
    const LayerMapping* map = mapping(n);
    if (!map) {
      auto [it, fresh] = no_layer_.try_emplace(n.op_type);
      if (fresh)
        it->second = intern(
            fmt::format("no DLA layer for {}: the importer creates layers the DLA does not run", n.op_type));
      return fallback(it->second, intern("data/targets/layers.tsv"));
    }
    const Plan& plan = plan_of(*map);
    out.layers = plan.layers;
    const Facts f{n, v, *map, n.inputs.empty() ? nullptr : g_.input(n, 0), n.outputs.empty() ? nullptr : g_.output(n, 0),
                  dla_precision(v)};
    if (plan.by_rank == 0) {
      place(plan, f, out);
      return;
    }
    // The plan's first rules read only the node's precision and its input's and output's ranks: nodes that share those and
    // stopped within those rules share the outcome.
    RankKey key{&plan, f.precision.data(), f.precision.size(), f.x ? f.x->rank : -2, f.y ? f.y->rank : -2};
    if (auto it = by_rank_.find(key); it != by_rank_.end()) {
      const DlaOutcome& o = placed_.outcomes[static_cast<size_t>(it->second)];
      out.verdict = o.verdict;
      out.reason = o.reason;
      out.source = o.source;
      out.outcome = it->second;
      return;
    }
    if (place(plan, f, out) < plan.by_rank) by_rank_.emplace(key, out.outcome);
  }

 private:
  // A mapping's layers in order: each layer's rules, or where a layer is not on the DLA, that reason (and stop).
  struct Step {
    const Rule* rule = nullptr;          // null: the layer does not run on the DLA
    std::string_view reason, source;     // with rule null
  };
  struct Plan {
    bool ready = false;
    std::string_view layers;  // "a,b"
    std::vector<Step> steps;
    // How many of its checks (general_, then steps) from the first read only the node's precision, its input's
    // rank and its op (a step whose layer is not on the DLA reads nothing), plus one when that is all of them.
    size_t by_rank = 0;
  };
  // What every rule of a node reads, looked up once per node.
  struct Facts {
    const Node& n;
    const NodeVerdict& v;
    const LayerMapping& map;
    const TensorInfo* x;  // input 0
    const TensorInfo* y;  // output 0
    std::string_view precision;  // what it runs at on the DLA (dla_precision), a static name
  };

  // The precision a node runs at on the DLA: the DLA's own, not the GPU kernel table's. A float node that the GPU
  // runs at FP32 for want of an FP16 or INT8 kernel (an Add at int8 in 8.5) runs at the asked precision on the DLA,
  // whose layers have kernels of their own (the dla rows say which: `precision`, `mode_precision`). Integer nodes and
  // Q/DQ regions keep theirs; INT8 without Q/DQ needs implicit quantization (the release's policy, no Q/DQ in the
  // model), as on the GPU. "INT8|FP16" (best): either, INT8 where the layer has it. A strongly typed release (11.x:
  // no precision builder flags) runs every node at the model's own type, the one the GPU verdict holds.
  std::string_view dla_precision(const NodeVerdict& v) const {
    if (a_.release->policy.strongly_typed) return v.precision;
    if (v.precision != "FP32" && v.precision != "FP16" && v.precision != "BF16") return v.precision;
    switch (a_.precision) {
      case Precision::FP16:
        return "FP16";
      case Precision::INT8:
        return implicit_int8_ ? "INT8" : v.precision;
      case Precision::BEST:
        return implicit_int8_ ? "INT8|FP16" : "FP16";
      default:
        return v.precision;
    }
  }
  // True when a rule's precisions `allowed` ("FP16|INT8") hold one of the node's (`p`: "INT8|FP16" under best).
  static bool allows_precision(std::string_view allowed, std::string_view p) {
    for (auto one : split(p, '|'))
      if (listed(allowed, one, '|')) return true;
    return false;
  }

  // Places a node with mapping `f.map` (planned as `plan`) by its checks, general_ then plan.steps; returns the
  // position of the check that kept it off the DLA, or the number of checks when it runs on the DLA.
  size_t place(const Plan& plan, const Facts& f, DlaNode& out) {
    auto fallback = [&](std::string_view reason, std::string_view source) {
      out.verdict = DlaVerdict::GPU_FALLBACK;
      finish(out, reason, source);
    };
    size_t at = 0;
    for (const Rule* r : general_) {
      if (std::string_view why = check(*r, f); !why.empty()) return fallback(why, r->source), at;
      ++at;
    }
    for (const Step& s : plan.steps) {
      if (!s.rule) return fallback(s.reason, s.source), at;
      if (std::string_view why = check(*s.rule, f); !why.empty()) return fallback(why, s.rule->source), at;
      ++at;
    }
    out.verdict = DlaVerdict::DLA;
    finish(out, {});
    return at;
  }

  // Rules whose judgement reads nothing of a node but its precision, its input's and output's ranks and its op's mapping.
  static bool reads_rank_only(K k) { return k == K::precision_ || k == K::spatial_ || k == K::rank_ || k == K::modes_; }

  bool applies(const DlaCheck& c) const { return c.devices == "-" || t_.family == "jetson-" + c.devices; }

  std::string_view intern(std::string_view text) {
    if (text.empty()) return {};
    auto it = interned_.find(text);
    if (it != interned_.end()) return *it;
    return *interned_.insert(placed_.texts.emplace_back(text)).first;
  }

  // Records `out`'s outcome (verdict, layers, reason, source; all interned, so compared by address).
  void finish(DlaNode& out, std::string_view reason, std::string_view source = {}) {
    out.reason = reason;
    out.source = source;
    auto key = std::make_tuple(static_cast<int>(out.verdict), out.layers.data(), reason.data(), source.data());
    auto [it, fresh] = outcome_of_.try_emplace(key, static_cast<int>(placed_.outcomes.size()));
    if (fresh) placed_.outcomes.push_back({out.verdict, out.layers, reason, source});
    out.outcome = it->second;
  }

  const Plan& plan_of(const LayerMapping& map) {
    Plan& p = plans_[static_cast<size_t>(&map - layers_.data())];
    if (p.ready) return p;
    p.ready = true;
    p.layers = intern(fmt::format("{}", fmt::join(map.layers, ",")));
    for (const std::string& layer : map.layers) {
      if (!supported_.count(layer)) {
        p.steps.push_back({nullptr,
                           intern(fmt::format("the {} layer ({} imports as {}) does not run on the DLA in TensorRT {}",
                                              layer, map.op, p.layers, rules_.release)),
                           intern(fmt::format("data/targets/dla/{}.tsv; importer {}", rules_.release, map.where))});
        break;
      }
      if (auto rs = by_layer_.find(layer); rs != by_layer_.end())
        for (const Rule* r : rs->second) p.steps.push_back({r, {}, {}});
    }
    size_t checks = general_.size() + p.steps.size();
    while (p.by_rank < checks && (p.by_rank < general_.size()
                                      ? reads_rank_only(general_[p.by_rank]->kind)
                                      : !p.steps[p.by_rank - general_.size()].rule ||
                                            reads_rank_only(p.steps[p.by_rank - general_.size()].rule->kind)))
      ++p.by_rank;
    if (p.by_rank == checks) ++p.by_rank;  // a node on the DLA passed only such checks too
    return p;
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

  // once() keys of output ranks, apart from input ranks.
  static constexpr int64_t kOutputRankKey = 1 << 20;
  // The reason of rule `r` that depends only on `key` (a rank; a precision's text, by address), formatted once.
  template <class Make>
  std::string_view once(const Rule& r, int64_t key, Make make) {
    auto [it, fresh] = once_.try_emplace({&r, key});
    if (fresh) it->second = intern(make());
    return it->second;
  }

  // Why rule `r` keeps node `f.n` off the DLA (interned); "" when it holds.
  std::string_view check(const Rule& r, const Facts& f) {
    const DlaCheck& c = *r.c;
    const K k = r.kind;
    const Node& n = f.n;
    const LayerMapping& map = f.map;
    const TensorInfo* x = f.x;
    if (k == K::precision_) {
      if (allows_precision(c.args, f.precision)) return {};
      return once(r, reinterpret_cast<intptr_t>(f.precision.data()), [&] {
        return fmt::format("DLA runs {} only: this node runs at {} (--precision {})", c.args, f.precision,
                           precision_name(a_.precision));
      });
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
        if (auto why = dynamic(g_.input(n, i), "input", i); !why.empty()) return intern(why);
      for (size_t i = 0; i < n.outputs.size(); ++i)
        if (auto why = dynamic(g_.output(n, i), "output", i); !why.empty()) return intern(why);
      return {};
    }
    if (k == K::max_batch_ || k == K::max_dim_) {
      auto [batch, dim] = batch_and_dim(x);
      if (batch == 0) return {};  // not fixed
      Range limit{0, r.bounds().hi};
      if (k == K::max_batch_) return intern(out_of("batch", {&batch, 1}, limit));
      if (dim <= limit.hi) return {};
      for (size_t i = x->dims.size() - std::min<size_t>(3, x->dims.size() - 1); i < x->dims.size(); ++i)
        if (x->dims[i].value > limit.hi) return intern(out_of("dimension", {&x->dims[i].value, 1}, limit));
      return {};
    }
    if (k == K::loadables_) return {};
    if (k == K::spatial_) {
      int64_t want = r.bounds().lo + 2;
      if (!x || x->rank < 0 || x->rank == want) return {};
      // Below rank 2 there are no spatial dimensions to count: the rank alone says it.
      return once(r, x->rank, [&] {
        return x->rank < 2 ? fmt::format("input rank {}; DLA needs rank {} ({} spatial dimensions)", x->rank, want, c.args)
                           : fmt::format("input rank {} ({} spatial dimensions); DLA needs rank {} ({} spatial dimensions)",
                                         x->rank, x->rank - 2, want, c.args);
      });
    }
    if (k == K::rank_) {  // input and output ("Shuffle: 4-D input and output"): a Flatten or a Reduce without
                          // keepdims changes the rank
      if (x && x->rank >= 0 && x->rank != r.bounds().lo)
        return once(r, x->rank, [&] { return fmt::format("input rank {}; DLA needs rank {}", x->rank, c.args); });
      if (f.y && f.y->rank >= 0 && f.y->rank != r.bounds().lo)
        return once(r, kOutputRankKey + f.y->rank, [&] {
          return fmt::format("output rank {}; DLA needs rank {} in and out", f.y->rank, c.args);
        });
      return {};
    }
    if (k == K::kernel_) return intern(out_of("kernel size", kernel(n), r.bounds()));
    if (k == K::window_) return intern(out_of("window size", kernel(n), r.bounds()));
    if (k == K::stride_) return intern(out_of("stride", ints_attr(n, "strides"), r.bounds()));
    if (k == K::padding_) return intern(out_of("padding", pads(n), r.bounds()));
    if (k == K::dilation_) return intern(out_of("dilation", ints_attr(n, "dilations"), r.bounds()));
    if (k == K::groups_) {
      int64_t groups = int_attr(n, "group", 1);
      return intern(out_of("groups", {&groups, 1}, r.bounds()));
    }
    if (k == K::out_channels_) {
      const TensorInfo* w = n.inputs.size() > 1 ? g_.input(n, 1) : nullptr;
      if (!all_fixed(w) || w->rank < 2) return {};
      int64_t ch = n.op_type == "ConvTranspose" ? w->dims[1].value * int_attr(n, "group", 1) : w->dims[0].value;
      return intern(out_of("output channels", {&ch, 1}, r.bounds()));
    }
    if (k == K::pad_lt_kernel_) {
      std::vector<int64_t> kk = kernel(n), p = pads(n);
      for (size_t i = 0; i < p.size() && !kk.empty(); ++i)
        if (p[i] >= kk[i % kk.size()])
          return intern(fmt::format("padding {} >= kernel size {}", p[i], kk[i % kk.size()]));
      return {};
    }
    if (k == K::modes_) {
      for (auto mode : split(map.mode, ','))
        if (mode != "-" && !r.allows(mode))
          return intern(fmt::format("{} mode {} is not one the DLA runs ({})", map.layers[0], mode, c.args));
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
        return intern(fmt::format("Clip lower bound {} outside {} (DLA's clipped ReLU)", lo, bounds[0]));
      if (!(hi >= static_cast<double>(rh.lo) && hi <= static_cast<double>(rh.hi)))
        return intern(fmt::format("Clip upper bound {} outside {} (DLA's clipped ReLU)", hi,
                                  bounds.size() > 1 ? bounds[1] : bounds[0]));
      return {};
    }
    if (k == K::const_input_) {
      for (auto s : split(c.args, ',')) {
        size_t i = static_cast<size_t>(to_int(s));
        if (i >= n.inputs.size() || n.inputs[i].empty()) continue;
        const TensorInfo* t = g_.input(n, i);
        if (!is_constant(t))
          return intern(
              fmt::format("input {} ({}) is computed at run time; DLA needs a build-time constant", i, n.inputs[i]));
      }
      return {};
    }
    if (k == K::axis_) {
      if (!x || x->rank < 0) return {};
      int64_t axis = int_attr(n, "axis", 1);
      if (axis < 0) axis += x->rank;
      if (axis != r.bounds().lo)
        return intern(
            fmt::format("concatenation along axis {}; DLA concatenates along axis {} (channels) only", axis, c.args));
      return {};
    }
    if (k == K::same_spatial_) {
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        const TensorInfo* y = g_.input(n, i);
        if (!all_fixed(x) || !all_fixed(y) || x->rank != y->rank || x->rank < 3) continue;
        if (!std::equal(x->dims.begin() + 2, x->dims.end(), y->dims.begin() + 2,
                        [](const Dim& a, const Dim& b) { return a.value == b.value; }))
          return intern(fmt::format("inputs differ in spatial dimensions ({} vs {})", shape_text(x), shape_text(y)));
      }
      return {};
    }
    if (k == K::broadcast_) {
      if (n.inputs.size() < 2) return {};
      const TensorInfo* y = g_.input(n, 1);
      if (!all_fixed(x) || !all_fixed(y)) return {};
      std::array<int64_t, 4> a{1, 1, 1, 1}, b{1, 1, 1, 1};
      if (x->rank > 4 || y->rank > 4) return {};
      for (int i = 0; i < x->rank; ++i) a[static_cast<size_t>(4 - x->rank + i)] = x->dims[static_cast<size_t>(i)].value;
      for (int i = 0; i < y->rank; ++i) b[static_cast<size_t>(4 - y->rank + i)] = y->dims[static_cast<size_t>(i)].value;
      if (a == b) return {};
      // A one-element operand (rank 0, or every dimension 1) is a scalar, whatever the other's rank (not "channel"
      // beside a 2-D tensor, not "other" beside a batch of 2); the guide's N111 keeps the batch, so across a batch
      // of more than one it is named apart (and no DLA takes it).
      auto kind = [](const std::array<int64_t, 4>& big, const std::array<int64_t, 4>& small) -> std::string_view {
        if (small[0] == 1 && small[1] == 1 && small[2] == 1 && small[3] == 1)
          return big[0] == 1 ? "scalar" : "scalar across the batch";
        if (small[2] == 1 && small[3] == 1 && small[0] == big[0] && small[1] == big[1]) return "channel";
        if (small[1] == 1 && small[2] == 1 && small[3] == 1 && small[0] == big[0]) return "scalar";
        return "other";
      };
      std::string_view kd = kind(a, b);
      if (kd == "other") kd = kind(b, a);
      if (r.allows(kd)) return {};
      return intern(fmt::format("broadcast of {} and {} ({}); DLA takes {}", shape_text(x), shape_text(y), kd, c.args));
    }
    if (k == K::steps_) return intern(slice_steps(n, r.bounds().lo));
    if (k == K::keep_axis_) return intern(slice_keeps_axis(n, r.bounds().lo));
    if (k == K::scales_) return intern(resize_scales(n, c.args));
    if (k == K::stride_is_kernel_) return intern(stride_is_kernel(n));
    if (k == K::mode_precision_) {  // "equal|greater|less:INT8": those operations run on the DLA at these precisions
      std::string_view modes = std::string_view(c.args).substr(0, c.args.find(':'));
      std::string_view precisions = std::string_view(c.args).substr(c.args.find(':') + 1);
      for (auto mode : split(map.mode, ','))
        if (listed(modes, mode, '|') && !allows_precision(precisions, f.precision))
          return intern(fmt::format("{} {} runs on the DLA at {} only: this node runs at {}", map.layers[0], mode,
                                    precisions, f.precision));
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
      return intern(fmt::format("{} {} is not one the DLA runs ({})", name, value.empty() ? "(absent)" : value, allowed));
    }
    return {};
  }

  const Graph& g_;
  const Annotations& a_;
  bool implicit_int8_ = false;  // --precision int8 quantizes float nodes implicitly: the release allows it, no Q/DQ
  const Target& t_;
  const DlaRules& rules_;
  DlaPlacement& placed_;
  std::vector<Rule> rule_store_;  // filled first: general_ and by_layer_ point into it
  std::vector<const Rule*> general_;
  std::unordered_map<std::string_view, std::vector<const Rule*>> by_layer_;
  std::unordered_set<std::string> supported_;
  absl::flat_hash_map<std::string_view, std::vector<const LayerMapping*>> by_op_;
  const std::vector<LayerMapping>& layers_;
  std::vector<Plan> plans_;  // per mapping of layers_, made on first use
  std::unordered_map<std::string_view, std::string_view> no_layer_;  // by op_type
  std::map<std::pair<const Rule*, int64_t>, std::string_view> once_;
  std::unordered_set<std::string_view> interned_;  // views of placed_.texts
  // Outcomes by the addresses of their interned texts (and the verdict): hashed by address, not by text.
  using OutcomeKey = std::tuple<int, const char*, const char*, const char*>;
  struct OutcomeHash {
    size_t operator()(const OutcomeKey& k) const {
      auto word = [](const char* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); };
      uint64_t h = (word(std::get<1>(k)) * 0x9E3779B97F4A7C15ull) ^ (word(std::get<2>(k)) * 0xC2B2AE3D27D4EB4Full) ^
                   (word(std::get<3>(k)) * 0x165667B19E3779F9ull) ^ static_cast<uint64_t>(std::get<0>(k));
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  absl::flat_hash_map<OutcomeKey, int, OutcomeHash> outcome_of_;
  // Outcomes decided within a plan's first Plan::by_rank checks, by (plan, precision text, input rank; -2: none).
  using RankKey = std::tuple<const Plan*, const char*, size_t, int, int>;  // plan, precision, input and output rank
  absl::flat_hash_map<RankKey, int> by_rank_;
};

std::shared_ptr<DlaPlacement> place_on_dla(const Model& m, const Annotations& a, const Target& t, const DlaRules& rules,
                                           const TargetCatalog& catalog) {
  auto out = std::make_shared<DlaPlacement>();
  out->release = rules.release;
  for (const DlaCheck& c : rules.checks)
    if (c.layer == "general" && c.check == "loadables") out->max_loadables = static_cast<int>(to_int(c.args));
  if (m.graphs.empty()) return out;
  const Graph& g = m.graphs[0];
  DlaJudge judge(m, a, t, rules, catalog, *out);
  out->nodes.reserve(g.nodes.size());
  for (const Node& n : g.nodes) {
    DlaNode& d = out->nodes.emplace_back();
    judge.judge(n, a.nodes[static_cast<size_t>(n.index)], d);
    if (d.verdict != DlaVerdict::NONE) {
      if (d.macs < 0) ++out->macs_unknown_nodes;
      int64_t macs = std::max<int64_t>(d.macs, 0);
      out->total_macs += macs;
      if (d.verdict == DlaVerdict::DLA)
        ++out->dla_nodes, out->dla_macs += macs;
      else if (d.verdict == DlaVerdict::GPU_FALLBACK)
        ++out->gpu_nodes;
      else
        ++out->unsupported_nodes;
    }
  }
  // Transitions: data edges between a DLA node and a node elsewhere; loadables: groups of DLA nodes joined by edges.
  if (out->dla_nodes == 0) return out;  // no edge touches the DLA
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
  // fp32 (the default), bf16, fp8: the DLA has none of them, so nothing lands on it; say so rather than leave a
  // 0% share beside "converts: yes". (A Q/DQ region still runs at INT8 there, so only when nothing does.)
  if (placed->dla_nodes == 0 && a.precision != Precision::FP16 && a.precision != Precision::INT8 &&
      a.precision != Precision::BEST)
    a.notes.push_back(fmt::format("DLA runs FP16 and INT8 only: at {} every node runs on the GPU; pass --precision "
                                  "fp16 or int8",
                                  precision_name(a.precision)));
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
