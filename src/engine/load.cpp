// Loading trtexec's engine description files into an EnginePlan.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <deque>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "engine/internal.h"
#include "engine/json_input.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"

namespace fs = std::filesystem;
namespace od = trtlens::engine_detail::od;
using trtlens::engine_detail::key_of;
using trtlens::engine_detail::string_of;
using trtlens::engine_detail::text_of;

namespace trtlens {

namespace {

// Nesting levels (json_input.h) of the parents of graph.json's values: the
// document's object, its "Layers" list, a layer object, a tensor object.
constexpr int kLayerLevel = 3, kTensorLevel = 5;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string existing(const std::string& path) { return fs::is_regular_file(path) ? path : std::string(); }

// TensorRT 8.6+ separates the parts of names and Metadata with ASCII record
// and unit separators (0x1E, 0x1F); TREx shows them as '+', so do we.
std::string fix_separators(const std::string& s) {
  if (s.find_first_of("\x1e\x1f") == std::string::npos) return s;
  std::string r = s;
  for (char& c : r)
    if (c == '\x1e' || c == '\x1f') c = '+';
  return r;
}


// "[profile 2]" in a layer or binding name → 2; 0 when the name has no suffix
// or its number would not count as a profile (past INT_MAX - 1: a count of
// profiles must still fit an int).
int profile_of(const std::string& name) {
  auto p = name.find("[profile ");
  if (p == std::string::npos) return 0;
  p += 9;
  while (p < name.size() && name[p] == ' ') ++p;
  int64_t v = 0;
  bool digits = false;
  while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p]))) {
    v = v * 10 + (name[p] - '0');
    if (v >= INT_MAX) return 0;
    ++p;
    digits = true;
  }
  return digits && p < name.size() && name[p] == ']' ? static_cast<int>(v) : 0;
}

// "Dimensions": -1 for a dynamic dimension and for anything not an integer in int64's range.
std::vector<int64_t> read_dims(od::value v) {
  std::vector<int64_t> dims;
  if (v.type() != od::json_type::array) return dims;
  for (auto x : v.get_array()) {
    int64_t d = -1;
    if (x.get_int64().get(d)) d = -1;
    dims.push_back(d);
  }
  return dims;
}

void finish_tensor(EngineTensor& r, const std::string& fmt_text, const std::string& dtype, bool split) {
  if (!split) {
    // A plan uses a handful of formats over thousands of tensors: parse each once.
    static thread_local std::unordered_map<std::string, std::pair<std::string, std::string>> cache;
    auto [it, fresh] = cache.try_emplace(fmt_text);
    if (fresh) engine_detail::parse_format(fmt_text, it->second.first, it->second.second);
    r.format = fmt_text;
    r.precision = it->second.first;
    r.layout = it->second.second;
    return;
  }
  // 11.x: separate "Format" and "Datatype"; the datatype decides the precision.
  engine_detail::parse_format(fmt_text, r.precision, r.layout);
  if (!dtype.empty()) {
    std::string p2, lay;
    engine_detail::parse_format(dtype, p2, lay);
    if (!p2.empty()) r.precision = p2;
  }
  r.format = dtype.empty() ? fmt_text : (fmt_text.empty() ? dtype : fmt_text + " / " + dtype);
}

// Fields that tell layer-info layouts apart, noted as the file is read
// (detect_layout() names the layout from them).
enum SeenField : unsigned {
  kSeenCombinedFormat = 1u << 0,  // tensor "Format/Datatype" (8.x-10.x)
  kSeenSplitFormat = 1u << 1,     // tensor "Format" + "Datatype" (11.x)
  kSeenStrides = 1u << 2,         // tensor "Strides" / "StrideOrder"
  kSeenStreamId = 1u << 3,        // layer "StreamId"
  kSeenConstants = 1u << 4,       // layer "Constants"
  kSeenMetadata = 1u << 5,        // layer "Metadata" (8.6+)
  kSeenSubgraph = 1u << 6,        // layer "_subgraph"
};

EngineTensor read_tensor(od::object obj, unsigned& seen) {
  EngineTensor t;
  std::string combined, fmt_text, dtype;
  bool split = true;
  for (od::field field : obj) {
    std::string_view k = key_of(field);
    od::value v = field.value();
    if (k == "Name") t.name = text_of(v, kTensorLevel);
    else if (k == "Location") t.location = text_of(v, kTensorLevel);
    else if (k == "Dimensions") t.dims = read_dims(v);
    else if (k == "Format/Datatype") {
      combined = text_of(v, kTensorLevel);
      split = false;
      seen |= kSeenCombinedFormat;
    } else if (k == "Format") fmt_text = text_of(v, kTensorLevel), seen |= kSeenSplitFormat;
    else if (k == "Datatype" || k == "DataType") dtype = text_of(v, kTensorLevel), seen |= kSeenSplitFormat;
    else if (k == "Strides") t.strides = read_dims(v), seen |= kSeenStrides;
    else if (k == "StrideOrder") t.stride_order = read_dims(v), seen |= kSeenStrides;
  }
  finish_tensor(t, split ? fmt_text : combined, dtype, split);
  return t;
}

