"""``typedtensor.backends.mps``: there is no Metal backend."""

from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


__all__ = ["is_available", "is_built"]
