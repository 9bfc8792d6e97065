// `trtlens ops [OP] [--trt R]`: what the knowledge base says about ONNX ops,
// per TensorRT release (status, element types, rules, plugin, notes).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/app.h"
#include "cli/output.h"
#include "render/table.h"
#include "trtlens/error.h"
#include "trtlens/kb.h"

namespace trtlens::cli {
namespace {

// Keys in the order written: schema_version first.
using json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;

struct OpsArgs {
  std::string op;
  std::string trt;
  std::string format = "text";
  bool plugins = false;
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Every op any release lists, sorted case-insensitively (as the tables are).
std::vector<std::string> all_ops(const KnowledgeBase& kb) {
  std::set<std::string> names;
  for (const Release& r : kb.releases())
    for (const auto& [name, e] : r.ops) names.insert(name);
  std::vector<std::string> out(names.begin(), names.end());
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return lower(a) < lower(b); });
  return out;
}

// The op as the tables spell it; a case-insensitive match is accepted. Throws
// UsageError with suggestions for an op no release lists.
std::string canonical_op(const KnowledgeBase& kb, const std::string& op) {
  std::vector<std::string> ops = all_ops(kb);
  if (std::find(ops.begin(), ops.end(), op) != ops.end()) return op;
  std::string low = lower(op);
  for (const auto& name : ops)
    if (lower(name) == low) return name;
  std::vector<std::string> close;
  for (const auto& name : ops)
    if (edit_distance(lower(name), low) <= 2 || (low.size() >= 4 && lower(name).find(low) != std::string::npos))
      close.push_back(name);
  std::string hint = close.empty() ? "run `trtlens ops` for the list"
                                   : fmt::format("did you mean {}?", fmt::join(close.begin(), close.begin() + std::min<size_t>(close.size(), 5), ", "));
  throw UsageError(fmt::format("unknown op '{}': no TensorRT release from {} to {} lists it; {}", op,
                               kb.releases().front().name, kb.releases().back().name, hint));
}

std::string dash(const std::string& s) { return s.empty() ? "-" : s; }
std::string join_types(const std::vector<std::string>& t) { return t.empty() ? "-" : fmt::format("{}", fmt::join(t, " ")); }
std::vector<std::string> rule_texts(const OpEntry& e) {
  std::vector<std::string> out;
  for (const Rule& r : e.rules) out.push_back(r.text);
  return out;
}
// For people (text, markdown): the rules in words; JSON keeps rule_texts.
std::vector<std::string> rule_words(const OpEntry& e) {
  std::vector<std::string> out;
  for (const Rule& r : e.rules) out.push_back(describe_rule(r));
  return out;
}

Cell status_cell(OpStatus s, bool color) {
  const char* code = s == OpStatus::Y ? "32" : s == OpStatus::N ? "31" : "33";
  return {std::string(op_status_name(s)), color ? code : nullptr};
}

bool supports(const OpEntry* e) { return e && e->status != OpStatus::N; }

// "5.1-8.6, 10.4-11.1": the runs of consecutive releases where `pick` holds.
template <class Pred>
std::string release_ranges(const KnowledgeBase& kb, Pred pick) {
  std::vector<std::string> runs;
  const auto& rs = kb.releases();
  for (size_t i = 0; i < rs.size();) {
    if (!pick(rs[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < rs.size() && pick(rs[j + 1])) ++j;
    runs.push_back(i == j ? rs[i].name : rs[i].name + "-" + rs[j].name);
    i = j + 1;
  }
  return runs.empty() ? "-" : fmt::format("{}", fmt::join(runs, ", "));
}

// "input 0: FP32 FP16 (onnx2trt_utils.cpp:1814)" per importer type check; "any type" without one.
std::vector<std::string> import_types_text(const OpEntry& e) {
  std::vector<std::string> out;
  if (e.import_src.empty()) return out;
  for (const ImportTypeCheck& c : e.import_types)
    out.push_back(fmt::format("{}: {}{}", c.input < 0 ? "every input" : fmt::format("input {}", c.input),
                              fmt::join(c.types, " "), c.where.empty() ? "" : " (" + c.where + ")"));
  if (out.empty()) out.push_back("no type check");
  return out;
}

std::vector<std::string> ignored_texts(const OpEntry& e) {
  std::vector<std::string> out;
  for (const IgnoredArg& a : e.ignored) out.push_back(a.text);
  return out;
}

json entry_json(const OpEntry& e) {
  auto opt = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  return json{{"op", e.op},
              {"status", op_status_name(e.status)},
              {"types", e.types},
              {"rules", rule_texts(e)},
              {"plugin", opt(e.plugin)},
              {"importer", opt(e.importer)},
              {"basis", opt(e.basis)},
              {"rules_src", opt(e.rules_src)},
              {"note", opt(e.note)},
              {"import_src", opt(e.import_src)},
              {"import_types", import_types_text(e)},
              {"ignored", ignored_texts(e)}};
}

json policy_json(const ReleasePolicy& p) {
  json out = json::object();
  auto add = [&](const char* key, std::string value) { out[key] = {{"value", value}, {"source", p.source(key)}}; };
  add("int64", p.int64_native ? "native" : "narrowed");
  add("uint8_boundary", p.uint8_boundary ? "yes" : "no");
  add("implicit_int8", p.implicit_int8 ? "yes" : "deprecated");
  add("strongly_typed", p.strongly_typed ? "only" : "no");
  add("function_plugin", p.function_plugin ? "yes" : "no");
  add("plugin_library", p.parser_loads_plugins ? "parser" : "application");
  add("plugin_fallback", p.plugin_fallback == PluginFallback::None       ? "no"
                         : p.plugin_fallback == PluginFallback::Registry ? "registry"
                                                                         : "registry_domain");
  return out;
}

json release_json(const Release& r) {
  return json{{"release", r.name},
              {"citation", r.citation()},
              {"source", r.source},
              {"date", r.date},
              {"basis", r.basis},
              {"opset_min", r.opset_min == 0 ? json(nullptr) : json(r.opset_min)},
              {"opset_max", r.opset_max == 0 ? json(nullptr) : json(r.opset_max)},
              {"opset_max_is_lower_bound", r.opset_max_is_bound},
              {"types", r.types},
              {"types_limited", r.types_limited},
              {"importer", r.importer.empty() ? json(nullptr) : json(r.importer)},
              {"types_importer", r.types_importer},
              {"policy", policy_json(r.policy)},
              {"notes", r.notes.empty() ? json(nullptr) : json(r.notes)}};
}

// "opsets 9-20", "opsets up to 17", "opsets 9 to at least 21".
std::string opset_text(const Release& r) {
  if (r.opset_max == 0) return r.opset_min ? fmt::format("opsets from {}", r.opset_min) : "opsets not stated";
  std::string max = r.opset_max_is_bound ? fmt::format("at least {}", r.opset_max) : std::to_string(r.opset_max);
  if (r.opset_min == 0) return fmt::format("opsets up to {}", max);
  return r.opset_max_is_bound ? fmt::format("opsets {} to {}", r.opset_min, max) : fmt::format("opsets {}-{}", r.opset_min, max);
}

std::string render_table(const Table& t, const std::string& format) {
  return format == "markdown" ? to_markdown(t) : to_text(t);
}

// ---------------------------------------------------------------- one op

void print_op(const KnowledgeBase& kb, const std::string& op, const Release* only, const std::string& format) {
  std::vector<const Release*> releases;
  for (const Release& r : kb.releases())
    if (!only || &r == only) releases.push_back(&r);

  if (format == "json") {
    json out{{"schema_version", kSchemaVersion}, {"op", op}, {"releases", json::array()}};
    for (const Release* r : releases) {
      const OpEntry* e = r->find(op);
      json row = e ? entry_json(*e) : json{{"op", op}, {"status", nullptr}};
      row.erase("op");
      row["release"] = r->name;
      row["citation"] = r->citation();
      row["listed"] = e != nullptr;
      out["releases"].push_back(row);
    }
    fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }

  bool md = format == "markdown";
  bool color = !md && stdout_wants_color();
  std::string out;
  auto heading = [&](const std::string& h) { out += md ? "## " + h + "\n\n" : h + "\n"; };

  if (only) {
    const OpEntry* e = only->find(op);
    heading(fmt::format("{} at TensorRT {} ({})", op, only->name, only->citation()));
    if (!md) out += "\n";
    if (!e) {
      const Release* next = kb.first_supporting(op, only);
      out += fmt::format("not listed in the {} table{}\n", only->name,
                         next ? fmt::format("; supported from {}", next->name) : "");
      fmt::print("{}", out);
      return;
    }
    Table t;
    t.header = {"field", "value"};
    t.rows.push_back({"status", status_cell(e->status, color)});
    t.rows.push_back({"types", join_types(e->types)});
    std::vector<std::string> rules = rule_words(*e);
    if (rules.empty()) t.rows.push_back({"rules", "-"});
    for (size_t i = 0; i < rules.size(); ++i) t.rows.push_back({i == 0 ? "rules" : "", rules[i]});
    t.rows.push_back({"plugin", dash(e->plugin)});
    t.rows.push_back({"importer", dash(e->importer)});
    t.rows.push_back({"rules from", dash(e->rules_src)});
    t.rows.push_back({"importer code", dash(e->import_src)});
    std::vector<std::string> checks = import_types_text(*e);
    for (size_t i = 0; i < checks.size(); ++i) t.rows.push_back({i == 0 ? "importer types" : "", checks[i]});
    std::vector<std::string> ignored = ignored_texts(*e);
    for (size_t i = 0; i < ignored.size(); ++i) t.rows.push_back({i == 0 ? "never read" : "", ignored[i]});
    t.rows.push_back({"note", dash(e->note)});
    out += render_table(t, format);
    if (e->status == OpStatus::N) {
      if (const Release* next = kb.first_supporting(op, only))
        out += fmt::format("\nsupported from {}\n", next->name);
    }
    fmt::print("{}", out);
    return;
  }

  heading(fmt::format("{}: TensorRT support per release", op));
  if (!md) out += "\n";
  Table t;
  t.header = {"release", "status", "types", "rules", "importer"};
  for (const Release* r : releases) {
    const OpEntry* e = r->find(op);
    if (!e) continue;
    t.rows.push_back({r->name, status_cell(e->status, color), join_types(e->types), std::to_string(e->rules.size()),
                      dash(e->importer)});
  }
  t.numeric = {false, false, false, true, false};
  out += render_table(t, format);
  std::string missing = release_ranges(kb, [&](const Release& r) { return r.find(op) == nullptr; });
  std::string untyped = release_ranges(kb, [&](const Release& r) {
    const OpEntry* e = r.find(op);
    return supports(e) && e->types.empty();
  });
  if (missing != "-" || untyped != "-") out += "\n";
  if (missing != "-") out += fmt::format("not listed in: {}\n", missing);
  if (untyped != "-")
    out += fmt::format("types not stated for the op in: {} (see `trtlens ops --trt R` for the release's types)\n", untyped);

  // Rules, plugins and notes, each with the releases it applies to.
  auto grouped = [&](const std::string& title, auto value_of) {
    std::vector<std::string> values;
    for (const Release* r : releases) {
      const OpEntry* e = r->find(op);
      if (!e) continue;
      for (const std::string& v : value_of(*e))
        if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    if (values.empty()) return;
    Table g;
    g.header = {"releases", title};
    for (const std::string& v : values) {
      std::string where = release_ranges(kb, [&](const Release& r) {
        const OpEntry* e = r.find(op);
        if (!e) return false;
        auto vs = value_of(*e);
        return std::find(vs.begin(), vs.end(), v) != vs.end();
      });
      g.rows.push_back({where, v});
    }
    out += "\n";
    heading(title == "rule" ? "Rules (each must hold for a node to import)" : title == "plugin" ? "Plugins" : "Notes");
    if (md) out += "\n";
    out += render_table(g, format);
  };
  grouped("rule", [](const OpEntry& e) { return rule_words(e); });
  grouped("plugin", [](const OpEntry& e) { return e.plugin.empty() ? std::vector<std::string>{} : std::vector{e.plugin}; });
  grouped("note", [](const OpEntry& e) { return e.note.empty() ? std::vector<std::string>{} : std::vector{e.note}; });
  fmt::print("{}", out);
}

// ---------------------------------------------------------------- every op

void print_release(const KnowledgeBase& kb, const Release& r, const std::string& format) {
  (void)kb;
  if (format == "json") {
    json rel = release_json(r);
    rel["ops"] = json::array();
    for (const auto& [name, e] : r.ops) rel["ops"].push_back(entry_json(e));
    fmt::print("{}\n", json{{"schema_version", kSchemaVersion}, {"releases", json::array({rel})}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  bool md = format == "markdown";
  bool color = !md && stdout_wants_color();
  std::string out = md ? fmt::format("## ONNX ops at TensorRT {} ({})\n\n", r.name, dash(r.date)) : fmt::format("ONNX ops at TensorRT {} ({})\n", r.name, dash(r.date));
  out += fmt::format("{}; {}; types {}{}\n", r.citation(), opset_text(r), join_types(r.types),
                     r.types_limited.empty() ? "" : fmt::format(" (limited: {})", join_types(r.types_limited)));
  if (!r.importer.empty())
    out += fmt::format("importer code: {}; types {}\n", r.importer, join_types(r.types_importer));
  const ReleasePolicy& p = r.policy;
  out += fmt::format("INT64 {}, UINT8 {}, implicit INT8 {}, {}\n", p.int64_native ? "native" : "narrowed to INT32",
                     p.uint8_boundary ? "only at network inputs/outputs" : "unrestricted",
                     p.implicit_int8 ? "yes" : "deprecated (Q/DQ only)",
                     p.strongly_typed ? "strongly typed only" : "precision builder flags");
  out += "\n";
  Table t;
  t.header = {"op", "status", "types", "rules", "plugin"};
  t.numeric = {false, false, false, true, false};
  std::vector<const OpEntry*> entries;
  for (const auto& [name, e] : r.ops) entries.push_back(&e);
  std::stable_sort(entries.begin(), entries.end(), [](const OpEntry* a, const OpEntry* b) { return lower(a->op) < lower(b->op); });
  int supported = 0;
  for (const OpEntry* e : entries) {
    supported += supports(e);
    t.rows.push_back({e->op, status_cell(e->status, color), join_types(e->types), std::to_string(e->rules.size()),
                      e->plugin.empty() ? "-" : (e->plugin.size() > 40 ? e->plugin.substr(0, 37) + "..." : e->plugin)});
  }
  out += render_table(t, format);
  out += fmt::format("\n{} ops listed, {} supported (Y, PLUGIN or EXPERIMENTAL). `trtlens ops OP --trt {}` shows an op's rules.\n",
                     entries.size(), supported, r.name);
  fmt::print("{}", out);
}

void print_all(const KnowledgeBase& kb, const std::string& format) {
  if (format == "json") {
    json rels = json::array();
    for (const Release& r : kb.releases()) {
      json rel = release_json(r);
      rel["ops"] = json::array();
      for (const auto& [name, e] : r.ops) rel["ops"].push_back(entry_json(e));
      rels.push_back(std::move(rel));
    }
    fmt::print("{}\n", json{{"schema_version", kSchemaVersion}, {"releases", std::move(rels)}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  bool md = format == "markdown";
  bool color = !md && stdout_wants_color();
  const Release& latest = kb.releases().back();
  std::string out = md ? "## ONNX ops across TensorRT releases\n\n" : "ONNX ops across TensorRT releases\n\n";
  Table t;
  t.header = {"op", "supported in", fmt::format("status {}", latest.name), fmt::format("types {}", latest.name)};
  for (const std::string& op : all_ops(kb)) {
    const OpEntry* e = latest.find(op);
    t.rows.push_back({op, release_ranges(kb, [&](const Release& r) { return supports(r.find(op)); }),
                      e ? status_cell(e->status, color) : "-", e ? join_types(e->types) : "-"});
  }
  out += render_table(t, format);
  out += fmt::format("\n{} releases: {}; the newest, {}, from {}. `trtlens ops OP` shows one op per release; "
                     "`--trt R` one release; `--plugins` the plugins a release bundles.\n",
                     kb.releases().size(), release_ranges(kb, [](const Release&) { return true; }), latest.name,
                     dash(latest.date));
  fmt::print("{}", out);
}

// The plugins libnvinfer_plugin of a release registers, which its importer's fallback
// path imports by op_type.
void print_plugins(const Release& r, const std::string& format) {
  std::vector<const OpEntry*> plugins = r.bundled_plugins();
  if (format == "json") {
    json list = json::array();
    for (const OpEntry* e : plugins) list.push_back(entry_json(*e));
    fmt::print("{}\n", json{{"schema_version", kSchemaVersion},
                            {"release", r.name},
                            {"date", r.date},
                            {"plugin_fallback", policy_json(r.policy)["plugin_fallback"]},
                            {"plugins", std::move(list)}}
                            .dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  bool md = format == "markdown";
  std::string out = md ? fmt::format("## Plugins bundled with TensorRT {}\n\n", r.name)
                       : fmt::format("Plugins bundled with TensorRT {} ({})\n", r.name, dash(r.date));
  out += r.policy.plugin_fallback == PluginFallback::None
             ? "this release's ONNX importer has no fallback to the plugin registry: a plugin node does not import\n"
             : fmt::format("a node whose op_type has no built-in importer imports as the plugin of that name and "
                           "plugin_version ({}); needs libnvinfer_plugin loaded (trtexec does; IParser users call "
                           "initLibNvInferPlugins from 10.0)\n",
                           dash(r.policy.source("plugin_fallback")));
  out += "\n";
  Table t;
  t.header = {"plugin", "versions", "precisions", "note"};
  for (const OpEntry* e : plugins) {
    std::string versions = "-";
    for (const Rule& rule : e->rules)
      if (rule.name == "attr_in" && !rule.args.empty() && rule.args[0] == "plugin_version") versions = rule.args[1];
    t.rows.push_back({e->op, versions, join_types(e->types), dash(e->note)});
  }
  out += render_table(t, format);
  out += fmt::format("\n{} plugins (source: TensorRT {} plugin/README.md, see data/PLUGINS.md).\n", plugins.size(),
                     r.name);
  fmt::print("{}", out);
}

}  // namespace

void add_ops_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<OpsArgs>();
  CLI::App* sub = app.add_subcommand("ops", "ONNX ops TensorRT imports, per release: status, element types, rules");
  sub->add_option("op", args->op, "ONNX op_type (e.g. Resize); omit for every op");
  sub->add_option("--trt", args->trt, "TensorRT release: 8.6, 8.6.1 or 8.6.1.6 (default: every release)");
  add_format_option(sub, args->format);
  sub->add_flag("--plugins", args->plugins,
                "the plugins libnvinfer_plugin of a release registers (--trt R; default: the newest release)");
  sub->callback([args, &exit_code] {
    const KnowledgeBase& kb = KnowledgeBase::builtin();
    const Release* release = args->trt.empty() ? nullptr : &kb.resolve(args->trt);
    if (args->plugins && !args->op.empty()) throw UsageError("ops --plugins lists a release's plugins: give no OP");
    if (args->plugins)
      print_plugins(release ? *release : kb.releases().back(), args->format);
    else if (!args->op.empty())
      print_op(kb, canonical_op(kb, args->op), release, args->format);
    else if (release)
      print_release(kb, *release, args->format);
    else
      print_all(kb, args->format);
    exit_code = kExitOk;
  });
}

}  // namespace trtlens::cli
