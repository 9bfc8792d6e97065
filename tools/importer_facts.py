#!/usr/bin/env python3
"""Extracts, per TensorRT release, what each op importer of onnx/onnx-tensorrt enforces, by reading
the importer code of that release's branch: the element types it lets through per input, the
attributes and inputs it reads, its other static checks, and release-wide rules (INT64 narrowed or
native, UINT8 only at the network boundary, what the weight loader accepts).

Usage: python3 tools/importer_facts.py ONNX_TENSORRT_GIT_DIR [OUT_DIR]
       python3 tools/importer_facts.py --folder DIR --release R --commit SHA --date YYYY-MM-DD
                                       [--branch LABEL] [OUT_DIR]
       python3 tools/importer_facts.py --chain data/importer/delta --base data/importer/10.10.tsv
                                       --sources data/importer/sources.tsv [OUT_DIR]
ONNX_TENSORRT_GIT_DIR is a clone or mirror of https://github.com/onnx/onnx-tensorrt (files are read
with `git show BRANCH:FILE`, no work tree needed); every release of BRANCHES is written.
--folder reads one release's parser sources from a plain folder (the files of one onnx-tensorrt
commit, same names as in the repository root) and writes OUT_DIR/R.tsv only; --commit is the commit
the files come from, --branch the label written as `# branch:` (default `<R>-GA`).
--chain writes the releases after 10.10, whose files only the public code index holds (read page by page): each
data/importer/delta/<R>.tsv says what that release's own files say, data/importer/sources.tsv which files it read;
every fact of a file it did not read is the newest earlier release's, marked "(carried forward from X-GA)".
OUT_DIR defaults to data/importer beside this script's repository. Writes OUT_DIR/<release>.tsv
(format: data/importer/README.md). Standard library only. The extraction is static and
pattern-based: what it cannot see is listed in the README.
"""
import argparse
import os
import re
import subprocess
import sys

# Release -> branch of onnx/onnx-tensorrt.
BRANCHES = [("7.0", "7.0"), ("7.1", "7.1"), ("7.2", "7.2.1"), ("8.0", "8.0-GA"), ("8.2", "8.2-GA"),
            ("8.4", "8.4-GA"), ("8.5", "8.5-GA"), ("8.6", "8.6-GA"), ("9.0", "9.0-GA"), ("9.1", "9.1"),
            ("9.2", "9.2"), ("9.3", "9.3"), ("10.0", "10.0-GA"), ("10.1", "10.1-GA")]
# Parser sources, where present in a branch.
IMPORTER_FILES = ["builtin_op_importers.cpp", "onnxOpImporters.cpp"]
HELPER_FILES = ["onnx2trt_utils.cpp", "importerUtils.cpp", "weightUtils.cpp", "builtin_op_static_checkers.cpp",
                "onnxOpCheckers.cpp", "ShapeTensor.cpp", "RNNHelpers.cpp", "LoopHelpers.cpp", "ConditionalHelpers.cpp",
                "OnnxAttrs.cpp", "ModelImporter.cpp", "AttentionHelpers.cpp"]
# Our type names, in display order; TensorRT DataType enumerators and TensorOrWeights::getType() strings.
TYPE_ORDER = ["FP32", "FP16", "BF16", "FP8", "FP4", "INT4", "INT8", "UINT8", "INT32", "INT64", "BOOL"]
K_TYPES = {"kFLOAT": "FP32", "kHALF": "FP16", "kBF16": "BF16", "kFP8": "FP8", "kFP4": "FP4", "kINT4": "INT4",
           "kINT8": "INT8", "kUINT8": "UINT8", "kINT32": "INT32", "kINT64": "INT64", "kBOOL": "BOOL"}
STR_TYPES = {"FLOAT": "FP32", "HALF": "FP16", "BF16": "BF16", "FP8": "FP8", "FP4": "FP4", "INT4": "INT4",
             "INT8": "INT8", "UINT8": "UINT8", "INT32": "INT32", "INT64": "INT64", "BOOL": "BOOL"}
IS_TYPES = {"isBool": "BOOL", "isInt32": "INT32", "isInt64": "INT64", "isFp32": "FP32", "isFp16": "FP16",
            "isBFp16": "BF16", "isUint8": "UINT8", "isInt8": "INT8", "isFp8": "FP8"}
MAX_DEPTH = 4  # helper calls followed from an importer
# Hand-read checks bound to a text in the code (the `rules` column).
CHECKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "importer_checks.tsv")


def git_show(git_dir, branch, path):
    try:
        return subprocess.run(["git", "-C", git_dir, "show", f"{branch}:{path}"], check=True,
                              capture_output=True, text=True, errors="replace").stdout
    except subprocess.CalledProcessError:
        return None


def folder_reader(folder):
    """A reader of parser files from a plain folder (None when a file is absent)."""
    def read(path):
        full = os.path.join(folder, path)
        if not os.path.isfile(full):
            return None
        with open(full, encoding="utf-8", errors="replace", newline="") as f:
            return f.read()
    return read


def git_reader(git_dir, branch):
    return lambda path: git_show(git_dir, branch, path)


