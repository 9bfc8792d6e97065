#!/usr/bin/env python3
"""Converts the TensorRT ONNX-support facts into trtlens's knowledge base: one file per
release, data/trt/<release>.tsv (format: data/trt/README.md).

Three sources, the first wins where they disagree:
  1. the importer facts of each release's ONNX-TensorRT code, data/importer/<release>.tsv
     (written by tools/importer_facts.py); releases after the last importer release carry
     the last one forward and say so;
  2. our release policies, data/policies.tsv, and the inputs/attributes whose value
     changes a result, data/semantic_args.tsv;
  3. the support-matrix tables of a trt-support folder (TRT_SUPPORT_DIR), overlaid by our own
     tables in data/support (same versions.tsv/ops.tsv format): a release that data/support
     describes takes all its rows from there (the folder's rows for it are dropped), and
     releases only data/support knows are added.

Usage: python3 tools/convert_kb.py TRT_SUPPORT_DIR [OUT_DIR]
OUT_DIR defaults to data/trt; data/importer, data/support, data/policies.tsv and
data/semantic_args.tsv are always read from the repository beside this script. Standard
library only.
Existing <release>.tsv files in OUT_DIR that no longer have a release are removed,
so the output is exactly the input's releases. Exit status 0 on success, 1 when the
input is malformed (one line per problem on stderr).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import release_rows  # noqa: E402  (beside this script)

# Display order: floats widest first, then integers widest first, then BOOL.
# Tables list types this way (e.g. "FP32, FP16, INT32, INT8, BOOL").
TYPE_ORDER = ["DOUBLE", "FP32", "FP16", "BF16", "FP8", "FP4", "E8M0",
              "INT64", "INT32", "INT8", "UINT8", "INT4", "BOOL"]
STATUS = {"Y", "N", "EXPERIMENTAL", "PLUGIN"}
RULE_NAMES = {"const_input", "weights_input", "nonconst_input", "input_present", "input_absent",
              "value_in", "input_types", "rank", "static_shape", "static_dim", "output_unused",
              "attr_in", "attr_all", "attr_absent", "attr_no_substr", "pads_symmetric", "einsum_subscripts",
              "einsum_no_diagonal", "same_types", "resize_nd", "axis_last",
              "loop_scan_trip_limit", "loop_state_shapes", "if_branch_ranks",
              "bidir_same_activations", "opset"}

VERSIONS_COLS = ["trt", "source", "date", "opset_min", "opset_max", "types", "types_limited", "basis", "notes"]
OPS_COLS = ["trt", "op", "status", "types", "rules", "note", "basis", "rules_src", "plugin", "importer"]
# Column order of our per-release table.
OUT_COLS = ["op", "status", "types", "rules", "plugin", "importer", "basis", "rules_src", "note",
            "import_types", "import_src", "ignored"]
HEADER_KEYS = ["release", "source", "date", "opset_min", "opset_max", "types", "types_limited", "basis", "notes"]
POLICY_COLS = ["key", "value", "from", "source"]
POLICY_KEYS = {"int64": {"narrowed", "native"}, "uint8_boundary": {"no", "yes"},
               "implicit_int8": {"yes", "deprecated", "removed"}, "strongly_typed": {"no", "only"},
               "function_plugin": {"no", "yes"}, "plugin_library": {"parser", "application"},
               "plugin_fallback": {"no", "registry", "registry_domain"},
               "int64_index_clamp": {"no", "slice"}}
# Policy keys a release may lack (no row in force yet): the header line is then left out.
OPTIONAL_POLICY_KEYS = {"plugin_fallback"}
IMPORTER_COLS = ["op", "src", "accepts", "attrs_read", "inputs_read", "checks", "rules"]
SEMANTIC_COLS = ["op", "arg", "default", "guard", "meaning"]
IMPORTER_RULE_COLS = ["release", "op", "rule", "where", "why"]
LAYER_RULE_COLS = ["op", "rule", "from", "until", "where", "why"]
TYPES_ADDED_COLS = ["type", "from", "limited", "source"]
# Rules that name an attribute as their first argument: dropped when the importer never reads it.
ATTR_RULES = {"attr_in", "attr_all", "attr_absent", "attr_no_substr"}


class Problem(Exception):
    pass


def read_tsv(path, cols, keys=None):
    """Rows of a tab-separated file whose first non-comment line is `cols`. Leading
    `# key: value` comment lines are collected into `keys` when a dict is given."""
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        m = re.match(r"# ([\w.]+): (.*)$", lines[start])
        if m and keys is not None:
            keys[m.group(1)] = m.group(2)
        start += 1
    if start >= len(lines) or lines[start].split("\t") != cols:
        raise Problem(f"{path}: header is not {cols}")
    rows = []
    for n, line in enumerate(lines[start + 1:], start=start + 2):
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
        rule = rule.split("#", 1)[0]  # a rule may cite the importer line it comes from: rule#FILE:LINE
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


def read_policies(data_dir):
    """[(key, value, from_release_key, source)] in file order."""
    rows = read_tsv(os.path.join(data_dir, "policies.tsv"), POLICY_COLS)
    out = []
    for r in rows:
        where = f"policies.tsv:{r['_line']}"
        if r["key"] not in POLICY_KEYS or r["value"] not in POLICY_KEYS[r["key"]]:
            raise Problem(f"{where}: unknown policy {r['key']}={r['value']}")
        out.append((r["key"], r["value"], version_key(r["from"]), clean(r["source"])))
    return out


def policies_for(name, policies, importer):
    """The value and source of every policy key in force at release `name`. A policy the
    release's importer facts state (`# policy.<key>: value@FILE:LINE`) wins over the table."""
    found = {}
    for key, value, start, source in policies:
        if start <= version_key(name):
            found[key] = (value, source)
    if importer:
        for key in ("int64", "uint8_boundary"):
            stated = importer["head"].get("policy." + key)
            if stated and stated != "-":
                value, _, where = stated.partition("@")
                if value not in POLICY_KEYS[key]:
                    raise Problem(f"{importer['path']}: unknown policy.{key} value {value!r}")
                found[key] = (value, f"importer {importer['branch']} {where}" if where and where != "-"
                              else f"importer {importer['branch']}")
    missing = set(POLICY_KEYS) - set(found) - OPTIONAL_POLICY_KEYS
    if missing:
        raise Problem(f"policies.tsv: no value for {sorted(missing)} at release {name}")
    return found


