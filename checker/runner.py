"""One run: find the files, reuse what the cache holds, check the rest in parallel processes, and
filter the reports through suppression comments and the configuration.

Nothing here imports libcst or the shape calculus unless some file must really be checked: a warm
run over an unchanged tree only reads, hashes and prints.
"""

from __future__ import annotations

import ast
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import discover
from .cache import Cache, Entry, content_hash, fingerprint
from .config import Config
from .report import INTERNAL, SYNTAX, Report
from .suppress import is_suppressed

if TYPE_CHECKING:
    from .project import FileResult, Project

PARALLEL_MIN_BYTES = 256 * 1024  # below this, worker start-up costs more than it saves
#: The inference recurses along the syntax tree: while checking, the interpreter's limit is raised
#: to this (and restored), so deeply nested valid code is not an internal error.
RECURSION_LIMIT = 10000


@dataclass
class Options:
    paths: list[str]
    show_shapes: bool = False
    jobs: int | None = None
    use_cache: bool = True
    cache_dir: str | None = None
    infer_all: bool = False  # infer files that cannot reach typedtensor too (robustness testing)
    count_lines: bool = False  # fill RunResult.lines (reads every file, even cached ones)


@dataclass
class RunResult:
    reports: list[Report]
    files: int
    lines: int = 0
    checked: int = 0  # files checked this run (not from the cache)
    crashed: int = 0
    seconds: float = 0.0
    rule_failures: list[str] = field(default_factory=list)


# -- worker side ---------------------------------------------------------------------------------

_STATE: dict[str, Any] = {}


def _project() -> Project:
    proj = _STATE.get("project")
    if proj is None:
        from .project import Project

        proj = Project(_STATE["modules"], _STATE["sources"], _STATE["packages"], _STATE["show_shapes"],
                       _STATE["names"])
        _STATE["project"] = proj
    return proj


