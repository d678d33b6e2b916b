"""Flatten nested call arguments and results into tensor leaves plus a hashable structure.

The structure is part of a compiled function's guard: calling with another nesting, another
non-tensor argument or another keyword set re-traces instead of reusing a graph built for
different Python values (control flow on those values was resolved at trace time)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_TENSOR = "T"


def _static_key(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return ("id", type(value).__qualname__, id(value))
    return ("v", type(value).__qualname__, value)


def flatten(obj: Any, is_tensor: Any, leaves: list[Any]) -> Any:
    """Appends obj's tensors to ``leaves``; returns its structure (tensors become a marker)."""
    if is_tensor(obj):
        leaves.append(obj)
        return _TENSOR
    if isinstance(obj, tuple | list):
        return (type(obj).__name__, tuple(flatten(x, is_tensor, leaves) for x in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((k, flatten(v, is_tensor, leaves)) for k, v in sorted(obj.items(), key=lambda kv: repr(kv[0]))))
    return ("leaf", _static_key(obj), obj)


def unflatten(structure: Any, leaves: list[Any]) -> Any:
    """Rebuilds an object from ``flatten``'s structure, taking tensors from ``leaves`` in order."""
    return _build(structure, iter(leaves))


def _build(s: Any, it: Iterator[Any]) -> Any:
    # A module-level function, not a closure that calls itself: such a closure is a reference
    # cycle (the function's cell holds the function), and the iterator it holds kept every
    # compiled call's outputs alive until Python's cyclic collector ran.
    if s == _TENSOR:
        return next(it)
    kind = s[0]
    if kind == "tuple":
        return tuple(_build(x, it) for x in s[1])
    if kind == "list":
        return [_build(x, it) for x in s[1]]
    if kind == "dict":
        return {k: _build(v, it) for k, v in s[1]}
    return s[2]


def guard_key(structure: Any) -> Any:
    """The hashable part of a structure (leaf values by value, or by identity if unhashable)."""
    if structure == _TENSOR:
        return _TENSOR
    kind = structure[0]
    if kind in ("tuple", "list"):
        return (kind, tuple(guard_key(x) for x in structure[1]))
    if kind == "dict":
        return (kind, tuple((k, guard_key(v)) for k, v in structure[1]))
    return (kind, structure[1])
