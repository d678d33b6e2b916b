"""Which files to check, what module each one is, and which of them can touch a tensor."""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import re
    from pathlib import Path

from .config import DEFAULT_EXCLUDES, Config


class UsageError(Exception):
    """A command-line problem (exit status 2)."""


#: A ``.py`` file larger than this is skipped with a note (no source file is; a generated data file
#: can be, and reading it whole would cost its size in memory).
MAX_FILE_BYTES = 64 * 1024 * 1024


class Skipped(NamedTuple):
    """A path left out of the run, and why (printed as a note)."""

    path: str  # printable: undecodable bytes and control characters escaped
    reason: str


def printable(path: str) -> str:
    """``path`` with what a terminal or a ``path:line:col`` report cannot carry escaped."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in text)


def odd_name(path: str) -> str | None:
    """Why a path cannot be reported as it is (None: it can): bytes that are not UTF-8, or a
    control character such as a newline, which would break the ``path:line:col`` output."""
    if path.isprintable():  # the usual case, at C speed
        return None
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8"
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        return "its name holds a control character"
    return None


def read_source(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes: raises ``OSError`` for anything else (a FIFO or a device such as a
    link to /dev/zero is never read, even one swapped in after the walk) or above ``limit``."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path}: not a regular file")
        if st.st_size > limit:
            raise OSError(f"{path}: larger than {limit // 2**20} MiB")
        chunks: list[bytes] = []
        total = 0
        while total <= limit:  # to the end, even if it grew since the stat
            part = os.read(fd, min(limit + 1 - total, 1 << 24))
            if not part:
                break
            chunks.append(part)
            total += len(part)
        if total > limit:
            raise OSError(f"{path}: larger than {limit // 2**20} MiB")
        return b"".join(chunks)
    finally:
        os.close(fd)


class Found(NamedTuple):
    """A file to check, with the ``stat`` the walk took of it (one stat per file per run)."""

    path: str  # as the user would write it (normalized, relative when the argument was)
    key: str  # absolute: the cache's key
    size: int
    mtime_ns: int


def scan(paths: Iterable[str], config: Config, skipped: list[Skipped] | None = None) -> list[Found]:
    """The ``.py`` files named or found under the directories named, sorted by path, without repeats,
    each with its absolute path, size and mtime. Files that are not regular (a FIFO, a link to a device), too large, or oddly named are left out and listed in
    ``skipped``."""
    found: dict[str, Found] = {}
    root = os.path.abspath(config.root)
    check_excludes = bool(config.exclude)
    notes: list[Skipped] = skipped if skipped is not None else []
    for raw in paths:
        try:
            st = os.stat(raw)
        except OSError:
            raise UsageError(f"{printable(raw)}: no such file or directory") from None
        if stat.S_ISDIR(st.st_mode):
            _walk(os.path.normpath(raw), os.path.abspath(raw), root, config if check_excludes else None, found,
                  notes)
        else:
            full = os.path.abspath(raw)
            if full not in found and _admissible(raw, full, st, notes):
                found[full] = Found(os.path.normpath(raw), full, st.st_size, st.st_mtime_ns)
    return sorted(found.values())


def _admissible(path: str, full: str, st: os.stat_result, notes: list[Skipped]) -> bool:
    """Whether a file the walk found can be checked; if not, the note saying why."""
    why = odd_name(full)
    if why is None and not stat.S_ISREG(st.st_mode):
        why = "not a regular file"
    if why is None and st.st_size > MAX_FILE_BYTES:
        why = f"larger than {MAX_FILE_BYTES // 2**20} MiB"
    if why is not None:
        notes.append(Skipped(printable(path), why))
        return False
    return True


def _walk(folder: str, full: str, root: str, config: Config | None, found: dict[str, Found],
          notes: list[Skipped]) -> None:
    """``os.walk`` without following links to folders, with its stats kept: ``DirEntry`` knows a
    name's type without a system call, so each ``.py`` costs one ``stat`` and nothing else."""
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return  # as os.walk: an unreadable folder is skipped
    sep = os.sep
    # Both forms are already normal: appending a plain name keeps them so (no normpath per file).
    full_prefix = full if full.endswith(sep) else full + sep
    prefix = "" if folder == os.curdir else folder if folder.endswith(sep) else folder + sep
    subdirs: list[tuple[str, os.DirEntry[str]]] = []
    for e in entries:
        name = e.name
        if name.endswith(".py"):
            try:
                if e.is_dir():
                    subdirs.append((name, e))
                    continue
                st = e.stat()
            except OSError:
                continue  # a dangling link
            fp_full = full_prefix + name
            if fp_full in found or (config is not None and config.is_excluded_rel(_rel(fp_full, root), False)):
                continue
            if _admissible(prefix + name, fp_full, st, notes):
                found[fp_full] = Found(prefix + name, fp_full, st.st_size, st.st_mtime_ns)
            continue
        try:
            if e.is_dir():
                subdirs.append((name, e))
        except OSError:
            pass
    subdirs.sort(key=lambda d: d[0])
    for name, e in subdirs:
        if name in DEFAULT_EXCLUDES or name.endswith(".egg-info"):
            continue
        sub_full = full_prefix + name
        if config is not None and config.is_excluded_rel(_rel(sub_full, root), True):
            continue
        if e.is_symlink():
            continue
        _walk(prefix + name, sub_full, root, config, found, notes)