def strip_comments(text):
    """Blanks comments and string contents' comment-like runs while keeping line numbers and offsets."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_end(text, open_brace):
    """Offset just past the brace block that starts at text[open_brace] == '{'."""
    depth, i = 0, open_brace
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


class Source:
    """One parser file: its text without comments, and line lookup."""

    def __init__(self, name, text):
        self.name = name
        self.text = strip_comments(text)
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", self.text)]

    def line(self, offset):
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def where(self, offset):
        return f"{self.name}:{self.line(offset)}"


class Body:
    """A function or importer body: its source and [start, end) offsets."""

    def __init__(self, src, start, end, name):
        self.src, self.start, self.end, self.name = src, start, end, name

    @property
    def text(self):
        return self.src.text[self.start:self.end]


FUNC_HEAD = re.compile(r"^(?:[A-Za-z_][\w:<>,\s\*&]*?[\s\*&])?(?:[\w]+::)*(\w+)\s*\(", re.M)


def functions(src):
    """Top-level function definitions of a file: {name: [Body]} (overloads keep every body)."""
    out = {}
    for m in FUNC_HEAD.finditer(src.text):
        if m.start() > 0 and src.text[m.start() - 1] not in "\n":
            continue
        name = m.group(1)
        if name in ("if", "for", "while", "switch", "return", "DEFINE_BUILTIN_OP_IMPORTER", "DEFINE_OP_CHECKER"):
            continue
        # The body opens at the first '{' after the matching ')' with no ';' between.
        depth, i = 0, m.end() - 1
        while i < len(src.text):
            if src.text[i] == "(":
                depth += 1
            elif src.text[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        rest = src.text[i + 1:i + 400]
        brace = re.match(r"[^;{]*\{", rest)
        if not brace:
            continue
        start = i + 1 + brace.end() - 1
        out.setdefault(name, []).append(Body(src, start, block_end(src.text, start), name))
    return out


def importers(src, macro):
    """{op: (Body, definition offset)} for `MACRO(Op)` blocks."""
    out = {}
    for m in re.finditer(macro + r"\((\w+)\)", src.text):
        if m.start() > 0 and src.text[m.start() - 1] != "\n":
            continue
        brace = src.text.find("{", m.end())
        out[m.group(1)] = (Body(src, brace, block_end(src.text, brace), m.group(1)), m.start())
    return out


def type_set(names, universe):
    return [t for t in universe if t in names]


def input_of(body, expr, depth=0):
    """The input index an expression's value comes from (inputs.at(N) traced through local
    assignments), or None."""
    m = re.search(r"inputs\s*(?:\.at\s*\(|\[)\s*(\d+)", expr)
    if m:
        return int(m.group(1))
    if depth > 4:
        return None
    for var in re.findall(r"\b([A-Za-z_]\w*)\b", expr):
        if var in ("getType", "auto", "const", "nvinfer1", "DataType", "tensor", "ctx", "convertToTensor", "type"):
            if var != "type" and var != "tensor":
                continue
        decl = re.search(r"\b" + re.escape(var) + r"\s*(?:\{|=(?!=))([^;]*);", body.text)
        if decl and decl.group(1).strip() != expr.strip():
            found = input_of(body, decl.group(1), depth + 1)
            if found is not None:
                return found
    return None


ERROR_RETURN = re.compile(r"return\s+(?:MAKE_ERROR|Status::|false|nullptr|\{\s*\}|error)")


def main_path(body):
    """Offsets (relative to the body) of the code every import of the op runs: top-level statements
    (loops included) before the first top-level `if`/`else`/`switch` block that returns a result,
    since what follows such a block runs only on one of two paths. Code nested in if/else/switch
    blocks and lambdas runs only on some paths. Returns a predicate on offsets."""
    text = body.text
    kinds = []  # kind of each open block
    conditional_at = []  # (start, end) of blocks that run on some paths only
    cutoff = len(text)
    i = 0
    while i < len(text):
        c = text[i]
        if c == "{":
            before = text[:i].rstrip()
            kind = "block"
            if before.endswith(")"):
                depth, j = 0, len(before) - 1
                while j >= 0:
                    depth += {")": 1, "(": -1}.get(before[j], 0)
                    if depth == 0:
                        break
                    j -= 1
                word = re.search(r"(\w+)\s*$", before[:j])
                kind = word.group(1) if word else "call"
                if before[:j].rstrip().endswith("]"):
                    kind = "lambda"
            elif re.search(r"\belse$", before) or before.endswith("]"):
                kind = "else" if before.endswith("else") else "lambda"
            elif before.endswith("do"):
                kind = "for"
            end = block_end(text, i)
            if kind in ("if", "else", "switch", "lambda", "catch") and i > 0:
                conditional_at.append((i, end))
                if len(kinds) == 1 and kind in ("if", "else", "switch"):  # inside the body's own brace
                    block = text[i:end]
                    if any(not ERROR_RETURN.match(m.group(0)) for m in re.finditer(r"return\b[^;]*", block)):
                        cutoff = min(cutoff, i)
            kinds.append(kind)
        elif c == "}":
            if kinds:
                kinds.pop()
        i += 1

    def unconditional(offset):
        if offset >= cutoff:
            return False
        return not any(a <= offset < b for a, b in conditional_at)
    return unconditional


class Check:
    def __init__(self, input_index, allowed, where, guessed=False):
        self.input, self.allowed, self.where, self.guessed = input_index, allowed, where, guessed


def expand_bools(body, cond):
    """Replaces local bool variables in a condition by their definitions (`bool const isInt32 = x.isInt32();`)."""
    for _ in range(2):
        for var in set(re.findall(r"\b([A-Za-z_]\w*)\b", cond)):
            d = re.search(r"\bbool\s+(?:const\s+)?" + re.escape(var) + r"\s*=\s*([^;]+);", body.text)
            if d:
                # Not a member of the same name (`x.isInt32()` inside `bool isInt32 = x.isInt32();`).
                cond = re.sub(r"(?<![.>])\b" + re.escape(var) + r"\b", lambda _: "(" + d.group(1) + ")", cond)
    return cond


def first_argument(text, start):
    """The first top-level argument of a call whose '(' ends at `start`, and the offset past the call."""
    depth, i, arg_end = 1, start, None
    while i < len(text) and depth:
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 1 and arg_end is None:
            arg_end = i
        i += 1
    return text[start:arg_end if arg_end is not None else i - 1], i


def direct_checks(body, universe, main=None, enum=None):
    """Type checks on the main path of a body: notInvalidType blacklists, and in ASSERT-style conditions
    DataType == whitelists (joined by ||), != blacklists, and isInt32()-style tests. `enum` is the
    enumerator the importer passes a helper (kRECIP): a test of the op (`op == kNOT ? ... : ...`, 7.x
    unaryHelper) is then decided, and the check binds the helper's tensor, input 0."""
    found = []
    text = body.text
    main = main or main_path(body)
    # notInvalidType (returns a Status) and, from 10.2, checkNotInvalidType (throws).
    for m in re.finditer(r"(?:\bcheckN|\bn)otInvalidType\s*\(\s*([^,]+?)\s*,\s*\{([^}]*)\}", text):
        if not main(m.start()):
            continue
        banned = {STR_TYPES[s] for s in re.findall(r'"(\w+)"', m.group(2)) if s in STR_TYPES}
        idx = input_of(body, m.group(1))
        found.append(Check(idx, [t for t in universe if t not in banned], body.src.where(body.start + m.start()),
                           idx is None))
    # ONNXTRT_CHECK_NODE: the check macro of 10.5 and later (condition first, message apart).
    for m in re.finditer(r"\b(?:ASSERT|ASSERT_NODE|ONNXTRT_CHECK|ONNXTRT_CHECK_NODE|ASSERT_INPUT)\s*\(", text):
        if not main(m.start()):
            continue
        cond, _ = first_argument(text, m.end())
        cond = expand_bools(body, cond.split('"', 1)[0])
        where = body.src.where(body.start + m.start())
        by_op = enum and re.search(r"\b\w+\s*==\s*(?:nvinfer1::)?(?:UnaryOperation|ElementWiseOperation)::k\w+", cond)
        if by_op:
            cond = re.sub(r"\b\w+\s*==\s*(?:nvinfer1::)?(?:UnaryOperation|ElementWiseOperation)::(k\w+)",
                          lambda e: "true" if e.group(1) == enum else "false", cond)
        allowed = cond_types(cond, universe)
        subject = type_subject(cond)
        if allowed is None or allowed == universe or subject is None:
            continue
        idx = input_of(body, subject)
        idx = 0 if idx is None and by_op else idx
        found.append(Check(idx, allowed, where, idx is None))
    return found


