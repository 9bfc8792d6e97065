// The engine report card: one self-contained HTML page (template, CSS and JS
// from web/engine_report.*, embedded at build time; data inlined as JSON).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "render/overlay_output.h"
#include "trtlens/analysis.h"
#include <set>
#include <unordered_map>

#include "engine/internal.h"
#include "render/engine_render.h"
#include "render/graphviz.h"
#include "render/html.h"
#include "util/embedded.h"

using json = nlohmann::ordered_json;

namespace trtlens {

namespace {


// JSON inside <script>: "</" would close the element early.
std::string script_safe(std::string s) {
  size_t p = 0;
  while ((p = s.find("</", p)) != std::string::npos) {
    s.replace(p, 2, "<\\/");
    p += 3;
  }
  return s;
}


// Fills {{NAME}} placeholders of the template in one pass, so substituted
// text (layer names, SVG) is never scanned for placeholders again.
std::string fill(std::string_view tpl, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  out.reserve(tpl.size());
  size_t p = 0;
  while (p < tpl.size()) {
    size_t a = tpl.find("{{", p);
    if (a == std::string_view::npos) break;
    size_t b = tpl.find("}}", a + 2);
    if (b == std::string_view::npos) break;
    std::string_view key = tpl.substr(a + 2, b - a - 2);
    const std::string* v = nullptr;
    for (const auto& [k, val] : values)
      if (k == key) v = &val;
    out.append(tpl.substr(p, a - p));
    if (v) out += *v;
    else out.append(tpl.substr(a, b + 2 - a));
    p = b + 2;
  }
  out.append(tpl.substr(p));
  return out;
}

// Items a region's drawing is made of (web/engine_report.js knows these codes).
enum ItemKind { kLayer = 0, kInput = 1, kOutput = 2, kFromRegion = 3, kToRegion = 4 };

// Box width in points from the label's length, so Graphviz needs no fonts:
// the page writes the name (cut to fit) over the type and latency.
double box_width(const EngineLayer& l) {
  size_t chars = std::max<size_t>(std::min<size_t>(l.name.size(), 34), l.type.size() + 20);  // "Type · FP16 · 0.0123 ms"
  return std::clamp(static_cast<double>(chars) * 6.2 + 16, 90.0, 230.0);
}

// The plan's graph as the page draws it: regions of consecutive layers, each
// laid out by dot on its own. Per region: {w, h, items: [[kind, ref, x, y, w,
// h]], edges: [[from item, to item, tensor, [x0, y0, ...B-spline points...,
// tip x, tip y]]]}. An item's ref is a layer index (kLayer), a tensor index
// (kInput, kOutput) or a region (kFromRegion, kToRegion). Tensors: [name,
// dims, short format, precision].
json graph_json(const EnginePlan& plan, size_t graph_max_layers, size_t region_layers) {
  const size_t n = plan.layers.size();
  const size_t per = n <= graph_max_layers ? std::max<size_t>(n, 1) : std::max<size_t>(region_layers, 1);
  const size_t regions = std::max<size_t>((n + per - 1) / per, 1);
  auto region_of = [&](int layer) { return static_cast<size_t>(layer) / per; };
  json tensors = json::array();
  std::unordered_map<std::string_view, int> by_name;
  auto tensor = [&](const EngineTensor* t) {
    auto [it, fresh] = by_name.try_emplace(t->name, static_cast<int>(tensors.size()));
    if (fresh) tensors.push_back({t->name, engine_detail::dims_text(t->dims), t->short_format(), t->precision});
    return it->second;
  };
  struct Item {
    int kind, ref;
    double w, h;
  };
  struct Edge {
    int from, to, tensor;
  };
  std::vector<std::vector<Item>> items(regions);
  std::vector<std::vector<Edge>> edges(regions);
  std::vector<int> layer_item(n, -1);
  for (size_t i = 0; i < n; ++i) {
    auto& list = items[region_of(static_cast<int>(i))];
    layer_item[i] = static_cast<int>(list.size());
    list.push_back({kLayer, static_cast<int>(i), box_width(plan.layers[i]), 40});
  }
  // Engine inputs and outputs and neighbouring regions: one item per
  // (region, kind, ref), whatever the edges that use it.
  std::vector<std::map<std::pair<int, int>, int>> extra(regions);
  auto item = [&](size_t r, int kind, int ref, double w) {
    auto [it, fresh] = extra[r].try_emplace({kind, ref}, static_cast<int>(items[r].size()));
    if (fresh) items[r].push_back({kind, ref, w, 26});
    return it->second;
  };
  auto name_width = [](const std::string& s) { return std::clamp(static_cast<double>(std::min<size_t>(s.size(), 30)) * 6.2 + 40, 80.0, 230.0); };
  for (const auto& e : index_plan(plan).edges) {
    const int t = tensor(e.tensor);
    if (e.from < 0 || e.to < 0) {
      const int layer = e.from < 0 ? e.to : e.from;
      const size_t r = region_of(layer);
      int io = item(r, e.from < 0 ? kInput : kOutput, t, name_width(e.tensor->name));
      edges[r].push_back(e.from < 0 ? Edge{io, layer_item[layer], t} : Edge{layer_item[layer], io, t});
      continue;
    }
    const size_t rf = region_of(e.from), rt = region_of(e.to);
    if (rf == rt) {
      edges[rf].push_back({layer_item[e.from], layer_item[e.to], t});
    } else {
      // Execution order: data crosses from an earlier region to a later one.
      edges[rt].push_back({item(rt, kFromRegion, static_cast<int>(rf), 110), layer_item[e.to], t});
      edges[rf].push_back({layer_item[e.from], item(rf, kToRegion, static_cast<int>(rt), 110), t});
    }
  }
  json out_regions = json::array();
  for (size_t r = 0; r < regions; ++r) {
    // A pair of items joined once: several tensors between two layers are one edge to lay out.
    std::set<std::pair<int, int>> seen;
    std::vector<Edge> unique;
    for (const auto& e : edges[r])
      if (seen.emplace(e.from, e.to).second) unique.push_back(e);
    DotGraph dg;
    dg.graph_attrs = {{"rankdir", "TB"}, {"nodesep", "0.25"}, {"ranksep", "0.35"}};
    dg.node_defaults = {{"shape", "box"}, {"fixedsize", "true"}, {"label", ""}};
    for (size_t k = 0; k < items[r].size(); ++k)
      dg.nodes.push_back({"i" + std::to_string(k),
                          {{"width", fmt::format("{:.3f}", items[r][k].w / 72.0)},
                           {"height", fmt::format("{:.3f}", items[r][k].h / 72.0)}}});
    for (const auto& e : unique) dg.edges.push_back({"i" + std::to_string(e.from), "i" + std::to_string(e.to), {}});
    GraphLayout lay = items[r].empty() ? GraphLayout{} : layout_graph(dg);
    json ji = json::array();
    for (size_t k = 0; k < items[r].size(); ++k) {
      const auto& b = lay.nodes[k];
      ji.push_back({items[r][k].kind, items[r][k].ref, std::lround(b.x), std::lround(b.y), std::lround(items[r][k].w),
                    std::lround(items[r][k].h)});
    }
    json je = json::array();
    for (size_t k = 0; k < unique.size(); ++k) {
      json pts = json::array();
      for (const auto& [x, y] : lay.edges[k].points) pts.push_back(std::lround(x)), pts.push_back(std::lround(y));
      if (!lay.edges[k].points.empty())
        pts.push_back(std::lround(lay.edges[k].arrow_tip.first)), pts.push_back(std::lround(lay.edges[k].arrow_tip.second));
      je.push_back({unique[k].from, unique[k].to, unique[k].tensor, std::move(pts)});
    }
    out_regions.push_back({{"w", std::lround(lay.width)}, {"h", std::lround(lay.height)}, {"items", std::move(ji)},
                           {"edges", std::move(je)}});
  }
  return {{"region_layers", per}, {"tensors", std::move(tensors)}, {"regions", std::move(out_regions)}};
}

// trtexec's performance summary as a table: per metric min, max, mean,
// median (ms) and the percentiles a log names ([[percent, ms]]; the metadata
// file's are unnamed and left out). Null without a summary.
json perf_json(const EnginePlan& plan) {
  if (!plan.perf) return nullptr;
  const auto& p = *plan.perf;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json rows = json::array();
  for (auto [name, stat] : {std::pair{"Latency", &p.latency}, std::pair{"GPU Compute Time", &p.gpu_compute},
                            std::pair{"Enqueue Time", &p.enqueue}, std::pair{"H2D Latency", &p.h2d},
                            std::pair{"D2H Latency", &p.d2h}}) {
    if (!*stat) continue;
    const auto& st = **stat;
    json pct = json::array();
    for (const auto& [q, ms] : st.percentiles) pct.push_back({q, ms});
    rows.push_back({name, opt(st.min), opt(st.max), opt(st.mean), opt(st.median), std::move(pct)});
  }
  return {{"throughput_qps", opt(p.throughput_qps)}, {"host_walltime_s", opt(p.host_walltime_s)},
          {"gpu_compute_total_s", opt(p.gpu_compute_total_s)}, {"rows", std::move(rows)}};
}

// timing.json for the per-iteration plot: its figures, and the latencies as
// [iteration, ms] points; past kMaxPoints iterations each bucket keeps its
// lowest and highest (in order), so spikes survive. Null without the file.
json timing_json(const EnginePlan& plan) {
  if (!plan.timing) return nullptr;
  const auto& t = *plan.timing;
  constexpr size_t kMaxPoints = 4000;
  const auto& lat = t.latencies_ms;
  json pts = json::array();
  if (lat.size() <= kMaxPoints) {
    for (size_t i = 0; i < lat.size(); ++i) pts.push_back({i, lat[i]});
  } else {
    const size_t buckets = kMaxPoints / 2;
    for (size_t b = 0; b < buckets; ++b) {
      size_t lo = b * lat.size() / buckets, hi = (b + 1) * lat.size() / buckets;
      if (lo >= hi) continue;
      auto [mn, mx] = std::minmax_element(lat.begin() + static_cast<std::ptrdiff_t>(lo), lat.begin() + static_cast<std::ptrdiff_t>(hi));
      size_t i = static_cast<size_t>(mn - lat.begin()), k = static_cast<size_t>(mx - lat.begin());
      if (i > k) std::swap(i, k);
      pts.push_back({i, lat[i]});
      if (k != i) pts.push_back({k, lat[k]});
    }
  }
  return {{"iterations", t.iterations}, {"mean", t.mean_ms}, {"median", t.median_ms}, {"p90", t.p90_ms},
          {"p99", t.p99_ms}, {"min", t.min_ms}, {"max", t.max_ms}, {"points", std::move(pts)}};
}

// The comparison of several plans, as `engine compare` computes it: totals and
// end-to-end figures, latency and count per type, layers per precision, and
// the aligned layer diff. Rows: [name, type, matched_by, [ms per plan],
// [input precisions per plan], [output precisions per plan], [tactic per plan],
// flags (1 input precision, 2 output precision, 4 tactic, 8 format differ;
// 16 in some plans only)]; absent entries are null.
json comparison_json(const std::vector<const EnginePlan*>& plans, const std::vector<std::string>& labels) {
  const PlanComparison c = compare_plans(plans, labels);
  const size_t n = plans.size();
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json e2e = json::array();
  for (size_t p = 0; p < n; ++p) {
    const auto& e = c.end_to_end[p];
    e2e.push_back({{"layers", c.layer_counts[p]}, {"layers_ms", e.layers_ms}, {"timing_median_ms", opt(e.median_ms)},
                   {"timing_mean_ms", opt(e.mean_ms)}, {"trtexec_mean_ms", opt(e.trtexec_mean_ms)},
                   {"trtexec_median_ms", opt(e.trtexec_median_ms)}, {"throughput_qps", opt(e.throughput_qps)}});
  }
  json types = json::array();
  for (size_t t = 0; t < c.types.size(); ++t) types.push_back({c.types[t], c.type_ms[t], c.type_count[t]});
  json precs = json::array();
  for (size_t t = 0; t < c.precisions.size(); ++t)
    precs.push_back({c.precisions[t], c.precision_count[t], c.precision_ms[t]});
  json rows = json::array();
  for (const auto& m : c.layers) {
    json ms = json::array(), in = json::array(), out = json::array(), tac = json::array();
    for (size_t p = 0; p < n; ++p) {
      ms.push_back(opt(m.avg_ms[p]));
      if (m.index[p] < 0) {
        in.push_back(nullptr), out.push_back(nullptr), tac.push_back(nullptr);
        continue;
      }
      const auto& l = plans[p]->layers[static_cast<size_t>(m.index[p])];
      in.push_back(input_precisions(l));
      out.push_back(output_precisions(l));
      tac.push_back(l.tactic.empty() ? l.tactic_value : l.tactic);
    }
    const bool unmatched = std::count(m.index.begin(), m.index.end(), -1) > 0;
    const int flags = (m.input_precision_differs ? 1 : 0) | (m.output_precision_differs ? 2 : 0) |
                      (m.tactic_differs ? 4 : 0) | (m.format_differs ? 8 : 0) | (unmatched ? 16 : 0);
    rows.push_back({m.name, m.type, m.matched_by, std::move(ms), std::move(in), std::move(out), std::move(tac), flags});
  }
  return {{"labels", c.labels}, {"end_to_end", std::move(e2e)}, {"types", std::move(types)},
          {"precisions", std::move(precs)}, {"rows", std::move(rows)}, {"matched_in_all", c.matched_in_all}};
}

json plan_data(const EngineAnalysis& e, const std::string& label, size_t graph_max_layers, size_t region_layers) {
  const EnginePlan& plan = *e.plan;
  const EngineSummary& s = e.summary;
  const std::vector<Finding>& findings = e.findings;
  const auto& a = s.analysis;
  json j;
  j["name"] = label;
  j["plan"] = plan.name;
  j["layout"] = plan.layout;
  j["layout_detail"] = plan.layout_detail.describe();
  j["partial"] = plan.partial();
  j["notes"] = plan.notes;
  j["layers_count"] = s.layers;
  j["noops_folded"] = plan.noops_folded;
  j["total_ms"] = s.total_latency_ms;
  j["has_profile"] = plan.has_profile;
  auto groups = [](const std::vector<GroupStat>& g) {
    json arr = json::array();
    for (const auto& x : g) arr.push_back({x.key, x.count, x.latency_ms, x.percent});
    return arr;
  };
  j["by_type"] = groups(s.by_type);
  j["by_precision"] = groups(s.by_precision);
  j["by_tactic"] = groups(s.by_tactic);
  j["reformats_by_origin"] = groups(s.reformats_by_origin);
  json pw = json::array();
  for (const auto& p : s.pointwise) pw.push_back({p.n_operations, p.count, p.latency_ms, p.percent, p.ms_per_operation});
  j["pointwise"] = pw;
  // Per layer: name, type, precision, ms, %, output precision, tactic, weights bytes, activation bytes (in + out),
  // Q/DQ (1: a reformat of Origin QDQ, which TREx colours as Quantize: trex/graphing.py:604), stream (-1: none).
  json layers = json::array();
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const auto& l = plan.layers[i];
    const auto& st = a.layers[i];
    layers.push_back({l.name, l.type, l.precision, l.avg_ms, l.percent, l.outputs.empty() ? "" : l.outputs[0].precision,
                      l.tactic, l.weights_bytes, engine_detail::saturating_add(st.input_bytes, st.output_bytes),
                      l.is_reformat() && l.origin == "QDQ" ? 1 : 0, l.stream_id});
  }
  j["layers"] = std::move(layers);
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  // Convolutions and GEMMs, slowest first: name, type, precision, M, N, K, MACs,
  // MACs/byte, ms, GFLOP/s, % of compute peak, GB/s, % of memory peak.
  std::vector<const LayerStats*> cs;
  for (const auto& st : a.layers)
    if (st.compute) cs.push_back(&st);
  std::stable_sort(cs.begin(), cs.end(), [](const LayerStats* x, const LayerStats* y) { return x->layer->avg_ms > y->layer->avg_ms; });
  json rows = json::array();
  for (const auto* st : cs) {
    const auto& c = *st->compute;
    rows.push_back({st->layer->name, st->layer->type, st->layer->precision, opt(c.gemm_m), opt(c.gemm_n),
                    opt(c.gemm_k), c.macs, c.arithmetic_intensity, st->layer->avg_ms, opt(c.gflops),
                    opt(c.compute_efficiency), opt(st->gbps), opt(st->memory_efficiency)});
  }
  json peaks = json::array();
  for (const auto& [p, g] : a.peaks.compute_gflops) peaks.push_back({p, g});
  j["compute"] = {{"layers", a.compute_layers}, {"macs", a.macs}, {"ms", a.compute_ms}, {"gflops", opt(a.gflops)},
                  {"rows", rows}, {"peaks", peaks}, {"compute_basis", a.peaks.compute_basis},
                  {"memory_gbps", opt(a.peaks.memory_gbps)}, {"memory_basis", a.peaks.memory_basis}};
  j["memory"] = {s.weights_bytes, s.bias_bytes, s.tensor_bytes, s.layer_io_bytes};
  json io = json::array();
  for (const auto& t : plan.io) io.push_back({t.mode, t.name, engine_detail::dims_text(t.dims), t.format});
  j["io"] = io;
  json logs = json::array();
  for (const auto& l : plan.logs) logs.push_back({l.file, l.tensorrt_version, l.result, l.command});
  j["logs"] = logs;
  j["sources"] = {plan.device_source, plan.builder_source, plan.performance_source};
  json rf = json::array();
  for (const auto& r : s.reformats) rf.push_back({r.layer->name, r.layer->origin, r.from, r.to, r.layer->avg_ms, r.reason});
  j["reformats"] = rf;
  j["reformat"] = {s.reformat_count, s.reformat_ms, s.reformat_percent};
  json sl = json::array();
  for (const auto* l : s.slowest) sl.push_back({l->name, l->type, l->precision, l->avg_ms, l->percent});
  j["slowest"] = sl;
  j["fused"] = s.fused.size();
  json fd = json::array();
  for (const auto& f : findings) fd.push_back({severity_name(f.severity), f.linter, f.layer, f.message, f.suggestion});
  j["findings"] = fd;
  json kv = json::array();
  for (const auto& [k, v] : plan.device) kv.push_back({k, device_value_text(k, v)});
  j["device"] = kv;
  kv = json::array();
  for (const auto& [k, v] : plan.builder) kv.push_back({k, v});
  j["builder"] = kv;
  kv = json::array();
  for (const auto& [k, v] : plan.performance) kv.push_back({k, v});
  if (plan.perf) {
    for (const auto& w : plan.perf->warnings) kv.push_back({"warning", w});
    if (plan.perf->warnings_left_out > 0)
      kv.push_back({"warning", fmt::format("... and {} more", plan.perf->warnings_left_out)});
  }
  j["performance"] = kv;
  j["perf"] = perf_json(plan);
  j["timing"] = timing_json(plan);
  try {
    j["graph"] = graph_json(plan, graph_max_layers, region_layers);
  } catch (const std::runtime_error& e) {  // Graphviz failed: the rest of the report stands
    j["graph"] = {{"error", std::string("the graph could not be laid out: ") + e.what()}};
  }
  return j;
}

}  // namespace

