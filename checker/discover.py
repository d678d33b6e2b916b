"""Which files to check, what module each one is, and which of them can touch a tensor."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from .config import DEFAULT_EXCLUDES, Config


class UsageError(Exception):
    """A command-line problem (exit status 2)."""


def collect(paths: Iterable[str], config: Config) -> list[str]:
    """The ``.py`` files named or found under the directories named, sorted, without repeats."""
    found: dict[str, str] = {}
    root = os.path.abspath(config.root)
    check_excludes = bool(config.exclude)
    for raw in paths:
        if os.path.isfile(raw):
            found.setdefault(os.path.abspath(raw), os.path.normpath(raw))
        elif os.path.isdir(raw):
            for folder, dirs, files in os.walk(raw):
                dirs[:] = sorted(
                    d for d in dirs
                    if d not in DEFAULT_EXCLUDES and not d.endswith(".egg-info")
                    and not (check_excludes and config.is_excluded_rel(_rel(os.path.join(folder, d), root), True))
                )
                for name in files:
                    if name.endswith(".py"):
                        fp = os.path.join(folder, name)
                        if not (check_excludes and config.is_excluded_rel(_rel(fp, root), False)):
                            found.setdefault(os.path.abspath(fp), os.path.normpath(fp))
        else:
            raise UsageError(f"{raw}: no such file or directory")
    return sorted(found.values())


def _rel(path: str, root: str) -> str:
    full = os.path.abspath(path)
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


_IMPORT: Final = re.compile(
    rb"^[ \t]*(?:from[ \t]+(?P<from>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>[^#\n;]*)"
    rb"|import[ \t]+(?P<mods>[\w., \t]+))",
    re.MULTILINE,
)


def imported_modules(source: bytes, module: str, is_package: bool) -> set[str]:
    """Modules a file may import, found by a cheap scan of its text (an over-approximation is fine:
    it only decides which files are worth inferring)."""
    out: set[str] = set()
    for m in _IMPORT.finditer(source):
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