def switch_cases(body):
    """Per `switch` statement of a helper body (a helper may switch on its enumerator twice: 8.0-8.4
    unaryHelper checks types in one switch and casts back in another), {enumerator: (case text,
    offset)}; 'default' for the default branch."""
    out = []
    for sw in re.finditer(r"\bswitch\s*\(", body.text):
        brace = body.text.find("{", sw.end())
        if brace < 0:
            continue
        end = block_end(body.text, brace)
        block = body.text[brace:end]
        cases = {}
        labels = [m for m in re.finditer(r"\bcase\s+(?:[\w:]+::)?(k\w+)\s*:|\bdefault\s*:", block)]
        for i, m in enumerate(labels):
            # Consecutive labels share the body that follows the last of them.
            j = i
            while j + 1 < len(labels) and not block[labels[j].end():labels[j + 1].start()].strip():
                j += 1
            seg_end = labels[j + 1].start() if j + 1 < len(labels) else len(block) - 1
            key = m.group(1) if m.group(1) else "default"
            cases[key] = (block[labels[j].end():seg_end], brace + labels[j].end())
        if cases:
            out.append(cases)
    return out


def split_top(expr, op):
    """`expr` split at the top-level occurrences of `op` (outside brackets and strings)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(expr):
        c = expr[i]
        if c == '"':
            i += 1
            while i < len(expr) and expr[i] != '"':
                i += 2 if expr[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and expr.startswith(op, i):
            parts.append(expr[start:i])
            start = i + len(op)
            i = start
            continue
        i += 1
    return parts + [expr[start:]]


def type_value(expr, t):
    """Whether condition `expr` holds for an input of type `t`: True, False, or None where it does not
    depend on the type alone (three-valued: an unknown term may hold either way). `x == DataType::kA`,
    `!=`, `x.isA()`, std::all_of/any_of over inputs (per input: the lambda's condition), `!`, `&&`,
    `||` and parentheses are read."""
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")") and paren_end(expr) == len(expr):
        expr = expr[1:-1].strip()
    if expr in ("true", "false"):
        return expr == "true"
    branches = split_top(expr, "?")
    arms = [a for a in split_top(branches[1].replace("::", "\0\0"), ":")] if len(branches) == 2 else []
    if len(arms) == 2:
        pick = type_value(branches[0], t)
        yes, no = (type_value(a.replace("\0\0", "::"), t) for a in arms)
        return (yes if pick else no) if pick is not None else (yes if yes == no else None)
    if len(branches) > 1:
        return None
    parts = split_top(expr, "||")
    if len(parts) > 1:
        vals = [type_value(p, t) for p in parts]
        return True if True in vals else (None if None in vals else False)
    parts = split_top(expr, "&&")
    if len(parts) > 1:
        vals = [type_value(p, t) for p in parts]
        return False if False in vals else (None if None in vals else True)
    if expr.startswith("!") and not expr.startswith("!="):
        v = type_value(expr[1:], t)
        return None if v is None else not v
    m = re.fullmatch(r"(?:->|[^=!<>?:])+?\s*(==|!=)\s*(?:nvinfer1::)?DataType::(k\w+)", expr)
    if m:
        return (K_TYPES.get(m.group(2)) == t) == (m.group(1) == "==")
    m = re.fullmatch(r"[\w\.\->\(\)\[\]]+?\.(is\w+)\(\)", expr)
    if m and m.group(1) in IS_TYPES:
        return IS_TYPES[m.group(1)] == t
    m = re.fullmatch(r"std::(?:all_of|any_of)\s*\(.*?\{\s*return\s+(.*);\s*\}\s*\)", expr, re.S)
    if m:
        return type_value(m.group(1), t)
    return None


def paren_end(expr):
    """Offset just past the parenthesis that closes expr[0] == '('."""
    return first_argument(expr, 1)[1]


def cond_types(cond, universe):
    """The types for which `cond` can hold (None: it does not depend on the type)."""
    vals = {t: type_value(cond, t) for t in universe}
    if all(v is None for v in vals.values()):
        return None
    return [t for t in universe if vals[t] is not False]


def type_subject(cond):
    """The expression whose type `cond` tests (first one), or None."""
    m = re.search(r"([\w\.\->\(\)\[\]]+?)\s*[=!]=\s*(?:nvinfer1::)?DataType::k\w+|([\w\.\(\)\[\]]+?)\.is\w+\(\)", cond)
    return (m.group(1) or m.group(2)) if m else None


def asserted_flags(body):
    """Local bools of a body that a check macro later asserts (`bool validUnaryType = true; ...
    ASSERT(validUnaryType && ...)`): assigning one in a switch case decides refusal."""
    flags = set()
    for m in re.finditer(r"\bbool\s+(?:const\s+)?(\w+)\s*=", body.text):
        if re.search(r"\b(?:ASSERT\w*|ONNXTRT_CHECK\w*|CHECK\w*)\s*\(\s*\(?\s*" + re.escape(m.group(1)) + r"\b",
                     body.text):
            flags.add(m.group(1))
    return flags


def case_allowed(seg, flags, universe):
    """(types a switch case lets through, offset of the deciding condition in `seg`), or (None, 0) when
    nothing in the case refuses a type. Only conditions that decide refusal narrow: an asserted flag's
    assignment (`validUnaryType = inputType == kBOOL;`), a check macro's condition, `if (cond) return
    <error>`. An `if (x == kINT32) { cast ... }` work-around selects a special path for a type the
    layer lacks: it widens, it is not the accepted set (8.0-8.4 Abs and Neg). Types whose special
    path returns before the case's later checks are exempt from them."""
    allowed, at, exempt = list(universe), None, set()
    for m in re.finditer(r"\bif\s*\(", seg):
        cond, after = first_argument(seg, m.end())
        cond = seg[m.end():after - 1]
        rest = seg[after:].lstrip()
        if rest.startswith("{"):
            start = seg.index("{", after)
            block = seg[start + 1:block_end(seg, start) - 1].strip()
        else:
            block = rest.split(";", 1)[0] + ";"
        types = cond_types(cond, universe)
        if types is None:
            continue
        if ERROR_RETURN.match(block):
            allowed = [t for t in allowed if t not in types or t in exempt]
            at = m.start() if at is None else at
        elif re.search(r"\breturn\b", block):
            exempt.update(types)
    decisions = [(m.start(), first_argument(seg, m.end())[0]) for m in re.finditer(
        r"\b(?:ASSERT|ASSERT_NODE|ONNXTRT_CHECK|ONNXTRT_CHECK_NODE|ASSERT_INPUT)\s*\(", seg)]
    decisions += [(m.start(), m.group(2)) for m in re.finditer(r"\b(\w+)\s*=(?!=)\s*([^;]+);", seg)
                   if m.group(1) in flags]
    for pos, cond in decisions:
        types = cond_types(cond.split('"', 1)[0], universe)
        if types is None:
            continue
        allowed = [t for t in allowed if t in types or t in exempt]
        at = pos if at is None else at
    if at is None:
        return None, 0
    # Cite the condition's first type test, not the macro's name.
    test = re.compile(r"DataType::k\w+|\.is\w+\(\)").search(seg, at)
    return allowed, test.start() if test else at


class Release:
    def __init__(self, read, branch):
        self.branch = branch
        self.sources = []
        self.importer_macro = "DEFINE_BUILTIN_OP_IMPORTER"
        for name in IMPORTER_FILES + HELPER_FILES:
            text = read(name)
            if text is not None:
                self.sources.append(Source(name, text))
        self.funcs = {}
        for src in self.sources:
            for name, bodies in functions(src).items():
                self.funcs.setdefault(name, []).extend(bodies)
        self.ops = {}
        for src in self.sources:
            if src.name in IMPORTER_FILES:
                self.ops.update(importers(src, self.importer_macro))
        self.checkers = {}
        for src in self.sources:
            if "hecker" in src.name:
                self.checkers.update({op: body for op, (body, _) in importers(src, r"DEFINE_OP_CHECKER").items()})
        self.universe, self.int64 = self.dtype_universe()

    def dtype_universe(self):
        for src in self.sources:
            m = re.search(r"bool convertDtype\s*\([^)]*\)\s*\{", src.text)
            if not m:
                continue
            body = src.text[m.end():block_end(src.text, m.end() - 1)]
            kinds = set()
            int64 = None
            for cm in re.finditer(r"TensorProto::(\w+)\s*:\s*\*\w+\s*=\s*(?:nvinfer1::)?DataType::(k\w+)", body):
                kinds.add(K_TYPES.get(cm.group(2)))
                if cm.group(1) == "INT64":
                    int64 = ("native" if cm.group(2) == "kINT64" else "narrowed",
                             src.where(m.end() + cm.start()))
            return [t for t in TYPE_ORDER if t in kinds], int64
        return [], None

    def find(self, needle, files=None):
        for src in self.sources:
            if files and src.name not in files:
                continue
            i = src.text.find(needle)
            if i >= 0:
                return src.where(i)
        return None

    def calls(self, body):
        """(name, argument text) of the calls in a body to functions defined in the parser sources."""
        out = []
        for m in re.finditer(r"\b(\w+)\s*\(", body.text):
            name = m.group(1)
            if name in self.funcs and name != body.name:
                end = m.end()
                depth = 1
                while end < len(body.text) and depth:
                    depth += {"(": 1, ")": -1}.get(body.text[end], 0)
                    end += 1
                out.append((name, body.text[m.end():end - 1]))
        return out

    def walk(self, body, depth, args, facts, seen, checks=True):
        """Collects attributes and inputs read from `body` and every helper it calls, and the type
        checks on the main path (main_path): a check or helper call on a side path does not bind
        every node of the op."""
        key = (body.src.name, body.start, args, checks)
        if key in seen or depth > MAX_DEPTH:
            return
        seen.add(key)
        facts["bodies"].append(body)
        text = body.text
        main = main_path(body)
        facts["attrs"].update(re.findall(r"attrs\s*\.\s*(?:get|count|at)\w*\s*(?:<[^;()]*?>)?\s*\(\s*\"(\w+)\"", text))
        facts["attrs"].update(re.findall(r"getAttribute\w*\s*\([^\"]*\"(\w+)\"", text))
        if depth == 0:
            facts["inputs"].update(int(i) for i in re.findall(r"inputs\s*(?:\.at\s*\(|\[)\s*(\d+)", text))
            if re.search(r"for\s*\([^;)]*:\s*inputs\s*\)|inputs\.begin\(\)", text):
                facts["all_inputs"] = True
        if checks:
            op_enum = re.search(r"::(k\w+)", args) if args else None
            facts["checks"].extend(direct_checks(body, self.universe, main, op_enum and op_enum.group(1)))
            # A helper whose check depends on an enumerator argument (unaryHelper, elementwiseCheck, ...).
            enum = re.search(r"::(k\w+)", args) if args else None
            flags = asserted_flags(body)
            for cases in switch_cases(body) if enum else []:
                seg = cases.get(enum.group(1), cases.get("default"))
                if seg is None:
                    continue
                allowed, at = case_allowed(seg[0], flags, self.universe)
                if allowed is not None and allowed != self.universe:
                    facts["checks"].append(Check("*" if "all_of" in seg[0] or "any_of" in seg[0] else 0,
                                                 allowed, body.src.where(body.start + seg[1] + at)))
        for m in re.finditer(r"\b(\w+)\s*\(", text):
            name = m.group(1)
            if name not in self.funcs or name == body.name or name in ("notInvalidType", "checkNotInvalidType", "getNodeName"):
                continue
            call_args, _ = first_argument(text, m.end())
            call_args = text[m.end():_ - 1]
            if depth == 0 and re.search(r"\binputs\s*[,)]", call_args + ")"):
                facts["passes_inputs"] = True
            enum = re.search(r"(?:UnaryOperation|ElementWiseOperation|ActivationType)::k\w+", call_args)
            # An enumerator written by the importer selects a helper's switch case; a helper passing its
            # own parameter on (binary_op, op) keeps the importer's.
            callee_args = enum.group(0) if enum and depth == 0 else (
                args if re.search(r"\b(?:binary_op|op)\b", call_args) else "")
            for callee in self.funcs[name]:
                self.walk(callee, depth + 1, callee_args, facts, seen, checks and main(m.start()))

    def op_facts(self, op):
        body, defined = self.ops[op]
        facts = {"attrs": set(), "inputs": set(), "checks": [], "all_inputs": False, "passes_inputs": False,
                 "bodies": []}
        self.walk(body, 0, "", facts, set())
        if op in self.checkers:
            self.walk(self.checkers[op], 1, "", facts, set())
        # An importer that replaces an input before its helper checks every input (Pow from 10.8 casts an
        # integer exponent to the base's type: `inputs[1] = ...`) exempts that input from the helper's check.
        replaced = {int(a or b) for a, b in re.findall(r"\binputs\s*(?:\[\s*(\d+)\s*\]|\.at\s*\(\s*(\d+)\s*\))\s*=(?!=)",
                                                        body.text)}
        if replaced:
            narrowed = []
            for c in facts["checks"]:
                if c.input == "*":
                    narrowed += [Check(i, c.allowed, c.where, c.guessed) for i in sorted(facts["inputs"] - replaced)]
                elif c.input not in replaced:
                    narrowed.append(c)
            facts["checks"] = narrowed
        return body.src.where(defined), facts


def read_checks(path):
    """[(op, rule, pattern)] from data/importer_checks.tsv (hand-read checks bound to a text)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if not l.startswith("#") and l.strip()]
    if not lines or lines[0].split("\t") != ["op", "rule", "pattern", "why"]:
        raise SystemExit(f"importer_facts: {path}: expected the columns op, rule, pattern, why")
    for n, line in enumerate(lines[1:], 2):
        cols = line.split("\t")
        if len(cols) != 4 or not all(cols):
            raise SystemExit(f"importer_facts: {path}: row {n} needs four non-empty columns")
        rows.append(tuple(cols[:3]))
    return rows


def rules_column(op, bodies, checks):
    """`rule#FILE:LINE;...`: each check of `op` whose pattern occurs in a body the importer reaches."""
    out = []
    for check_op, rule, pattern in checks:
        if check_op != op:
            continue
        for body in bodies:
            i = body.text.find(pattern)
            if i >= 0:
                out.append(f"{rule}#{body.src.where(body.start + i)}")
                break
    return ";".join(out) or "-"


def accepts_column(checks, universe):
    """`I:T|T@FILE:LINE;...`: per input, the intersection of every check, cited by the first narrowing one."""
    per = {}
    for c in checks:
        if c.guessed:
            continue  # a check on a value the tool cannot trace to an input binds nothing it can name
        cur = per.get(c.input)
        allowed = [t for t in (cur[0] if cur else universe) if t in c.allowed]
        per[c.input] = (allowed, cur[1] if cur else c.where)
    items = []
    for key in sorted(per, key=lambda k: -1 if k == "*" else k):
        allowed, where = per[key]
        if allowed == universe:
            continue
        items.append(f"{key}:{'|'.join(allowed) if allowed else 'none'}@{where}")
    return ";".join(items) if items else "-"


def write_release(git_dir, name, branch, out_dir, folder=None, commit=None, date=None):
    """Writes OUT_DIR/<name>.tsv from branch `branch` of git_dir, or (folder given) from the files of
    one commit in a plain folder; `branch` is then only the label for the header."""
    r = Release(folder_reader(folder) if folder else git_reader(git_dir, branch), branch)
    if not r.ops:
        raise SystemExit(f"importer_facts: no importers found on branch {branch}")
    if folder:
        origin = f"{branch} (read from a folder of its files)"
    else:
        origin = f"branch {branch}"
        commit = subprocess.run(["git", "-C", git_dir, "rev-parse", branch], capture_output=True,
                                text=True).stdout.strip()
        date = subprocess.run(["git", "-C", git_dir, "log", "-1", "--format=%cs", branch], capture_output=True,
                              text=True).stdout.strip()
    head = [f"# importer facts for TensorRT {name}: onnx/onnx-tensorrt {origin}, commit {commit}, {date}. "
            "Generated by tools/importer_facts.py; do not edit.",
            f"# release: {name}", f"# branch: {branch}", f"# commit: {commit}",
            f"# types: {' '.join(r.universe)}"]
    if r.int64:
        head.append(f"# policy.int64: {r.int64[0]}@{r.int64[1]}")
    boundary = r.find("UINT8 types for intermediate tensors", ["ModelImporter.cpp"])
    head.append(f"# policy.uint8_boundary: {'yes@' + boundary if boundary else 'no@-'}")
    uint8_weights = r.find("convertUINT8") or r.find("Cast UINT8 weights")
    head.append(f"# policy.uint8_weights: {'int32@' + uint8_weights if uint8_weights else 'uint8@-'}")
    weight_types = set(r.universe) | ({"UINT8"} if uint8_weights else set())
    for onnx_name, ours in (("FLOAT8E4M3FN", "FP8"), ("INT4", "INT4"), ("INT8", "INT8")):
        if r.find(f"TensorProto::{onnx_name}", ["onnx2trt_utils.cpp", "weightUtils.cpp", "importerUtils.cpp"]):
            weight_types.add(ours)
    head.append(f"# policy.weight_types: {' '.join(t for t in TYPE_ORDER if t in weight_types)}")
    lines = head + ["\t".join(["op", "src", "accepts", "attrs_read", "inputs_read", "checks", "rules"])]
    hand_read = read_checks(CHECKS)
    for op in sorted(r.ops, key=lambda s: (s.lower(), s)):
        src, facts = r.op_facts(op)
        inputs = "*" if facts["all_inputs"] or (facts["passes_inputs"] and not facts["inputs"]) else \
            "|".join(str(i) for i in sorted(facts["inputs"])) or "-"
        guessed = sorted({c.where for c in facts["checks"] if c.guessed})
        checks = ";".join(f"unknown_input@{w}" for w in guessed) or "-"
        lines.append("\t".join([op, src, accepts_column(facts["checks"], r.universe),
                                "|".join(sorted(facts["attrs"])) or "-", inputs, checks,
                                rules_column(op, facts["bodies"], hand_read)]))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, f"{name}.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return len(r.ops)


def folder_main(argv):
    p = argparse.ArgumentParser(prog="importer_facts.py", description="importer facts of one release from a folder")
    p.add_argument("--folder", required=True)
    p.add_argument("--release", required=True)
    p.add_argument("--commit", required=True, type=lambda s: s if re.fullmatch(r"[0-9a-f]{40}", s) else p.error(
        "--commit: 40 hex digits"))
    p.add_argument("--date", required=True, type=lambda s: s if re.fullmatch(r"\d{4}-\d\d-\d\d", s) else p.error(
        "--date: YYYY-MM-DD"))
    p.add_argument("--branch", help="label written as `# branch:` (default <release>-GA)")
    p.add_argument("out", nargs="?",
                   default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "importer"))
    a = p.parse_args(argv[1:])
    label = a.branch or f"{a.release}-GA"
    count = write_release(None, a.release, label, a.out, folder=a.folder, commit=a.commit, date=a.date)
    print(f"importer_facts: {a.release} ({label}): {count} importers")
    return 0


