"""The checker survives any input: pathological source is refused before libcst sees it, a file that
crashes or hangs the parser is reported and every other file is still checked, and files that are
not regular or have odd names are skipped with a note (NOTE [ What libcst survives ] in
checker/parse.py, NOTE [ Isolating files ] in checker/runner.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typedtensor.checker import discover, parse, project, runner
from typedtensor.checker.cli import main

BAD = """\
from typedtensor import Dim, Tensor

class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...

def f(x: Tensor[Batch, In], w: Tensor[Out, In]) -> None:
    y = x @ w
"""

HEADER = "import typedtensor\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    return tmp_path


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]], str]:
    code = main(["--no-cache", "--format", "json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def by_path(reports: list[dict[str, object]]) -> dict[object, list[tuple[object, object]]]:
    out: dict[object, list[tuple[object, object]]] = {}
    for r in reports:
        out.setdefault(r["path"], []).append((r["code"], r["message"]))
    return out


# -- the guard before libcst -------------------------------------------------------------------

@pytest.mark.parametrize("label,body", [
    ("100k unary minus", "x = " + "-" * 100_000 + "1\n"),
    ("10k not", "x = " + "not " * 10_000 + "1\n"),
    ("10k + terms", "x = " + " + ".join(["a"] * 10_000) + "\n"),
    ("100k + terms", "x = " + "+".join(["a"] * 100_000) + "\n"),
    ("10k chained calls", "x = a" + ".relu()" * 10_000 + "\n"),
    ("10k chained subscripts", "x = a" + "[0]" * 10_000 + "\n"),
    ("600 + terms", "x = " + " + ".join(["a"] * 600) + "\n"),
])
def test_pathological_source_is_refused_and_the_rest_checked(
        tree: Path, capsys: pytest.CaptureFixture[str], label: str, body: str) -> None:
    """On main these crashed libcst's parser (SIGSEGV, and no report for any file) or ran for
    minutes; now each is one "could not parse" error, found in well under the time libcst needed."""
    (tree / "deep.py").write_text(HEADER + body)
    t0 = time.perf_counter()
    code, reports, _ = run_json(["deep.py", "bad.py"], capsys)
    assert time.perf_counter() - t0 < 60, label
    got = by_path(reports)
    assert [c for c, _ in got["bad.py"]] == ["shape-matmul"]
    [(code_deep, message)] = got["deep.py"]
    assert code_deep == "syntax" and str(message).startswith("could not parse this file: "), message
    assert code == 1


def test_deep_file_without_tensors_is_reported_not_fatal(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file CPython's own parser gives up on (MemoryError / RecursionError) is a report too."""
    (tree / "plain.py").write_text("x = " + "-" * 100_000 + "1\n")
    code, reports, _ = run_json(["plain.py", "bad.py"], capsys)
    got = by_path(reports)
    assert [c for c, _ in got["plain.py"]] == ["syntax"] and "could not parse" in str(got["plain.py"][0][1])
    assert [c for c, _ in got["bad.py"]] == ["shape-matmul"] and code == 1


def test_chains_below_the_limit_are_checked(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "long.py").write_text(BAD + "    z = " + " + ".join(["y"] * 200) + "\n")
    code, reports, _ = run_json(["long.py"], capsys)
    assert [r["code"] for r in reports] == ["shape-matmul"] and code == 1


