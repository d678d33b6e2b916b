"""Recall and false positives of both static tools on the real-bug corpus (tests/corpus/).

For each tool (the libcst checker, mypy with the plugin):
- recall: a bug file counts as caught when the tool reports one of its marked lines (``# E:
  code``) with that code (for mypy, its own ``arg-type`` / ``return-value`` / ``assignment``
  count as ``shape-arg`` / ``shape-return`` / ``shape-assign``, DESIGN §2);
- false positives: every error or warning on a fixed twin or a clean model (any code: to a user
  an ``attr-defined`` on correct code is as wrong as a shape error), and every report in a bug file
  off its marked lines.

    python benchmarks/corpus_recall.py                 # both tools
    python benchmarks/corpus_recall.py --tool checker  # or mypy
    python benchmarks/corpus_recall.py --json          # one JSON object per tool

mypy runs once per folder (bugs/ and fixed/ hold files of the same name); its configuration is the
plugin test harness's (tests/mypy_plugin/mypy_harness.py) with the options docs/mypy-plugin.md
recommends for model code: ``--allow-redefinition`` (``x = self.conv1(x); x = F.relu(x)``) and
``--check-untyped-defs`` (so that ``main()`` is checked too). ``--mypy-defaults`` measures mypy
under its default options instead (``--check-untyped-defs`` only).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
FOLDERS = ("bugs", "fixed", "models")
EXPECT = re.compile(r"#\s*E:\s*([a-z0-9 -]+?)\s*$")
MYPY_EQUIVALENT = {"arg-type": "shape-arg", "return-value": "shape-return", "assignment": "shape-assign"}


@dataclass(frozen=True)
class Finding:
    path: Path
    line: int
    code: str
    message: str


@dataclass
class Score:
    tool: str
    caught: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    false_positives: dict[str, list[str]] = field(default_factory=dict)  # folder -> "file:line: code message"

    def summary(self) -> dict[str, Any]:
        total = len(self.caught) + len(self.missed)
        return {
            "tool": self.tool, "bugs": total, "caught": len(self.caught),
            "recall": round(len(self.caught) / total, 3) if total else None,
            "missed": self.missed,
            "false_positives": {k: len(v) for k, v in self.false_positives.items()},
            "false_positive_reports": self.false_positives,
        }


def marks(path: Path) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        m = EXPECT.search(text)
        if m:
            out[number] = set(m.group(1).split())
    return out


def files(folder: str) -> list[Path]:
    return sorted((CORPUS / folder).glob("*.py"))


def run_checker(paths: list[Path]) -> list[Finding]:
    from typedtensor.checker.config import Config
    from typedtensor.checker.runner import Options, run

    result = run(Options([str(p) for p in paths], use_cache=False, jobs=1), Config(root=CORPUS))
    return [Finding(Path(r.path).resolve(), r.line, r.code, r.message) for r in result.reports if r.severity != "note"]


def _harness() -> Any:
    path = ROOT / "tests" / "mypy_plugin" / "mypy_harness.py"
    spec = importlib.util.spec_from_file_location("_mypy_harness_for_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


RECOMMENDED = ("--check-untyped-defs", "--allow-redefinition")


def run_mypy(paths: list[Path], options: tuple[str, ...] = RECOMMENDED) -> list[Finding]:
    harness = _harness()
    found: list[Finding] = []
    for folder in sorted({p.parent for p in paths}):
        reports, _ = harness.run_mypy([p for p in paths if p.parent == folder], extra_args=options, cwd=folder)
        for r in reports:
            if r.severity == "error":
                code = MYPY_EQUIVALENT.get(r.code or "", r.code or "misc")
                found.append(Finding(Path(r.path).resolve(), r.line, code, r.message))
    return found


def score(tool: str, findings: Iterable[Finding]) -> Score:
    by_file: dict[Path, list[Finding]] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    s = Score(tool)
    for folder in FOLDERS:
        s.false_positives[folder] = []
        for path in files(folder):
            got = by_file.get(path.resolve(), [])
            expected = marks(path) if folder == "bugs" else {}
            if folder == "bugs":
                hit = any(f.line in expected and f.code in expected[f.line] for f in got)
                (s.caught if hit else s.missed).append(path.stem)
            for f in got:
                if f.line not in expected:
                    s.false_positives[folder].append(f"{path.name}:{f.line}: {f.code} {f.message[:160]}")
    return s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", choices=("checker", "mypy", "both"), default="both")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--mypy-defaults", action="store_true",
                        help="mypy under its default options (no --allow-redefinition)")
    args = parser.parse_args(argv)
    options = ("--check-untyped-defs",) if args.mypy_defaults else RECOMMENDED
    paths = [p for folder in FOLDERS for p in files(folder)]
    tools = ("checker", "mypy") if args.tool == "both" else (args.tool,)
    for tool in tools:
        s = score(tool, run_checker(paths) if tool == "checker" else run_mypy(paths, options))
        summary = s.summary()
        if args.json:
            print(json.dumps(summary))
            continue
        print(f"{tool}: recall {summary['caught']}/{summary['bugs']} ({100 * (summary['recall'] or 0):.1f}%); "
              f"false positives: {summary['false_positives']['fixed']} on {len(files('fixed'))} fixed twins, "
              f"{summary['false_positives']['models']} on {len(files('models'))} clean models, "
              f"{summary['false_positives']['bugs']} off the marked lines of bug files")
        if s.missed:
            print(f"  missed: {', '.join(s.missed)}")
        for folder, reports in s.false_positives.items():
            for r in reports:
                print(f"  false positive ({folder}) {r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