// {"Type": "Half", "Count": 9408} → bytes; saturates at INT64_MAX.
int64_t weights_bytes(od::object obj) {
  std::string type;
  double count = 0;
  for (od::field field : obj) {
    std::string_view k = key_of(field);
    od::value v = field.value();
    if (k == "Type" && v.type() == od::json_type::string) type = string_of(v);
    else if (k == "Count") count = engine_detail::number_or_nan(v);
  }
  // A count past int64 (1e300) saturates; NaN or negative counts nothing.
  int64_t n = !(count > 0) ? 0 : count >= 0x1p63 ? INT64_MAX : static_cast<int64_t>(count);
  return engine_detail::saturating_mul(n, engine_detail::element_size(precision_of_datatype(type)));
}

// Non-negative integers of compact JSON: "[3,3]" → {3, 3}; empty when an
// element is not one (negative, fractional, past int64, a string) or `compact`
// is not a list. Parsed in place: thousands of convolutions carry one.
std::vector<int64_t> counts_of(std::string_view compact) {
  std::vector<int64_t> out;
  if (compact.size() < 3 || compact.front() != '[' || compact.back() != ']') return out;
  const char* p = compact.data() + 1;
  const char* end = compact.data() + compact.size() - 1;
  while (p < end) {
    int64_t v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || v < 0 || (next != end && *next != ',')) return {};
    out.push_back(v);
    p = next + (next != end);
  }
  return out;
}

// A non-negative integer written as compact JSON ("4"); -1 otherwise.
int64_t count_of(std::string_view compact) {
  int64_t v = -1;
  auto [next, ec] = std::from_chars(compact.data(), compact.data() + compact.size(), v);
  return ec == std::errc() && next == compact.data() + compact.size() && v >= 0 ? v : -1;
}

// "[ONNX Layer: Conv_0]\x1e[ONNX Layer: Relu_1]" → {"Conv_0", "Relu_1"}
std::vector<std::string> onnx_nodes_of(const std::string& md) {
  std::vector<std::string> nodes;
  static constexpr std::string_view tag = "[ONNX Layer: ";
  size_t p = 0;
  while ((p = md.find(tag, p)) != std::string::npos) {
    p += tag.size();
    auto e = md.find(']', p);
    if (e == std::string::npos) break;
    nodes.push_back(md.substr(p, e - p));
    p = e + 1;
  }
  return nodes;
}

EngineLayer read_layer(od::object obj, int index, const std::string& file, unsigned& seen) {
  EngineLayer l;
  l.file_index = index;
  bool named = false;
  std::string attrs;
  for (od::field field : obj) {
    std::string_view k = key_of(field);
    od::value v = field.value();
    if (k == "Name") {
      l.raw_name = text_of(v, kLayerLevel);
      named = true;
    } else if (k == "LayerType") l.subtype = text_of(v, kLayerLevel);
    else if (k == "ParameterType") l.type = text_of(v, kLayerLevel);
    else if (k == "Origin") l.origin = text_of(v, kLayerLevel);
    else if (k == "TacticName") l.tactic = text_of(v, kLayerLevel);
    else if (k == "TacticValue") l.tactic_value = text_of(v, kLayerLevel);
    else if (k == "Metadata") l.metadata = text_of(v, kLayerLevel), seen |= kSeenMetadata;
    else if (k == "Inputs" || k == "Outputs" || k == "Constants") {
      auto& dst = k == "Inputs" ? l.inputs : k == "Outputs" ? l.outputs : l.constant_inputs;
      if (k == "Constants") seen |= kSeenConstants;
      if (v.type() != od::json_type::array) continue;
      for (od::value t : v.get_array())
        if (t.type() == od::json_type::object) dst.push_back(read_tensor(t.get_object(), seen));
    } else if (k == "StreamId" && v.type() == od::json_type::number) {
      int64_t id = -1;
      if (!v.get_int64().get(id) && id >= 0 && id <= INT_MAX) l.stream_id = static_cast<int>(id);
      seen |= kSeenStreamId;
    } else {
      if (k == "_subgraph") seen |= kSeenSubgraph;
      // One string per layer: thousands of small allocations cost more than the parse.
      attrs += attrs.empty() ? "{" : ",";
      engine_detail::append_quoted(k, attrs);
      attrs += ':';
      if ((k == "Weights" || k == "Bias") && v.type() == od::json_type::object) {
        od::object w = v.get_object();
        engine_detail::append_compact(std::string_view(w.raw_json()), attrs, kLayerLevel);
        w.reset();
        (k == "Weights" ? l.weights_bytes : l.bias_bytes) = weights_bytes(w);
      } else {
        size_t at = attrs.size();
        engine_detail::append_compact(engine_detail::raw_json(v), attrs, kLayerLevel);
        // The few numbers the analytics need, read from the compact text just written.
        std::string_view written = std::string_view(attrs).substr(at);
        if (k == "Kernel") l.kernel = counts_of(written);
        else if (k == "Groups") l.groups = std::max<int64_t>(count_of(written), 0);
        else if (k == "NbOperations" || k == "NbInstructions") {
          int64_t n = count_of(written);
          if (n >= 0 && n <= INT_MAX) l.n_operations = static_cast<int>(n);
        }
      }
    }
  }
  if (!named) throw InputError(file, fmt::format("layer {} has no \"Name\"; not an IEngineInspector layer", index));
  if (!attrs.empty()) l.attributes_json = attrs + "}";
  l.name = fix_separators(l.raw_name);
  if (l.type.empty()) l.type = l.subtype.empty() ? "Unknown" : l.subtype;
  // TREx tells deconvolutions from convolutions by their kernel family.
  if (l.type == "Convolution" && l.subtype == "CaskDeconvolutionV2") l.type = "Deconvolution";
  if (!l.metadata.empty()) {
    l.onnx_nodes = onnx_nodes_of(l.metadata);
    l.metadata = fix_separators(l.metadata);
  }
  if (!l.inputs.empty()) l.precision = l.inputs[0].precision;
  return l;
}

