"""Every op forward against torch (and numpy), on random shapes with hypothesis: broadcasting edge
cases, empty tensors, non-contiguous and expanded inputs, dtype promotion."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import typedtensor._runtime as tt
from tests.backend.helpers import DTYPES, assert_close, pair
from typedtensor._runtime import functional as F

torch = pytest.importorskip("torch")
tF = torch.nn.functional
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def broadcast_pair(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    out = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    a = [d if draw(st.booleans()) else 1 for d in out]
    b = [d if draw(st.booleans()) else 1 for d in out]
    a = a[draw(st.integers(0, len(a))):]
    b = b[draw(st.integers(0, len(b))):]
    return tuple(a), tuple(b)


def values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("int"):
        return rng.integers(-5, 6, shape)
    return rng.standard_normal(shape) * 3


def layout(x: Any, t: Any, how: int) -> tuple[Any, Any]:
    """Same values, other memory layouts: 0 plain, 1 transposed copy viewed back, 2 strided slice."""
    if how == 1 and x.ndim >= 2:
        return x.transpose(0, 1).contiguous().transpose(0, 1), t.transpose(0, 1).contiguous().transpose(0, 1)
    if how == 2 and x.ndim >= 1:
        xr = tt.cat([x, x], -1)[..., ::2]
        tr = torch.cat([t, t], -1)[..., ::2]
        return xr, tr
    return x, t


BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
          "logical_and", "logical_or", "logical_xor", "remainder", "floor_divide", "pow", "atan2"]


@SETTINGS
@given(shapes=broadcast_pair(), da=st.sampled_from(DTYPES), db=st.sampled_from(DTYPES),
       op=st.sampled_from(BINARY), how=st.integers(0, 2), seed=st.integers(0, 2**16))
def test_binary_broadcast_promotion(shapes: Any, da: str, db: str, op: str, how: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, ta = pair(torch, values(rng, shapes[0], da), da)
    b, tb = pair(torch, values(rng, shapes[1], db), db)
    a, ta = layout(a, ta, how)
    if op in ("remainder", "floor_divide", "pow") and (da == "bool" or db == "bool"):
        return
    if op in ("remainder", "floor_divide") and not (tb.is_floating_point() or ta.is_floating_point()):
        tb = torch.where(tb == 0, torch.ones_like(tb), tb)
        b = tt.tensor(tb.numpy())
    if op == "pow" and not (ta.is_floating_point() or tb.is_floating_point()):
        tb = tb.abs()
        b = tt.tensor(tb.numpy())
    try:
        ref = getattr(torch, op)(ta, tb)
    except RuntimeError:
        with pytest.raises((TypeError, ValueError)):
            getattr(tt, op)(a, b)
        return
    ours = getattr(tt, op)(a, b)
    assert_close(ours, ref, rtol=1e-4, atol=1e-5)


@SETTINGS
@given(shape=st.lists(st.integers(0, 5), max_size=3).map(tuple), scalar=st.sampled_from([2, -3, 0.5, True]),
       dtype=st.sampled_from(DTYPES), op=st.sampled_from(["__add__", "__mul__", "__sub__", "__truediv__", "__radd__",
                                                          "__rsub__", "__rmul__", "__gt__", "__pow__"]))
def test_scalar_ops(shape: Any, scalar: Any, dtype: str, op: str) -> None:
    rng = np.random.default_rng(0)
    x, tx = pair(torch, np.abs(values(rng, shape, dtype)) if op == "__pow__" else values(rng, shape, dtype), dtype)
    try:
        ref = getattr(tx, op)(scalar)
    except RuntimeError:
        with pytest.raises((TypeError, ValueError)):
            getattr(x, op)(scalar)
        return
    if ref is NotImplemented:
        return
    assert_close(getattr(x, op)(scalar), ref, rtol=1e-4, atol=1e-5)


UNARY = ["neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "gelu", "silu",
         "erf", "floor", "ceil", "round", "trunc", "sign", "reciprocal", "square", "expm1", "log1p", "exp2",
         "log2", "atan", "isnan", "isfinite", "logical_not", "softplus"]


@SETTINGS
@given(shape=st.lists(st.integers(0, 6), max_size=3).map(tuple), dtype=st.sampled_from(["float32", "float64", "int64"]),
       op=st.sampled_from(UNARY), how=st.integers(0, 2))
def test_unary(shape: Any, dtype: str, op: str, how: int) -> None:
    rng = np.random.default_rng(1)
    data = values(rng, shape, dtype)
    if op in ("log", "sqrt", "rsqrt", "log2", "log1p"):
        data = np.abs(data) + (0.1 if dtype != "int64" else 1)
    x, tx = pair(torch, data, dtype)
    x, tx = layout(x, tx, how)
    fn = getattr(tF, op) if op in ("gelu", "silu", "softplus") else getattr(torch, op)
    try:
        ref = fn(tx)
    except (RuntimeError, TypeError):
        with pytest.raises((TypeError, ValueError, NotImplementedError)):
            getattr(tt, op)(x)
        return
    assert_close(getattr(tt, op)(x), ref, rtol=2e-5, atol=2e-6)


def test_exp_accuracy_and_edges() -> None:
    x = np.concatenate([np.linspace(-110, 95, 100001), [np.inf, -np.inf, np.nan, 0.0, -0.0]]).astype(np.float32)
    ours = tt.tensor(x).exp().numpy()
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(ours, ref, rtol=3e-7, atol=3e-45)  # 1 ulp of a subnormal
    assert_close(tt.tensor([1e-40, -1e-40], dtype=tt.float32).exp(), torch.tensor([1e-40, -1e-40]).exp())


REDUCE = ["sum", "mean", "prod", "amax", "amin", "all", "any"]


@st.composite
def reduce_case(draw: Any) -> tuple[tuple[int, ...], Any, bool]:
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=0, max_size=4)))
    if shape and draw(st.booleans()):
        dims = draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape),
                             unique_by=lambda d: d % len(shape)))
        dims = dims[0] if len(dims) == 1 and draw(st.booleans()) else tuple(dims)
    else:
        dims = None
    return shape, dims, draw(st.booleans())


@SETTINGS
@given(case=reduce_case(), op=st.sampled_from(REDUCE), dtype=st.sampled_from(DTYPES), how=st.integers(0, 2))
def test_reductions(case: Any, op: str, dtype: str, how: int) -> None:
    shape, dims, keepdim = case
    rng = np.random.default_rng(2)
    x, tx = pair(torch, values(rng, shape, dtype) * (0.3 if op == "prod" else 1), dtype)
    x, tx = layout(x, tx, how)
    kwargs = {} if dims is None else {"dim": dims, "keepdim": keepdim}
    if op == "prod" and isinstance(dims, tuple):
        return  # torch's prod takes one dim; ours takes several
    try:
        ref = getattr(torch, op)(tx, **kwargs)
    except (RuntimeError, TypeError):
        with pytest.raises((TypeError, ValueError)):
            getattr(tt, op)(x, **kwargs)
        return
    assert_close(getattr(tt, op)(x, **kwargs), ref, rtol=1e-4, atol=1e-4)


@SETTINGS
@given(case=reduce_case(), dtype=st.sampled_from(["float32", "float64", "int64"]))
def test_max_min_arg_var_std_logsumexp(case: Any, dtype: str) -> None:
    shape, dims, keepdim = case
    rng = np.random.default_rng(3)
    x, tx = pair(torch, values(rng, shape, dtype), dtype)
    d = dims if isinstance(dims, int) else (dims[0] if dims else 0) if shape else 0
    if shape:
        assert_close(tt.max(x, d, keepdim), tuple(torch.max(tx, d, keepdim)))
        assert_close(tt.min(x, d, keepdim), tuple(torch.min(tx, d, keepdim)))
        assert_close(tt.argmax(x, d, keepdim), torch.argmax(tx, d, keepdim))
    assert_close(tt.argmin(x), torch.argmin(tx))
    assert_close(tt.max(x), torch.max(tx))
    if dtype != "int64":
        kwargs = {} if dims is None else {"dim": dims, "keepdim": keepdim}
        assert_close(tt.var(x, **kwargs), torch.var(tx, **kwargs), rtol=1e-4, atol=1e-5)
        assert_close(tt.std(x, correction=0, **kwargs), torch.std(tx, correction=0, **kwargs), rtol=1e-4, atol=1e-5)
        if dims is not None:
            assert_close(tt.logsumexp(x, dims, keepdim), torch.logsumexp(tx, dims, keepdim), rtol=1e-5, atol=1e-5)
        assert_close(tt.norm(x), torch.norm(tx), rtol=1e-5)
        assert_close(tt.cumsum(x, d), torch.cumsum(tx, d), rtol=1e-5, atol=1e-5)


def test_reduction_edge_cases() -> None:
    assert_close(tt.zeros(0).sum(), torch.zeros(0).sum())
    assert_close(tt.zeros(3, 0).sum(1), torch.zeros(3, 0).sum(1))
    assert_close(tt.zeros(0, 3).mean(0), torch.zeros(0, 3).mean(0))
    with pytest.raises(ValueError):
        tt.zeros(0).max()
    assert_close(tt.tensor([1.0, float("nan")]).max(), torch.tensor([1.0, float("nan")]).max())
    big = np.random.default_rng(0).random(3_000_001).astype(np.float32)
    np.testing.assert_allclose(tt.tensor(big).sum().item(), big.astype(np.float64).sum(), rtol=1e-6)
    assert_close(tt.tensor([[1, 2], [3, 4]]).sum(), torch.tensor([[1, 2], [3, 4]]).sum())
    assert_close(tt.tensor([True, True]).sum(), torch.tensor([True, True]).sum())


@SETTINGS
@given(rows=st.integers(16, 300), width=st.sampled_from([512, 777, 1024, 4096, 16384]), lead=st.booleans(),
       special=st.sampled_from(["", "nan", "inf", "-inf"]), dtype=st.sampled_from(["float32", "float64", "int64"]),
       seed=st.integers(0, 9))
def test_wide_slab_reduced_over_its_leading_dim(rows: int, width: int, lead: bool, special: str, dtype: str,
                                                seed: int) -> None:
    """The row-sweep path of sum/mean/amax/amin over dim 0 of a wide [rows, width] slab (per-thread
    full-width partials combined at the end), also as a 3-D [rows, 2, width / 2] input."""
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((rows, width)) * 10
    if special and dtype != "int64":
        v[int(rng.integers(0, rows)), int(rng.integers(0, width))] = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}[special]
    if lead:
        v = v.reshape(rows, 2, width // 2) if width % 2 == 0 else v
    x, tx = pair(torch, v, dtype)
    if dtype != "int64":
        assert_close(x.sum(0), tx.sum(0), rtol=1e-5, atol=1e-4)
        assert_close(x.mean(0), tx.mean(0), rtol=1e-5, atol=1e-5)
    else:
        assert_close(x.sum(0), tx.sum(0))
    assert_close(x.amax(0), tx.amax(0))
    assert_close(x.amin(0), tx.amin(0))


@SETTINGS
@given(n=st.integers(1, 80), other=st.integers(1, 300), dim=st.integers(0, 1), special=st.sampled_from(["", "nan", "inf", "-inf", "tie"]),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 9))
def test_row_and_lane_kernels_on_vector_widths(n: int, other: int, dim: int, special: str, dtype: str, seed: int) -> None:
    """Lengths across the 8/32-lane SIMD blocks and the 256-lane column blocks of the extreme,
    arg-extreme, softmax and logsumexp kernels, with a NaN, an infinity or a tie planted."""
    rng = np.random.default_rng(seed)
    shape = (other, n) if dim == 1 else (n, other)
    v = rng.standard_normal(shape) * (4 if seed % 2 else 40)  # 40: exp arguments reach the subnormal range
    if special:
        pos = tuple(int(rng.integers(0, s)) for s in shape)
        v[pos] = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "tie": v.max()}[special]
    x, tx = pair(torch, v, dtype)
    assert_close(tt.amax(x, dim), torch.amax(tx, dim))
    assert_close(tt.amin(x, dim), torch.amin(tx, dim))
    assert_close(tt.max(x, dim), tuple(torch.max(tx, dim)))
    assert_close(tt.min(x, dim), tuple(torch.min(tx, dim)))
    assert_close(tt.argmax(x, dim), torch.argmax(tx, dim))
    assert_close(F.softmax(x, dim), tF.softmax(tx, dim), rtol=1e-5, atol=1e-6)
    assert_close(F.log_softmax(x, dim), tF.log_softmax(tx, dim), rtol=1e-5, atol=1e-5)
    assert_close(tt.logsumexp(x, dim), torch.logsumexp(tx, dim), rtol=1e-5, atol=1e-5)


@st.composite
def matmul_shapes(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    m, k, n = draw(st.integers(1, 6)), draw(st.integers(0, 6)), draw(st.integers(1, 6))
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    ba = [b if draw(st.booleans()) else 1 for b in batch][draw(st.integers(0, len(batch))):]
    bb = [b if draw(st.booleans()) else 1 for b in batch][draw(st.integers(0, len(batch))):]
    a = (k,) if draw(st.integers(0, 4)) == 0 else (*ba, m, k)
    b = (k,) if draw(st.integers(0, 4)) == 0 else (*bb, k, n)
    return a, b


@SETTINGS
@given(shapes=matmul_shapes(), dtype=st.sampled_from(["float32", "float64", "int64"]), how=st.integers(0, 2))
def test_matmul(shapes: Any, dtype: str, how: int) -> None:
    rng = np.random.default_rng(4)
    a, ta = pair(torch, values(rng, shapes[0], dtype), dtype)
    b, tb = pair(torch, values(rng, shapes[1], dtype), dtype)
    a, ta = layout(a, ta, how)
    b, tb = layout(b, tb, (how + 1) % 3)
    assert_close(a @ b, ta @ tb, rtol=1e-4, atol=1e-4)


def test_mm_bmm_linear_einsum() -> None:
    rng = np.random.default_rng(5)
    a, b, c = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 5, 2)), rng.standard_normal((7, 5))
    A, B, C = (tt.tensor(v, dtype=tt.float32) for v in (a, b, c))
    tA, tB, tC = (torch.tensor(v, dtype=torch.float32) for v in (a, b, c))
    assert_close(tt.bmm(A, B), torch.bmm(tA, tB), rtol=1e-5, atol=1e-5)
    assert_close(tt.mm(A[0], B[0]), torch.mm(tA[0], tB[0]), rtol=1e-5, atol=1e-5)
    assert_close(tt.linear(A, C, C[:, 0]), tF.linear(tA, tC, tC[:, 0]), rtol=1e-5, atol=1e-5)
    for eq, ops, tops in [
        ("bij,bjk->bik", (A, B), (tA, tB)), ("bij->bji", (A,), (tA,)), ("ii->i", (A[0, :4, :4],), (tA[0, :4, :4],)),
        ("ij,kj->ik", (A[0], C), (tA[0], tC)), ("bij,bjk", (A, B), (tA, tB)), ("i,i->", (C[0], C[1]), (tC[0], tC[1])),
        ("...ij,...jk->...ik", (A, B), (tA, tB)), ("ij->", (C,), (tC,)), ("bij,kj,bjl->bikl", (A, C, B), (tA, tC, tB)),
    ]:
        assert_close(tt.einsum(eq, *ops), torch.einsum(eq, *tops), rtol=1e-4, atol=1e-4)
    assert_close(tt.tensordot(A, B, dims=([2, 0], [1, 0])), torch.tensordot(tA, tB, dims=([2, 0], [1, 0])), rtol=1e-4, atol=1e-4)


@SETTINGS
@given(kh=st.integers(1, 4), kw=st.integers(1, 4), dh=st.integers(1, 3), dw=st.integers(1, 3), groups=st.sampled_from([1, 2]),
       batched=st.booleans(), h=st.integers(1, 7), w=st.integers(1, 7))
def test_conv2d_same_padding_even_and_odd_kernels(kh: int, kw: int, dh: int, dw: int, groups: int, batched: bool, h: int, w: int) -> None:
    """padding='same' for every kernel/dilation parity: torch pads an odd total with the extra unit
    at the bottom/right. Forward and all three gradients against torch."""
    rng = np.random.default_rng(kh * 100 + kw * 10 + dh + dw)
    xs = (2, 4, h, w) if batched else (4, h, w)
    x, wt, b, gy = (rng.standard_normal(s).astype(np.float32) for s in (xs, (6, 4 // groups, kh, kw), (6,), (*xs[:-3], 6, h, w)))
    ours = [tt.tensor(v, requires_grad=True) for v in (x, wt, b)]
    ref = [torch.tensor(v, requires_grad=True) for v in (x, wt, b)]
    y = F.conv2d(*ours, padding="same", dilation=(dh, dw), groups=groups)
    ty = tF.conv2d(*ref, padding="same", dilation=(dh, dw), groups=groups)
    assert_close(y, ty, rtol=1e-4, atol=1e-4)
    (y * tt.tensor(gy)).sum().backward()
    (ty * torch.tensor(gy)).sum().backward()
    for a, t in zip(ours, ref, strict=True):
        assert_close(a.grad, t.grad, rtol=1e-4, atol=1e-4)


@SETTINGS
@given(mode=st.sampled_from(["reflect", "replicate", "circular"]), k=st.integers(1, 3), batched=st.booleans(),
       sizes=st.lists(st.integers(0, 5), min_size=5, max_size=5), pads=st.lists(st.integers(-3, 5), min_size=6, max_size=6),
       dtype=st.sampled_from(["float32", "float64", "int64"]))
def test_pad_reflect_replicate_circular(mode: str, k: int, batched: bool, sizes: list[int], pads: list[int], dtype: str) -> None:
    """Non-constant F.pad against torch: same values, same gradient, or an error where torch
    raises one (reflect pad >= dim size, circular wrapping more than once, empty dims...). torch
    returns uninitialised memory for a circular pad that wraps more than once around what negative
    padding keeps; those draws only check that we raise."""
    shape = tuple(sizes[: k + (2 if batched else 1)])
    pad = tuple(pads[: 2 * k])
    v = np.random.default_rng(len(shape)).standard_normal(shape) * 3
    x, tx = pair(torch, v, dtype)
    wraps = mode == "circular" and any(_wraps_kept_part(shape[-1 - i], pad[2 * i], pad[2 * i + 1]) for i in range(k))
    try:
        ref = tF.pad(tx, pad, mode=mode)
    except (RuntimeError, NotImplementedError):
        with pytest.raises(ValueError):
            F.pad(x, pad, mode=mode)
        return
    if wraps:
        with pytest.raises(ValueError):
            F.pad(x, pad, mode=mode)
        return
    assert_close(F.pad(x, pad, mode=mode), ref)
    if dtype == "float64":
        X, tX = tt.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        g = np.random.default_rng(1).standard_normal(tuple(ref.shape))
        (F.pad(X, pad, mode=mode) * tt.tensor(g)).sum().backward()
        (tF.pad(tX, pad, mode=mode) * torch.tensor(g)).sum().backward()
        assert_close(X.grad, tX.grad, rtol=1e-10, atol=1e-12)


def _wraps_kept_part(n: int, lo: int, hi: int) -> bool:
    kept, out = n + min(lo, 0) + min(hi, 0), n + lo + hi
    return lo <= n and hi <= n and out > 0 and (kept <= 0 or lo > kept or hi > kept)


def test_pad_mode_arguments() -> None:
    x = tt.zeros(2, 5)
    with pytest.raises(ValueError, match="value"):
        F.pad(x, (1, 1), mode="reflect", value=1.0)
    with pytest.raises(NotImplementedError, match="mode"):
        F.pad(x, (1, 1), mode="wrap")
    with pytest.raises(ValueError, match="less than dim 1 of size 5"):
        F.pad(x, (5, 0), mode="reflect")
    assert_close(F.pad(x + 1, (1, 2), value=3.0), tF.pad(torch.ones(2, 5), (1, 2), value=3.0))


@pytest.mark.parametrize("n,c,h,w,o,k,stride,padding,dilation,groups,bias", [
    (2, 3, 9, 8, 4, 3, 1, 1, 1, 1, True), (1, 4, 7, 7, 6, 3, 2, 0, 1, 2, False), (3, 2, 10, 10, 2, 1, 1, 0, 1, 1, True),
    (2, 6, 11, 9, 6, 3, (2, 1), (1, 2), (2, 1), 3, True), (1, 1, 5, 5, 1, 5, 1, 2, 1, 1, False), (4, 3, 8, 8, 5, 2, 2, 1, 1, 1, True),
])
def test_conv2d(n: int, c: int, h: int, w: int, o: int, k: int, stride: Any, padding: Any, dilation: Any, groups: int, bias: bool) -> None:
    rng = np.random.default_rng(6)
    x, wt, b = (rng.standard_normal(s).astype(np.float32) for s in ((n, c, h, w), (o, c // groups, k, k), (o,)))
    args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    ours = F.conv2d(tt.tensor(x), tt.tensor(wt), tt.tensor(b) if bias else None, **args)
    ref = tF.conv2d(torch.tensor(x, dtype=torch.float32), torch.tensor(wt, dtype=torch.float32),
                    torch.tensor(b, dtype=torch.float32) if bias else None, **args)
    assert_close(ours, ref, rtol=1e-4, atol=1e-4)
    assert_close(F.conv2d(tt.tensor(x[0]), tt.tensor(wt), None, **args),
                 tF.conv2d(torch.tensor(x[0], dtype=torch.float32), torch.tensor(wt, dtype=torch.float32), None, **args),
                 rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("k,s,p,d,ceil", [(2, None, 0, 1, False), (3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 1, 0, 2, False), ((3, 2), (2, 1), (1, 0), 1, True)])
def test_pooling(k: Any, s: Any, p: Any, d: int, ceil: bool) -> None:
    x = np.random.default_rng(7).standard_normal((2, 3, 9, 8)).astype(np.float32)
    X, tX = tt.tensor(x), torch.tensor(x, dtype=torch.float32)
    assert_close(F.max_pool2d(X, k, s, p, d, ceil), tF.max_pool2d(tX, k, s, p, d, ceil))
    v, i = F.max_pool2d(X, k, s, p, d, ceil, return_indices=True)
    tv, ti = tF.max_pool2d(tX, k, s, p, d, ceil, return_indices=True)
    assert_close(v, tv)
    assert_close(i, ti)
    if d == 1:
        for cip in (True, False):
            assert_close(F.avg_pool2d(X, k, s, p, ceil, cip), tF.avg_pool2d(tX, k, s, p, ceil, cip), rtol=1e-5, atol=1e-6)
    for out in [(1, 1), (3, 5), (4, 4), (9, 8), (None, 2)]:
        assert_close(F.adaptive_avg_pool2d(X, out), tF.adaptive_avg_pool2d(tX, out), rtol=1e-5, atol=1e-6)


@SETTINGS
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple), data=st.data())
def test_softmax_layer_norm(shape: Any, data: Any) -> None:
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = (np.random.default_rng(8).standard_normal(shape) * 20).astype(np.float32)
    X, tX = tt.tensor(x), torch.tensor(x, dtype=torch.float32)
    assert_close(F.softmax(X, dim), tF.softmax(tX, dim), rtol=1e-5, atol=1e-6)
    assert_close(F.log_softmax(X, dim), tF.log_softmax(tX, dim), rtol=1e-5, atol=1e-5)
    k = data.draw(st.integers(1, len(shape)))
    ns = shape[-k:]
    w, b = np.random.default_rng(9).standard_normal((2, *ns)).astype(np.float32)
    assert_close(F.layer_norm(X, ns, tt.tensor(w), tt.tensor(b)),
                 tF.layer_norm(tX, ns, torch.tensor(w, dtype=torch.float32), torch.tensor(b, dtype=torch.float32)),
                 rtol=1e-4, atol=1e-4)


def test_softmax_extremes() -> None:
    x = [[1000.0, 0.0, -1000.0], [float("-inf"), 0.0, 1.0], [float("-inf")] * 3]
    assert_close(F.softmax(tt.tensor(x), 1), tF.softmax(torch.tensor(x), 1))
    assert_close(F.log_softmax(tt.tensor(x[:2]), 1), tF.log_softmax(torch.tensor(x[:2]), 1))


def test_batch_norm_and_losses() -> None:
    rng = np.random.default_rng(10)
    x = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    ours_rm, ours_rv = tt.tensor(rm), tt.tensor(rv)
    ref_rm, ref_rv = torch.tensor(rm), torch.tensor(rv)
    assert_close(F.batch_norm(tt.tensor(x), ours_rm, ours_rv, tt.tensor(w), tt.tensor(b), training=True),
                 tF.batch_norm(torch.tensor(x), ref_rm, ref_rv, torch.tensor(w), torch.tensor(b), training=True),
                 rtol=1e-4, atol=1e-5)
    assert_close(ours_rm, ref_rm, rtol=1e-5, atol=1e-6)
    assert_close(ours_rv, ref_rv, rtol=1e-5, atol=1e-6)
    assert_close(F.batch_norm(tt.tensor(x), ours_rm, ours_rv, training=False),
                 tF.batch_norm(torch.tensor(x), ref_rm, ref_rv, training=False), rtol=1e-4, atol=1e-5)

    logits = rng.standard_normal((6, 4)).astype(np.float32)
    target = np.array([0, 3, 1, 1, -100, 2])
    wt = np.array([1.0, 2.0, 0.5, 1.5], np.float32)
    L, T, W = tt.tensor(logits), tt.tensor(target), tt.tensor(wt)
    tL, tT, tW = torch.tensor(logits), torch.tensor(target), torch.tensor(wt)
    for red in ("mean", "sum", "none"):
        for smooth in (0.0, 0.1):
            assert_close(F.cross_entropy(L, T, reduction=red, label_smoothing=smooth),
                         tF.cross_entropy(tL, tT, reduction=red, label_smoothing=smooth), rtol=1e-5, atol=1e-6)
            assert_close(F.cross_entropy(L, T, W, reduction=red, label_smoothing=smooth),
                         tF.cross_entropy(tL, tT, tW, reduction=red, label_smoothing=smooth), rtol=1e-5, atol=1e-6)
        assert_close(F.nll_loss(F.log_softmax(L, 1), T, W, reduction=red), tF.nll_loss(tF.log_softmax(tL, 1), tT, tW, reduction=red), rtol=1e-5, atol=1e-6)
    probs = rng.random((6, 4)).astype(np.float32)
    probs /= probs.sum(1, keepdims=True)
    assert_close(F.cross_entropy(L, tt.tensor(probs)), tF.cross_entropy(tL, torch.tensor(probs)), rtol=1e-5, atol=1e-6)
    spatial = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    st_ = rng.integers(0, 4, (2, 3, 3))
    assert_close(F.cross_entropy(tt.tensor(spatial), tt.tensor(st_)), tF.cross_entropy(torch.tensor(spatial), torch.tensor(st_)), rtol=1e-5, atol=1e-6)
    p, y = rng.random(8).astype(np.float32), (rng.random(8) > 0.5).astype(np.float32)
    z = rng.standard_normal(8).astype(np.float32) * 5
    assert_close(F.mse_loss(tt.tensor(p), tt.tensor(y)), tF.mse_loss(torch.tensor(p), torch.tensor(y)))
    assert_close(F.binary_cross_entropy(tt.tensor(p), tt.tensor(y)), tF.binary_cross_entropy(torch.tensor(p), torch.tensor(y)), rtol=1e-5)
    pw = torch.tensor(2.0)
    assert_close(F.binary_cross_entropy_with_logits(tt.tensor(z), tt.tensor(y), pos_weight=tt.tensor(2.0)),
                 tF.binary_cross_entropy_with_logits(torch.tensor(z), torch.tensor(y), pos_weight=pw), rtol=1e-5)
    with pytest.raises(IndexError):
        F.cross_entropy(L, tt.tensor([0, 1, 2, 3, 4, 5]))


def test_embedding_dropout2d() -> None:
    w = np.random.default_rng(11).standard_normal((10, 3)).astype(np.float32)
    idx = np.array([[1, 2, 9], [0, 0, 4]])
    assert_close(F.embedding(tt.tensor(idx), tt.tensor(w)), tF.embedding(torch.tensor(idx), torch.tensor(w)))
    with pytest.raises(IndexError):
        F.embedding(tt.tensor([10]), tt.tensor(w))
    y = F.dropout2d(tt.ones(4, 8, 5, 5), 0.5)
    per_channel = y.sum((2, 3))
    assert set(np.unique(per_channel.numpy()).tolist()) <= {0.0, 50.0}
    assert F.dropout(tt.ones(3), 0.5, training=False).tolist() == [1.0] * 3


def test_where_clamp_tri_cat_split() -> None:
    rng = np.random.default_rng(12)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    X, tX = tt.tensor(x), torch.tensor(x)
    assert_close(tt.where(X > 0, X, tt.tensor(0.0)), torch.where(tX > 0, tX, torch.tensor(0.0)))
    assert_close(tt.where(X > 0, X, 1), torch.where(tX > 0, tX, 1))
    assert_close(X.clamp(-0.5, 0.5), tX.clamp(-0.5, 0.5))
    assert_close(X.clamp(min=0), tX.clamp(min=0))
    assert_close(tt.arange(6).clamp(1, 3), torch.arange(6).clamp(1, 3))
    for k in (-2, 0, 1, 7):
        assert_close(X.tril(k), tX.tril(k))
        assert_close(X.triu(k), tX.triu(k))
    assert_close(tt.cat([X, X[:2]], 0), torch.cat([tX, tX[:2]], 0))
    assert_close(tt.cat([X, X.int()], 1), torch.cat([tX, tX.int()], 1))
    assert_close(tt.stack([X, X], 2), torch.stack([tX, tX], 2))
    assert_close(X.split(2, 1), tX.split(2, 1))
    assert_close(X.split([1, 3], 0), tX.split([1, 3], 0))
    assert_close(X.chunk(3, 1), tX.chunk(3, 1))
    assert_close(X.unbind(1), tX.unbind(1))
    assert_close(X.repeat(2, 1, 3), tX.repeat(2, 1, 3))
    assert_close(X.flip(0, 1), tX.flip(0, 1))
    assert_close(X.roll(2, 1), tX.roll(2, 1))
    assert_close(X.sort(1), tuple(tX.sort(1)))
    assert_close(X.topk(2, 1), tuple(tX.topk(2, 1)))
    assert_close(X.movedim(0, 1), tX.movedim(0, 1))
    assert_close(X.unsqueeze(1).squeeze(), tX.unsqueeze(1).squeeze())
    assert_close(X.flatten(), tX.flatten())
    assert_close(X.reshape(2, 2, 5).unflatten(2, (5, 1)), tX.reshape(2, 2, 5).unflatten(2, (5, 1)))


def test_indexing_ops() -> None:
    rng = np.random.default_rng(13)
    x = rng.standard_normal((4, 5, 3)).astype(np.float32)
    X, tX = tt.tensor(x), torch.tensor(x)
    idx = rng.integers(0, 5, (4, 2, 3))
    assert_close(X.gather(1, tt.tensor(idx)), tX.gather(1, torch.tensor(idx)))
    assert_close(X.index_select(1, tt.tensor([4, 0, 0])), tX.index_select(1, torch.tensor([4, 0, 0])))
    src = rng.standard_normal((4, 2, 3)).astype(np.float32)
    assert_close(X.scatter(1, tt.tensor(idx[:, :1]), tt.tensor(src)), tX.scatter(1, torch.tensor(idx[:, :1]), torch.tensor(src)))
    assert_close(X.scatter_add(1, tt.tensor(idx), tt.tensor(src)), tX.scatter_add(1, torch.tensor(idx), torch.tensor(src)), rtol=1e-5, atol=1e-6)
    assert_close(X.scatter(1, tt.tensor(idx), 2.0), tX.scatter(1, torch.tensor(idx), 2.0))
    assert_close(X.index_add(0, tt.tensor([0, 0]), tt.tensor(x[:2])), tX.index_add(0, torch.tensor([0, 0]), tX[:2]))
    m = x > 0
    assert_close(X.masked_fill(tt.tensor(m), -1.0), tX.masked_fill(torch.tensor(m), -1.0))
    assert_close(X.masked_select(tt.tensor(m)), tX.masked_select(torch.tensor(m)))
    assert_close(tt.nonzero(tt.tensor(m)), torch.nonzero(torch.tensor(m)))


KEYS = [
    (1,), (slice(1, 3),), (Ellipsis, 0), (None, 2), (slice(None), None, slice(0, 4, 2)), (-1, -2),
    ([0, 2],), ([[0], [3]], [1, 2]), (slice(None), [4, 0, 1]), (Ellipsis, [2, 0]), ([1, 1], slice(None), [0, 2]),
    (slice(None), slice(None), 1), (slice(1, None), [0, 4], None), (0, [1, 2]), ([0, 1], 2),
]


@pytest.mark.parametrize("key", KEYS, ids=[str(k) for k in KEYS])
def test_getitem_setitem_match_numpy_and_torch(key: Any) -> None:
    x = np.arange(60, dtype=np.float32).reshape(4, 5, 3)
    X, tX = tt.tensor(x), torch.tensor(x)
    k_tt = tuple(tt.tensor(k) if isinstance(k, list) else k for k in key)
    k_t = tuple(torch.tensor(k) if isinstance(k, list) else k for k in key)
    k_np = tuple(np.array(k) if isinstance(k, list) else k for k in key)
    assert_close(X[k_tt], tX[k_t])
    assert_close(X[k_tt], x[k_np])
    assert_close(X[key], x[k_np])  # plain lists work as index arrays
    X2, x2 = X.clone(), x.copy()
    X2[k_tt] = -7.0
    x2[k_np] = -7.0
    assert_close(X2, x2)


def test_bool_mask_indexing_and_assignment() -> None:
    x = np.random.default_rng(14).standard_normal((4, 5)).astype(np.float32)
    X = tt.tensor(x)
    assert_close(X[X > 0], x[x > 0])
    assert_close(X[:, tt.tensor(x[0] > 0)], x[:, x[0] > 0])
    X[X < 0] = 0
    x[x < 0] = 0
    assert_close(X, x)
    X[1] = tt.arange(5).float()
    x[1] = np.arange(5)
    assert_close(X, x)
    with pytest.raises(IndexError):
        X[tt.ones(3, dtype=tt.bool)]
    with pytest.raises(IndexError):
        X[0, 0, 0]
    e = tt.zeros(0, 3)
    assert tuple(e[e.sum(1) > 0].shape) == (0, 3)


def test_matmul_with_empty_inner_dim_gives_zeros() -> None:
    """k = 0 once divided by zero on the batch-folding path (SIGFPE); the product of nothing is 0."""
    for sa, sb in [((1, 2, 0), (0, 3)), ((2, 0), (0, 3)), ((0,), (0,)), ((2, 2, 0), (2, 0, 1)), ((3, 0, 2), (2, 4))]:
        out = tt.zeros(*sa) @ tt.zeros(*sb)
        np.testing.assert_array_equal(out.numpy(), np.zeros(sa) @ np.zeros(sb))
