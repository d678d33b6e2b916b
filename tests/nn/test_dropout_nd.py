"""nn.Dropout1d / nn.Dropout3d and F.dropout1d / F.dropout3d against torch (whole channels
dropped, survivors scaled by 1 / (1 - p), the unbatched forms, eval, in place, torch's errors and
warnings), and ``inplace=`` on F.relu6 / hardsigmoid / hardswish / mish."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor.nn.functional as F

torch = pytest.importorskip("torch")


def channels_dropped_whole(out: np.ndarray, batched_rank: int, p: float) -> None:
    """Every (sample, channel) slice is all zero or the input (ones) times 1 / (1 - p)."""
    x = out if out.ndim == batched_rank else out[None]
    flat = x.reshape(x.shape[0], x.shape[1], -1)
    for row in flat.reshape(-1, flat.shape[-1]):
        assert np.all(row == 0) or np.allclose(row, 1 / (1 - p))


@pytest.mark.parametrize(("name", "shapes"), [("Dropout1d", [(8, 16, 5), (16, 5)]),
                                              ("Dropout3d", [(4, 8, 2, 3, 2), (8, 2, 3, 2)])])
def test_modules_drop_whole_channels(name: str, shapes: list[tuple[int, ...]]) -> None:
    batched_rank = len(shapes[0])
    for shape in shapes:
        mod = getattr(tt.nn, name)(0.25)
        out = mod(tt.ones(*shape)).numpy()
        assert out.shape == shape
        channels_dropped_whole(out, batched_rank, 0.25)
        assert 0 < (out == 0).mean() < 1  # some channels dropped, some kept (8 x 16 or 4 x 8 draws)
        mod.eval()
        np.testing.assert_array_equal(mod(tt.ones(*shape)).numpy(), np.ones(shape))


def test_repr_and_state_match_torch() -> None:
    for name in ("Dropout1d", "Dropout3d"):
        ours, ref = getattr(tt.nn, name)(0.3, inplace=True), getattr(torch.nn, name)(0.3, inplace=True)
        assert repr(ours) == repr(ref)


@pytest.mark.parametrize("name", ["dropout1d", "dropout3d"])
def test_functional_inplace_and_p_bounds(name: str) -> None:
    shape = (2, 4, 3) if name == "dropout1d" else (2, 4, 3, 1, 2)
    x = tt.ones(*shape)
    out = getattr(F, name)(x, 0.5, True, True)
    assert out is x
    channels_dropped_whole(x.numpy(), len(shape), 0.5)
    np.testing.assert_array_equal(getattr(F, name)(tt.ones(*shape), 0.0).numpy(), np.ones(shape))
    assert (getattr(F, name)(tt.ones(*shape), 1.0).numpy() == 0).all()
    with pytest.raises(ValueError):
        getattr(torch.nn.functional, name)(torch.ones(*shape), 1.5)
    with pytest.raises(ValueError):
        getattr(F, name)(tt.ones(*shape), 1.5)


def test_dropout1d_rank_errors_like_torch() -> None:
    with pytest.raises(RuntimeError):
        torch.nn.functional.dropout1d(torch.ones(2, 3, 4, 5))
    with pytest.raises(tt.ShapeError):
        F.dropout1d(tt.ones(2, 3, 4, 5))


def test_dropout3d_other_ranks_warn_like_torch() -> None:
    for m, ones in ((torch.nn.functional, torch.ones), (F, tt.ones)):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = m.dropout3d(ones(4, 3, 2), 0.5)
        assert tuple(out.shape) == (4, 3, 2)
        assert any("dropout3d: Received a 3-D input" in str(w.message) for w in seen)


def test_gradient_is_the_mask() -> None:
    x = tt.ones(6, 8, 5, requires_grad=True)
    out = F.dropout1d(x, 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish", "mish"])
def test_activation_inplace_matches_torch(name: str) -> None:
    data = np.linspace(-8, 8, 24).reshape(4, 6)
    ref_x = torch.tensor(data)
    ref = getattr(torch.nn.functional, name)(ref_x, inplace=True)
    ours_x = tt.tensor(data)
    ours = getattr(F, name)(ours_x, inplace=True)
    assert ours is ours_x and ref is ref_x
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-12)
    np.testing.assert_allclose(getattr(F, name)(tt.tensor(data)).numpy(), ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish", "mish"])
def test_activation_inplace_backward_matches_torch(name: str) -> None:
    data = np.linspace(-8, 8, 24).reshape(4, 6)
    grads: list[Any] = []
    for m, fm in ((torch, torch.nn.functional), (tt, F)):
        leaf = m.tensor(data, requires_grad=True)
        y = leaf * 1.5
        getattr(fm, name)(y, inplace=True)
        y.sum().backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-7, atol=1e-7)  # torch: hardsigmoid's 1/6 is a float
