#!/usr/bin/env python3
"""Synthesizes a large engine description in trtexec's layout (8.x, like the
shared ResNet/MobileNet samples): graph.json (detailed layer info), profile.json
(first record {"count": N}), profile.metadata.json, build.metadata.json.

The layer mix follows the samples: mostly fused convolutions, NoOps, inserted
reformats (FP32<->FP16), Q/DQ reformats and INT8 convolutions, pooling, shuffles.
Deterministic (seeded) so runs compare.

usage: gen_engine.py --layers 20000 --out DIR/synth.onnx.engine
"""
import argparse
import json
import os
import random

FMT = {
    "FP32": "Row major linear FP32",
    "FP16": "Channel major FP16 format where channel % 8 == 0",
    "INT8": "Thirty-two wide channel vectorized row major Int8 format",
    "FP16L": "Row major linear FP16 format",
}


def tensor(name, dims, fmt):
    return {"Name": name, "Location": "Device", "Dimensions": dims, "Format/Datatype": FMT[fmt]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=20000)
    ap.add_argument("--out", required=True, help="path prefix, e.g. /tmp/synth/synth.onnx.engine")
    a = ap.parse_args()
    rnd = random.Random(20000)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    layers, prof = [], []
    cur, cur_fmt, ch = "input", "FP32", 64
    dims = lambda c: [8, c, 28, 28]
    i = 0

    def add(layer, ms):
        layers.append(layer)
        prof.append((layer["Name"], ms))

    while len(layers) < a.layers:
        i += 1
        kind = rnd.random()
        if cur_fmt == "FP32" or (kind < 0.04):
            # inserted reformat to FP16 (or a QDQ reformat into INT8)
            to = "INT8" if kind < 0.02 else "FP16"
            name = f"Reformatting CopyNode for Input Tensor 0 to Conv_{i} + Relu_{i}" if to == "FP16" else f"QuantizeLinear_{i}"
            out = f"r{i}"
            add({"Name": name, "LayerType": "Reformat", "Inputs": [tensor(cur, dims(ch), cur_fmt)],
                 "Outputs": [tensor(out, dims(ch), to)], "ParameterType": "Reformat",
                 "Origin": "REFORMAT" if to == "FP16" else "QDQ", "TacticValue": "0x0000000000000000"},
                round(rnd.uniform(0.002, 0.02), 6))
            cur, cur_fmt = out, to
            continue
        if kind < 0.55:
            k = rnd.choice([32, 64, 128, 256, 60])
            out = f"t{i}"
            prec = cur_fmt
            tactic = ("sm80_xmma_fprop_implicit_gemm_interleaved_i8i8_i8i32_f32_nchw_vect_c_32kcrs_vect_c_32"
                      if prec == "INT8" else
                      "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize128x128x32")
            out_fmt = "FP16" if (prec == "INT8" and rnd.random() < 0.1) else prec
            add({"Name": f"Conv_{i} + Relu_{i}", "LayerType": "CaskConvolution",
                 "Inputs": [tensor(cur, dims(ch), prec)], "Outputs": [tensor(out, dims(k), out_fmt)],
                 "ParameterType": "Convolution", "Kernel": [3, 3], "PaddingMode": "kEXPLICIT_ROUND_DOWN",
                 "PrePadding": [1, 1], "PostPadding": [1, 1], "Stride": [1, 1], "Dilation": [1, 1],
                 "OutMaps": k, "Groups": 1, "Weights": {"Type": "Half", "Count": 9 * ch * k},
                 "Bias": {"Type": "Half", "Count": k}, "HasSparseWeights": 0, "Activation": "RELU",
                 "HasBias": 1, "HasReLU": 1, "TacticName": tactic,
                 "TacticValue": "0x%016x" % rnd.getrandbits(64)}, round(rnd.uniform(0.01, 0.2), 6))
            cur, cur_fmt, ch = out, out_fmt, k
        elif kind < 0.70:
            out = f"n{i}"
            add({"Name": f"(Unnamed Layer* {i}) [Shuffle]", "LayerType": "NoOp",
                 "Inputs": [tensor(cur, dims(ch), cur_fmt)], "Outputs": [tensor(out, dims(ch), cur_fmt)],
                 "TacticValue": "0x0000000000000000"}, 0.0)
            cur = out
        elif kind < 0.85:
            out = f"p{i}"
            add({"Name": f"MaxPool_{i}", "LayerType": "CudaPooling", "Inputs": [tensor(cur, dims(ch), cur_fmt)],
                 "Outputs": [tensor(out, dims(ch), cur_fmt)], "ParameterType": "Pooling", "PoolingType": "MAX",
                 "WindowSize": [3, 3], "PaddingMode": "kEXPLICIT_ROUND_DOWN", "PrePadding": [1, 1],
                 "PostPadding": [1, 1], "Stride": [1, 1], "BlendFactor": 0, "AverageCountExcludesPadding": 1,
                 "TacticValue": "0xfffffffffffffffe"}, round(rnd.uniform(0.005, 0.05), 6))
            cur = out
        else:
            out = f"s{i}"
            add({"Name": f"Transpose_{i}", "LayerType": "Shuffle", "Inputs": [tensor(cur, dims(ch), cur_fmt)],
                 "Outputs": [tensor(out, dims(ch), cur_fmt)], "ParameterType": "Shuffle",
                 "FirstTranspose": [0, 1, 2, 3], "Reshape": [8, ch, 28, 28], "SecondTranspose": [0, 1, 2, 3],
                 "ZeroIsPlaceholder": 1, "TacticValue": "0x0000000000000000"}, round(rnd.uniform(0.002, 0.03), 6))
            cur = out
    # The last layer writes the engine output.
    layers[-1]["Outputs"][0]["Name"] = "output"
    with open(a.out + ".graph.json", "w") as f:
        json.dump({"Layers": layers, "Bindings": ["input", "output"]}, f, indent=2)
    count = 100
    total = sum(ms for _, ms in prof) or 1
    with open(a.out + ".profile.json", "w") as f:
        f.write('[\n  { "count" : %d }\n' % count)
        for n, ms in prof:
            f.write(', { "name" : "%s", "timeMs" : %g, "averageMs" : %g, "medianMs" : %g, "percentage" : %g }\n'
                    % (n, ms * count, ms, ms, 100 * ms / total))
        f.write("]\n")
    with open(a.out + ".profile.metadata.json", "w") as f:
        json.dump({"performance_summary": {"Throughput": 1000.0 / total, "Latency": [total] * 5},
                   "inference_options": {"Batch": "Explicit"},
                   "device_information": {"Selected Device": "synthetic", "Compute Capability": 8.0, "SMs": 108.0,
                                          "Compute Clock Rate": 1.41, "Memory Bus Width": 5120.0,
                                          "Memory Clock Rate": 1.512}}, f)
    with open(a.out + ".build.metadata.json", "w") as f:
        json.dump({"model_options": {"Format": "ONNX", "Model": "synthetic.onnx"},
                   "build_options": {"Precision": "FP32+FP16+INT8"}}, f)
    print(f"{a.out}: {len(layers)} layers, graph.json {os.path.getsize(a.out + '.graph.json')} bytes")


if __name__ == "__main__":
    main()
