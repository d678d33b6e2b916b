"""``nn.functional``'s resampling and patch ops over differentiable primitives (gathers, index_add,
reshapes, the pools): ``interpolate``, ``pixel_shuffle`` / ``pixel_unshuffle``, ``unfold`` /
``fold`` and ``embedding_bag``.

NOTE [ Separable interpolation ]
Every mode of ``interpolate`` reads, for an output position along a dim, a few input positions of
that dim with weights that depend on that dim only; a 2-d or 3-d interpolation is the 1-d one applied
dim by dim. Along one dim the positions and weights are computed on the host with torch's formulas
(``area_pixel_compute_source_index``, the nearest index in float32, the cubic convolution with
A = -0.75) and applied as ``index_select``s and a weighted sum, whose VJPs (index_add) are the
interpolation's adjoint. ``area`` is the adaptive average pool, as in torch.

NOTE [ Grid sampling ]
``grid_sample`` reads each output position at a point of its own, so it does not separate by dim.
Each grid coordinate becomes a pixel position with torch's ``grid_sampler_compute_source_index``
(unnormalised with or without aligned corners, then clipped for ``border``, reflected and clipped for
``reflection``), written with differentiable ops so that the gradient reaches the grid. Bilinear
(trilinear on 5-d) sampling gathers the ``2^nd`` corner taps of the flattened input and sums them with
torch's weights; a tap outside the input counts as 0 (a mask), which is the ``zeros`` padding (the
other modes never leave the input). The gathers' VJP is the scatter-add into the input; the weights
carry the gradient to the grid. Nearest sampling rounds half to even, as torch's ``nearbyint``.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.conv import adaptive_avg_pool1d, adaptive_avg_pool3d, ntuple
from typedtensor._runtime.errors import check

_C = _loader.load_core()

__all__ = ["GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "affine_grid", "channel_shuffle",
           "embedding_bag", "fold", "grid_sample", "interpolate", "pixel_shuffle", "pixel_unshuffle", "unfold", "upsample",
           "upsample_bilinear", "upsample_nearest"]

_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}


def _source_scale(size: int, out: int, align_corners: bool, scale: float | None) -> float:
    """torch's ``area_pixel_compute_scale``."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else size / out


def _nearest(size: int, out: int, scale: float | None, exact: bool) -> np.ndarray:
    """torch's nearest source index, computed in float32 as its kernel does."""
    s = np.float32(1.0 / scale if scale is not None and scale > 0 else size / out)
    dst = np.arange(out, dtype=np.float32) + np.float32(0.5 if exact else 0.0)
    return np.asarray(np.minimum(np.floor(dst * s).astype(np.int64), size - 1))


