// The verdict model of DESIGN.md: one Verdict per node for (release, precision).
#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <map>
#include <unordered_map>

#include "compat/annotator.h"
#include "trtlens/error.h"

namespace trtlens {
namespace {

// Severity order for combining findings: the worst one is the node's verdict.
int severity(Verdict v) {
  switch (v) {
    case Verdict::SUPPORTED: return 0;
    case Verdict::IMPLICIT_CAST: return 1;
    case Verdict::FALLBACK: return 2;
    case Verdict::UNKNOWN: return 3;
    case Verdict::UNSUPPORTED: return 4;
  }
  return 0;
}

bool is_quantized_type(ElemType t) {
  return t == ElemType::INT8 || t == ElemType::UINT8 || t == ElemType::INT4 || t == ElemType::UINT4 ||
         t == ElemType::FLOAT8E4M3FN || t == ElemType::FLOAT8E5M2 || t == ElemType::FLOAT8E4M3FNUZ ||
         t == ElemType::FLOAT8E5M2FNUZ || t == ElemType::FLOAT4E2M1;
}

// The support tables' type names as bits, so membership tests compare integers.
constexpr std::string_view kTypeNames[] = {"DOUBLE", "FP32", "FP16", "BF16",  "FP8",   "FP4",  "E8M0",
                                           "INT4",   "INT8", "UINT8", "INT32", "INT64", "BOOL"};

uint32_t type_bit(std::string_view name) {
  for (size_t i = 0; i < std::size(kTypeNames); ++i)
    if (kTypeNames[i] == name) return 1u << i;
  return 0;  // a type the tables never name (STRING, COMPLEX64, ...)
}

uint32_t type_mask(const std::vector<std::string>& names) {
  uint32_t m = 0;
  for (const auto& n : names) m |= type_bit(n);
  return m;
}

}  // namespace

std::string_view precision_type_name(Precision p) {
  switch (p) {
    case Precision::FP32: return "FP32";
    case Precision::FP16: return "FP16";
    case Precision::BF16: return "BF16";
    case Precision::INT8: return "INT8";
    case Precision::FP8: return "FP8";
    case Precision::BEST: return "BEST";
  }
  return "FP32";
}

Annotator::ReleaseMasks Annotator::masks_of(const Release& r) const {
  if (auto it = release_masks_.find(&r); it != release_masks_.end()) return it->second;
  uint32_t types = type_mask(r.types), limited = type_mask(r.types_limited);
  uint32_t all = r.types_importer.empty() ? types | limited : type_mask(r.types_importer);
  return {types, limited, all, all | type_mask(r.types_weights)};
}

uint32_t Annotator::mask_of(const OpEntry& e) const {
  if (auto it = entry_masks_.find(&e); it != entry_masks_.end()) return it->second;
  return type_mask(e.types);
}

template <typename Pred>
const Release* Annotator::first_release(Pred has) const {
  for (const Release& r : kb_.releases())
    if (has(r)) return &r;
  return nullptr;
}

Annotator::Annotator(const Model& model, const KnowledgeBase& kb) : model_(model), kb_(kb) {
  for (const Release& r : kb.releases()) {
    release_masks_[&r] = masks_of(r);
    for (const auto& [op, e] : r.ops) entry_masks_[&e] = type_mask(e.types);
  }
  find_bounded_int64();
  find_trt_types();
  facts_.resize(model.graphs.size());
  for (size_t gi = 0; gi < model.graphs.size(); ++gi) {
    const Graph& g = model.graphs[gi];
    GraphFacts& f = facts_[gi];
    f.quant.assign(g.nodes.size(), ElemType::UNDEFINED);
    // ModelOpt's TRT_ Q/DQ ops go to the same Q/DQ importer helper (10.1-GA
    // onnxOpImporters.cpp:1669-1690) and the dynamic quantizers make Q layers too.
    static const std::unordered_set<std::string_view> kTrtQ = {
        "TRT_FP8QuantizeLinear", "TRT_INT4QuantizeLinear", "TRT_FP4DynamicQuantize", "TRT_MXFP8DynamicQuantize"};
    static const std::unordered_set<std::string_view> kTrtDQ = {"TRT_FP8DequantizeLinear", "TRT_INT4DequantizeLinear",
                                                                "TRT_MXFP8DequantizeLinear"};
    auto is_dq = [](const Node& n) {
      return (n.domain.empty() && n.op_type == "DequantizeLinear") || kTrtDQ.count(n.op_type) != 0;
    };
    auto is_qdq = [&](const Node& n) {
      return is_dq(n) || (n.domain.empty() && n.op_type == "QuantizeLinear") || kTrtQ.count(n.op_type) != 0;
    };
    if (std::none_of(g.nodes.begin(), g.nodes.end(), is_qdq)) continue;
    has_qdq_ = true;
    auto type_of = [&](const TensorInfo* t) { return trt_type(t); };
    // Q/DQ regions: a DequantizeLinear's consumers compute in its quantized
    // type (TensorRT fuses DQ into them), and so does the producer of a
    // QuantizeLinear's input (fused with the Q on its output).
    for (const auto& n : g.nodes) {
      if (!is_qdq(n) || n.inputs.empty() || n.outputs.empty()) continue;
      bool dq = is_dq(n);
      ElemType q = dq ? type_of(g.input(n, 0)) : type_of(g.output(n, 0));
      if (!is_quantized_type(q)) continue;
      f.quant[static_cast<size_t>(n.index)] = q;
      if (dq) {
        for (TensorId o : g.output_ids(n))
          for (int c : g.consumers(o)) f.quant[static_cast<size_t>(c)] = q;
      } else if (TensorId in = g.input_id(n, 0); in != kNoTensor && g.index.producer[static_cast<size_t>(in)] >= 0) {
        int p = g.index.producer[static_cast<size_t>(in)];
        f.quant[static_cast<size_t>(p)] = q;
      }
    }
  }
  // The float type the model carries: the type of most float tensors feeding nodes.
  std::unordered_map<int, int> votes;
  for (const auto& g : model.graphs)
    for (const TensorInfo& t : g.tensors)
      if (is_float(t.type) && !is_quantized_type(t.type)) ++votes[static_cast<int>(t.type)];
  int best = 0;
  for (const auto& [type, count] : votes)
    if (count > best) {
      best = count;
      model_float_ = static_cast<ElemType>(type);
    }
}

// Which inputs an op's INT64 outputs take their values from: the others are
// shapes, indices, axes or pads, which select or place values but never become
// them (a Slice's ends, a Reshape's shape, a Gather's indices). Bit i = input i;
// all bits for ops whose every input is arithmetic (Add, Concat, Range, ...).
static uint32_t value_inputs(std::string_view op) {
  static const std::unordered_map<std::string_view, uint32_t> kData = {
      {"Slice", 1},     {"Gather", 1},     {"GatherElements", 1}, {"GatherND", 1},        {"Reshape", 1},
      {"Expand", 1},    {"Tile", 1},       {"Squeeze", 1},        {"Unsqueeze", 1},       {"Flatten", 1},
      {"Identity", 1},  {"Transpose", 1},  {"Cast", 1},           {"CastLike", 1},        {"Split", 1},
      {"ReduceProd", 1}, {"ReduceSum", 1}, {"ReduceMin", 1},      {"ReduceMax", 1},       {"CumSum", 1},
      {"Clip", 1},      {"Neg", 1},        {"Abs", 1},            {"Sign", 1},            {"Pad", 1 | 4},
      {"ScatterND", 1 | 4}, {"ScatterElements", 1 | 4}, {"Where", 2 | 4}, {"ConstantOfShape", 0}};
  auto it = kData.find(op);
  return it == kData.end() ? ~0u : it->second;
}

// An INT64 tensor is bounded (its values fit INT32) when it is a constant whose
// values are known and fit, a shape or index (Shape, Size, NonZero, ArgMax, TopK
// indices), or computed by shape arithmetic from bounded INT64 and 32-bit values.
// Only the inputs an output takes its values from count (value_inputs): a Slice
// of a shape is bounded whatever its ends hold. Graph inputs, large or unread
// constants and casts from float are not bounded.
void Annotator::find_bounded_int64() {
  static const std::unordered_set<std::string_view> kIndexOps = {"Shape", "Size", "NonZero", "ArgMax", "ArgMin", "TopK"};
  // Ops whose INT64 outputs take their values from their INT64 inputs by
  // selection or small arithmetic (what exporters emit for shapes).
  static const std::unordered_set<std::string_view> kShapeOps = {
      "Gather",   "GatherElements", "GatherND", "Concat",     "Slice",     "Squeeze",   "Unsqueeze", "Reshape",
      "Flatten",  "Identity",       "Cast",     "CastLike",   "Add",       "Sub",       "Mul",       "Div",
      "Mod",      "Neg",            "Abs",      "Min",        "Max",       "Where",     "Expand",    "Tile",
      "Transpose", "ReduceProd",    "ReduceSum", "ReduceMin", "ReduceMax", "Range",     "CumSum",    "Clip",
      "Pad",      "Split",          "ScatterND", "ScatterElements", "Sign", "ConstantOfShape", "Equal", "Not"};
  auto in = [](std::string_view op, const std::unordered_set<std::string_view>& set) { return set.count(op) != 0; };
  auto fits = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x >= -2147483648.0 && x <= 2147483647.0; });
  };
  // Constants whose known values do not fit: the candidates for find_clamped_int64.
  std::vector<std::pair<size_t, TensorId>> beyond;
  for (size_t gi = 0; gi < model_.graphs.size(); ++gi) {
    const Graph& g = model_.graphs[gi];
    TensorId id = 0;
    for (const TensorInfo& t : g.tensors) {
      if (t.type == ElemType::INT64 && t.values) {
        if (fits(*t.values)) bounded_int64_.insert(&t);
        else beyond.emplace_back(gi, id);
      }
      ++id;
    }
  }
  if (!beyond.empty()) find_clamped_int64(beyond);
  // Topological order (GraphIndex): a producer is settled before its consumers.
  for (const Graph& g : model_.graphs)
    for (int ni : g.index.order) {
      const Node& n = g.nodes[static_cast<size_t>(ni)];
      if (!n.domain.empty()) continue;
      // Only INT64 outputs can be marked: most nodes are settled without a look at their op.
      bool int64_out = false;
      for (size_t k = 0; k < n.outputs.size() && !int64_out; ++k)
        if (const TensorInfo* t = g.output(n, k); t && t->type == ElemType::INT64) int64_out = true;
      if (!int64_out) continue;
      bool index_op = in(n.op_type, kIndexOps);
      if (!index_op && !in(n.op_type, kShapeOps)) continue;
      const uint32_t feeds = value_inputs(n.op_type);
      bool inputs_bounded = true;
      for (size_t i = 0; i < n.inputs.size() && !index_op; ++i) {
        if (g.input_id(n, i) == kNoTensor || i >= 32 || !(feeds & (1u << i))) continue;
        const TensorInfo* t = g.input(n, i);
        if (!t) {
          inputs_bounded = false;
          break;
        }
        if (t->type == ElemType::INT32 || t->type == ElemType::BOOL || t->type == ElemType::INT8 ||
            t->type == ElemType::UINT8 || t->type == ElemType::INT16 || t->type == ElemType::UINT16)
          continue;
        if (t->type == ElemType::INT64 && bounded_int64(t)) continue;
        // Arithmetic ops move float data too: those inputs do not feed INT64 outputs, except through Cast.
        if (is_float(t->type) && n.op_type != "Cast" && n.op_type != "CastLike") continue;
        inputs_bounded = false;
        break;
      }
      if (n.op_type == "ConstantOfShape") {
        const Attribute* v = n.attribute("value");
        inputs_bounded = !v || (v->tensor_values && fits(*v->tensor_values));
      }
      if (!inputs_bounded) continue;
      // TopK's values (output 0) are its data; only its indices are bounded by a shape.
      for (size_t k = n.op_type == "TopK" ? 1 : 0; k < n.outputs.size(); ++k)
        if (const TensorInfo* t = g.output(n, k); t && t->type == ElemType::INT64)
          bounded_int64_.insert(t);
    }
}

