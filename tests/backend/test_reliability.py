"""Edge cases that crashed the process or gave a silently wrong answer, each against torch's answer
(or torch's error): integer overflow in division, 0-d tensors, precision of Python numbers, in-place
ops on expanded tensors, NaN in median, fill values that do not fit, negative indices..."""

from __future__ import annotations

import math

import numpy as np
import pytest

import typedtensor as tt
from tests.backend.helpers import assert_close

torch = pytest.importorskip("torch")

I64_MIN, I32_MIN = -(2**63), -(2**31)


def both(fn_name: str, *args: object) -> tuple[object, object]:
    return getattr(tt, fn_name)(*args), getattr(torch, fn_name)(*args)


# -- integer division: MIN // -1 trapped (SIGFPE), a zero divisor in a compiled graph too ------

@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_min_divided_by_minus_one(dtype: str, op: str) -> None:
    lo = I64_MIN if dtype == "int64" else I32_MIN
    a = [lo, lo, 7, -7, lo + 1]
    b = [-1, 1, -1, -1, -1]
    ours = getattr(tt, op)(tt.tensor(a, dtype=getattr(tt, dtype)), tt.tensor(b, dtype=getattr(tt, dtype)))
    ref = getattr(torch, op)(torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(b, dtype=getattr(torch, dtype)))
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    # the Python-number forms, the operators and the in-place forms take the same kernel
    x, rx = tt.tensor([lo], dtype=getattr(tt, dtype)), torch.tensor([lo], dtype=getattr(torch, dtype))
    np.testing.assert_array_equal(getattr(tt, op)(x, -1).numpy(), getattr(torch, op)(rx, -1).numpy())
    getattr(x, op + "_")(-1)
    getattr(rx, op + "_")(-1)
    np.testing.assert_array_equal(x.numpy(), rx.numpy())
    assert (tt.tensor([lo]) // -1).item() == (torch.tensor([lo]) // -1).item()
    assert (tt.tensor([lo]) % -1).item() == 0


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_integer_division_by_zero_raises_on_every_path(op: str) -> None:
    a, b = tt.tensor([1, 2]), tt.tensor([0, 1])
    with pytest.raises(ValueError, match="division by zero"):
        getattr(tt, op)(a, b)
    with pytest.raises(ValueError, match="division by zero"):
        getattr(a.clone(), op + "_")(b)  # fmod_ reached the kernel unchecked (SIGFPE)
    compiled = tt.compile(lambda x, y: getattr(tt, op)(x, y))
    with pytest.raises(ValueError, match="division by zero"):  # SIGFPE on main
        compiled(a, b)
    assert compiled(a, tt.tensor([3, -1])).tolist() == getattr(torch, op)(torch.tensor([1, 2]), torch.tensor([3, -1])).tolist()


# -- 0-d tensors -----------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda m: m.tensor(1.5).flip(0), lambda m: m.flip(m.tensor(1.5), [0]), lambda m: m.tensor(1.5).flip(-1),
    lambda m: m.tensor(1.5).movedim(0, 0), lambda m: m.tensor(1.5).movedim(-1, 0),
    lambda m: m.moveaxis(m.tensor(1.5), 0, -1),
])
def test_zero_dim_flip_and_movedim(call: object) -> None:
    """SIGSEGV on main (a vector of size 0 indexed at 0)."""
    assert_close(call(tt), call(torch))  # type: ignore[operator]


@pytest.mark.parametrize("call", [
    lambda m: m.tensor(1.5).flip(1), lambda m: m.tensor(1.5).movedim(1, 0), lambda m: m.tensor(1.5).flip([0, 0]),
])
def test_zero_dim_flip_and_movedim_errors(call: object) -> None:
    with pytest.raises((IndexError, RuntimeError)):
        call(torch)  # type: ignore[operator]
    with pytest.raises((IndexError, ValueError)):
        call(tt)  # type: ignore[operator]


def test_size_of_a_zero_dim_tensor_raises() -> None:
    """``tensor(5).size(0)`` was 0 (a read past the empty shape)."""
    for dim in (0, -1):
        with pytest.raises(IndexError, match="no dimensions"):
            tt.tensor(5).size(dim)
        with pytest.raises(IndexError):
            tt.tensor(5).stride(dim)
        with pytest.raises(IndexError):
            torch.tensor(5).size(dim)
    assert tt.tensor(5).size() == ()


