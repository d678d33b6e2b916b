"""In-place activations and dropouts keep autograd right: the backward of an op whose input is
overwritten in place (``nn.LeakyReLU(0.2, inplace=True)`` after a convolution, as dcgan builds it)
gives torch's gradients instead of failing with "modified by an inplace operation"."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

ACTIVATIONS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("relu", lambda F, x: F.relu(x, inplace=True)),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2, inplace=True)),
    ("silu", lambda F, x: F.silu(x, inplace=True)),
    ("elu", lambda F, x: F.elu(x, 0.7, inplace=True)),
    ("hardtanh", lambda F, x: F.hardtanh(x, -0.5, 0.5, inplace=True)),
    ("LeakyReLU module", lambda F, x: (tt.nn if F is tt.nn.functional else torch.nn).LeakyReLU(0.2, inplace=True)(x)),
    ("SiLU module", lambda F, x: (tt.nn if F is tt.nn.functional else torch.nn).SiLU(inplace=True)(x)),
    ("ReLU module", lambda F, x: (tt.nn if F is tt.nn.functional else torch.nn).ReLU(inplace=True)(x)),
]


@pytest.mark.parametrize(("name", "act"), ACTIVATIONS, ids=[n for n, _ in ACTIVATIONS])
def test_inplace_activation_backward_matches_torch(name: str, act: Callable[[Any, Any], Any]) -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    grads = []
    for lib in (tt, torch):
        weight = lib.tensor(w.copy(), requires_grad=True)
        h = lib.tensor(x) @ weight  # not a leaf: the activation overwrites it
        y = act(lib.nn.functional, h)
        assert y is h  # in place, as torch's
        (y * lib.tensor(np.arange(15, dtype=np.float32).reshape(3, 5))).sum().backward()
        grads.append(np.asarray(weight.grad.numpy()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_inplace_dropout_backward() -> None:
    tt.manual_seed(0)
    w = tt.ones(4, 6, requires_grad=True)
    h = tt.ones(3, 4) @ w
    y = tt.nn.functional.dropout(h, 0.5, True, inplace=True)
    y.sum().backward()
    kept = np.asarray(y.detach().numpy()) != 0
    # d(sum)/dw[i, j] = sum over rows of x[r, i] * mask[r, j] * 2
    np.testing.assert_allclose(np.asarray(w.grad.numpy()), np.tile((kept * 2.0).sum(0), (4, 1)))
    z = tt.ones(2, 3, 4, 4, requires_grad=True) * 1.0
    out = tt.nn.Dropout2d(0.5, inplace=True)(z)
    out.sum().backward()


def test_inplace_on_a_tensor_without_grad_stays_a_plain_write() -> None:
    x = tt.tensor([-1.0, 2.0])
    assert tt.nn.functional.leaky_relu(x, 0.5, inplace=True) is x
    assert x.tolist() == [-0.5, 2.0]
    y = tt.tensor([1.0, 2.0])
    assert tt.nn.functional.dropout(y, 0.5, training=False, inplace=True) is y


@pytest.mark.parametrize("shape", [(6, 8), (2, 3, 40), (2, 3, 2, 2, 10)], ids=["2d", "3d", "5d"])
def test_dropout2d_on_other_ranks_warns_and_drops_per_sample_and_channel(shape: tuple[int, ...]) -> None:
    tt.manual_seed(1)
    x = tt.ones(*shape)
    with pytest.warns(UserWarning, match="dropout2d: Received a") as record:
        y = tt.nn.functional.dropout2d(x, 0.5, True)
    with warnings.catch_warnings(record=True) as ref_record:
        warnings.simplefilter("always")
        torch.nn.functional.dropout2d(torch.ones(*shape), 0.5, True)
    assert [str(w.message) for w in record] == [str(w.message) for w in ref_record]
    arr = np.asarray(y.numpy()).reshape(shape[0], shape[1], -1)
    assert set(np.unique(arr).tolist()) <= {0.0, 2.0}
    assert (arr == arr[:, :, :1]).all()  # one draw per (sample, channel), as torch's feature dropout
    with pytest.warns(UserWarning):
        tt.nn.Dropout2d(0.3)(x)  # the module warns instead of raising, as torch's


def test_dropout2d_keeps_4d_and_refuses_1d() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tt.nn.functional.dropout2d(tt.ones(2, 3, 4, 4), 0.5, True)
    with pytest.raises(Exception, match="dropout2d"):  # torch: feature dropout needs 2 dims or more
        tt.nn.functional.dropout2d(tt.ones(5), 0.5, True)
