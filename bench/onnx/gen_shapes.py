#!/usr/bin/python3
"""Wide graphs of structurally different shapes for the check benchmark (issue 34), Debian's python3-onnx.

Each family is a set of parallel branches from one input x, the branch ends summed into y; a branch
repeats its family's block until the graph has about NODES nodes:

  layernorm   ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, MatMul, Add, Reshape, twice per branch; a
              MatMul weight of its own per block (the issue's 5,000-branch graph: 100k nodes, ~10k small initializers)
  attention   q/k/v MatMul, Reshape, Transpose, MatMul, Div, Softmax, MatMul, Transpose, Reshape, Add
  conv        Conv, BatchNormalization, Relu on NCHW tensors, shared weights
  inits       Add of a 16-float initializer of its own per node (one initializer per node)
  longnames   the layernorm block with 200-character node and tensor names

Usage: gen_shapes.py OUT_DIR [--nodes N] [--only FAMILY ...]  (writes OUT_DIR/<family>_<N>.onnx)
"""
import argparse
import os
import sys

import onnx
from onnx import TensorProto, helper

OPSET = 17
FAMILIES = ["layernorm", "attention", "conv", "inits", "longnames"]


class Builder:
    def __init__(self, name, long_names=False):
        self.graph = onnx.GraphProto()
        self.graph.name = name
        self.prefix = ("n" * 190 + "_") if long_names else ""
        self.count = 0

    def init(self, name, dtype, dims, values):
        self.graph.initializer.append(helper.make_tensor(name, dtype, dims, values))
        return name

    def node(self, op, inputs, **attrs):
        self.count += 1
        out = f"{self.prefix}{op.lower()}_{self.count}"
        n = self.graph.node.add()
        n.op_type, n.name = op, out
        n.input.extend(inputs)
        n.output.append(out)
        for k, v in attrs.items():
            n.attribute.append(helper.make_attribute(k, v))
        return out


def layernorm_block(b, x, br):
    w = b.init(f"{b.prefix}w{br}", TensorProto.FLOAT, [16, 16], [0.01] * 256)
    mean = b.node("ReduceMean", [x], axes=[-1])
    d = b.node("Sub", [x, mean])
    var = b.node("ReduceMean", [b.node("Pow", [d, "two"])], axes=[-1])
    y = b.node("Div", [d, b.node("Sqrt", [b.node("Add", [var, "eps"])])])
    return b.node("Reshape", [b.node("Add", [b.node("MatMul", [y, w]), "bias"]), "shape"])


def attention_block(b, x, br):
    q, k, v = (b.node("Transpose", [b.node("Reshape", [b.node("MatMul", [x, w]), "heads"])], perm=[0, 2, 1, 3])
               for w in ("wq", "wk", "wv"))
    s = b.node("Softmax", [b.node("Div", [b.node("MatMul", [q, b.node("Transpose", [k], perm=[0, 1, 3, 2])]), "scale"])],
               axis=-1)
    c = b.node("Reshape", [b.node("Transpose", [b.node("MatMul", [s, v])], perm=[0, 2, 1, 3]), "merge"])
    return b.node("Add", [x, c])


def conv_block(b, x, br):
    c = b.node("Conv", [x, "cw", "cb"], pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    return b.node("Relu", [b.node("BatchNormalization", [c, "g", "beta", "mu", "var"])])


def inits_block(b, x, br):
    for i in range(10):
        x = b.node("Add", [x, b.init(f"c{br}_{i}", TensorProto.FLOAT, [16], [0.5] * 16)])
    return x


def build(family, nodes):
    b = Builder(family, long_names=family == "longnames")
    f = TensorProto.FLOAT
    if family in ("layernorm", "longnames"):
        block, per, xshape = layernorm_block, 10, [4, 16]
        b.init("two", f, [], [2.0]), b.init("eps", f, [], [1e-5]), b.init("shape", TensorProto.INT64, [2], [-1, 16])
        b.init("bias", f, [16], [0.0] * 16)
    elif family == "attention":
        block, per, xshape = attention_block, 17, [1, 8, 16]
        for w in ("wq", "wk", "wv"):
            b.init(w, f, [16, 16], [0.01] * 256)
        b.init("heads", TensorProto.INT64, [4], [0, 0, 2, 8]), b.init("merge", TensorProto.INT64, [3], [0, 0, 16])
        b.init("scale", f, [], [2.83])
    elif family == "conv":
        block, per, xshape = conv_block, 3, [1, 4, 8, 8]
        b.init("cw", f, [4, 4, 3, 3], [0.01] * 144), b.init("cb", f, [4], [0.0] * 4)
        for n, v in (("g", 1.0), ("beta", 0.0), ("mu", 0.0), ("var", 1.0)):
            b.init(n, f, [4], [v] * 4)
    else:
        block, per, xshape = inits_block, 10, [4, 16]
    depth = 20 if family != "conv" else 21  # nodes per branch: two blocks (layernorm), seven conv blocks, ...
    blocks = max(1, depth // per)
    branches = max(1, (nodes - 1) // (blocks * per))
    ends = []
    for br in range(branches):
        x = "x"
        for i in range(blocks):
            x = block(b, x, br * blocks + i)
        ends.append(x)
    n = b.graph.node.add()
    n.op_type, n.name = "Sum", "sum"
    n.input.extend(ends)
    n.output.append("y")
    b.graph.input.append(helper.make_tensor_value_info("x", f, xshape))
    b.graph.output.append(helper.make_tensor_value_info("y", f, None))
    model = helper.make_model(b.graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="trtlens-bench")
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--only", nargs="*", choices=FAMILIES)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for family in args.only or FAMILIES:
        model = build(family, args.nodes)
        path = os.path.join(args.out_dir, f"{family}_{args.nodes}.onnx")
        onnx.save_model(model, path)
        print(f"{path}: {len(model.graph.node)} nodes, {len(model.graph.initializer)} initializers", flush=True)


if __name__ == "__main__":
    sys.exit(main())
