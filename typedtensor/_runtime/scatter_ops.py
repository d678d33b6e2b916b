"""Scatter-style ops written with the backend's primitives (their entries and shape rules:
``shapes/rules/scatter_more.py``): ``scatter_reduce``, ``index_reduce``, ``index_put`` and
``select_scatter`` / ``slice_scatter`` / ``diagonal_scatter``.

NOTE [ Scatter by placement ]
The index tensors carry no gradient, so where each value goes is worked out on the host with numpy
(flat positions in the input). The values then move with differentiable primitives only:
``index_select`` out of ``cat([input, values])`` places them (the result takes each element from
the input or from the value that lands there), ``index_add`` sums them, and a reduction over rows
of a table gathers the values that meet in one place. Autograd therefore gives torch's gradients:
a replaced element of the input gets none, each value gets the gradient of the place it went to.

NOTE [ Reduction tables ]
``prod`` / ``amax`` / ``amin`` reduce each group of values that land in one place as a row: the
input's element (when ``include_self``) and the group's values, padded with the reduction's
identity. Groups are binned by their size rounded up to a power of two, so the tables hold at most
about twice the values whatever the spread of the group sizes. ``amax`` / ``amin`` use the
backend's reductions, which split the gradient evenly among ties, as torch's scatter_reduce does;
``prod`` multiplies the halves of a row together until one column is left, so every factor's
gradient is the exact product of the others (zeros included), as torch's. torch counts the input's
element among the ties also when ``include_self=False`` (its backward compares the input with the
result), so there a detached copy of it joins the row when it equals the group's extreme value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def _torch_name(dtype: Any) -> str:
    """A dtype as torch's messages spell it (``Float``, ``Long``)."""
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    text = str(dtype).rsplit(".", 1)[-1]
    return names.get(text, text)


def _host_index(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy()).astype(np.int64, copy=False)


def _on(arr: np.ndarray, like: Any) -> Any:
    """An int64 numpy array as a tensor on ``like``'s device."""
    out = _C.from_numpy(np.ascontiguousarray(arr, dtype=np.int64).reshape(arr.shape))
    return out if like.device.type == "cpu" else out.to(like.device)


def _untouched(input: Any, values: Any) -> Any:
    """``input`` unchanged by ``values`` that land nowhere, which still get their (zero) gradient."""
    nowhere = _C.zeros(list(input.shape), dtype=_C.bool, device=input.device)
    return _C.where(nowhere, values.reshape(-1).sum().to(input.dtype), input)


def _place(input: Any, positions: np.ndarray, values: Any) -> Any:
    """``input`` with ``values`` (shaped as ``positions``) at those flat positions; where a position
    repeats, the last value wins (NOTE [ Scatter by placement ])."""
    n = input.numel()
    flat = positions.reshape(-1)
    if flat.size == 0:
        return _untouched(input, values)
    mapping = np.arange(n, dtype=np.int64)
    last = flat.size - 1 - np.unique(flat[::-1], return_index=True)[1]
    mapping[flat[last]] = n + last
    pool = _C.cat([input.reshape(-1), values.reshape(-1).to(input.dtype)])
    return pool.index_select(0, _on(mapping, input)).reshape(tuple(input.shape))


def _identity(reduce: str, dtype: Any) -> Any:
    if reduce == "prod":
        return 1
    probe = _C.zeros([], dtype=dtype)
    if dtype == _C.bool:
        return reduce == "amin"
    if probe.is_floating_point():
        return float("-inf") if reduce == "amax" else float("inf")
    info = np.iinfo(str(dtype).rsplit(".", 1)[-1])
    return int(info.min) if reduce == "amax" else int(info.max)


def _tree_prod(rows: Any) -> Any:
    """Each row's product by multiplying halves (the width is a power of two): exact gradients."""
    while rows.shape[1] > 1:
        half = rows.shape[1] // 2
        rows = rows.narrow(1, 0, half) * rows.narrow(1, half, half)
    return rows.reshape(-1)