// Folds NoOp layers as TREx does: a NoOp's consumers read its input instead;
// a NoOp whose output is an engine output hands that output to its producers.
void fold_noops(std::vector<EngineLayer>& all, const std::unordered_set<std::string>& bindings) {
  // Only tensors a NoOp touches matter: index just those.
  std::unordered_map<std::string, std::vector<std::pair<int, int>>> consumers, producers;
  for (const auto& l : all)
    if (l.type == "NoOp" && !l.inputs.empty() && !l.outputs.empty()) {
      consumers.try_emplace(l.outputs[0].name);
      producers.try_emplace(l.inputs[0].name);
    }
  if (consumers.empty()) return;
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t p = 0; p < all[i].inputs.size(); ++p)
      if (auto it = consumers.find(all[i].inputs[p].name); it != consumers.end())
        it->second.emplace_back(static_cast<int>(i), static_cast<int>(p));
    for (size_t p = 0; p < all[i].outputs.size(); ++p)
      if (auto it = producers.find(all[i].outputs[p].name); it != producers.end())
        it->second.emplace_back(static_cast<int>(i), static_cast<int>(p));
  }
  for (auto& noop : all) {
    if (noop.type != "NoOp" || noop.inputs.empty() || noop.outputs.empty()) continue;
    auto c = consumers.find(noop.outputs[0].name);
    if (!c->second.empty()) {
      for (auto [li, port] : c->second) {
        if (all[li].written_inputs.empty()) all[li].written_inputs = all[li].inputs;
        all[li].inputs[port] = noop.inputs[0];
        if (port == 0) all[li].precision = all[li].inputs[0].precision;
      }
    } else if (bindings.count(noop.outputs[0].name)) {
      // A NoOp writing an engine output hands that output to its producers.
      auto p = producers.find(noop.inputs[0].name);
      for (auto [li, port] : p->second) {
        if (all[li].written_outputs.empty()) all[li].written_outputs = all[li].outputs;
        all[li].outputs[port] = noop.outputs[0];
      }
    }
  }
}

// Sections of a metadata file (profile.metadata.json, build.metadata.json), in
// the order asked: each key with its value as text (strings unquoted, other
// values as compact JSON), and all of them as one compact JSON object. The
// whole document is read, not looked up by key: a lookup stops early (a
// truncated file would pass) and leaves simdjson's iterator dead after an error.
void read_metadata(const std::string& path, std::initializer_list<const char*> sections, KeyValues& kv,
                   std::string& json_out) {
  auto text = engine_detail::JsonText::load(path);
  const std::vector<std::string_view> names(sections.begin(), sections.end());
  std::vector<std::optional<std::pair<KeyValues, std::string>>> found(names.size());  // fields, their JSON
  engine_detail::read_json(text, path, [&](od::document& doc) {
    if (doc.type() != od::json_type::object)
      throw InputError(path, "not a metadata file: expected a JSON object of sections");
    for (od::field section : doc.get_object()) {
      size_t i = std::find(names.begin(), names.end(), key_of(section)) - names.begin();
      od::value s = section.value();
      // The first section of a name counts; a section that is not an object is ignored.
      if (i == names.size() || found[i] || s.type() != od::json_type::object) continue;
      auto& [fields, obj] = found[i].emplace();
      for (od::field field : s.get_object()) {
        std::string key(key_of(field));
        od::value v = field.value();
        obj += ',';
        engine_detail::append_quoted(key, obj);
        obj += ':';
        if (v.type() == od::json_type::string) {
          std::string value(string_of(v));
          engine_detail::append_quoted(value, obj);
          fields.emplace_back(std::move(key), std::move(value));
        } else {
          size_t at = obj.size();
          engine_detail::append_compact(engine_detail::raw_json(v), obj, 2);
          fields.emplace_back(std::move(key), obj.substr(at));
        }
      }
    }
  });
  std::string all;
  for (auto& f : found) {
    if (!f) continue;
    all += f->second;
    kv.insert(kv.end(), std::make_move_iterator(f->first.begin()), std::make_move_iterator(f->first.end()));
  }
  json_out = all.empty() ? "{}" : "{" + all.substr(1) + "}";
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t idx = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) ;
  if (idx > 0) --idx;
  return v[std::min(idx, v.size() - 1)];
}

}  // namespace

std::string PlanLayout::describe() const {
  std::string s = fmt::format("{}; layer list: {}; tensors: {}", release, layer_list, tensor_fields);
  if (!layer_fields.empty()) {
    s += "; layers: ";
    for (size_t i = 0; i < layer_fields.size(); ++i) s += (i ? ", " : "") + layer_fields[i];
  }
  return s + "; I/O: " + io;
}

