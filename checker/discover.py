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


def collect(paths: Iterable[str], config: Config) -> list[Path]:
    """The ``.py`` files named or found under the directories named, sorted, without repeats."""
    found: dict[str, Path] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            found.setdefault(os.path.abspath(p), p)
        elif p.is_dir():
            for folder, dirs, files in os.walk(p):
                here = Path(folder)
                dirs[:] = sorted(
                    d for d in dirs
                    if d not in DEFAULT_EXCLUDES and not config.is_excluded(here / d / "x.py")
                )
                for name in sorted(files):
                    if name.endswith(".py"):
                        fp = here / name
                        if not config.is_excluded(fp):
                            found.setdefault(os.path.abspath(fp), fp)
        else:
            raise UsageError(f"{raw}: no such file or directory")
    return sorted(found.values(), key=lambda q: q.as_posix())


def module_name(path: Path) -> str:
    """The dotted module name of a file: its package folders (with ``__init__.py``) joined."""
    path = Path(os.path.abspath(path))
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.append(folder.name)
        folder = folder.parent
    if not parts:
        parts = [path.parent.name]
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