// INT64 constants with a value outside INT32 that only Slice nodes read, as
// starts or ends (opset 10 and later): PyTorch's "to the end" sentinels. Where
// the release's policy says so (int64_index_clamp), the importer clamps them
// to INT32 and then to the data's dimensions, and the slice is the same.
void Annotator::find_clamped_int64(const std::vector<std::pair<size_t, TensorId>>& beyond) {
  if (model_.default_opset() < 10) return;  // Slice took starts/ends as attributes
  std::unordered_set<const TensorInfo*> read_by_subgraph;
  for (const Graph& g : model_.graphs)
    for (const auto& [id, outer] : g.index.outer_tensor) read_by_subgraph.insert(outer);
  for (const auto& entry : beyond) {  // no structured binding: the lambda below captures `id` (clang 14)
    const Graph& g = model_.graphs[entry.first];
    const TensorId id = entry.second;
    const TensorInfo& t = g.tensors[static_cast<size_t>(id)];
    if (read_by_subgraph.count(&t)) continue;
    if (t.origin != TensorOrigin::Initializer && t.origin != TensorOrigin::ConstantNode) continue;
    if (std::find(g.outputs.begin(), g.outputs.end(), t.name) != g.outputs.end()) continue;
    auto readers = g.consumers(id);
    bool only_bounds = !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int c) {
      const Node& n = g.nodes[static_cast<size_t>(c)];
      if (!n.domain.empty() || n.op_type != "Slice") return false;
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (g.input_id(n, i) == id && i != 1 && i != 2) return false;
      return true;
    });
    if (only_bounds) clamped_int64_.insert(&t);
  }
}

// What one node's judgement found. With `detailed` false (the matrix) only
// the verdict and precision are kept and no message is ever formatted: each
// message is a callable run only when details are wanted.
class Findings {
 public:
  explicit Findings(bool detailed) : detailed_(detailed) {}
  Verdict verdict = Verdict::SUPPORTED;
  std::string_view precision;  // always a static name ("FP16", "-", ...)
  std::vector<Reason> reasons;
  std::vector<std::string> hints;

  template <typename MakeReason>
  void add(Verdict level, MakeReason&& make) {
    if (severity(level) > severity(verdict)) verdict = level;
    if (detailed_) reasons.push_back(make());
  }
  template <typename MakeHint>
  void hint(MakeHint&& make) {
    if (!detailed_) return;
    std::string h = make();
    if (!h.empty()) hints.push_back(std::move(h));
  }
  // Runs on at a wider precision than asked.
  template <typename MakeReason, typename MakeHint>
  void fallback(const char* to, MakeReason&& make, MakeHint&& make_hint) {
    precision = to;
    add(Verdict::FALLBACK, make);
    hint(make_hint);
  }

 private:
  bool detailed_;
};

// One node's import judgement, kept to judge each precision from.
struct ImportedNode {
  Findings findings;
  Annotator::NodeTypes types;
  bool function_call = false;  // judged by its body (Annotator::run)
};

class Annotator::ReleaseImports {
 public:
  std::vector<ImportedNode> nodes;  // in Annotations::nodes order
};

ImportedNode Annotator::judge_node_import(int gi, const Node& n, const Release& r) const {
  ImportedNode out{Findings(true), {}, model_.is_local_function(n.domain, n.op_type)};
  if (!out.function_call) out.types = judge_import(gi, n, tensors_of(gi, n), r, out.findings);
  return out;
}

NodeVerdict Annotator::judge(int gi, const Node& n, const Release& r, Precision p, ImportedNode imported) const {
  Findings& f = imported.findings;
  if (imported.function_call || f.verdict == Verdict::UNSUPPORTED) f.precision = "-";
  else judge_precision(gi, n, r, p, imported.types, f);
  return NodeVerdict{gi, n.index, f.verdict, f.precision, std::move(f.reasons), std::move(f.hints)};
}

