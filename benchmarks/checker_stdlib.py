"""Run ``typedtensor check`` over every ``.py`` of this Python's standard library.

Measures, each as the wall time of a fresh ``python -m typedtensor.checker`` process:
- cold: an empty cache directory (every file checked, in ``--jobs`` worker processes);
- warm: the same tree again with the cache of the cold run (median of several runs), wall and CPU
  (user + system) time;
- the interpreter start alone (``python -c pass``, which includes whatever this environment's
  ``site`` loads) and plus the checker's imports, for reference;
- the crash count (``internal-error`` reports) of the default run and of an ``--infer-all`` run,
  which parses every file with libcst and runs the inference on it even though no standard-library
  file can hold a tensor.

usage: python benchmarks/checker_stdlib.py [--jobs 2] [--skip-infer-all] [--write]
       python benchmarks/checker_stdlib.py --warm-only [--tree DIR] [--warm-runs 21]
``--write`` replaces the "Checker" section of docs/benchmarks.md with the results. ``--warm-only``
measures just the warm re-check (after one untimed cold run) of the standard library or of
``--tree``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTE = ("No standard-library file can reach `typedtensor`, so the default run only syntax-checks them "
        "(CPython's parser; NOTE [ Files that cannot hold a tensor ] in `checker/runner.py`); "
        "`--infer-all` parses every file with libcst and runs the inference on it, which is what the "
        "crash count of its row exercises.")
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def count_lines(tree: Path = STDLIB) -> tuple[int, int]:
    """The files the checker itself collects (it skips site-packages, venv, __pycache__ ...)."""
    from typedtensor.checker.config import Config
    from typedtensor.checker.discover import scan

    files = [f.path for f in scan([str(tree)], Config(root=tree))]
    return len(files), sum(Path(p).read_bytes().count(b"\n") for p in files)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    t, proc, _cpu_s = timed_cpu(cmd)
    return t, proc


def timed_cpu(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[str], float]:
    """Wall time, the finished process, and its CPU time (user + system, with its children)."""
    c0 = _cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, proc, _cpu() - c0


def check_cmd(cache: str, jobs: int, *extra: str, tree: Path = STDLIB, stats: bool = True) -> list[str]:
    """``--stats`` also counts every file's lines, which reads the whole tree: the warm runs leave
    it out, as a real re-check would."""
    return [sys.executable, "-m", "typedtensor.checker", "--format", "json", *(["--stats"] if stats else []),
            "--jobs", str(jobs), "--cache-dir", cache, *extra, str(tree)]


def warm_only(tree: Path, jobs: int, runs: int) -> int:
    """Warm re-checks of ``tree`` (after one untimed cold run), interleaved with the bare
    interpreter's start so both see the same load; medians of wall and CPU time."""
    files, lines = count_lines(tree)
    bare: list[tuple[float, float]] = []
    imports: list[tuple[float, float]] = []
    warm: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as cache:
        first = timed_cpu(check_cmd(cache, jobs, tree=tree, stats=False))[1]
        if first.returncode not in (0, 1):
            raise SystemExit(f"checker failed (exit {first.returncode}):\n{first.stderr[-3000:]}")
        for _ in range(runs):
            t, _p, c = timed_cpu([sys.executable, "-c", "pass"])
            bare.append((t, c))
            t, _p, c = timed_cpu([sys.executable, "-c", "import typedtensor.checker.cli, typedtensor.checker.runner"])
            imports.append((t, c))
            t, proc, c = timed_cpu(check_cmd(cache, jobs, tree=tree, stats=False))
            assert proc.returncode == first.returncode and proc.stdout == first.stdout, proc.stderr
            warm.append((t, c))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    def med(xs: list[tuple[float, float]], i: int) -> float:
        return statistics.median(x[i] for x in xs)

    print(f"{tree}: {files} files, {lines:,} lines; {runs} runs each, load average {load:.1f}, "
          f"{os.cpu_count()} CPUs\n")
    print("| measure | median wall | min wall | median CPU (user+sys) |")
    print("| --- | --- | --- | --- |")
    for name, xs in (("python -c pass", bare), ("+ checker imports", imports), ("warm re-check", warm)):
        print(f"| {name} | {med(xs, 0):.3f} s | {min(x[0] for x in xs):.3f} s | {med(xs, 1):.3f} s |")
    return 0


