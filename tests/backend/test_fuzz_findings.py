"""Regressions found by the fuzz test (tests/backend/test_fuzz.py) once it drew the math kernels
and more empty shapes: each case against torch's answer."""

from __future__ import annotations

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
