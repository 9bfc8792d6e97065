#!/usr/bin/env python3
"""Writes a transformer-like ONNX model of about NODES nodes (default 10,000).

Usage: make_model.py OUT.onnx [NODES]
Each encoder block (50 nodes) is written out op by op, as exporters do:
LayerNorm decomposed into ReduceMean/Sub/Pow/Sqrt/Div, attention with
Shape/Gather/Concat/Reshape plumbing, GELU through Erf. Weights are tiny
(hidden size 32) so the file stays small; the graph is what is measured.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H = 32


def main():
    out = sys.argv[1]
    target = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    nodes, inits = [], []
    counter = [0]

    def node(op, inputs, n_out=1, **attrs):
        counter[0] += 1
        name = f"/{op}_{counter[0]}"
        outs = [f"{name}_out{j}" for j in range(n_out)]
        nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    one_d = const("axes_last", np.array([-1], np.int64))
    two = const("two", np.array(2.0, np.float32))
    eps = const("eps", np.array(1e-5, np.float32))
    sqrt2 = const("sqrt2", np.array(1.4142135, np.float32))
    half = const("half", np.array(0.5, np.float32))
    onef = const("onef", np.array(1.0, np.float32))
    idx0 = const("idx0", np.array(0, np.int64))
    idx1 = const("idx1", np.array(1, np.int64))
    heads = const("heads", np.array([4, 8], np.int64))

    def layer_norm(x, b):
        mean = node("ReduceMean", [x], axes=[-1])
        d = node("Sub", [x, mean])
        var = node("ReduceMean", [node("Pow", [d, two])], axes=[-1])
        y = node("Div", [d, node("Sqrt", [node("Add", [var, eps])])])
        return node("Add", [node("Mul", [y, const(f"ln{b}_{counter[0]}.w", np.ones(H, np.float32))]),
                            const(f"ln{b}_{counter[0]}.b", np.zeros(H, np.float32))])

    def linear(x, b, n_in=H, n_out=H):
        w = const(f"l{b}_{counter[0]}.w", np.full((n_in, n_out), 0.01, np.float32))
        return node("Add", [node("MatMul", [x, w]), const(f"l{b}_{counter[0]}.b", np.zeros(n_out, np.float32))])

    x = "input_ids"
    emb = const("embedding", np.full((100, H), 0.01, np.float32))
    h = node("Gather", [emb, x])
    b = 0
    while len(nodes) < target - 60:
        # Attention.
        ln = layer_norm(h, b)
        shape = node("Shape", [ln])
        batch = node("Unsqueeze", [node("Gather", [shape, idx0], axis=0), idx0])
        seq = node("Unsqueeze", [node("Gather", [shape, idx1], axis=0), idx0])
        new_shape = node("Concat", [batch, seq, heads], axis=0)
        def split_heads(t):
            return node("Transpose", [node("Reshape", [t, new_shape])], perm=[0, 2, 1, 3])
        q, k, v = (split_heads(linear(ln, b)) for _ in range(3))
        scores = node("Div", [node("MatMul", [q, node("Transpose", [k], perm=[0, 1, 3, 2])]),
                              const(f"scale{b}", np.array(2.8284, np.float32))])
        attn = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        merged_shape = node("Concat", [batch, seq, const(f"hid{b}", np.array([H], np.int64))], axis=0)
        merged = node("Reshape", [node("Transpose", [attn], perm=[0, 2, 1, 3]), merged_shape])
        h = node("Add", [h, linear(merged, b)])
        # MLP with GELU.
        ln2 = layer_norm(h, b)
        up = linear(ln2, b, H, 4 * H)
        gelu = node("Mul", [node("Mul", [up, half]), node("Add", [node("Erf", [node("Div", [up, sqrt2])]), onef])])
        h = node("Add", [h, linear(gelu, b, 4 * H, H)])
        b += 1
    while len(nodes) < target - 1:
        h = node("Relu", [h])
    logits = node("Cast", [h], to=TensorProto.FLOAT16)
    graph = helper.make_graph(
        nodes, "bench", [helper.make_tensor_value_info(x, TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info(logits, TensorProto.FLOAT16, ["batch", "seq", H])], inits)
    model = helper.make_model(graph, producer_name="trtlens-bench", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, out)
    print(f"{out}: {len(nodes)} nodes, {b} blocks")


if __name__ == "__main__":
    main()
