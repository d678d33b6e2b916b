"""``typedtensor.serialization``: ``save``/``load`` and torch's allow-list of globals.

``tt.load`` never unpickles: a file holds tensors, numpy arrays, plain values and containers, and
whole ``nn.Module`` objects written as data (their class's import path and attributes). A module is
rebuilt only from a class the program allows, like torch's ``weights_only`` loader: typedtensor's
own, the classes given to ``safe_globals`` / ``add_safe_globals`` (which ``get_safe_globals``
returns), and with ``load(..., weights_only=False)`` any ``nn.Module`` class already imported
(NOTE [ Saving modules ] in ``_runtime/checkpoint_objects.py``).
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
