// trtlens env: which TensorRT is installed, where, and which version each source reports.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/app.h"
#include "render/table.h"
#include "trt_env/cli_common.h"
#include "trtlens/trt_env.h"

namespace trtlens::cli {
namespace {

using nlohmann::json;

json version_json(const TrtVersion& v) { return v.known() ? json(v.str()) : json(nullptr); }

std::string env_json(const EnvReport& r) {
  json j;
  j["schema_version"] = 1;
  j["installs"] = json::array();
  for (const auto& in : r.installs) {
    json i;
    i["library"] = in.library;
    i["real_library"] = in.real_library;
    i["found_via"] = in.found_via;
    i["machine"] = in.machine;
    i["version"] = version_json(in.version);
    i["release"] = in.release.empty() ? json(nullptr) : json(in.release);
    if (!in.release_note.empty()) i["release_note"] = in.release_note;
    i["sources"] = json::array();
    for (const auto& s : in.versions)
      i["sources"].push_back({{"source", s.source}, {"where", s.where}, {"version", version_json(s.version)}});
    i["header"] = in.header.empty() ? json(nullptr) : json(in.header);
    i["version_symbol"] = in.symbols.version_symbol.empty() ? json(nullptr) : json(in.symbols.version_symbol);
    i["build_symbol"] = in.symbols.build_symbol.empty() ? json(nullptr) : json(in.symbols.build_symbol);
    i["build_date"] = in.symbols.build_date.empty() ? json(nullptr) : json(in.symbols.build_date);
    i["changelist"] = in.symbols.changelist.empty() ? json(nullptr) : json(in.symbols.changelist);
    i["infer_lib_version"] = in.infer_lib_version ? json(*in.infer_lib_version) : json(nullptr);
    i["load_error"] = in.load_error.empty() ? json(nullptr) : json(in.load_error);
    i["disagreements"] = in.disagreements;
    i["problems"] = in.problems;
    json p = nullptr;
    if (!in.parser_library.empty()) {
      p = json::object();
      p["library"] = in.parser_library;
      p["version"] = version_json(in.parser_version);
      p["api_version"] = in.parser_api_version ? json(*in.parser_api_version) : json(nullptr);
      p["load_error"] = in.parser_load_error.empty() ? json(nullptr) : json(in.parser_load_error);
    }
    i["onnx_parser"] = p;
    j["installs"].push_back(i);
  }
  j["cuda_runtime"] = json::array();
  for (const auto& c : r.cuda)
    j["cuda_runtime"].push_back({{"library", c.library},
                                 {"version", version_json(c.version)},
                                 {"source", c.source},
                                 {"load_error", c.load_error.empty() ? json(nullptr) : json(c.load_error)}});
  j["gpus"] = json::array();
  for (const auto& g : r.gpus)
    j["gpus"].push_back({{"index", g.index},
                         {"name", g.name},
                         {"driver", g.driver},
                         {"memory", g.memory},
                         {"compute_capability", g.compute_capability}});
  j["gpu_source"] = r.gpu_source.empty() ? json(nullptr) : json(r.gpu_source);
  j["gpu_note"] = r.gpu_note.empty() ? json(nullptr) : json(r.gpu_note);
  j["searched"] = r.searched;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string env_text(const EnvReport& r, bool color) {
  std::string out;
  if (r.installs.empty()) {
    out += "No TensorRT found (no libnvinfer.so in any folder searched).\n";
  } else {
    out += fmt::format("TensorRT installs: {} (in search order: --path, TENSORRT_ROOT, LD_LIBRARY_PATH, ldconfig cache, "
                       "system folders; `plan` and `calib` judge against the first)\n",
                       r.installs.size());
  }
  int n = 0;
  for (const auto& in : r.installs) {
    out += fmt::format("\n{}. {}\n", ++n, colorize(in.library, "1", color));
    if (!in.real_library.empty() && in.real_library != in.library) out += "   file:        " + in.real_library + "\n";
    out += "   found via:   " + join(in.found_via, ", ") + "\n";
    if (in.version.known()) {
      out += "   version:     " + colorize(in.version.str(), "1", color);
      out += in.release.empty() ? "  (no knowledge-base release: " + in.release_note + ")\n"
                                : "  -> knowledge-base release " + in.release + " (what `trtlens check` uses)\n";
    } else {
      out += "   version:     unknown (no source answered)\n";
    }
    if (!in.machine.empty()) out += "   machine:     " + in.machine + "\n";
    if (!in.versions.empty()) {
      Table t{{"source", "version", "from"}, {}, {}};
      for (const auto& s : in.versions) t.rows.push_back({s.source, s.version.str(), s.where});
      out += "   sources:\n" + indent(to_text(t), "     ");
    }
    if (!in.symbols.build_symbol.empty()) {
      out += "   build:       " + in.symbols.build_symbol;
      if (!in.symbols.build_date.empty())
        out += " (date " + in.symbols.build_date +
               (in.symbols.changelist.empty() ? "" : ", changelist " + in.symbols.changelist) + "; read by heuristic)";
      out += "\n";
    }
    if (!in.load_error.empty()) out += "   getInferLibVersion: " + colorize(in.load_error, "33", color) + "\n";
    if (!in.parser_library.empty()) {
      out += "   ONNX parser: " + in.parser_library;
      if (in.parser_version.known()) out += "  " + in.parser_version.str() + " (file name)";
      if (in.parser_api_version)
        out += fmt::format("; parser API {} (getNvOnnxParserVersion = {})",
                           TrtVersion{int(*in.parser_api_version / 10000), int(*in.parser_api_version % 10000 / 100),
                                      int(*in.parser_api_version % 100), -1}
                               .str(),
                           *in.parser_api_version);
      if (!in.parser_load_error.empty()) out += "; " + in.parser_load_error;
      out += "\n";
    } else {
      out += "   ONNX parser: not found beside libnvinfer\n";
    }
    for (const auto& d : in.disagreements) out += "   " + colorize("disagreement: " + d, "33", color) + "\n";
    for (const auto& p : in.problems) out += "   " + colorize("problem: " + p, "31", color) + "\n";
  }
  out += "\n";
  if (r.cuda.empty()) out += "CUDA runtime: not found\n";
  for (const auto& c : r.cuda) {
    out += "CUDA runtime: " + c.library;
    if (c.version.known()) out += "  " + c.version.str() + " (" + c.source + ")";
    if (!c.load_error.empty()) out += "; " + c.load_error;
    out += "\n";
  }
  if (r.gpus.empty()) {
    out += "GPUs: " + (r.gpu_note.empty() ? std::string("none found") : r.gpu_note) + "\n";
  } else {
    Table t{{"gpu", "name", "driver", "memory", "compute capability"}, {}, {true}};
    for (const auto& g : r.gpus)
      t.rows.push_back({std::to_string(g.index), g.name, g.driver, g.memory, g.compute_capability});
    out += "GPUs (" + r.gpu_source + "):\n" + indent(to_text(t), "  ");
  }
  if (r.installs.empty()) {
    out += "\nSearched: " + (r.searched.empty() ? std::string("no existing folder") : join(r.searched, ", ")) + "\n";
    out += "Give an install with --path DIR or TENSORRT_ROOT=DIR.\n";
  }
  return out;
}

struct EnvOptions {
  SearchFlags search;
  std::string format = "text";
  bool no_gpu = false;
};

}  // namespace

void add_env_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<EnvOptions>();
  CLI::App* cmd = app.add_subcommand(
      "env", "Find TensorRT installs (LD_LIBRARY_PATH, ldconfig, system folders, $TENSORRT_ROOT, --path) and read "
             "their versions from headers, library symbols and getInferLibVersion(); CUDA runtime and GPUs");
  add_search_flags(cmd, opt->search);
  cmd->add_flag("--no-gpu", opt->no_gpu, "do not query GPUs (nvidia-smi, NVML)");
  cmd->add_option("--format", opt->format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->callback([opt, &exit_code]() {
    SearchOptions o = search_options(opt->search);
    o.query_gpus = !opt->no_gpu;
    EnvReport r = discover_trt(o);
    fmt::print("{}", opt->format == "json" ? env_json(r) : env_text(r, stdout_wants_color()));
    exit_code = kExitOk;
  });
}

}  // namespace trtlens::cli