namespace {

// The TensorRT 11.1 perf-analysis skill pairs layers_<name>.json with
// profile_<name>.json (release/11.1:.agents/skills/trt-perf-analysis/scripts/
// trt_perf/data.py:227-235: ^layers?[_-]?(.*)\.json$, ^profiles?[_-]?(.*)\.json$,
// case-insensitive; an empty name is "default"). The name for `stem` ("layer"
// or "profile") of a file name, or nullopt when it is not such a file.
std::optional<std::string> paired_name(std::string file, std::string_view stem) {
  for (char& c : file) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (file.rfind(stem, 0) != 0 || !ends_with(file, ".json")) return std::nullopt;
  size_t p = stem.size();
  if (p < file.size() && file[p] == 's') ++p;
  if (p < file.size() && (file[p] == '_' || file[p] == '-')) ++p;
  if (p > file.size() - 5) return std::nullopt;
  std::string name = file.substr(p, file.size() - 5 - p);
  return name.empty() ? std::string("default") : name;
}

// profile_<name>.json beside layers_<name>.json; "" when there is none.
std::string paired_profile(const fs::path& layers) {
  auto name = paired_name(layers.filename().string(), "layer");
  if (!name) return "";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(layers.parent_path().empty() ? fs::path(".") : layers.parent_path(), ec))
    if (e.is_regular_file() && paired_name(e.path().filename().string(), "profile") == name) return e.path().string();
  return "";
}

}  // namespace

PlanFiles find_plan_files(const std::string& spec) {
  std::string prefix;
  PlanFiles f;
  if (fs::is_directory(spec)) {
    std::vector<std::string> graphs, layer_files;
    for (const auto& e : fs::directory_iterator(spec)) {
      if (!e.is_regular_file()) continue;
      if (ends_with(e.path().filename().string(), ".graph.json")) graphs.push_back(e.path().string());
      else if (paired_name(e.path().filename().string(), "layer")) layer_files.push_back(e.path().string());
    }
    if (graphs.empty() && layer_files.size() == 1) {  // a folder of the 11.1 skill's layers_X.json (+ profile_X.json)
      f.graph = layer_files[0];
      f.profile = paired_profile(f.graph);
      return f;
    }
    if (graphs.size() != 1)
      throw InputError(spec, graphs.empty() ? "folder holds no *.graph.json (trtexec --exportLayerInfo)"
                                            : fmt::format("folder holds {} *.graph.json files; name one", graphs.size()));
    f.graph = graphs[0];
    prefix = f.graph.substr(0, f.graph.size() - 11);
  } else if (ends_with(spec, ".graph.json")) {
    f.graph = spec;
    prefix = spec.substr(0, spec.size() - 11);
  } else if (fs::is_regular_file(spec + ".graph.json")) {
    prefix = spec;
    f.graph = spec + ".graph.json";
  } else if (fs::is_regular_file(spec) && ends_with(spec, ".json")) {
    f.graph = spec;  // a layer-info file under another name: no siblings, but layers_X.json's profile_X.json
    f.profile = paired_profile(spec);
    return f;
  } else {
    throw InputError(spec, fmt::format("no {}.graph.json beside it (give the plan's path prefix, "
                                       "its graph.json, or a folder)", fs::path(spec).filename().string()));
  }
  if (!fs::is_regular_file(f.graph)) throw InputError(f.graph, "cannot read: no such file");
  f.profile = existing(prefix + ".profile.json");
  f.timing = existing(prefix + ".timing.json");
  f.profile_metadata = existing(prefix + ".profile.metadata.json");
  f.build_metadata = existing(prefix + ".build.metadata.json");
  // The logs TREx's process_engine.py keeps beside the engine: build first, then profiling.
  for (const char* log : {".build.log", ".profile.log"})
    if (auto path = existing(prefix + log); !path.empty()) f.logs.push_back(path);
  return f;
}

namespace {

std::vector<ProfileRecord> read_profile(engine_detail::JsonText& text, const std::string& file) {
  std::vector<ProfileRecord> recs;
  engine_detail::read_json(text, file, [&](od::document& doc) {
    if (doc.type() != od::json_type::array)
      throw InputError(file, "not a trtexec profile: expected a list of {\"name\", \"averageMs\", ...} records");
    for (od::value rec : doc.get_array()) {
      if (rec.type() != od::json_type::object) throw InputError(file, "not a trtexec profile: a record is not an object");
      ProfileRecord p;
      bool named = false;
      for (od::field field : rec.get_object()) {
        std::string_view k = key_of(field);
        od::value v = field.value();
        if (k == "name") {
          p.name = text_of(v, 2);
          named = true;
        } else if (k == "timeMs" || k == "averageMs" || k == "medianMs" || k == "percentage") {
          (k == "timeMs" ? p.time_ms : k == "averageMs" ? p.avg_ms : k == "medianMs" ? p.median_ms : p.percent) =
              engine_detail::number_or_nan(v);
        }
      }
      // The first record is {"count": N}; TREx keeps only named records.
      if (named) recs.push_back(std::move(p));
    }
  });
  return recs;
}

// Strictly first; when that fails, once more after the pre-pass for what
// trtexec writes unescaped (json_input.h). The strict error is the one reported.
std::vector<ProfileRecord> read_profile_text(engine_detail::JsonText& text, const std::string& file) {
  try {
    return read_profile(text, file);
  } catch (const InputError&) {
    std::string repaired = engine_detail::repair_profile_text(text.text());
    if (repaired == text.text()) throw;
    try {
      engine_detail::JsonText fixed{std::string_view(repaired)};
      return read_profile(fixed, file);
    } catch (const InputError&) {
    }
    throw;
  }
}

}  // namespace

std::vector<ProfileRecord> parse_profile(const std::string& text, const std::string& file) {
  engine_detail::JsonText padded{std::string_view(text)};
  return read_profile_text(padded, file);
}