def read_importer(data_dir):
    """Importer facts per release name: {'head', 'branch', 'path', 'ops': {op: row}}."""
    folder = os.path.join(data_dir, "importer")
    out = {}
    if not os.path.isdir(folder):
        return out
    for f in sorted(os.listdir(folder)):
        if not re.fullmatch(r"\d+\.\d+\.tsv", f):
            continue
        path = os.path.join(folder, f)
        head = {}
        rows = read_tsv(path, IMPORTER_COLS, head)
        name = head.get("release")
        if name != f[:-4]:
            raise Problem(f"{path}: release line says {name!r}")
        out[name] = {"head": head, "branch": head.get("branch", name), "path": path,
                     "ops": {r["op"]: r for r in rows}}
    return out


def read_semantics(data_dir):
    """{op: [(arg, default, guard)]}: inputs and attributes whose value changes the result."""
    path = os.path.join(data_dir, "semantic_args.tsv")
    if not os.path.exists(path):
        return {}
    out = {}
    for r in read_tsv(path, SEMANTIC_COLS):
        if not re.fullmatch(r"(attr:\w+|input:\d+)", r["arg"]):
            raise Problem(f"semantic_args.tsv:{r['_line']}: bad arg {r['arg']!r}")
        out.setdefault(r["op"], []).append((r["arg"], r["default"], r["guard"]))
    return out


def read_importer_rules(data_dir):
    """{(release, op): ["rule#FILE:LINE", ...]}: hand-read static checks of an importer (each replaces
    a table rule of the same name and first argument)."""
    path = os.path.join(data_dir, "importer_rules.tsv")
    out = {}
    if not os.path.exists(path):
        return out
    for r in read_tsv(path, IMPORTER_RULE_COLS):
        where = f"importer_rules.tsv:{r['_line']}"
        check_rules(r["rule"], where)
        if not re.fullmatch(r"[\w.]+:\d+(?: \(carried forward from [\d.]+-GA\))?", r["where"]):
            raise Problem(f"{where}: where {r['where']!r} is not FILE:LINE (optionally: (carried forward from X-GA))")
        out.setdefault((r["release"], r["op"]), []).append(f"{r['rule']}#{r['where']}")
    return out


