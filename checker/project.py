"""The checked tree as a whole: module names → files, parsed lazily, each module run at most once
per process (the project-wide symbol table).

NOTE [ Import cycles ]
A module's globals come from running its top level. When that run imports a module whose own run is
still in progress (a cycle), the names it asks for are unknown, and the asking module is "tainted":
its globals depend on which module the cycle was entered from, so they are not reused for another
root. Every result is then the same whichever order the files are checked in, and so is the cache.
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .context import ModuleCtx, Pending
from .parse import parse_module
from .report import INTERNAL, SYNTAX, Report

if TYPE_CHECKING:
    from .infer import Inferrer
    from .values import Value

_EXTERNAL_TOPS: Final = frozenset(sys.stdlib_module_names) | {
    "typedtensor", "numpy", "torch", "typing_extensions", "libcst", "mypy", "pytest", "hypothesis",
    "__future__", "jaxtyping", "beartype", "typeguard", "einops",
}


@dataclass
class FileResult:
    path: str
    reports: list[Report]
    deps: list[str] = field(default_factory=list)  # paths of the checked modules it used
    missing: list[str] = field(default_factory=list)  # module names it imported that were absent
    crashed: bool = False


def syntax_report(path: str, exc: Exception, source: bytes) -> Report:
    """The report for a file libcst cannot parse: CPython's own error and position when the file is
    not Python; a warning (not an error) when CPython accepts it and only libcst does not."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except SyntaxError as err:
        exc = err
    except (ValueError, MemoryError, RecursionError):
        pass
    else:
        return Report(path, 1, 1, 1, 1, SYNTAX, "warning",
                      f"libcst cannot parse this file ({_first_line(exc)}); it was not checked")
    if isinstance(exc, cst.ParserSyntaxError):
        line, col = exc.raw_line, exc.raw_column + 1
        message = exc.message.strip().splitlines()[0] if exc.message.strip() else "invalid syntax"
    elif isinstance(exc, SyntaxError):
        line, col = exc.lineno or 1, exc.offset or 1
        message = exc.msg
    else:
        line, col, message = 1, 1, str(exc)
    lines = source.splitlines()
    end_col = len(lines[line - 1]) + 1 if 0 < line <= len(lines) else col
    return Report(path, max(line, 1), max(col, 1), max(line, 1), max(end_col, col), SYNTAX, "error",
                  f"syntax error: {message}")


def _statement_lines(module: cst.Module, source: bytes) -> list[int] | None:
    """The first line of each module-level libcst statement, from CPython's parser (NOTE [ Positions ]).

    NOTE [ Positions ]
    libcst computes positions by generating the code of the whole module, which costs more than
    checking it. Reports are rare, so positions are computed per module-level statement that holds
    one: that statement alone is laid out (its columns are the same as in the file, since it starts
    at column 0) and shifted by its first line, which ``ast`` gives cheaply. A decorated definition
    starts at its first decorator; ``a; b`` is one libcst statement and two ``ast`` ones.
    """
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            body = ast.parse(source).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    lines: list[int] = []
    i = 0
    for stmt in module.body:
        if i >= len(body):
            return None
        node = body[i]
        decorators = getattr(node, "decorator_list", None)
        lines.append(min([node.lineno, *(d.lineno for d in decorators)]) if decorators else node.lineno)
        i += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
    return lines if i == len(body) else None