CARRIED = " (carried forward from {})"


def carried_where(field, label):
    """Marks every FILE:LINE of a field taken from release `label`'s facts as carried forward from it; a
    FILE:LINE already marked keeps its mark (a fact carried twice names the release that read it)."""
    if field in ("-", ""):
        return field
    return re.sub(r"([\w.]+\.(?:cpp|hpp):\d+)(?!\d| \(carried)", r"\1" + CARRIED.format(label), field)


def read_facts_tsv(path):
    """({key: value} of the `# key: value` lines, [row dict]) of an importer-facts or delta file."""
    head, rows, cols = {}, [], None
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("# ") and ":" in line and cols is None:
                k, _, v = line[2:].partition(":")
                head.setdefault(k.strip(), v.strip())
            elif cols is None and line.startswith("op\t"):
                cols = line.split("\t")
            elif cols and line:
                rows.append(dict(zip(cols, line.split("\t"))))
    return head, rows


def read_sources(path):
    """{release: {file: row}} of data/importer/sources.tsv; a file listed twice (10.15: the pinned commit and
    the GA commit) keeps the row that was read."""
    out = {}
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if not l.startswith("#") and l.strip()]
    cols = ["release", "file", "commit", "id", "chars", "read", "tie"]
    if not lines or lines[0].split("\t") != cols:
        raise SystemExit(f"importer_facts: {path}: expected the columns {' '.join(cols)}")
    for n, line in enumerate(lines[1:], 2):
        row = dict(zip(cols, line.split("\t")))
        if len(line.split("\t")) != len(cols) or not re.fullmatch(r"[0-9a-f]{40}", row["commit"]) or not (
                row["read"] in ("all", "none", "absent") or re.fullmatch(r"\d+-\d+", row["read"])):
            raise SystemExit(f"importer_facts: {path}: row {n} is malformed")
        files = out.setdefault(row["release"], {})
        if row["file"] not in files or files[row["file"]]["read"] in ("none", "absent"):
            files[row["file"]] = row
    return out


