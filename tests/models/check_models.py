#!/usr/bin/env python3
"""Real-model regression suite: exports torchvision architectures (tests/models/export.py, cached in
CACHE_DIR), runs `trtlens check --format json` on each at TensorRT 8.6, 9.3, 10.1, 10.16 and 11.5, fp32
and fp16, and
compares `converts` and the exact set of UNSUPPORTED node ids with tests/models/expected.json.

Usage: python3 tests/models/check_models.py TRTLENS_BIN CACHE_DIR [--update]
--update rewrites expected.json from the current binary (review the diff by hand before committing).
Exit 0: all match; 1: a difference (listed); 77: torch is missing (a failure: setup.sh installs it; models.export fails first)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIMES = [(r, p) for r in ("8.6", "9.3", "10.1", "10.16", "11.5") for p in ("fp32", "fp16")]


def judge(binary, model, release, precision):
    r = subprocess.run([binary, "check", model, "--trt", release, "--precision", precision, "--format", "json"],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return {"error": r.stderr.strip()}
    d = json.loads(r.stdout)
    unsupported = sorted(f"{n['graph']}/{n['index']} {n['op_type']}" for n in d["nodes"] if n["verdict"] == "UNSUPPORTED")
    return {"converts": d["converts"], "unsupported": unsupported}


# MACs `partition` counts on models whose shapes only our own propagation finds (a Reshape by a computed
# shape, a Pad by computed pads): at least this many, and at most this many MAC nodes left unknown.
# swin_t: 4.49 G (torchvision's figure: 4.49 GFLOPS); only the head's Gemm, whose output the file
# declares with a named batch dimension, stays unknown (was: 14.45 M counted, 76 nodes unknown).
MACS = {"swin_t_op17.onnx": (4_400_000_000, 1)}


def mac_problems(binary, cache, exported):
    problems = []
    for tag, (at_least, unknown_at_most) in MACS.items():
        if tag not in exported:
            continue
        r = subprocess.run([binary, "partition", os.path.join(cache, tag), "--format", "json"], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            problems.append(f"{tag}: partition failed: {r.stderr.strip()}")
            continue
        s = json.loads(r.stdout)["summary"]
        if s["macs"] < at_least or s["macs_unknown_nodes"] > unknown_at_most:
            problems.append(f"{tag}: partition counts {s['macs']} MACs with {s['macs_unknown_nodes']} MAC nodes of unknown "
                            f"shapes; expected at least {at_least} and at most {unknown_at_most}")
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary, cache = argv[1], argv[2]
    update = "--update" in argv
    code = subprocess.run([sys.executable, os.path.join(HERE, "export.py"), cache]).returncode
    if code == 77:
        print("SKIP: python3-torch / python3-torchvision are not installed (setup.sh installs them)")
        return 77
    if code != 0:
        print("export.py failed", file=sys.stderr)
        return 1
    with open(os.path.join(cache, "exported.json")) as f:
        exported = json.load(f)
    actual = {}
    for tag in sorted(exported["exported"]):
        actual[tag] = {f"{r} {p}": judge(binary, os.path.join(cache, tag), r, p) for r, p in RUNTIMES}
    expected_path = os.path.join(HERE, "expected.json")
    if update:
        with open(expected_path, "w") as f:
            json.dump(actual, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {expected_path}: {len(actual)} models")
        return 0
    with open(expected_path) as f:
        expected = json.load(f)
    problems = []
    for tag, runs in expected.items():
        if tag not in actual:
            problems.append(f"{tag}: expected but not exported ({exported['refused'].get(tag, 'missing')})")
            continue
        for runtime, want in runs.items():
            got = actual[tag].get(runtime)
            if got != want:
                problems.append(f"{tag} at {runtime}: expected {json.dumps(want)}, got {json.dumps(got)}")
    for tag in actual:
        if tag not in expected:
            problems.append(f"{tag}: exported but has no expectation (rerun with --update and review)")
    problems += mac_problems(binary, cache, exported["exported"])
    for p in problems:
        print(p)
    converting = {rt: sum(runs[rt].get("converts", False) for runs in actual.values()) for rt in
                  (f"{r} {p}" for r, p in RUNTIMES)}
    print(f"{len(actual)} models; converting per runtime: {converting}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