# -- gradients -----------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_and_remainder_have_gradients(op: str) -> None:
    """torch: d/da = 1, d/db = -trunc(a / b) (fmod) or -floor(a / b) (remainder); main dropped them."""
    a0, b0 = [5.5, -5.5, 3.0, -0.25], [1.5, 1.5, -2.0, 0.75]
    grads = []
    for m in (tt, torch):
        a = m.tensor(a0, dtype=m.float64, requires_grad=True)
        b = m.tensor(b0, dtype=m.float64, requires_grad=True)
        y = getattr(m, op)(a, b)
        assert y.requires_grad
        (y * m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64)).sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
        assert getattr(m.tensor(a0, requires_grad=True), op)(1.5).requires_grad
    np.testing.assert_allclose(grads[0][0], grads[1][0])
    np.testing.assert_allclose(grads[0][1], grads[1][1])


# -- comparisons and numerics ----------------------------------------------------------------

def test_isclose_with_infinities() -> None:
    a = [1.0, math.inf, -math.inf, math.inf, 1e300, math.nan]
    b = [math.inf, math.inf, math.inf, 1e308, math.inf, math.nan]
    for kw in ({}, {"equal_nan": True}, {"rtol": 1.0, "atol": 1.0}):
        ours = tt.isclose(tt.tensor(a, dtype=tt.float64), tt.tensor(b, dtype=tt.float64), **kw)
        ref = torch.isclose(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64), **kw)
        assert ours.tolist() == ref.tolist(), kw
    assert not tt.allclose(tt.tensor([1.0, 2.0]), tt.tensor([math.inf, 2.0]))
    assert not tt.isclose(tt.tensor(1.0), tt.tensor(math.inf)).item()


