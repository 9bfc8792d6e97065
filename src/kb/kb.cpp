// Loading the knowledge base: data/trt/<release>.tsv (format in data/trt/README.md),
// compiled into the binary, parsed once on first use.
#include "util/strings.h"
#include "trtlens/kb.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "trtlens/error.h"
#include "util/embedded.h"
#include "util/sha256.h"

namespace trtlens {
namespace {

constexpr std::string_view kColumns =
    "op\tstatus\ttypes\trules\tplugin\timporter\tbasis\trules_src\tnote\timport_types\timport_src\tignored";
constexpr size_t kColumnCount = 12;

// "-" is the data files' spelling of "empty / not stated".
std::string field(std::string_view s) { return s == "-" ? std::string() : std::string(s); }

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  if (s == "-") return out;
  out.reserve(static_cast<size_t>(std::count(s.begin(), s.end(), ' ')) + 1);
  for (size_t start = 0; start < s.size();) {
    size_t end = std::min(s.find(' ', start), s.size());
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// "8.6" -> (8, 6); false for anything else.
bool parse_release_name(std::string_view s, int& major, int& minor) {
  size_t dot = s.find('.');
  return dot != std::string_view::npos && parse_int(s.substr(0, dot), major) &&
         parse_int(s.substr(dot + 1), minor) && major >= 0 && minor >= 0;
}

std::optional<OpStatus> parse_status(std::string_view s) {
  if (s == "Y") return OpStatus::Y;
  if (s == "N") return OpStatus::N;
  if (s == "EXPERIMENTAL") return OpStatus::EXPERIMENTAL;
  if (s == "PLUGIN") return OpStatus::PLUGIN;
  return std::nullopt;
}

using RuleCache = std::unordered_map<std::string_view, Rule>;

// "0:FP32|FP16@onnx2trt_utils.cpp:1814;*:BOOL" (data/trt/README.md, column import_types).
std::vector<ImportTypeCheck> parse_import_types(std::string_view s) {
  std::vector<ImportTypeCheck> out;
  if (s == "-" || s == "*") return out;
  for (std::string_view item : split(s, ';')) {
    ImportTypeCheck c;
    size_t colon = item.find(':');
    if (colon == std::string_view::npos) throw std::invalid_argument(fmt::format("import type check '{}' has no input", item));
    std::string_view input = item.substr(0, colon), rest = item.substr(colon + 1);
    if (input != "*" && (!parse_int(input, c.input) || c.input < 0))
      throw std::invalid_argument(fmt::format("import type check '{}': bad input", item));
    if (size_t at = rest.find('@'); at != std::string_view::npos) {
      c.where = std::string(rest.substr(at + 1));
      rest = rest.substr(0, at);
    }
    for (std::string_view t : split(rest, '|'))
      if (!t.empty()) c.types.emplace_back(t);
    out.push_back(std::move(c));
  }
  return out;
}

// "attr:reduction=none;input:1@opset(>=18)" (column ignored).
std::vector<IgnoredArg> parse_ignored(std::string_view s) {
  std::vector<IgnoredArg> out;
  if (s == "-") return out;
  for (std::string_view item : split(s, ';')) {
    IgnoredArg a;
    a.text = std::string(item);
    std::string_view arg = item;
    if (size_t at = arg.find('@'); at != std::string_view::npos) {
      for (std::string_view g : split(arg.substr(at + 1), '@')) a.guards.push_back(parse_rule(g));
      arg = arg.substr(0, at);
    }
    if (size_t eq = arg.find('='); eq != std::string_view::npos) {
      a.harmless = std::string(arg.substr(eq + 1));
      arg = arg.substr(0, eq);
    }
    if (arg.starts_with("attr:") && arg.size() > 5) {
      a.is_attribute = true;
      a.attribute = std::string(arg.substr(5));
    } else if (!(arg.starts_with("input:") && parse_int(arg.substr(6), a.input) && a.input >= 0)) {
      throw std::invalid_argument(fmt::format("ignored argument '{}' is not attr:NAME or input:I", item));
    }
    out.push_back(std::move(a));
  }
  return out;
}

// "# policy.int64: native | importer 9.0-GA onnx2trt_utils.cpp:353". False for an unknown key or value.
bool parse_policy(std::string_view key, std::string_view value, ReleasePolicy& p) {
  std::string_view source;
  if (size_t bar = value.find(" | "); bar != std::string_view::npos) {
    source = value.substr(bar + 3);
    value = value.substr(0, bar);
  }
  struct Known {
    std::string_view key, off, on;
    bool ReleasePolicy::*flag;
  };
  static constexpr Known kKnown[] = {
      {"int64", "narrowed", "native", &ReleasePolicy::int64_native},
      {"uint8_boundary", "no", "yes", &ReleasePolicy::uint8_boundary},
      {"implicit_int8", "deprecated", "yes", &ReleasePolicy::implicit_int8},
      {"strongly_typed", "no", "only", &ReleasePolicy::strongly_typed},
      {"function_plugin", "no", "yes", &ReleasePolicy::function_plugin},
      {"plugin_library", "application", "parser", &ReleasePolicy::parser_loads_plugins},
      {"int64_index_clamp", "no", "slice", &ReleasePolicy::int64_index_clamp},
  };
  if (key == "implicit_int8" && value == "removed") {
    p.implicit_int8 = false;
    p.implicit_int8_removed = true;
    p.sources[std::string(key)] = std::string(source);
    return true;
  }
  if (key == "plugin_fallback") {
    if (value == "no") p.plugin_fallback = PluginFallback::None;
    else if (value == "registry") p.plugin_fallback = PluginFallback::Registry;
    else if (value == "registry_domain") p.plugin_fallback = PluginFallback::RegistryDomain;
    else return false;
    p.sources[std::string(key)] = std::string(source);
    return true;
  }
  for (const Known& k : kKnown) {
    if (k.key != key) continue;
    if (value != k.on && value != k.off) return false;
    p.*k.flag = value == k.on;
    p.sources[std::string(key)] = std::string(source);
    return true;
  }
  return false;
}

Release parse_release(const std::string& file, std::string_view text, RuleCache& rule_cache) {
  Release r;
  bool have_name = false, have_columns = false;
  int line_no = 0;
  auto fail = [&](const std::string& problem) -> InputError {
    return InputError(file, fmt::format("line {}: {}", line_no, problem));
  };
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      // "# key: value" lines carry the release facts; other comments are ignored.
      std::string_view body = line.substr(1);
      while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
      size_t colon = body.find(": ");
      if (colon == std::string_view::npos) continue;
      std::string_view key = body.substr(0, colon), value = body.substr(colon + 2);
      if (key == "release") {
        if (!parse_release_name(value, r.major, r.minor)) throw fail(fmt::format("release '{}' is not major.minor", value));
        r.name = std::string(value);
        have_name = true;
      } else if (key == "source") {
        r.source = field(value);
      } else if (key == "date") {
        r.date = field(value);
      } else if (key == "opset_min") {
        if (value != "-" && !parse_int(value, r.opset_min)) throw fail(fmt::format("bad opset_min '{}'", value));
      } else if (key == "opset_max") {
        std::string_view v = value;
        if (v.starts_with(">=")) {
          r.opset_max_is_bound = true;
          v.remove_prefix(2);
        }
        if (v != "-" && !parse_int(v, r.opset_max)) throw fail(fmt::format("bad opset_max '{}'", value));
      } else if (key == "types") {
        r.types = words(value);
      } else if (key == "types_limited") {
        r.types_limited = words(value);
      } else if (key == "basis") {
        r.basis = field(value);
      } else if (key == "notes") {
        r.notes = field(value);
      } else if (key == "importer") {
        r.importer = field(value);
      } else if (key == "types_importer") {
        r.types_importer = words(value);
      } else if (key == "types_weights") {
        r.types_weights = words(value);
      } else if (key.starts_with("policy.")) {
        if (!parse_policy(key.substr(7), value, r.policy))
          throw fail(fmt::format("unknown policy '{}: {}'", key, value));
      }
      continue;
    }
    if (!have_columns) {
      if (line != kColumns) throw fail(fmt::format("expected the column line '{}'", kColumns));
      have_columns = true;
      continue;
    }
    std::array<std::string_view, kColumnCount> cells;
    size_t count = 0;
    for (size_t from = 0;; ++count) {
      size_t tab = line.find('\t', from);
      if (count < kColumnCount) cells[count] = line.substr(from, tab == std::string_view::npos ? tab : tab - from);
      if (tab == std::string_view::npos) break;
      from = tab + 1;
    }
    if (++count != kColumnCount) throw fail(fmt::format("{} fields, expected {}", count, kColumnCount));
    OpEntry e;
    e.op = std::string(cells[0]);
    auto status = parse_status(cells[1]);
    if (!status) throw fail(fmt::format("op {}: bad status '{}'", e.op, cells[1]));
    e.status = *status;
    e.types = words(cells[2]);
    if (cells[3] != "-") {
      for (std::string_view text_rule : split(cells[3], ';')) {
        // Releases repeat most rules; parse each distinct text once.
        auto cached = rule_cache.find(text_rule);
        if (cached != rule_cache.end()) {
          e.rules.push_back(cached->second);
          continue;
        }
        try {
          // "rule#FILE:LINE": a rule read from the importer code, with its line.
          size_t hash = text_rule.find('#');
          e.rules.push_back(parse_rule(text_rule.substr(0, hash)));
          if (hash != std::string_view::npos) e.rules.back().where = std::string(text_rule.substr(hash + 1));
          rule_cache.emplace(text_rule, e.rules.back());
        } catch (const std::invalid_argument& ex) {
          throw fail(fmt::format("op {}: {}", e.op, ex.what()));
        }
      }
    }
    e.plugin = field(cells[4]);
    e.importer = field(cells[5]);
    e.basis = field(cells[6]);
    e.rules_src = field(cells[7]);
    e.note = field(cells[8]);
    e.import_src = field(cells[10]);
    try {
      e.import_types = parse_import_types(cells[9]);
      e.ignored = parse_ignored(cells[11]);
    } catch (const std::invalid_argument& ex) {
      throw fail(fmt::format("op {}: {}", e.op, ex.what()));
    }
    std::string key = e.op;
    if (!r.ops.emplace(std::move(key), std::move(e)).second)
      throw fail(fmt::format("op {} listed twice", cells[0]));
  }
  line_no = 0;
  if (!have_name) throw InputError(file, "no '# release: <major.minor>' line");
  if (!have_columns) throw InputError(file, "no column line");
  // The file name is the release, so a new data file cannot silently shadow another.
  std::string_view base = file;
  if (size_t slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  if (base.ends_with(".tsv")) {
    base.remove_suffix(4);
    int ma = 0, mi = 0;
    if (parse_release_name(base, ma, mi) && base != r.name)
      throw InputError(file, fmt::format("file name says release {} but the file says {}", base, r.name));
  }
  return r;
}

}  // namespace

std::string_view op_status_name(OpStatus s) {
  switch (s) {
    case OpStatus::Y: return "Y";
    case OpStatus::N: return "N";
    case OpStatus::EXPERIMENTAL: return "EXPERIMENTAL";
    case OpStatus::PLUGIN: return "PLUGIN";
  }
  return "N";
}

bool OpEntry::has_type(std::string_view t) const {
  return std::find(types.begin(), types.end(), t) != types.end();
}

const OpEntry* Release::find(std::string_view op_type) const {
  auto it = ops.find(op_type);
  return it == ops.end() ? nullptr : &it->second;
}

std::string Release::citation() const {
  if (basis == "derived")
    return carried_from.empty() ? fmt::format("TensorRT {} changelog", name)
                                : fmt::format("TensorRT {} changelog ({} table carried forward)", name, carried_from);
  return fmt::format("ONNX-TensorRT support matrix, release {}", name);
}

std::vector<const OpEntry*> Release::bundled_plugins() const {
  std::vector<const OpEntry*> out;
  for (const auto& [name, e] : ops)
    if (e.importer == "plugin") out.push_back(&e);
  return out;  // std::map order: by name
}

std::string Release::importer_citation(std::string_view where) const {
  // A layer contract of NvInfer.h (data/layer_rules.tsv) names its own branch: "release/8.6:include/NvInfer.h:6391".
  if (where.starts_with("release/")) return fmt::format("TensorRT {}", where);
  std::string branch = importer.empty() ? name : importer.substr(0, importer.find(' '));
  return where.empty() ? fmt::format("importer {}", branch) : fmt::format("importer {} {}", branch, where);
}

std::string ReleasePolicy::source(std::string_view key) const {
  auto it = sources.find(key);
  return it == sources.end() ? std::string() : it->second;
}

KnowledgeBase KnowledgeBase::parse(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::pair<std::string_view, std::string_view>> views(files.begin(), files.end());
  return parse_views(views);
}

namespace {

// "SHA256  NAME\n" per file in name order, as sha256sum prints them, hashed (KnowledgeBase::fingerprint).
std::string manifest_fingerprint(std::vector<std::pair<std::string_view, std::string>> name_digest) {
  std::sort(name_digest.begin(), name_digest.end());
  std::string manifest;
  for (const auto& [name, digest] : name_digest) manifest += digest + "  " + std::string(name) + "\n";
  return sha256_hex(manifest);
}

}  // namespace

std::string_view trtlens_version() { return TRTLENS_VERSION; }

std::string KnowledgeBase::fingerprint_of(const std::vector<std::pair<std::string_view, std::string_view>>& files) {
  std::vector<std::pair<std::string_view, std::string>> digests;
  for (const auto& [name, contents] : files) digests.emplace_back(name, sha256_hex(contents));
  return manifest_fingerprint(std::move(digests));
}

bool KnowledgeBase::fingerprinted(std::string_view path) {
  return path.ends_with(".tsv") && (path.starts_with("data/trt/") || path.starts_with("data/targets/"));
}

KnowledgeBase KnowledgeBase::parse_views(const std::vector<std::pair<std::string_view, std::string_view>>& files) {
  KnowledgeBase kb = parse_tables(files);
  kb.fingerprint_ = fingerprint_of(files);
  return kb;
}

KnowledgeBase KnowledgeBase::parse_tables(const std::vector<std::pair<std::string_view, std::string_view>>& files) {
  KnowledgeBase kb;
  RuleCache rule_cache;  // keys point into `files`, which outlive this call
  kb.releases_.reserve(files.size());
  for (const auto& [name, contents] : files) kb.releases_.push_back(parse_release(std::string(name), contents, rule_cache));
  std::sort(kb.releases_.begin(), kb.releases_.end(), [](const Release& a, const Release& b) {
    return std::pair(a.major, a.minor) < std::pair(b.major, b.minor);
  });
  std::string last_table;
  for (size_t i = 0; i < kb.releases_.size(); ++i) {
    Release& r = kb.releases_[i];
    if (i > 0 && kb.releases_[i - 1].major == r.major && kb.releases_[i - 1].minor == r.minor)
      throw InputError(r.name + ".tsv", fmt::format("release {} defined twice", r.name));
    if (r.basis == "derived")
      r.carried_from = last_table;
    else
      last_table = r.name;
  }
  return kb;
}

const KnowledgeBase& KnowledgeBase::builtin() {
  static const KnowledgeBase kb = [] {
    std::vector<std::pair<std::string_view, std::string_view>> files;
    std::vector<std::pair<std::string_view, std::string>> digests;  // from the build: no hashing at start-up
    for (const EmbeddedFile& f : embedded_files()) {
      if (!fingerprinted(f.path)) continue;
      // The target facts (data/targets) judge --target runs: a change to them changes the fingerprint too.
      digests.emplace_back(f.path, std::string(f.sha256));
      if (f.path.starts_with("data/trt/")) files.emplace_back(f.path, f.contents);
    }
    try {
      KnowledgeBase parsed = parse_tables(files);
      parsed.fingerprint_ = manifest_fingerprint(std::move(digests));
      return parsed;
    } catch (const InputError& e) {
      // Embedded data is checked by the tests; reaching this is a build bug.
      throw std::runtime_error(std::string("embedded knowledge base: ") + e.what());
    }
  }();
  return kb;
}

const Release& KnowledgeBase::resolve(std::string_view text) const {
  // Accepts major.minor with an optional patch and build ("8.6.1", "8.6.1.6").
  std::vector<std::string_view> parts = split(text, '.');
  int major = -1, minor = -1;
  bool well_formed = parts.size() >= 2 && parts.size() <= 4;
  for (size_t i = 0; well_formed && i < parts.size(); ++i) {
    int v = 0;
    well_formed = parse_int(parts[i], v) && v >= 0;
    if (i == 0) major = v;
    if (i == 1) minor = v;
  }
  if (well_formed)
    for (const Release& r : releases_)
      if (r.major == major && r.minor == minor) return r;
  std::string known;
  for (const Release& r : releases_) known += (known.empty() ? "" : ", ") + r.name;
  throw UsageError(fmt::format("unknown TensorRT release '{}'; known: {}", text, known));
}

// Whether the release imports the op: listed as supported, and not refused by its importer code
// (7.2's table marks SoftmaxCrossEntropyLoss supported, but 7.2.1 has no importer for it).
static bool imports(const OpEntry* e) {
  return e && e->status != OpStatus::N && e->importer != "no" && e->importer != "rejected";
}

const Release* KnowledgeBase::first_supporting(std::string_view op_type, const Release* after) const {
  bool started = after == nullptr;
  for (const Release& r : releases_) {
    if (!started) {
      started = std::pair(r.major, r.minor) > std::pair(after->major, after->minor);
      if (!started) continue;
    }
    if (imports(r.find(op_type))) return &r;
  }
  return nullptr;
}

const Release* KnowledgeBase::last_supporting_before(std::string_view op_type, const Release& before) const {
  const Release* found = nullptr;
  for (const Release& r : releases_) {
    if (std::pair(r.major, r.minor) >= std::pair(before.major, before.minor)) break;
    if (imports(r.find(op_type))) found = &r;
  }
  return found;
}

KnowledgeBase KnowledgeBase::with_plugins(const std::vector<DeclaredPlugin>& plugins) const {
  KnowledgeBase kb = *this;
  for (const DeclaredPlugin& d : plugins) {
    if (d.name.empty()) throw UsageError("--plugin: empty plugin name (write NAME or NAME:VERSION)");
    std::string versions;
    for (const auto& v : d.versions) {
      // The version is matched against the node's plugin_version string, in a rule argument.
      if (v.empty() || v.find_first_of(",|()@;#\t ") != std::string::npos)
        throw UsageError(fmt::format("--plugin {}: bad version '{}'", d.name, v));
      versions += (versions.empty() ? "" : "|") + v;
    }
    for (Release& r : kb.releases_) {
      if (r.policy.plugin_fallback == PluginFallback::None) continue;
      auto it = r.ops.find(d.name);
      if (it != r.ops.end() && it->second.importer != "plugin" && it->second.status != OpStatus::N) continue;
      OpEntry e;
      e.op = d.name;
      e.status = OpStatus::PLUGIN;
      e.importer = "user";
      e.basis = r.basis;
      e.plugin = fmt::format("{} (declared with --plugin{})", d.name, versions.empty() ? "" : ", versions " + versions);
      if (!versions.empty()) {
        e.rules.push_back(parse_rule(fmt::format("attr_in(plugin_version,{},dflt=1)", versions)));
        e.rules_src = "user";
      }
      r.ops.insert_or_assign(d.name, std::move(e));
    }
  }
  std::string declared = fingerprint_;
  for (const DeclaredPlugin& d : plugins) {
    declared += "\nplugin " + d.name + ":";
    for (const auto& v : d.versions) declared += v + "|";
  }
  kb.fingerprint_ = sha256_hex(declared);
  return kb;
}

}  // namespace trtlens
