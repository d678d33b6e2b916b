"""Order statistics and moments written with the backend's primitives (their entries and shape
rules: ``shapes/rules/statistics.py``). Values that carry a gradient are read out of the input
with ``sort`` / ``gather`` / arithmetic, so autograd, every device and the tracer see primitives.
``cummax`` / ``cummin`` find their running indices on the host with numpy (integer results, no
gradient) and then gather the values from the input on its device."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()


def _return_type(name: str, fields: tuple[str, ...]) -> Any:
    rt = namedtuple(name, fields)  # type: ignore[misc]
    rt.__module__ = "typedtensor.return_types"
    return rt


_std_mean = _return_type("std_mean", ("std", "mean"))
_var_mean = _return_type("var_mean", ("var", "mean"))
_kthvalue = _return_type("kthvalue", ("values", "indices"))
_cummax = _return_type("cummax", ("values", "indices"))
_cummin = _return_type("cummin", ("values", "indices"))
_nanmedian = _return_type("nanmedian", ("values", "indices"))


def _mean_like(input: Any, dim: Any, keepdim: bool) -> Any:
    if dim is None:
        m = input.mean()
        return m.reshape([1] * input.ndim) if keepdim else m
    return input.mean(dim, keepdim=keepdim)


def std_mean(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> Any:
    """(std, mean) over ``dim`` in one call, as torch.std_mean."""
    check("std_mean", input=input, dim=dim, keepdim=keepdim)
    return _std_mean(_C.std(input, dim, unbiased, keepdim, correction=correction), _mean_like(input, dim, keepdim))


def var_mean(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> Any:
    """(var, mean) over ``dim`` in one call, as torch.var_mean."""
    check("var_mean", input=input, dim=dim, keepdim=keepdim)
    return _var_mean(_C.var(input, dim, unbiased, keepdim, correction=correction), _mean_like(input, dim, keepdim))


def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """(values, indices) of the ``k``-th smallest element along ``dim`` (1-based, as torch)."""
    check("kthvalue", input=input, k=k, dim=dim, keepdim=keepdim)
    if input.ndim == 0:
        return _kthvalue(input.clone(), _C.zeros([], dtype=_C.int64, device=input.device))
    values, indices = input.sort(dim)
    v, i = values.narrow(dim, k - 1, 1), indices.narrow(dim, k - 1, 1)
    if not keepdim:
        v, i = v.squeeze(dim), i.squeeze(dim)
    return _kthvalue(v, i)


def msort(input: Any) -> Any:
    """``sort`` along dim 0, values only."""
    check("msort", input=input)
    return input.sort(0)[0] if input.ndim else input.clone()


def _running_indices(input: Any, dim: int, take_max: bool) -> Any:
    """The index of the running extreme along ``dim``: the latest position holding it (ties and NaNs
    move it on, as torch's ``>=`` scan does)."""
    x = np.moveaxis(np.asarray(input.detach().cpu().to(_C.float64).numpy()), dim, -1)
    run = (np.maximum if take_max else np.minimum).accumulate(x, axis=-1)
    hit = (x == run) | np.isnan(x)
    pos = np.where(hit, np.arange(x.shape[-1]), 0)
    idx = np.maximum.accumulate(pos, axis=-1) if x.shape[-1] else pos
    out = _C.from_numpy(np.ascontiguousarray(np.moveaxis(idx, -1, dim)).astype(np.int64))
    return out if input.device.type == "cpu" else out.to(input.device)


def _cumulative(name: str, rt: Any, input: Any, dim: int, take_max: bool) -> Any:
    check(name, input=input, dim=dim)
    if input.ndim == 0:
        return rt(input.clone(), _C.zeros([], dtype=_C.int64, device=input.device))
    d = dim % input.ndim
    if input.dtype == _C.bool:
        idx = _running_indices(input.to(_C.uint8), d, take_max)
    else:
        idx = _running_indices(input, d, take_max)
    return rt(input.gather(d, idx), idx)


def cummax(input: Any, dim: int) -> Any:
    """(values, indices): the running maximum along ``dim`` and where it was found."""
    return _cumulative("cummax", _cummax, input, dim, True)


def cummin(input: Any, dim: int) -> Any:
    """(values, indices): the running minimum along ``dim`` and where it was found."""
    return _cumulative("cummin", _cummin, input, dim, False)


def _sorted_last(input: Any, dim: Any) -> tuple[Any, Any, Any]:
    """The input with ``dim`` (all dims when None) moved last and sorted: (values, indices, moved)."""
    moved = input.reshape(-1) if dim is None else input.movedim(dim, -1)
    values, indices = moved.sort(-1)
    return values, indices, moved


def nanmedian(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median of the non-NaN values (NaN where all are NaN): a 0-d value without ``dim``,
    else (values, indices) over ``dim``."""
    check("nanmedian", input=input, dim=dim, keepdim=keepdim)
    if input.ndim == 0:
        return input.clone() if dim is None else _nanmedian(input.clone(), _C.zeros([], dtype=_C.int64))
    values, indices, _ = _sorted_last(input, dim)
    count = (~values.isnan()).sum(-1, keepdim=True)
    k = ((count - 1).clamp(min=0) // 2).to(_C.int64)
    v, i = values.gather(-1, k), indices.gather(-1, k)
    if dim is None:
        return v.reshape([])
    v, i = v.squeeze(-1), i.squeeze(-1)
    if keepdim:
        v, i = v.unsqueeze(dim), i.unsqueeze(dim)
    return _nanmedian(v, i)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, input: Any, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool) -> Any:
    check(name, input=input, q=q, dim=dim, keepdim=keepdim)
    if not input.is_floating_point():
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                         f"Got {interpolation}")
    qt = q if isinstance(q, _C.Tensor) else _C.tensor(float(q), dtype=input.dtype, device=input.device)
    if qt.dtype != input.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    qh = qt.detach().cpu().to(_C.float64).numpy()
    if np.any((qh < 0) | (qh > 1)):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    scalar_q = qt.ndim == 0
    values, _, _ = _sorted_last(input, dim)
    n = values.shape[-1]
    nan = values.isnan()
    qv = qt.reshape(-1)
    # torch's ranks, in the input's dtype: q * (count - 1) where count is the row's non-NaN values
    # (nanquantile) or its length; a quantile row holding a NaN reads its last element (NaN sorts last)
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True).to(input.dtype)
        ranks = (qv * (count - 1)).clamp(min=0)
    else:
        last = _C.full([*values.shape[:-1], 1], float(n - 1), dtype=input.dtype, device=input.device)
        ranks = _C.where(nan.any(-1, keepdim=True), last, qv * last)
    if interpolation in ("lower", "higher", "nearest"):
        ranks = ranks.floor() if interpolation == "lower" else ranks.ceil() if interpolation == "higher" else ranks.round()
        out = values.gather(-1, ranks.to(_C.int64))
    else:
        below = ranks.to(_C.int64)  # ranks >= 0: truncation is floor
        above = ranks.ceil().to(_C.int64)
        weights = _C.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below.to(input.dtype)
        out = values.gather(-1, below).lerp(values.gather(-1, above), weights)  # [..., len(q)]
    out = out.movedim(-1, 0)  # [len(q), ...]
    if keepdim:
        if dim is None:
            out = out.reshape([out.shape[0]] + [1] * input.ndim)
        else:
            out = out.unsqueeze(dim % input.ndim + 1)
    return out[0] if scalar_q else out


def quantile(input: Any, q: Any, dim: Any = None, keepdim: bool = False, *, interpolation: str = "linear") -> Any:
    """The ``q``-th quantiles over ``dim`` (all elements without one); NaN where a row holds NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input: Any, q: Any, dim: Any = None, keepdim: bool = False, *, interpolation: str = "linear") -> Any:
    """``quantile`` of the non-NaN values (NaN where all are NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)


def cov(input: Any, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:
    """The covariance matrix of the rows' variables over the columns' observations (torch.cov:
    numpy's formula, with frequency and analytic weights)."""
    check("cov", input=input, correction=correction, fweights=fweights, aweights=aweights)
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if not x.is_floating_point():
        x = x.to(_C.float32)
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.is_floating_point():
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        if bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if not aweights.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype")
        if bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum: Any = float(n_obs)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        norm = w_sum - correction if aweights is None or correction == 0 else \
            w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    norm = norm.clamp(min=0) if isinstance(norm, _C.Tensor) else max(norm, 0.0)
    xm = x - avg.unsqueeze(1)
    c = (xm @ (xm if w is None else xm * w).t()) / norm
    return c.squeeze() if input.ndim < 2 or x.shape[0] == 1 else c


def corrcoef(input: Any) -> Any:
    """Pearson correlation coefficients of the rows, clipped to [-1, 1] as numpy and torch do."""
    check("corrcoef", input=input)
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return c.clamp(-1, 1)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Any:
    """Whether each element occurs among ``test_elements`` (either may be a number): broadcast
    comparison for small inputs, a sorted search for large ones."""
    check("isin", elements=elements, test_elements=test_elements)
    if not isinstance(elements, _C.Tensor) and not isinstance(test_elements, _C.Tensor):
        raise TypeError("isin() expected at least one of elements and test_elements to be a tensor")
    like = elements if isinstance(elements, _C.Tensor) else test_elements
    e = elements if isinstance(elements, _C.Tensor) else _C.tensor(elements, device=like.device)
    t = (test_elements if isinstance(test_elements, _C.Tensor)
         else _C.tensor(test_elements, device=like.device)).reshape(-1)
    if t.numel() == 0:
        found = _C.zeros(list(e.shape), dtype=_C.bool, device=e.device)
    elif e.numel() * t.numel() <= (1 << 22):
        found = (e.unsqueeze(-1) == t).any(-1)
    else:
        common = _C.result_type(e, t)
        ts = t.to(common).sort()[0]
        from typedtensor._runtime.surface_ops import searchsorted

        pos = searchsorted(ts, e.to(common).contiguous()).clamp(max=ts.numel() - 1)
        found = ts[pos] == e.to(common)
    return ~found if invert else found
