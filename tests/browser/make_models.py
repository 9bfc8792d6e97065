#!/usr/bin/env python3
"""Writes the models the browser tests open. Usage: make_models.py OUTDIR

demo.onnx: Conv -> BatchNormalization -> Relu -> Reshape -> If(then/else bodies),
plus a Relu named like an HTML injection. BatchNormalization has FP32/FP16
kernels only, so its badge changes when the precision goes to INT8.
chain.onnx: 600 activations and residual Adds, for the region-by-region view.
function.onnx: a node calling a local function, whose body can be entered.
overlay.onnx: the model of tests/fixtures/engine/overlay (its node names match
that engine's layers), for the engine overlay (report --engine).
problems.onnx: unsupported nodes spread over regions, foldable constants and an If whose
body is worse than itself: minimap, next problem, folding, roll-up, export.
dla_chain.onnx, dla_dynamic.onnx: a DLA placement with several loadables, and one without known MACs.
anchors.onnx: unsupported nodes with a hostile name, without a name and in an If body, for
the #node= anchor and the dashboard's links to it.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

EVIL = "<img src=x onerror=alert(1)>"
# Every character a URL or HTML gives a meaning to: a link must still find the node.
HOSTILE = 'bad "q" \'s\' &trt=7.0#node=act %41 +/<b>x</b>?\u00e9'


def demo():
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 36])
    inits = [
        numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "conv.weight"),
        numpy_helper.from_array(np.ones(4, np.float32), "bn.scale"),
        numpy_helper.from_array(np.zeros(4, np.float32), "bn.bias"),
        numpy_helper.from_array(np.zeros(4, np.float32), "bn.mean"),
        numpy_helper.from_array(np.ones(4, np.float32), "bn.var"),
        numpy_helper.from_array(np.array([1, 4, 36], np.int64), "shape"),
        numpy_helper.from_array(np.array(True), "cond"),
    ]
    then_out = helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [1, 4, 36])
    else_out = helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [1, 4, 36])
    then_g = helper.make_graph(
        [helper.make_node("Sigmoid", ["reshaped"], ["then_y"], name="then_sigmoid")], "then", [], [then_out])
    else_g = helper.make_graph(
        [helper.make_node("Tanh", ["reshaped"], ["else_y"], name="else_tanh")], "else", [], [else_out])
    nodes = [
        helper.make_node("Conv", ["input", "conv.weight"], ["conv_out"], name="conv1",
                         kernel_shape=[3, 3], pads=[0, 0, 0, 0]),
        helper.make_node("BatchNormalization", ["conv_out", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                         ["bn_out"], name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["bn_out"], ["relu_out"], name=EVIL),
        helper.make_node("Reshape", ["relu_out", "shape"], ["reshaped"], name="reshape1"),
        helper.make_node("If", ["cond"], ["output"], name="branch", then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(nodes, "demo", [x], [y], inits)
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def chain(count):
    """A long residual chain: enough nodes to be split into regions."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    nodes, prev = [], "x"
    for i in range(count):
        out = f"t{i}"
        if i % 3 == 2:
            nodes.append(helper.make_node("Add", [prev, f"t{i - 2}"], [out], name=f"add_{i}"))
        else:
            nodes.append(helper.make_node("Relu" if i % 3 == 0 else "Sigmoid", [prev], [out], name=f"act_{i}"))
        prev = out
    y = helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 16])
    graph = helper.make_graph(nodes, "chain", [x], [y])
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    return model