def read_layer_rules(data_dir):
    """[(op, from, until, "rule#where")]: NvInfer.h layer contracts over a range of releases."""
    path = os.path.join(data_dir, "layer_rules.tsv")
    out = []
    if not os.path.exists(path):
        return out
    for r in read_tsv(path, LAYER_RULE_COLS):
        where = f"layer_rules.tsv:{r['_line']}"
        check_rules(r["rule"], where)
        if not re.fullmatch(r"release/\d+\.\d+:[\w/.]+:\d+", r["where"]):
            raise Problem(f"{where}: where {r['where']!r} is not release/X.Y:FILE:LINE")
        if not re.fullmatch(r"\d+\.\d+", r["from"]) or not re.fullmatch(r"\d+\.\d+|-", r["until"]):
            raise Problem(f"{where}: from/until must be releases (until may be -)")
        out.append((r["op"], r["from"], r["until"], f"{r['rule']}#{r['where']}"))
    return out


def read_types_added(data_dir):
    """[(type, from, limited)]: element types a release names that its support table does not
    (data/types_added.tsv). They widen `types`, never what the importer represents: that is the
    release's own convertDtype, or the one it carries forward."""
    path = os.path.join(data_dir, "types_added.tsv")
    if not os.path.exists(path):
        return []
    out = []
    for r in read_tsv(path, TYPES_ADDED_COLS):
        where = f"types_added.tsv:{r['_line']}"
        order_types(r["type"], where)
        if not re.fullmatch(r"\d+\.\d+", r["from"]) or r["limited"] not in ("yes", "no"):
            raise Problem(f"{where}: from must be a release and limited yes or no")
        out.append((r["type"], r["from"], r["limited"] == "yes"))
    return out


def add_type(field, t):
    return order_types(" ".join([x for x in field.split() if x != "-"] + [t]), "types_added.tsv")


def replace_rules(row, added, source):
    """Puts `added` (`rule#where` items) into the row, replacing table rules of the same name and first
    argument."""
    if not added:
        return
    by_head = {}
    for a in added:  # a later item with the same head wins (hand-read over found in the code)
        by_head[re.match(r"\w+\(?[^,)#]*", a).group(0)] = a
    heads, added = set(by_head), list(by_head.values())
    table = [] if row["rules"] == "-" else row["rules"].split(";")
    # A table rule the importer code states otherwise yields to it; the note says so, since the table's
    # own note may still describe the table rule (Attention's "3D inputs are not accepted" at 10.15).
    yielded = [(t, by_head[h]) for t in table if "#" not in t
               for h in [re.match(r"\w+\(?[^,)#]*", t).group(0)] if h in by_head and by_head[h].split("#")[0] != t]
    if yielded and source == "importer":
        why = "; ".join(f"the table's {t} yields to the importer's {a.split('#')[0]} ({a.split('#', 1)[1]})"
                        for t, a in yielded)
        row["note"] = why if row["note"] == "-" else row["note"] + "; " + why
    table = [t for t in table if re.match(r"\w+\(?[^,)#]*", t).group(0) not in heads]
    row["rules"] = ";".join(table + added)
    if source not in row["rules_src"].split("+"):
        row["rules_src"] = source if row["rules_src"] == "-" else row["rules_src"] + "+" + source


def widen_accepts(accepts, types):
    """`I:T|T@W;...` with `types` added to every check (a later changelog's additions)."""
    if accepts in ("-", "*") or not types:
        return accepts
    out = []
    for item in accepts.split(";"):
        head, at, where = item.partition("@")
        inp, _, listed = head.partition(":")
        have = [t for t in listed.split("|") if t and t != "none"]
        out.append(f"{inp}:{'|'.join(have + [t for t in types if t not in have])}{at}{where}")
    return ";".join(out)