def crashes(proc: subprocess.CompletedProcess[str]) -> tuple[int, dict[str, int]]:
    if proc.returncode not in (0, 1, 2):
        raise SystemExit(f"checker failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    reports = json.loads(proc.stdout or "[]")
    codes: dict[str, int] = {}
    for r in reports:
        key = f"{r['code']} ({r['severity']})"
        codes[key] = codes.get(key, 0) + 1
    return sum(r["code"] == "internal-error" for r in reports), codes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--warm-runs", type=int, default=5)
    ap.add_argument("--skip-infer-all", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--warm-only", action="store_true", help="measure only the warm re-check")
    ap.add_argument("--tree", type=Path, default=STDLIB, help="with --warm-only: the tree to check")
    args = ap.parse_args()
    if args.warm_only:
        return warm_only(args.tree, args.jobs, args.warm_runs)

    files, lines = count_lines()
    bare = [timed([sys.executable, "-c", "pass"])[0] for _ in range(5)]
    base = [timed([sys.executable, "-c", "import typedtensor.checker.cli, typedtensor.checker.runner"])[0]
            for _ in range(5)]
    with tempfile.TemporaryDirectory() as cache:
        cold_s, cold = timed(check_cmd(cache, args.jobs))
        cold_crashes, cold_codes = crashes(cold)
        warm = []
        warm_cpu = []
        for _ in range(args.warm_runs):
            t, proc, c = timed_cpu(check_cmd(cache, args.jobs, stats=False))
            warm.append(t)
            warm_cpu.append(c)
            assert crashes(proc)[0] == cold_crashes
    infer_all = None
    if not args.skip_infer_all:
        with tempfile.TemporaryDirectory() as cache:
            t, proc = timed(check_cmd(cache, args.jobs, "--infer-all"))
            infer_all = (t, *crashes(proc))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows = [
        ("files / lines", f"{files} / {lines:,}"),
        (f"cold, {args.jobs} jobs (wall)", f"{cold_s:.2f} s = **{lines / cold_s:,.0f} lines/s**"),
        ("warm re-check, unchanged tree (median wall)", f"**{statistics.median(warm):.3f} s** "
                                                          f"(min {min(warm):.3f} s)"),
        ("warm re-check (median CPU, user + system)", f"{statistics.median(warm_cpu):.3f} s"),
        ("of which interpreter start + imports (median)", f"{statistics.median(base):.3f} s"),
        ("of which interpreter start alone, `python -c pass` (median)", f"{statistics.median(bare):.3f} s"),
        ("crashes (default run)", f"**{cold_crashes}**"),
        ("reports (default run)", ", ".join(f"{k}: {v}" for k, v in sorted(cold_codes.items())) or "none"),
    ]
    if infer_all is not None:
        t, n, _codes = infer_all
        rows.append((f"--infer-all cold, {args.jobs} jobs (wall)", f"{t:.1f} s = {lines / t:,.0f} lines/s"))
        rows.append(("crashes (--infer-all: libcst + inference on every file)", f"**{n}**"))
    table = "\n".join(["| measure | result |", "| --- | --- |", *(f"| {k} | {v} |" for k, v in rows)])
    cpu = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}"
    text = (f"Python {platform.python_version()} standard library ({STDLIB}), {cpu}.\n"
            f"Command: `python benchmarks/checker_stdlib.py --jobs {args.jobs}`.\n\n{table}\n")
    print(text)
    if args.write:
        write_section(text)
    return 1 if cold_crashes or (infer_all is not None and infer_all[1]) else 0


def write_section(body: str) -> None:
    doc = ROOT / "docs" / "benchmarks.md"
    head = "## Checker"
    section = (f"{head}\n\n`typedtensor check` over the standard library (see `benchmarks/checker_stdlib.py`).\n"
               f"{NOTE}\n\n{body}")
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    if head in text:
        start = text.index(head)
        nxt = text.find("\n## ", start + len(head))
        text = text[:start] + section + (text[nxt:] if nxt != -1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
