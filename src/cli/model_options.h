// Options of the commands that judge a model (check, matrix, partition, report): input shapes in
// trtexec's syntax and, for CI, how UNKNOWN verdicts count. One helper, so the four agree.
#pragma once
#include <string>

#include "trtlens/compat.h"
#include "trtlens/model.h"

namespace CLI {
class App;
}

namespace trtlens::cli {

struct ModelOptions {
  std::string shapes, min_shapes, opt_shapes, max_shapes;  // trtexec syntax: name:1x3x224x224[,...]
  std::string unknown_as = "unknown";                      // "unknown" or "unsupported"
};

// Adds --shapes, --minShapes, --optShapes and --maxShapes; with `unknown_as`, also --unknown-as.
void add_model_options(CLI::App* cmd, ModelOptions& o, bool unknown_as = true);
// load_model with the shapes of `o`. Throws UsageError for bad shapes, InputError for a bad model.
Model load_with_options(const std::string& path, const ModelOptions& o);
// True for --unknown-as unsupported. Throws UsageError for another value than unknown/unsupported.
bool unknown_as_unsupported(const ModelOptions& o);

}  // namespace trtlens::cli