def importer_columns(row, fact, semantics, carried, widen=()):
    """Fills import_types, import_src and ignored of an output row from the op's importer
    facts, and drops table rules about attributes the importer never reads."""
    if fact is None:
        row["import_types"] = row["import_src"] = row["ignored"] = "-"
        return
    branch = fact["branch"]
    row["import_types"] = widen_accepts(fact["row"]["accepts"], list(widen)) if fact["row"]["accepts"] != "-" else "*"
    row["import_src"] = f"{branch} {fact['row']['src']}" + (" (carried forward)" if carried else "")
    attrs = fact["row"]["attrs_read"]
    attrs_read = None if attrs == "*" else set(attrs.split("|")) - {"-"}
    inputs = fact["row"]["inputs_read"]
    inputs_read = None if inputs == "*" else set(inputs.split("|")) - {"-"}
    ignored = []
    for arg, default, guard in semantics.get(row["op"], []):
        kind, _, what = arg.partition(":")
        unread = (attrs_read is not None and what not in attrs_read) if kind == "attr" else \
                 (inputs_read is not None and what not in inputs_read)
        if unread:
            ignored.append(arg + ("" if default == "-" else "=" + default) + ("" if guard == "-" else "@" + guard))
    row["ignored"] = ";".join(ignored) if ignored else "-"
    if attrs_read is None or row["rules"] == "-":
        return
    kept, dropped = [], []
    for rule in row["rules"].split(";"):
        m = re.match(r"(\w+)\((\w+)", rule)
        if m and m.group(1) in ATTR_RULES and m.group(2) not in attrs_read:
            dropped.append(rule)
        else:
            kept.append(rule)
    if dropped:
        row["rules"] = ";".join(kept) if kept else "-"
        why = f"rule {', '.join(dropped)} dropped: the importer never reads the attribute (importer {branch})"
        row["note"] = why if row["note"] == "-" else row["note"] + "; " + why


def read_support(data_dir):
    """Our own support tables, data/support/{versions,ops}.tsv: (versions, ops) rows, each row
    tagged with its file in `_file`; ([], []) when the folder does not exist."""
    folder = os.path.join(data_dir, "support")
    if not os.path.isdir(folder):
        return [], []
    versions = read_tsv(os.path.join(folder, "versions.tsv"), VERSIONS_COLS)
    ops = read_tsv(os.path.join(folder, "ops.tsv"), OPS_COLS)
    names = [v["trt"] for v in versions]
    if len(set(names)) != len(names):
        raise Problem("support/versions.tsv: a release is listed twice")
    for r in versions:
        r["_file"] = "support/versions.tsv"
    for r in ops:
        r["_file"] = "support/ops.tsv"
        if r["trt"] not in names:
            raise Problem(f"support/ops.tsv:{r['_line']}: release {r['trt']} is not in support/versions.tsv")
    return versions, ops


def overlay(versions, ops, sup_versions, sup_ops):
    """The folder's rows with every release that data/support describes replaced by its rows
    there; releases new in data/support are added. Versions come back in release order."""
    mine = {v["trt"] for v in sup_versions}
    for r in versions:
        r.setdefault("_file", "versions.tsv")
    for r in ops:
        r.setdefault("_file", "ops.tsv")
    versions = [v for v in versions if v["trt"] not in mine] + sup_versions
    ok = [v for v in versions if re.fullmatch(r"\d+\.\d+", v["trt"])]
    versions = sorted(ok, key=lambda v: version_key(v["trt"])) + [v for v in versions if v not in ok]
    ops = [r for r in ops if r["trt"] not in mine] + sup_ops
    return versions, ops


