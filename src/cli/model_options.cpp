#include "cli/model_options.h"

#include <CLI/CLI.hpp>

#include "trtlens/error.h"

namespace trtlens::cli {

void add_model_options(CLI::App* cmd, ModelOptions& o, bool unknown_as) {
  cmd->add_option("--shapes", o.shapes,
                  "input shapes as trtexec takes them, e.g. input:1x3x224x224[,mask:1x224] (fixes those dimensions "
                  "for the analysis)");
  cmd->add_option("--minShapes", o.min_shapes, "an optimization profile's smallest input shapes (with --optShapes "
                                               "and --maxShapes); dimensions that differ stay dynamic");
  cmd->add_option("--optShapes", o.opt_shapes, "the profile's usual input shapes");
  cmd->add_option("--maxShapes", o.max_shapes, "the profile's largest input shapes");
  if (unknown_as)
    cmd->add_option("--unknown-as", o.unknown_as,
                    "unknown (default) or unsupported: count UNKNOWN verdicts as UNSUPPORTED (for CI)")
        ->capture_default_str();
}

Model load_with_options(const std::string& path, const ModelOptions& o) {
  return load_model(path, input_shape_profile(o.shapes, o.min_shapes, o.opt_shapes, o.max_shapes));
}

bool unknown_as_unsupported(const ModelOptions& o) {
  if (o.unknown_as == "unknown") return false;
  if (o.unknown_as == "unsupported") return true;
  throw UsageError("--unknown-as '" + o.unknown_as + "': use unknown or unsupported");
}

}  // namespace trtlens::cli
