"""Tensor and top-level ops written with the backend's primitives (their entries and shape rules:
``shapes/rules/surface.py``). Differentiable results are built from tensor ops only, so autograd,
every device and the tracer see primitives. The ops whose result size depends on the values
(``unique``, ``unique_consecutive``, ``bincount``, ``histc``, ``searchsorted``, ``bucketize``) and
integer index builders (``triu_indices``) compute on the host with numpy, as their results carry no
gradient; a CUDA input's result is copied back to its device (the table marks them ``cuda="host"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()


def _common_type(*tensors: Any) -> Any:
    acc, ndim = tensors[0].dtype, tensors[0].ndim
    for t in tensors[1:]:
        acc = _C.result_type(_C.zeros([1] * ndim if ndim else [], dtype=acc), t)
        ndim = max(ndim, t.ndim)
    return acc


def _host(t: Any) -> np.ndarray:
    """A tensor's values as a numpy array (bfloat16 widened to float32)."""
    h = t.detach().cpu()
    return np.asarray((h.float() if h.dtype == _C.bfloat16 else h).numpy())


def _back(arr: Any, like: Any, dtype: Any = None) -> Any:
    """A numpy result as a tensor on ``like``'s device."""
    arr = np.asarray(arr)
    out = _C.from_numpy(arr if arr.flags.c_contiguous else arr.copy())  # (ascontiguousarray makes 0-d 1-d)
    if dtype is not None and out.dtype != dtype:
        out = out.to(dtype)
    return out if like.device.type == "cpu" else out.to(like.device)


# ---- torch's function forms whose names differ from nn.functional's ----


def alpha_dropout(input: Any, p: float = 0.5, train: bool = False) -> Any:
    """``torch.alpha_dropout(input, p, train)``: ``F.alpha_dropout`` under torch's function names."""
    from typedtensor._runtime import functional

    return functional.alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Any, p: float = 0.5, train: bool = False) -> Any:
    """``torch.feature_alpha_dropout(input, p, train)``: ``F.feature_alpha_dropout`` under torch's function names."""
    from typedtensor._runtime import functional

    return functional.feature_alpha_dropout(input, p, train)


# ---- pointwise ----


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """``input + value * tensor1 / tensor2`` in torch's order of evaluation (``(value * t1) / t2``),
    in the operands' common type."""
    check("addcdiv", input=input, tensor1=tensor1, tensor2=tensor2)
    if not tensor1.is_floating_point() and not tensor2.is_floating_point():
        raise TypeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                        "will perform a true division of tensor1 and tensor2.")
    common = _common_type(input, tensor1, tensor2)
    t1, t2 = tensor1.to(common), tensor2.to(common)
    return input.to(common) + (t1 / t2 if value == 1 else (t1 * value) / t2)