def test_guard_limits() -> None:
    parse.check_limits("x = " + " + ".join(["a"] * (parse.MAX_DEPTH // 2)))
    with pytest.raises(parse.ParseLimitError, match="nested more than"):
        parse.check_limits("x = " + " + ".join(["a"] * (parse.MAX_DEPTH + 10)))
    with pytest.raises(parse.ParseLimitError, match="MiB"):
        parse.check_limits("#" * (parse.MAX_BYTES + 1))
    parse.check_limits("def f(:\n")  # not Python: left to libcst, which reports the syntax error
    assert parse.tree_depth(__import__("ast").parse("x = -(-1)"), 100) == 5  # Module, Assign, -, -, 1


# -- isolation: a crash or a hang in one file --------------------------------------------------

def _sabotage(monkeypatch: pytest.MonkeyPatch, victim: str, action: str) -> None:
    """Make the parse of ``victim`` crash the process or hang (the workers are forked: they
    inherit the patch)."""
    real = project.parse_module

    def parse_module(source: str | bytes) -> object:
        if b"VICTIM" in (source if isinstance(source, bytes) else source.encode()):
            if action == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            time.sleep(3600)
        return real(source)

    monkeypatch.setattr(project, "parse_module", parse_module)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="isolation needs os.fork")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_parser_crash_is_reported_and_the_rest_checked(
        tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    (tree / "a_victim.py").write_text(HEADER + "# VICTIM\n")
    (tree / "z_bad.py").write_text(BAD)
    _sabotage(monkeypatch, "a_victim.py", "crash")
    code, reports, _ = run_json(["--jobs", jobs, "."], capsys)
    got = by_path(reports)
    [(victim_code, message)] = got["a_victim.py"]
    assert victim_code == "internal-error" and "could not parse this file: the parser crashed (SIGSEGV)" in str(message)
    assert [c for c, _ in got["bad.py"]] == [c for c, _ in got["z_bad.py"]] == ["shape-matmul"]
    assert code == 2  # a crash is the checker's failure, not the user's


@pytest.mark.skipif(not hasattr(os, "fork"), reason="isolation needs os.fork")
def test_a_parser_hang_is_cut_off_and_the_rest_checked(
        tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "FILE_TIMEOUT", 1.0)
    monkeypatch.setattr(runner, "FILE_TIMEOUT_PER_MIB", 0.0)
    (tree / "a_victim.py").write_text(HEADER + "# VICTIM\n")
    _sabotage(monkeypatch, "a_victim.py", "hang")
    t0 = time.perf_counter()
    code, reports, _ = run_json(["--jobs", "1", "."], capsys)
    assert time.perf_counter() - t0 < 30
    got = by_path(reports)
    assert "took longer than 1 s" in str(got["a_victim.py"][0][1])
    assert [c for c, _ in got["bad.py"]] == ["shape-matmul"] and code == 2


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="isolation needs os.fork")
def test_a_real_libcst_crash_is_contained(tree: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the guard, 100,000 unary minus signs kill libcst's parser (SIGSEGV): the worker dies,
    the run does not."""
    monkeypatch.setattr(parse, "check_limits", lambda source: None)
    (tree / "deep.py").write_text(HEADER + "x = " + "-" * 100_000 + "1\n")
    code, reports, _ = run_json(["--jobs", "1", "deep.py", "bad.py"], capsys)
    got = by_path(reports)
    assert "could not parse this file" in str(got["deep.py"][0][1])
    assert [c for c, _ in got["bad.py"]] == ["shape-matmul"] and code == 2


# -- files that are not regular, and odd names -------------------------------------------------

def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command line in a child with a time limit: on main a FIFO or /dev/zero was read forever."""
    return subprocess.run([sys.executable, "-m", "typedtensor.checker", "--no-cache", "--format", "json", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_and_device_links_are_skipped_with_a_note(tree: Path) -> None:
    os.mkfifo(tree / "pipe.py")
    os.symlink("/dev/zero", tree / "zero.py")
    proc = _cli(["."], tree)
    assert proc.returncode == 1, proc.stderr
    assert [r["path"] for r in json.loads(proc.stdout)] == ["bad.py"]
    assert "note: skipped pipe.py: not a regular file" in proc.stderr
    assert "note: skipped zero.py: not a regular file" in proc.stderr
    named = _cli(["pipe.py", "bad.py"], tree)  # named on the command line: the same
    assert named.returncode == 1 and "skipped pipe.py" in named.stderr


@pytest.mark.skipif(sys.platform == "darwin" or os.name == "nt", reason="needs byte file names")
def test_odd_file_names_are_skipped_with_a_note(tree: Path) -> None:
    """On main a name that is not UTF-8 raised UnicodeEncodeError and ended the run."""
    (Path(os.fsdecode(bytes(tree) + b"/odd\xff.py"))).write_text(BAD)
    (tree / "new\nline.py").write_text(BAD)
    proc = _cli(["."], tree)
    assert proc.returncode == 1, proc.stderr
    assert [r["path"] for r in json.loads(proc.stdout)] == ["bad.py"]
    assert "note: skipped odd\\xff.py: its name is not valid UTF-8" in proc.stderr
    assert "note: skipped new\\x0aline.py: its name holds a control character" in proc.stderr


def test_read_source_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="not a regular file"):
        discover.read_source("/dev/zero")
    (tmp_path / "big.py").write_bytes(b"#" * 100)
    with pytest.raises(OSError, match="larger than"):
        discover.read_source(str(tmp_path / "big.py"), limit=10)
    assert discover.read_source(str(tmp_path / "big.py")) == b"#" * 100
