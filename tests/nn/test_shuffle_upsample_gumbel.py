"""``F.channel_shuffle`` / ``nn.ChannelShuffle``, the deprecated ``F.upsample*`` spellings and
``F.gumbel_softmax`` against torch: values, gradients, torch's random draws and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)


@pytest.mark.parametrize(("shape", "groups"), [((2, 6, 3, 4), 3), ((1, 4, 5), 2), ((2, 8, 2, 2, 2), 4), ((3, 5, 1), 1)])
def test_channel_shuffle_matches_torch(shape: tuple[int, ...], groups: int) -> None:
    x = RNG.standard_normal(shape)
    a, b = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours, ref = tt.nn.functional.channel_shuffle(a, groups), torch.nn.functional.channel_shuffle(b, groups)
    np.testing.assert_array_equal(ours.detach().numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(tt.nn.ChannelShuffle(groups)(a).detach().numpy(), ref.detach().numpy())
    w = RNG.standard_normal(shape)
    (ours * tt.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_channel_shuffle_errors() -> None:
    with pytest.raises(tt.ShapeError, match="divisible by groups"):
        tt.channel_shuffle(tt.zeros(1, 5, 2), 2)
    with pytest.raises(tt.ShapeError, match="at least 3 dimensions"):
        tt.channel_shuffle(tt.zeros(4, 4), 2)
    with pytest.raises(tt.ShapeError, match="must be positive"):
        tt.nn.ChannelShuffle(0)(tt.zeros(1, 4, 2))


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_upsample_spellings_match_torch_and_warn(name: str) -> None:
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for kw in ({"size": (7, 3)}, {"scale_factor": 2}):
        with pytest.warns(UserWarning, match="deprecated"):
            ours = getattr(tt.nn.functional, name)(tt.from_numpy(x), **kw)
        with pytest.warns(UserWarning):
            ref = getattr(torch.nn.functional, name)(torch.from_numpy(x), **kw)
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_draws_and_gradients_are_torchs(hard: bool) -> None:
    logits = RNG.standard_normal((4, 6)).astype(np.float32)
    a, b = tt.tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    tt.manual_seed(5)
    torch.manual_seed(5)
    ours = tt.nn.functional.gumbel_softmax(a, tau=0.7, hard=hard, dim=0)
    ref = torch.nn.functional.gumbel_softmax(b, tau=0.7, hard=hard, dim=0)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    if hard:
        assert set(np.unique(ours.detach().numpy())) <= {0.0, 1.0}
        np.testing.assert_array_equal(ours.detach().numpy().sum(0), np.ones(6, dtype=np.float32))
    w = RNG.standard_normal((4, 6)).astype(np.float32)
    (ours * tt.from_numpy(w)).sum().backward()
    (ref * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-6)
    with pytest.raises(tt.ShapeError, match="gumbel_softmax"):
        tt.nn.functional.gumbel_softmax(a, dim=2)
