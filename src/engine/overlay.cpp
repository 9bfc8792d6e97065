// The ONNX model overlaid with its engine: node → layer, and check's
// prediction against what the engine did (include/trtlens/overlay.h).
#include "trtlens/overlay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "trtlens/error.h"
#include "util/limits.h"

namespace trtlens {

std::string_view overlay_match_name(OverlayMatch m) {
  switch (m) {
    case OverlayMatch::Metadata: return "metadata";
    case OverlayMatch::Name: return "name";
    case OverlayMatch::ForeignRange: return "foreign-node-range";
    case OverlayMatch::Neighbours: return "neighbours";
    default: return "";
  }
}

std::string_view vanished_name(Vanished v) {
  switch (v) {
    case Vanished::ForeignNode: return "foreign-node";
    case Vanished::ConstantFolded: return "constant-folded";
    case Vanished::NotFound: return "not-found";
    default: return "";
  }
}

namespace {

constexpr std::string_view kForeignOpen = "{ForeignNode[", kForeignClose = "]}";
// Past these, hostile names would make the mapping quadratic.
constexpr size_t kMaxNodesPerName = 64;  // nodes sharing one name that a layer naming it is given to
constexpr int kMaxRangeSplits = 16;      // "..." positions tried in one ForeignNode name

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Layers of optimization profile N > 0 carry " [profile N]"; the node names do not.
std::string_view without_profile(std::string_view s) {
  auto p = s.rfind(" [profile ");
  return p != std::string_view::npos && ends_with(s, "]") ? s.substr(0, p) : s;
}

bool is_myelin(const EngineLayer& l) {
  return l.subtype == "Myelin" || starts_with(without_profile(l.raw_name), kForeignOpen);
}

// TensorRT's own copies between formats name the layer they feed, not a node.
bool is_reformat_copy(const EngineLayer& l) { return starts_with(l.raw_name, "Reformatting CopyNode for "); }

// Pieces of a fused layer name that may each be a node name: the name split on
// " + " (and on the 8.6+ separators 0x1E/0x1F), "PWN(a, b)" opened into a and b.
void name_parts(std::string_view s, std::vector<std::string_view>& out, int depth = 0) {
  size_t start = 0;
  for (size_t i = 0; i <= s.size();) {
    size_t sep = 0;
    if (i == s.size()) sep = 1;
    else if (s[i] == '\x1e' || s[i] == '\x1f') sep = 1;
    else if (s.compare(i, 3, " + ") == 0) sep = 3;
    if (!sep) {
      ++i;
      continue;
    }
    std::string_view part = s.substr(start, i - start);
    if (starts_with(part, "PWN(") && ends_with(part, ")") && depth < kMaxNestingDepth) {
      // Pointwise fusions list their nodes with ", " at the top level of the parentheses.
      std::string_view inner = part.substr(4, part.size() - 5);
      int level = 0;
      size_t from = 0;
      for (size_t k = 0; k <= inner.size(); ++k) {
        if (k < inner.size() && inner[k] == '(') ++level;
        else if (k < inner.size() && inner[k] == ')') --level;
        else if (k == inner.size() || (level == 0 && inner.compare(k, 2, ", ") == 0)) {
          name_parts(inner.substr(from, k - from), out, depth + 1);
          from = k + 2;
          ++k;
        }
      }
    } else if (!part.empty()) {
      out.push_back(part);
    }
    i += sep;
    start = i;
  }
}

class Mapper {
 public:
  Mapper(const Model& model, const EnginePlan& plan) : model_(model), plan_(plan) {
    for (size_t g = 0; g < model.graphs.size(); ++g) {
      first_.push_back(static_cast<int>(out_.nodes.size()));
      const Graph& graph = model.graphs[g];
      for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        NodeOverlay no;
        no.graph = static_cast<int>(g);
        no.index = n.index;
        out_.nodes.push_back(no);
        int flat = static_cast<int>(out_.nodes.size()) - 1;
        // The importer's getNodeName(): an unnamed node is "node_of_<output 0>".
        std::string key = !n.name.empty() ? n.name
                          : !n.outputs.empty() && !n.outputs[0].empty() ? "node_of_" + n.outputs[0]
                                                                        : std::string();
        if (!key.empty()) by_name_[key].push_back(flat);
      }
    }
    out_.layers.resize(plan.layers.size());
    for (const auto& c : plan.constants) {
      constant_names_.insert(c.raw_name);
      constant_names_.insert(c.onnx_nodes.begin(), c.onnx_nodes.end());
    }
  }

