"""`a + b`, `a - b`, `a * b`, `a / b` through the Tensor type's own number slots.

The four arithmetic operators bypass the bound `__add__` methods (backend/python/bind_tensor.cpp,
NOTE [ Arithmetic number slots ]), so the operator form is tested here on its own: every operand
kind on either side against torch, Python's reflected-operand and subclass-priority rules, errors,
and autograd / no_grad / graph capture, which must see these ops exactly as before.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import typedtensor._runtime as tt
from tests.backend.helpers import DTYPES, assert_close, pair

torch = pytest.importorskip("torch")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("int"):
        return rng.integers(1, 6, shape) * rng.choice([-1, 1], shape)  # no zero: integer division
    return rng.standard_normal(shape) * 3


def same_outcome(ours: Any, ref: Any) -> None:
    assert isinstance(ours, tt.Tensor)
    assert_close(ours, ref, rtol=1e-5, atol=1e-6)


def check(fn: Any, ours_args: tuple[Any, Any], ref_args: tuple[Any, Any]) -> None:
    try:
        ref = fn(*ref_args)
    except (RuntimeError, TypeError):
        with pytest.raises((TypeError, ValueError)):
            fn(*ours_args)
        return
    same_outcome(fn(*ours_args), ref)


@SETTINGS
@given(sa=st.lists(st.integers(0, 4), max_size=3).map(tuple), broadcast=st.booleans(),
       da=st.sampled_from(DTYPES), db=st.sampled_from(DTYPES), op=st.sampled_from(sorted(OPS)),
       seed=st.integers(0, 2**16))
def test_tensor_op_tensor(sa: tuple[int, ...], broadcast: bool, da: str, db: str, op: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sb = sa[1:] if broadcast else sa
    a, ta = pair(torch, values(rng, sa, da), da)
    b, tb = pair(torch, values(rng, sb, db), db)
    check(OPS[op], (a, b), (ta, tb))
    check(OPS[op], (b, a), (tb, ta))


@SETTINGS
@given(shape=st.lists(st.integers(0, 4), max_size=3).map(tuple), dtype=st.sampled_from(DTYPES),
       number=st.sampled_from([2, -3, 0.5, -1.25, True, False, 2**40]), op=st.sampled_from(sorted(OPS)),
       seed=st.integers(0, 2**16))
def test_tensor_and_python_number_both_sides(shape: tuple[int, ...], dtype: str, number: Any, op: str,
                                             seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, ta = pair(torch, values(rng, shape, dtype), dtype)
    check(OPS[op], (a, number), (ta, number))
    check(OPS[op], (number, a), (number, ta))


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("number", [np.float32(1.5), np.float64(-2.0), np.int64(3), np.bool_(True)])
def test_numpy_scalars_both_sides(op: str, number: Any) -> None:
    data = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    a, ta = pair(torch, data, "float32")
    ref_number = number.item()  # torch reads numpy scalars as Python numbers, as we do
    check(OPS[op], (a, number), (ta, ref_number))
    check(OPS[op], (number, a), (ref_number, ta))


@pytest.mark.parametrize("op", sorted(OPS))
def test_arrays_and_lists_both_sides(op: str) -> None:
    data = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    other = np.array([1.0, -2.0, 4.0], dtype=np.float32)
    a, ta = pair(torch, data, "float32")
    expect = OPS[op](data, other)
    for o in (other, other.tolist()):
        np.testing.assert_allclose(OPS[op](a, o).numpy(), expect, rtol=1e-6)
    np.testing.assert_allclose(OPS[op](other.tolist(), a).numpy(), OPS[op](other, data), rtol=1e-6)
    # ndarray on the left: numpy defers to Tensor (__array_priority__), the result is a Tensor
    r = OPS[op](other, a)
    assert isinstance(r, tt.Tensor)
    np.testing.assert_allclose(r.numpy(), OPS[op](other, data), rtol=1e-6)
    del ta


def test_unknown_operands_give_python_type_errors() -> None:
    a = tt.ones(2, 2)
    for bad in ("x", None, object(), {1: 2}):
        for fn in OPS.values():
            with pytest.raises(TypeError):  # "unsupported operand", or str's own refusal for "x" * a
                fn(a, bad)
            with pytest.raises(TypeError):
                fn(bad, a)


def test_other_types_reflected_methods_still_run() -> None:
    class Other:
        def __add__(self, o: Any) -> str:
            return "Other.__add__"

        def __radd__(self, o: Any) -> str:
            return "Other.__radd__"

        def __rmul__(self, o: Any) -> str:
            return "Other.__rmul__"

    a = tt.ones(3)
    assert a + Other() == "Other.__radd__"
    assert Other() + a == "Other.__add__"
    assert a * Other() == "Other.__rmul__"


def test_subclass_overriding_reflected_op_goes_first() -> None:
    class Marked(tt.Tensor):
        def __radd__(self, o: Any) -> str:
            return "Marked.__radd__"

        def __sub__(self, o: Any) -> str:
            return "Marked.__sub__"

    a = tt.ones(3)
    m = Marked(tt.full((3,), 2.0))
    assert a + m == "Marked.__radd__"  # Python: a subclass's reflected method wins
    assert m - a == "Marked.__sub__"
    r = m + a  # inherited __add__
    assert isinstance(r, tt.Tensor) and r.tolist() == [3.0, 3.0, 3.0]
    r = a - m
    assert isinstance(r, tt.Tensor) and r.tolist() == [-1.0, -1.0, -1.0]


def test_parameters_mix_with_tensors_and_record_gradients() -> None:
    from typedtensor.nn import Parameter

    p = Parameter(tt.tensor([1.0, 2.0, 3.0]))
    t = tt.tensor([4.0, 5.0, 6.0])
    out = (t * p) + (p - t) / 2.0 - 1.0 * p + (3.0 - p) * t
    out.sum().backward()
    assert p.grad is not None
    # d/dp: t + 1/2 - 1 - t = -0.5
    np.testing.assert_allclose(p.grad.numpy(), [-0.5, -0.5, -0.5])


@pytest.mark.parametrize("op", sorted(OPS))
def test_gradients_through_every_operator_and_operand_order(op: str) -> None:
    x = tt.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = tt.tensor([0.5, 4.0, -1.0], requires_grad=True)
    tx = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    ty = torch.tensor([0.5, 4.0, -1.0], requires_grad=True)
    fn = OPS[op]
    ours = fn(fn(x, y), 2.0) + fn(3.0, x) + fn(y, 1.5)
    ref = fn(fn(tx, ty), 2.0) + fn(3.0, tx) + fn(ty, 1.5)
    assert ours.requires_grad and ours.grad_fn is not None
    ours.sum().backward()
    ref.sum().backward()
    assert_close(x.grad, tx.grad)
    assert_close(y.grad, ty.grad)


def test_no_grad_records_nothing() -> None:
    x = tt.ones(3, requires_grad=True)
    with tt.no_grad():
        for y in (x + x, x * 2.0, 2.0 - x, x / x, x.exp()):
            assert not y.requires_grad and y.grad_fn is None


def test_shape_errors_name_the_op_and_both_shapes() -> None:
    a, b = tt.ones(2, 3), tt.ones(4, 5)
    for fn, name in ((operator.add, "add"), (operator.sub, "sub"), (operator.mul, "mul"), (operator.truediv, "div")):
        with pytest.raises(tt.ShapeError, match=rf"{name}.*\[2, 3\].*\[4, 5\]"):
            fn(a, b)


def test_integer_division_by_zero_and_bool_subtraction_raise() -> None:
    i = tt.tensor([1, 2], dtype=tt.int64)
    np.testing.assert_allclose((i / 0).numpy(), [np.inf, np.inf])  # true division: float
    with pytest.raises(TypeError, match="sub"):
        tt.tensor([True]) - tt.tensor([False])
    with pytest.raises(TypeError, match="sub"):
        True - tt.tensor([False])


def test_compiled_functions_capture_operators() -> None:
    def f(a: Any, b: Any) -> Any:
        return (a + b) * 2.0 - b / a + 1.0

    a = tt.tensor([1.0, 2.0, 4.0])
    b = tt.tensor([3.0, -1.0, 0.5])
    import typedtensor

    compiled = typedtensor.compile(f)
    # The second call replays the graph captured by the first: an operator the tracer missed would
    # come back as the first call's constant.
    for x, y in ((a, b), (b, a), (a * 3.0, b)):
        np.testing.assert_allclose(compiled(x, y).numpy(), f(x, y).numpy(), rtol=1e-6)