def function_model():
    """A model calling a local function (Swish = x * Sigmoid(x))."""
    f = helper.make_function("local", "Swish", ["x"], ["y"],
                             [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ["x", "s"], ["y"])],
                             [helper.make_opsetid("", 13)])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="relu"),
                               helper.make_node("Swish", ["r"], ["y"], name="swish", domain="local")], "fn", [x], [y])
    model = helper.make_model(graph, functions=[f], producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def overlay_model():
    """The ONNX side of tests/fixtures/engine/overlay (as tests/support/overlay_models.cpp builds it)."""
    w = lambda name, shape: numpy_helper.from_array(np.full(shape, 0.01, np.float32), name)
    inits = [w("Conv_0.weight", (4, 4, 3, 3)), w("Conv_3.weight", (4, 4, 3, 3)), w("wq", (64, 64)), w("wv", (64, 16))]
    conv = lambda name, x, y: helper.make_node("Conv", [x, name + ".weight"], [y], name=name, kernel_shape=[3, 3],
                                               pads=[1, 1, 1, 1], strides=[1, 1])
    nodes = [
        conv("Conv_0", "input", "c0"),
        helper.make_node("Relu", ["c0"], ["r1"], name="Relu_1"),
        helper.make_node("Constant", [], ["shape"], name="Constant_2",
                         value=numpy_helper.from_array(np.array([1, 4, 64], np.int64))),
        conv("Conv_3", "r1", "c3"),
        helper.make_node("Add", ["c3", "r1"], ["a4"], name="Add_4"),
        helper.make_node("Relu", ["a4"], ["r5"], name="Relu_5"),
        helper.make_node("Identity", ["r5"], ["i6"], name="Identity_6"),
        helper.make_node("Reshape", ["i6", "shape"], ["flat"], name="Reshape_7"),
        helper.make_node("MatMul", ["flat", "wq"], ["q"], name="/attn/MatMul"),
        helper.make_node("Softmax", ["q"], ["s"], name="/attn/Softmax", axis=-1),
        helper.make_node("MatMul", ["s", "wv"], ["v"], name="/attn/MatMul_1"),
        helper.make_node("Sigmoid", ["v"], ["probs"]),  # unnamed: node_of_probs to TensorRT
        helper.make_node("MyPlugin", ["probs"], ["output"], name="MyPlugin_12", domain="custom.ops"),
    ]
    graph = helper.make_graph(nodes, "overlay", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 16])], inits)
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("custom.ops", 1)])
    model.ir_version = 7
    return model


LONG_NAME = "/features/features.1/features.1.0/attn/proj/Relu_long_tail"


def problems(count=60):
    """A chain for the big-graph tools (split with --region-nodes 25): custom-domain BadOp nodes
    (UNSUPPORTED at every release: no plugin) at 12, 37 and 52; Constants feeding Reshapes and an
    Identity of an initializer (both folded into their reader); a node with a long path name; and
    an If that imports while its then-body holds a BadOp (the roll-up)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    inits = [numpy_helper.from_array(np.ones((1, 16), np.float32), "w"),
             numpy_helper.from_array(np.array(True), "cond")]
    nodes, prev = [], "x"
    for i in range(count):
        out = f"t{i}"
        if i in (12, 37, 52):
            nodes.append(helper.make_node("BadOp", [prev], [out], name=f"bad_{i}", domain="custom.ops"))
        elif i % 10 == 5:
            nodes.append(helper.make_node("Constant", [], [f"shape_{i}_out"], name=f"shape_{i}",
                                          value=numpy_helper.from_array(np.array([1, 16], np.int64))))
            nodes.append(helper.make_node("Reshape", [prev, f"shape_{i}_out"], [out], name=f"reshape_{i}"))
        elif i == 20:
            nodes.append(helper.make_node("Identity", ["w"], ["w_id"], name="w_identity"))
            nodes.append(helper.make_node("Add", [prev, "w_id"], [out], name="add_20"))
        elif i == 30:
            nodes.append(helper.make_node("Relu", [prev], [out], name=LONG_NAME))
        else:
            nodes.append(helper.make_node("Relu", [prev], [out], name=f"act_{i}"))
        prev = out
    then_g = helper.make_graph([helper.make_node("Relu", [prev], ["tr"], name="then_relu"),
                                helper.make_node("BadOp", ["tr"], ["then_y"], name="then_bad", domain="custom.ops")],
                               "then", [], [helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [1, 16])])
    else_g = helper.make_graph([helper.make_node("Sigmoid", [prev], ["else_y"], name="else_sigmoid")],
                               "else", [], [helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [1, 16])])
    nodes.append(helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])
    graph = helper.make_graph(nodes, "problems", [x], [y], inits)
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("custom.ops", 1)])
    model.ir_version = 7
    return model


def anchors():
    """Custom-domain BadOp nodes (UNSUPPORTED at every release): one named HOSTILE, one unnamed,
    and one (deep_bad) in the then-body of the If gate."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])
    then_g = helper.make_graph([helper.make_node("Relu", ["t2"], ["tr"], name="deep_relu"),
                                helper.make_node("BadOp", ["tr"], ["then_y"], name="deep_bad", domain="custom.ops")],
                               "then", [], [helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [1, 16])])
    else_g = helper.make_graph([helper.make_node("Relu", ["t2"], ["else_y"], name="deep_ok")],
                               "else", [], [helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [1, 16])])
    nodes = [
        helper.make_node("Relu", ["x"], ["t0"], name="act"),
        helper.make_node("BadOp", ["t0"], ["t1"], name=HOSTILE, domain="custom.ops"),
        helper.make_node("BadOp", ["t1"], ["t2"], domain="custom.ops"),
        helper.make_node("If", ["cond"], ["y"], name="gate", then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(nodes, "anchors", [x], [y], [numpy_helper.from_array(np.array(True), "cond")])
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("custom.ops", 1)])
    model.ir_version = 7
    return model


