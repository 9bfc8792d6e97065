#!/usr/bin/env python3
"""Small models whose partitions tests/ort/run.mjs chains in ONNX Runtime.

Usage: make_models.py OUT_DIR. Each model uses only ops ONNX Runtime's CPU
provider runs, and splits at a TensorRT release in a way issue 20 found wrong:
constants read across a cut, a Reshape of unknown rank at a boundary, a cut
inside a Loop's reach, an fp16 chain, and a Cast of an If whose branches disagree on rank;
and one cut for a DLA core (issue 23): DLA loadables around a GPU region.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(model, out, name):
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out, name))


def constants(out):
    # Constant(axes) -> Squeeze across a Det (unsupported at 8.6), and an Identity of an
    # initializer read by a Reshape after it: both must be copied, never become inputs.
    nodes = [
        helper.make_node("Constant", [], ["axes"], value=numpy_helper.from_array(np.array([0], np.int64))),
        helper.make_node("Identity", ["shape"], ["shape_copy"]),
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Det", ["r"], ["d"]),
        helper.make_node("Squeeze", ["d", "axes"], ["s"]),
        helper.make_node("Reshape", ["s", "shape_copy"], ["s1"]),
        helper.make_node("Mul", ["s1", "s1"], ["y"]),
    ]
    g = helper.make_graph(nodes, "constants", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
                          [numpy_helper.from_array(np.array([1], np.int64), "shape")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out, "constants.onnx")


def nonzero(out):
    # NonZero is in the provider's default exclusion list: two TensorRT regions around it,
    # and a weight over 16 KiB so the parts read weights.data.
    rng = np.random.default_rng(3)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Relu", ["m"], ["r"]),
        helper.make_node("NonZero", ["r"], ["nz"]),
        helper.make_node("Cast", ["nz"], ["nzf"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["nzf"], ["count"], keepdims=0),
        helper.make_node("Add", ["count", "bias"], ["y"]),
    ]
    g = helper.make_graph(nodes, "nonzero", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, []),
                           helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 64])],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(0.5, np.float32), "bias")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out, "nonzero.onnx")


def fp16(out):
    # An fp16 chain cut by a Det: outputs compared to one ulp.
    rng = np.random.default_rng(5)
    nodes = [
        helper.make_node("Add", ["x", "b"], ["a"]),
        helper.make_node("Mul", ["a", "a"], ["m"]),
        helper.make_node("Cast", ["m"], ["m32"], to=TensorProto.FLOAT),
        helper.make_node("Det", ["m32"], ["d"]),
        helper.make_node("Cast", ["d"], ["d16"], to=TensorProto.FLOAT16),
        helper.make_node("Relu", ["d16"], ["y"]),
    ]
    g = helper.make_graph(nodes, "fp16", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2]),
                           helper.make_tensor_value_info("m", TensorProto.FLOAT16, [2, 4, 4])],
                          [numpy_helper.from_array(rng.standard_normal((4, 4)).astype(np.float16), "b")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out, "fp16.onnx")


def if_cast(out):
    # torch's export of squeeze(dim) as fasterrcnn's roi pool has it: If(Squeeze | Identity),
    # whose branches disagree on rank, -> Cast -> RoiAlign (excluded from 8.5 on). The Cast's
    # output crosses the cut: 1-D, as RoiAlign's batch_indices are.
    then_g = helper.make_graph([helper.make_node("Squeeze", ["r", "one"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, [3])])
    else_g = helper.make_graph([helper.make_node("Identity", ["r"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, [3, 1])])
    nodes = [
        helper.make_node("Relu", ["idx"], ["r"]),
        helper.make_node("Shape", ["r"], ["shape"]),
        helper.make_node("Gather", ["shape", "one_scalar"], ["width"]),
        helper.make_node("Equal", ["width", "one_scalar"], ["cond"]),
        helper.make_node("If", ["cond"], ["levels"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Cast", ["levels"], ["batch"], to=TensorProto.INT64),
        helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], output_height=2, output_width=2),
    ]
    g = helper.make_graph(nodes, "if_cast", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8]),
                                             helper.make_tensor_value_info("rois", TensorProto.FLOAT, [3, 4]),
                                             helper.make_tensor_value_info("idx", TensorProto.FLOAT, [3, 1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2, 2, 2])],
                          [numpy_helper.from_array(np.array([1], np.int64), "one"),
                           numpy_helper.from_array(np.array(1, np.int64), "one_scalar")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)]), out, "if_cast.onnx")


def dla_branch(out):
    # At --target orin-dla --trt 8.5 --precision fp16: Conv 3x3 and Relus run on the DLA, the
    # 33x33 Conv (kernel > 32) falls back to the GPU. Its input also feeds a DLA Relu and the Add
    # reads both: a DLA loadable, the GPU region, a second loadable (one would be a cycle). The
    # 33x33 weight (70 KB) goes to weights.data.
    rng = np.random.default_rng(7)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w33"], ["g"], pads=[16, 16, 16, 16]),
        helper.make_node("Relu", ["r1"], ["b"]),
        helper.make_node("Add", ["g", "b"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    g = helper.make_graph(nodes, "dla_branch", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 16, 16])],
                          [numpy_helper.from_array(rng.standard_normal((4, 4, 3, 3)).astype(np.float32), "w1"),
                           numpy_helper.from_array((rng.standard_normal((4, 4, 33, 33)) * 0.01).astype(np.float32), "w33")])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out, "dla_branch.onnx")


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    constants(out)
    nonzero(out)
    fp16(out)
    if_cast(out)
    dla_branch(out)