std::shared_ptr<const Annotator::ReleaseImports> Annotator::import_release(const Release& r) const {
  auto out = std::make_shared<ReleaseImports>();
  out->nodes.reserve(model_.node_count());
  for (size_t gi = 0; gi < model_.graphs.size(); ++gi)
    for (const auto& n : model_.graphs[gi].nodes) out->nodes.push_back(judge_node_import(static_cast<int>(gi), n, r));
  return out;
}

void Annotator::judge_plugin(const Node& n, const OpEntry& e, const Release& r, Findings& f) const {
  const bool bundled = e.importer == "plugin";
  f.add(Verdict::SUPPORTED, [&] {
    return Reason{"plugin",
                  fmt::format("TensorRT {} has no built-in importer for {}: its importer looks the op_type up in the "
                              "plugin registry, where {}{}",
                              r.name, n.op_type,
                              bundled ? fmt::format("libnvinfer_plugin registers {}", e.plugin) : e.plugin,
                              e.note.empty() ? "" : " (" + e.note + ")"),
                  fmt::format("{}; {}", bundled ? "TensorRT " + r.name + " plugin/README.md" : "--plugin",
                              r.policy.source("plugin_fallback"))};
  });
  f.add(Verdict::SUPPORTED, [&] {
    return Reason{"plugin_library",
                  !bundled ? std::string("needs your plugin library loaded before parsing (trtexec "
                                         "--dynamicPlugins=lib.so; IParser users load it themselves)")
                  : r.policy.parser_loads_plugins
                      ? std::string("the parser registers libnvinfer_plugin's plugins itself; libnvinfer_plugin must "
                                    "be installed beside libnvinfer")
                      : std::string("needs libnvinfer_plugin loaded: trtexec loads it; an IParser user calls "
                                    "initLibNvInferPlugins(&logger, \"\") before parsing"),
                  r.policy.source("plugin_library")};
  });
}

const std::vector<const TensorInfo*>& Annotator::tensors_of(int gi, const Node& n) const {
  // One buffer per thread (run() may judge on several threads), reused from node to node.
  thread_local std::vector<const TensorInfo*> out;
  const Graph& g = model_.graphs[static_cast<size_t>(gi)];
  out.clear();
  for (size_t i = 0; i < n.inputs.size(); ++i) out.push_back(g.input(n, i));
  for (size_t k = 0; k < n.outputs.size(); ++k) out.push_back(g.output(n, k));
  return out;
}

