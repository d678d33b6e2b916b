"""``[tool.typedtensor]`` in ``pyproject.toml``: paths, exclude, disabled codes, per-file ignores.

    [tool.typedtensor]
    paths = ["src", "examples"]          # checked when the command line names none
    exclude = ["build/*", "*_pb2.py"]    # globs over paths relative to the config's directory
    disable = ["shape-broadcast"]        # codes never reported ("shape" disables every shape-* code)
    jobs = 2                             # worker processes (default: the CPU count)
    cache-dir = ".typedtensor_cache"     # "" disables the cache
    torch = true                         # read torch programs (NOTE [ Reading torch programs ])

    [tool.typedtensor.per-file-ignores]
    "tests/*" = ["shape-arg"]            # codes ignored in matching files ("*" = all)

Only the ``[tool.typedtensor]`` table is read: a ``pyproject.toml`` whose text never mentions
``typedtensor`` cannot hold it and is not parsed (``tomllib`` is loaded only for one that can).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from .suppress import code_matches

DEFAULT_EXCLUDES = (
    ".git", ".hg", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "node_modules", ".typedtensor_cache", "site-packages",
)


class ConfigError(Exception):
    """A config file that cannot be used (exit status 2)."""


class Config:
    """The options of ``[tool.typedtensor]`` (a plain class: see ``runner.Options``)."""

    def __init__(self, root: Path | None = None, source: Path | None = None, paths: list[str] | None = None,
                 exclude: list[str] | None = None, disable: frozenset[str] = frozenset(),
                 per_file_ignores: dict[str, frozenset[str]] | None = None, jobs: int | None = None,
                 cache_dir: str | None = ".typedtensor_cache", read_torch: bool = True):
        self.root = root if root is not None else Path.cwd()
        self.source = source
        self.paths = paths if paths is not None else []
        self.exclude = exclude if exclude is not None else []
        self.disable = disable
        self.per_file_ignores = per_file_ignores if per_file_ignores is not None else {}
        self.jobs = jobs
        self.cache_dir = cache_dir
        self.read_torch = read_torch  # NOTE [ Reading torch programs ] in names.py

    def __repr__(self) -> str:
        return f"Config(root={self.root!r}, source={self.source!r})"

    def is_excluded_rel(self, rel: str, is_dir: bool) -> bool:
        """Whether a path (relative to the config's folder, with '/') matches an exclude glob: the
        whole path, the path as a folder prefix, or any one component for a glob without '/'."""
        import fnmatch

        parts = rel.split("/")
        for pattern in self.exclude:
            pat = pattern.rstrip("/")
            if fnmatch.fnmatchcase(rel, pat) or fnmatch.fnmatchcase(rel, pat + "/*"):
                return True
            if "/" not in pat and any(fnmatch.fnmatchcase(p, pat) for p in parts):
                return True
        return False

    def ignored(self, path: str, code: str) -> bool:
        """Whether ``code`` is disabled globally or for ``path`` by a per-file ignore."""
        if code_matches(code, self.disable):
            return True
        if not self.per_file_ignores:
            return False
        import fnmatch

        rel = _relative(Path(path), self.root)
        for pattern, codes in self.per_file_ignores.items():
            matches = fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(os.path.basename(rel), pattern)
            if matches and ("*" in codes or code_matches(code, codes)):
                return True
        return False


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def find_pyproject(start: Path) -> Path | None:
    here = start.resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _strings(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"[tool.typedtensor] {key}: expected a string or a list of strings")


def load(path: Path | None = None, start: Path | None = None) -> Config:
    """The config from ``path``, or from the nearest ``pyproject.toml`` above ``start``."""
    if path is None:
        path = find_pyproject(start or Path.cwd())
        if path is None:
            return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    if "typedtensor" not in text:
        return Config(root=path.parent, source=path)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the same parser, published as tomli before it joined the standard library
        import tomli as tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    table = data.get("tool", {}).get("typedtensor", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.typedtensor] must be a table")
    table = {k.replace("_", "-"): v for k, v in table.items()}
    cfg = Config(root=path.parent, source=path)
    known = {"paths", "exclude", "disable", "per-file-ignores", "jobs", "cache-dir", "mypy", "checker", "torch"}
    unknown = set(table) - known
    if unknown:
        raise ConfigError(f"{path}: [tool.typedtensor] unknown option(s): {', '.join(sorted(unknown))}")
    cfg.paths = _strings(table.get("paths", []), "paths")
    cfg.exclude = _strings(table.get("exclude", []), "exclude")
    cfg.disable = frozenset(_strings(table.get("disable", []), "disable"))
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: [tool.typedtensor] per-file-ignores must be a table")
    cfg.per_file_ignores = {str(k): frozenset(_strings(v, f"per-file-ignores.{k}")) for k, v in pfi.items()}
    jobs = table.get("jobs")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ConfigError(f"{path}: [tool.typedtensor] jobs must be a positive integer")
    cfg.jobs = jobs
    cache_dir = table.get("cache-dir", ".typedtensor_cache")
    if not isinstance(cache_dir, str):
        raise ConfigError(f"{path}: [tool.typedtensor] cache-dir must be a string")
    cfg.cache_dir = cache_dir or None
    read_torch = table.get("torch", True)
    if not isinstance(read_torch, bool):
        raise ConfigError(f"{path}: [tool.typedtensor] torch must be true or false")
    cfg.read_torch = read_torch
    return cfg