def _group_reduce(values: Any, group: np.ndarray, groups: int, selves: Any, reduce: str) -> Any:
    """One ``reduce`` per group of ``values`` (``group[i]`` the group of value ``i``), each group's
    row led by its element of ``selves`` (NOTE [ Reduction tables ])."""
    m = group.size
    counts = np.bincount(group, minlength=groups)
    order = np.argsort(group, kind="stable")
    starts = np.cumsum(counts) - counts
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m) - starts[group[order]]
    widths = 1 << np.ceil(np.log2(counts + 1)).astype(np.int64)
    pad = m + groups
    fill = _C.full([1], _identity(reduce, values.dtype), dtype=values.dtype, device=values.device)
    pool = _C.cat([values, selves, fill])
    pieces, where_in = [], np.empty(groups, dtype=np.int64)
    done = 0
    for width in np.unique(widths):
        members = np.flatnonzero(widths == width)
        local = np.full(groups, -1, dtype=np.int64)
        local[members] = np.arange(members.size)
        table = np.full((members.size, int(width)), pad, dtype=np.int64)
        table[:, 0] = m + members
        picked = np.flatnonzero(widths[group] == width)
        table[local[group[picked]], 1 + rank[picked]] = picked
        rows = pool.index_select(0, _on(table.reshape(-1), values)).reshape(members.size, int(width))
        pieces.append(_tree_prod(rows) if reduce == "prod" else getattr(rows, reduce)(1))
        where_in[members] = done + np.arange(members.size)
        done += members.size
    reduced = _C.cat(pieces)
    return reduced.index_select(0, _on(where_in, values)) if len(pieces) > 1 else reduced


def _reduce_into(input: Any, targets: np.ndarray, values: Any, reduce: str, include_self: bool) -> Any:
    """``input`` with ``values`` reduced into the flat ``targets`` (the core of scatter_reduce and
    index_reduce, after their checks)."""
    shape, n = tuple(input.shape), input.numel()
    if targets.size == 0:
        return input.clone()
    flat = input.reshape(-1)
    if reduce in ("sum", "mean"):
        hit = np.zeros(n, dtype=bool)
        hit[targets] = True
        base = flat if include_self else _C.where(_on(hit, input).to(_C.bool), _C.zeros_like(flat), flat)
        total = base.index_add(0, _on(targets, input), values)
        if reduce == "sum":
            return total.reshape(shape)
        counts = np.bincount(targets, minlength=n) + (1 if include_self else 0)
        counts[counts == 0] = 1
        divisor = _on(counts, input).to(input.dtype)
        mean = total / divisor if input.is_floating_point() else total.div(divisor, rounding_mode="floor")
        return mean.reshape(shape)
    places, group = np.unique(targets, return_inverse=True)
    group = group.reshape(-1)
    at = _on(places, input)
    if include_self:
        selves = flat.index_select(0, at)
    else:
        ident = _identity(reduce, input.dtype)
        selves = _C.full([places.size], ident, dtype=input.dtype, device=input.device)
        if reduce in ("amax", "amin"):  # torch's backward counts an equal input element among the ties
            first = _group_reduce(values.detach(), group, places.size, selves, reduce)
            own = flat.detach().index_select(0, at)
            selves = _C.where(own == first, own, selves)
    reduced = _group_reduce(values, group, places.size, selves, reduce)
    return _place(input, places, reduced)


def _scatter_targets(input: Any, dim: int, idx: np.ndarray, src: Any) -> tuple[np.ndarray, np.ndarray]:
    """The flat positions in ``input`` and in ``src`` of each element of the index."""
    xs = tuple(input.shape) or (1,)
    ss = tuple(src.shape) or (1,)
    ishape = idx.shape or (1,)
    coords = np.indices(ishape, dtype=np.int64)
    at_src = np.ravel_multi_index(tuple(coords), ss).reshape(-1)
    coords[dim] = idx.reshape(ishape)
    return np.ravel_multi_index(tuple(coords), xs).reshape(-1), at_src