std::string render_engine_report(const std::vector<const EngineAnalysis*>& engines, size_t graph_max_layers,
                                 const std::vector<std::string>& labels, size_t region_layers) {
  std::vector<const EnginePlan*> plans;
  for (const EngineAnalysis* e : engines) plans.push_back(e->plan);
  const auto names = plan_labels(plans, labels);
  json data;
  data["schema_version"] = kEngineSchemaVersion;
  data["trtlens_version"] = trtlens_version();
  data["kb_fingerprint"] = KnowledgeBase::builtin().fingerprint();
  json ps = json::array();
  for (size_t i = 0; i < engines.size(); ++i) {
    const EngineAnalysis& e = *engines[i];
    ps.push_back(plan_data(e, names[i], graph_max_layers, region_layers));
    if (e.overlay)
      ps.back()["overlay"] =
          overlay_document({e.model, e.plan, &e.overlay->overlay, &e.overlay->check, &e.overlay->predicted});
  }
  data["plans"] = std::move(ps);
  if (plans.size() > 1) data["comparison"] = comparison_json(plans, labels);
  std::string title = plans.size() == 1 ? "Engine report: " + names[0]
                                        : fmt::format("Engine report: {} plans", plans.size());
  return fill(embedded_file("web/engine_report.html"),
              {{"TITLE", html_escape(title)},
               {"CSS", std::string(embedded_file("web/engine_report.css"))},
               {"JS", script_safe(std::string(embedded_file("web/engine_report.js")))},
               {"DATA", json_for_script(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))}});
}

}  // namespace trtlens