def dla_model():
    """For report --target orin-dla: a 3x3 Conv the DLA runs, a 33x33 one it does not (kernel 1-32)."""
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 40, 40])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 6, 6])
    inits = [
        numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "small.weight"),
        numpy_helper.from_array(np.ones((4, 4, 33, 33), np.float32), "large.weight"),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "small.weight"], ["small_out"], name="conv_small", kernel_shape=[3, 3]),
        helper.make_node("Relu", ["small_out"], ["relu_out"], name="relu"),
        helper.make_node("Conv", ["relu_out", "large.weight"], ["output"], name="conv_large", kernel_shape=[33, 33]),
    ]
    graph = helper.make_graph(nodes, "dla", [x], [y], inits)
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def dla_chain():
    """For the DLA summary: 3x3 Convs the DLA runs between 33x33 ones it does not (kernel 1-32), then a
    GlobalAveragePool TensorRT 8.5 runs on the GPU: three DLA loadables and five DLA<->GPU transitions."""
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 80, 80])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 1, 1])
    inits = [numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "c1.weight")]
    for name, k in (("big1", 33), ("c2", 3), ("big2", 33), ("c3", 3)):
        inits.append(numpy_helper.from_array(np.ones((4, 4, k, k), np.float32), name + ".weight"))
    nodes = [
        helper.make_node("Conv", ["input", "c1.weight"], ["c1_out"], name="c1", kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c1_out"], ["r1_out"], name="r1"),
        helper.make_node("Conv", ["r1_out", "big1.weight"], ["big1_out"], name="big1", kernel_shape=[33, 33]),
        helper.make_node("Conv", ["big1_out", "c2.weight"], ["c2_out"], name="c2", kernel_shape=[3, 3]),
        helper.make_node("Conv", ["c2_out", "big2.weight"], ["big2_out"], name="big2", kernel_shape=[33, 33]),
        helper.make_node("Conv", ["big2_out", "c3.weight"], ["c3_out"], name="c3", kernel_shape=[3, 3]),
        helper.make_node("GlobalAveragePool", ["c3_out"], ["output"], name="gap"),
    ]
    graph = helper.make_graph(nodes, "dla_chain", [x], [y], inits)
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def dla_dynamic():
    """For the DLA summary without MACs: a Conv on an input of unknown size (its MACs cannot be counted)."""
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, "H", "W"])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, "H2", "W2"])
    inits = [numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")]
    nodes = [
        helper.make_node("Conv", ["input", "w"], ["conv_out"], name="conv", kernel_shape=[3, 3]),
        helper.make_node("Relu", ["conv_out"], ["output"], name="relu"),
    ]
    graph = helper.make_graph(nodes, "dla_dynamic", [x], [y], inits)
    model = helper.make_model(graph, producer_name="trtlens-browser-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(demo(), os.path.join(out, "demo.onnx"))
    onnx.save(chain(600), os.path.join(out, "chain.onnx"))
    onnx.save(function_model(), os.path.join(out, "function.onnx"))
    onnx.save(overlay_model(), os.path.join(out, "overlay.onnx"))
    onnx.save(problems(), os.path.join(out, "problems.onnx"))
    onnx.save(dla_model(), os.path.join(out, "dla.onnx"))
    onnx.save(dla_chain(), os.path.join(out, "dla_chain.onnx"))
    onnx.save(dla_dynamic(), os.path.join(out, "dla_dynamic.onnx"))
    onnx.save(anchors(), os.path.join(out, "anchors.onnx"))


if __name__ == "__main__":
    main()