  Overlay run() {
    claim_named();
    claim_foreign_ranges();
    place_the_rest();
    finish();
    return std::move(out_);
  }

 private:
  const Model& model_;
  const EnginePlan& plan_;
  Overlay out_;
  std::vector<int> first_;  // flat index of each graph's first node
  std::unordered_map<std::string, std::vector<int>> by_name_;
  std::unordered_set<std::string> constant_names_;  // names and Metadata records of the plan's Constant layers

  const Node& node_of(int flat) const {
    const NodeOverlay& no = out_.nodes[static_cast<size_t>(flat)];
    return model_.graphs[static_cast<size_t>(no.graph)].nodes[static_cast<size_t>(flat - first_[static_cast<size_t>(no.graph)])];
  }
  // Nodes named `name`; nullptr when none, or when so many share it that a
  // layer naming it says nothing (and would cost layers × nodes to record).
  const std::vector<int>* lookup(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() || it->second.size() > kMaxNodesPerName ? nullptr : &it->second;
  }

  void claim(int flat, int layer, OverlayMatch how) {
    NodeOverlay& no = out_.nodes[static_cast<size_t>(flat)];
    if (std::find(no.layers.begin(), no.layers.end(), layer) != no.layers.end()) return;
    no.layers.push_back(layer);
    if (no.match == OverlayMatch::None) no.match = how;
    out_.layers[static_cast<size_t>(layer)].nodes.push_back(flat);
  }

  // Nodes a Metadata record names: "<node>", "<node> | <doc string>", or
  // "<node> | <caller> (<function>)" for a node inside a local function's
  // body, which also puts the calling node in the layer.
  void claim_metadata_record(std::string_view rec, int layer) {
    if (const auto* hit = lookup(rec)) {
      for (int f : *hit) claim(f, layer, OverlayMatch::Metadata);
      return;
    }
    size_t bar = rec.find(" | ");
    if (bar == std::string_view::npos) return;
    if (const auto* hit = lookup(rec.substr(0, bar)))
      for (int f : *hit) claim(f, layer, OverlayMatch::Metadata);
    while (bar != std::string_view::npos) {
      size_t next = rec.find(" | ", bar + 3);
      std::string_view part = rec.substr(bar + 3, next == std::string_view::npos ? std::string_view::npos : next - bar - 3);
      auto open = part.rfind(" (");
      if (open != std::string_view::npos && ends_with(part, ")")) {
        std::string_view function = part.substr(open + 2, part.size() - open - 3);
        bool is_function = std::any_of(model_.functions.begin(), model_.functions.end(),
                                       [&](const LocalFunction& f) { return f.name == function; });
        if (is_function)
          if (const auto* hit = lookup(part.substr(0, open)))
            for (int f : *hit) claim(f, layer, OverlayMatch::Metadata);
      }
      bar = next;
    }
  }

  void claim_named() {
    for (size_t li = 0; li < plan_.layers.size(); ++li) {
      const EngineLayer& l = plan_.layers[li];
      int layer = static_cast<int>(li);
      if (!l.onnx_nodes.empty()) {
        out_.used_metadata = true;
        for (const auto& rec : l.onnx_nodes) claim_metadata_record(rec, layer);
        continue;
      }
      if (is_reformat_copy(l)) continue;
      std::string_view name = without_profile(l.raw_name);
      if (const auto* hit = lookup(name)) {  // a node whose own name holds " + "
        for (int f : *hit) claim(f, layer, OverlayMatch::Name);
        continue;
      }
      std::vector<std::string_view> parts;
      name_parts(name, parts);
      for (auto p : parts)
        if (const auto* hit = lookup(p))
          for (int f : *hit) claim(f, layer, OverlayMatch::Name);
    }
  }