@pytest.mark.parametrize("scale", [1e8, 1e30])
def test_log_softmax_and_cross_entropy_keep_the_log_sum_for_large_logits(scale: float) -> None:
    """float32: m + log(sum) rounded log(2) away for logits near 1e8 (0.0 where torch says -0.693)."""
    x = [[scale, scale], [scale, scale * 0.999999], [-scale, scale]]
    for dtype in ("float32", "float64"):
        xt, xr = tt.tensor(x, dtype=getattr(tt, dtype)), torch.tensor(x, dtype=getattr(torch, dtype))
        assert_close(xt.log_softmax(1), xr.log_softmax(1), rtol=1e-6, atol=1e-6)
        assert_close(tt.log_softmax(xt, -1), torch.log_softmax(xr, -1), rtol=1e-6, atol=1e-6)
        target = [0, 1, 0]
        for reduction in ("none", "mean"):
            ours = tt.nn.functional.cross_entropy(xt, tt.tensor(target), reduction=reduction)
            ref = torch.nn.functional.cross_entropy(xr, torch.tensor(target), reduction=reduction)
            assert_close(ours, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("form", ["a ** t", "a // t", "a % t", "pow(a, t)"])
def test_python_float_on_the_left_keeps_double_precision(form: str) -> None:
    """A Python float was rounded to float32 before meeting a float64 tensor."""
    a = 0.1
    for dtype in ("float64", "float32", "int64"):
        vals = [0.3, 1.7, 3.0] if dtype != "int64" else [3, 7, 2]
        t_ours, t_ref = tt.tensor(vals, dtype=getattr(tt, dtype)), torch.tensor(vals, dtype=getattr(torch, dtype))
        ours, ref = ({"a ** t": lambda m, t: a ** t, "a // t": lambda m, t: a // t, "a % t": lambda m, t: a % t,
                      "pow(a, t)": lambda m, t: m.pow(a, t)}[form](m, t) for m, t in ((tt, t_ours), (torch, t_ref)))
        assert str(ours.dtype).rsplit(".")[-1] == str(ref.dtype).rsplit(".")[-1], (dtype, ours.dtype, ref.dtype)
        np.testing.assert_array_equal(ours.numpy(), ref.numpy())


def test_median_propagates_nan_like_torch() -> None:
    rows = [[1.0, math.nan, 2.0], [3.0, math.nan, 1.0], [math.nan, 1.0, math.nan, 3.0][:3], [1.0, 2.0, 3.0]]
    for row in rows:
        ours, ref = tt.tensor(row).median(), torch.tensor(row).median()
        assert (math.isnan(ours.item()) and math.isnan(ref.item())) or ours.item() == ref.item()
    x = [[1.0, math.nan, 2.0], [3.0, 0.5, 1.0], [math.nan, 1.0, math.nan]]
    ours_v, ours_i = tt.tensor(x).median(1)
    ref_v, ref_i = torch.tensor(x).median(1)
    np.testing.assert_array_equal(ours_v.numpy(), ref_v.numpy())
    assert ours_i.tolist() == ref_i.tolist()


def test_linspace_with_one_step_is_start() -> None:
    for args in ((0.0, 1.0, 1), (5.0, -3.0, 1), (0.0, 1.0, 2), (0.0, 1.0, 7)):
        assert tt.linspace(*args).tolist() == torch.linspace(*args).tolist(), args


@pytest.mark.parametrize("dtype,value", [
    ("uint8", 256), ("uint8", -256), ("int32", 2**31), ("int64", 1e20), ("int64", math.nan), ("float32", 1e300),
    ("uint8", 255), ("uint8", -1), ("int64", 2.5), ("float16", 1e5), ("float32", math.inf), ("bool", 2),
])
def test_fill_values_that_do_not_fit_raise_like_torch(dtype: str, value: float) -> None:
    """``full((2,), 256, dtype=uint8)`` gave 0."""
    try:
        ref = torch.full((2,), value, dtype=getattr(torch, dtype))
    except RuntimeError:
        with pytest.raises(ValueError, match="without overflow"):
            tt.full((2,), value, dtype=getattr(tt, dtype))
        with pytest.raises(ValueError, match="without overflow"):
            tt.zeros(2, dtype=getattr(tt, dtype)).fill_(value)
        return
    assert_close(tt.full((2,), value, dtype=getattr(tt, dtype)), ref)


def test_nanmean_keepdim_without_dim_keeps_every_dim() -> None:
    x = [[1.0, math.nan], [3.0, 4.0]]
    for kw in ({"keepdim": True}, {"keepdim": False}, {"dim": 1, "keepdim": True}):
        ours, ref = tt.tensor(x).nanmean(**kw), torch.tensor(x).nanmean(**kw)
        assert tuple(ours.shape) == tuple(ref.shape), kw
        assert_close(ours, ref)


def test_group_norm_of_huge_values_is_normalised() -> None:
    """Values near 1e30 gave 0 (their variance, 1e60, overflowed float32). The statistics are now
    taken in float64; torch's float32 kernel gives NaN here, so the reference is torch on float64."""
    x = np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32) * np.float32(1e30)
    ours = tt.nn.functional.group_norm(tt.tensor(x), 2)
    ref = torch.nn.functional.group_norm(torch.tensor(x, dtype=torch.float64), 2).float()
    assert_close(ours, ref, rtol=1e-5, atol=1e-5)
    assert np.abs(ours.numpy()).max() > 0.5
    small = np.random.default_rng(1).standard_normal((2, 4, 3)).astype(np.float32)
    assert_close(tt.nn.functional.group_norm(tt.tensor(small), 2),
                 torch.nn.functional.group_norm(torch.tensor(small), 2), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "bool"])
def test_logit_and_xlogy_of_integers(dtype: str) -> None:
    """uint8: ``1 - p`` wrapped around (logit of 2 was log(2 / 255))."""
    vals = [0, 1, 2] if dtype != "bool" else [False, True, True]
    a, r = tt.tensor(vals, dtype=getattr(tt, dtype)), torch.tensor(vals, dtype=getattr(torch, dtype))
    assert_close(tt.logit(a), torch.logit(r))
    assert_close(tt.xlogy(a, a), torch.xlogy(r, r))
    assert_close(tt.xlogy(a, tt.tensor([0.5, 2.0, 0.0])), torch.xlogy(r, torch.tensor([0.5, 2.0, 0.0])))


def test_logit_and_xlogy_of_subnormals() -> None:
    tiny = [1e-45, 1e-40, 1.1754942e-38, 0.0]
    for dtype in ("float32", "float64"):
        a, r = tt.tensor(tiny, dtype=getattr(tt, dtype)), torch.tensor(tiny, dtype=getattr(torch, dtype))
        assert_close(tt.logit(a), torch.logit(r), rtol=1e-6, atol=0)
        assert_close(tt.logit(a, eps=1e-42), torch.logit(r, eps=1e-42), rtol=1e-6, atol=0)
        assert_close(tt.xlogy(a, a), torch.xlogy(r, r), rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["xlogy", "remainder", "pow", "fmod"])