Annotator::NodeTypes Annotator::judge_import(int gi, const Node& n, const std::vector<const TensorInfo*>& tensors,
                                             const Release& r, Findings& f) const {
  const Graph& g = model_.graphs[static_cast<size_t>(gi)];
  NodeTypes types;
  // Citations are built only when a finding needs one.
  auto cite = [&r](const char* what) { return r.citation() + what; };
  auto op_cite = [&](const std::string& what) { return r.citation() + ", op " + n.op_type + what; };
  bool custom_domain = !n.domain.empty();
  const OpEntry* e = r.find(n.op_type);
  types.entry = e;
  auto later_release_hint = [&]() {
    f.hint([&]() -> std::string {
      if (const Release* next = kb_.first_supporting(n.op_type, &r))
        return fmt::format("{} is supported from TensorRT {}", n.op_type, next->name);
      if (const Release* last = kb_.last_supporting_before(n.op_type, r)) {
        const OpEntry* was = last->find(n.op_type);
        return fmt::format("{} was supported up to TensorRT {}{}, not in {}", n.op_type, last->name,
                           was && was->importer == "plugin" ? " (a plugin bundled with it)" : "", r.name);
      }
      return {};
    });
  };
  // The importer's last resort for an op_type it has no importer for: the plugin registry.
  auto own_plugin_hint = [&]() {
    f.hint([&] {
      return r.policy.plugin_fallback == PluginFallback::None
                 ? std::string()
                 : fmt::format("or register your own plugin named '{}' (IPluginCreator) and load its library "
                               "(trtexec --dynamicPlugins=lib.so); tell trtlens with --plugin {}[:VERSION]",
                               n.op_type, n.op_type);
    });
  };
  if (!e) {
    if (custom_domain) {
      f.add(Verdict::UNSUPPORTED, [&] {
        return Reason{"domain",
                      fmt::format("'{}' is an op of domain '{}', not a built-in ONNX op; TensorRT {} imports it only "
                                  "through a registered plugin of that name",
                                  n.op_type, n.domain, r.name),
                      cite("")};
      });
      if (n.domain == "ai.onnx.ml") {
        f.hint([] { return std::string("TensorRT has no ai.onnx.ml ops: run this part outside TensorRT or replace it"); });
      } else {
        later_release_hint();
        f.hint([&] {
          return fmt::format("write and register a TensorRT plugin named '{}' (or replace the op with standard ONNX "
                             "ops before export){}",
                             n.op_type,
                             r.policy.plugin_fallback == PluginFallback::None
                                 ? ""
                                 : fmt::format("; tell trtlens with --plugin {}[:VERSION]", n.op_type));
        });
      }
    } else {
      f.add(Verdict::UNSUPPORTED, [&] {
        return Reason{"status", fmt::format("{} is not in the support matrix of TensorRT {}", n.op_type, r.name),
                      op_cite("")};
      });
      f.hint([&] { return op_hint(n.op_type, "status"); });
      later_release_hint();
      f.hint([&] { return fmt::format("replace {} with supported ops", n.op_type); });
      own_plugin_hint();
    }
    return types;
  }
  const bool plugin_row = e->importer == "plugin" || e->importer == "user";

  const ReleaseMasks rmask = masks_of(r);
  uint32_t emask = mask_of(*e);
  types.release_types = rmask.types;
  types.release_all = rmask.all;
  types.entry_types = e->types.empty() ? rmask.types : emask;
  if (e->status == OpStatus::N && e->importer == "yes") {
    f.add(Verdict::UNKNOWN, [&] {
      return Reason{"status",
                    fmt::format("the TensorRT {} table marks {} not supported, but that release's parser registers "
                                "an importer for it; only a real build can tell",
                                r.name, n.op_type),
                    op_cite("")};
    });
    f.hint([] {
      return std::string("only a real build can tell: build the model with trtexec on this release (trtlens build "
                         "MODEL runs it and reads the result)");
    });
  } else if (e->status == OpStatus::N) {
    f.add(Verdict::UNSUPPORTED, [&] {
      return Reason{"status", fmt::format("TensorRT {} does not support {}", r.name, n.op_type), op_cite("")};
    });
    f.hint([&] { return op_hint(n.op_type, "status"); });
    later_release_hint();
  } else if (e->importer == "no" || e->importer == "rejected") {
    f.add(Verdict::UNSUPPORTED, [&] {
      return Reason{"importer",
                    e->importer == "no"
                        ? fmt::format("the TensorRT {} table lists {} as supported, but that release's parser has no "
                                      "importer for it",
                                      r.name, n.op_type)
                        : fmt::format("a static checker of the TensorRT {} parser rejects {} outright", r.name,
                                      n.op_type),
                    op_cite("")};
    });
    later_release_hint();
  } else if (e->status == OpStatus::EXPERIMENTAL) {
    f.add(Verdict::SUPPORTED, [&] {
      return Reason{"status", fmt::format("TensorRT {} marks {} experimental", r.name, n.op_type), op_cite("")};
    });
  } else if (plugin_row) {
    judge_plugin(n, *e, r, f);
  } else if (e->status == OpStatus::PLUGIN) {
    f.add(Verdict::SUPPORTED, [&] {
      return Reason{"status", "imported through a TensorRT plugin" + (e->plugin.empty() ? "" : ": " + e->plugin),
                    op_cite("")};
    });
  }
  if (custom_domain && !plugin_row)
    f.add(Verdict::SUPPORTED, [&] {
      return Reason{"domain",
                    fmt::format("the parser dispatches on op_type only: this '{}' node of domain '{}' goes to the "
                                "built-in {} importer",
                                n.op_type, n.domain, n.op_type),
                    op_cite("")};
    });

  // Structured rules of the table row (only for an op that imports at all). Where the table says N but
  // the parser has an importer, the importer's own checks still refuse what they refuse.
  if (severity(f.verdict) < severity(Verdict::UNKNOWN) || (e->status == OpStatus::N && e->importer == "yes")) {
    for (const Rule& rule : e->rules) {
      RuleCheck c = check_rule(rule, model_, g, n);
      if (c.outcome == RuleOutcome::Holds) continue;
      bool fails = c.outcome == RuleOutcome::Fails;
      f.add(fails ? Verdict::UNSUPPORTED : Verdict::UNKNOWN,
            [&] {
              return Reason{rule.text, std::move(c.message),
                            rule.where.empty() ? op_cite(", rule " + rule.text) : r.importer_citation(rule.where)};
            });
      f.hint([&] { return std::move(c.hint); });
    }
  }

  // Element types: every tensor must be a type the release can represent. With
  // importer facts, each input must pass the importer's type checks; without,
  // input 0 (the data input) must be among the table's types. Narrowing INT64
  // values that may not fit INT32, and DOUBLE, is IMPLICIT_CAST.
  std::vector<const std::string*> int64_tensors, double_tensors;
  bool reads_metadata_only = !custom_domain && (n.op_type == "Shape" || n.op_type == "Size");
  bool importer_facts = !e->import_src.empty();
  // The table's types describe the data tensor: input 0, except for ConstantOfShape,
  // whose input is only a shape and whose types are those of the tensor it makes.
  size_t data_slot = !custom_domain && n.op_type == "ConstantOfShape" ? n.inputs.size() : 0;
  // The name TensorRT gives a type on import (INT64 is INT32 where it is narrowed, DOUBLE is FP32).
  auto imported_name = [&](ElemType t) -> std::string_view {
    if (t == ElemType::INT64 && !r.policy.int64_native) return "INT32";
    if (t == ElemType::DOUBLE) return "FP32";
    return elem_type_trt_name(t);
  };
  auto type_list = [](const std::vector<std::string>& names) {
    std::string list;
    for (const auto& s : names) list += (list.empty() ? "" : " ") + s;
    return list;
  };
  auto visit = [&](const TensorInfo* t, size_t slot) {
    if (!t || t->type == ElemType::UNDEFINED) return;
    const std::string& name = t->name;
    bool is_input = slot < n.inputs.size();
    if (types.first == ElemType::UNDEFINED) types.first = t->type;
    // Shape and Size read only metadata: they never compute in a float type.
    if (is_float(t->type) && !is_quantized_type(t->type) && types.compute_float == ElemType::UNDEFINED &&
        !reads_metadata_only)
      types.compute_float = t->type;
    std::string_view tn = elem_type_trt_name(t->type);
    // The weight loader converts what the network cannot carry (UINT8 weights become INT32, ...).
    bool weights = t->origin == TensorOrigin::Initializer || t->origin == TensorOrigin::ConstantNode;
    bool known = ((weights ? rmask.weights : rmask.all) & type_bit(tn)) != 0;
    if (t->type == ElemType::INT64 && (!r.policy.int64_native || !known)) {
      // Shape and Size read no values; a clamped Slice bound keeps the slice (find_clamped_int64).
      bool harmless = bounded_int64(t) || (is_input && reads_metadata_only) ||
                      (r.policy.int64_index_clamp && clamped_int64(t));
      if (!harmless) int64_tensors.push_back(&name);
    } else if (t->type == ElemType::DOUBLE) {
      double_tensors.push_back(&name);
    } else if (!known) {
      f.add(Verdict::UNSUPPORTED, [&] {
        return Reason{"types",
                      fmt::format("tensor '{}' is {}, an element type TensorRT {} does not support", name,
                                  elem_type_name(t->type), r.name),
                      r.types_importer.empty() ? cite(", data types") : r.importer_citation("")};
      });
      return;
    }
    std::string_view as = imported_name(trt_type(t));
    bool in_qdq_region = is_quantized_type(t->type) && quant(gi, n) != ElemType::UNDEFINED;
    if (importer_facts) {
      if (!is_input) return;
      for (const ImportTypeCheck& c : e->import_types) {
        if (c.input != -1 && static_cast<size_t>(c.input) != slot) continue;
        if (std::find(c.types.begin(), c.types.end(), as) != c.types.end()) continue;
        f.add(Verdict::UNSUPPORTED, [&] {
          return Reason{"types",
                        fmt::format("input {} ('{}') is {}; the TensorRT {} importer of {} accepts {} there", slot,
                                    name, as, r.name, n.op_type, type_list(c.types)),
                        r.importer_citation(c.where)};
        });
        f.hint([&] {
          return t->type == ElemType::UINT8 && (n.op_type == "DequantizeLinear" || n.op_type == "QuantizeLinear")
                     ? std::string("TensorRT quantizes to signed INT8 only: re-quantize with INT8 and zero point 0")
                     : std::string("insert a Cast to one of the accepted element types before this node");
        });
        return;
      }
      // Where the table lists fewer types than the importer accepts, say which source rules.
      if (slot == data_slot && !e->types.empty() && !(emask & type_bit(as)) && !in_qdq_region)
        f.add(Verdict::SUPPORTED, [&] {
          return Reason{"types",
                        fmt::format("input {} ('{}') is {}: the TensorRT {} support matrix lists {} for {}, but the "
                                    "importer code accepts {} there",
                                    slot, name, as, r.name, type_list(e->types), n.op_type, as),
                        r.importer_citation(e->import_types.empty() ? e->import_src.substr(e->import_src.find(' ') + 1)
                                                                    : e->import_types.front().where)};
        });
      return;
    }
    if (slot != data_slot || e->types.empty()) return;
    if ((emask & type_bit(as)) || in_qdq_region) return;
    f.add(Verdict::UNSUPPORTED, [&] {
      return Reason{"types",
                    fmt::format("{} ('{}') is {}; {} in TensorRT {} supports {}",
                                data_slot == 0 ? "input 0" : "output 0", name, as, n.op_type, r.name,
                                type_list(e->types)),
                    op_cite(", supported types")};
    });
  };
  for (size_t i = 0; i < tensors.size(); ++i) visit(tensors[i], i);
  // Integer and bool nodes run at the type they produce.
  if (!n.outputs.empty())
    if (const TensorInfo* out0 = tensors[n.inputs.size()]; out0 && out0->type != ElemType::UNDEFINED)
      types.first = out0->type;
  if (r.policy.uint8_boundary) judge_uint8_outputs(gi, n, tensors, r, f);
  if (!e->ignored.empty()) judge_ignored(g, n, *e, r, f);
  auto quoted = [](const std::vector<const std::string*>& names) {
    std::string s;
    for (size_t i = 0; i < names.size() && i < 4; ++i) s += (i ? ", '" : "'") + *names[i] + "'";
    if (names.size() > 4) s += fmt::format(" and {} more", names.size() - 4);
    return s + (names.size() > 1 ? " are" : " is");
  };
  if (!int64_tensors.empty()) {
    f.add(Verdict::IMPLICIT_CAST, [&] {
      return Reason{"int64",
                    fmt::format("INT64 tensor{} {} narrowed to INT32, and {} values that may not fit INT32 "
                                "(TensorRT {} has no native INT64; values outside the INT32 range are clamped)",
                                int64_tensors.size() > 1 ? "s" : "", quoted(int64_tensors),
                                int64_tensors.size() > 1 ? "they hold" : "it holds", r.name),
                    r.policy.source("int64")};
    });
    f.hint([&]() -> std::string {
      if (const Release* native = first_release([](const Release& x) { return x.policy.int64_native; }))
        return fmt::format("TensorRT {} and later handle INT64 natively", native->name);
      return {};
    });
  }
  if (!double_tensors.empty())
    f.add(Verdict::IMPLICIT_CAST, [&] {
      return Reason{"double",
                    fmt::format("DOUBLE tensor{} {} narrowed to FP32", double_tensors.size() > 1 ? "s" : "",
                                quoted(double_tensors)),
                    cite(", data types")};
    });
  return types;
}

