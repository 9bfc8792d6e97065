#!/usr/bin/env python3
"""Goldens of the outputs people script against: `trtlens check --format json` and
`trtlens matrix --format json`, byte for byte, on the real-model suite (tests/models/export.py, cached
in CACHE_DIR) and on Debian's libonnx-testdata. tests/golden/expected.tsv holds, per command and
model, the SHA-256 of the output and a readable summary (exit code, converts, verdict counts), so a
change shows what moved. Whole files would be 60 MB; the hashes hold them to the byte. The values of
`trtlens_version` and `kb_fingerprint` are blanked before hashing: a release or a table edit that moves
no verdict moves no golden.

Usage: python3 tests/golden/check_goldens.py TRTLENS_BIN CACHE_DIR [--update]
--update rewrites expected.tsv from the current binary: every verdict change must be reviewed and
named in the commit that makes it. Exit 0: all match; 1: differences (listed); 77: neither the
testdata nor the model cache is available."""
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected.tsv")
TESTDATA = "/usr/share/libonnx-testdata/data"
# Real models: the releases teams deploy and the oldest the suite covers.
REAL_CHECKS = [("8.6", "fp32"), ("10.16", "fp16"), ("11.5", "fp16")]


def cases(cache):
    """(key, cwd, argv) per golden; key = command, model label, options. The model is named relative to
    cwd, so outputs that echo the model path do not depend on where the tree is."""
    out = []
    real = sorted(f for f in os.listdir(cache) if f.endswith(".onnx")) if os.path.isdir(cache) else []
    for f in real:
        # The exported bytes themselves: another torch build may export differently (then skipped).
        out.append((f"model\treal/{f}\t-", cache, None))
        for release, precision in REAL_CHECKS:
            out.append((f"check\treal/{f}\t--trt {release} --precision {precision}", cache,
                        ["check", f, "--trt", release, "--precision", precision, "--format", "json"]))
        out.append((f"matrix\treal/{f}\t-", cache, ["matrix", f, "--format", "json"]))
    if os.path.isdir(TESTDATA):
        for root, _, files in sorted(os.walk(TESTDATA)):
            for f in sorted(files):
                if not f.endswith(".onnx"):
                    continue
                rel = os.path.relpath(os.path.join(root, f), TESTDATA)
                out.append((f"check\ttestdata/{rel}\t-", TESTDATA, ["check", rel, "--format", "json"]))
                # The matrix over every release is the slow one: the hand-written folders only.
                if not rel.startswith("node/"):
                    out.append((f"matrix\ttestdata/{rel}\t-", TESTDATA, ["matrix", rel, "--format", "json"]))
    return out


def summary(code, stdout):
    try:
        d = json.loads(stdout)
    except ValueError:
        return f"exit {code}, not JSON"
    if "nodes" in d:
        counts = {}
        for n in d["nodes"]:
            counts[n["verdict"]] = counts.get(n["verdict"], 0) + 1
        verdicts = " ".join(f"{k}={counts[k]}" for k in sorted(counts))
        return f"exit {code}, converts {d.get('converts')}, {verdicts or 'no nodes'}"
    return f"exit {code}, {len(stdout)} bytes"


PROVENANCE = re.compile(rb'("trtlens_version": |"kb_fingerprint": )"[^"]*"')


def run(binary, cwd, argv, model=None):
    if argv is None:
        with open(os.path.join(cwd, model), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest(), "the exported model file"
    r = subprocess.run([binary] + argv, capture_output=True, cwd=cwd)
    if r.returncode not in (0, 1):
        return "error", f"exit {r.returncode}: {r.stderr.decode(errors='replace').strip()[:200]}"
    out = PROVENANCE.sub(rb'\1"-"', r.stdout)
    return hashlib.sha256(out).hexdigest(), summary(r.returncode, out)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary, cache = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    update = "--update" in argv
    todo = cases(cache)
    if not todo:
        print("SKIP: no libonnx-testdata and no model cache (setup.sh installs the first; models.real fills the second)")
        return 77
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        got = dict(zip((k for k, _, _ in todo),
                       pool.map(lambda c: run(binary, c[1], c[2], c[0].split("\t")[1][len("real/"):]), todo)))
    if update:
        with open(EXPECTED, "w", encoding="utf-8", newline="\n") as f:
            f.write("command\tmodel\toptions\tsha256\tsummary\n")
            for key in sorted(got):
                f.write(f"{key}\t{got[key][0]}\t{got[key][1]}\n")
        print(f"wrote {len(got)} goldens to {EXPECTED}")
        return 0
    expected = {}
    with open(EXPECTED, encoding="utf-8") as f:
        for line in f.read().splitlines()[1:]:
            cmd, model, options, digest, text = line.split("\t")
            expected[f"{cmd}\t{model}\t{options}"] = (digest, text)
    bad = []
    # Real models exported to other bytes than the goldens were made from are not comparable.
    other_export = {k.split("\t")[1] for k, (digest, _) in got.items()
                    if k.startswith("model\t") and k in expected and expected[k][0] != digest}
    for model in sorted(other_export):
        print(f"{model}: exported differently from the goldens' export; its outputs are not compared")
    for key, (digest, text) in sorted(got.items()):
        if key.split("\t")[1] in other_export:
            continue
        want = expected.get(key)
        if want is None:
            # A model the cache does not hold yet is skipped; a new one needs --update.
            bad.append(f"{key}: no golden (run with --update and review)")
        elif want[0] != digest:
            bad.append(f"{key}: output changed\n    was: {want[1]}\n    now: {text}")
    missing = [k for k in expected if k not in got and not k.split("\t")[1].startswith("real/")]
    bad += [f"{k}: golden has no case (testdata changed?)" for k in missing]
    for b in bad:
        print(b)
    compared = sum(1 for k in got if k.split("\t")[1] not in other_export)
    print(f"{compared - len(bad)} of {compared} outputs byte-identical to tests/golden/expected.tsv")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