  bool constant_foldable(int flat) const {
    const NodeOverlay& no = out_.nodes[static_cast<size_t>(flat)];
    const Graph& g = model_.graphs[static_cast<size_t>(no.graph)];
    const Node& n = node_of(flat);
    bool any = false;
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      const TensorInfo* t = g.find(o, model_.graphs);
      if (!t || !t->const_foldable) return false;
      any = true;
    }
    return any;
  }

  // "{ForeignNode[first...last]}": the nodes from first to last in node order
  // that no layer names. Names may hold "...", so every split is tried.
  // Each node is visited by at most one range: `next` skips the nodes a range
  // has already looked at (claimed, named, or constant), so overlapping
  // ranges cost nodes + layers, not their product.
  void claim_foreign_ranges() {
    std::vector<int> next(out_.nodes.size() + 1);
    for (size_t f = 0; f < next.size(); ++f) next[f] = static_cast<int>(f);
    auto skip_to = [&](int f) {
      int root = f;
      while (next[static_cast<size_t>(root)] != root) root = next[static_cast<size_t>(root)];
      while (next[static_cast<size_t>(f)] != root) f = std::exchange(next[static_cast<size_t>(f)], root);
      return root;
    };
    for (size_t li = 0; li < plan_.layers.size(); ++li) {
      std::string_view name = without_profile(plan_.layers[li].raw_name);
      if (!starts_with(name, kForeignOpen) || !ends_with(name, kForeignClose)) continue;
      std::string_view inner = name.substr(kForeignOpen.size(), name.size() - kForeignOpen.size() - kForeignClose.size());
      int tries = 0;
      for (size_t dots = inner.find("..."); dots != std::string_view::npos && tries < kMaxRangeSplits;
           dots = inner.find("...", dots + 1), ++tries) {
        const auto* a = lookup(inner.substr(0, dots));
        const auto* b = lookup(inner.substr(dots + 3));
        if (!a || !b) continue;
        int lo = -1, hi = -1;
        for (int x : *a) {
          for (int y : *b)
            if (out_.nodes[static_cast<size_t>(x)].graph == out_.nodes[static_cast<size_t>(y)].graph) {
              lo = std::min(x, y);
              hi = std::max(x, y);
              break;
            }
          if (lo >= 0) break;
        }
        if (lo < 0) continue;
        // Nodes a layer names, or an earlier range holds, stay where they are.
        for (int f = skip_to(lo); f <= hi; f = skip_to(f)) {
          if (out_.nodes[static_cast<size_t>(f)].layers.empty() && !constant_foldable(f))
            claim(f, static_cast<int>(li), OverlayMatch::ForeignRange);
          next[static_cast<size_t>(f)] = f + 1;
        }
        break;
      }
    }
  }

  // The layer holding every node in `nodes` (positions in graph `g`), or -1.
  int common_layer(int g, const std::vector<int>& nodes) const {
    int layer = -1;
    for (int pos : nodes) {
      const NodeOverlay& no = out_.nodes[static_cast<size_t>(first_[static_cast<size_t>(g)] + pos)];
      if (no.layers.empty() || no.match == OverlayMatch::Neighbours) return -1;
      if (layer >= 0 && no.layers[0] != layer) return -1;
      layer = no.layers[0];
    }
    return layer;
  }

