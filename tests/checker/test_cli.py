"""The command line: every output format, exit status, config option and suppression form."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typedtensor.checker import runner
from typedtensor.checker.cli import main

BAD = """\
from typedtensor import Dim, Tensor

class Batch(Dim): ...
class In(Dim): ...
class Out(Dim): ...

def f(x: Tensor[Batch, In], w: Tensor[Out, In]) -> None:
    y = x @ w
"""

BROADCAST = """\
from typedtensor import Dim, Tensor

class Batch(Dim): ...
class In(Dim): ...

def g(x: Tensor[Batch, In], b: Tensor[Batch]) -> None:
    y = x + b
"""

CLEAN = """\
from typedtensor import Dim, Tensor

class Batch(Dim): ...
class In(Dim): ...

def h(x: Tensor[Batch, In]) -> Tensor[In, Batch]:
    return x.T
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"bad.py": BAD, "clean.py": CLEAN, "broad.py": BROADCAST})
    return tmp_path


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# -- formats -----------------------------------------------------------------------------------

def test_text_format_is_mypy_like(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--no-cache", "bad.py"], capsys)
    assert code == 1
    first = out.splitlines()[0]
    assert re.fullmatch(r"bad\.py:8:9: error: matmul: .+  \[shape-matmul\]", first), first
    assert out.splitlines()[-1].startswith("Found 1 error in 1 file")


def test_json_format(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--no-cache", "--format", "json", "bad.py", "clean.py"], capsys)
    assert code == 1
    data = json.loads(out)
    assert len(data) == 1
    r = data[0]
    assert set(r) == {"path", "line", "column", "end_line", "end_column", "code", "severity", "message"}
    assert (r["path"], r["line"], r["column"], r["end_line"], r["end_column"]) == ("bad.py", 8, 9, 8, 14)
    assert (r["code"], r["severity"]) == ("shape-matmul", "error")
    assert r["message"].startswith("matmul: ")


def test_github_format(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--no-cache", "--format", "github", "bad.py"], capsys)
    assert code == 1
    line = out.strip()
    assert line.startswith("::error file=bad.py,line=8,col=9,endLine=8,endColumn=14,title=shape-matmul::matmul: ")
    assert line.endswith("[shape-matmul]")


def test_sarif_format(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--no-cache", "--format", "sarif", "bad.py", "broad.py"], capsys)
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0" and "sarif" in log["$schema"]
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "shape-matmul" in rules and "shape-broadcast" in rules
    results = run["results"]
    assert {r["ruleId"] for r in results} == {"shape-matmul", "shape-broadcast"}
    for r in results:
        assert rules[r["ruleIndex"]] == r["ruleId"]
        region = r["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert r["level"] == "error"


def test_sarif_help_uris_are_absolute_links_to_each_rules_docs(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Code scanning shows ``helpUri`` as a link: it must be absolute, and land on the rule's entry."""
    import sys
    from urllib.parse import urlsplit

    from typedtensor.checker import formats

    _, out, _ = run_cli(["--no-cache", "--format", "sarif", "bad.py"], capsys)
    repo = Path(__file__).resolve().parents[2]
    page = (repo / "docs" / "checker.md").read_text(encoding="utf-8")
    for rule in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]:
        url = urlsplit(rule["helpUri"])
        assert url.scheme == "https" and url.netloc, rule["helpUri"]
        assert url.path.endswith("/docs/checker.md") and url.fragment == rule["id"]
        assert f'<a id="{rule["id"]}"></a>' in page, f"docs/checker.md has no anchor for {rule['id']}"
    if sys.version_info >= (3, 11):
        import tomllib

        urls = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
        assert urls["Repository"] == formats.REPOSITORY_URL


def test_clean_run_exit_0(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--no-cache", "clean.py"], capsys)
    assert code == 0
    assert out.strip() == "Success: no issues found in 1 source file"
    code, out, _ = run_cli(["--no-cache", "--format", "json", "clean.py"], capsys)
    assert code == 0 and json.loads(out) == []


def test_check_subcommand_and_folders(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["check", "--no-cache", "--format", "json", "."], capsys)
    assert code == 1
    assert {r["path"] for r in json.loads(out)} == {"bad.py", "broad.py"}


def test_output_file(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--no-cache", "--format", "sarif", "-o", "out.sarif", "bad.py"], capsys)
    assert code == 1 and out == ""
    assert json.loads((tree / "out.sarif").read_text())["version"] == "2.1.0"


# -- exit status 2 -----------------------------------------------------------------------------

def test_usage_errors_exit_2(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["--no-cache", "missing.py"], capsys)[0] == 2
    assert run_cli(["--format", "xml", "bad.py"], capsys)[0] == 2
    assert run_cli(["--jobs", "0", "bad.py"], capsys)[0] == 2
    assert run_cli(["--explain", "shape-nonsense"], capsys)[0] == 2
    assert run_cli(["--config", "nope.toml", "bad.py"], capsys)[0] == 2


def test_bad_config_exit_2(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "pyproject.toml").write_text("[tool.typedtensor]\nunknown_option = 1\n")
    code, _, err = run_cli(["--no-cache", "bad.py"], capsys)
    assert code == 2 and "unknown option" in err
    (tree / "pyproject.toml").write_text("[tool.typedtensor\n")
    assert run_cli(["--no-cache", "bad.py"], capsys)[0] == 2


def test_internal_error_exit_2(tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from typedtensor.checker import infer

    def boom(self: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(infer.Inferrer, "run_module", boom)
    code, out, _ = run_cli(["--no-cache", "--format", "json", "bad.py", "clean.py"], capsys)
    assert code == 2
    data = json.loads(out)
    assert {r["code"] for r in data} == {"internal-error"}
    assert all("boom" in r["message"] for r in data)


def test_syntax_error_reported_rest_checked(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "broken.py").write_text("import typedtensor\ndef f(:\n    pass\n")
    code, out, _ = run_cli(["--no-cache", "--format", "json", "broken.py", "bad.py"], capsys)
    assert code == 1
    data = json.loads(out)
    assert [(r["path"], r["code"]) for r in data] == [("bad.py", "shape-matmul"), ("broken.py", "syntax")]
    syntax = data[1]
    assert syntax["line"] == 2 and syntax["message"].startswith("syntax error")


def test_syntax_error_in_file_without_tensors(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "plain.py").write_text("x = (1,\n")
    code, out, _ = run_cli(["--no-cache", "--format", "json", "plain.py"], capsys)
    assert code == 1 and [r["code"] for r in json.loads(out)] == ["syntax"]


# -- explain, show-shapes, reveal ----------------------------------------------------------------

@pytest.mark.parametrize("code", ["shape-matmul", "shape-broadcast", "shape-arg", "shape-return",
                                  "shape-assign", "shape-reshape", "shape-axis", "shape-rank", "shape-concat",
                                  "view-noncontiguous", "squeeze-no-dim"])
def test_explain_examples_hold(code: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Each explanation's bad example gets exactly its code, and its fix is clean."""
    from typedtensor.checker.explain import explanations

    rc, out, _ = run_cli(["--explain", code], capsys)
    assert rc == 0 and out.startswith(f"{code}: ") and "Reported:" in out and "Fixed:" in out
    monkeypatch.chdir(tmp_path)
    info = explanations()[code]
    (tmp_path / "bad_example.py").write_text(info.bad)
    (tmp_path / "good_example.py").write_text(info.good)
    rc, out, _ = run_cli(["--no-cache", "--format", "json", "bad_example.py"], capsys)
    assert [r["code"] for r in json.loads(out)] == [code]
    rc, out, _ = run_cli(["--no-cache", "--format", "json", "good_example.py"], capsys)
    assert json.loads(out) == [] and rc == 0


def test_show_shapes(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "shapes.py").write_text(textwrap.dedent("""\
        import typedtensor as tt
        a = tt.zeros(2, 3)
        b, c = a.shape
        d = a.T @ a
    """))
    code, out, _ = run_cli(["--no-cache", "--show-shapes", "shapes.py"], capsys)
    assert code == 0
    assert "shapes.py:2:1: note: a: Tensor[2, 3]" in out
    assert "shapes.py:3:1: note: b: size 2" in out
    assert "shapes.py:4:1: note: d: Tensor[3, 3]" in out
    code, out, _ = run_cli(["--no-cache", "shapes.py"], capsys)
    assert "note" not in out
    (tree / "attrs.py").write_text(textwrap.dedent("""\
        from typedtensor import nn
        class Net(nn.Module):
            def __init__(self) -> None:
                self.fc = nn.Linear(4, 2)
    """))
    code, out, _ = run_cli(["--no-cache", "--show-shapes", "attrs.py"], capsys)
    assert "attrs.py:4:9: note: self.fc: Linear(in_features=4, out_features=2)" in out


# -- suppression and configuration ---------------------------------------------------------------

@pytest.mark.parametrize("comment,silenced", [
    ("# type: ignore", True),
    ("# type: ignore[shape-matmul]", True),
    ("# type: ignore[shape]", True),
    ("# type: ignore[misc, shape-matmul]", True),
    ("# typedtensor: ignore", True),
    ("# typedtensor: ignore[shape-matmul]", True),
    ("# type: ignore[shape-broadcast]", False),
    ("# typedtensor: ignore[shape-arg]", False),
    ("# noqa", False),
])
def test_suppression_forms(comment: str, silenced: bool, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "s.py").write_text(BAD.replace("y = x @ w", f"y = x @ w  {comment}"))
    code, out, _ = run_cli(["--no-cache", "--format", "json", "s.py"], capsys)
    assert (json.loads(out) == []) is silenced
    assert code == (0 if silenced else 1)


def test_config_paths(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree, {"pkg/bad2.py": BAD, "pyproject.toml": '[tool.typedtensor]\npaths = ["pkg"]\n'})
    code, out, _ = run_cli(["--no-cache", "--format", "json"], capsys)
    assert code == 1 and {r["path"] for r in json.loads(out)} == {os.path.join("pkg", "bad2.py")}


def test_config_exclude(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree, {"gen/bad3.py": BAD, "pyproject.toml": '[tool.typedtensor]\nexclude = ["gen", "broad.py"]\n'})
    code, out, _ = run_cli(["--no-cache", "--format", "json", "."], capsys)
    assert {r["path"] for r in json.loads(out)} == {"bad.py"}
    code, out, _ = run_cli(["--no-cache", "--format", "json", "--exclude", "bad.py", "."], capsys)
    assert code == 0 and json.loads(out) == []


def test_config_disable(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "pyproject.toml").write_text('[tool.typedtensor]\ndisable = ["shape-matmul"]\n')
    code, out, _ = run_cli(["--no-cache", "--format", "json", "bad.py", "broad.py"], capsys)
    assert [r["code"] for r in json.loads(out)] == ["shape-broadcast"]
    code, out, _ = run_cli(["--no-cache", "--format", "json", "--disable", "shape", "bad.py", "broad.py"], capsys)
    assert code == 0 and json.loads(out) == []


def test_config_per_file_ignores(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tree, {"tests/test_x.py": BAD, "pyproject.toml": textwrap.dedent("""\
        [tool.typedtensor.per-file-ignores]
        "tests/*" = ["shape-matmul"]
        "broad.py" = ["*"]
    """)})
    _code, out, _ = run_cli(["--no-cache", "--format", "json", "."], capsys)
    assert {r["path"] for r in json.loads(out)} == {"bad.py"}


def test_config_jobs_and_cache_dir(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "pyproject.toml").write_text('[tool.typedtensor]\njobs = 1\ncache-dir = "build/tt-cache"\n')
    code, _, _ = run_cli(["bad.py"], capsys)
    assert code == 1
    assert list((tree / "build" / "tt-cache").glob("results-*"))
    (tree / "pyproject.toml").write_text('[tool.typedtensor]\njobs = 0\n')
    assert run_cli(["bad.py"], capsys)[0] == 2


# -- cache -------------------------------------------------------------------------------------

def test_cache_reuse_and_invalidation(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from typedtensor.checker.config import Config

    opts = runner.Options(["."], jobs=1)
    first = runner.run(opts, Config(root=tree))
    assert first.checked == 3
    again = runner.run(opts, Config(root=tree))
    assert again.checked == 0 and again.reports == first.reports
    (tree / "clean.py").write_text(CLEAN + "\n# edited\n")
    third = runner.run(opts, Config(root=tree))
    assert third.checked == 1 and third.reports == first.reports
    # Suppression and config are applied on output: editing them needs no re-check.
    (tree / "bad.py").write_text(BAD.replace("y = x @ w", "y = x @ w  # type: ignore"))
    fourth = runner.run(opts, Config(root=tree))
    assert fourth.checked == 1 and [r.path for r in fourth.reports] == ["broad.py"]


def test_cache_follows_imported_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typedtensor.checker.config import Config

    monkeypatch.chdir(tmp_path)
    write(tmp_path, {
        "dims.py": "from typedtensor import Dim\nclass Batch(Dim): ...\nclass In(Dim): ...\n",
        "lib.py": "from typedtensor import Tensor\nfrom dims import Batch, In\n"
                  "def enc(x: Tensor[Batch, In]) -> Tensor[Batch, In]:\n    return x\n",
        "use.py": "from typedtensor import Tensor\nfrom lib import enc\nfrom dims import Batch, In\n"
                  "def f(x: Tensor[In, Batch]) -> None:\n    enc(x)\n",
    })
    opts = runner.Options(["."], jobs=1)
    first = runner.run(opts, Config(root=tmp_path))
    assert [(r.path, r.code) for r in first.reports] == [("use.py", "shape-arg")]
    (tmp_path / "lib.py").write_text("from typedtensor import Tensor\nfrom dims import Batch, In\n"
                                     "def enc(x: Tensor[In, Batch]) -> Tensor[Batch, In]:\n    return x.T\n")
    second = runner.run(opts, Config(root=tmp_path))
    assert second.checked == 2  # lib.py and its user use.py; dims.py is reused
    assert second.reports == []


def test_cache_notices_a_new_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typedtensor.checker.config import Config

    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"use.py": "from typedtensor import Tensor\nfrom lib import enc\nfrom dims import Batch, In\n"
                               "def f(x: Tensor[In, Batch]) -> None:\n    enc(x)\n"})
    opts = runner.Options(["."], jobs=1)
    assert runner.run(opts, Config(root=tmp_path)).reports == []
    write(tmp_path, {
        "dims.py": "from typedtensor import Dim\nclass Batch(Dim): ...\nclass In(Dim): ...\n",
        "lib.py": "from typedtensor import Tensor\nfrom dims import Batch, In\n"
                  "def enc(x: Tensor[Batch, In]) -> Tensor[Batch, In]:\n    return x\n",
    })
    assert [r.path for r in runner.run(opts, Config(root=tmp_path)).reports] == ["use.py"]


# -- parallel ----------------------------------------------------------------------------------

def test_parallel_matches_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typedtensor.checker.config import Config

    monkeypatch.chdir(tmp_path)
    cases = Path(__file__).parent / "cases"
    for p in cases.glob("*.py"):
        (tmp_path / p.name).write_text(p.read_text())
    serial = runner.run(runner.Options(["."], jobs=1, use_cache=False), Config(root=tmp_path))
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    parallel = runner.run(runner.Options(["."], jobs=2, use_cache=False), Config(root=tmp_path))
    assert serial.reports and parallel.reports == serial.reports


# -- entry points and isolation ----------------------------------------------------------------

@pytest.mark.skipif(shutil.which("typedtensor") is None, reason="the console script is not installed")
def test_console_script(tree: Path) -> None:
    proc = subprocess.run(["typedtensor", "check", "--no-cache", "--format", "json", "bad.py"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    assert [r["code"] for r in json.loads(proc.stdout)] == ["shape-matmul"]


def test_python_dash_m(tree: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "typedtensor.checker", "--no-cache", "--format", "json", "bad.py"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    assert [r["code"] for r in json.loads(proc.stdout)] == ["shape-matmul"]


BLOCKER = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "typedtensor._C" or name.startswith("typedtensor._C") or name == "mypy" or name.startswith("mypy."):
            raise ImportError(f"blocked: {name}")
        return None
sys.meta_path.insert(0, Block())
from typedtensor.checker.cli import main
code = main(sys.argv[1:])
leaked = [m for m in sys.modules if m.startswith(("typedtensor._C", "mypy"))]
assert not leaked, leaked
sys.exit(code)
"""


def test_runs_without_compiled_backend_or_mypy(tree: Path) -> None:
    spec = Path(__file__).parent / "cases" / "modules.py"
    proc = subprocess.run([sys.executable, "-c", BLOCKER, "--no-cache", "--jobs", "1", "--format", "json", str(spec)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)


LAZY = """
import sys
start = set(sys.modules)
import typedtensor
assert "typedtensor.shapes" not in sys.modules, "import typedtensor loaded the calculus"
from typedtensor.checker import runner
from typedtensor.checker.cli import main
runner.PARALLEL_MIN_BYTES = 0  # so the cold run (--jobs 2) does start worker processes
code = main(sys.argv[1:])
heavy = ("typedtensor.shapes", "libcst", "multiprocessing", "concurrent.futures", "argparse", "json", "pickle",
         "tomllib", "tomli", "dataclasses", "hashlib", "importlib.metadata", "tokenize")
print(",".join(m for m in heavy if m in sys.modules and m not in start))
sys.exit(code)
"""


def test_warm_run_loads_neither_calculus_nor_libcst(tree: Path) -> None:
    """``import typedtensor`` does not load the calculus (``@checked`` loads it on first call), and
    a warm re-check of an unchanged tree (NOTE [ The warm path ] in checker/cache.py) starts no
    worker process and imports neither the calculus, libcst nor anything else only some other
    run needs: start-up is most of its time."""
    (tree / "pyproject.toml").write_text('[tool.typedtensor]\nexclude = ["build"]\n')
    cache = ["--cache-dir", str(tree / ".cache"), "--jobs", "2", "."]
    cold = subprocess.run([sys.executable, "-c", LAZY, *cache], capture_output=True, text=True, check=False)
    assert cold.returncode == 1, cold.stderr
    # the calculus and libcst load in the forked workers (NOTE [ Isolating files ] in runner.py):
    # this process only starts them and reads their results
    toml = "tomllib" if sys.version_info >= (3, 11) else "tomli"  # the same parser, before 3.11
    assert cold.stdout.splitlines()[-1] == toml
    warm = subprocess.run([sys.executable, "-c", LAZY, *cache], capture_output=True, text=True, check=False)
    assert warm.returncode == 1, warm.stderr
    assert warm.stdout.splitlines()[:-1] == cold.stdout.splitlines()[:-1]
    assert warm.stdout.splitlines()[-1] == toml  # the config is still read; nothing else is loaded


def test_warm_run_after_touch(tree: Path) -> None:
    """A changed mtime with unchanged content re-hashes (no re-check) and refreshes the stats, so
    the next run takes the warm path again."""
    from typedtensor.checker.cache import Cache, fingerprint
    from typedtensor.checker.config import Config

    opts = runner.Options(["."], jobs=1, cache_dir=str(tree / ".cache"))
    first = runner.run(opts, Config(root=tree))
    cache = Cache(tree / ".cache", fingerprint({"show_shapes": False, "infer_all": False, "torch": True}))
    cache.load()
    stats = cache.stats
    assert stats and set(cache.results) == {str(tree / "bad.py"), str(tree / "broad.py")}
    st = (tree / "bad.py").stat()
    os.utime(tree / "bad.py", ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))
    second = runner.run(opts, Config(root=tree))
    assert second.checked == 0 and second.reports == first.reports and second.workers == 0
    cache.load()
    assert cache.stats and cache.stats != stats
    third = runner.run(opts, Config(root=tree))
    assert third.checked == 0 and third.reports == first.reports


@pytest.mark.parametrize("keep", [0, 20, 200])
def test_corrupt_cache_is_ignored(tree: Path, keep: int) -> None:
    """A truncated results file (header or entries cut short) is a cache miss, never an error."""
    from typedtensor.checker.config import Config

    opts = runner.Options(["."], jobs=1, cache_dir=str(tree / ".cache"))
    first = runner.run(opts, Config(root=tree))
    (tree / "clean.py").write_text(CLEAN + "\n# edited\n")  # so the entries, not just the header, are read
    files = list((tree / ".cache").glob("results-*"))
    assert files
    for f in files:
        f.write_bytes(f.read_bytes()[:keep])
    again = runner.run(opts, Config(root=tree))
    assert again.checked == 3 and again.reports == first.reports


def test_version_matches_metadata() -> None:
    """The cache key and SARIF use ``typedtensor.__version__`` (importing ``importlib.metadata``
    would cost a warm run more than its work): it must be the installed distribution's version."""
    from importlib.metadata import PackageNotFoundError, version

    import typedtensor

    try:
        installed = version("typedtensor")
    except PackageNotFoundError:
        pytest.skip("typedtensor is not installed as a distribution")
    assert typedtensor.__version__ == installed
