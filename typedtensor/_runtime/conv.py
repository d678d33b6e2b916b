"""``nn.functional``'s 1-d and 3-d convolutions and pools, the transposed convolutions and the
adaptive pools, written over the 2-d kernels (conv2d, conv2d's input-gradient, max/avg pool2d) and
differentiable primitives: each gets its gradient, its CUDA path and graph capture from those.

NOTE [ conv3d from conv2d ]
A 3-d convolution is a sum over the depth taps ``kd`` of 2-d convolutions of the depth slices the tap
reads. Stacking those slices as channels makes the sum one conv2d: the input padded in depth, its
``kD`` strided depth slices ``[N, C, D_out, H, W]`` stacked into ``[N * D_out, g * (kD * C/g), H, W]``
(channels ordered group, tap, channel, so that each group's channels stay together) and the weight
``[O, C/g, kD, kH, kW]`` laid out as ``[O, kD * C/g, kH, kW]`` to match. The stack costs ``kD`` copies
of the input (im2col in depth only); the GEMMs are conv2d's.

NOTE [ Separable pools ]
A 3-d max or average pool's window is a box, the product of one interval per dim; a max over a box
is a max over depth of maxima over (H, W), and an average's sum and count (torch's divisor, with or
without the padding, clipped in ceil mode) factor the same way. So a 3-d pool is a 2-d pool over
(H, W) followed by one over (D, 1). The adaptive pools' windows are boxes too; the max ones gather
each window's elements (an index table per output) and take the first maximum, as torch scans.
"""

from __future__ import annotations

import math
from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "avg_pool1d", "avg_pool3d", "conv1d", "conv3d", "conv_transpose1d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "max_pool1d", "max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d",
]


def ntuple(value: Any, n: int, what: str) -> tuple[int, ...]:
    """An int or a sequence of ``n`` ints (a 1-element sequence repeats) as ``n`` ints."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (int(value[0]),) * n
        if len(value) != n:
            raise ValueError(f"{what} must be an int or a tuple of {n} ints, got {value!r}")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def same_padding(kernel: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[int, ...]:
    """``F.pad`` amounts (last dim first) for padding='same': ``d (k - 1)`` split with the extra unit
    after, as torch does."""
    pad: list[int] = []
    for k, d in zip(reversed(kernel), reversed(dilation), strict=True):
        total = d * (k - 1)
        pad += [total // 2, total - total // 2]
    return tuple(pad)


def _zero_pad(x: Any, amounts: tuple[int, ...]) -> Any:
    """``x`` with zeros added before and after its trailing dims (``F.pad`` amounts, last dim first),
    out of place (concatenations), so that ``tt.compile`` captures it."""
    for i in range(len(amounts) // 2):
        lo, hi = amounts[2 * i], amounts[2 * i + 1]
        d = x.ndim - 1 - i
        parts = []
        for n in (lo, hi):
            shape = list(x.shape)
            shape[d] = n
            parts.append(_C.zeros(*shape, dtype=x.dtype, device=x.device) if n else None)
        pieces = [t for t in (parts[0], x, parts[1]) if t is not None]
        if len(pieces) > 1:
            x = _C.cat(pieces, d)
    return x


def _batched(input: Any, nd: int) -> tuple[Any, bool]:
    unbatched = input.ndim == nd + 1
    return (input.unsqueeze(0) if unbatched else input), unbatched


def _check_float(name: str, *tensors: Any) -> None:
    for t in tensors:
        if t is not None and not t.is_floating_point():
            raise TypeError(f"[{name}] needs floating point tensors, got {t.dtype}")


# ---------------------------------------------------------------------------------------------
# Convolutions


def conv1d(input: Any, weight: Any, bias: Any | None = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Any:
    """conv2d over a height of 1: ``[N, C, L]`` -> ``[N, O, L']``."""
    check("conv1d", input=input, weight=weight, bias=bias, stride=stride, padding=padding, dilation=dilation,
          groups=groups)
    (s,), (d,) = ntuple(stride, 1, "stride"), ntuple(dilation, 1, "dilation")
    x, unbatched = _batched(input, 1)
    if isinstance(padding, str):
        pad: Any = padding
    else:
        pad = (0, ntuple(padding, 1, "padding")[0])
    y = _C.conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, s), pad, (1, d), groups).squeeze(2)
    return y.squeeze(0) if unbatched else y