def convert(src, out_dir, data_dir=None):
    data_dir = data_dir or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
    policies = read_policies(data_dir)
    importer = read_importer(data_dir)
    semantics = read_semantics(data_dir)
    importer_rules = read_importer_rules(data_dir)
    layer_rules = read_layer_rules(data_dir)
    types_added = read_types_added(data_dir)
    plugins = release_rows.read_plugins(data_dir, read_tsv, order_types, Problem)
    versions = read_tsv(os.path.join(src, "versions.tsv"), VERSIONS_COLS)
    ops = read_tsv(os.path.join(src, "ops.tsv"), OPS_COLS)
    versions, ops = overlay(versions, ops, *read_support(data_dir))
    by_release = {}
    for r in ops:
        where = f"{r['_file']}:{r['_line']}"
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
            raise Problem(f"{v['_file']}:{v['_line']}: release {name!r} is not major.minor")
        if name not in by_release:
            raise Problem(f"{v['_file']}:{v['_line']}: release {name} has no ops.tsv rows")
        head = {
            "release": name,
            "source": clean(v["source"]),
            "date": clean(v["date"]),
            "opset_min": clean(v["opset_min"]),
            "opset_max": clean(v["opset_max"]),
            "types": order_types(v["types"], f"{v['_file']}:{v['_line']}"),
            "types_limited": order_types(v["types_limited"], f"{v['_file']}:{v['_line']}"),
            "basis": clean(v["basis"]),
            "notes": clean(v["notes"]),
        }
        # Importer facts: the release's own, else the newest older release's, carried forward.
        facts_name = max((r for r in importer if version_key(r) <= version_key(name)), key=version_key,
                         default=None)
        facts = importer.get(facts_name)
        carried = facts is not None and facts_name != name
        if facts:
            f_head = facts["head"]
            head["importer"] = f"{facts['branch']} {f_head.get('commit', '-')[:12]}" + (
                f" (the {facts_name} importer carried forward)" if carried else "")
            head["types_importer"] = order_types(f_head.get("types", "-"), facts["path"])
            weights = f_head.get("policy.weight_types", "-").split("@")[0].strip()
            head["types_weights"] = order_types(weights or "-", facts["path"])
        else:
            head["importer"] = head["types_importer"] = head["types_weights"] = "-"
        for t, since, limited in types_added:
            if version_key(since) <= version_key(name):
                head["types"] = add_type(head["types"], t)
                if limited:
                    head["types_limited"] = add_type(head["types_limited"], t)
        in_force = policies_for(name, policies, facts)
        for key, (value, source) in sorted(in_force.items()):
            head["policy." + key] = f"{value} | {source}"
        lines = [f"# trtlens knowledge base: TensorRT {name}. Generated by tools/convert_kb.py; "
                 "edit the converter or its input, not this file."]
        lines += [f"# {k}: {v}" for k, v in head.items()]
        lines.append("\t".join(OUT_COLS))
        rows = by_release[name]
        # Ops the importer registers that the table omits (TRT_* ops), then the bundled plugins,
        # which the importer's fallback reaches for an op_type without a built-in importer.
        rows.update(release_rows.importer_only_rows(facts, rows, head["basis"], carried))
        fallback = in_force.get("plugin_fallback", ("no", ""))[0]
        for op, row in release_rows.plugin_rows(name, head["basis"], fallback, plugins).items():
            if op not in rows or rows[op]["status"] == "N":
                rows[op] = row
        for op in sorted(rows, key=lambda s: (s.lower(), s)):
            fact = facts["ops"].get(op) if facts else None
            # The release whose importer code the row was read from: a row of an importer file the release
            # does not have names it ("(carried forward from 10.13-GA)"), a release without any file of its
            # own carries the newest one's.
            row_from = facts_name
            if fact:
                m = re.search(r"\(carried forward from ([\d.]+)-GA\)", fact["src"])
                row_from = m.group(1) if m else facts_name
            widen = []
            if fact and row_from != name:
                before = by_release[row_from].get(op, {}).get("types", "-").split()
                # The changelog changed the op after the importer's release: keep the importer's checks
                # (what it refuses stays refused) and widen them by the types the changelog added.
                widen = [t for t in rows[op]["types"].split() if t != "-" and t not in before]
            importer_columns(rows[op], fact and {"branch": facts["branch"], "row": fact}, semantics, carried, widen)
            if rows[op]["status"] == "N" and fact and not carried and fact["accepts"] != "-":
                # The table marks it unsupported, but the release's own importer registers it and decides
                # its types (7.0-8.2 Reciprocal: unaryHelper's default check): the importer code wins.
                rows[op].update(status="Y", types="-", note=f"the table marks it unsupported, but the importer "
                                f"{facts['branch']} {fact['src']} registers it and checks its types (import_types)")
            # Importer checks found in the code (data/importer_checks.tsv), then hand-read ones: each
            # replaces the table's rule of the same name and first argument.
            from_code = [] if not fact or fact.get("rules", "-") in ("-", "") else fact["rules"].split(";")
            for item in from_code:
                check_rules(item.split("#")[0], facts["path"])
            hand = importer_rules.get((name, op))
            if hand is None and fact and row_from != name:
                # An older release's hand-read check: a file the release carries per file says so; a release
                # that carries every file names that importer in its header already.
                mark = "" if row_from == facts_name else f" (carried forward from {row_from}-GA)"
                hand = [h if not mark or "(carried forward" in h else h + mark
                        for h in importer_rules.get((row_from, op), [])] or None
            replace_rules(rows[op], from_code + (hand or []), "importer")
            replace_rules(rows[op], [rule for r_op, lo, hi, rule in layer_rules if r_op == op
                                     and version_key(lo) <= version_key(name)
                                     and (hi == "-" or version_key(name) <= version_key(hi))], "header")
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