namespace {

// Joins profile records to layers: by position when the counts match (after
// dropping the records of NoOp and Constant layers), otherwise by name.
void join_profile(EnginePlan& plan, std::vector<ProfileRecord> recs, const std::unordered_set<std::string>& ignored,
                  const std::string& file) {
  plan.has_profile = true;
  std::erase_if(recs, [&](const ProfileRecord& r) { return ignored.count(fix_separators(r.name)) > 0; });
  size_t not_finite = 0;
  for (auto& r : recs) {
    bool bad = false;
    for (double* v : {&r.time_ms, &r.avg_ms, &r.median_ms, &r.percent})
      if (!std::isfinite(*v)) {
        *v = 0;
        bad = true;
      }
    not_finite += bad;
  }
  if (not_finite > 0)
    plan.notes.push_back(fmt::format("profile.json gives {} records a time that is not a finite number (NaN, "
                                     "Infinity or past the range of a number); they count as 0 ms",
                                     not_finite));
  auto& layers = plan.layers;
  if (recs.size() == layers.size()) {
    plan.profile_join = "position";
    size_t differ = 0;
    for (size_t i = 0; i < layers.size(); ++i) {
      auto& l = layers[i];
      l.timed = true;
      l.avg_ms = recs[i].avg_ms;
      l.median_ms = recs[i].median_ms;
      l.time_ms = recs[i].time_ms;
      if (fix_separators(recs[i].name) != l.raw_name && fix_separators(recs[i].name) != l.name) ++differ;
    }
    if (differ * 2 > layers.size())
      plan.notes.push_back(fmt::format(
          "profile.json names differ from graph.json at {} of {} positions; joined by position as TREx "
          "does, check that both files come from the same engine",
          differ, layers.size()));
    return;
  }
  plan.profile_join = "name";
  // Repeated names: the k-th record of a name goes to the k-th layer of that name.
  std::unordered_map<std::string, std::deque<size_t>> by_name;
  for (size_t i = 0; i < recs.size(); ++i) by_name[fix_separators(recs[i].name)].push_back(i);
  size_t matched = 0;
  for (auto& l : layers) {
    auto it = by_name.find(fix_separators(l.raw_name));
    if ((it == by_name.end() || it->second.empty()) && profile_of(l.raw_name) > 0) {
      // A profile-N layer may have been timed under its base name.
      std::string base = l.raw_name.substr(0, l.raw_name.rfind(" [profile"));
      it = by_name.find(fix_separators(base));
    }
    if (it == by_name.end() || it->second.empty()) continue;
    const auto& r = recs[it->second.front()];
    it->second.pop_front();
    l.timed = true;
    l.avg_ms = r.avg_ms;
    l.median_ms = r.median_ms;
    l.time_ms = r.time_ms;
    ++matched;
  }
  if (matched == 0 && !recs.empty() && !layers.empty())
    throw InputError(file, fmt::format("none of its {} records names a layer of the graph ({} layers); "
                                       "is it the profile of another engine?",
                                       recs.size(), layers.size()));
  plan.untimed_layers = static_cast<int>(layers.size() - matched);
  if (plan.untimed_layers > 0)
    plan.notes.push_back(fmt::format(
        "profile.json has {} records for {} layers (joined by name): {} layers have no timing and count as 0 ms",
        recs.size(), layers.size(), plan.untimed_layers));
  size_t unused = recs.size() - matched;
  if (unused > 0)
    plan.notes.push_back(fmt::format("{} profile.json records name no layer of the graph and are ignored", unused));
}

}  // namespace

