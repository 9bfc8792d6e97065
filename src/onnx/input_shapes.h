// Input shapes from the command line applied to a model's graph inputs before inference.
#pragma once
#include <vector>

#include "trtlens/model.h"

namespace onnx {
class GraphProto;
}

namespace trtlens {

// Sets the shape of each named input of `graph` (the main graph): fixed dimensions where
// min == max, symbols elsewhere. Throws UsageError (see load_model's shapes overload).
void apply_input_shapes(onnx::GraphProto& graph, const std::vector<InputShape>& shapes);

}  // namespace trtlens