// A node may not produce a UINT8 tensor that is not an output of its graph. The
// parser tests the TensorRT type of the output (10.1-GA ModelImporter.cpp:241-253,
// output.getType()), so the type is trt_type's: a QuantizeLinear or
// TRT_FP8QuantizeLinear output declared UINT8 is INT8 or FP8 there. A Constant
// becomes weights (UINT8 weights are converted), so it is not checked.
void Annotator::judge_uint8_outputs(int gi, const Node& n, const std::vector<const TensorInfo*>& tensors,
                                    const Release& r, Findings& f) const {
  if (n.domain.empty() && (n.op_type == "DynamicQuantizeLinear" || n.op_type == "Constant")) return;
  const Graph& g = model_.graphs[static_cast<size_t>(gi)];
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const TensorInfo* t = tensors[n.inputs.size() + k];
    if (!t || trt_type(t) != ElemType::UINT8) continue;
    if (std::find(g.outputs.begin(), g.outputs.end(), n.outputs[k]) != g.outputs.end()) continue;
    f.add(Verdict::UNSUPPORTED, [&] {
      return Reason{"uint8",
                    fmt::format("output {} ('{}') is an intermediate UINT8 tensor; TensorRT {} accepts UINT8 only at "
                                "network inputs and outputs",
                                k, t->name, r.name),
                    r.policy.source("uint8_boundary")};
    });
    f.hint([] { return std::string("compute in INT32 or FP32 and cast to UINT8 only at a graph output"); });
  }
}

// Inputs and attributes that change the result but that the release's importer
// never reads: the node imports, but the network computes another function, so it
// does not convert as written (UNSUPPORTED) unless the value is the harmless one.
void Annotator::judge_ignored(const Graph& g, const Node& n, const OpEntry& e, const Release& r, Findings& f) const {
  for (const IgnoredArg& a : e.ignored) {
    bool applies = std::all_of(a.guards.begin(), a.guards.end(), [&](const Rule& guard) {
      return check_rule(guard, model_, g, n).outcome == RuleOutcome::Holds;
    });
    if (!applies) continue;
    std::string what;
    if (a.is_attribute) {
      const Attribute* at = n.attribute(a.attribute);
      if (!at) continue;
      std::string value = at->kind == Attribute::Kind::Int      ? std::to_string(at->i)
                          : at->kind == Attribute::Kind::String ? at->s
                                                                : std::string();
      if (!a.harmless.empty() && value == a.harmless) continue;
      what = value.empty() ? fmt::format("attribute '{}'", a.attribute)
                           : fmt::format("attribute {}={}", a.attribute, value);
    } else {
      if (static_cast<size_t>(a.input) >= n.inputs.size() || n.inputs[static_cast<size_t>(a.input)].empty()) continue;
      what = fmt::format("input {} ('{}')", a.input, n.inputs[static_cast<size_t>(a.input)]);
    }
    f.add(Verdict::UNSUPPORTED, [&] {
      return Reason{"ignored",
                    fmt::format("imports, but computes something else: the TensorRT {} importer of {} never reads {}",
                                r.name, n.op_type, what),
                    r.importer_citation(e.import_src.substr(e.import_src.find(' ') + 1))};
    });
    f.hint([&] {
      // The first later release whose importer of the op reads the argument.
      const Release* reads = first_release([&](const Release& x) {
        const OpEntry* oe = x.major * 100 + x.minor > r.major * 100 + r.minor ? x.find(n.op_type) : nullptr;
        return oe && !oe->import_src.empty() &&
               std::none_of(oe->ignored.begin(), oe->ignored.end(), [&](const IgnoredArg& o) { return o.text == a.text; });
      });
      std::string later = reads ? fmt::format(", or use TensorRT {} or later, whose importer reads it", reads->name) : "";
      if (!a.is_attribute) return fmt::format("compute what input {} does with other ops and drop it{}", a.input, later);
      return fmt::format("compute what attribute '{}' does with other ops and remove it{}{}", a.attribute,
                         a.harmless.empty() ? "" : fmt::format(" (or set it to {} if that is what you meant)", a.harmless),
                         later);
    });
  }
}

// Importers that set their outputs' TensorRT type whatever the ONNX graph declares.
// The parser dispatches on op_type alone, so the domain does not matter. ModelOpt
// declares these outputs UINT8 (modelopt/torch/quantization/export_onnx.py:237-239
// TRT_FP8QuantizeLinear, :574-589 TRT_MXFP8DynamicQuantize's scale, at
// TensorRT-Model-Optimizer 5a4242f).
void Annotator::find_trt_types() {
  struct Produced {
    std::string_view op;
    size_t output;
    ElemType type;
  };
  static constexpr Produced kProduced[] = {
      // 10.1-GA onnxOpImporters.cpp:1669-1672, 1681-1684: the Q/DQ helper with customOpType kFP8 / kINT4.
      {"TRT_FP8QuantizeLinear", 0, ElemType::FLOAT8E4M3FN},
      {"TRT_INT4QuantizeLinear", 0, ElemType::INT4},
      // onnxOpImporters.cpp TRT_FP4DynamicQuantize (10.8 and later): FP4 data, scale of
      // attribute scale_type (FP8 where ModelOpt writes it, export_onnx.py:535-544).
      {"TRT_FP4DynamicQuantize", 0, ElemType::FLOAT4E2M1},
      {"TRT_FP4DynamicQuantize", 1, ElemType::FLOAT8E4M3FN},
      // onnxOpImporters.cpp TRT_MXFP8DynamicQuantize (10.10 and later): FP8 data, E8M0 block scales.
      {"TRT_MXFP8DynamicQuantize", 0, ElemType::FLOAT8E4M3FN},
      {"TRT_MXFP8DynamicQuantize", 1, ElemType::FLOAT8E8M0},
  };
  for (const Graph& g : model_.graphs)
    for (const Node& n : g.nodes) {
      // QuantizeLinear quantizes to its zero point's type where that is FP8, INT8 or INT4,
      // else to INT8 (10.1-GA onnxOpImporters.cpp:1442-1461): a UINT8 output is INT8.
      if (n.domain.empty() && n.op_type == "QuantizeLinear") {
        if (const TensorInfo* t = g.output(n, 0); t && t->type == ElemType::UINT8) trt_types_[t] = ElemType::INT8;
        continue;
      }
      if (n.op_type.rfind("TRT_", 0) != 0) continue;
      for (const Produced& p : kProduced)
        if (p.op == n.op_type && p.output < n.outputs.size())
          if (const TensorInfo* t = g.output(n, p.output)) {
            ElemType type = p.type;
            if (p.op == "TRT_FP4DynamicQuantize" && p.output == 1)
              if (const Attribute* a = n.attribute("scale_type"); a && a->kind == Attribute::Kind::Int && a->i > 0)
                type = static_cast<ElemType>(a->i);
            if (type != t->type) trt_types_[t] = type;
          }
    }
}

ElemType Annotator::trt_type(const TensorInfo* t) const {
  if (!t) return ElemType::UNDEFINED;
  auto it = trt_types_.find(t);
  return it == trt_types_.end() ? t->type : it->second;
}

ElemType Annotator::quant(int gi, const Node& n) const {
  return facts_[static_cast<size_t>(gi)].quant[static_cast<size_t>(n.index)];
}

