"""``typedtensor check [PATHS...]`` (also ``python -m typedtensor.checker``).

Exit status: 0 clean, 1 shape (or syntax) errors, 2 usage or internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import formats
from .config import ConfigError, load
from .discover import UsageError
from .explain import explain, explanations
from .report import INTERNAL


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="typedtensor check",
        description="Check the dimension types of typedtensor programs without running them.",
    )
    p.add_argument("paths", nargs="*", help="files or folders (default: [tool.typedtensor] paths, else .)")
    p.add_argument("--format", choices=sorted(formats.FORMATS), default="text", help="output format")
    p.add_argument("--show-shapes", action="store_true", help="print the inferred shape of every assignment")
    p.add_argument("--explain", metavar="CODE", help="explain an error code with an example, then exit")
    p.add_argument("--config", metavar="FILE", type=Path, help="a pyproject.toml (default: the nearest one)")
    p.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: CPU count)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the results cache")
    p.add_argument("--cache-dir", metavar="DIR", help="where the cache lives (default: .typedtensor_cache)")
    p.add_argument("--disable", action="append", default=[], metavar="CODE", help="never report CODE")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip matching paths")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report there instead of stdout")
    p.add_argument("--stats", action="store_true", help="print files, lines, time and crashes to stderr")
    p.add_argument("--infer-all", action="store_true", help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "check":
        args_list = args_list[1:]
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse: --help exits 0, a usage error 2
        return int(exc.code or 0)
    if args.explain is not None:
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

    from .runner import Options, run

    options = Options(args.paths, args.show_shapes, args.jobs, not args.no_cache, args.cache_dir, args.infer_all,
                      count_lines=args.stats)
    try:
        result = run(options, config)
    except UsageError as exc:
        print(f"typedtensor check: {exc}", file=sys.stderr)
        return 2
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
