"""The fenced code blocks of README.md and docs/*.md, with the HTML-comment marks that say how to test them.

A page's blocks are read in order. The nearest non-blank line before a block's opening fence may be
one HTML comment that marks it:

- ``<!-- no-test: why -->``: not run (a fragment, or it needs a GPU or the network); the reason is
  required, so every skipped block says why.
- ``<!-- file: NAME -->``: the block is the file NAME of the page's scratch folder (any language:
  a Python module, a ``mypy.ini``); the page's Python blocks and shell commands see it. A Python
  file block is not executed by itself: a later block imports it or a shell block checks it.
- ``<!-- run -->`` before a ``console`` block: each ``$ command`` line runs in the scratch folder,
  and the lines after it up to the next ``$`` are its expected output (``...`` matches any lines).

Every other ``python`` block runs, in page order, in one namespace per page (a page is one
continuing program), with the scratch folder as the working directory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
_MARK = re.compile(r"^\s*<!--\s*(no-test|file|run)\s*(?::\s*(.*?))?\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository root
    line: int  # 1-based line of the block's first line of code
    lang: str
    text: str
    mark: str | None = None  # "no-test", "file", "run" or None
    arg: str = ""  # the mark's argument: the reason, or the file name


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    return parse(path.read_text(), str(path.relative_to(ROOT)))


def parse(text: str, rel: str) -> list[Block]:
    lines = text.splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = _MARK.match(lines[k]) if k >= 0 else None
        kind, arg = (mark.group(1), mark.group(2) or "") if mark else (None, "")
        if kind == "no-test" and not arg:
            raise ValueError(f"{rel}:{k + 1}: <!-- no-test: ... --> needs its reason")
        if kind == "file" and not arg:
            raise ValueError(f"{rel}:{k + 1}: <!-- file: NAME --> needs the file's name")
        if kind == "run" and lang != "console":
            raise ValueError(f"{rel}:{k + 1}: <!-- run --> marks a console block")
        out.append(Block(rel, i + 2, lang, "\n".join(body) + "\n", kind, arg))
        i = j + 1
    return out


def runnable_python(bs: list[Block]) -> list[Block]:
    return [b for b in bs if b.lang == "python" and b.mark is None]


def files(bs: list[Block]) -> list[Block]:
    return [b for b in bs if b.mark == "file"]


def shell(bs: list[Block]) -> list[Block]:
    return [b for b in bs if b.mark == "run"]


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """A ``console`` block's ``$ command`` lines, each with the output lines that follow it."""
    out: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:].strip(), []))
        elif out:
            out[-1][1].append(line.rstrip())
    return out


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` line by line, where a ``...`` line stands for any number of lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(output_matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == head and output_matches(rest, actual[1:])
