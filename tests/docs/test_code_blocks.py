"""Every code block in README.md and docs/*.md runs (tests/docs/doc_blocks.py says how blocks are marked).

The Python blocks of a page run in one child process, in page order, in a scratch folder holding the
page's file blocks; the ``<!-- run -->`` console blocks run their ``typedtensor check`` / ``mypy`` /
``python`` commands there and compare the output with the page's text.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs import doc_blocks as db

ROOT = db.ROOT
LAUNCH_MYPY = ROOT / "tests" / "mypy_plugin" / "launch.py"

# Runs one page's Python blocks in order in one namespace; a failing block names its page and line.
_RUNNER = """
import json, sys
sys.path.insert(0, ".")
namespace = {"__name__": "__main__"}
for page, line, text in json.loads(sys.stdin.read()):
    code = compile("\\n" * (line - 1) + text, page, "exec")
    exec(code, namespace)
"""


def _page_blocks() -> dict[str, list[db.Block]]:
    return {str(p.relative_to(ROOT)): db.blocks(p) for p in db.pages()}


PAGES = _page_blocks()


def _scratch(page: str, tmp: Path) -> Path:
    for b in db.files(PAGES[page]):
        target = tmp / b.arg
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(b.text)
    return tmp


def _env() -> dict[str, str]:
    env = dict(os.environ)
    import typedtensor

    if not (Path(typedtensor.__file__ or "").parent / "nn" / "__init__.pyi").exists():
        env["MYPYPATH"] = str(ROOT / "stubs")  # an editable install: the stubs are the checkout's
    return env


# Pages whose blocks take more than a few seconds: nn.md imports torch to show that it reads the file.
SLOW_PAGES = {"docs/nn.md"}


@pytest.mark.parametrize("page", [
    pytest.param(p, marks=[pytest.mark.slow] if p in SLOW_PAGES else []) for p, bs in PAGES.items()
    if db.runnable_python(bs)
])
def test_python_blocks_run(page: str, tmp_path: Path) -> None:
    todo = [(b.page, b.line, b.text) for b in db.runnable_python(PAGES[page])]
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER], input=json.dumps(todo), cwd=_scratch(page, tmp_path),
        capture_output=True, text=True, timeout=600, env=_env(), check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]


def _argv(command: str, tmp: Path) -> list[str]:
    words = shlex.split(command)
    if words[:2] == ["typedtensor", "check"]:
        return [sys.executable, "-m", "typedtensor.checker", "--no-cache", *words[2:]]
    if words[0] == "mypy":
        return [sys.executable, str(LAUNCH_MYPY), "--cache-dir", str(tmp / ".mypy_cache"), *words[1:]]
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    raise AssertionError(f"a <!-- run --> block runs typedtensor check, mypy or python, not {command!r}")


def _shell_cases() -> list[object]:
    cases: list[object] = []
    for page, bs in PAGES.items():
        for b in db.shell(bs):
            slow = any(cmd.startswith("mypy") for cmd, _ in db.commands(b))
            cases.append(pytest.param(page, b.line, marks=[pytest.mark.slow] if slow else [], id=f"{page}:{b.line}"))
    return cases


@pytest.mark.parametrize(("page", "line"), _shell_cases())
def test_shell_blocks_print_what_the_page_says(page: str, line: int, tmp_path: Path) -> None:
    block = next(b for b in db.shell(PAGES[page]) if b.line == line)
    scratch = _scratch(page, tmp_path)
    env = _env()
    for command, expected in db.commands(block):
        proc = subprocess.run(_argv(command, tmp_path), cwd=scratch, capture_output=True, text=True, timeout=600,
                              env=env, check=False)
        actual = [x.rstrip() for x in (proc.stdout + proc.stderr).splitlines()]
        while actual and not actual[-1]:
            actual.pop()
        while expected and not expected[-1]:
            expected = expected[:-1]
        assert db.output_matches(expected, actual), (
            f"{page}:{line}: `{command}` printed:\n" + "\n".join(actual) + "\n\nthe page says:\n" + "\n".join(expected)
        )


def test_the_markers_parse() -> None:
    text = "x\n<!-- no-test: a row of the op table -->\n```python\nunary()\n```\n\n<!-- file: m.py -->\n\n```python\na = 1\n```\n"
    bs = db.parse(text, "probe.md")
    assert [(b.mark, b.arg, b.text) for b in bs] == [("no-test", "a row of the op table", "unary()\n"),
                                                     ("file", "m.py", "a = 1\n")]
    assert db.output_matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert not db.output_matches(["a"], ["a", "b"])
    with pytest.raises(ValueError, match="needs its reason"):
        db.parse("<!-- no-test -->\n```python\nx\n```\n", "probe.md")