void Annotator::judge_precision(int gi, const Node& n, const Release& r, Precision p, const NodeTypes& types,
                                Findings& f) const {
  auto op_cite = [&]() { return r.citation() + ", op " + n.op_type + ", supported types"; };
  auto data_types = [&]() { return r.citation() + ", data types"; };
  ElemType q = quant(gi, n);
  // Integer and bool nodes are judged by their own types, whatever the precision.
  if (types.compute_float == ElemType::UNDEFINED && q == ElemType::UNDEFINED) {
    f.precision = types.first == ElemType::UNDEFINED                  ? std::string_view("-")
                  : types.first == ElemType::INT64 && !r.policy.int64_native ? std::string_view("INT32")
                                                                    : elem_type_trt_name(types.first);
    return;
  }
  if (q != ElemType::UNDEFINED) {
    // Inside a Q/DQ region the layer runs at the quantized type (explicit quantization).
    f.precision = elem_type_trt_name(q);
    return;
  }
  auto supports = [&](std::string_view t) { return (types.entry_types & type_bit(t)) != 0; };
  std::string_view native = elem_type_trt_name(types.compute_float == ElemType::DOUBLE ? ElemType::FLOAT
                                                                                         : types.compute_float);
  auto no_kernel_hint = [&](std::string_view t) {
    return [&n, &r, t, this]() -> std::string {
      for (const auto& rel : kb_.releases()) {
        if (rel.major * 100 + rel.minor <= r.major * 100 + r.minor) continue;
        if (const OpEntry* oe = rel.find(n.op_type); oe && oe->has_type(t))
          return fmt::format("{} has {} kernels from TensorRT {}", n.op_type, t, rel.name);
      }
      return {};
    };
  };
  auto fixed = [](const char* text) { return [text] { return std::string(text); }; };
  auto first_with_type_hint = [this](std::string_view t, std::string_view why) -> std::string {
    const Release* first = first_release([&](const Release& x) { return (masks_of(x).all & type_bit(t)) != 0; });
    return first ? fmt::format("use TensorRT {} or later {}", first->name, why) : std::string();
  };

  if (r.policy.strongly_typed) {
    // Strongly typed only: the precision is the model's own type.
    std::string_view asked = precision_type_name(p);
    f.precision = native;
    if (p == Precision::BEST || p == Precision::FP32 || asked == native) return;
    if (p == Precision::INT8 || p == Precision::FP8) {
      f.add(Verdict::FALLBACK, [&] {
        return Reason{"precision",
                      fmt::format("TensorRT {} has no implicit quantization: only Q/DQ regions run at {}; this node "
                                  "runs at its own type {}",
                                  r.name, asked, native),
                      r.policy.source("strongly_typed")};
      });
      f.hint(fixed("quantize the model first (insert Q/DQ nodes, e.g. with TensorRT Model Optimizer)"));
    } else {
      f.add(Verdict::FALLBACK, [&] {
        return Reason{"precision",
                      fmt::format("TensorRT {} builds strongly typed networks only (no {} builder flag): this node "
                                  "runs at its own type {}",
                                  r.name, precision_name(p), native),
                      r.policy.source("strongly_typed")};
      });
      f.hint([&] { return fmt::format("convert the model to {} first (e.g. ModelOpt AutoCast), then build", asked); });
    }
    return;
  }

  // Runs at `type` when the op has a kernel of it, else falls back to FP32.
  auto kernel_or_fp32 = [&](const char* type, bool reformats) {
    if (supports(type)) {
      f.precision = type;
      return;
    }
    f.fallback("FP32", [&] {
      return Reason{"precision", fmt::format("{} has no {} kernel in TensorRT {}; it runs at FP32{}", n.op_type, type,
                                             r.name, reformats ? " with reformat layers at its boundary" : ""),
                    op_cite()};
    }, no_kernel_hint(type));
  };
  switch (p) {
    case Precision::FP32:
      f.precision = "FP32";
      return;
    case Precision::FP16:
      kernel_or_fp32("FP16", true);
      return;
    case Precision::BF16:
      if (!(types.release_types & type_bit("BF16")))
        f.fallback("FP32", [&] {
          return Reason{"precision", fmt::format("TensorRT {} has no BF16; runs at FP32", r.name), data_types()};
        }, [&] { return first_with_type_hint("BF16", "for BF16"); });
      else kernel_or_fp32("BF16", false);
      return;
    case Precision::INT8:
      if (has_qdq_)
        f.fallback("FP32", [&] {
          return Reason{"precision", "outside the model's Q/DQ regions: with explicit quantization this node runs "
                                     "at FP32", r.citation()};
        }, fixed("add Q/DQ around this node if it should run at INT8"));
      else if (!r.policy.implicit_int8)
        f.fallback("FP32", [&] {
          return Reason{"precision", fmt::format("in TensorRT {} INT8 is reached only through Q/DQ nodes; "
                                                 "implicit (calibration) INT8 is {}, so this FP32 model runs at FP32",
                                                 r.name, r.policy.implicit_int8_removed ? "removed" : "deprecated"),
                        r.policy.source("implicit_int8")};
        }, fixed("quantize the model (insert Q/DQ nodes, e.g. with TensorRT Model Optimizer)"));
      else kernel_or_fp32("INT8", true);
      return;
    case Precision::FP8:
      if (!(types.release_all & type_bit("FP8")))
        f.fallback("FP32", [&] {
          return Reason{"precision", fmt::format("TensorRT {} has no FP8; runs at FP32", r.name), data_types()};
        }, [&] { return first_with_type_hint("FP8", "with a Q/DQ (FP8) model"); });
      else
        f.fallback("FP32", [&] {
          return Reason{"precision", fmt::format("FP8 is reached only through Q/DQ nodes in TensorRT {}; this node "
                                                 "is outside any FP8 Q/DQ region and runs at FP32", r.name),
                        data_types()};
        }, fixed("quantize to FP8 with Q/DQ nodes (e.g. TensorRT Model Optimizer)"));
      return;
    case Precision::BEST:
      f.precision = !has_qdq_ && r.policy.implicit_int8 && supports("INT8") ? "INT8"
                    : supports("FP16")                                      ? "FP16"
                                                                            : "FP32";
      return;
  }
}

