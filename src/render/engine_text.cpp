// Engine summary, layers, lint and compare as text, json, csv and markdown.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/internal.h"
#include "render/engine_render.h"
#include "render/table.h"
#include "trtlens/error.h"

using json = nlohmann::ordered_json;

namespace trtlens {

using engine_detail::dims_text;
using engine_detail::ms_text;
using engine_detail::percent_text;

OutputFormat parse_output_format(const std::string& s) {
  if (s == "text") return OutputFormat::Text;
  if (s == "json") return OutputFormat::Json;
  if (s == "csv") return OutputFormat::Csv;
  if (s == "markdown" || s == "md") return OutputFormat::Markdown;
  throw UsageError("unknown format " + s + "; known: text, json, csv, markdown");
}

namespace {

std::string fixed(double v, int digits = 6) { return fmt::format("{:.{}f}", v, digits); }

std::string table_out(const Table& t, OutputFormat f) {
  switch (f) {
    case OutputFormat::Csv: return to_csv(t);
    case OutputFormat::Markdown: return to_markdown(t);
    default: return to_text(t);
  }
}

json parse_or_empty(const std::string& s) {
  try {
    return json::parse(s);
  } catch (...) {
    return json::object();
  }
}

json tensor_json(const EngineTensor& t) {
  return {{"name", t.name},           {"dims", t.dims},     {"format", t.format},
          {"precision", t.precision}, {"layout", t.layout}, {"size_bytes", t.size_bytes()}};
}

std::string tensors_text(const std::vector<EngineTensor>& ts) {
  std::string s;
  for (const auto& t : ts) {
    if (!s.empty()) s += ", ";
    s += t.short_format();
    if (!t.dims.empty()) s += " " + dims_text(t.dims);
  }
  return s;
}

std::string tensors_long(const std::vector<EngineTensor>& ts) {
  std::string s;
  for (const auto& t : ts) {
    if (!s.empty()) s += "; ";
    s += fmt::format("{}: {} {}", t.name, t.short_format(), dims_text(t.dims));
  }
  return s;
}

std::string shorten(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 3) + "...";
}

Table group_table(const std::vector<GroupStat>& g, const char* key) {
  Table t{{key, "count", "ms", "% time"}, {}, {false, true, true, true}};
  for (const auto& x : g) t.rows.push_back({x.key, std::to_string(x.count), ms_text(x.latency_ms), percent_text(x.percent)});
  return t;
}

json group_json(const std::vector<GroupStat>& g, const char* key) {
  json a = json::array();
  for (const auto& x : g)
    a.push_back({{key, x.key}, {"count", x.count}, {"latency_ms", x.latency_ms}, {"percent", x.percent}});
  return a;
}

json summary_json(const EnginePlan& plan, const EngineSummary& s, const std::vector<Finding>* findings) {
  json j;
  j["schema_version"] = kEngineSchemaVersion;
  j["plan"] = plan.name;
  j["files"] = {{"graph", plan.files.graph},
                {"profile", plan.files.profile},
                {"timing", plan.files.timing},
                {"profile_metadata", plan.files.profile_metadata},
                {"build_metadata", plan.files.build_metadata}};
  j["layout"] = plan.layout;
  j["detailed"] = plan.detailed;
  j["partial"] = plan.partial();
  j["notes"] = plan.notes;
  j["layers"] = s.layers;
  j["noops_folded"] = plan.noops_folded;
  j["constants"] = plan.constants.size();
  j["optimization_profile"] = plan.profile_id;
  j["optimization_profiles"] = plan.profiles;
  j["profile_join"] = plan.profile_join;
  j["untimed_layers"] = plan.untimed_layers;
  j["total_latency_ms"] = s.total_latency_ms;
  j["by_type"] = group_json(s.by_type, "type");
  j["by_precision"] = group_json(s.by_precision, "precision");
  json rl = json::array();
  for (const auto& r : s.reformats)
    rl.push_back({{"name", r.layer->name},
                  {"origin", r.layer->origin},
                  {"from", r.from},
                  {"to", r.to},
                  {"latency_ms", r.layer->avg_ms},
                  {"percent", r.layer->percent},
                  {"reason", r.reason}});
  j["reformat"] = {{"count", s.reformat_count}, {"latency_ms", s.reformat_ms}, {"percent", s.reformat_percent},
                   {"layers", rl}};
  json sl = json::array();
  for (const auto* l : s.slowest)
    sl.push_back({{"name", l->name}, {"type", l->type}, {"precision", l->precision}, {"latency_ms", l->avg_ms},
                  {"percent", l->percent}});
  j["slowest"] = sl;
  json fl = json::array();
  for (const auto* l : s.fused) fl.push_back({{"name", l->name}, {"onnx_nodes", l->onnx_nodes}});
  j["fused"] = {{"count", s.fused.size()}, {"layers", fl}};
  j["weights_bytes"] = s.weights_bytes;
  j["layer_io_bytes"] = s.layer_io_bytes;
  j["tensor_bytes"] = s.tensor_bytes;
  j["activations_bytes"] = s.layer_io_bytes;  // the old name of layer_io_bytes, kept for scripts
  json io = json::array();
  for (const auto& t : plan.io)
    io.push_back({{"name", t.name}, {"mode", t.mode}, {"data_type", t.data_type}, {"dims", t.dims}});
  j["io"] = io;
  j["device"] = parse_or_empty(plan.device_json);
  j["builder"] = parse_or_empty(plan.builder_json);
  j["performance"] = parse_or_empty(plan.performance_json);
  if (plan.timing) {
    const auto& t = *plan.timing;
    j["timing"] = {{"iterations", t.iterations}, {"mean_ms", t.mean_ms}, {"median_ms", t.median_ms},
                   {"p90_ms", t.p90_ms},         {"p99_ms", t.p99_ms},   {"min_ms", t.min_ms},
                   {"max_ms", t.max_ms}};
  } else {
    j["timing"] = nullptr;
  }
  if (findings) {
    int w = 0, i = 0, e = 0;
    for (const auto& f : *findings) (f.severity == Severity::Warning ? w : f.severity == Severity::Info ? i : e)++;
    j["lint"] = {{"findings", findings->size()}, {"error", e}, {"warning", w}, {"info", i}};
  }
  return j;
}

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::Error: return "31";
    case Severity::Warning: return "33";
    default: return "36";
  }
}