  void place_the_rest() {
    // Decided on the named and ranged layers only, so one guess never feeds another.
    std::vector<std::pair<int, int>> inferred;  // (node, layer)
    for (size_t f = 0; f < out_.nodes.size(); ++f) {
      NodeOverlay& no = out_.nodes[f];
      if (!no.layers.empty()) continue;
      const Node& n = node_of(static_cast<int>(f));
      const Graph& g = model_.graphs[static_cast<size_t>(no.graph)];
      if (constant_foldable(static_cast<int>(f))) {
        no.vanished = Vanished::ConstantFolded;
        no.folded_into = folded_into(static_cast<int>(f));
        continue;
      }
      if ((n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear")) {
        std::vector<int> readers, writers;
        for (TensorId o : g.output_ids(n))
          for (int reader : g.consumers(o)) readers.push_back(reader);
        for (TensorId in : g.input_ids(n))
          if (int p = in == kNoTensor ? -1 : g.index.producer[static_cast<size_t>(in)]; p >= 0) writers.push_back(p);
        int layer = readers.empty() ? -1 : common_layer(no.graph, readers);
        if (layer < 0 && !writers.empty()) layer = common_layer(no.graph, writers);
        if (layer >= 0) {
          inferred.emplace_back(static_cast<int>(f), layer);
          continue;
        }
      }
      no.vanished = Vanished::NotFound;
    }
    for (auto [f, layer] : inferred) claim(f, layer, OverlayMatch::Neighbours);
  }

  // Where a constant went: a Constant layer named after the node, else the
  // first layer of a node reading its output.
  int folded_into(int flat) const {
    const Node& n = node_of(flat);
    std::string key = n.name.empty() && !n.outputs.empty() ? "node_of_" + n.outputs[0] : n.name;
    // Kept as a Constant layer, which has no kernel and no place in the layer list.
    if (!key.empty() && constant_names_.count(key)) return -1;
    const NodeOverlay& no = out_.nodes[static_cast<size_t>(flat)];
    const Graph& g = model_.graphs[static_cast<size_t>(no.graph)];
    for (TensorId o : g.output_ids(n)) {
      for (int pos : g.consumers(o)) {
        const NodeOverlay& reader = out_.nodes[static_cast<size_t>(first_[static_cast<size_t>(no.graph)] + pos)];
        if (!reader.layers.empty()) return reader.layers[0];
      }
    }
    return -1;
  }

  void finish() {
    for (auto& no : out_.nodes) {
      if (no.layers.empty()) {
        if (no.vanished == Vanished::ConstantFolded) ++out_.constant_folded;
        else ++out_.not_found;
        continue;
      }
      // Execution order, so `layer` is the first the node runs in.
      std::sort(no.layers.begin(), no.layers.end());
      no.layer = no.layers[0];
      const EngineLayer& l = plan_.layers[static_cast<size_t>(no.layer)];
      no.precision = l.precision;
      no.timed = true;
      for (int li : no.layers) {
        const EngineLayer& x = plan_.layers[static_cast<size_t>(li)];
        no.latency_ms += x.avg_ms;
        no.percent += x.percent;
        no.timed = no.timed && x.timed;
      }
      no.vanished = is_myelin(l) ? Vanished::ForeignNode : Vanished::None;
      if (no.vanished == Vanished::ForeignNode) ++out_.foreign_node;
      ++out_.in_layers;
    }
    for (size_t li = 0; li < out_.layers.size(); ++li) {
      auto& nodes = out_.layers[li].nodes;
      std::sort(nodes.begin(), nodes.end());
      if (!nodes.empty()) ++out_.layers_with_nodes;
      else if (!is_reformat_copy(plan_.layers[li])) out_.unmatched_layers.push_back(static_cast<int>(li));
    }
    auto examples = [&](const std::vector<int>& layers) {
      std::string s;
      for (size_t k = 0; k < layers.size() && k < 3; ++k)
        s += (k ? ", '" : "'") + plan_.layers[static_cast<size_t>(layers[k])].name + "'";
      return s + (layers.size() > 3 ? ", ..." : "");
    };
    if (out_.in_layers == 0) {
      std::vector<int> all;
      for (size_t li = 0; li < plan_.layers.size() && all.size() < 4; ++li) all.push_back(static_cast<int>(li));
      out_.notes.push_back(fmt::format(
          "no layer of engine {} names a node of {} ({} layers, e.g. {}; {} nodes): is it the engine of another model?",
          plan_.name, model_.path, plan_.layers.size(), examples(all), out_.nodes.size()));
    } else if (!out_.unmatched_layers.empty()) {
      out_.notes.push_back(fmt::format("{} of {} engine layers name no node of the model ({}): layers TensorRT "
                                       "added, or nodes it renamed",
                                       out_.unmatched_layers.size(), plan_.layers.size(),
                                       examples(out_.unmatched_layers)));
    }
    size_t shared = 0, ambiguous = 0;
    for (const auto& [name, nodes] : by_name_) {
      if (nodes.size() > 1) ++shared;
      if (nodes.size() > kMaxNodesPerName) ++ambiguous;
    }
    if (shared)
      out_.notes.push_back(fmt::format("{} node names are used by more than one node: a layer naming one is given "
                                       "to each{}",
                                       shared,
                                       ambiguous ? fmt::format(" ({} names shared by more than {} nodes are not "
                                                               "matched at all)",
                                                               ambiguous, kMaxNodesPerName)
                                                 : ""));
  }
};

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

const std::string* metadata_value(const EnginePlan& plan, std::string_view key) {
  for (const KeyValues* kv : {&plan.builder, &plan.device, &plan.performance})
    for (const auto& [k, v] : *kv)
      if (lower(k) == key) return &v;
  return nullptr;
}

// Precisions ordered by width; -1 for those that are not compared (integers, bool, unknown).
int precision_rank(std::string_view p) {
  if (p == "FP4") return 0;
  if (p == "FP8" || p == "INT8") return 1;
  if (p == "FP16" || p == "BF16") return 2;
  if (p == "FP32") return 3;
  return -1;
}

}  // namespace

