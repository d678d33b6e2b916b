"""The fast copy/cast kernels (tiled permuted copies, contiguous casts) and the lane-parallel
reductions (prod, norm, std/var, layer_norm) against torch: copies and casts bit for bit,
reductions to float tolerance, over random shapes, strides and special values."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typedtensor._runtime as tt
from tests.backend.helpers import assert_close
from typedtensor._runtime import functional as F

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e30, 3e9, -3e9, 2.5, -2.5, 255.5, 1e-40]


@contextmanager
def threads(n: int) -> Iterator[None]:
    """Run the block with n kernel threads, restoring the previous count after."""
    prev = tt.get_num_threads()
    tt.set_num_threads(n)
    try:
        yield
    finally:
        tt.set_num_threads(prev)


def tt_dtype(name: str) -> object:
    return getattr(tt, name)


def torch_dtype(name: str) -> object:
    return getattr(torch, name)


def source(shape: tuple[int, ...], dtype: str, seed: int, special: bool = True) -> tuple[object, object]:
    """The same values as a typedtensor and a torch tensor of `dtype` (halves made through torch)."""
    g = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        arr = g.random(n) > 0.5
    elif dtype in ("uint8", "int32", "int64"):
        arr = g.integers(0 if dtype == "uint8" else -1000, 255 if dtype == "uint8" else 1000, n).astype(dtype)
    else:
        arr = g.standard_normal(n) * 100
        if special and n:
            k = min(n, len(SPECIAL))
            arr[g.choice(n, k, replace=False)] = SPECIAL[:k]
    arr = arr.reshape(shape)
    if dtype in ("float16", "bfloat16"):
        t = torch.tensor(arr).to(torch_dtype(dtype))
        return tt.tensor(t.float().numpy()).to(tt_dtype(dtype)), t
    return tt.tensor(arr), torch.tensor(arr)


def bits(x: object) -> np.ndarray:
    """Raw bytes of a result (so -0.0 and NaN compare exactly), as a numpy array."""
    if isinstance(x, tt.Tensor):
        if x.dtype in (tt.float16, tt.bfloat16):
            return torch.tensor(x.float().numpy()).to(torch.float16 if x.dtype == tt.float16 else torch.bfloat16).view(torch.int16).numpy()
        return np.ascontiguousarray(x.numpy()).view(np.uint8)
    t = x.contiguous()  # type: ignore[attr-defined]
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.view(torch.int16).numpy()
    return t.numpy().view(np.uint8)


def assert_same_bits(ours: object, ref: object) -> None:
    assert tuple(ours.shape) == tuple(ref.shape)  # type: ignore[attr-defined]
    a, b = bits(ours), bits(ref)
    if ref.dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):  # type: ignore[attr-defined]
        # NaN payloads are not part of the contract: compare NaN positions, the rest bit for bit
        fa = ours.float().numpy() if ours.dtype in (tt.float16, tt.bfloat16) else ours.numpy()  # type: ignore[attr-defined]
        fb = (ref.float() if ref.dtype in (torch.float16, torch.bfloat16) else ref).numpy()  # type: ignore[attr-defined]
        nan = np.isnan(fb)
        np.testing.assert_array_equal(np.isnan(fa), nan)
        fa, fb = np.where(nan, 0, fa), np.where(nan, 0, fb)
        np.testing.assert_array_equal(np.signbit(fa), np.signbit(fb))
        np.testing.assert_array_equal(fa, fb)
        return
    np.testing.assert_array_equal(a, b)


# ---------------- casts: every dtype pair, contiguous and transposed ----------------


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_cast_every_pair(src: str, dst: str) -> None:
    x, tx = source((37, 41), src, seed=DTYPES.index(src) * 8 + DTYPES.index(dst))
    if dst in ("uint8", "int32", "int64") and src in ("float16", "bfloat16", "float32", "float64"):
        # float -> int out of range is undefined in torch (platform-specific; negative -> uint8
        # wraps there); ours saturates (test_float_to_int_saturates)
        tx = tx.clamp(0 if dst == "uint8" else -100, 100)  # type: ignore[attr-defined]
        x = tt.tensor(tx.float().numpy()).to(tt_dtype(src))  # type: ignore[attr-defined]
    for a, ta in ((x, tx), (x.t(), tx.t())):  # type: ignore[attr-defined]
        assert_same_bits(a.to(tt_dtype(dst)), ta.to(torch_dtype(dst)))  # type: ignore[attr-defined]


def saturated(v: float, dst: str) -> int:
    """The float -> int rule of the copy kernels: truncate, saturate, NaN -> the minimum."""
    info = np.iinfo(dst)
    if np.isnan(v):
        return int(info.min)
    if np.isinf(v):
        return int(info.max) if v > 0 else int(info.min)
    return int(min(max(int(v), int(info.min)), int(info.max)))


@pytest.mark.parametrize("dst", ["int32", "int64", "uint8"])
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_float_to_int_saturates(src: str, dst: str) -> None:
    edge = [2147483520.0, -2147483520.0, 2147483648.0, -2147483648.0, 2147483647.0, -2147483649.0, 4294967296.0]
    vals = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9, -3e9, 2.7, -2.7, 0.0, -0.0, 255.9, 256.0, *edge], dtype=src)
    g = np.random.default_rng(0)
    # whole in-range vector blocks, blocks with one odd value, and ragged tails
    arr = np.concatenate([g.uniform(-2e9, 2e9, 64).astype(src), vals, g.uniform(-300, 300, 37).astype(src), vals[::-1]])
    expect = np.array([saturated(float(v), dst) for v in arr], dtype=dst)
    x = tt.tensor(arr)
    np.testing.assert_array_equal(x.to(tt_dtype(dst)).numpy(), expect)
    n = arr.size // 2 * 2
    np.testing.assert_array_equal(x[:n].reshape(n // 2, 2).t().to(tt_dtype(dst)).numpy(), expect[:n].reshape(n // 2, 2).T)


# ---------------- copies of permuted, sliced and expanded views ----------------


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(0, 40), min_size=1, max_size=4),
    seed=st.integers(0, 2**31),
    dtype=st.sampled_from(["float32", "float64", "int64", "uint8", "float16", "bool"]),
)
def test_permuted_contiguous(shape: list[int], seed: int, dtype: str) -> None:
    rng = np.random.default_rng(seed)
    x, tx = source(tuple(shape), dtype, seed)
    perm = [int(v) for v in rng.permutation(len(shape))]
    assert_same_bits(x.permute(*perm).contiguous(), tx.permute(*perm).contiguous())  # type: ignore[attr-defined]
    if len(shape) >= 2 and shape[0] >= 2:  # a stepped slice: no unit stride left anywhere
        assert_same_bits(x[::2].permute(*perm).contiguous(), tx[::2].permute(*perm).contiguous())  # type: ignore[index]
    # (float -> int of inf/NaN/out-of-range values differs from torch by design: see above)
    other = str(rng.choice(["float32", "float64"] + (["int32"] if dtype in ("int64", "uint8", "bool") else [])))
    assert_same_bits(x.permute(*perm).to(tt_dtype(other)), tx.permute(*perm).to(torch_dtype(other)))  # type: ignore[attr-defined]


@pytest.mark.parametrize("shape", [(0, 5), (1, 1), (1, 300), (300, 1), (7, 9), (64, 64), (130, 257), (3, 513, 65)])
def test_transpose_copy_shapes(shape: tuple[int, ...]) -> None:
    x, tx = source(shape, "float32", seed=sum(shape))
    assert_same_bits(x.transpose(-1, -2).contiguous(), tx.transpose(-1, -2).contiguous())  # type: ignore[attr-defined]
    assert_same_bits(x.transpose(0, -1).contiguous(), tx.transpose(0, -1).contiguous())  # type: ignore[attr-defined]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_transpose_copy_two_threads(dtype: str) -> None:
    with threads(2):
        x, tx = source((600, 515), dtype, seed=11)
        assert_same_bits(x.t().contiguous(), tx.t().contiguous())  # type: ignore[attr-defined]
        assert_same_bits(x.t().to(tt.float64), tx.t().to(torch.float64))  # type: ignore[attr-defined]
        x3, t3 = source((9, 130, 70), dtype, seed=12)
        assert_same_bits(x3.permute(2, 0, 1).contiguous(), t3.permute(2, 0, 1).contiguous())  # type: ignore[attr-defined]


def test_expanded_and_copy_into_views() -> None:
    x, tx = source((1, 200), "float32", seed=3)
    assert_same_bits(x.expand(150, 200).t().contiguous(), tx.expand(150, 200).t().contiguous())  # type: ignore[attr-defined]
    d = tt.zeros(200, 150, dtype=tt.float64)
    td = torch.zeros(200, 150, dtype=torch.float64)
    y, ty = source((150, 200), "float32", seed=4)
    d.copy_(y.t())
    td.copy_(ty.t())  # type: ignore[attr-defined]
    assert_same_bits(d, td)
    d2 = tt.zeros(150, 200, dtype=tt.float32)
    td2 = torch.zeros(150, 200)
    d2.t().copy_(y.t().contiguous())  # non-contiguous destination
    td2.t().copy_(ty.t().contiguous())  # type: ignore[attr-defined]
    assert_same_bits(d2, td2)


# ---------------- reductions ----------------


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 5000), seed=st.integers(0, 2**31), dtype=st.sampled_from(["float32", "float64"]))
def test_prod_full(n: int, seed: int, dtype: str) -> None:
    g = np.random.default_rng(seed)
    arr = np.exp(g.uniform(-1, 1, n) / max(1.0, np.sqrt(n))).astype(dtype)  # no overflow / underflow
    if n and g.random() < 0.3:
        arr[g.integers(0, n)] = g.choice([0.0, np.nan, np.inf, -np.inf, -0.0])
    assert_close(tt.tensor(arr).prod(), torch.tensor(arr).prod(), rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_prod_int_wraps_like_torch(dtype: str) -> None:
    arr = np.random.default_rng(0).integers(1, 7, 1000).astype(dtype)
    assert_close(tt.tensor(arr).prod(), torch.tensor(arr).prod())
    assert_close(tt.tensor(arr).reshape(10, 100).prod(1), torch.tensor(arr).reshape(10, 100).prod(1))


def test_prod_special_values_and_long_rows() -> None:
    for vals in ([0.0, np.inf], [np.nan, 0.0], [-0.0, 1.0], [np.inf, -2.0], [-1.0] * 3):
        arr = np.ones(100_000, dtype=np.float32)
        arr[[5, 70_000, 99_999][: len(vals)]] = vals
        for th in (1, 2):
            with threads(th):
                assert_close(tt.tensor(arr).prod(), torch.tensor(arr).prod())


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 70), min_size=1, max_size=3),
    seed=st.integers(0, 2**31),
    dtype=st.sampled_from(["float32", "float64"]),
    scale=st.sampled_from([1e-3, 1.0, 1e4, 1e15]),
)
def test_std_var_norm(shape: list[int], seed: int, dtype: str, scale: float) -> None:
    g = np.random.default_rng(seed)
    arr = ((g.standard_normal(shape) + 3) * scale).astype(dtype)
    x, tx = tt.tensor(arr), torch.tensor(arr)
    rtol = 2e-5 if dtype == "float32" else 1e-10
    assert_close(x.std(), tx.std(), rtol=rtol, atol=0)
    assert_close(x.var(), tx.var(), rtol=rtol, atol=0)
    assert_close(x.norm(), tx.norm(), rtol=rtol, atol=0)
    dim = int(g.integers(0, len(shape)))
    assert_close(x.var(dim), tx.var(dim), rtol=rtol, atol=0)
    assert_close(x.norm(dim=dim), tx.norm(dim=dim), rtol=rtol, atol=0)
    assert_close(x.prod(dim), tx.prod(dim), rtol=rtol * 100 if len(shape) and shape[dim] > 10 else rtol, atol=0)


@pytest.mark.parametrize("nthreads", [1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_std_long_rows(nthreads: int, dtype: str) -> None:
    with threads(nthreads):
        arr = (np.random.default_rng(1).standard_normal(300_001) * 1e-2 + 1e4).astype(dtype)  # large mean, small spread
        # against the float64 answer: torch's float32 std is off by 5e-3 relative here, ours is not
        exact = torch.tensor(arr).double().std().to(torch_dtype(dtype))
        assert_close(tt.tensor(arr).std(), exact, rtol=1e-5 if dtype == "float32" else 1e-9, atol=0)
        big = np.full(100_000, 1e20, dtype=dtype)
        big[::2] = -1e20  # no overflow in torch: none here either
        assert_close(tt.tensor(big).std(), torch.tensor(big).std(), rtol=1e-6)
        assert_close(tt.tensor(big).norm(), torch.tensor(big).norm(), rtol=1e-6)
        assert_close(tt.tensor(arr[:1]).std(), torch.tensor(arr[:1]).std())  # nan, correction 1
        assert_close(tt.tensor(arr[:0]).std(), torch.tensor(arr[:0]).std())


def test_norm_grad_at_zero_and_transposed() -> None:
    x = tt.zeros(3, 4, dtype=tt.float64).requires_grad_(True)
    x.norm().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))
    arr = np.random.default_rng(2).standard_normal((5, 6))
    assert_close(tt.tensor(arr).t().norm(dim=1), torch.tensor(arr).t().norm(dim=1))
    assert tt.autograd.gradcheck(lambda a: a.norm(), [tt.tensor(arr).requires_grad_(True)])
    assert tt.autograd.gradcheck(lambda a: a.norm(dim=0), [tt.tensor(arr).requires_grad_(True)])


# ---------------- layer_norm ----------------


@settings(max_examples=30, deadline=None)
@given(
    rows=st.integers(0, 20),
    cols=st.integers(1, 300),
    seed=st.integers(0, 2**31),
    dtype=st.sampled_from(["float32", "float64"]),
    affine=st.sampled_from(["none", "weight", "bias", "both"]),
)
def test_layer_norm_forward(rows: int, cols: int, seed: int, dtype: str, affine: str) -> None:
    g = np.random.default_rng(seed)
    arr = (g.standard_normal((rows, cols)) * 5 + 100).astype(dtype)
    w = g.standard_normal(cols).astype(dtype) if affine in ("weight", "both") else None
    b = g.standard_normal(cols).astype(dtype) if affine in ("bias", "both") else None

    def opt(v: np.ndarray | None, mod: object) -> object:
        return None if v is None else mod.tensor(v)  # type: ignore[attr-defined]

    ours = F.layer_norm(tt.tensor(arr), (cols,), opt(w, tt), opt(b, tt))
    ref = torch.nn.functional.layer_norm(torch.tensor(arr), (cols,), opt(w, torch), opt(b, torch))
    assert_close(ours, ref, rtol=1e-4 if dtype == "float32" else 1e-9, atol=1e-4 if dtype == "float32" else 1e-9)
    t3 = tt.tensor(arr.T.copy()).t()  # non-contiguous input
    assert_close(F.layer_norm(t3, (cols,), opt(w, tt), opt(b, tt)), ref,
                 rtol=1e-4 if dtype == "float32" else 1e-9, atol=1e-4 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_layer_norm_backward(affine: str) -> None:
    g = np.random.default_rng(7)
    x = tt.tensor(g.standard_normal((3, 2, 5))).requires_grad_(True)
    w = tt.tensor(g.standard_normal((2, 5))).requires_grad_(True)
    b = tt.tensor(g.standard_normal((2, 5))).requires_grad_(True)
    ins = [x] + ([w] if affine in ("weight", "both") else []) + ([b] if affine in ("bias", "both") else [])

    def fn(*a: object) -> object:
        it = iter(a[1:])
        ww = next(it) if affine in ("weight", "both") else None
        bb = next(it) if affine in ("bias", "both") else None
        return F.layer_norm(a[0], (2, 5), ww, bb)

    assert tt.autograd.gradcheck(fn, ins)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 37), min_size=1, max_size=3),
    dim=st.integers(0, 2),
    dtype=st.sampled_from(["float32", "float64", "int32", "int64"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_cumsum_cumprod_rows_and_columns(shape: list[int], dim: int, dtype: str, seed: int) -> None:
    """cumsum on contiguous rows (the blocked prefix sums: lengths around every multiple of 8) and
    along outer dims (the lane-parallel running sums), cumprod the same, against torch."""
    dim %= len(shape)
    rng = np.random.default_rng(seed)
    v = (rng.standard_normal(shape) * 3).astype(dtype) if "float" in dtype else rng.integers(-4, 5, shape).astype(dtype)
    ours, ref = tt.tensor(v), torch.from_numpy(v)
    for threads_n in (1, 2):
        with threads(threads_n):
            assert_close(tt.cumsum(ours, dim), torch.cumsum(ref, dim), rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-5)
            if "float" in dtype:
                assert_close(tt.cumprod(ours * 0.5, dim), torch.cumprod(ref * 0.5, dim), rtol=1e-5, atol=1e-6)
            else:
                assert_close(tt.cumprod(ours, dim), torch.cumprod(ref, dim))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cumsum_long_row_specials(dtype: str) -> None:
    """A long row (every path of the blocked kernel) with inf, -inf and NaN placed mid-block: the
    same non-finite pattern as torch's serial sum, and the finite prefix to tolerance."""
    rng = np.random.default_rng(1)
    v = rng.uniform(-1, 1, 1000).astype(dtype)
    np.testing.assert_allclose(tt.cumsum(tt.tensor(v), 0).numpy(), np.cumsum(v.astype(np.float64)),
                               rtol=1e-6 if dtype == "float32" else 1e-13, atol=1e-5 if dtype == "float32" else 1e-12)
    v[500] = np.inf
    v[701] = -np.inf  # inf - inf: NaN from here on
    v[13] = 7.5
    got = tt.cumsum(tt.tensor(v), 0).numpy()
    want = torch.cumsum(torch.from_numpy(v), 0).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5, atol=1e-5)
    w = v.copy()
    w[3] = np.nan
    assert np.isnan(tt.cumsum(tt.tensor(w), 0).numpy()[3:]).all()
    assert not np.isnan(tt.cumsum(tt.tensor(w), 0).numpy()[:3]).any()