def conv3d(input: Any, weight: Any, bias: Any | None = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Any:
    """``[N, C, D, H, W]`` -> ``[N, O, D', H', W']`` as one conv2d (NOTE [ conv3d from conv2d ])."""
    check("conv3d", input=input, weight=weight, bias=bias, stride=stride, padding=padding, dilation=dilation,
          groups=groups)
    _check_float("conv3d", input, weight, bias)
    st, dl = ntuple(stride, 3, "stride"), ntuple(dilation, 3, "dilation")
    x, unbatched = _batched(input, 3)
    kd, kh, kw = (int(k) for k in weight.shape[2:])
    pd: tuple[int, ...]
    if padding == "same":
        x = _zero_pad(x, same_padding((kd, kh, kw), dl))
        pd = (0, 0, 0)
    elif padding == "valid":
        pd = (0, 0, 0)
    elif isinstance(padding, str):
        raise ValueError(f"Invalid padding string '{padding}', should be one of ('valid', 'same')")
    else:
        pd = ntuple(padding, 3, "padding")
    n, c, depth = int(x.shape[0]), int(x.shape[1]), int(x.shape[2])
    o, g = int(weight.shape[0]), groups
    if pd[0]:
        x = _zero_pad(x, (0, 0, 0, 0, pd[0], pd[0]))
        depth += 2 * pd[0]
    d_out = (depth - dl[0] * (kd - 1) - 1) // st[0] + 1
    h, w = int(x.shape[3]), int(x.shape[4])
    span = st[0] * (d_out - 1) + 1
    taps = [x[:, :, t * dl[0] : t * dl[0] + span : st[0]] for t in range(kd)]  # kd x [N, C, D', H, W]
    cols = _C.stack(taps, 2).reshape(n, g, c // g, kd, d_out, h, w).permute(0, 4, 1, 3, 2, 5, 6)
    cols = cols.reshape(n * d_out, c * kd, h, w)
    w2 = weight.permute(0, 2, 1, 3, 4).reshape(o, kd * (c // g), kh, kw)
    y = _C.conv2d(cols, w2, bias, st[1:], pd[1:], dl[1:], g)  # [N * D', O, H', W']
    y = y.reshape(n, d_out, o, y.shape[2], y.shape[3]).permute(0, 2, 1, 3, 4)
    return y.squeeze(0) if unbatched else y.contiguous()


def conv_transpose1d(input: Any, weight: Any, bias: Any | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:
    """conv_transpose2d over a height of 1: ``[N, C_in, L]`` with weight ``[C_in, C_out / groups, k]``."""
    check("conv_transpose1d", input=input, weight=weight, bias=bias, stride=stride, padding=padding,
          output_padding=output_padding, groups=groups, dilation=dilation)
    (s,), (p,), (op,), (d,) = (ntuple(v, 1, n) for v, n in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")))
    x, unbatched = _batched(input, 1)
    y = _C.conv_transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, s), (0, p), (0, op), groups, (1, d))
    y = y.squeeze(2)
    return y.squeeze(0) if unbatched else y


# ---------------------------------------------------------------------------------------------
# Pools


def _stride(kernel_size: Any, stride: Any, n: int) -> tuple[int, ...]:
    return ntuple(kernel_size if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else stride,
                  n, "stride")


def max_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """max_pool2d over a height of 1 (its in-plane indices are then positions along L)."""
    check("max_pool1d", input=input, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
          ceil_mode=ceil_mode)
    (k,), (s,) = ntuple(kernel_size, 1, "kernel_size"), _stride(kernel_size, stride, 1)
    (p,), (d,) = ntuple(padding, 1, "padding"), ntuple(dilation, 1, "dilation")
    r = _C.max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices)
    if return_indices:
        return r[0].squeeze(-2), r[1].squeeze(-2)
    return r.squeeze(-2)


def avg_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Any:
    check("avg_pool1d", input=input, kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode)
    (k,), (s,), (p,) = ntuple(kernel_size, 1, "kernel_size"), _stride(kernel_size, stride, 1), ntuple(padding, 1, "padding")
    return _C.avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad).squeeze(-2)


def _planes(x: Any) -> tuple[Any, tuple[int, ...]]:
    """``[N, C, D, H, W]`` as ``[N, C * D, H, W]`` (the 2-d pool's planes), and the leading sizes."""
    n, c, d = (int(v) for v in x.shape[:3])
    return x.reshape(n, c * d, x.shape[3], x.shape[4]), (n, c, d)


def max_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """A 2-d max pool over (H, W), then one over D (NOTE [ Separable pools ]); the indices are flat
    positions in the ``D * H * W`` volume, as torch's."""
    check("max_pool3d", input=input, kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
          ceil_mode=ceil_mode)
    k, s = ntuple(kernel_size, 3, "kernel_size"), _stride(kernel_size, stride, 3)
    p, dl = ntuple(padding, 3, "padding"), ntuple(dilation, 3, "dilation")
    x, unbatched = _batched(input, 3)
    planes, (n, c, d) = _planes(x)
    h, w = int(x.shape[3]), int(x.shape[4])
    v1, i1 = _C.max_pool2d(planes, k[1:], s[1:], p[1:], dl[1:], ceil_mode, True)  # [N, C*D, H', W']
    ho, wo = int(v1.shape[2]), int(v1.shape[3])
    v2, i2 = _C.max_pool2d(v1.reshape(n, c, d, ho * wo), (k[0], 1), (s[0], 1), (p[0], 0), (dl[0], 1), ceil_mode, True)
    out = v2.reshape(n, c, -1, ho, wo)
    if not return_indices:
        return out.squeeze(0) if unbatched else out
    # i2: flat positions d * (H' W') + j in the (D, H' W') plane; i1: h * W + w within depth slice d
    depth_at = i2 // (ho * wo)
    inner = i1.reshape(n, c, d * ho * wo).gather(2, i2.reshape(n, c, -1)).reshape(i2.shape)
    idx = (depth_at * (h * w) + inner).reshape(n, c, -1, ho, wo)
    return (out.squeeze(0), idx.squeeze(0)) if unbatched else (out, idx)


def avg_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Any:
    """A 2-d average over (H, W), then one over D (NOTE [ Separable pools ]); with divisor_override,
    two window sums divided once."""
    check("avg_pool3d", input=input, kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
          count_include_pad=count_include_pad, divisor_override=divisor_override)
    if divisor_override is not None and divisor_override == 0:
        raise ValueError("avg_pool3d: divisor must be not zero")
    k, s, p = ntuple(kernel_size, 3, "kernel_size"), _stride(kernel_size, stride, 3), ntuple(padding, 3, "padding")
    x, unbatched = _batched(input, 3)
    planes, (n, c, d) = _planes(x)
    div = None if divisor_override is None else 1
    a1 = _C.avg_pool2d(planes, k[1:], s[1:], p[1:], ceil_mode, count_include_pad, div)
    ho, wo = int(a1.shape[2]), int(a1.shape[3])
    a2 = _C.avg_pool2d(a1.reshape(n, c, d, ho * wo), (k[0], 1), (s[0], 1), (p[0], 0), ceil_mode, count_include_pad, div)
    out = a2.reshape(n, c, -1, ho, wo)
    if divisor_override is not None:
        out = out / divisor_override
    return out.squeeze(0) if unbatched else out


def _output_sizes(name: str, output_size: Any, spatial: tuple[int, ...]) -> tuple[int, ...]:
    nd = len(spatial)
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * nd
    if len(sizes) == 1 and nd > 1:
        sizes = tuple(sizes) * nd
    if len(sizes) != nd:
        raise ValueError(f"{name}: output_size must be an int or {nd} values, got {output_size!r}")
    return tuple(spatial[i] if v is None else int(v) for i, v in enumerate(sizes))


def adaptive_avg_pool1d(input: Any, output_size: Any) -> Any:
    check("adaptive_avg_pool1d", input=input, output_size=output_size)
    (lo,) = _output_sizes("adaptive_avg_pool1d", output_size, (int(input.shape[-1]),))
    return _C.adaptive_avg_pool2d(input.unsqueeze(-2), (1, lo)).squeeze(-2)


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Any:
    """Adaptive windows are boxes: the (H, W) average, then the D one (NOTE [ Separable pools ])."""
    check("adaptive_avg_pool3d", input=input, output_size=output_size)
    x, unbatched = _batched(input, 3)
    od, oh, ow = _output_sizes("adaptive_avg_pool3d", output_size, tuple(int(v) for v in x.shape[2:]))
    planes, (n, c, d) = _planes(x)
    a1 = _C.adaptive_avg_pool2d(planes, (oh, ow))
    a2 = _C.adaptive_avg_pool2d(a1.reshape(n, c, d, oh * ow), (od, oh * ow))  # width: the identity
    out = a2.reshape(n, c, od, oh, ow)
    return out.squeeze(0) if unbatched else out


def _adaptive_windows(size: int, out: int) -> list[range]:
    """torch's adaptive windows: ``[floor(i size / out), ceil((i + 1) size / out))``."""
    return [range(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


# The most window positions _adaptive_max lists on the host (int64: 1 GiB of table): an output size
# past it would exhaust memory building Python lists before any tensor is allocated.
_MAX_WINDOW_TABLE = 1 << 27


def _adaptive_max(name: str, input: Any, output_size: Any, return_indices: bool, nd: int) -> Any:
    x, unbatched = _batched(input, nd)
    spatial = tuple(int(v) for v in x.shape[2:])
    outs = _output_sizes(name, output_size, spatial)
    # the output's own size first, as torch's allocation would (too many elements, or no memory)
    _C.empty((int(x.shape[0]), int(x.shape[1]), *outs), dtype=x.dtype)
    table_bound = math.prod(o * (-(-size // max(o, 1)) + 1) for size, o in zip(spatial, outs, strict=True))
    if table_bound > _MAX_WINDOW_TABLE:
        raise RuntimeError(f"{name}: output size {list(outs)} over an input of {list(spatial)} needs a table of up to "
                           f"{table_bound} window positions; this implementation builds at most {_MAX_WINDOW_TABLE}")
    windows = [_adaptive_windows(size, o) for size, o in zip(spatial, outs, strict=True)]
    strides = [math.prod(spatial[i + 1 :]) for i in range(nd)]
    # one row of flat positions per output, in scan order; short windows repeat their first position
    # (a repeat never wins: the first maximum is kept)
    rows: list[list[int]] = [[0]]
    for dim_windows, stride in zip(windows, strides, strict=True):
        rows = [[base + q * stride for base in row for q in win] for row in rows for win in dim_windows]
    width = max((len(r) for r in rows), default=1)
    table = _C.tensor([r + [r[0]] * (width - len(r)) for r in rows], dtype=_C.int64, device=x.device)
    n, c = int(x.shape[0]), int(x.shape[1])
    flat = x.reshape(n, c, -1).index_select(2, table.reshape(-1)).reshape(n, c, len(rows), width)
    values, which = flat.max(3)
    out = values.reshape(n, c, *outs)
    if not return_indices:
        return out.squeeze(0) if unbatched else out
    idx = table.unsqueeze(0).unsqueeze(0).expand(n, c, len(rows), width).gather(3, which.unsqueeze(3))
    idx = idx.reshape(n, c, *outs)
    return (out.squeeze(0), idx.squeeze(0)) if unbatched else (out, idx)


def adaptive_max_pool1d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    check("adaptive_max_pool1d", input=input, output_size=output_size)
    return _adaptive_max("adaptive_max_pool1d", input, output_size, return_indices, 1)


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    check("adaptive_max_pool2d", input=input, output_size=output_size)
    return _adaptive_max("adaptive_max_pool2d", input, output_size, return_indices, 2)


def adaptive_max_pool3d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    check("adaptive_max_pool3d", input=input, output_size=output_size)
    return _adaptive_max("adaptive_max_pool3d", input, output_size, return_indices, 3)


# ---------------------------------------------------------------------------------------------
# Unpooling and power-average pools


def _unpool_output_size(input: Any, kernel: tuple[int, ...], stride: tuple[int, ...], padding: tuple[int, ...],
                        output_size: Any) -> tuple[int, ...]:
    """torch's ``_unpool_output_size``: ``(in - 1) stride + kernel - 2 padding`` per dim, or the
    requested size (its last ``nd`` entries)."""
    nd = len(kernel)
    spatial = [int(v) for v in input.shape[-nd:]]
    default = tuple((n - 1) * s + k - 2 * p for n, k, s, p in zip(spatial, kernel, stride, padding, strict=True))
    if output_size is None:
        return default
    sizes = [int(v) for v in output_size]
    return tuple(sizes[2:] if len(sizes) == nd + 2 else sizes)


def _max_unpool(name: str, input: Any, indices: Any, kernel_size: Any, stride: Any, padding: Any, output_size: Any,
                nd: int) -> Any:
    """Each input value written at its index in a zero ``[N, C, prod(output)]`` plane (a scatter,
    whose VJP gathers the gradient back), as torch's max_unpool kernels."""
    check(name, input=input, indices=indices, kernel_size=kernel_size, stride=stride, padding=padding,
          output_size=output_size)
    if indices.dtype != _C.int64:
        raise RuntimeError(f"{name}: elements in indices should be type int64 but got: {indices.dtype}")
    k, p = ntuple(kernel_size, nd, "kernel_size"), ntuple(padding, nd, "padding")
    sizes = _unpool_output_size(input, k, _stride(kernel_size, stride, nd), p, output_size)
    x, unbatched = _batched(input, nd)
    idx = indices.unsqueeze(0) if unbatched else indices
    n, c = int(x.shape[0]), int(x.shape[1])
    total = math.prod(sizes)
    flat = idx.reshape(n, c, -1)
    if flat.numel() and total and (int(flat.min()) < 0 or int(flat.max()) >= total):
        bad = int(flat.max()) if int(flat.max()) >= total else int(flat.min())
        raise RuntimeError(f"{name}: Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(v) for v in sizes)})")
    out = _C.zeros(n, c, total, dtype=x.dtype, device=x.device)
    if total:
        out = out.scatter(2, flat, x.reshape(n, c, -1))
    out = out.reshape(n, c, *sizes)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Any:
    """max_pool1d's partial inverse: ``[N, C, L]`` -> ``[N, C, L_out]``, zeros off the maxima."""
    return _max_unpool("max_unpool1d", input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Any:
    """max_pool2d's partial inverse: ``[N, C, H, W]`` -> ``[N, C, H_out, W_out]``, zeros off the maxima."""
    return _max_unpool("max_unpool2d", input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Any:
    """max_pool3d's partial inverse: ``[N, C, D, H, W]`` -> ``[N, C, D_out, H_out, W_out]``."""
    return _max_unpool("max_unpool3d", input, indices, kernel_size, stride, padding, output_size, 3)


def _avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False) -> Any:
    k, s, p = ntuple(kernel_size, 2, "kernel_size"), _stride(kernel_size, stride, 2), ntuple(padding, 2, "padding")
    return _C.avg_pool2d(input, k, s, p, ceil_mode, True)


def _max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                ceil_mode: bool = False) -> Any:
    k, s, p = ntuple(kernel_size, 2, "kernel_size"), _stride(kernel_size, stride, 2), ntuple(padding, 2, "padding")
    return _C.max_pool2d(input, k, s, p, ntuple(dilation, 2, "dilation"), ceil_mode, False)


_AVG = {1: avg_pool1d, 2: _avg_pool2d, 3: avg_pool3d}
_MAXP = {1: max_pool1d, 2: _max_pool2d, 3: max_pool3d}


def _lp_pool(name: str, input: Any, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool, nd: int) -> Any:
    """torch's formula: the average pool of ``x^p`` times the window's size, to the ``1/p`` (the sign
    and relu keep a negative average, possible for odd ``p``, out of the root); ``p = +-inf`` is the
    max pool of ``|x|`` (or minus that of ``-|x|``)."""
    check(name, input=input, norm_type=norm_type, kernel_size=kernel_size, stride=stride, ceil_mode=ceil_mode)
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        if norm_type > 0:
            return _MAXP[nd](input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -_MAXP[nd](-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = _AVG[nd](input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    size = math.prod(ntuple(kernel_size, nd, "kernel_size"))
    return (_C.sign(out) * _C.relu(out.abs())).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input: Any, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Any:
    """The power-average pool over ``[N, C, L]``: ``(sum over each window of x^p)^(1/p)``."""
    return _lp_pool("lp_pool1d", input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Any, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Any:
    """The power-average pool over ``[N, C, H, W]`` (or ``[C, H, W]``)."""
    return _lp_pool("lp_pool2d", input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Any, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Any:
    """The power-average pool over ``[N, C, D, H, W]`` (or unbatched)."""
    return _lp_pool("lp_pool3d", input, norm_type, kernel_size, stride, ceil_mode, 3)
