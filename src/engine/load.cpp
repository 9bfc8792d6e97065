// Loading trtexec's engine description files into an EnginePlan.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "engine/internal.h"
#include "engine/json_reader.h"
#include "trtlens/engine.h"
#include "trtlens/error.h"
#include "util/files.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace trtlens {

namespace {

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

// "[profile 2]" in a layer or binding name → 2; 0 when the name has no suffix.
int profile_of(const std::string& name) {
  auto p = name.find("[profile ");
  if (p == std::string::npos) return 0;
  p += 9;
  while (p < name.size() && name[p] == ' ') ++p;
  int v = 0;
  bool digits = false;
  while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p]))) {
    v = v * 10 + (name[p] - '0');
    ++p;
    digits = true;
  }
  return digits && p < name.size() && name[p] == ']' ? v : 0;
}


std::vector<int64_t> read_dims(const json& d) {
  std::vector<int64_t> dims;
  if (!d.is_array()) return dims;
  dims.reserve(d.size());
  for (const auto& x : d) dims.push_back(x.is_number() ? x.get<int64_t>() : -1);
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

std::string text_value(engine_detail::JsonReader& r) {
  if (r.peek() == '"') return std::string(r.string());
  return engine_detail::compact_json(r.skip());
}

EngineTensor read_tensor(engine_detail::JsonReader& r) {
  EngineTensor t;
  std::string combined, fmt_text, dtype;
  bool split = true;
  r.begin_object();
  bool first = true;
  std::string_view k;
  while (r.next_key(first, k)) {
    if (k == "Name") t.name = text_value(r);
    else if (k == "Location") t.location = text_value(r);
    else if (k == "Dimensions") {
      if (r.peek() != '[') {
        r.skip();
        continue;
      }
      r.begin_array();
      bool f = true;
      while (r.next_item(f)) {
        char c = r.peek();
        if (c == '-' || (c >= '0' && c <= '9')) t.dims.push_back(static_cast<int64_t>(r.number()));
        else {
          r.skip();
          t.dims.push_back(-1);
        }
      }
    } else if (k == "Format/Datatype") {
      combined = text_value(r);
      split = false;
    } else if (k == "Format") fmt_text = text_value(r);
    else if (k == "Datatype" || k == "DataType") dtype = text_value(r);
    else r.skip();
  }
  finish_tensor(t, split ? fmt_text : combined, dtype, split);
  return t;
}

// {"Type": "Half", "Count": 9408} → bytes
int64_t weights_bytes(std::string_view raw) {
  engine_detail::JsonReader r(raw);
  if (r.peek() != '{') return 0;
  r.begin_object();
  bool first = true;
  std::string_view k;
  std::string type;
  double count = 0;
  while (r.next_key(first, k)) {
    if (k == "Type" && r.peek() == '"') type = std::string(r.string());
    else if (k == "Count" && r.peek() != '"' && r.peek() != '{' && r.peek() != '[') count = r.number();
    else r.skip();
  }
  return static_cast<int64_t>(count) * engine_detail::element_size(precision_of_datatype(type));
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

EngineLayer read_layer(engine_detail::JsonReader& r, int index, const std::string& file) {
  EngineLayer l;
  l.file_index = index;
  bool named = false;
  std::string attrs;
  r.begin_object();
  bool first = true;
  std::string_view k;
  while (r.next_key(first, k)) {
    if (k == "Name") {
      l.raw_name = text_value(r);
      named = true;
    } else if (k == "LayerType") l.subtype = text_value(r);
    else if (k == "ParameterType") l.type = text_value(r);
    else if (k == "Origin") l.origin = text_value(r);
    else if (k == "TacticName") l.tactic = text_value(r);
    else if (k == "TacticValue") l.tactic_value = text_value(r);
    else if (k == "Metadata") l.metadata = text_value(r);
    else if (k == "Inputs" || k == "Outputs") {
      auto& dst = k == "Inputs" ? l.inputs : l.outputs;
      if (r.peek() != '[') {
        r.skip();
        continue;
      }
      r.begin_array();
      bool f = true;
      while (r.next_item(f)) {
        if (r.peek() == '{') dst.push_back(read_tensor(r));
        else r.skip();
      }
    } else {
      // One string per layer: thousands of small allocations cost more than the parse.
      std::string_view raw = r.skip();
      if (k == "Weights" || k == "Bias") l.weights_bytes += weights_bytes(raw);
      attrs += attrs.empty() ? "{\"" : ",\"";
      attrs.append(k);
      attrs += "\":";
      engine_detail::compact_json_append(raw, attrs);
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
        all[li].inputs[port] = noop.inputs[0];
        if (port == 0) all[li].precision = all[li].inputs[0].precision;
      }
    } else if (bindings.count(noop.outputs[0].name)) {
      // A NoOp writing an engine output hands that output to its producers.
      auto p = producers.find(noop.inputs[0].name);
      for (auto [li, port] : p->second) all[li].outputs[port] = noop.outputs[0];
    }
  }
}

void read_metadata_section(const nlohmann::ordered_json& j, const char* section, KeyValues& kv,
                           nlohmann::ordered_json& out) {
  auto it = j.find(section);
  if (it == j.end() || !it->is_object()) return;
  for (auto e = it->begin(); e != it->end(); ++e) {
    kv.emplace_back(e.key(), e.value().is_string() ? e.value().get<std::string>() : e.value().dump());
    out[e.key()] = e.value();
  }
}

// Metadata keeps the file's key order (ordered_json), as trtexec wrote it.
nlohmann::ordered_json parse_json_file(const std::string& path) {
  std::string text = read_file(path);
  try {
    return nlohmann::ordered_json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(path, fmt::format("invalid JSON (byte {}): {}", e.byte, e.what()));
  }
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t idx = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) ;
  if (idx > 0) --idx;
  return v[std::min(idx, v.size() - 1)];
}

}  // namespace

