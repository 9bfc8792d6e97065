// The knowledge base a command judges with: the built-in one, plus the user's own
// plugin library's creators declared with --plugin NAME[:VERSION] (repeatable).
#pragma once
#include <string>
#include <vector>

#include "trtlens/kb.h"

namespace CLI {
class App;
}

namespace trtlens::cli {

// Adds --plugin to `cmd`, collected into `plugins`.
void add_plugin_option(CLI::App* cmd, std::vector<std::string>& plugins);

// KnowledgeBase::builtin() when `plugins` is empty; else a copy that imports each
// declared plugin (KnowledgeBase::with_plugins), alive until the process ends.
// Throws UsageError for a malformed NAME[:VERSION].
const KnowledgeBase& knowledge_base(const std::vector<std::string>& plugins);

}  // namespace trtlens::cli
