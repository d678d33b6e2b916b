"""``F.max_unpool1d/2d/3d`` / ``nn.MaxUnpool*`` and ``F.lp_pool1d/2d/3d`` / ``nn.LPPool*`` against
torch: values, gradients, torch's default and requested output sizes, ceil_mode, and the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")
TF, F = tt.nn.functional, torch.nn.functional

RNG = np.random.default_rng(3)

# (nd, input shape, kernel_size, stride, padding, output_size)
UNPOOL = [
    (1, (2, 3, 9), 3, 2, 1, None),
    (1, (3, 8), 2, None, 0, [9]),
    (2, (2, 3, 7, 8), (3, 2), (2, 2), (1, 0), None),
    (2, (2, 3, 7, 8), 2, None, 0, (2, 3, 7, 9)),
    (2, (3, 6, 6), 2, None, 0, None),
    (3, (1, 2, 4, 6, 8), 2, None, 0, None),
    (3, (2, 5, 6, 7), 2, None, 0, (5, 6, 7)),
]


def _compare(ours: Any, ref: Any, a: Any, b: Any, exact: bool = False) -> None:
    assert tuple(ours.shape) == tuple(ref.shape)
    tol = {"rtol": 0, "atol": 0} if exact else {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), equal_nan=True, **tol)
    w = RNG.standard_normal(tuple(ref.shape))
    (ours * tt.tensor(w)).nansum().backward()
    (ref * torch.tensor(w)).nansum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), equal_nan=True, **tol)


@pytest.mark.parametrize(("nd", "shape", "k", "s", "p", "size"), UNPOOL)
def test_max_unpool_matches_torch(nd: int, shape: tuple[int, ...], k: Any, s: Any, p: Any, size: Any) -> None:
    x = torch.tensor(RNG.standard_normal(shape))
    values, idx = getattr(F, f"max_pool{nd}d")(x, k, s, p, return_indices=True)
    a, b = tt.tensor(values.numpy(), requires_grad=True), torch.tensor(values.numpy(), requires_grad=True)
    ours = getattr(TF, f"max_unpool{nd}d")(a, tt.tensor(idx.numpy()), k, s, p, output_size=size)
    ref = getattr(F, f"max_unpool{nd}d")(b, idx, k, s, p, output_size=size)
    _compare(ours, ref, a, b, exact=True)
    mod = getattr(tt.nn, f"MaxUnpool{nd}d")(k, s, p)
    np.testing.assert_array_equal(mod(a, tt.tensor(idx.numpy()), size).detach().numpy(), ref.detach().numpy())


def test_max_unpool_round_trip_of_max_pool() -> None:
    """typedtensor's own pool indices feed its unpool: the maxima back in place, zeros elsewhere."""
    x = RNG.standard_normal((2, 3, 6, 4))
    pool, unpool = tt.nn.MaxPool2d(2, return_indices=True), tt.nn.MaxUnpool2d(2)
    out = unpool(*pool(tt.tensor(x)))
    ref = torch.nn.MaxUnpool2d(2)(*torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x)))
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_max_unpool_errors() -> None:
    x, idx = tt.zeros(1, 2, 3, 3), tt.zeros(1, 2, 3, 3, dtype=tt.int64)
    with pytest.raises(tt.ShapeError, match=r"max_unpool2d: invalid output_size \[9, 9\] \(dim 0 must be between 4 and 8\)"):
        TF.max_unpool2d(x, idx, 2, output_size=(9, 9))
    with pytest.raises(tt.ShapeError, match="max_unpool2d: output_size should be a sequence containing 2 or 4"):
        TF.max_unpool2d(x, idx, 2, output_size=(6,))
    with pytest.raises(tt.ShapeError, match="max_unpool2d: expected indices to have the input's shape"):
        TF.max_unpool2d(x, tt.zeros(1, 2, 3, 2, dtype=tt.int64), 2)
    with pytest.raises(tt.ShapeError, match="max_unpool2d: expected a 3-d or 4-d input"):
        TF.max_unpool2d(tt.zeros(3, 3), tt.zeros(3, 3, dtype=tt.int64), 2)
    with pytest.raises(tt.ShapeError, match="max_unpool3d: expected a 4-d or 5-d input"):
        tt.nn.MaxUnpool3d(2)(tt.zeros(2, 2, 2), tt.zeros(2, 2, 2, dtype=tt.int64))
    with pytest.raises(RuntimeError, match="Found an invalid max index: 36"):
        TF.max_unpool2d(x, idx + 36, 2)
    with pytest.raises(RuntimeError, match="int64"):
        TF.max_unpool2d(x, tt.zeros(1, 2, 3, 3, dtype=tt.int32), 2)


# (nd, input shape, norm_type, kernel_size, stride, ceil_mode)
LP = [
    (1, (2, 3, 9), 2.0, 3, 2, False),
    (1, (2, 3, 10), 3, 3, 2, True),
    (1, (3, 7), 1.0, 2, None, False),
    (2, (2, 3, 7, 8), 2, (3, 2), (2, 1), True),
    (2, (3, 7, 8), 1.5, 2, None, False),
    (2, (1, 2, 5, 5), float("inf"), 2, None, True),
    (3, (1, 2, 5, 6, 7), 2.0, 2, None, True),
    (3, (2, 5, 6, 7), 3.0, (2, 3, 2), (1, 2, 2), False),
    (3, (1, 2, 4, 4, 4), float("-inf"), 2, None, False),
]


@pytest.mark.parametrize(("nd", "shape", "p", "k", "s", "ceil_mode"), LP)
def test_lp_pool_matches_torch(nd: int, shape: tuple[int, ...], p: float, k: Any, s: Any, ceil_mode: bool) -> None:
    x = RNG.standard_normal(shape)
    if p == 1.5:  # a fractional power of a negative number is nan in both; keep this one finite
        x = np.abs(x) + 0.1
    a, b = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours = getattr(TF, f"lp_pool{nd}d")(a, p, k, s, ceil_mode)
    ref = getattr(F, f"lp_pool{nd}d")(b, p, k, s, ceil_mode)
    _compare(ours, ref, a, b)
    mod, tmod = getattr(tt.nn, f"LPPool{nd}d")(p, k, s, ceil_mode), getattr(torch.nn, f"LPPool{nd}d")(p, k, s, ceil_mode)
    np.testing.assert_allclose(mod(tt.tensor(x)).numpy(), tmod(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-12,
                               equal_nan=True)


def test_lp_pool_float32_keeps_dtype() -> None:
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    ours, ref = TF.lp_pool2d(tt.tensor(x), 2, 3, 2, True), F.lp_pool2d(torch.tensor(x), 2, 3, 2, True)
    assert ours.dtype == tt.float32
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


def test_lp_pool_errors() -> None:
    with pytest.raises(tt.ShapeError, match="lp_pool2d: expected a 3-d or 4-d input"):
        TF.lp_pool2d(tt.zeros(4, 4), 2, 2)
    with pytest.raises(tt.ShapeError, match="lp_pool1d: output size 0 < 1"):
        TF.lp_pool1d(tt.zeros(1, 2, 2), 2, 3)
    with pytest.raises(tt.ShapeError, match="lp_pool3d: expected a 4-d or 5-d input"):
        tt.nn.LPPool3d(2, 2)(tt.zeros(2, 2))