def test_half_precision_operands(dtype: str, op: str) -> None:
    """Each operand pairing gets torch's result dtype and values."""
    x = [0.5, 1.25, 3.0, -2.0]
    y = [2.0, 0.75, -1.5, 3.0]
    for other in ("float32", "float64", dtype, "number"):
        a, r = tt.tensor(x, dtype=getattr(tt, dtype)), torch.tensor(x, dtype=getattr(torch, dtype))
        if other == "number":
            b, rb = 1.5, 1.5
        else:
            b, rb = tt.tensor(y, dtype=getattr(tt, other)), torch.tensor(y, dtype=getattr(torch, other))
        pairs = [(getattr(tt, op)(a, b), getattr(torch, op)(r, rb))]
        if other != "number" or op != "fmod":  # torch has no fmod(number, tensor)
            pairs.append((getattr(tt, op)(b, a), getattr(torch, op)(rb, r)))
        for ours, ref in pairs:
            assert str(ours.dtype).rsplit(".")[-1] == str(ref.dtype).rsplit(".")[-1], (other, ours.dtype, ref.dtype)
            np.testing.assert_allclose(ours.float().numpy(), ref.float().numpy(), rtol=1e-2, atol=1e-3, equal_nan=True)


# -- in-place writes to an expanded tensor -------------------------------------------------------

@pytest.mark.parametrize("name,call", [
    ("add_", lambda x, m: x.add_(1)), ("mul_", lambda x, m: x.mul_(2)), ("sub_", lambda x, m: x.sub_(m.ones(3))),
    ("div_", lambda x, m: x.div_(2)), ("pow_", lambda x, m: x.pow_(2)), ("exp_", lambda x, m: x.exp_()),
    ("neg_", lambda x, m: x.neg_()), ("clamp_", lambda x, m: x.clamp_(0, 1)),
    ("copy_", lambda x, m: x.copy_(m.ones(2, 3))), ("fill_", lambda x, m: x.fill_(1)),
    ("zero_", lambda x, m: x.zero_()), ("relu_", lambda x, m: x.relu_()),
    ("add_ on a broadcast row", lambda x, m: m.zeros(1, 3).expand(2, 3).add_(m.ones(2, 3))),
])
def test_inplace_on_expanded_tensors_raises_where_torch_does(name: str, call: object) -> None:
    """An expanded tensor's aliases each got the update (x.expand(2, 3).add_(1) added 2)."""
    try:
        ref = call(torch.zeros(3).expand(2, 3), torch)  # type: ignore[operator]
    except RuntimeError:
        with pytest.raises(ValueError, match="more than one element"):
            call(tt.zeros(3).expand(2, 3), tt)  # type: ignore[operator]
        return
    assert_close(call(tt.zeros(3).expand(2, 3), tt), ref)  # type: ignore[operator]


# -- negative indices where torch refuses them --------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda m: m.index_select(m.zeros(3), 0, m.tensor([-1])),
    lambda m: m.zeros(3).index_add(0, m.tensor([-1]), m.ones(1)),
    lambda m: m.gather(m.zeros(3), 0, m.tensor([-1])),
    lambda m: m.zeros(3).scatter(0, m.tensor([-1]), m.ones(1)),
    lambda m: m.nn.functional.one_hot(m.tensor([-1, 0]), 3),
    lambda m: m.nn.functional.one_hot(m.tensor([3, 0]), 3),
    lambda m: m.nn.functional.one_hot(m.tensor([], dtype=m.int64)),
])
def test_negative_or_out_of_range_indices_raise(call: object) -> None:
    with pytest.raises((RuntimeError, IndexError)):
        call(torch)  # type: ignore[operator]
    with pytest.raises((IndexError, ValueError)):
        call(tt)  # type: ignore[operator]


def test_negative_indices_still_count_from_the_end_in_indexing() -> None:
    x = tt.arange(5)
    assert x[tt.tensor([-1, 0])].tolist() == [4, 0]
    assert tt.nn.functional.one_hot(tt.tensor([2, 0])).tolist() == [[0, 0, 1], [1, 0, 0]]
