"""Every op's parameter names, in every form (``typedtensor.X``, ``Tensor.X``, ``Tensor.X_``,
``nn.functional.X``), are torch's, so a program that calls with torch's keyword arguments runs as
written. The oracle is torch itself: ``inspect.signature`` where torch's function is written in
Python, else the ``torch.ops.aten`` schemas of the op (every overload; ``self`` is ``input``) plus
the keywords torch's Python binding adds to them. ``EXCEPTIONS`` lists, with the reason, each name
that differs on purpose."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from typedtensor.shapes.registry import REGISTRY, get_op  # noqa: E402

# keywords torch's Python binding accepts beyond an aten schema's arguments
BINDING_EXTRAS = frozenset({"out", "dtype", "layout", "device", "pin_memory", "requires_grad", "memory_format",
                            "generator", "names", "size"})

# (op, form, name): why typedtensor's parameter differs from torch's
EXCEPTIONS: dict[tuple[str, str, str], str] = {
    **{(op, form, "from_"): "torch's `from` is a Python keyword; its own stubs spell it `from_`"
       for op in ("random", "uniform") for form in ("method", "inplace")},
    ("cuda", "method", "device"): "Tensor.cuda(device=None, non_blocking=False, memory_format=...) is torch's "
    "binding; the aten schema has no cuda op",
    ("cuda", "method", "non_blocking"): "as device",
    ("cuda", "method", "memory_format"): "as device",
    ("cuda", "function", "input"): "a registry entry for Tensor.cuda; torch has no torch.cuda(tensor)",
    ("index", "function", "key"): "Tensor.__getitem__(key): torch's index op takes the parsed indices",
    ("index", "method", "key"): "as above",
    ("einsum", "function", "equation"): "torch.einsum(*args): (equation, *operands) is its documented form",
    ("einsum", "function", "operands"): "as above",
    ("embedding", "function", "input"): "tt.embedding is F.embedding(input, weight, ...); torch.embedding is "
    "the aten op embedding(weight, indices) that F.embedding calls",
    ("max_pool2d", "function", "return_indices"): "tt.max_pool2d is F.max_pool2d's; torch.max_pool2d (aten) "
    "has no return_indices",
    ("view", "method", "shape"): "view(*shape), torch's documented spelling; torch's binding also takes the "
    "sizes as size=, typedtensor's (a variadic) takes no keyword",
    ("nonzero", "function", "as_tuple"): "torch's binding adds as_tuple to the aten op",
    ("nonzero", "method", "as_tuple"): "as above",
    **{(op, form, "indices_or_sections"): "torch names this argument sections=, indices= or "
       "tensor_indices_or_sections= by its type (three aten overloads); typedtensor takes it positionally only, "
       "the documented form" for op in ("tensor_split", "hsplit", "vsplit", "dsplit") for form in ("function", "method")},
}

FORM_OF = {"function": "function", "method": "method", "inplace": "inplace", "functional": "functional"}


def _signature_names(fn: Any) -> set[str] | None:
    """A Python function's parameter names; None for a builtin or a ``(*args, **kwargs)`` wrapper
    (torch's boolean dispatch: ``F.max_pool2d``, ``torch.unique``)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    kinds = {p.kind for p in sig.parameters.values()}
    if kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
        return None
    return {p.name for p in sig.parameters.values()}


def _dispatched(op: str) -> set[str] | None:
    """The names behind a boolean-dispatch wrapper: its two implementations, or the method's."""
    for owner, name in ((torch.nn.functional, f"{op}_with_indices"), (torch.nn.functional, f"_{op}"),
                        (torch.Tensor, op)):
        fn = getattr(owner, name, None)
        names = _signature_names(fn) if fn is not None else None
        if names is not None:
            return (names - {"self"}) | {"input"}
    return None


def _schema_names(name: str, method: bool) -> set[str] | None:
    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return None
    names: set[str] = set()
    for overload in packet.overloads():
        for a in getattr(packet, overload)._schema.arguments:
            if a.name == "self":
                if not method:
                    names.add("input")
                continue
            names.add(a.name)
    return names | BINDING_EXTRAS


def torch_names(op: str, form: str) -> set[str] | None:
    """The parameter names torch accepts for this form of ``op``; None when torch has no such form."""
    if form == "functional":
        fn = getattr(torch.nn.functional, op, None)
        return None if fn is None else (_signature_names(fn) or _dispatched(op) or _schema_names(op, False))
    if form == "function":
        fn = getattr(torch, op, None)
        if fn is None:
            return _schema_names(op, False)
        return _signature_names(fn) or _dispatched(op) or _schema_names(op, False)
    name = f"{op}_" if form == "inplace" else op
    fn = getattr(torch.Tensor, name, None)
    if fn is None:
        return None
    by_sig = _signature_names(fn)
    if by_sig is not None:
        return by_sig - {"self"}
    return _schema_names(name, True)


def cases() -> list[tuple[str, str]]:
    out = []
    for name in sorted(REGISTRY):
        op = get_op(name)
        if "internal" in op.tags:
            continue
        for form in sorted(op.expose):
            if form in FORM_OF:
                out.append((name, form))
    return out


@pytest.mark.parametrize(("op", "form"), cases(), ids=[f"{o}-{f}" for o, f in cases()])
def test_parameter_names_are_torchs(op: str, form: str) -> None:
    theirs = torch_names(get_op(op).public_name(form), form)  # type: ignore[arg-type]
    if theirs is None:
        pytest.skip(f"torch has no {form} form of {op}")
    ours = [p.name for p in get_op(op).form_params(form)]  # type: ignore[arg-type]
    wrong = [n for n in ours if n not in theirs and (op, form, n) not in EXCEPTIONS]
    assert not wrong, f"{op} ({form}): {wrong} are not torch's names; torch has {sorted(theirs)}"


def test_exceptions_are_still_needed() -> None:
    for (op, form, name), why in EXCEPTIONS.items():
        assert why
        params = [p.name for p in get_op(op).form_params(form)]  # type: ignore[arg-type]
        assert name in params, f"EXCEPTIONS names {op} ({form}) {name!r}, which it no longer has"