namespace {

// "I/O Tensors" (11.x): Name, IOMode, DataType, Dimensions.
EngineIO read_io_tensor(od::object obj) {
  EngineIO io;
  for (od::field field : obj) {
    std::string_view k = key_of(field);
    od::value v = field.value();
    bool text = v.type() == od::json_type::string;
    if (k == "Name" && text) io.name = string_of(v);
    else if (k == "IOMode" && text) io.mode = string_of(v);
    else if (k == "DataType" && text) io.data_type = string_of(v);
    else if (k == "Dimensions") io.dims = read_dims(v);
  }
  return io;
}

// What a layer-info file holds, read in one pass whatever its layout: the
// layer list where the file keeps it, the I/O lists, and the fields seen.
struct RawGraph {
  std::string list_at;                 // "Layers", "layers", "LayerInfo", "layerInfo"; "" for a bare list
  std::vector<EngineLayer> layers;     // layer objects
  std::vector<std::string> names;      // bare names (a names-only graph)
  std::vector<EngineIO> bindings, io_tensors;
  bool has_bindings = false, has_io_tensors = false;
  unsigned seen = 0;                   // SeenField bits
};

// The keys a layer list may sit under. trtexec (IEngineInspector) writes
// "Layers"; the TensorRT 11.1 perf-analysis skill's reader also takes
// "layers", "LayerInfo" and "layerInfo", or the list alone
// (release/11.1:.agents/skills/trt-perf-analysis/scripts/trt_perf/layer_info.py:114-122).
constexpr std::string_view kListKeys[] = {"Layers", "layers", "LayerInfo", "layerInfo"};
constexpr const char* kExpect =
    "unknown layout: expected a list of layers, or an object with a \"Layers\" (\"layers\", \"LayerInfo\", "
    "\"layerInfo\") list (trtexec --exportLayerInfo)";

void read_layer_list(od::value list, RawGraph& g, const std::string& file) {
  int index = 0;
  for (od::value layer : list.get_array()) {
    od::json_type type = layer.type();
    if (type == od::json_type::object) {
      g.layers.push_back(read_layer(layer.get_object(), index++, file, g.seen));
    } else if (type == od::json_type::string) {
      g.names.emplace_back(string_of(layer));
      ++index;
    } else {
      throw InputError(file, fmt::format("unknown layout: the layer list{} holds values that are neither layer "
                                         "objects nor names",
                                         g.list_at.empty() ? "" : " \"" + g.list_at + "\""));
    }
  }
}

RawGraph read_graph(engine_detail::JsonText& text, const std::string& file) {
  RawGraph g;
  g.layers.reserve(text.text().size() / 700 + 16);  // ~700-1200 bytes per detailed layer
  engine_detail::read_json(text, file, [&](od::document& doc) {
    if (doc.type() == od::json_type::array) {
      read_layer_list(doc.get_value().value(), g, file);
      return;
    }
    if (doc.type() != od::json_type::object) throw InputError(file, kExpect);
    bool has_list = false;
    for (od::field field : doc.get_object()) {
      std::string_view key = key_of(field);
      od::value v = field.value();
      bool list_key = std::find(std::begin(kListKeys), std::end(kListKeys), key) != std::end(kListKeys);
      if (list_key && !has_list) {  // the first list key counts, as in the 11.1 reader's order of keys
        if (v.type() != od::json_type::array) throw InputError(file, kExpect);
        has_list = true;
        g.list_at = std::string(key);
        read_layer_list(v, g, file);
      } else if (key == "Bindings" && v.type() == od::json_type::array) {
        g.has_bindings = true;
        for (od::value n : v.get_array())
          if (n.type() == od::json_type::string) g.bindings.emplace_back().name = string_of(n);
      } else if (key == "I/O Tensors" && v.type() == od::json_type::array) {
        g.has_io_tensors = true;
        for (od::value t : v.get_array())
          if (t.type() == od::json_type::object) g.io_tensors.push_back(read_io_tensor(t.get_object()));
      }
    }
    if (!has_list) throw InputError(file, kExpect);
  });
  if (!g.layers.empty() && !g.names.empty())
    throw InputError(file, "unknown layout: the layer list mixes layer objects and bare names");
  if (g.layers.empty() && g.names.empty())
    throw InputError(file, g.list_at.empty() ? "the layer list is empty" : "\"" + g.list_at + "\" is empty");
  return g;
}

// Which layout a file is, from what read_graph saw. The release is a guess
// from the fields each release added (docs/engine.md, "Layouts"): 11.x splits
// "Format/Datatype" into "Format" + "Datatype" and lists "I/O Tensors"; 10.x
// has Myelin/kgen layers; 8.6 added "Metadata".
PlanLayout detect_layout(const RawGraph& g) {
  PlanLayout d;
  d.layer_list = g.list_at.empty() ? "bare list" : g.list_at;
  if (!g.names.empty()) {
    d.release = "names only";
    d.tensor_fields = "none";
  } else {
    bool v10 = false;
    for (const auto& l : g.layers)
      v10 |= l.subtype == "Myelin" || l.subtype == "kgen" || l.raw_name.rfind("{ForeignNode[", 0) == 0;
    const bool v11 = g.has_io_tensors || (g.seen & kSeenSplitFormat);
    d.release = v11 ? "11.x" : v10 ? "10.x" : (g.seen & kSeenMetadata) ? "8.6+" : "8.x";
    d.tensor_fields = (g.seen & kSeenSplitFormat) && (g.seen & kSeenCombinedFormat) ? "Format/Datatype and Format + Datatype"
                      : (g.seen & kSeenSplitFormat)                                 ? "Format + Datatype"
                      : (g.seen & kSeenCombinedFormat)                              ? "Format/Datatype"
                                                                                    : "none";
    if (g.seen & kSeenStrides) d.tensor_fields += ", Strides";
  }
  for (auto [bit, name] : {std::pair{kSeenMetadata, "Metadata"}, std::pair{kSeenStreamId, "StreamId"},
                           std::pair{kSeenConstants, "Constants"}, std::pair{kSeenSubgraph, "_subgraph"}})
    if (g.seen & bit) d.layer_fields.push_back(name);
  d.io = g.has_io_tensors ? "I/O Tensors" : g.has_bindings ? "Bindings" : "none (taken from the graph)";
  return d;
}

// ---- the passes, in the order parse_texts runs them (TREx's parser chain) ----

// A names-only graph (built without --profilingVerbosity=detailed): layers of
// the requested profile, with names and nothing else.
void pass_names_only(EnginePlan& plan, std::vector<std::string>& names, int profile_id) {
  plan.detailed = false;
  for (size_t i = 0; i < names.size(); ++i) {
    plan.profiles = std::max(plan.profiles, profile_of(names[i]) + 1);
    if (profile_of(names[i]) != profile_id) continue;
    EngineLayer l;
    l.raw_name = std::move(names[i]);
    l.name = fix_separators(l.raw_name);
    l.type = "Unknown";
    l.file_index = static_cast<int>(i);
    plan.layers.push_back(std::move(l));
  }
  plan.notes.push_back(
      "graph.json lists layer names only (engine built without --profilingVerbosity=detailed): "
      "layer types, precisions, tensors, tactics and reformats cannot be shown; rebuild with "
      "--profilingVerbosity=detailed");
}

// 10.x multi-stream plans interleave signal and wait layers (LayerType
// "signal"/"wait"); TREx drops them (__remove_signal_wait), so do we.
void pass_remove_signal_wait(EnginePlan& plan, std::vector<EngineLayer>& all) {
  std::erase_if(all, [&](const EngineLayer& l) {
    bool sw = l.subtype == "signal" || l.subtype == "wait";
    plan.signal_wait_removed += sw;
    return sw;
  });
}

// Layers of other optimization profiles ("name [profile N]") are dropped (TREx's filter_profiles).
void pass_keep_profile(EnginePlan& plan, std::vector<EngineLayer>& all, int profile_id, const std::string& file) {
  for (const auto& l : all) plan.profiles = std::max(plan.profiles, profile_of(l.raw_name) + 1);
  std::erase_if(all, [&](const EngineLayer& l) { return profile_of(l.raw_name) != profile_id; });
  if (all.empty())
    throw InputError(file, fmt::format("no layer belongs to optimization profile {} (the graph has {})", profile_id,
                                       plan.profiles));
}

// The engine's inputs and outputs of the requested profile, from "Bindings"
// (names only, up to 10.x) or "I/O Tensors" (11.x). 11.x lists shapes per
// profile in ProfileInfo and may not suffix I/O names: when no I/O name
// carries the requested profile, the unsuffixed ones serve.
void pass_io_from_lists(EnginePlan& plan, RawGraph& g, int profile_id) {
  bool suffixed = false;
  for (const auto* list : {&g.bindings, &g.io_tensors})
    for (const auto& io : *list) suffixed |= profile_id > 0 && profile_of(io.name) == profile_id;
  const int io_profile = profile_id > 0 && !suffixed ? 0 : profile_id;
  for (auto* list : {&g.bindings, &g.io_tensors})
    for (auto& io : *list) {
      plan.profiles = std::max(plan.profiles, profile_of(io.name) + 1);
      if (profile_of(io.name) == io_profile) plan.io.push_back(std::move(io));
    }
}

// A file with no I/O list (a bare layer list, as the 11.1 skill takes): the
// engine inputs are the tensors layers read and none writes, the outputs those
// written and read by none (the 11.1 reader's graph inputs and outputs,
// release/11.1:.agents/skills/trt-perf-analysis/scripts/trt_perf/layer_info.py:384-389).
void pass_io_from_graph(EnginePlan& plan, const std::vector<EngineLayer>& all) {
  std::unordered_set<std::string_view> written, read;
  for (const auto& l : all) {
    if (l.type == "Constant") continue;  // weights, not engine inputs
    for (const auto& t : l.outputs) written.insert(t.name);
  }
  std::unordered_set<std::string_view> added;
  for (const auto& l : all)
    for (const auto& t : l.inputs) {
      read.insert(t.name);
      if (!written.count(t.name) && added.insert(t.name).second) plan.io.push_back({t.name, "Input", "", {}, ""});
    }
  for (const auto& l : all) {
    if (l.type == "Constant") continue;
    for (const auto& t : l.outputs)
      if (!read.count(t.name) && added.insert(t.name).second) plan.io.push_back({t.name, "Output", "", {}, ""});
  }
}

// NoOp layers folded away and Constant layers set aside, as TREx does; their
// names go to `ignored` (their profile records are dropped).
void pass_set_aside(EnginePlan& plan, std::vector<EngineLayer>& all, std::unordered_set<std::string>& ignored) {
  plan.layers.reserve(all.size());
  for (auto& l : all) {
    if (l.type == "NoOp" || l.type == "Constant") {
      ignored.insert(l.raw_name);
      ignored.insert(l.name);
      if (l.type == "NoOp") ++plan.noops_folded;
      else plan.constants.push_back(std::move(l));
    } else {
      plan.layers.push_back(std::move(l));
    }
  }
}

// Repeated names get "_2", "_3", ... as in TREx (disambiguate_layer_names); raw_name keeps the original.
void pass_disambiguate_names(EnginePlan& plan) {
  std::unordered_map<std::string, int> seen;
  for (auto& l : plan.layers) {
    int n = ++seen[l.name];
    if (n > 1) l.name += "_" + std::to_string(n);
  }
}

// Bindings are names only: shape, format and direction come from the layer
// tensors of that name (11.x I/O Tensors state their shape and mode).
void pass_describe_io(EnginePlan& plan) {
  if (plan.io.empty()) return;
  std::unordered_map<std::string_view, std::pair<const EngineTensor*, bool>> seen_io;  // tensor, written
  for (const auto& io : plan.io) seen_io.try_emplace(io.name, nullptr, false);
  for (const auto& l : plan.layers) {
    for (const auto& t : l.inputs)
      if (auto it = seen_io.find(t.name); it != seen_io.end() && !it->second.first) it->second.first = &t;
    for (const auto& t : l.outputs)
      if (auto it = seen_io.find(t.name); it != seen_io.end()) it->second = {&t, true};
  }
  for (auto& io : plan.io) {
    auto [t, written] = seen_io[io.name];
    if (!t) continue;
    if (io.mode.empty()) io.mode = written ? "Output" : "Input";
    if (io.dims.empty()) io.dims = t->dims;
    io.format = t->short_format();
  }
}

// graph.json text (padded in place) and optional profile.json text → plan:
// read the file, name its layout, then run the passes that layout needs.
EnginePlan parse_texts(engine_detail::JsonText graph_text, const std::string& graph_name,
                       std::optional<engine_detail::JsonText> profile_text,
                       const std::string& profile_name, const LoadOptions& options) {
  EnginePlan plan;
  plan.profile_id = options.profile_id;
  RawGraph g = read_graph(graph_text, graph_name);
  plan.layout_detail = detect_layout(g);
  plan.layout = plan.layout_detail.release;

  std::unordered_set<std::string> ignored;  // NoOp and Constant names: their profile records are dropped
  if (!g.names.empty()) {
    pass_io_from_lists(plan, g, options.profile_id);
    pass_names_only(plan, g.names, options.profile_id);
  } else {
    pass_remove_signal_wait(plan, g.layers);
    pass_keep_profile(plan, g.layers, options.profile_id, graph_name);
    if (g.has_bindings || g.has_io_tensors) pass_io_from_lists(plan, g, options.profile_id);
    else pass_io_from_graph(plan, g.layers);
    std::unordered_set<std::string> binding_names;
    for (const auto& io : plan.io) binding_names.insert(io.name);
    fold_noops(g.layers, binding_names);
    pass_set_aside(plan, g.layers, ignored);
  }
  if (options.profile_id >= plan.profiles)
    throw InputError(graph_name, fmt::format("no optimization profile {} (the graph has {})", options.profile_id,
                                             plan.profiles));
  pass_disambiguate_names(plan);
  pass_describe_io(plan);
  if (profile_text) {
    join_profile(plan, read_profile_text(*profile_text, profile_name), ignored, profile_name);
  } else {
    plan.notes.push_back("no profile.json (trtexec --exportProfile): latencies are unknown and shown as 0 ms");
  }
  double total = plan.total_latency_ms();
  for (auto& l : plan.layers) l.percent = total > 0 ? 100.0 * l.avg_ms / total : 0.0;
  return plan;
}

}  // namespace

