#!/usr/bin/env python3
"""Writes small ONNX models shaped like real exports into OUTDIR, for check_quant_exports.py:
NVIDIA ModelOpt's quantized exports (op_types, domains and the element types its exporter
declares), an opset-23 LLM decoder block and a torch.jit.script while loop.

Uses only onnx.helper (Debian's python3-onnx 1.12 has no FP8/INT4/FP4 enum names, so the
element types are written as their onnx.proto numbers). Citations are to
NVIDIA/TensorRT-Model-Optimizer at 5a4242faf4147fb0688bb73e10ca30b8ad3aabb3:
  modelopt/torch/quantization/export_onnx.py (EO), modelopt/onnx/quantization/fp8.py (FP8),
  modelopt/onnx/quantization/qdq_utils.py (QU).
Usage: quant_exports.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h

FLOAT8E4M3FN, UINT4, INT4, FLOAT4E2M1, FLOAT8E8M0 = 17, 21, 22, 23, 24


def raw(name, dtype, dims, data):
    """An initializer from its bytes (4-bit types: two per byte, low nibble first)."""
    t = T()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    t.raw_data = bytes(data)
    return t


def f32(name, dims, value):
    return h.make_tensor(name, T.FLOAT, dims, np.full(int(np.prod(dims)), value, np.float32).tolist())


def vi(name, dtype, dims):
    return h.make_tensor_value_info(name, dtype, dims)


def save(outdir, name, nodes, inputs, outputs, inits, value_info=(), opset=19):
    g = h.make_graph(nodes, name, inputs, outputs, inits, value_info=list(value_info))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset), h.make_opsetid("trt", 1)])
    m.ir_version = 10 if opset >= 21 else 9
    onnx.save(m, os.path.join(outdir, name + ".onnx"))


def fp8_modelopt(outdir):
    # Activations: EO:237-239 writes trt::TRT_FP8QuantizeLinear and declares its output UINT8;
    # EO:259-261 trt::TRT_FP8DequantizeLinear back to float. Weights: the ONNX path quantizes
    # with standard Q/DQ whose zero point becomes a FLOAT8E4M3FN raw_data initializer (FP8:104-110).
    nodes = [
        h.make_node("TRT_FP8QuantizeLinear", ["x", "sx"], ["xq"], "fp8_q_x", domain="trt"),
        h.make_node("TRT_FP8DequantizeLinear", ["xq", "sx"], ["xd"], "fp8_dq_x", domain="trt"),
        h.make_node("QuantizeLinear", ["W", "sw", "zp"], ["wq"], "q_w"),
        h.make_node("DequantizeLinear", ["wq", "sw", "zp"], ["wd"], "dq_w"),
        h.make_node("MatMul", ["xd", "wd"], ["y"], "matmul"),
    ]
    inits = [f32("W", [16, 16], 0.25), f32("sx", [], 0.5), f32("sw", [], 0.5), raw("zp", FLOAT8E4M3FN, [], [0])]
    save(outdir, "fp8_modelopt", nodes, [vi("x", T.FLOAT, [1, 16])], [vi("y", T.FLOAT, [1, 16])], inits,
         [vi("xq", T.UINT8, [1, 16]), vi("wq", FLOAT8E4M3FN, [16, 16])])


def int4_awq(outdir):
    # Weight-only INT4: DequantizeLinear of a packed INT4 initializer, block-wise scales
    # (block_size attribute, QU:321-336 keeps it for 4-bit), signed INT4 without zero point
    # (QU:300-313); a second DQ with an explicit INT4 zero point of zeros.
    k, n, bs = 32, 16, 16
    w = raw("Wq", INT4, [k, n], [0x21] * (k * n // 2))
    s = h.make_tensor("s", T.FLOAT16, [k // bs, n], np.full(k // bs * n, 0.01, np.float16).view(np.uint16).tolist())
    zp = raw("zp4", INT4, [k // bs, n], [0] * (k // bs * n // 2))
    nodes = [
        h.make_node("DequantizeLinear", ["Wq", "s"], ["wd"], "dq_w_int4", axis=0, block_size=bs),
        h.make_node("DequantizeLinear", ["Wq", "s", "zp4"], ["wd2"], "dq_w_int4_zp", axis=0, block_size=bs),
        h.make_node("MatMul", ["x", "wd"], ["y0"], "matmul"),
        h.make_node("MatMul", ["x", "wd2"], ["y1"], "matmul_zp"),
        h.make_node("Add", ["y0", "y1"], ["y"], "add"),
    ]
    save(outdir, "int4_awq", nodes, [vi("x", T.FLOAT16, [1, k])], [vi("y", T.FLOAT16, [1, n])], [w, s, zp], opset=21)


def nvfp4(outdir):
    # Activations: EO:535-544 trt::TRT_FP4DynamicQuantize(x, global scale) -> (FP4 data, FP8
    # block scales, scale_type=FLOAT8E4M3FN); EO:646-650 two-level DQ (EO:548-572): the FP8
    # scales are dequantized by the global scale, then the FP4 data by those, block_size 16.
    # Weights: a packed FP4 initializer with FP8 block scales, dequantized the same way.
    k, n, bs = 32, 16, 16
    nodes = [
        h.make_node("TRT_FP4DynamicQuantize", ["x", "gx"], ["xf4", "sxf8"], "fp4_dynq_x", domain="trt",
                    axis=-1, block_size=bs, scale_type=FLOAT8E4M3FN),
        h.make_node("DequantizeLinear", ["sxf8", "gx"], ["sx"], "dq_sx"),
        h.make_node("DequantizeLinear", ["xf4", "sx"], ["xd"], "dq_x", axis=-1, block_size=bs),
        h.make_node("DequantizeLinear", ["swf8", "gw"], ["sw"], "dq_sw"),
        h.make_node("DequantizeLinear", ["Wf4", "sw"], ["wd"], "dq_w", axis=0, block_size=bs),
        h.make_node("MatMul", ["xd", "wd"], ["y"], "matmul"),
    ]
    inits = [f32("gx", [], 1.0), f32("gw", [], 1.0), raw("Wf4", FLOAT4E2M1, [k, n], [0x22] * (k * n // 2)),
             raw("swf8", FLOAT8E4M3FN, [k // bs, n], [0x38] * (k // bs * n))]
    save(outdir, "nvfp4", nodes, [vi("x", T.FLOAT, [1, k])], [vi("y", T.FLOAT, [1, n])], inits,
         [vi("xf4", FLOAT4E2M1, [1, k]), vi("sxf8", FLOAT8E4M3FN, [1, k // bs])], opset=21)


def mxfp8(outdir):
    # EO:574-589 trt::TRT_MXFP8DynamicQuantize -> (FP8 data, E8M0 block scales that the
    # exporter names sx_ui8 and types UINT8); EO:592-608 trt::TRT_MXFP8DequantizeLinear.
    k, n, bs = 64, 16, 32
    nodes = [
        h.make_node("TRT_MXFP8DynamicQuantize", ["x"], ["xf8", "sx_ui8"], "mxfp8_dynq_x", domain="trt",
                    axis=-1, block_size=bs, output_dtype=FLOAT8E4M3FN),
        h.make_node("TRT_MXFP8DequantizeLinear", ["xf8", "sx_ui8"], ["xd"], "mxfp8_dq_x", domain="trt",
                    axis=-1, block_size=bs, output_dtype=T.FLOAT16),
        h.make_node("MatMul", ["xd", "W"], ["y"], "matmul"),
    ]
    W = h.make_tensor("W", T.FLOAT16, [k, n], np.full(k * n, 0.25, np.float16).view(np.uint16).tolist())
    save(outdir, "mxfp8", nodes, [vi("x", T.FLOAT16, [1, k])], [vi("y", T.FLOAT16, [1, n])], [W],
         [vi("xf8", FLOAT8E4M3FN, [1, k]), vi("sx_ui8", T.UINT8, [1, k // bs])], opset=21)


def qdq_class(outdir):
    # QuantizeLinear typed by output_dtype (opset 21, no zero point) and by a UINT8 zero point
    # (imported as INT8); an E5M2 zero point; scales and zero points of several elements.
    nodes = [
        h.make_node("QuantizeLinear", ["x", "s"], ["q8"], "q_output_dtype_fp8", output_dtype=FLOAT8E4M3FN),
        h.make_node("DequantizeLinear", ["q8", "s"], ["d8"], "dq_fp8"),
        h.make_node("QuantizeLinear", ["d8", "s", "zu8"], ["qu"], "q_uint8_zp"),
        h.make_node("DequantizeLinear", ["qu", "s", "zu8"], ["du"], "dq_uint8_zp"),
        h.make_node("QuantizeLinear", ["W", "sc", "zc"], ["wq"], "q_w_per_channel_fp8", axis=1),
        h.make_node("DequantizeLinear", ["wq", "sc", "zc"], ["wd"], "dq_w_per_channel_fp8", axis=1),
        h.make_node("MatMul", ["du", "wd"], ["y"], "matmul"),
    ]
    inits = [f32("s", [], 0.5), raw("zu8", T.UINT8, [], [0]), f32("W", [8, 8], 0.25), f32("sc", [8], 0.5),
             raw("zc", FLOAT8E4M3FN, [8], [0x80] + [0] * 7)]
    save(outdir, "qdq_class", nodes, [vi("x", T.FLOAT, [1, 8])], [vi("y", T.FLOAT, [1, 8])], inits,
         [vi("q8", FLOAT8E4M3FN, [1, 8]), vi("qu", T.UINT8, [1, 8])], opset=21)


def nonzero_zero_points(outdir):
    # Decoded values decide: a packed INT4 zero point holding 1 (second nibble) and a UINT8
    # zero point of 128 are asymmetric, which the importer refuses.
    k, n, bs = 32, 16, 16
    nodes = [
        h.make_node("DequantizeLinear", ["Wq", "s", "zp4"], ["wd"], "dq_w_int4_zp1", axis=0, block_size=bs),
        h.make_node("MatMul", ["x", "wd"], ["y"], "matmul"),
    ]
    inits = [raw("Wq", INT4, [k, n], [0x21] * (k * n // 2)), f32("s", [k // bs, n], 0.01),
             raw("zp4", INT4, [k // bs, n], [0x10] + [0] * (k // bs * n // 2 - 1))]
    save(outdir, "nonzero_zero_points", nodes, [vi("x", T.FLOAT, [1, k])], [vi("y", T.FLOAT, [1, n])], inits,
         opset=21)


def uint8_boundary(outdir):
    # A UINT8 tensor really made inside the network (Cast to UINT8) stays refused; a UINT8
    # graph output is allowed.
    nodes = [
        h.make_node("Cast", ["x"], ["u"], "cast_to_uint8_inner", to=T.UINT8),
        h.make_node("Cast", ["u"], ["f"], "cast_back", to=T.FLOAT),
        h.make_node("Cast", ["f"], ["y"], "cast_to_uint8_output", to=T.UINT8),
    ]
    save(outdir, "uint8_boundary", nodes, [vi("x", T.FLOAT, [1, 8])], [vi("y", T.UINT8, [1, 8])], [])


def decoder_block(outdir, qkv_rank=4):
    # An LLM decoder block as exporters write it at opset 23: RMSNormalization, Q/K/V
    # projections reshaped to 4-D [batch, heads, seq, head_dim], RotaryEmbedding on Q and K,
    # causal Attention, output projection and residual. qkv_rank=3 writes the 3-D Q/K/V form
    # (Attention's q_num_heads/kv_num_heads), whose verdict another change decides.
    b, s, hidden, heads = 1, 8, 64, 4
    d = hidden // heads
    nodes = [h.make_node("RMSNormalization", ["x", "gamma"], ["xn"], "rmsnorm", axis=-1, epsilon=1e-6)]
    inits = [f32("gamma", [hidden], 1.0), f32("cos", [s, d // 2], 1.0), f32("sin", [s, d // 2], 0.0),
             f32("Wo", [hidden, hidden], 0.01),
             h.make_tensor("pos", T.INT64, [b, s], list(range(s))),
             h.make_tensor("shape4", T.INT64, [4], [b, s, heads, d]),
             h.make_tensor("shape3", T.INT64, [3], [b, s, hidden])]
    for name in ("q", "k", "v"):
        inits.append(f32("W" + name, [hidden, hidden], 0.01))
        nodes.append(h.make_node("MatMul", ["xn", "W" + name], [name + "_proj"], name + "_proj"))
        if qkv_rank == 4:
            nodes.append(h.make_node("Reshape", [name + "_proj", "shape4"], [name + "_bshd"], name + "_reshape"))
            nodes.append(h.make_node("Transpose", [name + "_bshd"], [name + "_bhsd"], name + "_transpose",
                                     perm=[0, 2, 1, 3]))
            src = name + "_bhsd"
        else:
            src = name + "_proj"
        if name != "v":
            extra = {} if qkv_rank == 4 else {"num_heads": heads}
            nodes.append(h.make_node("RotaryEmbedding", [src, "cos", "sin", "pos"], [name + "_rot"], name + "_rope",
                                     **extra))
            src = name + "_rot"
        nodes.append(h.make_node("Identity", [src], [name + "_in"], name + "_in"))
    extra = {} if qkv_rank == 4 else {"q_num_heads": heads, "kv_num_heads": heads}
    nodes.append(h.make_node("Attention", ["q_in", "k_in", "v_in"], ["attn"], "attention", is_causal=1, **extra))
    if qkv_rank == 4:
        nodes += [h.make_node("Transpose", ["attn"], ["attn_bshd"], "attn_transpose", perm=[0, 2, 1, 3]),
                  h.make_node("Reshape", ["attn_bshd", "shape3"], ["attn3"], "attn_reshape")]
    else:
        nodes.append(h.make_node("Identity", ["attn"], ["attn3"], "attn_out"))
    nodes += [h.make_node("MatMul", ["attn3", "Wo"], ["o"], "o_proj"), h.make_node("Add", ["x", "o"], ["y"], "residual")]
    name = "decoder_block" if qkv_rank == 4 else "decoder_block_3d"
    save(outdir, name, nodes, [vi("x", T.FLOAT, [b, s, hidden])],
         [vi("y", T.FLOAT, [b, s, hidden])], inits, opset=23)


def scripted_loop(outdir):
    # torch.jit.script's `while` loop as torch.onnx exports it: Loop with the INT64 maximum as
    # trip count (the loop ends by its condition), a loop-carried counter and a scan output.
    body = h.make_graph(
        [h.make_node("Add", ["i_in", "one"], ["i_out"], "inc"),
         h.make_node("Less", ["i_out", "limit"], ["cond_out"], "less"),
         h.make_node("Mul", ["i_out", "two"], ["scan"], "scan_value")],
        "body",
        [vi("iter", T.INT64, []), vi("cond_in", T.BOOL, []), vi("i_in", T.INT64, [])],
        [vi("cond_out", T.BOOL, []), vi("i_out", T.INT64, []), vi("scan", T.INT64, [])],
        [h.make_tensor("one", T.INT64, [], [1]), h.make_tensor("two", T.INT64, [], [2])])
    nodes = [h.make_node("Loop", ["max_trip", "cond0", "i0"], ["i_final", "scanned"], "while_loop", body=body)]
    inits = [h.make_tensor("max_trip", T.INT64, [], [9223372036854775807]),
             h.make_tensor("cond0", T.BOOL, [], [True]), h.make_tensor("i0", T.INT64, [], [0])]
    save(outdir, "scripted_loop", nodes, [vi("limit", T.INT64, [])],
         [vi("i_final", T.INT64, []), vi("scanned", T.INT64, [None])], inits, opset=17)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for make in (fp8_modelopt, int4_awq, nvfp4, mxfp8, qdq_class, nonzero_zero_points, uint8_boundary):
        make(outdir)
    decoder_block(outdir, 4)
    decoder_block(outdir, 3)
    scripted_loop(outdir)


if __name__ == "__main__":
    main()