std::string kv_block(const char* title, const KeyValues& kv) {
  if (kv.empty()) return "";
  std::string s = fmt::format("{}:\n", title);
  for (const auto& [k, v] : kv) s += fmt::format("  {}: {}\n", k, v);
  return s;
}

}  // namespace

std::string render_engine_summary(const EnginePlan& plan, const EngineSummary& s, const std::vector<Finding>* findings,
                                  OutputFormat f, bool color) {
  if (f == OutputFormat::Json) return summary_json(plan, s, findings).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (f == OutputFormat::Csv) {
    Table t{{"section", "name", "count", "latency_ms", "percent"}, {}, {}};
    t.rows.push_back({"total", plan.name, std::to_string(s.layers), fixed(s.total_latency_ms), "100"});
    for (const auto& g : s.by_type)
      t.rows.push_back({"type", g.key, std::to_string(g.count), fixed(g.latency_ms), fixed(g.percent, 3)});
    for (const auto& g : s.by_precision)
      t.rows.push_back({"precision", g.key, std::to_string(g.count), fixed(g.latency_ms), fixed(g.percent, 3)});
    t.rows.push_back({"reformat", "", std::to_string(s.reformat_count), fixed(s.reformat_ms), fixed(s.reformat_percent, 3)});
    for (const auto* l : s.slowest) t.rows.push_back({"slowest", l->name, "1", fixed(l->avg_ms), fixed(l->percent, 3)});
    return to_csv(t);
  }
  const bool md = f == OutputFormat::Markdown;
  auto h = [&](const std::string& title) { return md ? "\n## " + title + "\n\n" : "\n" + title + "\n"; };
  std::string o;
  o += md ? fmt::format("# Engine {}\n\n", plan.name) : fmt::format("Engine {}\n", plan.name);
  std::string sep = md ? "  \n" : "\n";
  o += fmt::format("Layers: {} ({} NoOps folded{}){}", s.layers, plan.noops_folded,
                   plan.constants.empty() ? "" : fmt::format(", {} constants set aside", plan.constants.size()), sep);
  o += fmt::format("Total latency: {} ms (sum of layer averages{}){}", ms_text(s.total_latency_ms),
                   plan.has_profile ? ", profile joined by " + plan.profile_join : ", no profile", sep);
  if (plan.timing)
    o += fmt::format("Iterations: {}, mean {} ms, median {} ms, p99 {} ms (timing.json){}", plan.timing->iterations,
                     ms_text(plan.timing->mean_ms), ms_text(plan.timing->median_ms), ms_text(plan.timing->p99_ms), sep);
  o += fmt::format("Layout: {}{}{}", plan.layout,
                   plan.profiles > 1 ? fmt::format(", optimization profile {} of {}", plan.profile_id, plan.profiles) : "",
                   sep);
  if (s.weights_bytes || s.layer_io_bytes)
    o += fmt::format("Weights: {:.1f} MiB; activation tensors: {:.1f} MiB, each once (layer inputs+outputs summed: "
                     "{:.1f} MiB){}",
                     s.weights_bytes / 1048576.0, s.tensor_bytes / 1048576.0, s.layer_io_bytes / 1048576.0, sep);
  o += h("Latency by layer type");
  o += table_out(group_table(s.by_type, "type"), f);
  o += h("Layers by precision");
  o += table_out(group_table(s.by_precision, "precision"), f);
  o += h(fmt::format("Slowest {} layers", s.slowest.size()));
  Table sl{{"layer", "type", "precision", "ms", "% time"}, {}, {false, false, false, true, true}};
  for (const auto* l : s.slowest)
    sl.rows.push_back({md ? l->name : shorten(l->name, 70), l->type, l->precision, ms_text(l->avg_ms), percent_text(l->percent)});
  o += table_out(sl, f);
  o += h(fmt::format("Reformats: {} layers, {} ms, {} of time", s.reformat_count, ms_text(s.reformat_ms),
                     percent_text(s.reformat_percent)));
  if (!s.reformats.empty()) {
    Table rt{{"layer", "origin", "conversion", "ms", "why"}, {}, {false, false, false, true, false}};
    // People read the costly ones; JSON and CSV of `engine layers` have them all.
    std::vector<const ReformatInfo*> order;
    for (const auto& r : s.reformats) order.push_back(&r);
    std::stable_sort(order.begin(), order.end(),
                     [](const ReformatInfo* a, const ReformatInfo* b) { return a->layer->avg_ms > b->layer->avg_ms; });
    const size_t cap = 20;
    for (size_t i = 0; i < order.size() && i < cap; ++i) {
      const auto& r = *order[i];
      rt.rows.push_back({md ? r.layer->name : shorten(r.layer->name, 60), r.layer->origin, r.from + " -> " + r.to,
                         ms_text(r.layer->avg_ms), r.reason});
    }
    o += table_out(rt, f);
    if (order.size() > cap)
      o += fmt::format("... {} more reformats (--format json, or engine layers --filter type=Reformat)\n",
                       order.size() - cap);
  }
  o += h(fmt::format("Fused layers: {} of {}", s.fused.size(), s.layers));
  size_t shown = 0;
  for (const auto* l : s.fused) {
    if (shown++ == 10) {
      o += fmt::format("{}... and {} more (engine layers --filter fused=yes)\n", md ? "- " : "  ", s.fused.size() - 10);
      break;
    }
    o += fmt::format("{}{}{}\n", md ? "- " : "  ", l->name,
                     l->onnx_nodes.size() > 1 ? fmt::format(" ({} ONNX nodes)", l->onnx_nodes.size()) : "");
  }
  std::string dev = kv_block("Device", plan.device), bld = kv_block("Builder", plan.builder);
  std::string perf = kv_block("Performance (trtexec)", plan.performance);
  if (!dev.empty() || !bld.empty()) o += md ? "\n```\n" + dev + bld + perf + "```\n" : "\n" + dev + bld + perf;
  else o += "\nDevice and builder settings: no metadata files (profile.metadata.json, build.metadata.json)\n";
  if (findings) {
    int w = 0, i = 0, e = 0;
    for (const auto& fd : *findings) (fd.severity == Severity::Warning ? w : fd.severity == Severity::Info ? i : e)++;
    o += fmt::format("\nLint: {} findings ({} errors, {} warnings, {} info); see `trtlens engine lint`\n",
                     findings->size(), e, w, i);
  }
  if (plan.partial()) {
    o += h(colorize("Partial results", "33", color && !md));
    for (const auto& n : plan.notes) o += fmt::format("{}{}\n", md ? "- " : "  - ", n);
  }
  return o;
}

