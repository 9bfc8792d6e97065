#!/usr/bin/env python3
"""Models for bench/partition/dla.sh: what a DLA cut costs where it cuts most.

Usage: gen_dla.py OUT_DIR. Writes
- dla_chain.onnx: a chain of 10,000 nodes alternating Relu (on the DLA at 8.5 fp16) and MaxPool
  with a 9x9 window (> 8: GPU), so every node is a part of its own: 5,000 DLA loadables;
- dla_branches.onnx: 1,000 branches of Conv 1x1 -> Relu -> MaxPool 9x9 -> Relu from one input,
  summed pairwise (5,999 nodes): the schedule gathers the branches into a few parts.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def pool(x, y):
    return helper.make_node("MaxPool", [x], [y], kernel_shape=[9, 9], pads=[4, 4, 4, 4])


def chain(out, n=10000):
    nodes, at = [], "x"
    for i in range(n):
        y = f"t{i}"
        nodes.append(helper.make_node("Relu", [at], [y]) if i % 2 == 0 else pool(at, y))
        at = y
    g = helper.make_graph(nodes, "dla_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info(at, TensorProto.FLOAT, [1, 4, 8, 8])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(out, "dla_chain.onnx"))


def branches(out, n=1000):
    nodes, inits, ends = [], [], []
    for b in range(n):
        inits.append(numpy_helper.from_array(np.full((4, 4, 1, 1), 0.01 * (b % 7), np.float32), f"w{b}"))
        nodes += [helper.make_node("Conv", ["x", f"w{b}"], [f"c{b}"]),
                  helper.make_node("Relu", [f"c{b}"], [f"r{b}"]),
                  pool(f"r{b}", f"p{b}"),
                  helper.make_node("Relu", [f"p{b}"], [f"e{b}"])]
        ends.append(f"e{b}")
    k = 0
    while len(ends) > 1:
        nxt = []
        for i in range(0, len(ends) - 1, 2):
            nodes.append(helper.make_node("Add", [ends[i], ends[i + 1]], [f"s{k}"]))
            nxt.append(f"s{k}")
            k += 1
        if len(ends) % 2:
            nxt.append(ends[-1])
        ends = nxt
    g = helper.make_graph(nodes, "dla_branches", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info(ends[0], TensorProto.FLOAT, [1, 4, 8, 8])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(out, "dla_branches.onnx"))


if __name__ == "__main__":
    os.makedirs(sys.argv[1], exist_ok=True)
    chain(sys.argv[1])
    branches(sys.argv[1])