Annotations Annotator::run(const Release& r, Precision p, const ReleaseImports* imports) const {
  Annotations a;
  a.release = &r;
  a.precision = p;
  a.qdq = has_qdq_;
  a.nodes.reserve(model_.node_count());
  std::vector<size_t> graph_start(model_.graphs.size());
  for (size_t gi = 0; gi < model_.graphs.size(); ++gi) {
    graph_start[gi] = a.nodes.size();
    for (const auto& n : model_.graphs[gi].nodes) {
      int g = static_cast<int>(gi);
      a.nodes.push_back(judge(g, n, r, p, imports ? imports->nodes[a.nodes.size()] : judge_node_import(g, n, r)));
    }
  }
  // Local function calls take the worst verdict of their body.
  for (size_t gi = 0; gi < model_.graphs.size(); ++gi)
    for (const auto& n : model_.graphs[gi].nodes) {
      if (!model_.is_local_function(n.domain, n.op_type)) continue;
      NodeVerdict& v = a.nodes[graph_start[gi] + static_cast<size_t>(n.index)];
      int bad = 0;
      size_t body_nodes = 0;
      v.verdict = function_call_verdict(
          n, [&](int g, int k) { return a.nodes[graph_start[static_cast<size_t>(g)] + static_cast<size_t>(k)].verdict; },
          &bad, &body_nodes);
      v.reasons.push_back({"function",
                           fmt::format("local function '{}' is imported node by node; judged by its body (graph "
                                       "'fn:{}'): {} of {} nodes unsupported",
                                       n.op_type, n.op_type, bad, body_nodes),
                           r.citation()});
      if (r.policy.function_plugin)
        v.hints.push_back(fmt::format("in this release a registered plugin named '{}' takes precedence over "
                                      "the local function",
                                      n.op_type));
    }
  for (const auto& v : a.nodes) ++a.summary[static_cast<size_t>(v.verdict)];
  a.converts = a.summary[static_cast<size_t>(Verdict::UNSUPPORTED)] == 0;

  if (!r.policy.int64_native) {
    size_t shape_int64 = bounded_int64_.size();
    if (shape_int64 > 0)
      a.notes.push_back(fmt::format("{} INT64 tensor{} of shapes, indices or small constants {} computed in INT32 by "
                                    "TensorRT {}; their values fit INT32, so the narrowing changes nothing ({})",
                                    shape_int64, shape_int64 > 1 ? "s" : "", shape_int64 > 1 ? "are" : "is", r.name,
                                    r.policy.source("int64")));
  }
  if (!r.policy.int64_native && r.policy.int64_index_clamp && !clamped_int64_.empty())
    a.notes.push_back(fmt::format("{} INT64 constant{} outside the INT32 range {} read only as Slice starts or ends "
                                  "(\"to the end\" sentinels such as -9223372036854775807): TensorRT {} clamps {} "
                                  "to INT32 and then to the dimensions, so the slice is the same ({})",
                                  clamped_int64_.size(), clamped_int64_.size() > 1 ? "s" : "",
                                  clamped_int64_.size() > 1 ? "are" : "is", r.name,
                                  clamped_int64_.size() > 1 ? "them" : "it", r.policy.source("int64_index_clamp")));
  int64_t opset = model_.default_opset();
  if (r.opset_max > 0 && !r.opset_max_is_bound && opset > r.opset_max)
    a.notes.push_back(fmt::format("the model's opset {} is newer than the highest opset TensorRT {} names ({}); ops "
                                  "whose definition changed may not import",
                                  opset, r.name, r.opset_max));
  if (r.opset_min > 0 && opset > 0 && opset < r.opset_min)
    a.notes.push_back(fmt::format("the model's opset {} is older than the lowest opset TensorRT {} names ({})", opset,
                                  r.name, r.opset_min));
  if (r.policy.strongly_typed && p != Precision::FP32 && p != Precision::BEST) {
    std::string_view asked = precision_type_name(p);
    if (asked != elem_type_trt_name(model_float_) || p == Precision::INT8 || p == Precision::FP8)
      a.notes.push_back(fmt::format(
          "TensorRT {} builds strongly typed networks only: the precision is the one the model's own types carry "
          "({}); the fp16/bf16/int8 builder flags are gone. Convert the model to {} first (e.g. ModelOpt AutoCast "
          "for FP16/BF16, Q/DQ quantization for INT8/FP8)",
          r.name, elem_type_trt_name(model_float_), asked));
  } else if (p == Precision::INT8 && !has_qdq_ && !r.policy.implicit_int8) {
    a.notes.push_back(fmt::format("in TensorRT {} INT8 is reached only through Q/DQ nodes and implicit "
                                  "(calibration) INT8 is {} ({}): this model has no Q/DQ nodes, so it runs at FP32",
                                  r.name, r.policy.implicit_int8_removed ? "removed" : "deprecated",
                                  r.policy.source("implicit_int8")));
  } else if (p == Precision::INT8 && !has_qdq_) {
    a.notes.push_back("implicit INT8 needs a calibration cache or per-tensor dynamic ranges at build time");
  }
  return a;
}

template <typename VerdictAt>
Verdict Annotator::function_call_verdict(const Node& n, VerdictAt verdict_at, int* unsupported,
                                         size_t* body_nodes) const {
  Verdict worst = Verdict::SUPPORTED;
  for (const auto& f : model_.functions) {
    if (f.name != n.op_type || f.domain != n.domain) continue;
    const Graph& body = model_.graphs[static_cast<size_t>(f.graph)];
    *body_nodes = body.nodes.size();
    for (const auto& bn : body.nodes) {
      Verdict bv = verdict_at(f.graph, bn.index);
      if (severity(bv) > severity(worst)) worst = bv;
      if (bv == Verdict::UNSUPPORTED) ++*unsupported;
    }
  }
  return worst;
}

// Everything a node's judgement reads, as bytes: its op, attributes and graph;
// per input and output the tensor's facts (type, shape, origin, constness,
// values, the annotator's INT64-bound and Q/DQ marks, whether a graph output
// of its graph) and per input its producer's op and first input (the weights
// rule looks through a DequantizeLinear); the node's Q/DQ region. Names are
// left out: they only ever appear in messages, which the matrix never formats.
void Annotator::node_facts(int gi, const Node& n, std::string& out) const {
  const Graph& g = model_.graphs[static_cast<size_t>(gi)];
  out.clear();
  auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  auto put_text = [&](std::string_view text) {
    put(text.size());
    out.append(text);
  };
  auto put_doubles = [&](const std::vector<double>* v) {
    put(v ? v->size() : static_cast<size_t>(-1));
    if (v) out.append(reinterpret_cast<const char*>(v->data()), v->size() * sizeof(double));
  };
  auto put_tensor = [&](const TensorInfo* t, std::string_view name) {
    if (!t) {
      put('-');
      return;
    }
    put('t');
    put(t->type);
    put(t->rank);
    put(t->dims.size());
    for (const Dim& d : t->dims) {
      put(d.value);
      put_text(d.param);
    }
    put(t->origin);
    put(t->const_foldable);
    put_doubles(t->values.get());
    put(bounded_int64(t));
    put(clamped_int64(t));
    put(trt_type(t));
    put(std::find(g.outputs.begin(), g.outputs.end(), name) != g.outputs.end());
  };
  put(gi);
  put_text(n.op_type);
  put_text(n.domain);
  put(quant(gi, n));
  put(n.attributes.size());
  for (const Attribute& a : n.attributes) {
    put_text(a.name);
    put(a.kind);
    put(a.i);
    put(a.f);
    put_text(a.s);
    put(a.ints.size());
    out.append(reinterpret_cast<const char*>(a.ints.data()), a.ints.size() * sizeof(int64_t));
    put(a.floats.size());
    out.append(reinterpret_cast<const char*>(a.floats.data()), a.floats.size() * sizeof(double));
    put(a.strings.size());
    for (const auto& str : a.strings) put_text(str);
    put(a.tensor_type);
    put(a.tensor_dims.size());
    out.append(reinterpret_cast<const char*>(a.tensor_dims.data()), a.tensor_dims.size() * sizeof(int64_t));
    put_doubles(a.tensor_values ? &*a.tensor_values : nullptr);
    put(a.graphs.size());
    for (int sub : a.graphs) put(sub);
  }
  put(n.inputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    put_tensor(g.input(n, i), n.inputs[i]);
    TensorId id = g.input_id(n, i);
    int p = id == kNoTensor ? -1 : g.index.producer[static_cast<size_t>(id)];
    if (p < 0) {
      put('-');
      continue;
    }
    const Node& pn = g.nodes[static_cast<size_t>(p)];
    put_text(pn.op_type);
    put_text(pn.domain);
    put(pn.inputs.size());
    if (!pn.inputs.empty()) put_tensor(g.input(pn, 0), pn.inputs[0]);
  }
  put(n.outputs.size());
  for (size_t k = 0; k < n.outputs.size(); ++k) put_tensor(g.output(n, k), n.outputs[k]);
}

