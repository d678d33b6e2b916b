"""The command line's two parsers (NOTE [ One option table, two parsers ] in checker/cli.py): the
fast one, which spares a warm run ``argparse``, must read every command line it accepts exactly as
``argparse`` does, and hand every other one to it."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typedtensor.checker import cli

TOKENS = [
    "a.py", "src", "-", "--", "", "-5", "--format", "--format=json", "--form", "json", "sarif", "xml", "--jobs",
    "-j", "-j2", "2", "0", "x", "--show-shapes", "--show-shapes=1", "--no-cache", "--stats", "--infer-all",
    "--disable", "shape", "--exclude", "build/*", "-o", "--output", "out.txt", "--output=", "--cache-dir", "c",
    "--config", "pyproject.toml", "--explain", "shape-matmul", "-h", "--help", "--unknown", "-x", "-j=3",
    "--output-format", "--output-format=github", "--out",
]


def argparse_result(argv: list[str]) -> dict[str, Any] | None:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return vars(cli._parser().parse_args(argv))
    except SystemExit:
        return None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_fast_parser_agrees_with_argparse(argv: list[str]) -> None:
    fast = cli._fast_parse(argv)
    expected = argparse_result(argv)
    if fast is not None:
        assert expected is not None, argv
        assert vars(fast) == expected, argv


@pytest.mark.parametrize("argv", [
    [], ["a.py"], ["a.py", "src"], ["--format", "json", "--jobs", "2", "--cache-dir", "c", "src"],
    ["src", "--format=sarif", "-o", "out.sarif"], ["--disable", "shape", "--disable", "x", "--exclude", "build/*"],
    ["--config", "pyproject.toml", "--no-cache", "--stats", "--show-shapes", "--infer-all", "a.py"],
    ["-j", "1", "--explain", "shape-matmul"],
    ["--output-format", "github", "src"], ["--output-format=sarif", "--output", "out.sarif"],
])
def test_fast_parser_reads_plain_command_lines(argv: list[str]) -> None:
    """The command lines CI jobs and hooks write never reach argparse."""
    fast = cli._fast_parse(argv)
    assert fast is not None
    assert vars(fast) == argparse_result(argv)


@pytest.mark.parametrize("argv", [
    ["-h"], ["--form", "json"], ["-j2"], ["a.py", "--stats", "b.py"], ["--jobs", "x"], ["--format", "xml"],
    ["--", "a.py"], ["--output"], ["--show-shapes=1"],
])
def test_fast_parser_leaves_the_rest_to_argparse(argv: list[str]) -> None:
    assert cli._fast_parse(argv) is None


def test_config_option_is_a_path() -> None:
    fast = cli._fast_parse(["--config", "pyproject.toml"])
    assert fast is not None and fast.config == Path("pyproject.toml")


@pytest.mark.parametrize("argv", [["--output-format", "json"], ["--output-format=json"], ["--format", "json"]])
def test_output_format_is_ruffs_spelling_of_format(argv: list[str]) -> None:
    fast = cli._fast_parse(argv)
    assert fast is not None and fast.format == "json"
    assert argparse_result(argv) == vars(fast)
