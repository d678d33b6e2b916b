"""One run: find the files, reuse what the cache holds, check the rest in parallel processes, and
filter the reports through suppression comments and the configuration.

Nothing here imports libcst or the shape calculus unless some file must really be checked: a warm
run over an unchanged tree only reads, hashes and prints.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from . import discover
from .cache import Cache, Entry, content_hash, fingerprint, stat_key
from .report import INTERNAL, SYNTAX, Report

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .config import Config
    from .project import Project

PARALLEL_MIN_BYTES = 256 * 1024  # below this, worker start-up costs more than it saves
#: The inference recurses along the syntax tree: while checking, the interpreter's limit is raised
#: to this (and restored), so deeply nested valid code is not an internal error.
RECURSION_LIMIT = 10000
#: A file whose check takes longer than this many seconds (plus ``FILE_TIMEOUT_PER_MIB`` for each
#: MiB of source) is reported as "could not parse" and its worker replaced (NOTE [ Isolating files ]).
FILE_TIMEOUT = 60.0
FILE_TIMEOUT_PER_MIB = 60.0


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


class Checked(NamedTuple):
    """One file's outcome, as plain data (it crosses from a worker process through a pipe)."""

    path: str
    reports: list[Report]
    deps: list[str]  # paths of the checked modules it used
    missing: list[str]  # module names it imported that were absent
    crashed: bool


class RunResult:
    __slots__ = ("checked", "crashed", "files", "lines", "reports", "rule_failures", "seconds", "skipped", "workers")

    def __init__(self, reports: list[Report], files: int, lines: int = 0, checked: int = 0, crashed: int = 0,
                 seconds: float = 0.0, rule_failures: list[str] | None = None, workers: int = 0,
                 skipped: list[discover.Skipped] | None = None):
        self.reports = reports
        self.files = files
        self.lines = lines
        self.checked = checked  # files checked this run (not from the cache)
        self.crashed = crashed
        self.seconds = seconds
        self.rule_failures = rule_failures if rule_failures is not None else []
        self.workers = workers  # worker processes started (0: everything ran in this process)
        self.skipped = skipped if skipped is not None else []  # files left out, with the reason

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
                       _STATE["names"], infer_all=_STATE.get("infer_all", False),
                       read_torch=_STATE.get("read_torch", True))
        _STATE["project"] = proj
    return proj


def _check_one(path: str, relevant: bool) -> Checked:
    try:
        return _check_file(path, relevant)
    except Exception as exc:  # the checker's own bug: this file is reported, the others still run
        return _failed(path, INTERNAL, f"internal error in the checker: {type(exc).__name__}: {exc}", True)


def _failed(path: str, code: str, message: str, crashed: bool) -> Checked:
    return Checked(path, [Report(path, 1, 1, 1, 1, code, "error", message)], [], [], crashed)


