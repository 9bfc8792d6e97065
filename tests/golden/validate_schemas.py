#!/usr/bin/env python3
"""Every JSON output against its JSON Schema in docs/schemas/: the golden files of tests/cli/golden and
the live outputs of check, matrix, matrix --diff, partition, check --format sarif, check, matrix and matrix --diff
with a DLA --target, and engine lint on a
model built here with python3-onnx (and on the real models of CACHE_DIR when present).

Usage: python3 tests/golden/validate_schemas.py TRTLENS_BIN CACHE_DIR
Exit 0: all valid; 1: a document breaks its schema (listed); 77: python3-jsonschema or python3-onnx is
missing (setup.sh installs both)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMAS = os.path.join(ROOT, "docs", "schemas")
GOLDEN = os.path.join(ROOT, "tests", "cli", "golden")
GOLDEN_SCHEMA = {
    "engine_compare.json": "engine-compare",
    "engine_layers_compute.json": "engine-layers",
    "engine_summary_compute.json": "engine-summary",
    "partition_detect.json": "partition",
    "report_overlay.json": "report-overlay",
    "check_sarif.json": "sarif-github",
}


def build_model(path):
    """Conv, BatchNormalization, a HannWindow and INT64 Adds: every verdict kind the outputs carry."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper, save
    inits = [numpy_helper.from_array(np.full((4, 3, 3, 3), 0.1, np.float32), "w")]
    for name, value in (("scale", 1), ("bias", 0), ("mean", 0), ("var", 1)):
        inits.append(numpy_helper.from_array(np.full((4,), value, np.float32), name))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], "conv"),
             helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["bn"], "bn"),
             helper.make_node("HannWindow", ["n"], ["window"], "window"),
             helper.make_node("Add", ["ids", "ids"], ["sum"], "add")]
    graph = helper.make_graph(
        nodes, "ci",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8]),
         helper.make_tensor_value_info("ids", TensorProto.INT64, [4]),
         helper.make_tensor_value_info("n", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("bn", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("window", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("sum", TensorProto.INT64, [4])], inits)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import jsonschema
        import onnx  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {e.name} is missing (setup.sh installs python3-jsonschema and python3-onnx)")
        return 77
    binary, cache = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    schemas = {}
    for f in sorted(os.listdir(SCHEMAS)):
        with open(os.path.join(SCHEMAS, f), encoding="utf-8") as fh:
            schema = json.load(fh)
        jsonschema.Draft7Validator.check_schema(schema)
        schemas[f[:-len(".schema.json")]] = jsonschema.Draft7Validator(schema)
    docs = []  # (label, schema name, document)
    for name, schema in GOLDEN_SCHEMA.items():
        with open(os.path.join(GOLDEN, name), encoding="utf-8") as fh:
            docs.append((f"golden {name}", schema, json.load(fh)))
    work = tempfile.mkdtemp(prefix="trtlens-schemas-")
    models = [os.path.join(work, "ci.onnx")]
    build_model(models[0])
    models += [os.path.join(cache, m) for m in ("resnet18_op17.onnx", "swin_t_op17.onnx")
               if os.path.exists(os.path.join(cache, m))]
    engine = os.path.join(ROOT, "tests", "fixtures", "engine", "v8", "tiny.onnx.engine")
    for model in models:
        label = os.path.basename(model)
        runs = [("check", ["check", model, "--trt", "8.6", "--precision", "int8", "--format", "json"]),
                ("matrix", ["matrix", model, "--format", "json"]),
                ("matrix-diff", ["matrix", model, "--diff", "8.6", "10.4", "--format", "json"]),
                ("partition", ["partition", model, "--trt", "8.6", "--format", "json"]),
                ("partition", ["partition", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla",
                               "--format", "json"]),
                ("sarif-github", ["check", model, "--trt", "8.6", "--precision", "int8", "--format", "sarif"]),
                ("check", ["check", model, "--trt", "8.5", "--precision", "fp16", "--target", "orin-dla", "--format",
                           "json"]),
                ("matrix", ["matrix", model, "--target", "orin-dla", "--format", "json"]),
                ("matrix-diff", ["matrix", model, "--diff", "8.5", "8.6", "--precision", "fp16", "--target", "orin-dla",
                                 "--format", "json"])]
        for schema, args in runs:
            r = subprocess.run([binary] + args, capture_output=True)
            if r.returncode not in (0, 1):
                print(f"{label}: {' '.join(args[:1] + args[2:])}: exit {r.returncode}: {r.stderr.decode()[:300]}")
                return 1
            docs.append((f"{label}: {' '.join(args[:1] + args[2:])}", schema, json.loads(r.stdout)))
    for schema, sub in (("engine-lint", "lint"), ("engine-summary", "summary"), ("engine-layers", "layers")):
        r = subprocess.run([binary, "engine", sub, engine, "--format", "json"], capture_output=True)
        docs.append((f"engine {sub}", schema, json.loads(r.stdout)))
    bad = 0
    for label, schema, doc in docs:
        errors = sorted(schemas[schema].iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print(f"{label} ({schema}.schema.json): {'/'.join(map(str, e.path))}: {e.message[:300]}")
        bad += bool(errors)
    print(f"{len(docs) - bad} of {len(docs)} documents valid against docs/schemas/")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