def _check_one(path: str, relevant: bool) -> FileResult:
    from .project import FileResult, syntax_report

    proj = _project()
    if relevant:
        return proj.check(path)
    # NOTE [ Files that cannot hold a tensor ]
    # A file that neither mentions typedtensor nor imports a checked module that does has no shape
    # to check: only whether it parses, which CPython's own parser decides (ten times faster than
    # building a CST). ``--infer-all`` runs libcst and the inference on such files too.
    source = proj.source(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return FileResult(path, [syntax_report(path, exc, source)])
    return FileResult(path, [])


def _work(chunk: list[tuple[str, bool]]) -> tuple[list[FileResult], list[str]]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        out = [_check_one(p, r) for p, r in chunk]
    finally:
        sys.setrecursionlimit(limit)
    proj = _project()
    failures, proj.rule_failures = proj.rule_failures, []
    return out, failures


def _chunks(items: list[tuple[str, bool]], sizes: dict[str, int], jobs: int) -> list[list[tuple[str, bool]]]:
    """Longest files first, dealt into ~4 chunks per worker to balance the load."""
    n = max(1, min(len(items), jobs * 4))
    chunks: list[list[tuple[str, bool]]] = [[] for _ in range(n)]
    loads = [0] * n
    for item in sorted(items, key=lambda it: -sizes.get(it[0], 0)):
        i = loads.index(min(loads))
        chunks[i].append(item)
        loads[i] += sizes.get(item[0], 0)
    return [c for c in chunks if c]


# -- the run -------------------------------------------------------------------------------------

def run(options: Options, config: Config) -> RunResult:
    t0 = time.perf_counter()
    paths = discover.collect(options.paths or config.paths or ["."], config)
    keys = {p: os.path.abspath(p) for p in paths}

    cache_dir = None
    if options.use_cache:
        raw = options.cache_dir if options.cache_dir is not None else config.cache_dir
        if raw:
            cache_dir = Path(raw) if os.path.isabs(raw) else config.root / raw
    cache = Cache(cache_dir, fingerprint({"show_shapes": options.show_shapes, "infer_all": options.infer_all})
                  if cache_dir is not None else "")
    cache.load()

    # Content hashes; like git's index, a file whose size and mtime match its cache entry keeps
    # the hash recorded there and is not read.
    sources: dict[str, bytes] = {}
    shas: dict[str, str] = {}
    stats: dict[str, list[int]] = {}
    for p in paths:
        st = os.stat(p)
        stats[p] = [st.st_size, st.st_mtime_ns]
        e = cache.entries.get(keys[p])
        if e is not None and e.stat == stats[p]:
            shas[p] = e.sha
            continue
        with open(p, "rb") as fh:
            data = fh.read()
        sources[p] = data
        shas[p] = content_hash(data)
    tree = content_hash("\0".join(f"{keys[p]}:{shas[p]}" for p in paths).encode())

    stale: list[str] = []
    rule_failures: list[str] = []
    if tree != cache.tree or any(keys[p] not in cache.entries for p in paths):
        stale, _results, rule_failures = _check_changed(paths, keys, shas, sources, cache, options, config)
        for p in paths:
            e = cache.entries.get(keys[p])
            if e is not None:
                e.stat = stats[p]
        cache.tree = tree
        cache.dirty = True
        cache.save()

    reports: list[Report] = []
    crashed = 0
    for p in paths:
        entry = cache.entries.get(keys[p])
        if entry is None:
            continue
        crashed += entry.crashed
        if not entry.reports:
            continue
        if p not in sources:
            with open(p, "rb") as fh:
                sources[p] = fh.read()
        lines = sources[p].decode("utf-8", "replace").splitlines()
        for stored in entry.reports:
            rep = Report.from_json({**stored, "path": p})
            if _filtered(rep, lines, config):
                continue
            reports.append(rep)
    line_count = 0
    if options.count_lines:
        for p in paths:
            if p not in sources:
                with open(p, "rb") as fh:
                    sources[p] = fh.read()
            line_count += sources[p].count(b"\n")
    return RunResult(sorted(reports, key=lambda r: (r.path, r.line, r.column, r.code)), len(paths),
                     line_count, len(stale), crashed, time.perf_counter() - t0, rule_failures)


def _check_changed(paths: list[str], keys: dict[str, str], shas: dict[str, str], sources: dict[str, bytes],
                   cache: Cache, options: Options, config: Config) -> tuple[list[str], list[FileResult], list[str]]:
    """Decide which files need checking (NOTE [ Cache validity ]) and check them."""
    modules: dict[str, str] = {}
    packages: set[str] = set()
    names: dict[str, str] = {}
    for p in paths:
        name = discover.module_name(p)
        names[p] = name
        modules.setdefault(name, p)
        if p.endswith("__init__.py"):
            packages.add(name)
    imports: dict[str, list[str]] = {}
    direct: dict[str, bool] = {}
    for p in paths:
        e = cache.entries.get(keys[p])
        if e is not None and e.sha == shas[p]:
            imports[p], direct[p] = e.imports, e.direct
        else:
            src = sources[p]
            direct[p] = b"typedtensor" in src
            imports[p] = sorted(discover.imported_modules(src, names[p], names[p] in packages)) if not direct[p] else []
    relevant_names = _relevant(modules, {names[p]: (direct[p], imports[p]) for p in paths if modules.get(names[p]) == p})
    relevant = {p: options.infer_all or names[p] in relevant_names for p in paths}

    stale = [p for p in paths if not _valid(cache.entries.get(keys[p]), p, shas, relevant[p], modules, keys)]
    rule_failures: list[str] = []
    results: list[FileResult] = []
    if not stale:
        return stale, results, rule_failures
    _STATE.update(modules=modules, sources=sources, packages=packages, show_shapes=options.show_shapes,
                  names=names)
    _STATE.pop("project", None)
    items = [(p, relevant[p]) for p in stale]
    jobs = options.jobs or config.jobs or os.cpu_count() or 1
    sizes = {p: len(sources[p]) if p in sources else os.path.getsize(p) for p in stale}
    if jobs > 1 and sum(sizes.values()) >= PARALLEL_MIN_BYTES and len(stale) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            for res, fails in pool.map(_work, _chunks(items, sizes, jobs)):
                results.extend(res)
                rule_failures.extend(fails)
    else:
        res, fails = _work(items)
        results.extend(res)
        rule_failures.extend(fails)
    for r in results:
        cache.put(keys[r.path], Entry(
            shas[r.path], imports[r.path], direct[r.path], relevant[r.path],
            [_strip(rep) for rep in r.reports],
            {keys.get(d, os.path.abspath(d)): shas.get(d, "") for d in r.deps}, r.missing, r.crashed,
        ))
    return stale, results, rule_failures


def _strip(rep: Report) -> dict[str, Any]:
    d = rep.to_json()
    d.pop("path")
    return d


def _filtered(rep: Report, lines: Sequence[str], config: Config) -> bool:
    if rep.code in (INTERNAL, SYNTAX):
        return False
    if config.ignored(rep.path, rep.code):
        return True
    if rep.severity == "note":
        return False
    text = lines[rep.line - 1] if 0 < rep.line <= len(lines) else ""
    return "ignore" in text and is_suppressed(rep.code, text)


def _valid(entry: Entry | None, path: str, shas: dict[str, str], relevant: bool,
           modules: dict[str, str], keys: dict[str, str]) -> bool:
    if entry is None or entry.sha != shas[path] or entry.relevant != relevant:
        return False
    if entry.deps:
        current = {keys[p]: shas[p] for p in shas}
        for dep, sha in entry.deps.items():
            if current.get(dep) != sha:
                return False
    return not any(m in modules for m in entry.missing)


def _relevant(modules: dict[str, str], info: dict[str, tuple[bool, list[str]]]) -> set[str]:
    """Modules that can reach typedtensor: they mention it, or import (transitively) a checked
    module that does (see ``discover.relevant_modules``)."""
    users: dict[str, set[str]] = {}
    for name, (_, deps) in info.items():
        for dep in deps:
            parts = dep.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in modules:
                    users.setdefault(prefix, set()).add(name)
    relevant = {n for n, (d, _) in info.items() if d}
    todo = list(relevant)
    while todo:
        for user in users.get(todo.pop(), ()):
            if user not in relevant:
                relevant.add(user)
                todo.append(user)
    return relevant