PlanFiles find_plan_files(const std::string& spec) {
  std::string prefix;
  PlanFiles f;
  if (fs::is_directory(spec)) {
    std::vector<std::string> graphs;
    for (const auto& e : fs::directory_iterator(spec))
      if (e.is_regular_file() && ends_with(e.path().filename().string(), ".graph.json"))
        graphs.push_back(e.path().string());
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
    f.graph = spec;  // a layer-info file under another name: no siblings
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
  return f;
}

std::vector<ProfileRecord> parse_profile(const std::string& text, const std::string& file) {
  std::vector<ProfileRecord> recs;
  engine_detail::JsonReader r(text);
  try {
    if (r.peek() != '[') {
      if (json::accept(text))
        throw InputError(file, "not a trtexec profile: expected a list of {\"name\", \"averageMs\", ...} records");
      throw engine_detail::JsonReader::Error{0, "not JSON"};
    }
    r.begin_array();
    bool first = true;
    while (r.next_item(first)) {
      if (r.peek() != '{') throw InputError(file, "not a trtexec profile: a record is not an object");
      r.begin_object();
      bool f = true;
      std::string_view k;
      ProfileRecord p;
      bool named = false;
      while (r.next_key(f, k)) {
        if (k == "name") {
          p.name = text_value(r);
          named = true;
        } else if (k == "timeMs" || k == "averageMs" || k == "medianMs" || k == "percentage") {
          double v = r.peek() == '"' ? 0.0 : r.number();
          (k == "timeMs" ? p.time_ms : k == "averageMs" ? p.avg_ms : k == "medianMs" ? p.median_ms : p.percent) = v;
        } else {
          r.skip();
        }
      }
      // The first record is {"count": N}; TREx keeps only named records.
      if (named) recs.push_back(std::move(p));
    }
    if (!r.at_end()) throw engine_detail::JsonReader::Error{r.offset(), "text after the JSON value"};
    return recs;
  } catch (const engine_detail::JsonReader::Error&) {
    recs.clear();  // fall through to the tolerant reader
  }
  // trtexec writes layer names without JSON escaping, so a name holding '"'
  // or '\' breaks strict parsing. Records have a fixed shape: read the name up
  // to the '", "timeMs"' that follows it, and the numbers by key.
  if (text.find("\"name\"") == std::string::npos || text.find("\"averageMs\"") == std::string::npos)
    throw InputError(file, "invalid JSON and not a trtexec profile (no \"name\"/\"averageMs\" records)");
  size_t pos = 0;
  while ((pos = text.find("\"name\"", pos)) != std::string::npos) {
    size_t colon = text.find(':', pos + 6);
    size_t q = colon == std::string::npos ? colon : text.find('"', colon);
    if (q == std::string::npos) break;
    size_t end = text.find("\"timeMs\"", q);
    size_t rec_end = text.find('}', end == std::string::npos ? q : end);
    if (end == std::string::npos || rec_end == std::string::npos)
      throw InputError(file, fmt::format("unreadable profile record at byte {}", pos));
    // back from "timeMs" over ", " to the closing quote of the name
    size_t close = text.rfind('"', text.rfind(',', end));
    ProfileRecord p;
    p.name = close > q ? text.substr(q + 1, close - q - 1) : std::string();
    std::string body = text.substr(end, rec_end - end);
    auto num = [&](const char* k) {
      auto at = body.find(k);
      if (at == std::string::npos) return 0.0;
      at = body.find(':', at);
      return at == std::string::npos ? 0.0 : std::strtod(body.c_str() + at + 1, nullptr);
    };
    p.time_ms = num("\"timeMs\"");
    p.avg_ms = num("\"averageMs\"");
    p.median_ms = num("\"medianMs\"");
    p.percent = num("\"percentage\"");
    recs.push_back(std::move(p));
    pos = rec_end;
  }
  return recs;
}

namespace {

// Joins profile records to layers: by position when the counts match (after
// dropping the records of NoOp and Constant layers), otherwise by name.
void join_profile(EnginePlan& plan, std::vector<ProfileRecord> recs, const std::unordered_set<std::string>& ignored,
                  const std::string& file) {
  plan.has_profile = true;
  std::erase_if(recs, [&](const ProfileRecord& r) { return ignored.count(fix_separators(r.name)) > 0; });
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

EnginePlan parse_plan(const std::string& graph_text, const std::string& graph_name, const std::string& profile_text,
                      const std::string& profile_name, const LoadOptions& options) {
  EnginePlan plan;
  plan.profile_id = options.profile_id;
  std::vector<EngineLayer> all;
  std::vector<std::string> names_only;
  bool saw_object_layer = false, saw_string_layer = false;
  json io_tensors, bindings;
  int index = 0;
  const char* expect = "unknown layout: expected an object with a \"Layers\" list (trtexec --exportLayerInfo)";
  all.reserve(graph_text.size() / 700 + 16);  // ~700-1200 bytes per detailed layer
  engine_detail::JsonReader r(graph_text);
  try {
    if (r.peek() != '{') {
      if (!json::accept(graph_text)) throw engine_detail::JsonReader::Error{r.offset(), "not JSON"};
      throw InputError(graph_name, expect);
    }
    bool has_layers = false;
    r.begin_object();
    bool first = true;
    std::string_view key;
    while (r.next_key(first, key)) {
      if (key == "Layers") {
        if (r.peek() != '[') throw InputError(graph_name, expect);
        has_layers = true;
        r.begin_array();
        bool f = true;
        while (r.next_item(f)) {
          char c = r.peek();
          if (c == '{') {
            saw_object_layer = true;
            all.push_back(read_layer(r, index++, graph_name));
          } else if (c == '"') {
            saw_string_layer = true;
            names_only.emplace_back(r.string());
            ++index;
          } else {
            r.skip();
            throw InputError(graph_name, "unknown layout: \"Layers\" holds values that are neither layer objects nor names");
          }
        }
      } else if (key == "Bindings") {
        bindings = json::parse(r.skip());
      } else if (key == "I/O Tensors") {
        io_tensors = json::parse(r.skip());
      } else {
        r.skip();
      }
    }
    if (!r.at_end()) throw engine_detail::JsonReader::Error{r.offset(), "text after the JSON value"};
    if (!has_layers) throw InputError(graph_name, expect);
  } catch (const engine_detail::JsonReader::Error& e) {
    throw InputError(graph_name, fmt::format("invalid JSON (byte {}): {}", e.offset, e.what));
  } catch (const json::parse_error& e) {
    throw InputError(graph_name, fmt::format("invalid JSON near byte {}", r.offset()));
  }
  if (saw_object_layer && saw_string_layer)
    throw InputError(graph_name, "unknown layout: \"Layers\" mixes layer objects and bare names");
  if (all.empty() && names_only.empty()) throw InputError(graph_name, "\"Layers\" is empty");

  std::unordered_set<std::string> binding_names;
  // 11.x lists shapes per profile in ProfileInfo and may not suffix I/O names:
  // when no I/O name carries the requested profile, the unsuffixed ones serve.
  bool io_suffixed = false;
  for (const json* list : {&bindings, &io_tensors})
    if (list->is_array())
      for (const auto& n : *list) {
        const json* name = n.is_string() ? &n : (n.is_object() && n.contains("Name") ? &n["Name"] : nullptr);
        if (name && name->is_string() && options.profile_id > 0 && profile_of(name->get<std::string>()) == options.profile_id)
          io_suffixed = true;
      }
  const int io_profile = options.profile_id > 0 && !io_suffixed ? 0 : options.profile_id;
  if (bindings.is_array()) {
    for (const auto& n : bindings)
      if (n.is_string()) {
        std::string s = n.get<std::string>();
        plan.profiles = std::max(plan.profiles, profile_of(s) + 1);
        if (profile_of(s) != io_profile) continue;
        binding_names.insert(s);
        plan.io.push_back({s, "", "", {}});
      }
  }
  bool v11 = false;
  if (io_tensors.is_array()) {
    v11 = true;
    for (const auto& t : io_tensors) {
      if (!t.is_object()) continue;
      EngineIO io;
      if (auto it = t.find("Name"); it != t.end() && it->is_string()) io.name = it->get<std::string>();
      if (auto it = t.find("IOMode"); it != t.end() && it->is_string()) io.mode = it->get<std::string>();
      if (auto it = t.find("DataType"); it != t.end() && it->is_string()) io.data_type = it->get<std::string>();
      if (auto it = t.find("Dimensions"); it != t.end()) io.dims = read_dims(*it);
      plan.profiles = std::max(plan.profiles, profile_of(io.name) + 1);
      if (profile_of(io.name) != io_profile) continue;
      binding_names.insert(io.name);
      plan.io.push_back(std::move(io));
    }
  }

  std::unordered_set<std::string> ignored;  // NoOp and Constant names: their profile records are dropped
  if (saw_string_layer) {
    plan.detailed = false;
    plan.layout = "names only";
    for (size_t i = 0; i < names_only.size(); ++i) {
      plan.profiles = std::max(plan.profiles, profile_of(names_only[i]) + 1);
      if (profile_of(names_only[i]) != options.profile_id) continue;
      EngineLayer l;
      l.raw_name = names_only[i];
      l.name = fix_separators(l.raw_name);
      l.type = "Unknown";
      l.file_index = static_cast<int>(i);
      plan.layers.push_back(std::move(l));
    }
    plan.notes.push_back(
        "graph.json lists layer names only (engine built without --profilingVerbosity=detailed): "
        "layer types, precisions, tensors, tactics and reformats cannot be shown; rebuild with "
        "--profilingVerbosity=detailed");
  } else {
    bool has_metadata = false, v10 = false;
    for (auto& l : all) {
      plan.profiles = std::max(plan.profiles, profile_of(l.raw_name) + 1);
      has_metadata |= !l.metadata.empty();
      v10 |= l.subtype == "Myelin" || l.subtype == "kgen" || l.name.rfind("{ForeignNode[", 0) == 0;
      for (const auto& t : l.inputs) v11 |= t.format.find(" / ") != std::string::npos;
    }
    plan.layout = v11 ? "11.x" : v10 ? "10.x" : has_metadata ? "8.6+" : "8.x";
    std::erase_if(all, [&](const EngineLayer& l) {
      bool sw = l.subtype == "signal" || l.subtype == "wait";
      plan.signal_wait_removed += sw;
      return sw || profile_of(l.raw_name) != options.profile_id;
    });
    if (all.empty())
      throw InputError(graph_name, fmt::format("no layer belongs to optimization profile {} (the graph has {})",
                                               options.profile_id, plan.profiles));
    fold_noops(all, binding_names);
    plan.layers.reserve(all.size());
    for (auto& l : all) {
      if (l.type == "NoOp") {
        ++plan.noops_folded;
        ignored.insert(l.raw_name);
        ignored.insert(l.name);
      } else if (l.type == "Constant") {
        ignored.insert(l.raw_name);
        ignored.insert(l.name);
        plan.constants.push_back(std::move(l));
      } else {
        plan.layers.push_back(std::move(l));
      }
    }
  }
  if (options.profile_id >= plan.profiles)
    throw InputError(graph_name, fmt::format("no optimization profile {} (the graph has {})", options.profile_id,
                                             plan.profiles));
  // Repeated names get "_2", "_3", ... as in TREx; raw_name keeps the original.
  std::unordered_map<std::string, int> seen;
  for (auto& l : plan.layers) {
    int n = ++seen[l.name];
    if (n > 1) l.name += "_" + std::to_string(n);
  }

  if (!profile_text.empty()) {
    join_profile(plan, parse_profile(profile_text, profile_name), ignored, profile_name);
  } else {
    plan.notes.push_back("no profile.json (trtexec --exportProfile): latencies are unknown and shown as 0 ms");
  }
  double total = plan.total_latency_ms();
  for (auto& l : plan.layers) l.percent = total > 0 ? 100.0 * l.avg_ms / total : 0.0;
  return plan;
}

namespace {
// One read of the whole file (the iostream copy in read_file costs ~10% of a
// 25 MB graph's load); read_file reports the error when this one fails.
std::string slurp(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return read_file(path);
  std::string s;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long n = std::ftell(f);
    if (n > 0) {
      s.resize(static_cast<size_t>(n));
      std::rewind(f);
      size_t got = std::fread(s.data(), 1, s.size(), f);
      s.resize(got);
    }
  }
  std::fclose(f);
  if (s.empty()) return read_file(path);  // pipes, special files
  return s;
}
}  // namespace

EnginePlan load_plan(const PlanFiles& files, const LoadOptions& options) {
  std::string graph = slurp(files.graph);
  std::string profile = files.profile.empty() ? std::string() : slurp(files.profile);
  if (!files.profile.empty() && profile.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(files.profile, "empty file");
  EnginePlan plan = parse_plan(graph, files.graph, profile, files.profile, options);
  plan.files = files;
  std::string base = fs::path(files.graph).filename().string();
  plan.name = ends_with(base, ".graph.json") ? base.substr(0, base.size() - 11) : base;

  if (!files.profile_metadata.empty()) {
    auto j = parse_json_file(files.profile_metadata);
    auto dev = nlohmann::ordered_json::object(), perf = nlohmann::ordered_json::object();
    read_metadata_section(j, "device_information", plan.device, dev);
    read_metadata_section(j, "performance_summary", plan.performance, perf);
    plan.device_json = dev.dump();
    plan.performance_json = perf.dump();
  }
  if (!files.build_metadata.empty()) {
    auto j = parse_json_file(files.build_metadata);
    auto b = nlohmann::ordered_json::object();
    read_metadata_section(j, "model_options", plan.builder, b);
    read_metadata_section(j, "build_options", plan.builder, b);
    plan.builder_json = b.dump();
  }
  if (!files.timing.empty()) {
    // Thousands of records: the pull reader, like graph.json.
    std::string text = slurp(files.timing);
    std::vector<double> lat;
    engine_detail::JsonReader r(text);
    try {
      if (r.peek() != '[') throw InputError(files.timing, "not a trtexec --exportTimes file: expected a list of records");
      r.begin_array();
      bool first = true;
      while (r.next_item(first)) {
        if (r.peek() != '{') {
          r.skip();
          continue;
        }
        r.begin_object();
        bool f = true;
        std::string_view k;
        while (r.next_key(f, k)) {
          char c = r.peek();
          if (k == "latencyMs" && (c == '-' || (c >= '0' && c <= '9'))) lat.push_back(r.number());
          else r.skip();
        }
      }
    } catch (const engine_detail::JsonReader::Error& e) {
      throw InputError(files.timing, fmt::format("invalid JSON (byte {}): {}", e.offset, e.what));
    }
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
      plan.timing = t;
    }
  }
  return plan;
}

}  // namespace trtlens
