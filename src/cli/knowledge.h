// The knowledge base a command judges with: the built-in one, plus the user's own
// plugin library's creators declared with --plugin NAME[:VERSION] (repeatable).
#pragma once
#include <string>
#include <vector>

#include "trtlens/analysis.h"
#include "trtlens/kb.h"

namespace CLI {
class App;
}

namespace trtlens::cli {

// Adds --plugin to `cmd`, collected into `plugins`.
void add_plugin_option(CLI::App* cmd, std::vector<std::string>& plugins);

// Adds the model argument, --trt and --precision (the options of a command that
// judges one model at one runtime: check, partition).
void add_model_runtime_options(CLI::App* cmd, std::string& model, std::string& release, std::string& precision);
// The runtime --trt and --precision name: `release` resolved in `kb` (the newest
// when empty). Throws UsageError for an unknown release or precision.
Runtime runtime_of(const KnowledgeBase& kb, const std::string& release, const std::string& precision);

// Adds --target to `cmd`, collected into `target`.
void add_target_option(CLI::App* cmd, std::string& target);
// `runtime` for the device --target names (nothing when `target` is empty): the target set,
// the release defaulting to the newest the target runs when --trt was not given. Throws
// UsageError for an unknown target, or a release the target does not run.
void set_target(Runtime& runtime, const KnowledgeBase& kb, const std::string& target, const std::string& release);

// Throws UsageError when `plugins` is not empty and release `r`'s importer has no plugin fallback
// (policy plugin_fallback "no": 5.1 - 7.0, data/policies.tsv): there --plugin would be ignored.
void refuse_plugins_without_fallback(const KnowledgeBase& kb, const std::vector<std::string>& plugins,
                                     const Release& r);

// KnowledgeBase::builtin() when `plugins` is empty; else a copy that imports each
// declared plugin (KnowledgeBase::with_plugins), alive until the process ends.
// Throws UsageError for a malformed NAME[:VERSION].
const KnowledgeBase& knowledge_base(const std::vector<std::string>& plugins);

}  // namespace trtlens::cli
