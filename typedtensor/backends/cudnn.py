"""``typedtensor.backends.cudnn``: typedtensor does not use cuDNN (``is_available()`` is False), but
programs set its flags (``cudnn.benchmark = True``, ``cudnn.deterministic = True``), so they exist,
keep what is assigned to them and change nothing: there is no cuDNN algorithm to pick or pin.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> int | None:
    return None


@contextlib.contextmanager
def flags(
    enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
    allow_tf32: bool = True,
) -> Iterator[None]:
    """Set the flags for the block and restore them after (torch's context manager)."""
    g = globals()
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    saved = {n: g[n] for n in names}
    g.update(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32), strict=True))
    try:
        yield
    finally:
        g.update(saved)


__all__ = ["allow_tf32", "benchmark", "benchmark_limit", "deterministic", "enabled", "flags", "is_available", "version"]
