#!/usr/bin/env python3
"""Checks trtlens on the models quant_exports.py writes: at 10.8, 10.16 and 11.5, with the
precision the export's users ask for, whether the model converts and the verdict of every
Q/DQ node (an expected verdict for each; a Q/DQ node without one fails the test).
Usage: check_quant_exports.py TRTLENS MODELDIR
"""
import json
import subprocess
import sys

S, U = "SUPPORTED", "UNSUPPORTED"
ALL = ("10.8", "10.16", "11.5")

# model -> (precision, {release: (converts, {node name: verdict})}); releases not named take "*".
EXPECTED = {
    # TRT_FP8QuantizeLinear's output is FP8 in TensorRT whatever ONNX declares (UINT8);
    # the one-byte FP8 zero point decodes to 0.
    "fp8_modelopt": ("fp8", {"*": (True, {"fp8_q_x": S, "fp8_dq_x": S, "q_w": S, "dq_w": S})}),
    "int4_awq": ("fp16", {"*": (True, {"dq_w_int4": S, "dq_w_int4_zp": S})}),
    "nvfp4": ("fp8", {"*": (True, {"fp4_dynq_x": S, "dq_sx": S, "dq_x": S, "dq_sw": S, "dq_w": S})}),
    # No MXFP8 importers at 10.8 (data/importer/10.8.tsv); the E8M0 scale declared UINT8 is no boundary.
    "mxfp8": ("fp8", {"10.8": (False, {"mxfp8_dynq_x": U, "mxfp8_dq_x": U}),
                      "*": (True, {"mxfp8_dynq_x": S, "mxfp8_dq_x": S})}),
    "qdq_class": ("fp8", {"*": (True, {"q_output_dtype_fp8": S, "dq_fp8": S, "q_uint8_zp": S, "dq_uint8_zp": S,
                                       "q_w_per_channel_fp8": S, "dq_w_per_channel_fp8": S})}),
    "nonzero_zero_points": ("fp32", {"*": (False, {"dq_w_int4_zp1": U})}),
    # A real intermediate UINT8 is still refused; a UINT8 graph output is not.
    "uint8_boundary": ("fp32", {"*": (False, {"cast_to_uint8_inner": U, "cast_to_uint8_output": S})}),
}

# Models without Q/DQ nodes: only whether they convert (None: only that trtlens judges them).
# decoder_block_3d: 3-D Q/K/V with q_num_heads/kv_num_heads, reshaped by the 10.15+ importer (AttentionHelpers.cpp:51
# reshapeQKVTensor); 10.8 has no Attention importer. scripted_loop: a scan output under an INT64_MAX trip count,
# refused from 10.11 (10.16-GA onnxOpImporters.cpp:3641 "cannot infer the shape of scan output").
CONVERTS_ONLY = {
    "decoder_block": ("fp16", {"10.8": False, "10.16": True, "11.5": True}),
    "decoder_block_3d": ("fp16", {"10.8": False, "10.16": True, "11.5": True}),
    "scripted_loop": ("fp32", {"10.8": True, "10.16": False, "11.5": False}),
}

QDQ_OPS = {"QuantizeLinear", "DequantizeLinear", "TRT_FP8QuantizeLinear", "TRT_FP8DequantizeLinear",
           "TRT_INT4QuantizeLinear", "TRT_INT4DequantizeLinear", "TRT_FP4DynamicQuantize",
           "TRT_MXFP8DynamicQuantize", "TRT_MXFP8DequantizeLinear"}


def main():
    trtlens, modeldir = sys.argv[1], sys.argv[2]
    failures = []
    for model, (precision, by_release) in EXPECTED.items():
        for release in ALL:
            converts, verdicts = by_release.get(release, by_release.get("*"))
            path = f"{modeldir}/{model}.onnx"
            p = subprocess.run([trtlens, "check", path, "--trt", release, "--precision", precision,
                                "--format", "json", "--fail-on", "none"], capture_output=True, text=True)
            where = f"{model} at {release} ({precision})"
            if p.returncode != 0:
                failures.append(f"{where}: exit {p.returncode}: {p.stderr.strip()}")
                continue
            d = json.loads(p.stdout)
            if d["converts"] != converts:
                failures.append(f"{where}: converts {d['converts']}, expected {converts}")
            for n in d["nodes"]:
                want = verdicts.get(n["name"])
                if want is None and n["op_type"] in QDQ_OPS:
                    failures.append(f"{where}: Q/DQ node {n['name']} has no expected verdict")
                elif want is not None and n["verdict"] != want:
                    why = "; ".join(r["message"] for r in n["reasons"])
                    failures.append(f"{where}: {n['name']} is {n['verdict']}, expected {want} ({why})")
            missing = set(verdicts) - {n["name"] for n in d["nodes"]}
            if missing:
                failures.append(f"{where}: no nodes named {sorted(missing)}")
    for model, (precision, by_release) in CONVERTS_ONLY.items():
        for release, converts in by_release.items():
            p = subprocess.run([trtlens, "check", f"{modeldir}/{model}.onnx", "--trt", release, "--precision",
                                precision, "--format", "json", "--fail-on", "none"], capture_output=True, text=True)
            where = f"{model} at {release} ({precision})"
            if p.returncode != 0:
                failures.append(f"{where}: exit {p.returncode}: {p.stderr.strip()}")
            elif converts is not None and json.loads(p.stdout)["converts"] != converts:
                failures.append(f"{where}: converts {not converts}, expected {converts}")
    for f in failures:
        print(f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
