"""Splitting, stacking and windowing ops written with the backend's primitives (their entries and
shape rules: ``shapes/rules/arrangement.py``): views (``narrow``, ``reshape``) where torch gives
views, ``cat`` where it copies, so gradients and every device come for free."""

from __future__ import annotations

from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()


def _split_points(n: int, spec: Any) -> list[tuple[int, int]]:
    """(start, length) of each piece of a dim of size ``n``: ``spec`` sections or split indices."""
    if isinstance(spec, _C.Tensor):
        if spec.dtype not in (_C.int64, _C.int32, _C.uint8):
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have integer dtype, but got "
                               f"{spec.dtype}")
        spec = spec.item() if spec.ndim == 0 else [int(v) for v in spec.tolist()]
    if isinstance(spec, (tuple, list)):
        # piece i is the Python slice [b(i-1):b(i)] of the dim (b(-1) = 0, the last runs to the end)
        def at(b: int) -> int:
            return min(b, n) if b >= 0 else max(n + b, 0)

        bounds = [0, *(at(int(i)) for i in spec), n]
        return [(bounds[i], max(0, bounds[i + 1] - bounds[i])) for i in range(len(bounds) - 1)]
    k = int(spec)
    q, r = divmod(n, k)
    out, start = [], 0
    for i in range(k):
        size = q + (1 if i < r else 0)
        out.append((start, size))
        start += size
    return out


def tensor_split(input: Any, indices_or_sections: Any, /, dim: int = 0) -> tuple[Any, ...]:
    """Views of ``input`` split into near-equal sections or at the given indices along ``dim``."""
    spec = indices_or_sections
    check("tensor_split", input=input, indices_or_sections=spec, dim=dim)
    d = dim % input.ndim
    return tuple(input.narrow(d, s, size) for s, size in _split_points(input.shape[d], spec))


def _directional(name: str, input: Any, spec: Any, axis: int) -> tuple[Any, ...]:
    check(name, input=input, indices_or_sections=spec)
    d = 0 if name == "hsplit" and input.ndim == 1 else axis
    return tuple(input.narrow(d, s, size) for s, size in _split_points(input.shape[d], spec))


def hsplit(input: Any, indices_or_sections: Any, /) -> tuple[Any, ...]:
    """``tensor_split`` along dim 1 (dim 0 for a 1-d input); an int must divide that dim."""
    return _directional("hsplit", input, indices_or_sections, 1)


def vsplit(input: Any, indices_or_sections: Any, /) -> tuple[Any, ...]:
    """``tensor_split`` along dim 0 of an at least 2-d input; an int must divide that dim."""
    return _directional("vsplit", input, indices_or_sections, 0)


def dsplit(input: Any, indices_or_sections: Any, /) -> tuple[Any, ...]:
    """``tensor_split`` along dim 2 of an at least 3-d input; an int must divide that dim."""
    return _directional("dsplit", input, indices_or_sections, 2)


def _at_least(t: Any, rank: int) -> Any:
    if t.ndim >= rank:
        return t
    if rank == 1:
        return t.reshape(1)
    if rank == 2:
        return t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1)
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    return t.reshape(1, -1, 1) if t.ndim == 1 else t.unsqueeze(-1)


def _atleast(rank: int, tensors: tuple[Any, ...]) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], _C.Tensor):
        return _at_least(tensors[0], rank)
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)) else tensors
    return tuple(_at_least(t, rank) for t in items)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor as at least 1-d (0-d -> ``[1]``): one tensor, or a tuple for several."""
    return _atleast(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor as at least 2-d (``[n]`` -> ``[1, n]``): one tensor, or a tuple for several."""
    return _atleast(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor as at least 3-d (``[n]`` -> ``[1, n, 1]``, ``[m, n]`` -> ``[m, n, 1]``)."""
    return _atleast(3, tensors)


def column_stack(tensors: Any) -> Any:
    """0-d and 1-d tensors as columns, then ``hstack``."""
    check("column_stack", tensors=list(tensors))
    return _C.hstack([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors])


def row_stack(tensors: Any) -> Any:
    """torch's alias of ``vstack``: each tensor made at least 2-d (0-d as ``[1, 1]``), then ``cat``
    along dim 0."""
    check("row_stack", tensors=list(tensors))
    return _C.cat([_at_least(t, 2) for t in tensors], 0)


def dstack(tensors: Any) -> Any:
    """Each tensor made at least 3-d, then ``cat`` along dim 2."""
    check("dstack", tensors=list(tensors))
    return _C.cat([_at_least(t, 3) for t in tensors], 2)


def block_diag(*tensors: Any) -> Any:
    """The tensors (0-d as ``[1, 1]``, 1-d as ``[1, n]``) along the diagonal of one matrix, zeros
    elsewhere, in their promoted dtype."""
    check("block_diag", tensors=list(tensors))
    if not tensors:
        return _C.zeros([1, 0])
    mats = [t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t for t in tensors]
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = _C.promote_types(dtype, m.dtype)
    device = mats[0].device
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = [_C.zeros([r, left], dtype=dtype, device=device), m.to(dtype),
                 _C.zeros([r, width - left - c], dtype=dtype, device=device)]
        rows.append(_C.cat(parts, 1))
        left += c
    return _C.cat(rows, 0)


def diagflat(input: Any, offset: int = 0) -> Any:
    """The flattened input on diagonal ``offset`` of a square matrix."""
    check("diagflat", input=input, offset=offset)
    from typedtensor._runtime.surface_ops import diag

    return diag(input.reshape(-1), offset)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Any:
    """``base ** linspace(start, end, steps)`` as torch computes it: in double, then rounded to the
    dtype; for an integer dtype the ends are made integers first and the powers truncated."""
    check("logspace", start=start, end=end, steps=steps, base=base)
    vals = [float(v.item()) if isinstance(v, _C.Tensor) else float(v) for v in (start, end)]
    target = _C.float32 if dtype is None else dtype
    floating = target in (_C.float32, _C.float64, _C.float16, _C.bfloat16)
    if not floating:
        vals = [float(int(v)) for v in vals]  # torch reads the ends as the integer type first
    expo = np.linspace(vals[0], vals[1], steps) if steps != 1 else np.array([vals[0]])
    out = np.power(float(base), expo)
    if floating:
        t = _C.from_numpy(out).to(target)
    else:
        t = _C.from_numpy(np.trunc(out).astype(np.int64)).to(target)
    if device is not None:
        t = t.to(device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def unfold_windows(input: Any, dimension: int, size: int, step: int) -> Any:
    """``Tensor.unfold``: the windows ``input[..., i * step : i * step + size, ...]`` along ``dimension``,
    stacked on that dim with the window as a new last dim. NOTE [ unfold is a copy ]: the backend's
    strided-view primitive (``as_strided``) has no Python binding and overlapping windows cannot be
    written with the views it does bind, so the windows are gathered (``index_select``): the result
    does not share the input's storage. Its gradient is ``index_add``'s, which sums what overlapping
    windows read."""
    check("unfold_windows", input=input, dimension=dimension, size=size, step=step)
    size, step = int(size), int(step)
    if input.ndim == 0:
        return input.reshape(1).narrow(0, 0, size)
    d = int(dimension) % input.ndim
    count = (int(input.shape[d]) - size) // step + 1
    starts = _C.arange(count, dtype=_C.int64, device=input.device) * step
    index = (starts.unsqueeze(1) + _C.arange(size, dtype=_C.int64, device=input.device).unsqueeze(0)).reshape(-1)
    return input.index_select(d, index).unflatten(d, (count, size)).movedim(d + 1, -1)