def _linear_taps(size: int, out: int, align_corners: bool, scale: float | None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    s = _source_scale(size, out, align_corners, scale)
    dst = np.arange(out, dtype=np.float64)
    real = s * dst if align_corners else np.maximum(s * (dst + 0.5) - 0.5, 0.0)
    i0 = np.minimum(np.floor(real).astype(np.int64), size - 1)
    i1 = np.minimum(i0 + 1, size - 1)
    w1 = real - i0
    return [i0, i1], [1.0 - w1, w1]


def _cubic_taps(size: int, out: int, align_corners: bool, scale: float | None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    a = -0.75
    s = _source_scale(size, out, align_corners, scale)
    dst = np.arange(out, dtype=np.float64)
    real = s * dst if align_corners else s * (dst + 0.5) - 0.5
    base = np.floor(real).astype(np.int64)
    t = real - base

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return np.asarray(((a + 2) * x - (a + 3)) * x * x + 1)

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return np.asarray(((a * x - 5 * a) * x + 8 * a) * x - 4 * a)

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    idx = [np.clip(base - 1 + k, 0, size - 1) for k in range(4)]
    return idx, weights


def _along(x: Any, dim: int, idx: list[np.ndarray], weights: list[np.ndarray]) -> Any:
    """``sum_k x[..., idx_k, ...] * weights_k`` along ``dim`` (weights broadcast over the other dims)."""
    view = [1] * x.ndim
    view[dim] = -1
    out = None
    for i, w in zip(idx, weights, strict=True):
        term = x.index_select(dim, _C.tensor(i.tolist(), dtype=_C.int64, device=x.device))
        term = term * _C.tensor(w.tolist(), dtype=x.dtype, device=x.device).reshape(view)
        out = term if out is None else out + term
    return out


def _output_size(x: Any, size: Any, scale_factor: Any, recompute: bool | None) -> tuple[tuple[int, ...], list[float | None]]:
    nd = x.ndim - 2
    spatial = [int(v) for v in x.shape[2:]]
    if size is not None:
        sizes = tuple(int(v) for v in (size if isinstance(size, (tuple, list)) else (size,) * nd))
        return sizes, [None] * nd
    factors = [float(v) for v in (scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * nd)]
    sizes = tuple(math.floor(n * f) for n, f in zip(spatial, factors, strict=True))
    return sizes, ([None] * nd if recompute else list(factors))


def interpolate(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Any:
    """torch's ``F.interpolate`` (NOTE [ Separable interpolation ]); ``antialias`` is not supported."""
    check("interpolate", input=input, size=size, scale_factor=scale_factor, mode=mode)
    if align_corners is not None and mode not in _LINEAR:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if not input.is_floating_point() and mode != "nearest" and mode != "nearest-exact":
        raise TypeError(f"interpolate: mode {mode!r} needs a floating point input, got {input.dtype}")
    sizes, scales = _output_size(input, size, scale_factor, recompute_scale_factor)
    nd = input.ndim - 2
    if mode == "area":
        if nd == 1:
            return adaptive_avg_pool1d(input, sizes)
        if nd == 2:
            return _C.adaptive_avg_pool2d(input, sizes)
        return adaptive_avg_pool3d(input, sizes)
    out = input
    corners = bool(align_corners)
    for i in range(nd):
        dim, n, o = 2 + i, int(input.shape[2 + i]), sizes[i]
        if mode in ("nearest", "nearest-exact"):
            if o == n and scales[i] in (None, 1.0):
                continue
            out = out.index_select(dim, _C.tensor(_nearest(n, o, scales[i], mode == "nearest-exact").tolist(),
                                                   dtype=_C.int64, device=input.device))
        elif mode == "bicubic":
            out = _along(out, dim, *_cubic_taps(n, o, corners, scales[i]))
        else:
            out = _along(out, dim, *_linear_taps(n, o, corners, scales[i]))
    return out if out is not input else input.clone()


def upsample(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Any:
    """torch's deprecated ``F.upsample``: ``interpolate`` with a warning, as torch gives."""
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Any, size: Any = None, scale_factor: Any = None) -> Any:
    """torch's deprecated ``F.upsample_nearest``: nearest ``interpolate``."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Any, size: Any = None, scale_factor: Any = None) -> Any:
    """torch's deprecated ``F.upsample_bilinear``: bilinear ``interpolate`` with ``align_corners=True``."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def channel_shuffle(input: Any, groups: int) -> Any:
    """ShuffleNet's channel shuffle: ``[N, g * k, *]`` read as ``[N, g, k, *]`` and written as ``[N, k, g, *]``."""
    check("channel_shuffle", input=input, groups=groups)
    n, c, *rest = (int(v) for v in input.shape)
    g = int(groups)
    return input.reshape(n, g, c // g, *rest).transpose(1, 2).reshape(n, c, *rest)


def pixel_shuffle(input: Any, upscale_factor: int) -> Any:
    """``[*, C r^2, H, W]`` -> ``[*, C, H r, W r]``: a reshape and a permute."""
    check("pixel_shuffle", input=input, upscale_factor=upscale_factor)
    r = int(upscale_factor)
    *lead, c, h, w = (int(v) for v in input.shape)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:
    """``[*, C, H r, W r]`` -> ``[*, C r^2, H, W]``: pixel_shuffle's inverse."""
    check("pixel_unshuffle", input=input, downscale_factor=downscale_factor)
    r = int(downscale_factor)
    *lead, c, h, w = (int(v) for v in input.shape)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def _block_table(h: int, w: int, kernel: tuple[int, ...], dilation: tuple[int, ...], padding: tuple[int, ...],
                 stride: tuple[int, ...], device: Any) -> tuple[Any, int, int]:
    """The flat positions, in the padded ``(H + 2 ph) x (W + 2 pw)`` plane, that unfold reads:
    ``[kh * kw * L]`` in (tap, block) order; and the padded plane's height and width."""
    hp, wp = h + 2 * padding[0], w + 2 * padding[1]
    bh = (hp - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    bw = (wp - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    ki = np.arange(kernel[0])[:, None, None, None] * dilation[0]
    kj = np.arange(kernel[1])[None, :, None, None] * dilation[1]
    by = np.arange(bh)[None, None, :, None] * stride[0]
    bx = np.arange(bw)[None, None, None, :] * stride[1]
    flat = ((ki + by) * wp + (kj + bx)).reshape(-1)
    return _C.tensor(flat.tolist(), dtype=_C.int64, device=device), hp, wp


def _geometry(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(ntuple(v, 2, n) for v, n in (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"), (stride, "stride")))


def unfold(input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
    """im2col ``[N, C, H, W]`` -> ``[N, C kh kw, L]``: one gather from the zero-padded input (its VJP,
    an index_add, is ``fold``)."""
    check("unfold", input=input, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    k, d, p, s = _geometry(kernel_size, dilation, padding, stride)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = (int(v) for v in x.shape)
    table, hp, wp = _block_table(h, w, k, d, p, s, x.device)
    if p != (0, 0):
        from typedtensor._runtime.functional import pad as fpad

        x = fpad(x, (p[1], p[1], p[0], p[0]))
    cols = x.reshape(n, c, hp * wp).index_select(2, table).reshape(n, c * k[0] * k[1], -1)
    return cols.squeeze(0) if unbatched else cols


def fold(input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
    """col2im ``[N, C kh kw, L]`` -> ``[N, C, H, W]``: every block's values added back where unfold
    read them (one index_add into the padded plane, then the padding cropped)."""
    check("fold", input=input, output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding,
          stride=stride)
    k, d, p, s = _geometry(kernel_size, dilation, padding, stride)
    h, w = ntuple(output_size, 2, "output_size")
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck = int(x.shape[0]), int(x.shape[1])
    c = ck // (k[0] * k[1])
    table, hp, wp = _block_table(h, w, k, d, p, s, x.device)
    plane = _C.zeros(n, c, hp * wp, dtype=x.dtype, device=x.device)
    plane = plane.index_add(2, table, x.reshape(n, c, -1))
    out = plane.reshape(n, c, hp, wp)[:, :, p[0] : p[0] + h, p[1] : p[1] + w]
    return out.squeeze(0) if unbatched else out


def embedding_bag(input: Any, weight: Any, offsets: Any | None = None, max_norm: float | None = None,
                  norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Any | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Any:
    """Each bag's rows of ``weight`` summed, averaged or max-reduced: ``[B, D]``. An empty bag (or one
    holding only ``padding_idx``) gives zeros, as in torch."""
    check("embedding_bag", input=input, weight=weight, offsets=offsets, per_sample_weights=per_sample_weights,
          include_last_offset=include_last_offset)
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, got {mode!r}")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq and sparse gradients are not supported")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights is only supported for mode='sum' (got mode='{mode}')")
    if input.is_floating_point():
        raise TypeError(f"embedding_bag: expected integer indices, got {input.dtype}")
    rows_total = int(weight.shape[0])
    if padding_idx is not None:
        if not -rows_total <= padding_idx < rows_total:
            raise ValueError("padding_idx must be within the number of embeddings")
        padding_idx = padding_idx % rows_total if rows_total else padding_idx
    if max_norm is not None:
        from typedtensor._runtime.functional import _embedding_renorm_

        _embedding_renorm_(weight, input, max_norm, norm_type)
    idx = input.long()
    last: int | None = None
    if input.ndim == 2:
        b, per = int(input.shape[0]), int(input.shape[1])
        starts = [i * per for i in range(b)]
        idx = idx.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    else:
        if offsets is None:
            raise ValueError("embedding_bag: offsets has to be a 1D Tensor but got None")
        starts = [int(v) for v in offsets.tolist()]
        if include_last_offset and starts:
            starts, last = starts[:-1], starts[-1]
        b = len(starts)
        psw = per_sample_weights
        if starts and starts[0] != 0:
            raise ValueError("embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
                             "to start from position 0")
        if any(b2 < a for a, b2 in itertools.pairwise(starts)) or (starts and starts[-1] > int(idx.shape[0])):
            raise ValueError("embedding_bag: offsets must be non-decreasing and within the input")
    count = int(idx.shape[0])
    # with include_last_offset the last offset closes the last bag
    ends = [*starts[1:], last if last is not None else count]
    bag_of = np.zeros(count, dtype=np.int64)
    for bag, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
        bag_of[lo:hi] = bag
    keep = np.zeros(count, dtype=bool)
    for lo, hi in zip(starts, ends, strict=True):
        keep[lo:hi] = True
    values = idx.tolist()
    if padding_idx is not None:
        keep &= np.array(values, dtype=np.int64) != padding_idx if count else keep
    d = int(weight.shape[1])
    positions = np.flatnonzero(keep)
    if mode == "max":
        width = max((int(np.sum(keep[lo:hi])) for lo, hi in zip(starts, ends, strict=True)), default=0)
        if width == 0:
            return _C.zeros(b, d, dtype=weight.dtype, device=weight.device)
        table = np.zeros((b, width), dtype=np.int64)
        valid = np.zeros((b, width), dtype=bool)
        for bag, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
            mine = [values[j] for j in range(lo, hi) if keep[j]]
            table[bag, : len(mine)] = mine
            valid[bag, : len(mine)] = True
        rows = weight.index_select(0, _C.tensor(table.reshape(-1).tolist(), dtype=_C.int64, device=weight.device))
        rows = rows.reshape(b, width, d)
        mask = _C.tensor(valid.tolist(), dtype=_C.bool, device=weight.device).unsqueeze(2)
        best = rows.masked_fill(mask.logical_not(), float("-inf")).amax(1)
        empty = _C.tensor((~valid.any(1)).tolist(), dtype=_C.bool, device=weight.device).unsqueeze(1)
        return best.masked_fill(empty, 0.0)
    kept = _C.tensor(positions.tolist(), dtype=_C.int64, device=weight.device)
    rows = weight.index_select(0, idx.index_select(0, kept) if len(positions) != count else idx)
    if psw is not None:
        w = psw.index_select(0, kept) if len(positions) != count else psw
        rows = rows * w.to(rows.dtype).unsqueeze(1)
    bags = _C.tensor(bag_of[positions].tolist(), dtype=_C.int64, device=weight.device)
    out = _C.zeros(b, d, dtype=weight.dtype, device=weight.device).index_add(0, bags, rows)
    if mode == "mean":
        counts = np.bincount(bag_of[positions], minlength=b).astype(np.float64)
        out = out / _C.tensor(np.maximum(counts, 1.0).tolist(), dtype=out.dtype, device=out.device).unsqueeze(1)
    return out


# ---------------------------------------------------------------------------------------------
# Spatial transformers: affine_grid and grid_sample (NOTE [ Grid sampling ])

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _neg_one_to_one(n: int, align_corners: bool, like: Any) -> Any:
    """torch's ``linspace_from_neg_one``: ``n`` steps over [-1, 1], shrunk to the pixel centres
    without align_corners; a single step is 0."""
    if n <= 1:
        return _C.zeros(1, dtype=like.dtype, device=like.device)
    r = _C.linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return r if align_corners else r * (n - 1) / n


def affine_grid(theta: Any, size: Any, align_corners: bool | None = None) -> Any:
    """The sampling grid ``[N, *spatial, nd]`` of a batch of affine maps ``theta`` (``[N, 2, 3]`` for
    a 4-d ``size``, ``[N, 3, 4]`` for a 5-d one): the base grid of normalised output positions
    ``(x, y[, z], 1)`` times ``theta`` transposed, as torch's ``affine_grid_generator``."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(v) for v in size]
    check("affine_grid", theta=theta, size=size, align_corners=align_corners)
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    nd = len(spatial)
    # the base grid's last dim holds x (the last spatial dim), y, [z,] then 1
    axes = []
    for j in range(nd):
        d = nd - 1 - j  # the spatial dim that coordinate j runs along
        view = [1] * nd
        view[d] = spatial[d]
        axes.append(_neg_one_to_one(spatial[d], align_corners, theta).reshape(view).expand(*spatial))
    axes.append(_C.ones(*spatial, dtype=theta.dtype, device=theta.device))
    base = _C.stack(axes, -1).reshape(math.prod(spatial), nd + 1)
    grid = _C.matmul(base, theta.transpose(1, 2))  # [N, prod(spatial), nd]
    return grid.reshape(size[0], *spatial, nd)


def _reflect(coord: Any, twice_low: int, twice_high: int) -> Any:
    """torch's ``reflect_coordinates``: ``coord`` folded into [twice_low / 2, twice_high / 2]."""
    if twice_low == twice_high:
        return _C.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = coord - low
    coord = _C.where(coord < 0, -coord, coord)  # at 0 the slope is +1, as torch's reflect_coordinates_set_grad
    extra = _C.fmod(coord, span)
    flips = _C.floor(coord / span)
    even = _C.fmod(flips, 2.0) == 0
    return _C.where(even, extra + low, span - extra + low)


def _source_coord(coord: Any, size: int, padding_mode: str, align_corners: bool) -> Any:
    """torch's ``grid_sampler_compute_source_index``: a normalised coordinate as a pixel position,
    clipped or reflected by the padding mode."""
    if align_corners:
        coord = (coord + 1) / 2 * (size - 1)
    else:
        coord = ((coord + 1) * size - 1) / 2
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
    if padding_mode != "zeros":
        coord = _clip(coord, size)
    return coord


def _clip(coord: Any, size: int) -> Any:
    """torch's ``clip_coordinates`` into [0, size - 1], whose slope is 0 on the borders themselves
    (``clip_coordinates_set_grad`` counts them as outside)."""
    interior = (coord > 0).logical_and(coord < size - 1)
    return _C.where(interior, coord, _C.clamp(coord.detach(), 0, size - 1))


def _tap(flat: Any, pos: list[Any], spatial: list[int]) -> tuple[Any, Any]:
    """The input's values at integer positions ``pos`` (one float tensor ``[N, M]`` per spatial dim)
    and whether each position lies inside the input: ``([N, C, M] values, [N, 1, M] in-bounds)``."""
    n, c = int(flat.shape[0]), int(flat.shape[1])
    index = None
    inside = None
    stride = 1
    for d in reversed(range(len(spatial))):
        p = pos[d]
        ok = (p >= 0).logical_and(p <= spatial[d] - 1)
        inside = ok if inside is None else inside.logical_and(ok)
        term = _C.clamp(p, 0, spatial[d] - 1).long() * stride
        index = term if index is None else index + term
        stride *= spatial[d]
    assert index is not None and inside is not None
    m = int(index.shape[1])
    values = flat.gather(2, index.unsqueeze(1).expand(n, c, m))
    return values, inside.unsqueeze(1)


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Any:
    """torch's ``F.grid_sample`` for 4-d and 5-d inputs, bilinear (trilinear on 5-d) or nearest
    (NOTE [ Grid sampling ]): ``[N, C, *in]`` sampled at ``grid`` ``[N, *out, nd]`` -> ``[N, C, *out]``."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    check("grid_sample", input=input, grid=grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    if mode == "bicubic":
        raise NotImplementedError("grid_sample: mode='bicubic' is not supported; supported are 'bilinear' and "
                                  "'nearest' (on 4-d and 5-d inputs)")
    if not input.is_floating_point() or input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have the same floating point dtype, but "
                           f"got input {input.dtype} and grid {grid.dtype}")
    n, c = int(input.shape[0]), int(input.shape[1])
    spatial = [int(v) for v in input.shape[2:]]
    out_spatial = [int(v) for v in grid.shape[1:-1]]
    nd = len(spatial)
    m = math.prod(out_spatial)
    flat = input.reshape(n, c, math.prod(spatial))
    g = grid.reshape(n, m, nd)
    # grid coordinate j runs along spatial dim nd - 1 - j (x along the width)
    coords = [_source_coord(g.select(2, nd - 1 - d), spatial[d], padding_mode, align_corners) for d in range(nd)]
    if mode == "nearest":
        values, inside = _tap(flat, [_C.clamp(_C.round(x), -1, s) for x, s in zip(coords, spatial, strict=True)],
                              spatial)
        out = values * inside.to(values.dtype)
    else:
        lows = [_C.floor(x) for x in coords]
        # per dim, the (position, weight) of the lower and the upper tap, as torch weighs them
        taps = [((lo, lo + 1 - x), (lo + 1, x - lo)) for x, lo in zip(coords, lows, strict=True)]
        out = None
        for corner in itertools.product((0, 1), repeat=nd):
            pos = [_C.clamp(taps[d][b][0], -1, spatial[d]) for d, b in enumerate(corner)]
            weight = None
            for d, b in enumerate(corner):
                w = taps[d][b][1]
                weight = w if weight is None else weight * w
            assert weight is not None
            values, inside = _tap(flat, pos, spatial)
            term = values * (weight.unsqueeze(1) * inside.to(weight.dtype))
            out = term if out is None else out + term
    assert out is not None
    return out.reshape(n, c, *out_spatial)
