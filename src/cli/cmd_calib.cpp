// trtlens calib CACHE: an INT8 calibration cache, its version, and whether a release can use it.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/app.h"
#include "render/table.h"
#include "trt_env/cli_common.h"
#include "trtlens/model.h"
#include "trtlens/trt_env.h"

namespace trtlens::cli {
namespace {

using nlohmann::json;

struct CalibOptions {
  std::string cache, trt, model, format = "text";
  SearchFlags search;
};

struct ModelMatch {
  std::vector<std::string> missing;    // activation tensors of the model without a scale
  std::vector<std::string> unmatched;  // cache entries naming no model tensor
  size_t parser_named = 0;             // of unmatched: "(Unnamed Layer* N) ..." names the ONNX parser made up
};

// Tensors INT8 calibration gives a scale: float (or untyped) activations, i.e.
// graph inputs and computed values that constant folding does not remove.
ModelMatch match_model(const CalibCache& c, const Model& m) {
  ModelMatch r;
  std::set<std::string> in_cache, in_model, needing;
  for (const auto& e : c.entries) in_cache.insert(e.tensor);
  for (const auto& g : m.graphs) {
    if (g.path.rfind("fn:", 0) == 0) continue;  // local functions are inlined under other names
    for (const TensorInfo& t : g.tensors) {
      const std::string& name = t.name;
      in_model.insert(name);
      bool activation = t.origin == TensorOrigin::GraphInput || t.origin == TensorOrigin::Computed;
      bool float_like = t.type == ElemType::UNDEFINED || is_float(t.type);
      if (activation && float_like && !t.const_foldable) needing.insert(name);
    }
  }
  for (const auto& n : needing)
    if (!in_cache.count(n)) r.missing.push_back(n);
  for (const auto& n : in_cache)
    if (!in_model.count(n)) {
      r.unmatched.push_back(n);
      if (n.rfind("(Unnamed Layer*", 0) == 0) ++r.parser_named;
    }
  return r;
}

std::string list(const std::vector<std::string>& v, size_t limit) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < limit; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > limit) s += fmt::format(", ... ({} more)", v.size() - limit);
  return s;
}

}  // namespace

void add_calib_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<CalibOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calib", "Read an INT8 calibration cache: TensorRT version, calibrator, scales; whether a release can use it "
               "(exit 1: it cannot)");
  cmd->add_option("cache", opt->cache, "the calibration cache file")->required();
  cmd->add_option("--trt", opt->trt, "judge against this release (default: the TensorRT `trtlens env` finds)");
  cmd->add_option("--model", opt->model, "list model tensors without a scale and cache entries matching no tensor");
  cmd->add_option("--format", opt->format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  add_search_flags(cmd, opt->search);
  cmd->callback([opt, &exit_code]() {
    CalibCache c = read_calib_cache(opt->cache);
    std::optional<Target> target = pick_target(opt->trt, opt->search);
    std::optional<LoadVerdict> verdict;
    if (target) verdict = calib_usable(c, target->version);
    std::optional<ModelMatch> match;
    if (!opt->model.empty()) match = match_model(c, load_model(opt->model));
    exit_code = verdict && verdict->kind == LoadVerdict::No ? kExitNotConverting : kExitOk;

    if (opt->format == "json") {
      json j;
      j["schema_version"] = 1;
      j["path"] = c.path;
      j["header"] = c.header;
      j["version_number"] = c.version_number;
      j["version"] = c.version.str();
      j["calibrator"] = c.calibrator;
      j["tensor_count"] = c.entries.size();
      j["min_scale"] = c.min_scale;
      j["max_scale"] = c.max_scale;
      j["warnings"] = c.warnings;
      j["scales"] = json::array();
      for (const auto& e : c.entries)
        j["scales"].push_back({{"tensor", e.tensor}, {"bits", fmt::format("{:08x}", e.bits)}, {"scale", e.scale}});
      if (verdict) {
        j["target"] = {{"version", target->version.str()}, {"from", target->from}};
        j["usable"] = {{"verdict", load_verdict_name(verdict->kind)}, {"reason", verdict->reason}};
      } else {
        j["target"] = nullptr;
        j["usable"] = nullptr;
      }
      if (match)
        j["model"] = {{"path", opt->model},
                      {"tensors_without_scale", match->missing},
                      {"entries_matching_no_tensor", match->unmatched},
                      {"parser_named_entries", match->parser_named}};
      fmt::print("{}\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
      return;
    }
    bool color = stdout_wants_color();
    std::string out;
    out += "cache:       " + c.path + "\n";
    out += "header:      " + c.header + "\n";
    out += fmt::format("written by:  TensorRT {} ({} = {})\n", c.version.str(), c.version_number,
                       c.version_number < 10000 ? "M*1000+m*100+p, before 10.0" : "M*10000+m*100+p, 10.0 and later");
    out += "calibrator:  " + c.calibrator + "\n";
    out += fmt::format("tensors:     {}\n", c.entries.size());
    if (c.max_scale > 0)
      out += fmt::format("scale range: {:.6g} .. {:.6g} (dynamic range +-{:.6g} .. +-{:.6g}, 127 x scale)\n",
                         c.min_scale, c.max_scale, 127 * c.min_scale, 127 * c.max_scale);
    for (const auto& w : c.warnings) out += colorize("warning: " + w, "33", color) + "\n";
    if (verdict) {
      out += fmt::format("usable with {}: {} - {}\n", target->describe(),
                         colorize(std::string(load_verdict_name(verdict->kind)), verdict_color(verdict->kind), color),
                         verdict->reason);
    } else {
      out += "usable: not judged (no --trt given and `trtlens env` finds no TensorRT)\n";
    }
    if (match) {
      out += fmt::format("\nmodel {}:\n", opt->model);
      out += fmt::format("  activation tensors without a scale: {}{}\n", match->missing.size(),
                         match->missing.empty() ? "" : " (TensorRT runs them in higher precision): " +
                                                            list(match->missing, 20));
      out += fmt::format("  cache entries matching no model tensor: {}{}\n", match->unmatched.size(),
                         match->unmatched.empty() ? "" : ": " + list(match->unmatched, 20));
      if (match->parser_named)
        out += fmt::format("    ({} of them are \"(Unnamed Layer* N)\" names the ONNX parser gives the layers it adds; "
                           "expected)\n",
                           match->parser_named);
    }
    fmt::print("{}", out);
  });
}

}  // namespace trtlens::cli
