#!/usr/bin/python3
"""Generates the ONNX models of the check/matrix benchmarks (Debian's python3-onnx).

  gpt2_external/model.onnx  GPT-2-style decoder, 48 layers, hidden 1600 (~1.5 B parameters),
                            weights in external data (weights.bin, a sparse file: no disk is used
                            for the zeros, and neither trtlens nor onnx.load(load_external_data=False)
                            reads them)
  gpt2_embedded.onnx        the same decoder with 14 layers, its ~1.7 GB of weights embedded
  wide.onnx                 ~100,000 small nodes in 1,000 parallel branches
  chain.onnx                one chain of 1,000,000 small nodes (same op mix)

Usage: gen_models.py OUT_DIR [--only NAME]
"""
import argparse
import os
import sys

import onnx
from onnx import TensorProto, helper

OPSET = 17
VOCAB = 50257


class Decoder:
    """Builds the node list of a GPT-2 block stack; weights are described by add_weight()."""

    def __init__(self, hidden, layers, add_weight):
        self.h, self.layers, self.add_weight = hidden, layers, add_weight
        self.nodes, self.small = [], []
        self.count = 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def node(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def const_i64(self, values):
        name = self.name("shape")
        self.small.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
        return name

    def const_f(self, value):
        name = self.name("scalar")
        self.small.append(helper.make_tensor(name, TensorProto.FLOAT, [], [value]))
        return name

    def linear(self, x, fan_in, fan_out, prefix):
        w = self.add_weight(f"{prefix}.weight", [fan_in, fan_out])
        b = self.add_weight(f"{prefix}.bias", [fan_out])
        return self.node("Add", [self.node("MatMul", [x, w]), b])

    def layer_norm(self, x, prefix):
        g = self.add_weight(f"{prefix}.gamma", [self.h])
        b = self.add_weight(f"{prefix}.beta", [self.h])
        return self.node("LayerNormalization", [x, g, b], axis=-1, epsilon=1e-5)

    def block(self, x, i):
        h, heads = self.h, 25
        p = f"h.{i}"
        a = self.layer_norm(x, f"{p}.ln_1")
        qkv = self.linear(a, h, 3 * h, f"{p}.attn.c_attn")
        split = self.name("split")
        q, k, v = (f"{split}_{j}" for j in range(3))
        self.nodes.append(helper.make_node("Split", [qkv, self.const_i64([h, h, h])], [q, k, v], name=split, axis=-1))
        heads_shape = self.const_i64([0, 0, heads, h // heads])
        q, k, v = (self.node("Transpose", [self.node("Reshape", [t, heads_shape])], perm=[0, 2, 1, 3]) for t in (q, k, v))
        kt = self.node("Transpose", [k], perm=[0, 1, 3, 2])
        scores = self.node("Div", [self.node("MatMul", [q, kt]), self.const_f(8.0)])
        probs = self.node("Softmax", [scores], axis=-1)
        ctx = self.node("Transpose", [self.node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = self.node("Reshape", [ctx, self.const_i64([0, 0, h])])
        x = self.node("Add", [x, self.linear(ctx, h, h, f"{p}.attn.c_proj")])
        m = self.layer_norm(x, f"{p}.ln_2")
        f = self.linear(m, h, 4 * h, f"{p}.mlp.c_fc")
        # tanh-approximated GELU, as GPT-2 exports it
        cube = self.node("Pow", [f, self.const_f(3.0)])
        inner = self.node("Add", [f, self.node("Mul", [cube, self.const_f(0.044715)])])
        t = self.node("Tanh", [self.node("Mul", [inner, self.const_f(0.7978845608)])])
        gelu = self.node("Mul", [self.node("Mul", [f, self.const_f(0.5)]), self.node("Add", [t, self.const_f(1.0)])])
        return self.node("Add", [x, self.linear(gelu, 4 * h, h, f"{p}.mlp.c_proj")])

    def build(self):
        ids = "input_ids"
        wte = self.add_weight("wte", [VOCAB, self.h])
        wpe = self.add_weight("wpe", [1024, self.h])
        pos = self.node("Gather", [wpe, self.const_i64(list(range(8)))])
        x = self.node("Add", [self.node("Gather", [wte, ids]), pos])
        for i in range(self.layers):
            x = self.block(x, i)
        x = self.layer_norm(x, "ln_f")
        logits = self.node("MatMul", [x, self.node("Transpose", [wte], perm=[1, 0])])
        graph = helper.make_graph(
            self.nodes, "gpt2",
            [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", 8])],
            [helper.make_tensor_value_info(logits, TensorProto.FLOAT, ["batch", 8, VOCAB])],
            initializer=self.small)
        return graph


def numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def gpt2_external(out_dir, layers=48, hidden=1600):
    folder = os.path.join(out_dir, "gpt2_external")
    os.makedirs(folder, exist_ok=True)
    weights, offset = [], [0]

    def add_weight(name, dims):
        t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
        t.data_location = TensorProto.EXTERNAL
        length = numel(dims) * 4
        for k, v in (("location", "weights.bin"), ("offset", str(offset[0])), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        offset[0] += length
        weights.append(t)
        return name

    graph = Decoder(hidden, layers, add_weight).build()
    graph.initializer.extend(weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="trtlens-bench")
    onnx.save_model(model, os.path.join(folder, "model.onnx"))
    with open(os.path.join(folder, "weights.bin"), "wb") as f:
        f.truncate(offset[0])  # sparse: the bytes are zeros and are never read
    return offset[0]


def gpt2_embedded(out_dir, layers=14, hidden=1600):
    weights = []

    def add_weight(name, dims):
        weights.append(TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims, raw_data=bytes(numel(dims) * 4)))
        return name

    graph = Decoder(hidden, layers, add_weight).build()
    graph.initializer.extend(weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="trtlens-bench")
    path = os.path.join(out_dir, "gpt2_embedded.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return os.path.getsize(path)


def wide(out_dir, branches=1000, depth=100):
    """x -> 1,000 branches of 100 small ops (MatMul, Add, Relu, Reshape, Sigmoid, Mul) -> Sum."""
    nodes = []
    inits = [
        helper.make_tensor("w", TensorProto.FLOAT, [16, 16], [0.01] * 256),
        helper.make_tensor("b", TensorProto.FLOAT, [16], [0.0] * 16),
        helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 16]),
    ]
    ops = ["MatMul", "Add", "Relu", "Reshape", "Sigmoid", "Mul"]
    ends = []
    for br in range(branches):
        x = "x"
        for d in range(depth - 1):
            op = ops[d % len(ops)]
            out = f"b{br}_{d}"
            inputs = {"MatMul": [x, "w"], "Add": [x, "b"], "Reshape": [x, "shape"], "Mul": [x, x]}.get(op, [x])
            nodes.append(helper.make_node(op, inputs, [out], name=out))
            x = out
        ends.append(x)
    nodes.append(helper.make_node("Sum", ends, ["y"], name="sum"))
    graph = helper.make_graph(nodes, "wide", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="trtlens-bench")
    onnx.save_model(model, os.path.join(out_dir, "wide.onnx"))
    return len(nodes)


def chain(out_dir, length=1_000_000):
    """x -> one chain of 1,000,000 small ops (the wide graph's op mix) -> y."""
    inits = [
        helper.make_tensor("w", TensorProto.FLOAT, [16, 16], [0.01] * 256),
        helper.make_tensor("b", TensorProto.FLOAT, [16], [0.0] * 16),
        helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 16]),
    ]
    ops = ["MatMul", "Add", "Relu", "Reshape", "Sigmoid", "Mul"]
    graph = onnx.GraphProto()
    graph.name = "chain"
    x = "x"
    for d in range(length):
        op = ops[d % len(ops)]
        out = "y" if d == length - 1 else f"n{d}"
        node = graph.node.add()
        node.op_type = op
        node.name = out
        node.input.extend({"MatMul": [x, "w"], "Add": [x, "b"], "Reshape": [x, "shape"], "Mul": [x, x]}.get(op, [x]))
        node.output.append(out)
        x = out
    graph.initializer.extend(inits)
    graph.input.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16]))
    graph.output.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, None))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="trtlens-bench")
    onnx.save_model(model, os.path.join(out_dir, "chain.onnx"))
    return length


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--only", choices=["external", "embedded", "wide", "chain"])
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    if args.only in (None, "wide"):
        print(f"wide.onnx: {wide(args.out_dir)} nodes", flush=True)
    if args.only in (None, "chain"):
        print(f"chain.onnx: {chain(args.out_dir)} nodes", flush=True)
    if args.only in (None, "external"):
        print(f"gpt2_external: {gpt2_external(args.out_dir) / 1e9:.2f} GB of external weights", flush=True)
    if args.only in (None, "embedded"):
        print(f"gpt2_embedded.onnx: {gpt2_embedded(args.out_dir) / 1e9:.2f} GB", flush=True)


if __name__ == "__main__":
    sys.exit(main())