EnginePlan parse_plan(const std::string& graph_text, const std::string& graph_name, const std::string& profile_text,
                      const std::string& profile_name, const LoadOptions& options) {
  std::optional<engine_detail::JsonText> profile;
  if (!profile_text.empty()) profile.emplace(std::string_view(profile_text));
  return parse_texts(engine_detail::JsonText(std::string_view(graph_text)), graph_name, std::move(profile),
                     profile_name, options);
}

EnginePlan load_plan(const PlanFiles& files, const LoadOptions& options) {
  std::optional<engine_detail::JsonText> profile;
  if (!files.profile.empty()) {
    profile.emplace(engine_detail::JsonText::load(files.profile));
    if (profile->text().find_first_not_of(" \t\r\n") == std::string::npos) throw InputError(files.profile, "empty file");
  }
  EnginePlan plan =
      parse_texts(engine_detail::JsonText::load(files.graph), files.graph, std::move(profile), files.profile, options);
  plan.files = files;
  std::string base = fs::path(files.graph).filename().string();
  plan.name = ends_with(base, ".graph.json") ? base.substr(0, base.size() - 11) : base;

  if (!files.profile_metadata.empty()) {
    read_metadata(files.profile_metadata, {"device_information"}, plan.device, plan.device_json);
    read_metadata(files.profile_metadata, {"performance_summary"}, plan.performance, plan.performance_json);
    if (!plan.device.empty()) plan.device_source = "profile.metadata.json";
    if (!plan.performance.empty()) {
      plan.performance_source = "profile.metadata.json";
      plan.perf = engine_detail::performance_from_metadata(plan.performance_json);
    }
  }
  if (!files.build_metadata.empty()) {
    read_metadata(files.build_metadata, {"model_options", "build_options"}, plan.builder, plan.builder_json);
    if (!plan.builder.empty()) plan.builder_source = "build.metadata.json";
  }
  for (const auto& log : files.logs) apply_trtexec_log(plan, read_trtexec_log(log));
  if (!files.timing.empty()) {
    auto text = engine_detail::JsonText::load(files.timing);
    std::vector<double> lat;
    size_t not_finite = 0;
    engine_detail::read_json(text, files.timing, [&](od::document& doc) {
      if (doc.type() != od::json_type::array)
        throw InputError(files.timing, "not a trtexec --exportTimes file: expected a list of records");
      for (od::value rec : doc.get_array()) {
        if (rec.type() != od::json_type::object) continue;
        for (od::field field : rec.get_object()) {
          std::string_view k = key_of(field);
          od::value v = field.value();
          if (k != "latencyMs" || v.type() != od::json_type::number) continue;
          double ms = engine_detail::number_or_nan(v);
          if (std::isfinite(ms)) lat.push_back(ms);
          else ++not_finite;
        }
      }
    });
    if (not_finite > 0)
      plan.notes.push_back(fmt::format("timing.json has {} latencies past the range of a number; they are left out",
                                       not_finite));
    if (!lat.empty()) {
      IterationTiming t;
      t.iterations = lat.size();
      double sum = 0;
      for (double v : lat) sum += v;
      t.mean_ms = sum / static_cast<double>(lat.size());
      t.median_ms = percentile(lat, 0.5);
      t.p90_ms = percentile(lat, 0.9);
      t.p99_ms = percentile(lat, 0.99);
      t.min_ms = *std::min_element(lat.begin(), lat.end());
      t.max_ms = *std::max_element(lat.begin(), lat.end());
      t.latencies_ms = std::move(lat);
      plan.timing = std::move(t);
    }
  }
  return plan;
}

}  // namespace trtlens
