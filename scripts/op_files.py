"""The files a person edits to add an op: the code files that name it (issue "One op table").

    python scripts/op_files.py OP [OP ...]

The count is the issue's command, kept exactly: the files ``git ls-files`` lists, less ``tests/``,
``docs/``, ``benchmarks/``, ``*.md`` and the files whose first lines say ``@generated``, in which the
op's name occurs (``grep -l NAME``: case-sensitive, as a substring, so ``vexp`` counts for ``exp``).

Each file is also classified:

- ``definition``: the op is declared, bound, registered, implemented, exported or mapped there (a
  function whose name holds the op's, a string ``"NAME"`` given to a registering call or as a table
  key or list item, an X-macro row, a ``case`` label of its enum value);
- ``use``: it only calls the op or mentions it in a comment or a message.

The definitions are what adding the op costs; a use is a caller, which any op can have.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXCLUDED_DIRS = ("tests/", "docs/", "benchmarks/")
GENERATED_MARK = "@generated"
HEADER_LINES = 3  # where a generated file says so

# The calls that register, bind or map an op under the string name that is their first argument
# (``@op("x", ...)``, ``unary("x", ...)``, ``def_op(cls, m, "x", ...)``, ``@emits("x")``, ``m.def("x")``).
_REGISTERING = re.compile(
    r"""(?:\b(?:op|unary|binary|reduce\w*|register\w*|emits|def_op|def|def_static)\s*\((?:[^()"']*,\s*)?)["'](?P<name>\w+)["']"""
)
_NAME_ELSEWHERE = re.compile(
    r"""return\s+"(?P<a>\w+)"\s*;"""  # a primitive's name() (the graph serialiser's key)
    r"""|==\s*"(?P<b>\w+)"\s*\)"""  # a factory's name == "x" (graph files load it)
    r"""|["'](?P<c>\w+)["']\s*:(?!:)"""  # a table key: "x": ...
)
_ONLY_STRINGS = re.compile(r"""^\s*(?:["']\w+["']\s*,\s*)+(?:["']\w+["']\s*)?[\])}]?,?\s*$""")
_CXX_KEYWORDS = {"return", "else", "if", "throw", "new", "delete", "case", "co_return", "not", "and", "or", "await",
                 "yield", "assert", "raise", "lambda", "in", "is"}


def _cxx_function_head(op: str) -> re.Pattern[str]:
    """A C/C++/CUDA function declared or defined at the start of a line with a name holding ``op``:
    ``Tensor sum(``, ``static void sum_typed(``, ``__device__ T sum(``."""
    return re.compile(rf"^\s*(?:template\s*<[^>]*>\s*)?(?P<types>(?:[\w:<>]+[\s*&]+)+)\w*{re.escape(op)}\w*\s*\(")


def _camel(op: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in op.split("_"))


@dataclass(frozen=True)
class FileHit:
    path: str
    kind: str  # "definition" or "use"
    why: str  # the first line that makes it a definition (or the first mention of a use)


def code_files() -> list[str]:
    """The issue's file set: tracked files less tests, docs, benchmarks, Markdown and generated files."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    out = []
    for path in listed.splitlines():
        if path.startswith(EXCLUDED_DIRS) or path.endswith(".md"):
            continue
        full = ROOT / path
        if not full.is_file():
            continue
        try:
            head = full.read_text(errors="replace").splitlines()[:HEADER_LINES]
        except OSError:
            continue
        if any(GENERATED_MARK in line for line in head):
            continue
        out.append(path)
    return out


def _is_comment(line: str) -> bool:
    s = line.lstrip()
    return s.startswith(("//", "#", "/*", "*"))


def definition_reason(op: str, line: str) -> str | None:
    """Why this line defines ``op`` (declares, binds, registers, implements, exports or maps it), or None."""
    if op not in line or _is_comment(line):
        return None
    for m in _REGISTERING.finditer(line):
        if m.group("name") == op:
            return "registered/bound"
    for m in _NAME_ELSEWHERE.finditer(line):
        if op in (m.group("a"), m.group("b"), m.group("c")):
            return "named in a table"
    if _ONLY_STRINGS.match(line) and re.search(rf"""["']{re.escape(op)}["']""", line):
        return "named in a list"
    if re.match(rf"^\s*X\(.*\b{re.escape(op)}\b", line):
        return "X-macro row"
    if re.search(rf"\bcase\s+\w+::{_camel(op)}\s*:", line, re.IGNORECASE):
        return "enum case"
    if re.match(rf"^\s*(?:async\s+)?def\s+\w*{re.escape(op)}\w*\s*\(", line):
        return "function"
    m = _cxx_function_head(op).match(line)
    if m and m.group("types").split()[0] not in _CXX_KEYWORDS and "=" not in m.group("types"):
        return "function"
    return None


def classify(op: str, path: str) -> FileHit | None:
    """The file's kind for ``op``, or None when the file does not name it."""
    text = (ROOT / path).read_text(errors="replace")
    if op not in text:
        return None
    first_use = ""
    for number, line in enumerate(text.splitlines(), 1):
        if op not in line:
            continue
        reason = definition_reason(op, line)
        if reason is not None:
            return FileHit(path, "definition", f"{number}: {reason}")
        first_use = first_use or f"{number}"
    return FileHit(path, "use", first_use)


def op_files(op: str, files: list[str] | None = None) -> list[FileHit]:
    files = code_files() if files is None else files
    return [hit for path in files if (hit := classify(op, path)) is not None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("ops", nargs="+", help="op names")
    parser.add_argument("--why", action="store_true", help="show the line that decided each file's kind")
    args = parser.parse_args(argv)
    files = code_files()
    for op in args.ops:
        hits = op_files(op, files)
        defs = sum(h.kind == "definition" for h in hits)
        print(f"{op}: {len(hits)} files ({defs} definition, {len(hits) - defs} use)")
        for h in hits:
            print(f"  {h.kind:<10}  {h.path}" + (f"  [{h.why}]" if args.why else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
