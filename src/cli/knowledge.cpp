#include "cli/knowledge.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <mutex>

#include "trtlens/error.h"

namespace trtlens::cli {

void add_plugin_option(CLI::App* cmd, std::vector<std::string>& plugins) {
  cmd->add_option("--plugin", plugins,
                  "a plugin your own plugin library registers, NAME or NAME:VERSION (repeatable): nodes of that "
                  "op_type import as its plugin layer");
}

const KnowledgeBase& knowledge_base(const std::vector<std::string>& plugins) {
  if (plugins.empty()) return KnowledgeBase::builtin();
  std::vector<KnowledgeBase::DeclaredPlugin> declared;
  for (const std::string& text : plugins) {
    size_t colon = text.find(':');
    std::string name = text.substr(0, colon);
    auto it = std::find_if(declared.begin(), declared.end(), [&](const auto& d) { return d.name == name; });
    if (it == declared.end()) it = declared.insert(declared.end(), {name, {}});
    if (colon != std::string::npos) it->versions.push_back(text.substr(colon + 1));  // checked by with_plugins
  }
  // One command runs per process (or a few, through cli::run): keep each copy alive.
  static std::mutex mutex;
  static std::deque<KnowledgeBase> kept;
  KnowledgeBase kb = KnowledgeBase::builtin().with_plugins(declared);
  std::lock_guard lock(mutex);
  return kept.emplace_back(std::move(kb));
}

void refuse_plugins_without_fallback(const KnowledgeBase& kb, const std::vector<std::string>& plugins,
                                     const Release& r) {
  if (plugins.empty() || r.policy.plugin_fallback != PluginFallback::None) return;
  // Before 7.1 the importer fails an op_type it has no built-in importer for: a declared plugin changes nothing,
  // so say so rather than judge as if it were not given.
  const Release* first = nullptr;
  for (const Release& later : kb.releases())
    if (later.policy.plugin_fallback != PluginFallback::None) {
      first = &later;
      break;
    }
  throw UsageError(fmt::format("--plugin {}: TensorRT {}'s ONNX parser never looks an op_type up in the plugin "
                               "registry ({}){}",
                               plugins.front().substr(0, plugins.front().find(':')), r.name,
                               r.policy.source("plugin_fallback"),
                               first ? fmt::format("; it does from TensorRT {}", first->name) : ""));
}

void add_model_runtime_options(CLI::App* cmd, std::string& model, std::string& release, std::string& precision) {
  cmd->add_option("model", model, "the .onnx file")->required();
  cmd->add_option("--trt", release, "TensorRT release: 8.6, 8.6.1 or 8.6.1.6 (default: the newest known)");
  cmd->add_option("--precision", precision, "fp32, fp16, bf16, int8, fp8 or best")->capture_default_str();
}

Runtime runtime_of(const KnowledgeBase& kb, const std::string& release, const std::string& precision) {
  return {release.empty() ? &kb.releases().back() : &kb.resolve(release), parse_precision(precision)};
}

void add_target_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--target", target,
                  "deployment target: a device (h100, a100, l4, orin, orin-dla, xavier-dla, thor, ...), an alias "
                  "(agx-orin) or a compute capability (sm_89); narrows precisions to its kernels and releases to what "
                  "it runs")
      ->each([](const std::string& value) {
        // An empty value would read as no --target at all: resolve refuses it (a UsageError, exit 2).
        if (value.empty()) TargetCatalog::builtin().resolve(value);
      });
}

void set_target(Runtime& runtime, const KnowledgeBase& kb, const std::string& target, const std::string& release) {
  if (target.empty()) return;
  const TargetCatalog& catalog = TargetCatalog::builtin();
  runtime.target = &catalog.resolve(target);
  if (release.empty())
    if (const Release* newest = catalog.newest_release(*runtime.target, kb)) runtime.release = newest;
  catalog.check_release(*runtime.target, *runtime.release);
}

}  // namespace trtlens::cli
