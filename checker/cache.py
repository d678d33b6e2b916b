"""A results cache keyed by content hash, so an unchanged tree re-checks without parsing anything.

NOTE [ Cache validity ]
One file per (checker build, options) fingerprint: the checker's and the shape calculus's own
sources (name, size, mtime), the project's version and the interpreter's cache tag are hashed in,
so a new rule, release or Python drops old results. Each file's entry keeps the hash of its
content, the hashes of the checked modules its inference used (transitively), the module names it
imported that were not in the tree, and whether it was "relevant" (could reach typedtensor). An
entry is reused only when all of those still hold; otherwise the file is checked again. Raw
reports are stored before suppression and configuration filters, which are applied on output, so
editing the config never stales the cache.

NOTE [ The warm path ]
A re-check of an unchanged tree should cost little more than starting the interpreter. The file
is written by ``marshal`` (CPython's own code-object format: no parser to import, ~10x faster to
read than JSON) in two parts: a small header, read on every run, and the per-file entries, decoded
only when some file must be looked at. The header holds the hash of every checked file's (path,
size, mtime) from the run that wrote it and the reports of the files that have any; when the
walk's stats hash to the same value, the run answers from the header alone: like git's index, a
file whose size and mtime are unchanged is taken to be unchanged.
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Callable

FORMAT: Final = 2
_MAGIC: Final = b"TTCHECK2"
_SUFFIX: Final = ".marshal"


def _blake2b() -> Callable[..., Any]:
    # ``hashlib`` loads OpenSSL's bindings on import (several ms); blake2 is built into CPython.
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter without the builtin module
        from hashlib import blake2b
    return blake2b


def content_hash(data: bytes) -> str:
    return str(_blake2b()(data, digest_size=16).hexdigest())


def _version() -> str:
    """The project's version (``typedtensor.__version__``, which a test keeps equal to the
    installed metadata's; ``importlib.metadata`` alone costs more than a warm run's work)."""
    try:
        import typedtensor

        return str(typedtensor.__version__)
    except Exception:
        return "0"


def fingerprint(options: dict[str, Any]) -> str:
    """The checker build + the calculus + the project's version + result-shaping options."""
    h = _blake2b()(digest_size=12)
    h.update(f"format={FORMAT};version={_version()};python={sys.implementation.cache_tag};"
             f"marshal={marshal.version};{sorted(options.items())}".encode())
    here = os.path.dirname(os.path.realpath(__file__))
    shapes = os.path.join(os.path.dirname(here), "typedtensor", "shapes")
    try:
        import typedtensor

        shapes = os.path.join(os.path.dirname(os.path.realpath(typedtensor.__file__)), "shapes")
    except Exception:
        pass
    for folder in (here, shapes, os.path.join(shapes, "rules")):
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        name = os.path.basename(folder)
        for e in entries:
            if e.name.endswith(".py"):
                st = e.stat()
                h.update(f"{name}/{e.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return str(h.hexdigest())


def stat_key(stats: list[tuple[str, int, int]]) -> str:
    """The hash of every checked file's (absolute path, size, mtime_ns), in order."""
    return content_hash(marshal.dumps(stats))


class Entry:
    """What the cache knows of one file (NOTE [ Cache validity ])."""

    __slots__ = ("crashed", "deps", "direct", "imports", "missing", "relevant", "reports", "sha", "stat")

    def __init__(self, sha: str, imports: list[str], direct: bool, relevant: bool, reports: list[dict[str, Any]],
                 deps: dict[str, str] | None = None, missing: list[str] | None = None, crashed: bool = False,
                 stat: list[int] | None = None):
        self.sha = sha
        self.imports = imports
        self.direct = direct
        self.relevant = relevant
        self.reports = reports  # raw reports without their path (Report.to_json minus "path")
        self.deps = deps if deps is not None else {}
        self.missing = missing if missing is not None else []
        self.crashed = crashed
        self.stat = stat if stat is not None else []  # [size, mtime_ns] when the sha was taken

    def to_record(self) -> tuple[Any, ...]:
        return (self.sha, self.imports, self.direct, self.relevant, self.reports, self.deps, self.missing,
                self.crashed, self.stat)

    @classmethod
    def from_record(cls, r: tuple[Any, ...]) -> Entry:
        return cls(*r)


class Cache:
    """One results file; ``entries`` are decoded on first use (NOTE [ The warm path ])."""

    def __init__(self, folder: Path | None, key: str):
        self.folder = folder
        self.key = key
        self.tree = ""  # hash of every (path, content hash) of the last run: unchanged -> nothing to do
        self.stats = ""  # stat_key of the last run: unchanged -> not even a hash to compare
        #: absolute path -> (raw reports, crashed) for the files of the last run that have either
        self.results: dict[str, tuple[list[dict[str, Any]], bool]] = {}
        self.dirty = False
        self._entries: dict[str, Entry] | None = None
        self._blob = b""

    @property
    def file(self) -> Path | None:
        return self.folder / f"results-{self.key}{_SUFFIX}" if self.folder is not None else None

    @property
    def entries(self) -> dict[str, Entry]:
        if self._entries is None:
            self._entries = {}
            if self._blob:
                try:
                    self._entries = {p: Entry.from_record(r) for p, r in marshal.loads(self._blob).items()}
                except (ValueError, EOFError, TypeError):
                    self._entries = {}
                self._blob = b""
        return self._entries

    def load(self) -> None:
        f = self.file
        if f is None:
            return
        try:
            with open(f, "rb") as fh:
                data = fh.read()
            if not data.startswith(_MAGIC):
                return
            size = int.from_bytes(data[len(_MAGIC):len(_MAGIC) + 8], "little")
            start = len(_MAGIC) + 8
            header = marshal.loads(data[start:start + size])
            if header.get("format") != FORMAT:
                return
            self.tree = header["tree"]
            self.stats = header["stats"]
            self.results = header["results"]
            self._blob = data[start + size:]
        except (OSError, ValueError, EOFError, KeyError, TypeError, AttributeError):
            self.tree, self.stats, self.results, self._blob = "", "", {}, b""

    def put(self, path: str, entry: Entry) -> None:
        self.entries[path] = entry
        self.dirty = True

    def save(self) -> None:
        f = self.file
        if f is None or not self.dirty or self.folder is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            gitignore = self.folder / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("*\n")
            entries = self.entries
            header = marshal.dumps({"format": FORMAT, "tree": self.tree, "stats": self.stats,
                                    "results": self.results})
            blob = marshal.dumps({p: e.to_record() for p, e in entries.items()})
            import tempfile

            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=_SUFFIX)
            with os.fdopen(fd, "wb") as fh:
                fh.write(_MAGIC + len(header).to_bytes(8, "little") + header + blob)
            os.replace(tmp, f)
            for old in self.folder.glob("results-*"):
                if old != f:
                    old.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only tree still gets checked, just not cached
