"""``F.pdist`` / ``tt.pdist`` (_runtime/composite.py) against torch: the distances of every two rows in
torch's order, their gradients (coincident rows, ties for ``p = inf``) and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)


def compare(data: np.ndarray, p: float) -> None:
    x = tt.tensor(data, requires_grad=True)
    ref = torch.tensor(data, requires_grad=True)
    ours, theirs = tt.nn.functional.pdist(x, p), torch.nn.functional.pdist(ref, p)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    if theirs.numel() == 0:
        return
    weight = RNG.standard_normal(tuple(theirs.shape))
    (ours * tt.tensor(weight)).sum().backward()
    (theirs * torch.tensor(weight)).sum().backward()
    assert x.grad is not None and ref.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, float("inf"), 3.0, 1.5])
@pytest.mark.parametrize("rows", [0, 1, 2, 5])
def test_matches_torch(p: float, rows: int) -> None:
    compare(RNG.standard_normal((rows, 4)), p)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, float("inf"), 3.0])
def test_coincident_rows_have_a_zero_gradient(p: float) -> None:
    data = RNG.standard_normal((4, 3))
    data[2] = data[0]
    compare(data, p)


def test_ties_for_the_infinity_norm() -> None:
    compare(np.array([[0.0, 0.0, 1.0], [2.0, -2.0, 1.0], [1.0, 3.0, -3.0]]), float("inf"))


def test_function_form_and_default_p() -> None:
    data = RNG.standard_normal((3, 2))
    np.testing.assert_allclose(tt.pdist(tt.tensor(data)).numpy(), torch.pdist(torch.tensor(data)).numpy(), rtol=1e-12)


def test_errors_as_torch() -> None:
    with pytest.raises(tt.ShapeError, match="pdist: only supports 2D tensors, got: 3D"):
        tt.pdist(tt.zeros(2, 3, 4))
    with pytest.raises(RuntimeError):
        torch.pdist(torch.zeros(2, 3, 4))
    with pytest.raises(tt.ShapeError, match="pdist: only supports non-negative p values"):
        tt.pdist(tt.zeros(3, 2), -1.0)
    with pytest.raises(RuntimeError):
        torch.pdist(torch.zeros(3, 2), -1.0)
    with pytest.raises(RuntimeError, match="floating-point"):
        tt.pdist(tt.zeros(3, 2, dtype=tt.int64))
    with pytest.raises(RuntimeError):
        torch.pdist(torch.zeros(3, 2, dtype=torch.int64))


def test_compiles() -> None:
    """The pairs come from the row count alone, so ``tt.compile`` captures pdist (no value-dependent op)."""
    x = tt.tensor(RNG.standard_normal((5, 3)))
    compiled = tt.compile(lambda t: tt.pdist(t, 1.0))
    np.testing.assert_allclose(compiled(x).numpy(), tt.pdist(x, 1.0).numpy(), rtol=1e-12)