Overlay overlay_engine(const Model& model, const EnginePlan& plan) { return Mapper(model, plan).run(); }

std::string engine_trt_version(const EnginePlan& plan) {
  for (const char* key : {"tensorrt version", "trt version"})
    if (const std::string* v = metadata_value(plan, key)) return *v;
  return "";
}

std::optional<Precision> engine_build_precision(const EnginePlan& plan) {
  const std::string* v = nullptr;
  for (const auto& [k, val] : plan.builder)
    if (lower(k) == "precision") v = &val;
  if (!v) return std::nullopt;
  std::string u = lower(*v);
  // Several reduced precisions enabled (trtexec --fp16 --int8, --best): each
  // layer takes the fastest of them, which is what check's "best" predicts.
  std::vector<Precision> enabled;
  for (auto [word, p] : {std::pair{"fp16", Precision::FP16}, {"bf16", Precision::BF16}, {"int8", Precision::INT8},
                         {"fp8", Precision::FP8}})
    if (u.find(word) != std::string::npos) enabled.push_back(p);
  if (enabled.size() > 1 || u.find("best") != std::string::npos) return Precision::BEST;
  if (enabled.size() == 1) return enabled[0];
  if (u.find("fp32") != std::string::npos) return Precision::FP32;
  return std::nullopt;
}

OverlayRuntime overlay_runtime(const EnginePlan& plan, const KnowledgeBase& kb, std::string_view trt,
                               std::optional<Precision> precision) {
  OverlayRuntime r;
  if (!trt.empty()) {
    r.release = &kb.resolve(trt);
    r.release_source = "--trt";
  } else if (std::string v = engine_trt_version(plan); !v.empty()) {
    try {
      r.release = &kb.resolve(v);
      r.release_source = fmt::format("engine metadata (TensorRT {})", v);
    } catch (const UsageError&) {
      r.release = &kb.releases().back();
      r.release_source = fmt::format("newest known: the engine metadata names TensorRT {}, which the knowledge base "
                                     "does not know",
                                     v);
    }
  } else {
    r.release = &kb.releases().back();
    r.release_source = "newest known: the engine files do not record the TensorRT release (give --trt)";
  }
  if (precision) {
    r.precision = *precision;
    r.precision_source = "--precision";
  } else if (auto p = engine_build_precision(plan)) {
    r.precision = *p;
    std::string recorded;
    for (const auto& [k, v] : plan.builder)
      if (lower(k) == "precision") recorded = v;
    r.precision_source = fmt::format("build metadata ({})", recorded);
  } else {
    r.precision = Precision::FP32;
    r.precision_source = "default: the engine files do not record the precision (give --precision)";
  }
  return r;
}