std::string render_engine_layers(const EnginePlan& plan, const std::vector<size_t>& rows, OutputFormat f) {
  if (f == OutputFormat::Json) {
    json a = json::array();
    for (size_t i : rows) {
      const auto& l = plan.layers[i];
      json ins = json::array(), outs = json::array();
      for (const auto& t : l.inputs) ins.push_back(tensor_json(t));
      for (const auto& t : l.outputs) outs.push_back(tensor_json(t));
      a.push_back({{"index", i},
                   {"name", l.name},
                   {"type", l.type},
                   {"subtype", l.subtype},
                   {"precision", l.precision},
                   {"origin", l.origin},
                   {"tactic", l.tactic},
                   {"tactic_value", l.tactic_value},
                   {"inputs", ins},
                   {"outputs", outs},
                   {"onnx_nodes", l.onnx_nodes},
                   {"attributes", parse_or_empty(l.attributes_json)},
                   {"timed", l.timed},
                   {"latency_ms", l.avg_ms},
                   {"median_ms", l.median_ms},
                   {"percent", l.percent}});
    }
    json j = {{"schema_version", kEngineSchemaVersion}, {"plan", plan.name}, {"partial", plan.partial()},
              {"notes", plan.notes}, {"layers", a}};
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const bool wide = f != OutputFormat::Text;
  Table t{{"#", "layer", "type", "precision", "inputs", "outputs", "tactic", "avg ms", "median ms", "% time"},
          {},
          {true, false, false, false, false, false, false, true, true, true}};
  for (size_t i : rows) {
    const auto& l = plan.layers[i];
    std::string tactic = l.tactic.empty() ? l.tactic_value : l.tactic;
    t.rows.push_back({std::to_string(i), wide ? l.name : shorten(l.name, 60), l.type, l.precision,
                      wide ? tensors_long(l.inputs) : tensors_text(l.inputs),
                      wide ? tensors_long(l.outputs) : tensors_text(l.outputs), wide ? tactic : shorten(tactic, 40),
                      l.timed || !plan.has_profile ? (wide ? fixed(l.avg_ms) : ms_text(l.avg_ms)) : "-",
                      l.timed || !plan.has_profile ? (wide ? fixed(l.median_ms) : ms_text(l.median_ms)) : "-",
                      wide ? fixed(l.percent, 3) : percent_text(l.percent)});
  }
  std::string o = table_out(t, f);
  if (f == OutputFormat::Text && plan.partial())
    for (const auto& n : plan.notes) o += "note: " + n + "\n";
  return o;
}

std::string render_engine_lint(const EnginePlan& plan, const std::vector<Finding>& findings, OutputFormat f, bool color) {
  if (f == OutputFormat::Json) {
    json a = json::array();
    for (const auto& x : findings)
      a.push_back({{"linter", x.linter}, {"layer", x.layer}, {"severity", severity_name(x.severity)},
                   {"message", x.message}, {"suggestion", x.suggestion}});
    json j = {{"schema_version", kEngineSchemaVersion}, {"plan", plan.name}, {"partial", plan.partial()},
              {"notes", plan.notes}, {"findings", a}};
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (f != OutputFormat::Text) {
    Table t{{"severity", "linter", "layer", "message", "suggestion"}, {}, {}};
    for (const auto& x : findings) t.rows.push_back({severity_name(x.severity), x.linter, x.layer, x.message, x.suggestion});
    return table_out(t, f);
  }
  std::string o;
  for (const auto& x : findings) {
    o += fmt::format("{} [{}] {}\n    {}\n    suggestion: {}\n",
                     colorize(fmt::format("{:<7}", severity_name(x.severity)), severity_color(x.severity), color),
                     x.linter, x.layer, x.message, x.suggestion);
  }
  int w = 0, i = 0, e = 0;
  for (const auto& x : findings) (x.severity == Severity::Warning ? w : x.severity == Severity::Info ? i : e)++;
  o += fmt::format("{} findings: {} errors, {} warnings, {} info ({} layers checked)\n", findings.size(), e, w, i,
                   plan.layers.size());
  for (const auto& n : plan.notes) o += "note: " + n + "\n";
  return o;
}

namespace {

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Speedup of plan p over the first plan that has the row: its latency over p's.
std::optional<double> speedup(const LayerMatch& m, size_t p) {
  std::optional<double> ref;
  for (const auto& x : m.avg_ms)
    if (x) {
      ref = x;
      break;
    }
  if (!ref || !m.avg_ms[p] || *m.avg_ms[p] <= 0) return std::nullopt;
  return *ref / *m.avg_ms[p];
}

// "FP16 HWC8 → INT8 CHW32": input 0 and output 0 of a layer.
std::string io_formats(const EngineLayer& l) {
  return fmt::format("{} → {}", l.inputs.empty() ? "-" : l.inputs[0].short_format(),
                     l.outputs.empty() ? "-" : l.outputs[0].short_format());
}

// The per-plan values of a row, "a / b", or the one value when all agree.
template <class F>
std::string per_plan(const PlanComparison& c, const LayerMatch& m, bool differs, F value) {
  std::string s;
  for (size_t p = 0; p < c.plans.size(); ++p) {
    if (!differs && m.index[p] < 0) continue;
    std::string v = m.index[p] < 0 ? "-" : value(c.plans[p]->layers[m.index[p]]);
    if (!differs) return v;
    s += (p ? " / " : "") + (v.empty() ? std::string("?") : v);
  }
  return s;
}

}  // namespace

std::string render_engine_compare(const PlanComparison& c, OutputFormat f, size_t max_layers) {
  const size_t n = c.plans.size();
  auto tactic = [](const EngineLayer& l) { return l.tactic.empty() ? l.tactic_value : l.tactic; };
  auto precision = [](const EngineLayer& l) { return l.precision; };
  if (f == OutputFormat::Json) {
    json j;
    j["schema_version"] = kEngineSchemaVersion;
    json plans = json::array();
    for (size_t p = 0; p < n; ++p) {
      const auto& e = c.end_to_end[p];
      plans.push_back({{"plan", c.plans[p]->name},
                       {"label", c.labels[p]},
                       {"layers", c.layer_counts[p]},
                       {"total_latency_ms", c.total_ms[p]},
                       {"end_to_end",
                        {{"layers_sum_ms", e.layers_ms},
                         {"timing_median_ms", opt_json(e.median_ms)},
                         {"timing_mean_ms", opt_json(e.mean_ms)},
                         {"trtexec_mean_ms", opt_json(e.trtexec_mean_ms)},
                         {"throughput_qps", opt_json(e.throughput_qps)}}},
                       {"partial", c.plans[p]->partial()},
                       {"notes", c.plans[p]->notes}});
    }
    j["plans"] = plans;
    json bt = json::array();
    for (size_t t = 0; t < c.types.size(); ++t)
      bt.push_back({{"type", c.types[t]}, {"count", c.type_count[t]}, {"latency_ms", c.type_ms[t]}});
    j["by_type"] = bt;
    json bp = json::array();
    for (size_t t = 0; t < c.precisions.size(); ++t)
      bp.push_back({{"precision", c.precisions[t]}, {"count", c.precision_count[t]}, {"latency_ms", c.precision_ms[t]}});
    j["by_precision"] = bp;
    json ls = json::array();
    for (const auto& m : c.layers) {
      json v = json::array(), sp = json::array(), per = json::array();
      for (size_t p = 0; p < n; ++p) {
        v.push_back(opt_json(m.avg_ms[p]));
        sp.push_back(opt_json(speedup(m, p)));
        if (m.index[p] < 0) {
          per.push_back(nullptr);
          continue;
        }
        const auto& l = c.plans[p]->layers[m.index[p]];
        json ins = json::array(), outs = json::array();
        for (const auto& t : l.inputs) ins.push_back(t.short_format());
        for (const auto& t : l.outputs) outs.push_back(t.short_format());
        per.push_back({{"index", m.index[p]}, {"name", l.name}, {"precision", l.precision}, {"tactic", tactic(l)},
                       {"inputs", ins}, {"outputs", outs}});
      }
      ls.push_back({{"name", m.name},
                    {"type", m.type},
                    {"matched_by", m.matched_by},
                    {"latency_ms", v},
                    {"speedup", sp},
                    {"differs", {{"precision", m.precision_differs}, {"tactic", m.tactic_differs}, {"format", m.format_differs}}},
                    {"plans", per}});
    }
    j["layers"] = ls;
    j["matched_in_all"] = c.matched_in_all;
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (f == OutputFormat::Csv) {
    // One long-form table: a row per (section, key, plan).
    Table t{{"section", "name", "plan", "count", "latency_ms"}, {}, {}};
    for (size_t p = 0; p < n; ++p)
      t.rows.push_back({"total", "", c.labels[p], std::to_string(c.layer_counts[p]), fixed(c.total_ms[p])});
    for (size_t i = 0; i < c.types.size(); ++i)
      for (size_t p = 0; p < n; ++p)
        t.rows.push_back({"type", c.types[i], c.labels[p], std::to_string(c.type_count[i][p]), fixed(c.type_ms[i][p])});
    for (size_t i = 0; i < c.precisions.size(); ++i)
      for (size_t p = 0; p < n; ++p)
        t.rows.push_back({"precision", c.precisions[i], c.labels[p], std::to_string(c.precision_count[i][p]),
                          fixed(c.precision_ms[i][p])});
    for (const auto& m : c.layers)
      for (size_t p = 0; p < n; ++p)
        t.rows.push_back({"layer", m.index[p] < 0 ? m.name : c.plans[p]->layers[m.index[p]].name, c.labels[p],
                          m.index[p] < 0 ? "0" : "1", m.avg_ms[p] ? fixed(*m.avg_ms[p]) : ""});
    return to_csv(t);
  }
  const bool md = f == OutputFormat::Markdown;
  auto h = [&](const std::string& title) { return md ? "\n## " + title + "\n\n" : "\n" + title + "\n"; };
  std::vector<bool> num(n + 1, true);
  num[0] = false;
  std::vector<std::string> head{"metric"};
  for (const auto& l : c.labels) head.push_back(l);
  std::string o;
  Table tot{head, {}, num};
  auto row = [&](const char* what, auto cell) {
    std::vector<std::string> r{what};
    for (size_t p = 0; p < n; ++p) r.push_back(cell(p));
    tot.rows.push_back(std::move(r));
  };
  auto opt_ms = [](const std::optional<double>& v) { return v ? ms_text(*v) : std::string("-"); };
  row("layers", [&](size_t p) { return std::to_string(c.layer_counts[p]); });
  row("sum of layers, ms (profile.json)", [&](size_t p) { return ms_text(c.total_ms[p]); });
  row("vs first", [&](size_t p) {
    return c.total_ms[0] > 0 ? fmt::format("{:.2f}x", c.total_ms[p] / c.total_ms[0]) : std::string("-");
  });
  row("end-to-end median, ms (timing.json)", [&](size_t p) { return opt_ms(c.end_to_end[p].median_ms); });
  row("end-to-end mean, ms (trtexec summary)", [&](size_t p) { return opt_ms(c.end_to_end[p].trtexec_mean_ms); });
  row("throughput, qps (trtexec summary)", [&](size_t p) {
    const auto& q = c.end_to_end[p].throughput_qps;
    return q ? fmt::format("{:.1f}", *q) : std::string("-");
  });
  o += h("Totals") + table_out(tot, f);
  auto head_with = [&](const char* first) {
    auto x = head;
    x[0] = first;
    return x;
  };
  Table ty{head_with("type (ms / count)"), {}, num};
  for (size_t t = 0; t < c.types.size(); ++t) {
    std::vector<std::string> r{c.types[t]};
    for (size_t p = 0; p < n; ++p) r.push_back(fmt::format("{} / {}", ms_text(c.type_ms[t][p]), c.type_count[t][p]));
    ty.rows.push_back(r);
  }
  o += h("Latency per layer type") + table_out(ty, f);
  Table pr{head_with("precision (layers)"), {}, num};
  for (size_t t = 0; t < c.precisions.size(); ++t) {
    std::vector<std::string> r{c.precisions[t]};
    for (size_t p = 0; p < n; ++p)
      r.push_back(fmt::format("{} ({} ms)", c.precision_count[t][p], ms_text(c.precision_ms[t][p])));
    pr.rows.push_back(r);
  }
  o += h("Layers per precision") + table_out(pr, f);
  // Plans are numbered in the column heads: labels are long.
  Table ly{{"layer", "type", "matched"}, {}, {false, false, false}};
  for (size_t p = 0; p < n; ++p) ly.header.push_back(fmt::format("ms [{}]", p + 1)), ly.numeric.push_back(true);
  for (size_t p = 1; p < n; ++p) ly.header.push_back(fmt::format("speedup [{}]", p + 1)), ly.numeric.push_back(true);
  for (const char* x : {"precision", "tactic", "input 0 → output 0"}) ly.header.push_back(x), ly.numeric.push_back(false);
  size_t shown = 0;
  for (const auto& m : c.layers) {
    if (shown++ >= max_layers) break;
    std::vector<std::string> r{md ? m.name : shorten(m.name, 60), m.type, m.matched_by.empty() ? "-" : m.matched_by};
    for (const auto& x : m.avg_ms) r.push_back(x ? ms_text(*x) : "-");
    for (size_t p = 1; p < n; ++p) {
      auto s = speedup(m, p);
      r.push_back(s ? fmt::format("{:.2f}x", *s) : "-");
    }
    r.push_back(per_plan(c, m, m.precision_differs, precision));
    r.push_back(m.tactic_differs ? "differs" : "");
    r.push_back(per_plan(c, m, m.format_differs, io_formats));
    ly.rows.push_back(r);
  }
  int by_sig = 0, by_name = 0;
  for (const auto& m : c.layers) {
    by_sig += m.matched_by == "signature";
    by_name += m.matched_by == "name";
  }
  o += h(fmt::format("Layers ({} rows; {} in every plan; matched by type and shapes: {}, by name: {})", c.layers.size(),
                     c.matched_in_all, by_sig, by_name));
  for (size_t p = 0; p < n; ++p) o += fmt::format("{}[{}] {}{}", md ? "- " : "", p + 1, c.labels[p], md ? "\n" : "  ");
  o += md ? "\n" : "\n\n";
  o += table_out(ly, f);
  if (f == OutputFormat::Text && c.layers.size() > max_layers)
    o += fmt::format("... {} more layers (--max-layers, or --format json)\n", c.layers.size() - max_layers);
  return o;
}

}  // namespace trtlens