def _first_line(exc: Exception) -> str:
    text = str(getattr(exc, "message", "") or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Project:
    def __init__(self, modules: dict[str, str], sources: dict[str, bytes], packages: set[str],
                 show_shapes: bool = False, names: dict[str, str] | None = None, infer_all: bool = False,
                 read_torch: bool = True):
        self.modules = modules  # module name -> path (the first file of that name)
        self.paths = dict(names) if names else {}  # path -> module name, for every file
        for m, p in modules.items():
            self.paths.setdefault(p, m)
        self.sources = sources  # path -> bytes (read lazily when absent)
        self.packages = packages  # module names that are packages (__init__.py)
        self.show_shapes = show_shapes
        self.infer_all = infer_all  # NOTE [ Inferring unannotated code from its calls ]
        self.read_torch = read_torch  # NOTE [ Reading torch programs ] in names.py
        self.ctxs: dict[str, ModuleCtx] = {}
        self.failed: dict[str, Exception] = {}  # module -> parse error
        self.rule_failures: list[str] = []

    # -- lookups used by the inference -------------------------------------------------------

    def has_module(self, name: str) -> bool:
        return name in self.modules

    def is_external(self, name: str) -> bool:
        return name.split(".")[0] in _EXTERNAL_TOPS

    def source(self, path: str) -> bytes:
        src = self.sources.get(path)
        if src is None:
            with open(path, "rb") as f:
                src = f.read()
            self.sources[path] = src
        return src

    def note_import(self, ctx: ModuleCtx, name: str) -> None:
        ctx.imports.add(name)

    def note_rule_failure(self, op: str, text: str) -> None:
        self.rule_failures.append(f"{op}: {text}")

    def inferrer_for(self, ctx: ModuleCtx) -> Inferrer:
        # Imported here, not at the top: a run over files that cannot hold a tensor (NOTE [ Files
        # that cannot hold a tensor ] in runner.py) never loads the inference or the calculus.
        # The inference does not import this module (it sees the project as context.ProjectAPI).
        from .infer import inferrer_for

        return inferrer_for(ctx)

    def parse(self, path: str) -> cst.Module | None:
        try:
            return parse_module(self.source(path))
        except Exception as exc:  # ParserSyntaxError, or a libcst limitation
            self.failed[path] = exc
            return None

    def _new_ctx(self, name: str, path: str) -> ModuleCtx | None:
        tree = self.parse(path)
        if tree is None:
            return None
        ctx = ModuleCtx(self, name, path, tree, path.endswith("__init__.py"))
        self.ctxs[path] = ctx
        return ctx

    def module_ctx(self, name: str, asker: ModuleCtx | None, path: str | None = None) -> ModuleCtx | None:
        """The module with its top level run (NOTE [ Import cycles ])."""
        path = path or self.modules[name]
        ctx = self.ctxs.get(path)
        if ctx is not None and ctx.state == "running":
            if asker is not None:
                asker.tainted = True
            return None
        if ctx is not None and ctx.tainted and asker is None:
            ctx = None  # a root needs its own, order-independent run
        if ctx is None:
            ctx = self._new_ctx(name, path)
            if ctx is None:
                return None
        if ctx.state == "new":
            ctx.state = "running"
            try:
                self.inferrer_for(ctx).run_module()
            finally:
                ctx.state = "toplevel"
        return ctx

    def module_env(self, name: str, asker: ModuleCtx) -> dict[str, Value] | None:
        ctx = self.module_ctx(name, asker)
        if ctx is None:
            return None
        if ctx.tainted:
            asker.tainted = True
        return ctx.env

    # -- checking a root ---------------------------------------------------------------------

    def check(self, path: str) -> FileResult:
        name = self.paths[path]
        try:
            old = self.ctxs.get(path)
            if old is not None and (old.tainted or old.state == "done"):
                del self.ctxs[path]
            ctx = self.module_ctx(name, None, path)
            if ctx is None:
                exc = self.failed.get(path)
                return FileResult(path, [syntax_report(path, exc, self.source(path))] if exc else [])
            self.inferrer_for(ctx).check_bodies()
            ctx.state = "done"
            reports = self._positions(ctx)
            deps, missing = self._closure(ctx)
            return FileResult(path, reports, deps, missing)
        except RecursionError:
            return self._crash(path, "recursion too deep")
        except Exception:
            return self._crash(path, traceback.format_exc(limit=-8))

    def _crash(self, path: str, text: str) -> FileResult:
        last = text.strip().splitlines()[-1] if text.strip() else "internal error"
        return FileResult(path, [Report(path, 1, 1, 1, 1, INTERNAL, "error",
                                        f"internal error in the checker: {last}")], crashed=True)

    def _positions(self, ctx: ModuleCtx) -> list[Report]:
        """Line and column of each pending report (NOTE [ Positions ])."""
        if not ctx.pending:
            return []
        starts = _statement_lines(ctx.module, self.source(ctx.path))
        by_top: dict[int, list[Pending]] = {}
        for p in ctx.pending:
            top = p.top if starts is not None and 0 <= p.top < len(ctx.module.body) else -1
            by_top.setdefault(top, []).append(p)
        out = []
        for top, pending in by_top.items():
            if top == -1:
                positions = MetadataWrapper(ctx.module, unsafe_skip_copy=True).resolve(PositionProvider)
                offset = 0
            else:
                assert starts is not None
                stmt = ctx.module.body[top]
                mini = ctx.module.with_changes(body=[stmt], header=[], footer=[])
                positions = MetadataWrapper(mini, unsafe_skip_copy=True).resolve(PositionProvider)
                offset = starts[top] - positions[stmt].start.line
            for p in pending:
                rng = positions.get(p.node)
                if rng is None and top != -1:  # not inside that statement after all: lay out the module
                    full = MetadataWrapper(ctx.module, unsafe_skip_copy=True).resolve(PositionProvider)
                    rng, offset_used = full.get(p.node), 0
                else:
                    offset_used = offset
                if rng is None:
                    continue
                out.append(Report(ctx.path, rng.start.line + offset_used, rng.start.column + 1,
                                  rng.end.line + offset_used, rng.end.column + 1, p.code, p.severity,
                                  p.message))
        out.sort()
        return out

    def _closure(self, root: ModuleCtx) -> tuple[list[str], list[str]]:
        seen = {root.name}
        todo = list(root.imports)
        missing = set(root.missing)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            ctx = self.ctxs.get(self.modules.get(name, ""))
            if ctx is not None:
                todo.extend(ctx.imports)
                missing |= ctx.missing
        deps = sorted(self.modules[n] for n in seen if n in self.modules and n != root.name)
        return deps, sorted(missing)
