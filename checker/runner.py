"""One run: find the files, reuse what the cache holds, check the rest in parallel processes, and
filter the reports through suppression comments and the configuration.

Nothing here imports libcst or the shape calculus unless some file must really be checked: a warm
run over an unchanged tree only reads, hashes and prints.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import discover
from .cache import Cache, Entry, content_hash, fingerprint, stat_key
from .report import INTERNAL, SYNTAX, Report

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .config import Config
    from .project import FileResult, Project

PARALLEL_MIN_BYTES = 256 * 1024  # below this, worker start-up costs more than it saves
#: The inference recurses along the syntax tree: while checking, the interpreter's limit is raised
#: to this (and restored), so deeply nested valid code is not an internal error.
RECURSION_LIMIT = 10000


class Options:
    """What to check and how. (Plain classes here and in ``RunResult``: ``dataclasses`` imports
    ``inspect``, which a warm run does not otherwise need; NOTE [ The warm path ] in ``cache.py``.)"""

    __slots__ = ("cache_dir", "count_lines", "infer_all", "jobs", "paths", "show_shapes", "use_cache")

    def __init__(self, paths: list[str], show_shapes: bool = False, jobs: int | None = None,
                 use_cache: bool = True, cache_dir: str | None = None, infer_all: bool = False,
                 count_lines: bool = False):
        self.paths = paths
        self.show_shapes = show_shapes
        self.jobs = jobs
        self.use_cache = use_cache
        self.cache_dir = cache_dir
        self.infer_all = infer_all  # infer unannotated functions from their calls; check every file
        self.count_lines = count_lines  # fill RunResult.lines (reads every file, even cached ones)


class RunResult:
    __slots__ = ("checked", "crashed", "files", "lines", "reports", "rule_failures", "seconds", "workers")

    def __init__(self, reports: list[Report], files: int, lines: int = 0, checked: int = 0, crashed: int = 0,
                 seconds: float = 0.0, rule_failures: list[str] | None = None, workers: int = 0):
        self.reports = reports
        self.files = files
        self.lines = lines
        self.checked = checked  # files checked this run (not from the cache)
        self.crashed = crashed
        self.seconds = seconds
        self.rule_failures = rule_failures if rule_failures is not None else []
        self.workers = workers  # worker processes started (0: everything ran in this process)

    def __repr__(self) -> str:
        return (f"RunResult(files={self.files}, reports={len(self.reports)}, checked={self.checked}, "
                f"crashed={self.crashed}, workers={self.workers}, seconds={self.seconds:.3f})")


# -- worker side ---------------------------------------------------------------------------------

_STATE: dict[str, Any] = {}


def _project() -> Project:
    proj = _STATE.get("project")
    if proj is None:
        from .project import Project

        proj = Project(_STATE["modules"], _STATE["sources"], _STATE["packages"], _STATE["show_shapes"],
                       _STATE["names"], infer_all=_STATE.get("infer_all", False))
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
    import ast
    import warnings

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
    found = discover.scan(options.paths or config.paths or ["."], config)
    paths = [f.path for f in found]
    keys = {f.path: f.key for f in found}

    cache_dir = None
    if options.use_cache:
        raw = options.cache_dir if options.cache_dir is not None else config.cache_dir
        if raw:
            cache_dir = Path(raw) if os.path.isabs(raw) else Path(config.root) / raw
    cache = Cache(cache_dir, fingerprint({"show_shapes": options.show_shapes, "infer_all": options.infer_all})
                  if cache_dir is not None else "")
    cache.load()

    # NOTE [ The warm path ] (cache.py): the walk's stats alone can show that nothing changed.
    stats_now = stat_key([(f.key, f.size, f.mtime_ns) for f in found]) if cache.stats else ""
    sources: dict[str, bytes] = {}
    stale: list[str] = []
    rule_failures: list[str] = []
    workers = 0
    if not stats_now or stats_now != cache.stats:
        stale, rule_failures, workers = _refresh(found, keys, sources, cache, options, config)
    reports: list[Report] = []
    crashed = 0
    for p in paths:
        result = cache.results.get(keys[p])
        if result is None:
            continue
        stored_reports, file_crashed = result
        crashed += file_crashed
        if not stored_reports:
            continue
        if p not in sources:
            with open(p, "rb") as fh:
                sources[p] = fh.read()
        lines = sources[p].decode("utf-8", "replace").splitlines()
        for stored in stored_reports:
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
                     line_count, len(stale), crashed, time.perf_counter() - t0, rule_failures, workers)


def _refresh(found: list[discover.Found], keys: dict[str, str], sources: dict[str, bytes], cache: Cache,
             options: Options, config: Config) -> tuple[list[str], list[str], int]:
    """Bring the cache up to date with the tree: hash what changed, check what must be checked,
    record every file's stat and the header's summary, and save."""
    # Content hashes; like git's index, a file whose size and mtime match its cache entry keeps
    # the hash recorded there and is not read.
    paths = [f.path for f in found]
    shas: dict[str, str] = {}
    stats: dict[str, list[int]] = {}
    entries = cache.entries
    for f in found:
        stats[f.path] = [f.size, f.mtime_ns]
        e = entries.get(f.key)
        if e is not None and e.stat == stats[f.path]:
            shas[f.path] = e.sha
            continue
        with open(f.path, "rb") as fh:
            data = fh.read()
        sources[f.path] = data
        shas[f.path] = content_hash(data)
    tree = content_hash("\0".join(f"{keys[p]}:{shas[p]}" for p in paths).encode())

    stale: list[str] = []
    rule_failures: list[str] = []
    workers = 0
    if tree != cache.tree or any(keys[p] not in entries for p in paths):
        stale, rule_failures, workers = _check_changed(paths, keys, shas, sources, cache, options, config)
    for p in paths:
        e = entries.get(keys[p])
        if e is not None:
            e.stat = stats[p]
    cache.tree = tree
    cache.stats = stat_key([(f.key, f.size, f.mtime_ns) for f in found])
    cache.results = {}
    for p in paths:
        e = entries.get(keys[p])
        if e is not None and (e.reports or e.crashed):
            cache.results[keys[p]] = (e.reports, e.crashed)
    cache.dirty = True
    cache.save()
    return stale, rule_failures, workers


def _check_changed(paths: list[str], keys: dict[str, str], shas: dict[str, str], sources: dict[str, bytes],
                   cache: Cache, options: Options, config: Config) -> tuple[list[str], list[str], int]:
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
        return stale, rule_failures, 0
    _STATE.update(modules=modules, sources=sources, packages=packages, show_shapes=options.show_shapes,
                  infer_all=options.infer_all,
                  names=names)
    _STATE.pop("project", None)
    items = [(p, relevant[p]) for p in stale]
    jobs = options.jobs or config.jobs or os.cpu_count() or 1
    sizes = {p: len(sources[p]) if p in sources else os.path.getsize(p) for p in stale}
    workers = 0
    if jobs > 1 and sum(sizes.values()) >= PARALLEL_MIN_BYTES and len(stale) > 1:
        workers = jobs
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
    return stale, rule_failures, workers


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
    if "ignore" not in text:
        return False
    from .suppress import is_suppressed  # tokenize: only for a line that may carry a comment

    return is_suppressed(rep.code, text)


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
