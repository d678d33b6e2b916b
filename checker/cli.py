"""``typedtensor check [PATHS...]`` (also ``python -m typedtensor.checker``).

Exit status: 0 clean, 1 shape (or syntax) errors, 2 usage or internal error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Final

from . import formats
from .config import ConfigError, load
from .discover import UsageError
from .report import INTERNAL

if TYPE_CHECKING:
    import argparse

# NOTE [ One option table, two parsers ]
# ``argparse`` (with ``gettext``) costs about as much to import as a warm run spends on its own
# work, so the plain command lines a CI job or a pre-commit hook writes are read by ``_fast_parse``
# from this table, and anything else (``--help``, an abbreviation, ``-j2``, ``--``, a mistake) goes
# to the ``argparse`` parser built from the same table, which also gives every usage error its
# message. A test checks that both agree wherever the fast one answers.
#: (flags, action, metavar, help); action is "flag", "value", "int", "path", "append" or "choice".
OPTIONS: Final[tuple[tuple[tuple[str, ...], str, str | None, str | None], ...]] = (
    (("--format", "--output-format"), "choice", None, "output format (--output-format: ruff's spelling)"),
    (("--show-shapes",), "flag", None, "print the inferred shape of every assignment"),
    (("--explain",), "value", "CODE", "explain an error code with an example, then exit"),
    (("--config",), "path", "FILE", "a pyproject.toml (default: the nearest one)"),
    (("--jobs", "-j"), "int", "N", "worker processes (default: CPU count)"),
    (("--no-cache",), "flag", None, "neither read nor write the results cache"),
    (("--cache-dir",), "value", "DIR", "where the cache lives (default: .typedtensor_cache)"),
    (("--disable",), "append", "CODE", "never report CODE"),
    (("--exclude",), "append", "GLOB", "skip matching paths"),
    (("--output", "-o"), "value", "FILE", "write the report there instead of stdout"),
    (("--stats",), "flag", None, "print files, lines, time and crashes to stderr"),
    (("--infer-all",), "flag", None, "also infer unannotated functions (a model's forward) from the shapes "
                                       "they are called with, and check files that cannot reach typedtensor"),
    (("--no-torch",), "flag", None, "do not read torch programs (torch's names are then unknown, and files that "
                                    "import torch but not typedtensor are not inferred)"),
)
DEFAULTS: Final[dict[str, Any]] = {"format": "text"}


def _dest(flags: tuple[str, ...]) -> str:
    return flags[0].lstrip("-").replace("-", "_")


def _default(flags: tuple[str, ...], action: str) -> Any:
    return DEFAULTS.get(_dest(flags), False if action == "flag" else [] if action == "append" else None)


def _parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="typedtensor check",
        description="Check the dimension types of typedtensor programs without running them.",
    )
    p.add_argument("paths", nargs="*", help="files or folders (default: [tool.typedtensor] paths, else .)")
    for flags, action, metavar, help_text in OPTIONS:
        kwargs: dict[str, Any] = {"default": _default(flags, action),
                                  "help": help_text if help_text is not None else argparse.SUPPRESS}
        if action == "flag":
            kwargs["action"] = "store_true"
        else:
            kwargs["metavar"] = metavar
            if action == "append":
                kwargs["action"] = "append"
            elif action == "int":
                kwargs["type"] = int
            elif action == "path":
                kwargs["type"] = Path
            elif action == "choice":
                kwargs["choices"] = sorted(formats.FORMATS)
        p.add_argument(*flags, **kwargs)
    return p


def _fast_parse(argv: Sequence[str]) -> SimpleNamespace | None:
    """The table's options, written out in full (``--opt VALUE`` or ``--opt=VALUE``), and one run of
    paths; None for anything else (NOTE [ One option table, two parsers ])."""
    by_flag = {flag: (flags, action) for flags, action, _, _ in OPTIONS for flag in flags}
    values: dict[str, Any] = {_dest(flags): _default(flags, action) for flags, action, _, _ in OPTIONS}
    paths: list[str] = []
    paths_state = 0  # 0: none yet, 1: in the run of paths, 2: the run is over
    i = 0
    while i < len(argv):
        tok = argv[i]
        i += 1
        if not tok.startswith("-") or tok == "-":
            if tok == "-" or paths_state == 2:
                return None
            paths.append(tok)
            paths_state = 1
            continue
        if paths_state == 1:
            paths_state = 2
        name, eq, inline = tok.partition("=")
        if not name.startswith("--"):
            eq, inline, name = "", "", tok
        spec = by_flag.get(name)
        if spec is None:
            return None
        flags, action = spec
        dest = _dest(flags)
        if action == "flag":
            if eq:
                return None
            values[dest] = True
            continue
        if eq:
            value = inline
        elif i < len(argv) and not argv[i].startswith("-"):
            value = argv[i]
            i += 1
        else:
            return None
        if action == "int":
            try:
                values[dest] = int(value)
            except ValueError:
                return None
        elif action == "choice":
            if value not in formats.FORMATS:
                return None
            values[dest] = value
        elif action == "append":
            values[dest].append(value)
        elif action == "path":
            values[dest] = Path(value)
        else:
            values[dest] = value
    return SimpleNamespace(paths=paths, **values)


def parse_args(argv: Sequence[str]) -> Any:
    """The options of a command line; raises SystemExit as argparse does (help, usage errors)."""
    fast = _fast_parse(argv)
    if fast is not None:
        return fast
    return _parser().parse_args(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "check":
        args_list = args_list[1:]
    try:
        args = parse_args(args_list)
    except SystemExit as exc:  # argparse: --help exits 0, a usage error 2
        return int(exc.code or 0)
    if args.explain is not None:
        from .explain import explain, explanations

        text = explain(args.explain)
        if text is None:
            print(f"typedtensor check: unknown code {args.explain!r}; known: {', '.join(explanations())}",
                  file=sys.stderr)
            return 2
        sys.stdout.write(text)
        return 0
    if args.jobs is not None and args.jobs < 1:
        print("typedtensor check: --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        config = load(args.config, Path.cwd()) if args.config is None or args.config.is_file() else None
        if config is None:
            raise ConfigError(f"{args.config}: no such file")
    except ConfigError as exc:
        print(f"typedtensor check: {exc}", file=sys.stderr)
        return 2
    config.exclude = [*config.exclude, *args.exclude]
    config.disable = config.disable | frozenset(args.disable)
    config.read_torch = config.read_torch and not args.no_torch

    from .runner import Options, run

    options = Options(args.paths, args.show_shapes, args.jobs, not args.no_cache, args.cache_dir, args.infer_all,
                      count_lines=args.stats)
    try:
        result = run(options, config)
    except UsageError as exc:
        print(f"typedtensor check: {exc}", file=sys.stderr)
        return 2
    for skipped in result.skipped:
        print(f"typedtensor check: note: skipped {skipped.path}: {skipped.reason}", file=sys.stderr)
    reports = result.reports
    if args.format == "text":
        out = formats.text(reports, summary=True, files=result.files)
    elif args.format == "sarif":
        from .cache import _version

        out = formats.sarif(reports, _version())
    else:
        out = formats.FORMATS[args.format](reports)
    if args.output:
        Path(args.output).write_text(out, encoding="utf-8")
    else:
        sys.stdout.write(out)
    if args.stats:
        rate = result.lines / result.seconds if result.seconds else 0.0
        print(f"typedtensor check: {result.files} files, {result.lines} lines, {result.checked} checked "
              f"(rest cached), {result.seconds:.3f} s, {rate:,.0f} lines/s, {result.crashed} crashed",
              file=sys.stderr)
        for failure in result.rule_failures:
            print(f"typedtensor check: a shape rule raised: {failure}", file=sys.stderr)
    if result.crashed or any(r.code == INTERNAL for r in reports):
        return 2
    return 1 if any(r.severity == "error" for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
