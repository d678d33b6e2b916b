"""A stand-in for matplotlib (not installed here): time_sequence_prediction draws its predictions,
which the tests do not keep, so every drawing call is accepted and does nothing."""

from __future__ import annotations


def use(backend: str, *, force: bool = True) -> None:
    """Selecting a backend has nothing to select."""