def _check_file(path: str, relevant: bool) -> Checked:
    from .parse import ParseLimitError
    from .project import syntax_report

    proj = _project()
    if relevant:
        res = proj.check(path)
        if isinstance(proj.failed.get(path), ParseLimitError):
            return _failed(path, SYNTAX, f"could not parse this file: {proj.failed[path]}; it was not checked", False)
        return Checked(res.path, res.reports, res.deps, res.missing, res.crashed)
    # NOTE [ Files that cannot hold a tensor ]
    # A file that neither mentions typedtensor (nor torch: NOTE [ Reading torch programs ] in
    # names.py) nor imports a checked module that does has no shape to check: only whether it parses, which CPython's own parser decides (ten times faster than
    # building a CST). ``--infer-all`` runs libcst and the inference on such files too.
    import ast
    import warnings

    source = proj.source(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return Checked(path, [syntax_report(path, exc, source)], [], [], False)
    except (RecursionError, MemoryError):
        return _failed(path, SYNTAX, "could not parse this file: the code is nested too deeply for CPython's own "
                       "parser; it was not checked", False)
    return Checked(path, [], [], [], False)


def _work(chunk: list[tuple[str, bool]]) -> tuple[list[Checked], list[str]]:
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
    skipped: list[discover.Skipped] = []
    found = discover.scan(options.paths or config.paths or ["."], config, skipped)

    cache_dir = None
    if options.use_cache:
        raw = options.cache_dir if options.cache_dir is not None else config.cache_dir
        if raw:
            cache_dir = Path(raw) if os.path.isabs(raw) else Path(config.root) / raw
    cache = Cache(cache_dir, fingerprint({"show_shapes": options.show_shapes, "infer_all": options.infer_all,
                                          "torch": config.read_torch})
                  if cache_dir is not None else "")
    cache.load()

    # NOTE [ The warm path ] (cache.py): the walk's stats alone can show that nothing changed.
    stats_now = stat_key([(f.key, f.size, f.mtime_ns) for f in found]) if cache.stats else ""
    sources: dict[str, bytes] = {}
    stale: list[str] = []
    rule_failures: list[str] = []
    workers = 0
    if not stats_now or stats_now != cache.stats:
        found = _read_changed(found, cache, sources, skipped)
        stale, rule_failures, workers = _refresh(found, sources, cache, options, config)
    paths = [f.path for f in found]
    keys = {f.path: f.key for f in found}
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
        lines = _source(p, sources).decode("utf-8", "replace").splitlines()
        for stored in stored_reports:
            rep = Report.from_json({**stored, "path": p})
            if _filtered(rep, lines, config):
                continue
            reports.append(rep)
    line_count = 0
    if options.count_lines:
        for p in paths:
            line_count += _source(p, sources).count(b"\n")
    return RunResult(sorted(reports, key=lambda r: (r.path, r.line, r.column, r.code)), len(paths),
                     line_count, len(stale), crashed, time.perf_counter() - t0, rule_failures, workers, skipped)


def _source(path: str, sources: dict[str, bytes]) -> bytes:
    """A file's bytes, read once per run (empty if it has gone since the walk)."""
    data = sources.get(path)
    if data is None:
        try:
            data = discover.read_source(path)
        except OSError:
            data = b""
        sources[path] = data
    return data


def _read_changed(found: list[discover.Found], cache: Cache, sources: dict[str, bytes],
                  skipped: list[discover.Skipped]) -> list[discover.Found]:
    """Read every file whose size or mtime differs from its cache entry (like git's index, the
    others keep the hash recorded there); a file that cannot be read is skipped with a note."""
    kept = []
    entries = cache.entries
    for f in found:
        e = entries.get(f.key)
        if e is None or e.stat != [f.size, f.mtime_ns]:
            try:
                sources[f.path] = discover.read_source(f.path)
            except OSError as exc:
                skipped.append(discover.Skipped(discover.printable(f.path), f"cannot be read ({exc.strerror or exc})"))
                continue
        kept.append(f)
    return kept


def _refresh(found: list[discover.Found], sources: dict[str, bytes], cache: Cache,
             options: Options, config: Config) -> tuple[list[str], list[str], int]:
    """Bring the cache up to date with the tree: hash what changed (``_read_changed`` read it),
    check what must be checked, record every file's stat and the header's summary, and save."""
    paths = [f.path for f in found]
    keys = {f.path: f.key for f in found}
    shas: dict[str, str] = {}
    stats: dict[str, list[int]] = {}
    entries = cache.entries
    for f in found:
        stats[f.path] = [f.size, f.mtime_ns]
        data = sources.get(f.path)
        shas[f.path] = content_hash(data) if data is not None else entries[f.key].sha
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
            direct[p] = b"typedtensor" in src or (config.read_torch and b"torch" in src)
            imports[p] = sorted(discover.imported_modules(src, names[p], names[p] in packages)) if not direct[p] else []
    relevant_names = _relevant(modules, {names[p]: (direct[p], imports[p]) for p in paths if modules.get(names[p]) == p})
    relevant = {p: options.infer_all or names[p] in relevant_names for p in paths}

    stale = [p for p in paths if not _valid(cache.entries.get(keys[p]), p, shas, relevant[p], modules, keys)]
    rule_failures: list[str] = []
    results: list[Checked] = []
    if not stale:
        return stale, rule_failures, 0
    _STATE.update(modules=modules, sources=sources, packages=packages, show_shapes=options.show_shapes,
                  infer_all=options.infer_all, read_torch=config.read_torch,
                  names=names)
    _STATE.pop("project", None)
    items = [(p, relevant[p]) for p in stale]
    jobs = options.jobs or config.jobs or os.cpu_count() or 1
    sizes = {p: len(sources[p]) if p in sources else os.path.getsize(p) for p in stale}
    parallel = jobs > 1 and sum(sizes.values()) >= PARALLEL_MIN_BYTES and len(stale) > 1
    workers = 0
    if hasattr(os, "fork") and (parallel or any(relevant[p] for p in stale)):
        # NOTE [ Isolating files ]: libcst runs in worker processes, one per job
        workers = min(jobs, len(stale)) if parallel else 1
        res, fails = _isolated(_chunks(items, sizes, workers) if parallel else [items], workers, sizes)
        results.extend(res)
        rule_failures.extend(fails)
    else:  # only CPython's parser runs (it fails cleanly on any input), or there is no fork
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


# -- isolation -----------------------------------------------------------------------------------

# NOTE [ Isolating files ]
# libcst's parser is native code: an input can crash it (SIGSEGV) or keep it busy for hours, and
# the inference can fail in ways no test foresaw. So files are checked in forked worker processes
# that announce each file as they start and finish it. When a worker dies, the file it was on is
# reported ("could not parse this file: ..."), the rest of its chunk goes to a new worker, and every
# other file is still checked; a file that runs past its time limit (FILE_TIMEOUT) is treated the
# same once its worker is killed. ``parse.check_limits`` refuses the inputs known to do this before
# libcst sees them (NOTE [ What libcst survives ]); the isolation is for whatever else there is.
# Messages are marshal frames on pipes (a 4-byte length, then the payload): plain tuples, so this
# process never imports libcst. Without ``os.fork`` (Windows) files are checked in this process.

_FRAME = 4


def _send(fd: int, obj: Any) -> None:
    import marshal

    data = marshal.dumps(obj)
    view = memoryview(len(data).to_bytes(_FRAME, "little") + data)
    while view:
        view = view[os.write(fd, view):]


def _recv(fd: int) -> Any:
    """A whole frame from a blocking descriptor; None at end of file."""
    import marshal

    head = _read_exactly(fd, _FRAME)
    if head is None:
        return None
    body = _read_exactly(fd, int.from_bytes(head, "little"))
    return None if body is None else marshal.loads(body)


def _read_exactly(fd: int, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        part = os.read(fd, n - len(buf))
        if not part:
            return None
        buf += part
    return bytes(buf)


def _to_wire(c: Checked) -> tuple[Any, ...]:
    return (c.path, [tuple(r) for r in c.reports], c.deps, c.missing, c.crashed)


def _from_wire(w: Any) -> Checked:
    return Checked(w[0], [Report(*r) for r in w[1]], list(w[2]), list(w[3]), bool(w[4]))


def _serve(commands: int, out: int) -> None:
    """A worker: check each chunk it is sent, announcing every file (NOTE [ Isolating files ])."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    while True:
        chunk = _recv(commands)
        if chunk is None:
            return
        for i, (path, relevant) in enumerate(chunk):
            _send(out, ("start", i))
            _send(out, ("done", i, _to_wire(_check_one(path, relevant))))
        proj = _project()
        failures, proj.rule_failures = proj.rule_failures, []
        _send(out, ("idle", failures))


class _Worker:
    """The parent's view of one worker process."""

    def __init__(self, others: list[int]) -> None:
        cmd_r, cmd_w = os.pipe()
        out_r, out_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller
            code = 0
            try:
                for fd in (cmd_w, out_r, *others):
                    os.close(fd)
                import faulthandler

                faulthandler.disable()  # a crash is reported by the parent, not dumped on stderr
                _serve(cmd_r, out_w)
            except BaseException:
                code = 70
            finally:
                os._exit(code)
        os.close(cmd_r)
        os.close(out_w)
        self.pid, self.commands, self.out = pid, cmd_w, out_r
        self.buf = bytearray()
        self.chunk: list[tuple[str, bool]] = []
        self.current = -1  # index in chunk of the file being checked
        self.done = 0  # files of the chunk finished
        self.deadline = float("inf")
        self.timed_out = False

    def assign(self, chunk: list[tuple[str, bool]]) -> None:
        self.chunk, self.current, self.done = chunk, -1, 0
        with contextlib.suppress(OSError):  # it died: its end of file is handled by the caller
            _send(self.commands, chunk)

    def frames(self, data: bytes) -> list[Any]:
        import marshal

        self.buf += data
        out = []
        while len(self.buf) >= _FRAME:
            n = int.from_bytes(self.buf[:_FRAME], "little")
            if len(self.buf) < _FRAME + n:
                break
            out.append(marshal.loads(bytes(self.buf[_FRAME:_FRAME + n])))
            del self.buf[:_FRAME + n]
        return out

    def close(self, kill: bool) -> int:
        """Close the pipes (a live worker then exits), reap it; its wait status."""
        import signal

        for fd in (self.commands, self.out):
            with contextlib.suppress(OSError):
                os.close(fd)
        if kill:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
        return os.waitpid(self.pid, 0)[1]


def _death(status: int, timed_out: bool, limit: float) -> str:
    import signal

    if timed_out:
        return f"checking it took longer than {limit:.0f} s"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"the parser crashed ({name})"
    return f"the checker's worker exited with status {os.WEXITSTATUS(status)}"


def _time_limit(size: int) -> float:
    return FILE_TIMEOUT + FILE_TIMEOUT_PER_MIB * size / 2**20


def _isolated(chunks: list[list[tuple[str, bool]]], jobs: int,
              sizes: dict[str, int]) -> tuple[list[Checked], list[str]]:
    """Check ``chunks`` in at most ``jobs`` forked workers (NOTE [ Isolating files ])."""
    import selectors
    from collections import deque

    pending = deque(chunk for chunk in chunks if chunk)
    results: list[Checked] = []
    failures: list[str] = []
    live: dict[int, _Worker] = {}  # by its output descriptor
    sel = selectors.DefaultSelector()
    try:
        while pending or any(w.chunk for w in live.values()):
            for w in live.values():
                if not w.chunk and pending:
                    w.assign(pending.popleft())
            while pending and len(live) < jobs:
                w = _Worker([fd for v in live.values() for fd in (v.commands, v.out)])
                live[w.out] = w
                sel.register(w.out, selectors.EVENT_READ)
                w.assign(pending.popleft())
            wait = min(w.deadline for w in live.values()) - time.monotonic()
            for key, _ in sel.select(None if wait == float("inf") else max(wait, 0.0)):
                w = live[key.fd]
                data = os.read(w.out, 1 << 16)
                if data:
                    for msg in w.frames(data):
                        if msg[0] == "start":
                            w.current = msg[1]
                            w.deadline = time.monotonic() + _time_limit(sizes.get(w.chunk[msg[1]][0], 0))
                        elif msg[0] == "done":
                            results.append(_from_wire(msg[2]))
                            w.current, w.done, w.deadline = -1, msg[1] + 1, float("inf")
                        else:  # "idle"
                            failures.extend(msg[1])
                            w.chunk = []
                    continue
                # end of file: the worker died (it only exits when this process closes its pipe)
                sel.unregister(w.out)
                del live[w.out]
                status = w.close(kill=True)
                at = w.current if w.current >= 0 else w.done  # dying between files: blame the next
                if at < len(w.chunk):
                    path = w.chunk[at][0]
                    reason = _death(status, w.timed_out, _time_limit(sizes.get(path, 0)))
                    results.append(_failed(path, INTERNAL, f"could not parse this file: {reason}; it was not "
                                           "checked (the other files were)", True))
                    if w.chunk[at + 1:]:
                        pending.appendleft(w.chunk[at + 1:])
            now = time.monotonic()
            for w in live.values():
                if w.deadline <= now and not w.timed_out:
                    import signal

                    w.timed_out = True
                    os.kill(w.pid, signal.SIGKILL)  # its end of file follows
    finally:
        for w in live.values():
            w.close(kill=bool(w.chunk))
        sel.close()
    return results, failures


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