# Header facts and the file each comes from: a release takes a fact from its own delta file when it read that
# file, else from the newest earlier release that did.
FACT_FILES = {"types": "importerUtils.cpp", "types.where": "importerUtils.cpp",
              "policy.int64": "importerUtils.cpp", "policy.uint8_boundary": "ModelImporter.cpp",
              "policy.uint8_weights": "ModelImporter.cpp", "policy.weight_types": "weightUtils.cpp"}


def chain_main(argv):
    """Releases after 10.10, whose files only the code index holds, page by page: data/importer/delta/<R>.tsv
    says what each release's own files say (its importer rows, `=` where 10.10's facts hold; `# fact.KEY:`
    header facts), data/importer/sources.tsv which file each release read. Every fact of a file a release did
    not read comes from the newest earlier release that did, marked "carried forward from X"."""
    p = argparse.ArgumentParser(prog="importer_facts.py", description="importer facts of the releases after 10.10")
    p.add_argument("--chain", required=True, help="folder of delta files, data/importer/delta")
    p.add_argument("--base", required=True, help="data/importer/10.10.tsv")
    p.add_argument("--sources", required=True, help="data/importer/sources.tsv")
    p.add_argument("out", nargs="?",
                   default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "importer"))
    a = p.parse_args(argv[1:])
    sources = read_sources(a.sources)
    base_head, base_rows = read_facts_tsv(a.base)
    base_label = base_head["branch"]
    # The facts in force, as carried to the next release: (label of the release that read them, value).
    facts = {k: (base_label, base_head[k]) for k in base_head if k.startswith(("types", "policy."))}
    facts.setdefault("types.where", (base_label, "-"))
    rows = {r["op"]: {**r, "_from": base_label} for r in base_rows}
    base = {r["op"]: r for r in base_rows}
    releases = sorted((f[:-4] for f in os.listdir(a.chain) if re.fullmatch(r"\d+\.\d+\.tsv", f)),
                      key=lambda v: tuple(int(x) for x in v.split(".")))
    previous = base_head["release"]
    for release in releases:
        path = os.path.join(a.chain, f"{release}.tsv")
        d_head, d_rows = read_facts_tsv(path)
        if d_head.get("release") != release:
            raise SystemExit(f"importer_facts: {path}: release line says {d_head.get('release')!r}")
        label = f"{release}-GA"
        read = {f: r for f, r in sources.get(release, {}).items() if r["read"] not in ("none", "absent")}
        for key, file in FACT_FILES.items():
            own = d_head.get("fact." + key)
            if own is not None:
                if file not in read:
                    raise SystemExit(f"importer_facts: {path}: fact.{key} needs {file}, which "
                                     f"sources.tsv does not list as read at {release}")
                facts[key] = (label, own)
        if d_rows and "onnxOpImporters.cpp" not in read:
            raise SystemExit(f"importer_facts: {path}: importer rows, but sources.tsv does not list "
                             f"onnxOpImporters.cpp as read at {release}")
        if d_rows:
            # A file read in part (10.15) lists the importers it read; `# carry_rows_from: X` (X the release
            # before) keeps X's rows for the others. A file read whole lists every importer.
            carry = d_head.get("carry_rows_from")
            if carry is not None and carry != previous:
                raise SystemExit(f"importer_facts: {path}: carry_rows_from must be the release before, {previous}")
            rows = dict(rows) if carry else {}
            for d in d_rows:
                b = base.get(d["op"])
                if b is None and "=" in (d["accepts"], d["attrs_read"], d["inputs_read"]):
                    raise SystemExit(f"importer_facts: {path}: {d['op']} says '=' but {a.base} has no such op")
                pick = lambda col: carried_where(b[col], base_label) if d[col] == "=" else d[col]
                rows[d["op"]] = {"op": d["op"], "src": d["src"], "accepts": pick("accepts"),
                                 "attrs_read": pick("attrs_read"), "inputs_read": pick("inputs_read"),
                                 "checks": carried_where(b["checks"], base_label) if b else "-",
                                 "rules": carried_where(b["rules"], base_label) if b else "-", "_from": label}
        commit = d_head["commit"]
        own_files = ", ".join(f"{f} ({r['commit'][:12]}, code index id {r['id']}, characters {r['read']} of "
                              f"{r['chars']})" for f, r in sorted(read.items()))
        carried_files = sorted({f for f in FACT_FILES.values()} | {"onnxOpImporters.cpp"} - set(read))
        lines = [f"# importer facts for TensorRT {release}: onnx/onnx-tensorrt {label}, commit {commit}, "
                 f"{d_head['date']}. Read from the code index: {own_files or 'nothing'}; every fact of "
                 f"{', '.join(carried_files)} is carried forward (data/importer/sources.tsv). "
                 "Generated by tools/importer_facts.py; do not edit.",
                 f"# release: {release}", f"# branch: {label}", f"# commit: {commit}"]
        for key in FACT_FILES:
            src_label, value = facts.get(key, (None, "-"))
            if value == "-":
                continue
            lines.append(f"# {key}: {value if src_label == label else carried_where(value, src_label)}")
        lines.append("\t".join(["op", "src", "accepts", "attrs_read", "inputs_read", "checks", "rules"]))
        for op in sorted(rows, key=lambda s: (s.lower(), s)):
            r = rows[op]
            cols = [r[c] for c in ("src", "accepts", "attrs_read", "inputs_read", "checks", "rules")]
            if r["_from"] != label and r["_from"] != base_label:
                cols = [carried_where(c, r["_from"]) for c in cols]
            lines.append("\t".join([op] + cols))
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, f"{release}.tsv"), "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
        print(f"importer_facts: {release}: {len(d_rows)} own importer rows, {len(rows)} importers")
        previous = release
    return 0


def main(argv):
    if "--chain" in argv:
        return chain_main(argv)
    if any(a.startswith("--") for a in argv[1:]):
        return folder_main(argv)
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    git_dir = argv[1]
    out = argv[2] if len(argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                                       "importer")
    for name, branch in BRANCHES:
        count = write_release(git_dir, name, branch, out)
        print(f"importer_facts: {name} ({branch}): {count} importers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
