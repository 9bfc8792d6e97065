// `trtlens engine ...`: explore built engines from trtexec's JSON files.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/app.h"
#include "cli/output.h"
#include "render/engine_render.h"
#include "render/table.h"
#include "trtlens/analysis.h"
#include "trtlens/compat.h"
#include "trtlens/engine.h"
#include "trtlens/kb.h"
#include "trtlens/model.h"
#include "trtlens/overlay.h"
#include "trtlens/error.h"
#include "util/files.h"
#include "util/utf8.h"

namespace trtlens::cli {

namespace {

// Where a plan's files come from: a prefix/graph/folder, or explicit paths.
struct PlanArgs {
  std::vector<std::string> plans;
  std::string graph, profile, timing, profile_metadata, build_metadata;
  std::vector<std::string> logs;
  int opt_profile = 0;
};

void add_plan_options(CLI::App* sub, PlanArgs& a, bool many) {
  auto* pos = sub->add_option("plan", a.plans,
                              many ? "plans: path prefixes (resnet.onnx.engine), graph.json files or folders"
                                   : "plan: path prefix (resnet.onnx.engine), its graph.json, or a folder");
  if (!many) pos->expected(0, 1);
  sub->add_option("--graph-json", a.graph, "graph.json path (trtexec --exportLayerInfo); overrides the plan's");
  sub->add_option("--profile-json", a.profile, "profile.json path (trtexec --exportProfile)");
  sub->add_option("--timing-json", a.timing, "timing.json path (trtexec --exportTimes)");
  sub->add_option("--profile-metadata", a.profile_metadata, "profile.metadata.json path");
  sub->add_option("--build-metadata", a.build_metadata, "build.metadata.json path");
  sub->add_option("--opt-profile", a.opt_profile, "optimization profile whose layers to show (default 0)");
  sub->add_option("--log", a.logs,
                  "a trtexec log (its console output) for builder settings, device and performance summary; "
                  "replaces the metadata files' sections it has; repeatable (build log, then profiling log); "
                  "default: <plan>.build.log and <plan>.profile.log when present");
}

std::vector<EnginePlan>& load_plans(const PlanArgs& a, size_t min_count) {
  std::vector<PlanFiles> files;
  for (const auto& p : a.plans) files.push_back(find_plan_files(p));
  if (!a.graph.empty()) {
    if (files.size() > 1) throw UsageError("--graph-json names one plan; give one plan or none");
    if (files.empty()) files.emplace_back();
    files[0] = PlanFiles{};
    files[0].graph = a.graph;
  }
  bool explicit_any = !a.profile.empty() || !a.timing.empty() || !a.profile_metadata.empty() ||
                      !a.build_metadata.empty() || !a.logs.empty();
  if (explicit_any) {
    if (files.size() != 1) throw UsageError("explicit file options apply to one plan");
    if (!a.profile.empty()) files[0].profile = a.profile;
    if (!a.timing.empty()) files[0].timing = a.timing;
    if (!a.profile_metadata.empty()) files[0].profile_metadata = a.profile_metadata;
    if (!a.build_metadata.empty()) files[0].build_metadata = a.build_metadata;
    if (!a.logs.empty()) files[0].logs = a.logs;  // given logs replace the ones found beside the plan
  }
  if (files.size() < min_count)
    throw UsageError(min_count == 1 ? "give a plan (path prefix, graph.json or folder) or --graph-json"
                                    : fmt::format("give at least {} plans", min_count));
  // The plans live until the process exits: they are deliberately never freed,
  // since tearing down 20,000 layers costs ~10% of a command's time for nothing.
  auto* plans = new std::vector<EnginePlan>();
  plans->reserve(files.size());
  for (const auto& f : files) plans->push_back(load_plan(f, LoadOptions{a.opt_profile}));
  return *plans;
}

bool want_color(const std::string& output) { return (output.empty() || output == "-") && stdout_wants_color(); }

// "type=Convolution", "precision=INT8", "name~Conv", "fused=yes", ...
bool layer_matches(const EngineLayer& l, const std::string& filter) {
  auto eq = filter.find('=');
  auto ti = filter.find('~');
  bool contains = ti != std::string::npos && (eq == std::string::npos || ti < eq);
  auto at = contains ? ti : eq;
  if (at == std::string::npos) throw UsageError("filter " + filter + ": expected key=value or key~text");
  std::string key = filter.substr(0, at), val = filter.substr(at + 1);
  std::string field;
  if (key == "type") field = l.type;
  else if (key == "subtype") field = l.subtype;
  else if (key == "precision") field = l.precision;
  else if (key == "name") field = l.name;
  else if (key == "origin") field = l.origin;
  else if (key == "tactic") field = l.tactic;
  else if (key == "fused") field = l.is_fused() ? "yes" : "no";
  else throw UsageError("filter key " + key + ": known keys are type, subtype, precision, name, origin, tactic, fused");
  if (contains) return field.find(val) != std::string::npos;
  // Case-insensitive equality: "int8" finds INT8.
  return field.size() == val.size() && std::equal(field.begin(), field.end(), val.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

}  // namespace

void add_engine_command(CLI::App& app, int& exit_code) {
  auto* eng = app.add_subcommand("engine", "Explore a built TensorRT engine from trtexec's JSON files (as TREx does)");
  eng->require_subcommand(1);

  // summary
  {
    auto a = std::make_shared<PlanArgs>();
    auto format = std::make_shared<std::string>("text");
    auto output = std::make_shared<std::string>();
    auto top = std::make_shared<int>(10);
    auto* s = eng->add_subcommand("summary", "Layers, latency by type and precision, slowest layers, reformats, "
                                             "fused layers, device and builder settings");
    add_plan_options(s, *a, false);
    s->add_option("--format", *format, "text, json, csv or markdown")->capture_default_str();
    s->add_option("--top", *top, "how many slowest layers to list")->capture_default_str();
    s->add_option("-o,--output", *output, "write to this file instead of stdout");
    s->callback([a, format, output, top, &exit_code] {
      auto f = parse_output_format(*format);
      auto& plans = load_plans(*a, 1);
      const auto& plan = plans[0];
      EngineAnalysis e = analyze_engine(plan, nullptr, KnowledgeBase::builtin(), "", std::nullopt, *top);
      emit(render_engine_summary(plan, e.summary, &e.findings, f, want_color(*output)), *output);
      exit_code = kExitOk;
    });
  }
  // layers
  {
    auto a = std::make_shared<PlanArgs>();
    auto format = std::make_shared<std::string>("text");
    auto output = std::make_shared<std::string>();
    auto sort = std::make_shared<std::string>("index");
    auto filters = std::make_shared<std::vector<std::string>>();
    auto limit = std::make_shared<size_t>(0);
    auto view = std::make_shared<std::string>("default");
    auto* s = eng->add_subcommand("layers", "The per-layer table: type, precision, tensors, tactic, latency; "
                                            "--view compute (MACs, implicit GEMM M/N/K, efficiency against the "
                                            "device peak) or memory (weights and activation bytes)");
    add_plan_options(s, *a, false);
    s->add_option("--format", *format, "text, json, csv or markdown")->capture_default_str();
    s->add_option("--sort", *sort, "index, latency, name, type, precision, macs or footprint (largest first)")
        ->capture_default_str();
    s->add_option("--view", *view, "text/markdown columns: default, compute or memory (json and csv carry all)")
        ->capture_default_str();
    s->add_option("--filter", *filters,
                  "keep layers where key=value (case-insensitive) or key~text; keys: type, subtype, precision, "
                  "name, origin, tactic, fused (yes/no); repeatable, all must hold");
    s->add_option("--limit", *limit, "show at most this many layers (0: all)");
    s->add_option("-o,--output", *output, "write to this file instead of stdout");
    s->callback([a, format, output, sort, filters, limit, view, &exit_code] {
      auto f = parse_output_format(*format);
      auto v = parse_layers_view(*view);
      const std::vector<std::string> keys{"index", "latency", "name", "type", "precision", "macs", "footprint"};
      if (std::find(keys.begin(), keys.end(), *sort) == keys.end())
        throw UsageError("unknown sort key " + *sort + "; known: index, latency, name, type, precision, macs, footprint");
      auto& plans = load_plans(*a, 1);
      const auto& plan = plans[0];
      const auto analysis = analyze_layers(plan);
      std::vector<size_t> rows;
      for (size_t i = 0; i < plan.layers.size(); ++i) {
        bool ok = true;
        for (const auto& flt : *filters) ok = ok && layer_matches(plan.layers[i], flt);
        if (ok) rows.push_back(i);
      }
      if (v == LayersView::Compute)  // the compute columns exist for convolutions and GEMMs only
        std::erase_if(rows, [&](size_t i) { return !analysis.layers[i].compute; });
      const auto& L = plan.layers;
      if (*sort == "latency")
        std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) { return L[x].avg_ms > L[y].avg_ms; });
      else if (*sort == "name")
        std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) { return L[x].name < L[y].name; });
      else if (*sort == "type")
        std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) { return L[x].type < L[y].type; });
      else if (*sort == "precision")
        std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) { return L[x].precision < L[y].precision; });
      else if (*sort == "macs") {
        auto macs = [&](size_t i) { return analysis.layers[i].compute ? analysis.layers[i].compute->macs : -1; };
        std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) { return macs(x) > macs(y); });
      } else if (*sort == "footprint")
        std::stable_sort(rows.begin(), rows.end(), [&](size_t x, size_t y) {
          return analysis.layers[x].footprint_bytes > analysis.layers[y].footprint_bytes;
        });
      if (*limit > 0 && rows.size() > *limit) rows.resize(*limit);
      emit(render_engine_layers(plan, analysis, rows, f, v), *output);
      exit_code = kExitOk;
    });
  }
  // lint
  {
    auto a = std::make_shared<PlanArgs>();
    auto format = std::make_shared<std::string>("text");
    auto output = std::make_shared<std::string>();
    auto only = std::make_shared<std::vector<std::string>>();
    auto fail_on = std::make_shared<std::string>("none");
    auto list = std::make_shared<bool>(false);
    auto* s = eng->add_subcommand("lint", "Linters in the spirit of TREx's: convolutions, Q/DQ, reformats, "
                                          "slices, slow layers");
    add_plan_options(s, *a, false);
    s->add_option("--format", *format, "text, json, csv or markdown")->capture_default_str();
    s->add_option("--linter", *only, "run only these linters (repeatable); see --list");
    s->add_flag("--list", *list, "list the linters and exit");
    s->add_option("--fail-on", *fail_on, "exit 1 when a finding is at least this severe: none, info, warning, error")
        ->capture_default_str();
    s->add_option("-o,--output", *output, "write to this file instead of stdout");
    s->callback([a, format, output, only, fail_on, list, &exit_code] {
      if (*list) {
        for (const auto& l : linters()) fmt::print("{:<24} {}\n", l.name, l.description);
        exit_code = kExitOk;
        return;
      }
      auto f = parse_output_format(*format);
      // The least severe level named is the threshold.
      std::vector<bool> levels = parse_choices("--fail-on", *fail_on, {"info", "warning", "error"});
      int threshold = static_cast<int>(std::find(levels.begin(), levels.end(), true) - levels.begin());
      if (threshold == 3) threshold = -1;
      auto& plans = load_plans(*a, 1);
      auto findings = lint(plans[0], *only);
      emit(render_engine_lint(plans[0], findings, f, want_color(*output)), *output);
      exit_code = kExitOk;
      for (const auto& x : findings)
        if (threshold >= 0 && static_cast<int>(x.severity) >= threshold) exit_code = kExitFailOn;
    });
  }
  // compare
  {
    auto a = std::make_shared<PlanArgs>();
    auto format = std::make_shared<std::string>("text");
    auto output = std::make_shared<std::string>();
    auto max_layers = std::make_shared<size_t>(40);
    auto labels = std::make_shared<std::vector<std::string>>();
    auto mismatch = std::make_shared<std::vector<std::string>>();
    auto* s = eng->add_subcommand("compare", "Plans side by side: totals and end-to-end latency, latency per layer "
                                             "type, layers per precision, and the layer diff (layers aligned by type "
                                             "and shapes, then by name)");
    add_plan_options(s, *a, true);
    s->add_option("--format", *format, "text, json, csv or markdown")->capture_default_str();
    s->add_option("--max-layers", *max_layers, "layer rows to list in text output")->capture_default_str();
    s->add_option("--label", *labels, "a name per plan, in order (repeatable); default: file name, with its folder "
                                      "when names repeat");
    s->add_option("--mismatch", *mismatch, "list only layer rows that differ in: precision (of any input or output), tactic, format, or "
                                           "unmatched (in some plans only); repeatable, any may hold")
        ->delimiter(',');
    s->add_option("-o,--output", *output, "write to this file instead of stdout");
    s->callback([a, format, output, max_layers, labels, mismatch, &exit_code] {
      auto f = parse_output_format(*format);
      if (!a->graph.empty()) throw UsageError("compare takes plans, not --graph-json");
      for (const auto& m : *mismatch)
        if (m != "precision" && m != "tactic" && m != "format" && m != "unmatched")
          throw UsageError("--mismatch " + m + ": expected precision, tactic, format or unmatched");
      auto& plans = load_plans(*a, 2);
      if (labels->size() > plans.size())
        throw UsageError(fmt::format("{} labels for {} plans", labels->size(), plans.size()));
      std::vector<const EnginePlan*> ptrs;
      for (const auto& p : plans) ptrs.push_back(&p);
      auto c = compare_plans(ptrs, *labels);
      if (!mismatch->empty()) {
        auto wanted = [&](const char* k) { return std::find(mismatch->begin(), mismatch->end(), k) != mismatch->end(); };
        std::erase_if(c.layers, [&](const LayerMatch& m) {
          bool unmatched = std::count(m.index.begin(), m.index.end(), -1) > 0;
          return !((wanted("precision") && m.precision_differs) || (wanted("tactic") && m.tactic_differs) ||
                   (wanted("format") && m.format_differs) || (wanted("unmatched") && unmatched));
        });
      }
      emit(render_engine_compare(c, f, f == OutputFormat::Text ? *max_layers : static_cast<size_t>(-1)), *output);
      exit_code = kExitOk;
    });
  }
  // graph
  {
    auto a = std::make_shared<PlanArgs>();
    auto output = std::make_shared<std::string>();
    auto opt = std::make_shared<EngineGraphOptions>();
    auto force = std::make_shared<bool>(false);
    auto* s = eng->add_subcommand("graph", "The plan's data-dependency graph through Graphviz (svg, png, pdf or dot, "
                                           "by the output's extension): layers coloured by type or precision, "
                                           "tensors coloured by precision");
    add_plan_options(s, *a, false);
    s->add_option("-o,--output", *output, "file to write: .svg, .png, .pdf or .dot")->required();
    s->add_option("--color-by", opt->color_by, "layer colour: type or precision")->capture_default_str();
    s->add_option("--highlight", opt->highlight, "outline the layers whose name matches this regular expression (RE2 syntax)");
    s->add_option("--select", opt->select, "draw only the layers whose name matches this regular expression (RE2 syntax; and --hops around them)");
    s->add_option("--hops", opt->hops, "with --select: also draw layers this many data edges away")->capture_default_str();
    s->add_flag("--force", *force,
                fmt::format("lay out more than {} layers anyway (Graphviz: minutes; 20,000 layers take over 300 s)",
                            kEngineGraphMaxLayers));
    s->callback([a, output, opt, force, &exit_code] {
      // The format comes from the extension; checked before any work.
      std::string ext = std::filesystem::path(*output).extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
      if (ext != ".svg" && ext != ".png" && ext != ".pdf" && ext != ".dot" && ext != ".gv")
        throw UsageError("engine graph -o " + *output + ": unknown extension; use .svg, .png, .pdf or .dot");
      if (opt->hops < 0) throw UsageError("--hops must be 0 or more");
      if (opt->hops > 0 && opt->select.empty()) throw UsageError("--hops needs --select");
      auto& plans = load_plans(*a, 1);
      const bool layout = ext != ".dot" && ext != ".gv";  // DOT text is not laid out
      opt->max_layers = layout && !*force ? kEngineGraphMaxLayers : 0;
      auto graph = engine_dot_graph(plans[0], *opt);
      // Graphviz reports no progress: say what is coming, and when it is done.
      const bool slow = layout && graph.nodes.size() > kEngineGraphMaxLayers;
      const auto start = std::chrono::steady_clock::now();
      if (slow)
        fmt::print(stderr,
                   "engine graph: laying out {} boxes (layers, engine inputs and outputs) with Graphviz (--force); "
                   "this takes minutes...\n",
                   graph.nodes.size());
      std::string bytes;
      try {
        bytes = render_graph(graph, ext == ".gv" ? "dot" : ext.substr(1));
      } catch (const std::runtime_error& e) {
        throw InputError(plans[0].files.graph, std::string("cannot draw the graph: ") + e.what());
      }
      if (slow)
        fmt::print(stderr, "engine graph: laid out in {:.1f} s\n",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      write_file_atomic(*output, bytes);
      for (const auto& n : plans[0].notes) fmt::print(stderr, "note: {}\n", escape_controls(n));
      exit_code = kExitOk;
    });
  }
  // report
  {
    auto a = std::make_shared<PlanArgs>();
    auto output = std::make_shared<std::string>();
    auto graph_max = std::make_shared<size_t>(1500);
    auto region_layers = std::make_shared<size_t>(500);
    auto labels = std::make_shared<std::vector<std::string>>();
    auto model = std::make_shared<std::string>();
    auto release = std::make_shared<std::string>();
    auto precision = std::make_shared<std::string>();
    auto* s = eng->add_subcommand("report", "A self-contained HTML report card of one or more plans (no network)");
    add_plan_options(s, *a, true);
    s->add_option("--model", *model,
                  "the ONNX model the plans were built from: each plan's page lists the layer, precision and time "
                  "of every node, and where check's prediction disagrees");
    s->add_option("--trt", *release, "with --model: TensorRT release to compare with (default: the engine's, when "
                                     "its metadata records it, else the newest)");
    s->add_option("--precision", *precision, "with --model: precision to compare with (default: the build's)");
    s->add_option("--label", *labels, "a name per plan, in order (repeatable); default: file name, with its folder "
                                      "when names repeat");
    s->add_option("-o,--output", *output, "HTML file to write")->required();
    s->add_option("--graph-max-layers", *graph_max,
                  "draw the graph in one piece up to this many layers; larger plans in regions, one shown at a time")
        ->capture_default_str();
    s->add_option("--region-layers", *region_layers, "layers per graph region of a larger plan")->capture_default_str();
    s->callback([a, output, graph_max, region_layers, labels, model, release, precision, &exit_code] {
      if (*region_layers == 0) throw UsageError("--region-layers must be at least 1");
      if (model->empty() && (!release->empty() || !precision->empty()))
        throw UsageError("--trt and --precision compare with a model's prediction: give --model");
      std::optional<Precision> asked;
      if (!precision->empty()) asked = parse_precision(*precision);
      if (!release->empty()) KnowledgeBase::builtin().resolve(*release);
      auto& plans = load_plans(*a, 1);
      if (labels->size() > plans.size())
        throw UsageError(fmt::format("{} labels for {} plans", labels->size(), plans.size()));
      std::optional<Model> m;
      if (!model->empty()) m = load_model(*model);
      std::vector<EngineAnalysis> analyses;
      for (const auto& p : plans)
        analyses.push_back(analyze_engine(p, m ? &*m : nullptr, KnowledgeBase::builtin(), *release, asked));
      std::vector<const EngineAnalysis*> ptrs;
      for (const auto& e : analyses) ptrs.push_back(&e);
      write_file_atomic(*output, render_engine_report(ptrs, *graph_max, *labels, *region_layers));
      exit_code = kExitOk;
    });
  }
}

}  // namespace trtlens::cli
