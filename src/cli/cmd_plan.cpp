// trtlens plan ENGINE: which TensorRT wrote a plan file, read offline.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "util/limits.h"
#include "util/strings.h"

#include "cli/app.h"
#include "render/table.h"
#include "trt_env/cli_common.h"
#include "trtlens/trt_env.h"

namespace trtlens::cli {
namespace {

using nlohmann::json;

struct PlanOptions {
  std::string engine, trt, format = "text";
  SearchFlags search;
};

std::string hex_dump(const std::vector<uint8_t>& bytes, size_t base) {
  std::string out;
  for (size_t row = 0; row < bytes.size(); row += 16) {
    out += fmt::format("  {:08x} ", base + row);
    for (size_t i = row; i < row + 16; ++i) out += i < bytes.size() ? fmt::format(" {:02x}", bytes[i]) : "   ";
    out += "  ";
    for (size_t i = row; i < row + 16 && i < bytes.size(); ++i)
      out += (bytes[i] >= 0x20 && bytes[i] < 0x7f) ? char(bytes[i]) : '.';
    out += "\n";
  }
  return out;
}

}  // namespace

void add_plan_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Which TensorRT wrote a plan (engine) file, read from its header without deserializing it; "
              "whether a release can load it (exit 1: it cannot)");
  cmd->add_option("engine", opt->engine, "the plan file (.engine, .plan, .trt)")->required();
  cmd->add_option("--trt", opt->trt, "judge against this release (default: the TensorRT `trtlens env` finds)");
  cmd->add_option("--format", opt->format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  add_search_flags(cmd, opt->search);
  cmd->callback([opt, &exit_code]() {
    PlanInfo p = read_plan(opt->engine);
    std::optional<Target> target = pick_target(opt->trt, opt->search);
    std::optional<LoadVerdict> verdict;
    if (target) verdict = plan_loadable(p, target->version);
    std::string release, release_note;
    if (p.version.known()) map_to_release(p.version, release, release_note);
    exit_code = verdict && verdict->kind == LoadVerdict::No ? kExitNotConverting : kExitOk;

    if (opt->format == "json") {
      json j;
      j["schema_version"] = 1;
      j["path"] = p.path;
      j["file_size_bytes"] = p.file_size;
      j["plan_offset"] = p.plan_offset;
      if (p.metadata_json.empty()) {
        j["metadata"] = nullptr;
      } else {
        // Deeper than the nesting limit: kept as text, never parsed into a tree (fuzz finding F05).
        bool too_deep = json_nesting_depth(p.metadata_json, kMaxNestingDepth) > kMaxNestingDepth;
        json m = too_deep ? json(json::value_t::discarded) : json::parse(p.metadata_json, nullptr, false);
        j["metadata"] = m.is_discarded() ? json(p.metadata_json) : m;
        if (too_deep)
          j["metadata_note"] = fmt::format("nested deeper than {} levels: shown as text", kMaxNestingDepth);
      }
      j["tag"] = p.tag;
      j["layout_word"] = p.word4;
      j["version"] = p.version.known() ? json(p.version.str()) : json(nullptr);
      j["version_heuristic"] = p.version_heuristic;
      j["version_note"] = p.version_note;
      j["serialization_number"] = p.serialization ? json(*p.serialization) : json(nullptr);
      j["release"] = release.empty() ? json(nullptr) : json(release);
      j["fields"] = json::array();
      for (const auto& f : p.fields)
        j["fields"].push_back({{"offset", f.offset}, {"size", f.size}, {"name", f.name}, {"value", f.value},
                               {"heuristic", f.heuristic}});
      std::string head;
      for (uint8_t b : p.head) head += fmt::format("{:02x}", b);
      j["head_hex"] = head;
      if (target) {
        j["target"] = {{"version", target->version.str()}, {"from", target->from}};
        j["loadable"] = {{"verdict", load_verdict_name(verdict->kind)}, {"reason", verdict->reason}};
      } else {
        j["target"] = nullptr;
        j["loadable"] = nullptr;
      }
      fmt::print("{}\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
      return;
    }
    bool color = stdout_wants_color();
    std::string out;
    out += fmt::format("plan:        {} ({} bytes)\n", p.path, p.file_size);
    if (!p.metadata_json.empty()) {
      std::string shown = p.metadata_json.size() > 300 ? p.metadata_json.substr(0, 297) + "..." : p.metadata_json;
      out += fmt::format("metadata:    {} bytes of exporter JSON before the plan (4-byte length first): {}\n",
                         p.metadata_json.size(), shown);
    }
    out += fmt::format("tag:         '{}' at offset {}\n", p.tag, p.plan_offset);
    out += "written by:  " +
           (p.version.known() ? colorize("TensorRT " + p.version.str(), "1", color) : std::string("unknown version")) +
           (p.version_note.empty() ? "" : "  (" + p.version_note + ")") + "\n";
    if (p.version.known())
      out += release.empty() ? "release:     no knowledge-base table (" + release_note + ")\n"
                             : "release:     knowledge-base release " + release + "\n";
    Table t{{"offset", "bytes", "field", "value", "how read"}, {}, {true, true}};
    for (const auto& f : p.fields)
      t.rows.push_back({std::to_string(f.offset), std::to_string(f.size), f.name, f.value,
                        f.heuristic ? "heuristic" : "layout"});
    out += "\nfields read:\n" + indent(to_text(t), "  ");
    out += fmt::format("\nfirst {} bytes of the plan (offset {}); bytes not listed above are unknown:\n", p.head.size(),
                       p.plan_offset);
    out += hex_dump(p.head, p.plan_offset);
    out += "\n";
    if (target) {
      out += fmt::format("loadable by {}: {} - {}\n", target->describe(),
                         colorize(std::string(load_verdict_name(verdict->kind)), verdict_color(verdict->kind), color),
                         verdict->reason);
    } else {
      out += "loadable: not judged (no --trt given and `trtlens env` finds no TensorRT)\n";
    }
    fmt::print("{}", out);
  });
}

}  // namespace trtlens::cli
