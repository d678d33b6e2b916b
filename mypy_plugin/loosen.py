"""Signatures with every tensor's shape unknown (NOTE [ Loosened signatures ] in calls.py).

Its own module so that both the op hooks (`ops.py`) and the unifying call hooks (`calls.py`)
import it at module level: a function-level import runs at every call site.
"""

from __future__ import annotations

from mypy.types import CallableType, Instance, TupleType, Type, UnionType, get_proper_type

from .translate import MakeInstance, Translator, tensor_instance


def loosen(t: Type, make: MakeInstance) -> Type:
    """`t` with every tensor's shape unknown (NOTE [ Loosened signatures ])."""
    p = get_proper_type(t)
    if tensor_instance(p) is not None:
        return Translator(make).unknown_tensor()
    if isinstance(p, UnionType):
        return UnionType([loosen(i, make) for i in p.items], p.line, p.column)
    if isinstance(p, TupleType):
        return p.copy_modified(items=[loosen(i, make) for i in p.items])
    if isinstance(p, Instance) and p.args:
        return p.copy_modified(args=[loosen(a, make) for a in p.args])
    return t


_LOOSE: dict[Type, Type] = {}


def loosened(t: Type, make: MakeInstance) -> Type:
    """`loosen(t)`, remembered per type: the same parameter types (`Tensor[*Shape]`, `int`,
    `dtype | None`) recur across the stubs' signatures at every call site, and equal types loosen
    alike."""
    try:
        known = _LOOSE.get(t)
    except TypeError:  # a type mypy does not hash
        return loosen(t, make)
    if known is None:
        known = loosen(t, make)
        if len(_LOOSE) >= 8192:
            _LOOSE.clear()
        _LOOSE[t] = known
    return known


def loosen_signature(sig: CallableType, make: MakeInstance, ret_type: Type | None = None) -> CallableType:
    """`sig` with every tensor's shape unknown, and `ret_type` as its result when given (one copy
    of the signature, not two)."""
    return sig.copy_modified(
        arg_types=[loosened(t, make) for t in sig.arg_types],
        ret_type=loosened(sig.ret_type, make) if ret_type is None else ret_type,
    )
