"""``Tensor.unfold`` (the op table's entry ``unfold_windows``, _runtime/arrangement_ops.py) against torch:
window values, gradients where windows overlap or skip elements, non-contiguous and 0-d inputs, and
torch's errors. ``F.unfold`` (im2col) keeps its own name beside it."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)

CASES = [  # shape, dimension, size, step
    ((10,), 0, 3, 1),  # overlapping windows
    ((10,), 0, 3, 3),  # adjacent windows
    ((10,), 0, 2, 4),  # gaps between windows
    ((2, 7, 3), 1, 3, 2),
    ((2, 7, 3), -1, 2, 1),  # negative dimension
    ((4, 5), -2, 4, 1),
    ((3, 4), 1, 4, 5),  # one window covering the dim
    ((3, 4), 0, 0, 1),  # empty windows
    ((0, 3), 0, 0, 2),
]


@pytest.mark.parametrize(("shape", "dim", "size", "step"), CASES)
def test_values_and_gradients_match_torch(shape: tuple[int, ...], dim: int, size: int, step: int) -> None:
    data = RNG.standard_normal(shape)
    x = tt.tensor(data, dtype=tt.float64, requires_grad=True)
    ref = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    ours, theirs = x.unfold(dim, size, step), ref.unfold(dim, size, step)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    weight = RNG.standard_normal(tuple(theirs.shape))
    (ours * tt.tensor(weight)).sum().backward()
    (theirs * torch.tensor(weight)).sum().backward()
    assert x.grad is not None and ref.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_overlapping_windows_accumulate_the_gradient() -> None:
    x = tt.ones(5, requires_grad=True)
    x.unfold(0, 3, 1).sum().backward()
    assert x.grad is not None
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 2.0, 1.0]  # how many windows read each element


def test_non_contiguous_input() -> None:
    data = RNG.standard_normal((4, 6))
    x = tt.tensor(data, requires_grad=True)
    ref = torch.tensor(data, requires_grad=True)
    xt, rt = x.t(), ref.t()
    assert not xt.is_contiguous()
    ours, theirs = xt.unfold(1, 2, 1), rt.unfold(1, 2, 1)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    ours.pow(2).sum().backward()
    theirs.pow(2).sum().backward()
    assert x.grad is not None and ref.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize(("dim", "size", "step"), [(0, 1, 1), (-1, 1, 2), (0, 0, 1)])
def test_zero_dim_input(dim: int, size: int, step: int) -> None:
    ours, theirs = tt.tensor(3.0).unfold(dim, size, step), torch.tensor(3.0).unfold(dim, size, step)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist()


def test_integer_dtype_is_kept() -> None:
    got = tt.arange(6).unfold(0, 2, 2)
    assert got.dtype == tt.int64
    assert got.tolist() == torch.arange(6).unfold(0, 2, 2).tolist()


@pytest.mark.parametrize(
    ("shape", "args", "message"),
    [
        ((5,), (0, 6, 1), "unfold: maximum size for tensor at dimension 0 is 5 but size is 6"),
        ((), (0, 2, 1), "unfold: maximum size for tensor at dimension 0 is 1 but size is 2"),
        ((5,), (0, 2, 0), "unfold: step is 0 but must be > 0"),
        ((5,), (0, 2, -1), "unfold: step is -1 but must be > 0"),
        ((5,), (0, -1, 1), "unfold: size is -1 but must be >= 0"),
        ((2, 5), (2, 2, 1), "unfold: dim 2 is out of range for a tensor of rank 2"),
        ((), (1, 1, 1), "unfold: dim 1 is out of range for a tensor of rank 0"),
    ],
)
def test_errors_as_torch(shape: tuple[int, ...], args: tuple[int, int, int], message: str) -> None:
    with pytest.raises((RuntimeError, IndexError)):
        torch.zeros(shape).unfold(*args)
    with pytest.raises(tt.ShapeError, match=message.replace("(", r"\(")):
        tt.zeros(*shape).unfold(*args)


def test_functional_unfold_is_still_im2col() -> None:
    x = RNG.standard_normal((1, 2, 4, 4))
    ours = tt.nn.functional.unfold(tt.tensor(x), 2)
    theirs = torch.nn.functional.unfold(torch.tensor(x), 2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_result_is_a_copy_of_the_windows() -> None:
    """NOTE [ unfold is a copy ]: unlike torch's view, a write to the windows leaves the input alone."""
    x = tt.zeros(6)
    w = x.unfold(0, 2, 2)
    w.fill_(1.0)
    assert x.tolist() == [0.0] * 6
