"""``repr`` of tensors in PyTorch's format (4 significant decimals, scientific when needed)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_DEFAULT_DTYPES = {"float32", "int64", "bool"}
_THRESHOLD = 1000
_EDGE = 3


def _float_formatter(values: np.ndarray) -> Any:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return lambda v: _special(v) or f"{v:.4f}"
    absv = np.abs(finite)
    nz = absv[absv > 0]
    ints = bool(np.all(finite == np.round(finite)))
    if nz.size:
        mx, mn = float(nz.max()), float(nz.min())
    else:
        mx = mn = 0.0
    sci = nz.size > 0 and (mx / mn > 1000.0 or mx > 1e8 or mn < 1e-4)
    if ints and not sci:
        return lambda v: _special(v) or f"{v:.0f}."
    if sci:
        return lambda v: _special(v) or f"{v:.4e}"
    return lambda v: _special(v) or f"{v:.4f}"


def _special(v: float) -> str | None:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _summarize(a: np.ndarray) -> bool:
    return a.size > _THRESHOLD


def _format(a: np.ndarray, fmt: Any, indent: int, summarize: bool) -> str:
    if a.ndim == 0:
        return str(fmt(a.item()))
    if a.ndim == 1:
        items = [fmt(v) for v in a.tolist()]
        if summarize and len(items) > 2 * _EDGE:
            items = [*items[:_EDGE], "...", *items[-_EDGE:]]
        return "[" + ", ".join(items) + "]"
    rows = list(range(a.shape[0]))
    if summarize and len(rows) > 2 * _EDGE:
        rows = [*rows[:_EDGE], -1, *rows[-_EDGE:]]
    parts = [("..." if i == -1 else _format(a[i], fmt, indent + 1, summarize)) for i in rows]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def tensor_repr(t: Any) -> str:
    dtype = t.dtype.name
    host = t.detach().cpu() if t.is_cuda else t.detach()
    a = host.float().numpy() if dtype == "bfloat16" else host.numpy()
    if a.size == 0:
        body = "[]"
        suffix = [f"size={tuple(t.shape)}"] if t.ndim > 1 else []
    else:
        summarize = _summarize(a)
        if a.dtype.kind == "f":
            fmt = _float_formatter(a.astype(np.float64).ravel())
            pad = max(len(fmt(v)) for v in a.astype(np.float64).ravel()[:10000])
            base = fmt
            fmt = lambda v, b=base, p=pad: b(v).rjust(p)
        elif a.dtype.kind == "b":
            fmt = lambda v: "True" if v else "False"
            pad = 5 if a.any() and not a.all() else 0
            base = fmt
            fmt = lambda v, b=base, p=pad: b(v).rjust(p)
        else:
            pad = max(len(str(int(v))) for v in a.ravel()[:10000])
            fmt = lambda v, p=pad: str(int(v)).rjust(p)
        body = _format(a, fmt, len("tensor("), summarize)
        suffix = []
    if t.is_cuda:
        suffix.append(f"device='{t.device}'")
    if dtype not in _DEFAULT_DTYPES:
        suffix.append(f"dtype=typedtensor.{dtype}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn={t.grad_fn!r}")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
