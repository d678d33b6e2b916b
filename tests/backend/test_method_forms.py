"""The Tensor-method forms of ops that are functions first: ``allclose``, ``isclose``, ``equal``
(_runtime/compare.py), ``hardshrink`` and ``prelu`` (_runtime/activation.py), against torch's methods."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)


def pair(data: np.ndarray) -> tuple[tt.Tensor, torch.Tensor]:
    return tt.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


@pytest.mark.parametrize("kwargs", [{}, {"rtol": 0.1}, {"atol": 0.5}, {"equal_nan": True}])
def test_isclose_and_allclose(kwargs: dict[str, object]) -> None:
    a = np.array([[1.0, np.nan, 3.0], [0.0, -2.0, 1e-9]])
    b = np.array([[1.05, np.nan, 3.0], [0.3, -2.0, 0.0]])
    ours, theirs = tt.tensor(a), torch.tensor(a)
    other, other_t = tt.tensor(b[1]), torch.tensor(b[1])  # broadcast against a row
    assert ours.isclose(other, **kwargs).tolist() == theirs.isclose(other_t, **kwargs).tolist()
    assert ours.allclose(other, **kwargs) is theirs.allclose(other_t, **kwargs)
    assert ours.allclose(ours, equal_nan=True) is True
    assert ours.allclose(ours) is False  # NaN is not close to itself unless equal_nan


def test_equal() -> None:
    a = tt.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert a.equal(a.clone()) is True
    assert a.equal(a + 1) is False
    assert a.equal(a.reshape(4)) is torch.ones(2, 2).equal(torch.ones(4)) is False
    assert a.equal(tt.tensor([1.0, 2.0])) is False  # no broadcasting: another shape is unequal


@pytest.mark.parametrize("lambd", [None, 0.1, 1.5])
def test_hardshrink_values_and_gradient(lambd: float | None) -> None:
    x, xt = pair(RNG.standard_normal((3, 4)))
    kw = {} if lambd is None else {"lambd": lambd}
    ours, theirs = x.hardshrink(**kw), xt.hardshrink(**kw)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    assert x.grad is not None and xt.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("slopes", [1, 3])
def test_prelu_values_and_gradients(slopes: int) -> None:
    x, xt = pair(RNG.standard_normal((2, 3, 4)))
    w, wt = pair(RNG.uniform(0.1, 0.5, (slopes,)))
    ours, theirs = x.prelu(w), xt.prelu(wt)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    assert x.grad is not None and w.grad is not None and xt.grad is not None and wt.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-12)


def test_prelu_method_checks_the_weight() -> None:
    x = tt.zeros(2, 3, 4)
    with pytest.raises(tt.ShapeError, match="prelu"):
        x.prelu(tt.ones(2))
    with pytest.raises(RuntimeError):
        torch.zeros(2, 3, 4).prelu(torch.ones(2))