PredictionCheck compare_with_prediction(const Model& model, const Overlay& overlay, const EnginePlan& plan,
                                        const Annotations& predicted, const OverlayRuntime& runtime) {
  PredictionCheck out;
  out.runtime = runtime;
  std::unordered_map<uint64_t, const NodeVerdict*> verdicts;
  auto key = [](int g, int i) { return (static_cast<uint64_t>(static_cast<uint32_t>(g)) << 32) | static_cast<uint32_t>(i); };
  for (const NodeVerdict& nv : predicted.nodes) verdicts.emplace(key(nv.graph, nv.index), &nv);
  const std::string where = runtime.release
                                ? fmt::format("TensorRT {} {}", runtime.release->name, precision_name(runtime.precision))
                                : std::string(precision_name(runtime.precision));
  for (size_t k = 0; k < overlay.nodes.size(); ++k) {
    const NodeOverlay& no = overlay.nodes[k];
    if (no.layer < 0 || no.match == OverlayMatch::Neighbours) continue;
    auto it = verdicts.find(key(no.graph, no.index));
    if (it == verdicts.end()) continue;
    const NodeVerdict& nv = *it->second;
    ++out.compared;
    const std::string& layer = plan.layers[static_cast<size_t>(no.layer)].name;
    OverlayDisagreement d;
    d.node = static_cast<int>(k);
    d.predicted = nv.verdict;
    d.predicted_precision = nv.precision;
    d.measured_precision = no.precision;
    if (nv.verdict == Verdict::UNSUPPORTED) {
      d.kind = "unsupported-but-built";
      d.message = fmt::format("check predicted UNSUPPORTED for {}{}, but the engine holds the node in layer '{}'",
                              where, nv.reasons.empty() ? "" : " (" + nv.reasons[0].message + ")", layer);
      out.disagreements.push_back(std::move(d));
      continue;
    }
    if (nv.verdict == Verdict::UNKNOWN) continue;
    // A Quantize or Dequantize converts between precisions: its layer's input says nothing about it.
    const Node& n = model.graphs[static_cast<size_t>(no.graph)].nodes[static_cast<size_t>(no.index)];
    if (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear") continue;
    int p = precision_rank(nv.precision), m = precision_rank(no.precision);
    if (p < 0 || m < 0 || nv.precision == no.precision) continue;
    if (m > p) {
      if (nv.verdict == Verdict::FALLBACK) {
        d.kind = "precision-differs";
        d.message = fmt::format("check predicted FALLBACK to {} for {}, but layer '{}' ran at {}", nv.precision, where,
                                layer, no.precision);
      } else {
        d.kind = "fallback-not-predicted";
        d.message = fmt::format("check predicted {} at {} for {}, but layer '{}' ran at {}: a fallback it did not "
                                "predict",
                                verdict_name(nv.verdict), nv.precision, where, layer, no.precision);
      }
    } else if (m < p && nv.verdict == Verdict::FALLBACK) {
      d.kind = "fallback-not-observed";
      d.message = fmt::format("check predicted FALLBACK to {} for {}, but layer '{}' ran at {}", nv.precision, where,
                              layer, no.precision);
    } else {
      d.kind = "precision-differs";
      d.message = fmt::format("check predicted {} at {} for {}, but layer '{}' ran at {}", verdict_name(nv.verdict),
                              nv.precision, where, layer, no.precision);
    }
    out.disagreements.push_back(std::move(d));
  }
  return out;
}

EngineOverlay overlay_and_check(const Model& model, const EnginePlan& plan, const KnowledgeBase& kb,
                                std::string_view trt, std::optional<Precision> precision) {
  OverlayRuntime runtime = overlay_runtime(plan, kb, trt, precision);
  EngineOverlay out;
  out.overlay = overlay_engine(model, plan);
  if (out.overlay.in_layers == 0) throw InputError(plan.files.graph, out.overlay.notes.front());
  out.predicted = annotate(model, kb, *runtime.release, runtime.precision);
  out.check = compare_with_prediction(model, out.overlay, plan, out.predicted, runtime);
  return out;
}

}  // namespace trtlens