def _rel(full: str, root: str) -> str:
    """An absolute path relative to ``root``, with '/' (the exclude globs' form)."""
    if full.startswith(root + os.sep):
        return full[len(root) + 1:].replace(os.sep, "/")
    return full.replace(os.sep, "/")


_PACKAGE_DIRS: dict[str, bool] = {}


def _is_package_dir(folder: str) -> bool:
    known = _PACKAGE_DIRS.get(folder)
    if known is None:
        known = _PACKAGE_DIRS[folder] = os.path.isfile(os.path.join(folder, "__init__.py"))
    return known


def module_name(path: Path | str) -> str:
    """The dotted module name of a file: its package folders (with ``__init__.py``) joined."""
    full = os.path.abspath(path)
    folder, base = os.path.split(full)
    parts = [base[:-3] if base.endswith(".py") else base] if base != "__init__.py" else []
    while _is_package_dir(folder):
        parent, name = os.path.split(folder)
        if parent == folder:
            break
        parts.append(name)
        folder = parent
    if not parts:
        parts = [os.path.basename(folder)]
    return ".".join(reversed(parts))


_IMPORT_PATTERN = (
    rb"^[ \t]*(?:from[ \t]+(?P<from>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>[^#\n;]*)"
    rb"|import[ \t]+(?P<mods>[\w., \t]+))"
)


@functools.cache
def _import_re() -> re.Pattern[bytes]:
    """Compiled on first use: a warm run never scans a file's imports."""
    import re

    return re.compile(_IMPORT_PATTERN, re.MULTILINE)


def imported_modules(source: bytes, module: str, is_package: bool) -> set[str]:
    """Modules a file may import, found by a cheap scan of its text (an over-approximation is fine:
    it only decides which files are worth inferring)."""
    out: set[str] = set()
    for m in _import_re().finditer(source):
        if m.group("mods") is not None:
            for item in m.group("mods").decode("utf-8", "replace").split(","):
                name = item.strip().split(" ")[0]
                if name:
                    out.add(name)
            continue
        base = m.group("from").decode("utf-8", "replace")
        names = [n.strip().split(" ")[0].strip("()") for n in
                 m.group("names").decode("utf-8", "replace").split(",")]
        resolved = resolve_relative(base, module, is_package)
        if resolved is None:
            continue
        if resolved:
            out.add(resolved)
        out.update(f"{resolved}.{n}" if resolved else n for n in names if n and n != "*")
    return out


def resolve_relative(base: str, module: str, is_package: bool) -> str | None:
    """``from ..x import`` inside ``module`` → the absolute name; None when it climbs too far."""
    level = len(base) - len(base.lstrip("."))
    if level == 0:
        return base
    package = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(package):
        return None
    package = package[: len(package) - (level - 1)]
    rest = base[level:]
    return ".".join([*package, rest] if rest else package)