def addcdiv_(self: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """In place: ``self += value * tensor1 / tensor2`` (one pass over ``self``, as the optimizers
    use it)."""
    check("addcdiv", input=self, tensor1=tensor1, tensor2=tensor2)
    if not tensor1.is_floating_point() and not tensor2.is_floating_point():
        raise TypeError("Integer division with addcdiv is no longer supported")
    return self.add_(tensor1 / tensor2 if value == 1 else (tensor1 * value) / tensor2)


def clamp_min(input: Any, min: Any) -> Any:
    """``clamp(input, min=min)``."""
    return _C.clamp(input, min=min)


def clamp_max(input: Any, max: Any) -> Any:
    """``clamp(input, max=max)``."""
    return _C.clamp(input, max=max)


def clamp_min_(self: Any, min: Any) -> Any:
    return self.clamp_(min=min)


def clamp_max_(self: Any, max: Any) -> Any:
    return self.clamp_(max=max)


# ---- linear algebra ----


def trace(input: Any) -> Any:
    """The sum of a matrix's main diagonal (integers sum to int64, as torch's)."""
    check("trace", input=input)
    return input.diagonal().sum()


def diag(input: Any, diagonal: int = 0) -> Any:
    """A vector -> the square matrix with it on diagonal ``diagonal``; a matrix -> that diagonal."""
    check("diag", input=input, diagonal=diagonal)
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    return input.diagonal(diagonal).contiguous()


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """The last dim placed on diagonal ``offset`` of two new dims ``dim1``, ``dim2``."""
    check("diag_embed", input=input, offset=offset, dim1=dim1, dim2=dim2)
    n = input.shape[-1]
    size = n + abs(offset)
    pad_shape = (*input.shape[:-1], abs(offset))
    pad = _C.zeros(pad_shape, dtype=input.dtype, device=input.device)
    # the row-indexed values: row r of the result holds its entry at column r + offset
    rows = _C.cat([input, pad] if offset >= 0 else [pad, input], -1) if offset else input
    idx = _C.arange(size, device=input.device)
    mask = (idx.unsqueeze(0) - idx.unsqueeze(1)) == offset
    out = _C.where(mask, rows.unsqueeze(-1), _C.zeros([], dtype=input.dtype, device=input.device))
    rank = input.ndim + 1
    return out.movedim((-2, -1), (dim1 % rank, dim2 % rank))


def _addmm_like(name: str, input: Any, a: Any, b: Any, beta: Any, alpha: Any, kw: dict[str, Any]) -> Any:
    check(name, input=input, **kw)
    product = _C.matmul(a, b)
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # torch ignores input's values then (NaN and inf do not propagate; its gradient is 0)
        never = _C.zeros([], dtype=_C.bool, device=product.device)
        return product + _C.where(never, input, _C.zeros([], dtype=input.dtype, device=product.device))
    return product + (input if beta == 1 else input * beta)


def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * (mat1 @ mat2)``."""
    return _addmm_like("addmm", input, mat1, mat2, beta, alpha, {"mat1": mat1, "mat2": mat2})


def addmv(input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * (mat @ vec)``."""
    return _addmm_like("addmv", input, mat, vec, beta, alpha, {"mat": mat, "vec": vec})


def baddbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * (batch1 @ batch2)``, batch by batch."""
    return _addmm_like("baddbmm", input, batch1, batch2, beta, alpha, {"batch1": batch1, "batch2": batch2})


def kron(input: Any, other: Any) -> Any:
    """The Kronecker product: each element of ``input`` times the whole of ``other``."""
    check("kron", input=input, other=other)
    n = max(input.ndim, other.ndim)
    a = input.reshape([1] * (n - input.ndim) + list(input.shape))
    b = other.reshape([1] * (n - other.ndim) + list(other.shape))
    a_view = [s for d in a.shape for s in (d, 1)]
    b_view = [s for d in b.shape for s in (1, d)]
    out = a.reshape(a_view) * b.reshape(b_view)
    return out.reshape([x * y for x, y in zip(a.shape, b.shape, strict=True)])


def cross(input: Any, other: Any, dim: int | None = None) -> Any:
    """The cross product of 3-vectors along ``dim`` (default: the first dim of size 3)."""
    check("cross", input=input, other=other, dim=dim)
    a, b = _C.broadcast_tensors(input, other)
    d = next(i for i, s in enumerate(a.shape) if s == 3) if dim is None else dim % a.ndim
    a0, a1, a2 = (a.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(d, i, 1) for i in range(3))
    return _C.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


# ---- movement ----


def tile(input: Any, dims: Any) -> Any:
    """``repeat`` with ``dims`` padded with leading 1s to the input's rank."""
    reps = [int(dims)] if isinstance(dims, int) else [int(r) for r in dims]
    check("tile", input=input, dims=tuple(reps))
    reps = [1] * (input.ndim - len(reps)) + reps
    return input.repeat(*reps)


def ravel(input: Any) -> Any:
    """The elements as one dim (a view when the layout allows, as torch's)."""
    return input.reshape(-1)


def rot90(input: Any, k: int = 1, dims: Any = (0, 1)) -> Any:
    """Rotate by ``k`` quarter turns from the first of ``dims`` towards the second."""
    dims = (0, 1) if dims is None else tuple(dims)
    check("rot90", input=input, k=k, dims=dims)
    k %= 4
    d0, d1 = dims
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th forward difference along ``dim`` (``!=`` for bool, as torch's)."""
    check("diff", input=input, n=n, dim=dim, prepend=prepend, append=append)
    if n == 0:  # torch's: the input itself, prepend and append unused
        return input
    d = dim % input.ndim
    x = input
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        x = _C.cat(parts, d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi.logical_xor(lo) if x.dtype == _C.bool else hi - lo
    return x


# ---- indexing ----


def take(input: Any, index: Any) -> Any:
    """``input`` read as one dim at ``index`` (negative indices count from the end)."""
    check("take", input=input, index=index)
    flat = input.reshape(-1)
    n = flat.shape[0]
    idx = index.reshape(-1)
    if idx.numel() and (bool((idx >= n).any()) or bool((idx < -n).any())):
        raise IndexError(f"take: index out of range for a tensor of {n} elements")
    idx = _C.where(idx < 0, idx + n, idx)
    return flat.index_select(0, idx).reshape(tuple(index.shape))


def take_along_dim(input: Any, indices: Any, dim: int | None = None) -> Any:
    """``gather`` along ``dim`` with the other dims broadcast; no ``dim``: the flattened input."""
    check("take_along_dim", input=input, indices=indices, dim=dim)
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    d = dim % input.ndim
    shape = [max(a, b) if min(a, b) != 0 else 0 for a, b in zip(input.shape, indices.shape, strict=True)]
    x_shape, i_shape = list(shape), list(shape)
    x_shape[d], i_shape[d] = input.shape[d], indices.shape[d]
    return input.expand(*x_shape).gather(d, indices.expand(*i_shape))


def _dim_mask(input: Any, dim: int, index: Any) -> Any:
    """A bool tensor true at ``index`` along ``dim``, shaped to broadcast against ``input``."""
    d = dim % max(input.ndim, 1)
    size = input.shape[d] if input.ndim else 1
    picked = _host(index).reshape(-1).astype(np.int64)
    if picked.size and (picked.max() >= size or picked.min() < -size):
        raise IndexError(f"index out of range in dim {d} of size {size}")
    mask = np.zeros(size, dtype=bool)
    mask[picked] = True
    view = [1] * input.ndim
    if input.ndim:
        view[d] = size
    return _back(mask.reshape(view), input)


def index_fill(input: Any, dim: int, index: Any, value: Any) -> Any:
    """``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    check("index_fill", input=input, dim=dim, index=index, value=value)
    if isinstance(value, _C.Tensor) and value.ndim != 0:
        raise ValueError(f"index_fill only supports a 0-dimensional value tensor, got {value.ndim}-d")
    fill = value.to(input.dtype) if isinstance(value, _C.Tensor) else _C.full([], value, dtype=input.dtype,
                                                                             device=input.device)
    return _C.where(_dim_mask(input, dim, index), fill, input)


def index_copy(input: Any, dim: int, index: Any, source: Any) -> Any:
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``'s, in order."""
    check("index_copy", input=input, dim=dim, index=index, source=source)
    if source.dtype != input.dtype:
        raise TypeError(f"index_copy(): self and source expected to have the same dtype, but got (self) "
                        f"{input.dtype} and (source) {source.dtype}")
    if input.ndim == 0:
        return source.reshape([]).clone()
    cleared = index_fill(input, dim, index, 0)
    return cleared.index_add(dim, index.reshape(-1), source.reshape(
        [index.numel() if i == dim % input.ndim else s for i, s in enumerate(input.shape)]))


def masked_scatter(input: Any, mask: Any, source: Any) -> Any:
    """``input`` with the places ``mask`` selects filled, in order, from ``source``'s elements."""
    check("masked_scatter", input=input, mask=mask, source=source)
    if mask.dtype != _C.bool:
        raise TypeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    x, m = _C.broadcast_tensors(input, mask)
    count = int(m.long().sum())
    src = source.reshape(-1)
    if src.shape[0] < count:
        raise ValueError(f"masked_scatter: the mask selects {count} elements but source has only {src.shape[0]}")
    order = (m.reshape(-1).long().cumsum(0) - 1).clamp(min=0)
    picked = src.narrow(0, 0, max(count, 1) if src.shape[0] else 0).index_select(0, order) if count else None
    if picked is None:
        return x.clone()
    return _C.where(m, picked.reshape(tuple(x.shape)).to(x.dtype), x)


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None) -> Any:
    """Each element (or slice along ``dim``) repeated; ``repeat_interleave(counts)`` repeats each
    index ``i`` ``counts[i]`` times."""
    if repeats is None:  # torch.repeat_interleave(repeats): the indices
        counts = input
        return repeat_interleave(_C.arange(counts.shape[0], device=counts.device), counts, 0, output_size=output_size)
    check("repeat_interleave", input=input, repeats=repeats, dim=dim)
    if dim is not None and input.ndim == 0:
        raise IndexError(f"repeat_interleave: dim {dim} given for a 0-d input")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else dim % x.ndim
    if isinstance(repeats, _C.Tensor) and repeats.ndim == 0:
        repeats = int(repeats)
    if isinstance(repeats, int):
        if repeats < 0:
            raise ValueError("repeat_interleave: repeats can not be negative")
        expanded = list(x.shape)
        expanded.insert(d + 1, repeats)
        merged = list(x.shape)
        merged[d] *= repeats
        return x.unsqueeze(d + 1).expand(*expanded).reshape(merged)
    counts = _host(repeats).astype(np.int64).reshape(-1)
    if counts.size not in (1, x.shape[d]):
        raise ValueError(f"repeat_interleave: repeats must have the same size as input along dim, but got "
                         f"repeats.size(0) = {counts.size} and input.size({d}) = {x.shape[d]}")
    if (counts < 0).any():
        raise ValueError("repeat_interleave: repeats can not be negative")
    if counts.size == 1:
        counts = np.repeat(counts, x.shape[d])
    index = _back(np.repeat(np.arange(x.shape[d]), counts), x)
    return x.index_select(d, index)


def _tri_indices(upper: bool, row: int, col: int, offset: int, dtype: Any, device: Any) -> Any:
    check("triu_indices" if upper else "tril_indices", row=row, col=col, offset=offset)
    i, j = np.indices((row, col)).reshape(2, -1)
    keep = (j - i >= offset) if upper else (j - i <= offset)
    out = _C.from_numpy(np.stack([i[keep], j[keep]]).astype(np.int64))
    out = out.to(dtype) if dtype is not None else out
    return out if device is None else out.to(device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Any:
    """The ``[2, N]`` (row, column) indices of the upper triangle from diagonal ``offset``, row by row."""
    return _tri_indices(True, row, col, offset, dtype, device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Any:
    """The ``[2, N]`` (row, column) indices of the lower triangle up to diagonal ``offset``, row by row."""
    return _tri_indices(False, row, col, offset, dtype, device)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Any, ...]:
    """Grids of the 0-d or 1-d inputs: ``"ij"`` (the default, torch's) or ``"xy"`` indexing."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    check("meshgrid", tensors=tensors, indexing=indexing)
    if indexing not in (None, "ij", "xy"):
        raise ValueError(f'meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    flat = [t.reshape(-1) for t in tensors]
    sizes = [t.shape[0] for t in flat]
    pos = list(range(len(flat)))
    if indexing == "xy" and len(flat) >= 2:
        pos[0], pos[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for t, p in zip(flat, pos, strict=True):
        view = [1] * len(flat)
        view[p] = t.shape[0]
        out.append(t.reshape(view).expand(*sizes))
    return tuple(out)


def cartesian_prod(*tensors: Any) -> Any:
    """Every combination of the 1-d inputs' elements, the last varying fastest: ``[N, k]``."""
    check("cartesian_prod", tensors=tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


# ---- value-dependent sizes (host) ----


def _unique_result(values: Any, inverse: Any, counts: Any, like: Any, return_inverse: bool,
                   return_counts: bool) -> Any:
    out = [_back(values, like, like.dtype)]
    if return_inverse:
        out.append(_back(inverse.astype(np.int64), like))
    if return_counts:
        out.append(_back(counts.astype(np.int64), like))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input: Any, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """The distinct values (or slices along ``dim``), sorted; with the index of each input element's
    value (``return_inverse``) and how often each occurs (``return_counts``). ``sorted=False`` is
    accepted and sorts too (torch leaves that order unspecified)."""
    check("unique", input=input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    arr = _host(input)
    if dim is None:
        values, inverse, counts = np.unique(arr.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        return _unique_result(values, inverse.reshape(arr.shape), counts, input, return_inverse, return_counts)
    d = dim % arr.ndim
    if arr.shape[d] == 0:
        empty = np.zeros(0, np.int64)
        return _unique_result(arr, empty, empty, input, return_inverse, return_counts)
    values, inverse, counts = np.unique(arr, return_inverse=True, return_counts=True, axis=d)
    return _unique_result(values, inverse.reshape(-1), counts, input, return_inverse, return_counts)


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """The first of each run of equal neighbours (elements, or slices along ``dim``)."""
    check("unique_consecutive", input=input, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    arr = _host(input)
    rows = arr.reshape(-1, 1) if dim is None else np.moveaxis(arr, dim % arr.ndim, 0).reshape(
        arr.shape[dim % arr.ndim], -1)
    n = rows.shape[0]
    starts = np.ones(n, dtype=bool)
    if n > 1:
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), n))
    if dim is None:
        values = arr.reshape(-1)[starts]
        inverse = inverse.reshape(arr.shape)
    else:
        values = np.compress(starts, arr, axis=dim % arr.ndim)
    return _unique_result(values, inverse, counts, input, return_inverse, return_counts)


def bincount(input: Any, weights: Any = None, minlength: int = 0) -> Any:
    """How often each value of a 1-d non-negative integer tensor occurs (or the sum of its
    ``weights``): ``[max(input.max() + 1, minlength)]``."""
    check("bincount", input=input, weights=weights, minlength=minlength)
    if input.is_floating_point() or input.dtype == _C.bool:
        raise TypeError(f"bincount only supports 1-d non-negative integral inputs, got {input.dtype}")
    arr = _host(input).astype(np.int64)
    if arr.size and arr.min() < 0:
        raise ValueError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise ValueError("minlength should be >= 0")
    if weights is None:
        return _back(np.bincount(arr, minlength=minlength).astype(np.int64), input)
    w = _host(weights)
    out_dtype = weights.dtype if weights.is_floating_point() else _C.float64
    counts: np.ndarray
    if weights.dtype == _C.float32:  # torch sums float32 weights in float32
        counts = np.zeros(max(int(arr.max()) + 1 if arr.size else 0, minlength), np.float32)
        np.add.at(counts, arr, w.astype(np.float32))
    else:
        counts = np.bincount(arr, weights=w.astype(np.float64), minlength=minlength)
    return _back(counts, input, out_dtype)


def histc(input: Any, bins: int = 100, min: Any = 0, max: Any = 0) -> Any:
    """A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0);
    elements outside are ignored, the last bin includes ``max``."""
    check("histc", input=input, bins=bins, min=min, max=max)
    if not input.is_floating_point():
        raise TypeError(f'"histogram_cpu" not implemented for \'{str(input.dtype).removeprefix("typedtensor.")}\'')
    arr = _host(input).reshape(-1)
    lo, hi = float(min), float(max)
    if lo > hi:
        raise ValueError("torch.histc: max must be larger than min")
    if lo == hi and arr.size:
        lo, hi = float(arr.min()), float(arr.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    kind = arr.dtype.type
    keep = arr[(arr >= kind(lo)) & (arr <= kind(hi))]
    pos = ((keep - kind(lo)) * kind(bins) / (kind(hi) - kind(lo))).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return _back(np.bincount(pos, minlength=bins).astype(arr.dtype), input, input.dtype)


def searchsorted(sorted_sequence: Any, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Any = None) -> Any:
    """Where each value would be inserted in the sorted last dim to keep it sorted (``right`` or
    ``side="right"``: after equal entries)."""
    check("searchsorted", sorted_sequence=sorted_sequence, input=input)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise ValueError("side and right can't be set to opposites, got side of left while right was True")
        right = side == "right"
    seq = _host(sorted_sequence)
    if sorter is not None:
        seq = np.take_along_axis(seq, _host(sorter).astype(np.int64), -1)
    scalar = not isinstance(input, _C.Tensor)
    vals = np.asarray(input) if scalar else _host(input)
    how: Any = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq.reshape(-1), vals, side=how)
    else:
        flat_seq, flat_vals = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(flat_seq, flat_vals, strict=True)]).reshape(
            vals.shape)
    return _back(np.asarray(out, np.int64), sorted_sequence, _C.int32 if out_int32 else _C.int64)


def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False, right: bool = False) -> Any:
    """The index of each value's bucket among the 1-d ascending ``boundaries`` (``right``: a value
    equal to a boundary goes to the bucket after it)."""
    check("bucketize", input=input, boundaries=boundaries)
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


__all__ = [
    "addcdiv", "alpha_dropout", "feature_alpha_dropout", "addcdiv_", "addmm", "addmv", "baddbmm", "bincount", "bucketize", "cartesian_prod", "clamp_max",
    "clamp_max_", "clamp_min", "clamp_min_", "cross", "diag", "diag_embed", "diff", "histc", "index_copy", "index_fill",
    "kron", "masked_scatter", "meshgrid", "ravel", "repeat_interleave", "rot90", "searchsorted", "take",
    "take_along_dim", "tile", "trace", "tril_indices", "triu_indices", "unique", "unique_consecutive",
]
