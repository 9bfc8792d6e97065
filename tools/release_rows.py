"""Op rows of a release that no support table lists, for tools/convert_kb.py:

  * ops the release's importer registers but its table omits (the TensorRT-specific TRT_* ops
    that ModelOpt and graph surgeon write, such as TRT_FP8QuantizeLinear): the importer is the truth,
    so they import (status Y) with the importer's own type checks;
  * the plugins libnvinfer_plugin of the release registers (data/plugins.tsv), which the importer's
    fallback path imports by op_type when it has no built-in importer (policy plugin_fallback).

Standard library only.
"""
import os
import re

PLUGIN_COLS = ["plugin", "version", "from", "removed", "deprecated", "precisions", "source", "note"]


def _key(v):
    return tuple(int(x) for x in v.split("."))


def read_plugins(data_dir, read_tsv, order_types, problem):
    """[{plugin, version, from, removed, deprecated, precisions, source, note}] from data/plugins.tsv."""
    path = os.path.join(data_dir, "plugins.tsv")
    if not os.path.exists(path):
        return []
    rows = read_tsv(path, PLUGIN_COLS)
    for r in rows:
        where = f"plugins.tsv:{r['_line']}"
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", r["plugin"]):
            raise problem(f"{where}: bad plugin name {r['plugin']!r}")
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", r["version"]):
            raise problem(f"{where}: bad version {r['version']!r}")
        for col in ("from", "removed", "deprecated"):
            if r[col] != "-" and not re.fullmatch(r"\d+\.\d+", r[col]):
                raise problem(f"{where}: {col} {r[col]!r} is not major.minor")
        if r["from"] == "-":
            raise problem(f"{where}: no first release")
        r["precisions"] = order_types(r["precisions"], where)
    return rows


def plugin_rows(release, basis, fallback, plugins):
    """{op: row} for the plugins shipped in `release`, when its importer has a fallback path."""
    if fallback in (None, "no"):
        return {}
    shipped = {}
    for p in plugins:
        if _key(p["from"]) > _key(release) or (p["removed"] != "-" and _key(p["removed"]) <= _key(release)):
            continue
        shipped.setdefault(p["plugin"], []).append(p)
    out = {}
    for name, versions in shipped.items():
        versions.sort(key=lambda p: (len(p["version"]), p["version"]))
        numbers = [p["version"] for p in versions]
        types = sorted({t for p in versions for t in p["precisions"].split() if t != "-"},
                       key=lambda t: versions[0]["precisions"].split().index(t)
                       if t in versions[0]["precisions"].split() else 99)
        notes = []
        for p in versions:
            if p["deprecated"] != "-" and _key(p["deprecated"]) <= _key(release):
                notes.append(f"version {p['version']} deprecated since TensorRT {p['deprecated']}")
        out[name] = {
            "op": name,
            "status": "PLUGIN",
            "types": " ".join(types) if types else "-",
            "rules": f"attr_in(plugin_version,{'|'.join(numbers)},dflt=1)",
            "plugin": f"{name} version{'s' if len(numbers) > 1 else ''} {', '.join(numbers)}",
            "importer": "plugin",
            "basis": basis,
            "rules_src": "plugins",
            "note": "; ".join(dict.fromkeys(notes)) if notes else "-",
            "import_types": "-",
            "import_src": "-",
            "ignored": "-",
        }
    return out


def importer_only_rows(facts, table_ops, basis, carried):
    """{op: row} for ops the importer facts register and the table does not list."""
    if not facts:
        return {}
    out = {}
    for op, fact in facts["ops"].items():
        if op in table_ops or op == "FallbackPluginImporter":  # the fallback itself is no op_type
            continue
        out[op] = {
            "op": op,
            "status": "Y",
            "types": "-",
            "rules": "-",
            "plugin": "-",
            "importer": "yes",
            "basis": basis,
            "rules_src": "-",
            "note": f"not in the support table; the importer registers it (importer {facts['branch']} "
                    f"{fact['src']}{', carried forward' if carried else ''})",
            "import_types": "-", "import_src": "-", "ignored": "-",
        }
    return out
