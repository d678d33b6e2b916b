"""A results cache keyed by content hash, so an unchanged tree re-checks without parsing anything.

NOTE [ Cache validity ]
One JSON file per (checker build, options) fingerprint: the checker's and the shape calculus's own
sources (name, size, mtime) and the project's version are hashed in, so a new rule or release
drops old results. Each file's entry keeps the hash of its content, the hashes of the checked
modules its inference used (transitively), the module names it imported that were not in the tree,
and whether it was "relevant" (could reach typedtensor). An entry is reused only when all of those
still hold; otherwise the file is checked again. Raw reports are stored before suppression and
configuration filters, which are applied on output, so editing the config never stales the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

FORMAT: Final = 1


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("typedtensor")
    except Exception:
        return "0"


def fingerprint(options: dict[str, Any]) -> str:
    """The checker build + the calculus + the project's version + result-shaping options."""
    h = hashlib.blake2b(digest_size=12)
    h.update(f"format={FORMAT};version={_version()};{sorted(options.items())}".encode())
    here = Path(__file__).resolve().parent
    shapes = here.parent / "typedtensor" / "shapes"
    try:
        import typedtensor

        shapes = Path(typedtensor.__file__).resolve().parent / "shapes"
    except Exception:
        pass
    for folder in (here, shapes, shapes / "rules"):
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.endswith(".py"):
                st = e.stat()
                h.update(f"{folder.name}/{e.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


@dataclass
class Entry:
    sha: str
    imports: list[str]
    direct: bool
    relevant: bool
    reports: list[dict[str, Any]]
    deps: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    crashed: bool = False
    stat: list[int] = field(default_factory=list)  # [size, mtime_ns] when the sha was taken

    def to_json(self) -> dict[str, Any]:
        return {"sha": self.sha, "imports": self.imports, "direct": self.direct,
                "relevant": self.relevant, "reports": self.reports, "deps": self.deps,
                "missing": self.missing, "crashed": self.crashed, "stat": self.stat}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entry:
        return cls(d["sha"], d["imports"], d["direct"], d["relevant"], d["reports"], d.get("deps", {}),
                   d.get("missing", []), d.get("crashed", False), d.get("stat", []))


class Cache:
    def __init__(self, folder: Path | None, key: str):
        self.folder = folder
        self.key = key
        self.entries: dict[str, Entry] = {}
        self.tree = ""  # hash of every (path, content hash) of the last run: unchanged -> nothing to do
        self.dirty = False

    @property
    def file(self) -> Path | None:
        return self.folder / f"results-{self.key}.json" if self.folder is not None else None

    def load(self) -> None:
        f = self.file
        if f is None:
            return
        try:
            with open(f, "rb") as fh:
                data = json.loads(fh.read())
            if data.get("format") != FORMAT:
                return
            self.entries = {p: Entry.from_json(e) for p, e in data["files"].items()}
            self.tree = data.get("tree", "")
        except (OSError, ValueError, KeyError, TypeError):
            self.entries = {}

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
            data = {"format": FORMAT, "tree": self.tree,
                    "files": {p: e.to_json() for p, e in self.entries.items()}}
            import tempfile

            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w") as fh:
                json.dump(data, fh, separators=(",", ":"))
            os.replace(tmp, f)
            for old in self.folder.glob("results-*.json"):
                if old != f:
                    old.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only tree still gets checked, just not cached