def _check_index_dtype(name: str, index: Any) -> None:
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: {_torch_name(index.dtype)}")


def scatter_reduce(input: Any, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True) -> Any:
    """``input`` with each ``src[i][j][k]`` reduced (``sum``, ``prod``, ``mean``, ``amax``, ``amin``)
    into ``input[index[i][j][k]][j][k]`` (for ``dim=0``); ``include_self=False`` leaves the input's
    own value out of the places that receive any."""
    if reduce not in _SCATTER_REDUCES:
        raise RuntimeError(f"scatter_reduce(): reduce argument must be one of sum, prod, mean, amax or amin, "
                           f"got {reduce!r}")
    _check_index_dtype("scatter_reduce", index)
    if src.dtype != input.dtype:
        raise RuntimeError(f"scatter_reduce(): Expected self.dtype to be equal to src.dtype, got "
                           f"{_torch_name(input.dtype)} and {_torch_name(src.dtype)}")
    if reduce == "mean" and input.dtype == _C.bool:
        raise NotImplementedError("scatter_reduce(): reduce='mean' is not implemented for 'Bool'")
    check("scatter_reduce", input=input, dim=dim, index=index, src=src, reduce=reduce, include_self=include_self)
    d = dim % max(input.ndim, 1)
    size = input.shape[d] if input.ndim else 1
    idx = _host_index(index)
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise RuntimeError(f"scatter_reduce(): index {int(bad[0])} is out of bounds for dimension {d} with size {size}")
    targets, at_src = _scatter_targets(input, d, idx, src)
    values = src.reshape(-1).index_select(0, _on(at_src, src))
    return _reduce_into(input, targets, values, reduce, include_self)


def index_reduce(input: Any, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True) -> Any:
    """``input`` with the slices of ``source`` along ``dim`` reduced (``prod``, ``mean``, ``amax``,
    ``amin``) into the slices at ``index``."""
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    _check_index_dtype("index_reduce", index)
    if index.ndim > 1:
        raise IndexError(f"index_reduce(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{_torch_name(index.dtype)} and size: {list(index.shape)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_reduce(): self ({_torch_name(input.dtype)}) and source "
                           f"({_torch_name(source.dtype)}) must have the same scalar type")
    check("index_reduce", input=input, dim=dim, index=index, source=source, reduce=reduce, include_self=include_self)
    d = dim % max(input.ndim, 1)
    count = index.numel()
    if input.ndim and source.shape[d] != count:
        raise RuntimeError(f"index_reduce(): Number of indices ({count}) should be equal to source.size(dim): "
                           f"({source.shape[d]}), for dim: {d}")
    size = input.shape[d] if input.ndim else 1
    idx = _host_index(index).reshape(-1)
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError(f"index_reduce(): index out of range in self (dim {d} of size {size})")
    src_shape = tuple(source.shape) or (1,)
    view = [1] * len(src_shape)
    view[d] = count
    full = np.broadcast_to(idx.reshape(view), src_shape)
    targets, _ = _scatter_targets(input, d, full, source)
    return _reduce_into(input, targets, source.reshape(-1), reduce, include_self)


