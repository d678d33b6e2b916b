"""Regressions found by the fuzz test (tests/backend/test_fuzz.py) once it drew the math kernels
and more empty shapes: each case against torch's answer."""

from __future__ import annotations

import math

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")


def test_integer_pow_with_a_negative_tensor_exponent_is_computed() -> None:
    """torch refuses only a negative Python-number exponent; a tensor exponent gives 0 except for
    bases +-1."""
    base, exp = [2, 3, -1, 1, 0], [-1, -2, -3, -1, 2]
    got = tt.pow(tt.tensor(base), tt.tensor(exp)).numpy()
    np.testing.assert_array_equal(got, torch.pow(torch.tensor(base), torch.tensor(exp)).numpy())
    with pytest.raises(ValueError, match="negative integer powers"):
        tt.tensor([2]) ** -1


def test_integer_division_of_an_empty_result_ignores_zero_divisors() -> None:
    a = tt.zeros(0, 5, dtype=tt.int32)
    b = tt.tensor([0, 1, 0, 2, 3], dtype=tt.int32)
    for op in ("floor_divide", "remainder", "fmod"):
        assert getattr(tt, op)(a, b).shape == (0, 5)
        with pytest.raises(ValueError, match="division by zero"):
            getattr(tt, op)(tt.ones(1, 5, dtype=tt.int32), b)


def test_square_of_bool_promotes_like_torch() -> None:
    x = [True, False]
    got = tt.square(tt.tensor(x))
    want = torch.square(torch.tensor(x))
    assert str(got.dtype).rsplit(".", 1)[-1] == str(want.dtype).rsplit(".", 1)[-1] == "int64"
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize(
    ("shape", "key", "ok"),
    [((2, 0), ([], [0]), True), ((0, 0), ([], [0]), True), ((2, 0), ([0], [0]), False), ((0, 0), (slice(None), [0]), False)],
)
def test_index_into_a_size_zero_dim(shape: tuple[int, ...], key: tuple[object, ...], ok: bool) -> None:
    """An index into a size-0 dim is an error only where the indices broadcast to a position."""
    if ok:
        assert tt.zeros(*shape)[key].shape == torch.zeros(*shape)[key].shape
    else:
        with pytest.raises(IndexError):
            tt.zeros(*shape)[key]
        with pytest.raises(IndexError):
            torch.zeros(*shape)[key]


# -- found by the public-op fuzz (tests/backend/fuzz_ops.py) -------------------------------------

def test_float64_subnormal_is_true_as_bool() -> None:
    """The cast to bool went through float32, where 5e-324 is 0."""
    x = [5e-324, -5e-324, 0.0, -0.0, 1e-310]
    assert tt.tensor(x, dtype=tt.float64).bool().tolist() == torch.tensor(x, dtype=torch.float64).bool().tolist()
    assert tt.masked_select(tt.tensor([1.0, 2.0]), tt.tensor([5e-324, 0.0], dtype=tt.float64).bool()).tolist() == [1.0]


def test_all_and_any_of_uint8_keep_uint8() -> None:
    x = [[0, 3], [1, 1]]
    for red in ("all", "any"):
        for kw in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}):
            ours = getattr(tt.tensor(x, dtype=tt.uint8), red)(**kw)
            ref = getattr(torch.tensor(x, dtype=torch.uint8), red)(**kw)
            assert str(ours.dtype).rsplit(".")[-1] == "uint8" == str(ref.dtype).rsplit(".")[-1]
            assert ours.tolist() == ref.tolist()
    assert str(tt.tensor([1, 0]).any().dtype).rsplit(".")[-1] == "bool"


def test_xlogy_result_type_and_numbers() -> None:
    """xlogy(bfloat16, bool) gave float32; xlogy(int tensor, 1.5) computed log(1)."""
    cases = [(lambda m: m.xlogy(m.tensor([1.5, 2.0]).to(m.bfloat16), m.tensor([True, False]))),
             (lambda m: m.xlogy(m.tensor([2, 3]), 1.5)), (lambda m: m.xlogy(3, m.tensor([0.5, 2.0]))),
             (lambda m: m.xlogy(m.tensor([2, 0]), m.tensor([4, 0])))]
    for case in cases:
        ours, ref = case(tt), case(torch)
        assert str(ours.dtype).rsplit(".")[-1] == str(ref.dtype).rsplit(".")[-1]
        np.testing.assert_allclose(ours.float().numpy(), ref.float().numpy(), rtol=1e-2)


