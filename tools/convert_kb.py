#!/usr/bin/env python3
"""Converts the TensorRT ONNX-support facts of a trt-support folder into trtlens's
knowledge base: one file per release, data/trt/<release>.tsv (format: data/trt/README.md).

Usage: python3 tools/convert_kb.py TRT_SUPPORT_DIR [OUT_DIR]
OUT_DIR defaults to data/trt beside this script. Standard library only.
Existing <release>.tsv files in OUT_DIR that no longer have a release are removed,
so the output is exactly the input's releases. Exit status 0 on success, 1 when the
input is malformed (one line per problem on stderr).
"""
import os
import re
import sys

# Display order: floats widest first, then integers widest first, then BOOL.
# Tables list types this way (e.g. "FP32, FP16, INT32, INT8, BOOL").
TYPE_ORDER = ["DOUBLE", "FP32", "FP16", "BF16", "FP8", "FP4",
              "INT64", "INT32", "INT8", "UINT8", "INT4", "BOOL"]
STATUS = {"Y", "N", "EXPERIMENTAL", "PLUGIN"}
RULE_NAMES = {"const_input", "weights_input", "nonconst_input", "input_present", "input_absent",
              "value_in", "input_types", "rank", "static_shape", "static_dim", "output_unused",
              "attr_in", "attr_all", "attr_absent", "attr_no_substr", "pads_symmetric",
              "bidir_same_activations", "opset"}

VERSIONS_COLS = ["trt", "source", "date", "opset_min", "opset_max", "types", "types_limited", "basis", "notes"]
OPS_COLS = ["trt", "op", "status", "types", "rules", "note", "basis", "rules_src", "plugin", "importer"]
# Column order of our per-release table.
OUT_COLS = ["op", "status", "types", "rules", "plugin", "importer", "basis", "rules_src", "note"]
HEADER_KEYS = ["release", "source", "date", "opset_min", "opset_max", "types", "types_limited", "basis", "notes"]


class Problem(Exception):
    pass


def read_tsv(path, cols):
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].split("\t") != cols:
        raise Problem(f"{path}: header is not {cols}")
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        fields = line.rstrip("\r").split("\t")
        if len(fields) != len(cols):
            raise Problem(f"{path}:{n}: {len(fields)} fields, expected {len(cols)}")
        rows.append(dict(zip(cols, fields), _line=n))
    return rows


def order_types(field, where):
    if field.strip() in ("", "-"):
        return "-"
    names = field.split()
    for t in names:
        if t not in TYPE_ORDER:
            raise Problem(f"{where}: unknown type {t!r}")
    return " ".join(sorted(set(names), key=TYPE_ORDER.index))


def check_rules(field, where):
    """Only the rule names are checked here; trtlens parses the full grammar when it loads."""
    if field in ("", "-"):
        return "-"
    for rule in field.split(";"):
        for atom in re.split(r"@(?![^()]*\))", rule):
            name = re.match(r"[a-z_]*", atom).group(0)
            if name not in RULE_NAMES:
                raise Problem(f"{where}: unknown rule {atom!r}")
    return field


def clean(text):
    text = text.strip()
    if "\t" in text or "\n" in text:
        raise Problem(f"tab or newline in {text!r}")
    return text if text else "-"


def version_key(v):
    return tuple(int(x) for x in v.split("."))


def convert(src, out_dir):
    versions = read_tsv(os.path.join(src, "versions.tsv"), VERSIONS_COLS)
    ops = read_tsv(os.path.join(src, "ops.tsv"), OPS_COLS)
    by_release = {}
    for r in ops:
        where = f"ops.tsv:{r['_line']}"
        if r["status"] not in STATUS:
            raise Problem(f"{where}: bad status {r['status']!r}")
        row = {
            "op": clean(r["op"]),
            "status": r["status"],
            "types": order_types(r["types"], where),
            "rules": check_rules(r["rules"], where),
            "plugin": clean(r["plugin"]),
            "importer": clean(r["importer"]),
            "basis": clean(r["basis"]),
            "rules_src": clean(r["rules_src"]),
            "note": clean(r["note"]),
        }
        rows = by_release.setdefault(r["trt"], {})
        if row["op"] in rows:
            raise Problem(f"{where}: op {row['op']} listed twice for {r['trt']}")
        rows[row["op"]] = row

    os.makedirs(out_dir, exist_ok=True)
    written = set()
    for v in versions:
        name = v["trt"]
        if not re.fullmatch(r"\d+\.\d+", name):
            raise Problem(f"versions.tsv:{v['_line']}: release {name!r} is not major.minor")
        if name not in by_release:
            raise Problem(f"versions.tsv:{v['_line']}: release {name} has no ops.tsv rows")
        head = {
            "release": name,
            "source": clean(v["source"]),
            "date": clean(v["date"]),
            "opset_min": clean(v["opset_min"]),
            "opset_max": clean(v["opset_max"]),
            "types": order_types(v["types"], f"versions.tsv:{v['_line']}"),
            "types_limited": order_types(v["types_limited"], f"versions.tsv:{v['_line']}"),
            "basis": clean(v["basis"]),
            "notes": clean(v["notes"]),
        }
        lines = [f"# trtlens knowledge base: TensorRT {name}. Generated by tools/convert_kb.py; "
                 "edit the converter or its input, not this file."]
        lines += [f"# {k}: {head[k]}" for k in HEADER_KEYS]
        lines.append("\t".join(OUT_COLS))
        rows = by_release[name]
        for op in sorted(rows, key=lambda s: (s.lower(), s)):
            lines.append("\t".join(rows[op][c] for c in OUT_COLS))
        path = os.path.join(out_dir, f"{name}.tsv")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
        written.add(f"{name}.tsv")
    extra = set(by_release) - {v["trt"] for v in versions}
    if extra:
        raise Problem(f"ops.tsv names releases missing from versions.tsv: {sorted(extra, key=version_key)}")
    for f in os.listdir(out_dir):
        if re.fullmatch(r"\d+\.\d+\.tsv", f) and f not in written:
            os.remove(os.path.join(out_dir, f))
    return len(written), len(ops)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = argv[1]
    out = argv[2] if len(argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "trt")
    try:
        releases, rows = convert(src, out)
    except (Problem, OSError) as exc:
        print(f"convert_kb: {exc}", file=sys.stderr)
        return 1
    print(f"convert_kb: wrote {releases} releases, {rows} op rows to {os.path.normpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