def _index_positions(input: Any, indices: Any) -> np.ndarray:
    """The flat positions ``input[indices]`` reads, by numpy's advanced indexing (torch's rules)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    keys: list[np.ndarray] = []
    used = 0
    for k, item in enumerate(indices):
        if not isinstance(item, _C.Tensor):
            raise TypeError(f"index_put(): expected Tensor as element {k} in argument 'indices', "
                            f"but got {type(item).__name__}")
        if item.dtype in (_C.bool, _C.uint8):
            covered = list(input.shape[used:used + item.ndim])
            for j, (m, n) in enumerate(zip(item.shape, covered, strict=False)):
                if m != n:
                    raise IndexError(f"The shape of the mask {list(item.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(input.shape)} at index {used + j}")
            keys.append(np.asarray(item.detach().cpu().numpy()).astype(bool))
            used += max(item.ndim, 1)
        elif item.dtype in (_C.int64, _C.int32):
            keys.append(_host_index(item))
            used += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if not keys:
        raise RuntimeError("index_put(): at least one index tensor is needed")
    if used > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {used})")
    grid = np.arange(input.numel(), dtype=np.int64).reshape(tuple(input.shape))
    try:
        return np.asarray(grid[tuple(keys)])
    except IndexError as err:
        raise IndexError(str(err).replace("axis", "dimension").replace("arrays", "tensors")) from None


def index_put(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """``input`` with ``values`` written to ``input[indices]`` (a tuple of index tensors), or added
    there when ``accumulate`` (repeated places then sum)."""
    if values.dtype != input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_torch_name(input.dtype)} for the destination and {_torch_name(values.dtype)} "
                           f"for the source.")
    positions = _index_positions(input, indices)
    try:
        np.broadcast_shapes(tuple(values.shape), positions.shape)
        fits = np.broadcast_shapes(tuple(values.shape), positions.shape) == positions.shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(positions.shape)}")
    spread = values.expand(*positions.shape) if positions.ndim else values.reshape([])
    if not accumulate:
        return _place(input, positions, spread)
    if positions.size == 0:
        return _untouched(input, spread)
    flat = input.reshape(-1).index_add(0, _on(positions.reshape(-1), input), spread.reshape(-1))
    return flat.reshape(tuple(input.shape))


# NOTE [ In-place scatter forms ]
# ``x.op_(...)`` writes ``op(x, ...)`` back into ``x``. The out-of-place result is built from a clone:
# the primitives it uses keep their input for the backward pass, and writing into ``x`` would change
# that input under them (autograd's version check would refuse the backward).


def scatter_reduce_(self: Any, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True) -> Any:
    """In-place ``scatter_reduce`` (NOTE [ In-place scatter forms ])."""
    return self.copy_(scatter_reduce(self.clone(), dim, index, src, reduce, include_self=include_self))


def index_reduce_(self: Any, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True) -> Any:
    """In-place ``index_reduce`` (NOTE [ In-place scatter forms ])."""
    return self.copy_(index_reduce(self.clone(), dim, index, source, reduce, include_self=include_self))


def index_put_(self: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """In-place ``index_put`` (NOTE [ In-place scatter forms ])."""
    return self.copy_(index_put(self.clone(), indices, values, accumulate))


def _view_positions(input: Any) -> np.ndarray:
    return np.arange(input.numel(), dtype=np.int64).reshape(tuple(input.shape))


def select_scatter(input: Any, src: Any, dim: int, index: int) -> Any:
    """``input`` with ``input.select(dim, index)`` replaced by ``src`` (cast to the input's dtype)."""
    check("select_scatter", input=input, src=src, dim=dim, index=index)
    d = dim % input.ndim
    return _place(input, np.take(_view_positions(input), index, axis=d), src)


def slice_scatter(input: Any, src: Any, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Any:
    """``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``."""
    if step <= 0:
        raise RuntimeError("slice_scatter(): slice step must be positive")
    check("slice_scatter", input=input, src=src, dim=dim, start=start, end=end, step=step)
    d = dim % input.ndim
    key = tuple(slice(start, end, step) if k == d else slice(None) for k in range(input.ndim))
    return _place(input, _view_positions(input)[key], src)


def diagonal_scatter(input: Any, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    check("diagonal_scatter", input=input, src=src, offset=offset, dim1=dim1, dim2=dim2)
    a, b = dim1 % input.ndim, dim2 % input.ndim
    return _place(input, np.diagonal(_view_positions(input), offset, a, b), src)


__all__ = [
    "diagonal_scatter", "index_put", "index_put_", "index_reduce", "index_reduce_", "scatter_reduce", "scatter_reduce_",
    "select_scatter", "slice_scatter",
]