Matrix Annotator::matrix() const {
  const auto& releases = kb_.releases();
  const size_t runtimes = releases.size() * kAllPrecisions.size();
  // Era of a release: what a verdict reads from it besides the op's row
  // (type lists and policies; citations and hints do not change verdicts).
  std::map<std::string, int> era_ids;
  std::vector<int> era(releases.size());
  for (size_t i = 0; i < releases.size(); ++i) {
    const Release& r = releases[i];
    const ReleasePolicy& pol = r.policy;
    std::string key = fmt::format("{}{}{}{}{}{}|", int(pol.int64_native), int(pol.uint8_boundary),
                                  int(pol.implicit_int8), int(pol.strongly_typed), int(pol.plugin_fallback),
                                  int(pol.int64_index_clamp));
    for (const auto* list : {&r.types, &r.types_limited, &r.types_importer, &r.types_weights}) {
      for (const auto& t : *list) key += t + " ";
      key += "|";
    }
    era[i] = era_ids.emplace(key, static_cast<int>(era_ids.size())).first->second;
  }
  // Per op_type: for each release, a small class number (same row content and era = same class).
  struct OpClasses {
    std::vector<int> of_release;
    std::vector<size_t> representative;  // a release index per class
  };
  std::unordered_map<std::string_view, OpClasses> classes;
  auto classes_of = [&](const std::string& op) -> const OpClasses& {
    auto [it, inserted] = classes.try_emplace(op);
    if (!inserted) return it->second;
    std::map<std::string, int> ids;
    for (size_t i = 0; i < releases.size(); ++i) {
      const OpEntry* e = releases[i].find(op);
      std::string key = std::to_string(era[i]) + "|";
      if (e) {
        key += std::string(op_status_name(e->status)) + "|" + e->importer + "|" + e->plugin + "|";
        for (const auto& t : e->types) key += t + " ";
        for (const auto& rule : e->rules) key += "|" + rule.text;
        key += e->import_src.empty() ? "|table" : "|importer";
        for (const auto& c : e->import_types) {
          key += fmt::format("|{}:", c.input);
          for (const auto& t : c.types) key += t + " ";
        }
      }
      auto [id, added] = ids.emplace(key, static_cast<int>(ids.size()));
      if (added) it->second.representative.push_back(i);
      it->second.of_release.push_back(id->second);
    }
    return it->second;
  };

  // Verdict counts per runtime (release-major, kAllPrecisions order). Models
  // with local functions also keep every node's verdicts, because a call
  // takes the worst verdict of its body.
  std::vector<std::array<int, 5>> counts(runtimes);
  const bool keep_rows = !model_.functions.empty();
  std::vector<uint8_t> verdicts(keep_rows ? model_.node_count() * runtimes : 0);  // [node][runtime]
  std::vector<size_t> graph_start(model_.graphs.size());
  size_t next = 0;
  // Nodes with the same facts (node_facts) get the same verdicts: each distinct
  // set of facts is judged once per class, and the rows are reused.
  std::unordered_map<std::string, std::vector<uint8_t>> judged;  // facts -> [class][precision]
  std::string facts;
  for (size_t gi = 0; gi < model_.graphs.size(); ++gi) {
    graph_start[gi] = next;
    for (const auto& n : model_.graphs[gi].nodes) {
      size_t node = next++;
      if (model_.is_local_function(n.domain, n.op_type)) continue;  // filled below
      const OpClasses& oc = classes_of(n.op_type);
      node_facts(static_cast<int>(gi), n, facts);
      auto [memo, fresh] = judged.try_emplace(facts);
      std::vector<uint8_t>& by_class = memo->second;
      if (fresh) {
        by_class.resize(oc.representative.size() * 6);
        std::vector<const TensorInfo*> tensors = tensors_of(static_cast<int>(gi), n);  // a copy: kept across judgements
        for (size_t c = 0; c < oc.representative.size(); ++c) {
          const Release& rep = releases[oc.representative[c]];
          Findings imported(false);
          NodeTypes types = judge_import(static_cast<int>(gi), n, tensors, rep, imported);
          for (size_t p = 0; p < kAllPrecisions.size(); ++p) {
            Findings f = imported;
            if (f.verdict != Verdict::UNSUPPORTED) judge_precision(static_cast<int>(gi), n, rep, kAllPrecisions[p], types, f);
            by_class[c * 6 + p] = static_cast<uint8_t>(f.verdict);
          }
        }
      }
      for (size_t r = 0; r < releases.size(); ++r) {
        const uint8_t* v = &by_class[static_cast<size_t>(oc.of_release[r]) * 6];
        for (size_t p = 0; p < kAllPrecisions.size(); ++p) ++counts[r * 6 + p][v[p]];
        if (keep_rows) std::copy(v, v + 6, &verdicts[node * runtimes + r * 6]);
      }
    }
  }
  for (size_t gi = 0; gi < model_.graphs.size() && keep_rows; ++gi)
    for (const auto& n : model_.graphs[gi].nodes) {
      if (!model_.is_local_function(n.domain, n.op_type)) continue;
      uint8_t* row = &verdicts[(graph_start[gi] + static_cast<size_t>(n.index)) * runtimes];
      for (size_t rt = 0; rt < runtimes; ++rt) {
        int bad = 0;
        size_t body = 0;
        row[rt] = static_cast<uint8_t>(function_call_verdict(
            n,
            [&](int g, int k) {
              return static_cast<Verdict>(
                  verdicts[(graph_start[static_cast<size_t>(g)] + static_cast<size_t>(k)) * runtimes + rt]);
            },
            &bad, &body));
        ++counts[rt][row[rt]];
      }
    }

  Matrix m;
  for (size_t r = 0; r < releases.size(); ++r)
    for (size_t p = 0; p < kAllPrecisions.size(); ++p) {
      const auto& summary = counts[r * kAllPrecisions.size() + p];
      bool converts = summary[static_cast<size_t>(Verdict::UNSUPPORTED)] == 0;
      m.cells.push_back({&releases[r], kAllPrecisions[p], summary, converts});
      if (converts && !m.min_converting) m.min_converting = &releases[r];
    }
  return m;
}

void count_unknown_as_unsupported(Annotations& a) {
  int moved = 0;
  for (NodeVerdict& v : a.nodes) {
    if (v.verdict != Verdict::UNKNOWN) continue;
    v.verdict = Verdict::UNSUPPORTED;
    v.precision = "-";
    v.reasons.push_back({"unknown_as", "UNKNOWN counted as UNSUPPORTED (--unknown-as unsupported)", ""});
    ++moved;
  }
  a.summary[static_cast<size_t>(Verdict::UNSUPPORTED)] += moved;
  a.summary[static_cast<size_t>(Verdict::UNKNOWN)] -= moved;
  a.converts = a.summary[static_cast<size_t>(Verdict::UNSUPPORTED)] == 0;
  if (moved > 0)
    a.notes.push_back(fmt::format("{} UNKNOWN verdict{} counted as UNSUPPORTED (--unknown-as unsupported)", moved,
                                  moved > 1 ? "s" : ""));
}

void count_unknown_as_unsupported(Matrix& m) {
  m.min_converting = nullptr;
  for (MatrixCell& c : m.cells) {
    c.summary[static_cast<size_t>(Verdict::UNSUPPORTED)] += c.summary[static_cast<size_t>(Verdict::UNKNOWN)];
    c.summary[static_cast<size_t>(Verdict::UNKNOWN)] = 0;
    c.converts = c.summary[static_cast<size_t>(Verdict::UNSUPPORTED)] == 0;
    if (c.converts && !m.min_converting) m.min_converting = c.release;
  }
}

Annotations annotate(const Model& model, const KnowledgeBase& kb, const Release& release, Precision precision) {
  return Annotator(model, kb).run(release, precision);
}

Annotations annotate(const Model& model, const Release& release, Precision precision) {
  return annotate(model, KnowledgeBase::builtin(), release, precision);
}

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::FP16: return "fp16";
    case Precision::BF16: return "bf16";
    case Precision::INT8: return "int8";
    case Precision::FP8: return "fp8";
    case Precision::BEST: return "best";
  }
  return "fp32";
}

Precision parse_precision(std::string_view text) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(c));
  for (Precision p : kAllPrecisions)
    if (precision_name(p) == lower) return p;
  throw UsageError(fmt::format("unknown precision '{}'; use one of fp32, fp16, bf16, int8, fp8, best", text));
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::SUPPORTED: return "SUPPORTED";
    case Verdict::FALLBACK: return "FALLBACK";
    case Verdict::IMPLICIT_CAST: return "IMPLICIT_CAST";
    case Verdict::UNSUPPORTED: return "UNSUPPORTED";
    case Verdict::UNKNOWN: return "UNKNOWN";
  }
  return "UNKNOWN";
}

}  // namespace trtlens
