"""``typedtensor.serialization``: ``save``/``load`` and torch's allow-list of globals.

``tt.load`` never unpickles (NOTE [ Save format ] in ``_runtime/serialization.py``): a file holds
tensors, numbers, strings and containers only, so there is no class to allow. ``safe_globals`` /
``add_safe_globals`` keep torch's API (programs wrap their ``load`` in them) and record what they are
given, which ``get_safe_globals`` returns; loading is the same with or without them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from typedtensor._runtime.checkpoint import load as load
from typedtensor._runtime.checkpoint import save as save

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]

_SAFE: list[Any] = []


def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    _SAFE.extend(safe_globals)


def get_safe_globals() -> list[Any]:
    return list(_SAFE)


def clear_safe_globals() -> None:
    _SAFE.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: Iterable[Any]) -> Iterator[None]:
    """Allow ``safe_globals`` for the loads in the block (torch's context manager)."""
    before = len(_SAFE)
    _SAFE.extend(safe_globals)
    try:
        yield
    finally:
        del _SAFE[before:]
