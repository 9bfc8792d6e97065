#!/usr/bin/env python3
"""Verdict counts of two trtlens binaries over a set of models, per release (fp32):
UNSUPPORTED and IMPLICIT_CAST nodes, and models that convert.

Usage: python3 bench/verdicts/compare.py BEFORE_BIN AFTER_BIN MODEL_OR_FOLDER... [--trt 8.6,9.3,10.1]
Folders are searched for *.onnx. Prints a markdown table for bench/README.md."""
import json
import os
import subprocess
import sys


def models(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in sorted(files):
                    if f.endswith(".onnx"):
                        yield os.path.join(root, f)
        else:
            yield p


def counts(binary, model, release):
    r = subprocess.run([binary, "check", model, "--trt", release, "--format", "json"], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None
    d = json.loads(r.stdout)
    return d["summary"]["UNSUPPORTED"], d["summary"]["IMPLICIT_CAST"], d["converts"]


def main(argv):
    releases = ["8.6", "9.3", "10.1"]
    if "--trt" in argv:
        i = argv.index("--trt")
        releases = argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
    before, after, paths = argv[1], argv[2], argv[3:]
    files = list(models(paths))
    print(f"{len(files)} models\n")
    print("| release | UNSUPPORTED nodes before → after | IMPLICIT_CAST nodes before → after | models that convert before → after |")
    print("|---|---|---|---|")
    for rel in releases:
        tot = {"b": [0, 0, 0], "a": [0, 0, 0]}
        for m in files:
            for key, binary in (("b", before), ("a", after)):
                c = counts(binary, m, rel)
                if c:
                    tot[key][0] += c[0]
                    tot[key][1] += c[1]
                    tot[key][2] += int(c[2])
        b, a = tot["b"], tot["a"]
        print(f"| {rel} | {b[0]} → {a[0]} | {b[1]} → {a[1]} | {b[2]} → {a[2]} of {len(files)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