def test_addcmul_promotes_before_multiplying() -> None:
    """int32 * int64 wrapped around before meeting the float32 input."""
    a, b, c = [0.5, 1.0], [2**31 - 1, 3], [2**31 - 1, 4]
    ours = tt.addcmul(tt.tensor(a), tt.tensor(b, dtype=tt.int32), tt.tensor(c), value=-2)
    ref = torch.addcmul(torch.tensor(a), torch.tensor(b, dtype=torch.int32), torch.tensor(c), value=-2)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_lerp_is_computed_in_float32(dtype: str) -> None:
    """(end - start) overflowed float16 before the weight was applied: -inf where torch has finite values."""
    a, b = [-60000.0, 1.0], [60000.0, 3.0]
    ours = tt.lerp(tt.tensor(a).to(getattr(tt, dtype)), tt.tensor(b).to(getattr(tt, dtype)), 0.25)
    ref = torch.lerp(torch.tensor(a).to(getattr(torch, dtype)), torch.tensor(b).to(getattr(torch, dtype)), 0.25)
    np.testing.assert_allclose(ours.float().numpy(), ref.float().numpy(), rtol=1e-2)


@pytest.mark.parametrize("loss", ["mse_loss", "huber_loss", "smooth_l1_loss"])
def test_pointwise_losses_take_a_bool_target(loss: str) -> None:
    x, t = [0.25, 0.75, 2.0], [True, False, True]
    ours = getattr(tt.nn.functional, loss)(tt.tensor(x, dtype=tt.float64), tt.tensor(t))
    ref = getattr(torch.nn.functional, loss)(torch.tensor(x, dtype=torch.float64), torch.tensor(t))
    np.testing.assert_allclose(ours.item(), ref.item(), rtol=1e-12)


def test_median_of_an_empty_float_tensor_is_nan() -> None:
    for dtype in ("float16", "float32", "float64"):
        ours, ref = tt.zeros(0, dtype=getattr(tt, dtype)).median(), torch.zeros(0, dtype=getattr(torch, dtype)).median()
        assert math.isnan(ours.item()) and math.isnan(ref.item())
        assert str(ours.dtype).rsplit(".")[-1] == dtype


def test_a_python_float_does_not_make_inplace_ops_traced_copies() -> None:
    """x.mul_(0.9) on float32 took the out-of-place path once Python floats became float64: a
    compiled training step with batch norm (running stats updated in place) was refused."""
    x = tt.ones(3)
    v = x._version if hasattr(x, "_version") else None
    x.mul_(0.5).add_(0.25)
    assert x.tolist() == [0.75, 0.75, 0.75]
    if v is not None:
        assert x._version == v + 2
    bn = tt.nn.BatchNorm1d(3)
    step = tt.compile(lambda t: bn(t).sum())
    with tt.no_grad():  # a graph (in grad mode the outputs would need autograd: eager)
        step(tt.randn(4, 3))
    assert step.traces == 1
    assert bn.running_mean.abs().sum().item() > 0


def test_half_arithmetic_with_a_large_python_number() -> None:
    """x / 1e30 for a float16 x: torch takes the number at float32 precision for * and /, so it is
    not inf (which made inf / inf = NaN); + - and remainder round it to the half type first."""
    x = [math.inf, -2.0, 3.0e4]
    for dtype in ("float16", "bfloat16"):
        a, r = tt.tensor(x).to(getattr(tt, dtype)), torch.tensor(x).to(getattr(torch, dtype))
        for f in (lambda t: t / 1e30, lambda t: t * 1e-30, lambda t: t + 1e30, lambda t: t % 0.1, lambda t: -t + 1e30):
            np.testing.assert_array_equal(f(a).float().numpy(), f(r).float().numpy())

