// Structure checks and our own propagation of tensor facts, after ONNX shape inference.
#pragma once
#include "trtlens/model.h"

namespace trtlens {

// For every graph of `m` (main, subgraphs, local functions):
//  - checks that each node input is produced by a node, a graph input, an
//    initializer or (in a subgraph) an enclosing graph, and that the nodes
//    form no cycle; throws InputError(m.path, "...") naming the node otherwise;
//  - in topological order, fills element types that shape inference left
//    unknown (type_source "trtlens"), Constant outputs (type, shape, values),
//    const_foldable, and shapes: ranks and dimensions that shape inference
//    left unknown or made up ("unk__N"), from our own rules (element-wise,
//    broadcasting, MatMul/Gemm, Reshape, Pad, Transpose, Slice, Gather, Concat,
//    Unsqueeze/Squeeze, reductions, ...) and the values of small integer tensors
//    that shape arithmetic computes (Shape -> Gather -> Concat -> Reshape); where
//    only the rank is certain (a Reshape by a shape of unknown values but known
//    length), the rank. Never a rank or size that contradicts a stated one.
void check_structure_and_propagate(Model& m);

// Element type of output `k` of `node` from the types of its inputs
// (`input_type(i)`, UNDEFINED when unknown) and its attributes; UNDEFINED when
// no rule applies. Covers opsets newer than the ONNX library knows.
ElemType infer_output_type(const Node& node, size_t k, const std::vector<ElemType>& input_types,
                           const Model& m);

}  // namespace trtlens
