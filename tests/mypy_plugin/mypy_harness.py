"""Run mypy with the plugin on case files (batched: one mypy process for many files) and compare
its reports with the inline expectations written next to the code.

Expectation markers, in a line's trailing comment (several may follow each other):
  `# E: code [code ...]`  exactly these error codes are reported on this line
  `# R: Tensor[Batch, In]`  `reveal_type(...)` on this line shows this type (module prefixes dropped)
  `# M: text`  an error message on this line contains `text`
  `# N: text`  a note on this line contains `text`
A line without `# E:` must have no error.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = Path(__file__).with_name("launch.py")
MARKER = re.compile(r"#\s*([ERMN]):\s*(.*?)\s*(?=#\s*[ERMN]:|$)")
REPORT = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<severity>error|note):\s*"
    r"(?P<msg>.*?)(?:\s+\[(?P<code>[a-z0-9-]+)\])?$"
)
QUALIFIED = re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)")
REVEALED = re.compile(r'^Revealed type is "(.*)"$')


@dataclass(frozen=True)
class Report:
    path: Path
    line: int
    severity: str
    message: str
    code: str | None


@dataclass
class Expectations:
    errors: dict[int, Counter[str]] = field(default_factory=dict)
    reveals: dict[int, str] = field(default_factory=dict)
    messages: dict[int, list[str]] = field(default_factory=dict)
    notes: dict[int, list[str]] = field(default_factory=dict)

    def count(self) -> int:
        return (
            sum(sum(c.values()) for c in self.errors.values())
            + len(self.reveals)
            + sum(len(m) for m in self.messages.values())
            + sum(len(n) for n in self.notes.values())
        )


def expectations(path: Path) -> Expectations:
    exp = Expectations()
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        if "#" not in text:
            continue
        for kind, body in MARKER.findall(text[text.index("#") :]):
            if kind == "E":
                exp.errors.setdefault(number, Counter()).update(body.split())
            elif kind == "R":
                exp.reveals[number] = body
            elif kind == "M":
                exp.messages.setdefault(number, []).append(body)
            else:
                exp.notes.setdefault(number, []).append(body)
    return exp


def config_text(extra: str = "") -> str:
    return "[mypy]\nplugins = typedtensor.mypy_plugin\nshow_column_numbers = True\nshow_error_codes = True\n" + extra


def run_mypy(
    files: list[Path],
    *,
    extra_args: tuple[str, ...] = (),
    config: str | None = None,
    cache_dir: Path | None = None,
    cwd: Path | None = None,
) -> tuple[list[Report], str]:
    """One mypy process over `files`; the plugin comes from this checkout (launch.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        ini = Path(tmp, "mypy.ini")
        ini.write_text(config if config is not None else config_text())
        cache = cache_dir or Path(tmp, "cache")
        env = {**os.environ, "MYPYPATH": str(ROOT / "stubs")}
        proc = subprocess.run(
            [
                sys.executable,
                str(LAUNCH),
                "--config-file",
                str(ini),
                "--cache-dir",
                str(cache),
                "--no-error-summary",
                "--hide-error-context",
                "--show-absolute-path",
                *extra_args,
                *map(str, files),
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
        )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"mypy exited {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    reports = []
    for text in proc.stdout.splitlines():
        m = REPORT.match(text)
        if m:
            reports.append(Report(Path(m["path"]).resolve(), int(m["line"]), m["severity"], m["msg"], m["code"]))
    return reports, proc.stdout


def normalise(type_text: str) -> str:
    return QUALIFIED.sub(r"\1", type_text)


def compare(path: Path, reports: list[Report]) -> list[str]:
    """Every difference between `path`'s expectations and the reports about it."""
    exp = expectations(path)
    mine = [r for r in reports if r.path == path.resolve()]
    problems: list[str] = []
    got_errors: dict[int, Counter[str]] = {}
    for r in mine:
        if r.severity == "error":
            got_errors.setdefault(r.line, Counter()).update([r.code or "misc"])
    for line in sorted(set(exp.errors) | set(got_errors)):
        want, got = exp.errors.get(line, Counter()), got_errors.get(line, Counter())
        if want != got:
            msgs = [r.message for r in mine if r.line == line and r.severity == "error"]
            problems.append(
                f"{path.name}:{line}: expected errors {sorted(want.elements())}, got {sorted(got.elements())} {msgs}"
            )
    for line, want_type in exp.reveals.items():
        revealed = [
            normalise(m[1])
            for r in mine
            if r.line == line and r.severity == "note"
            for m in [REVEALED.match(r.message)]
            if m
        ]
        if want_type not in revealed:
            problems.append(f"{path.name}:{line}: expected revealed {want_type!r}, got {revealed}")
    for line, texts in exp.messages.items():
        msgs = [r.message for r in mine if r.line == line and r.severity == "error"]
        for text in texts:
            if not any(text in m for m in msgs):
                problems.append(f"{path.name}:{line}: no error message contains {text!r}: {msgs}")
    for line, texts in exp.notes.items():
        notes = [r.message for r in mine if r.line == line and r.severity == "note"]
        for text in texts:
            if not any(text in n for n in notes):
                problems.append(f"{path.name}:{line}: no note contains {text!r}: {notes}")
    return problems
