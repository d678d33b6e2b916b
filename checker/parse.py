"""Parsing a file with libcst, without libcst's per-node validation.

NOTE [ Parsing without node validation ]
Every libcst node validates itself on construction (``CSTNode.__post_init__`` calls
``_validate``: regular expressions over each whitespace node, parenthesis checks...). That guards
trees built by hand; a tree the parser builds from source that CPython's grammar accepted is valid
by construction, and on the standard library the validation was most of the parse time. So the
parse runs with ``__post_init__`` switched off, under a lock, and restores it afterwards: other
libcst users in the same process (and nodes the checker itself builds) still validate.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import libcst as cst
from libcst._nodes.base import CSTNode

_LOCK = threading.Lock()


def _no_validation(self: CSTNode) -> None:
    return None


@contextmanager
def _validation_off() -> Iterator[None]:
    with _LOCK:
        original = CSTNode.__dict__["__post_init__"]
        CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
        try:
            yield
        finally:
            CSTNode.__post_init__ = original  # type: ignore[method-assign]


def parse_module(source: str | bytes) -> cst.Module:
    """``libcst.parse_module`` without node validation (NOTE [ Parsing without node validation ])."""
    with _validation_off():
        return cst.parse_module(source)


__all__ = ["parse_module"]
