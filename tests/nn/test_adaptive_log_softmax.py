"""``nn.AdaptiveLogSoftmaxWithLoss`` (nn/adaptive.py) against torch on the same weights: the named
``(output, loss)`` pair and its gradients, ``log_prob``, ``predict``, the parameters' names and shapes,
the repr, and torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")


def _pair(in_features: int, n_classes: int, cutoffs: list[int], **kw: Any) -> tuple[Any, Any]:
    """The module in both libraries, typedtensor's loaded with torch's (float64) weights."""
    torch.manual_seed(0)
    ref = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, dtype=torch.float64, **kw)
    ours = tt.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, dtype=tt.float64, **kw)
    ours.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return ours, ref


@pytest.mark.parametrize(("cutoffs", "div_value", "head_bias"), [([4], 4.0, False), ([3, 7, 12], 2.0, True),
                                                                   ([5, 10], 1.0, False)])
def test_forward_and_gradients_match_torch(cutoffs: list[int], div_value: float, head_bias: bool) -> None:
    ours, ref = _pair(16, 20, cutoffs, div_value=div_value, head_bias=head_bias)
    assert sorted(dict(ours.named_parameters())) == sorted(dict(ref.named_parameters()))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((9, 16))
    target = np.array([0, 19, 3, 4, 7, 12, 15, 2, 11])
    xo, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got, want = ours(xo, tt.tensor(target)), ref(xr, torch.tensor(target))
    assert type(got).__name__ == type(want).__name__ == "_ASMoutput" and got._fields == ("output", "loss")
    np.testing.assert_allclose(got.output.detach().numpy(), want.output.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.loss.detach().numpy(), want.loss.detach().numpy(), rtol=1e-12)
    w = rng.standard_normal(9)
    ((got.output * tt.tensor(w)).sum() + got.loss).backward()
    ((want.output * torch.tensor(w)).sum() + want.loss).backward()
    np.testing.assert_allclose(xo.grad.numpy(), xr.grad.numpy(), rtol=1e-10, atol=1e-12)
    params = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), params[name].grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


def test_unbatched_and_shortlist_only_targets_match_torch() -> None:
    ours, ref = _pair(8, 10, [2, 6])
    x = np.random.default_rng(2).standard_normal(8)
    for target in (0, 5, 9):
        got, want = ours(tt.tensor(x), tt.tensor(target)), ref(torch.tensor(x), torch.tensor(target))
        assert tuple(got.output.shape) == tuple(want.output.shape) == ()
        np.testing.assert_allclose(got.output.detach().numpy(), want.output.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(got.loss.detach().numpy(), want.loss.detach().numpy(), rtol=1e-12)
    xs = np.random.default_rng(3).standard_normal((4, 8))
    got, want = ours(tt.tensor(xs), tt.tensor([0, 1, 1, 0])), ref(torch.tensor(xs), torch.tensor([0, 1, 1, 0]))
    np.testing.assert_allclose(got.output.detach().numpy(), want.output.detach().numpy(), rtol=1e-12)


def test_log_prob_and_predict_match_torch() -> None:
    ours, ref = _pair(12, 15, [3, 8], head_bias=True)
    x = np.random.default_rng(4).standard_normal((40, 12)) * 3
    got, want = ours.log_prob(tt.tensor(x)), ref.log_prob(torch.tensor(x))
    assert tuple(got.shape) == (40, 15)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.exp(got.detach().numpy()).sum(1), 1.0, rtol=1e-12)
    mixed = ref.predict(torch.tensor(x)).numpy()
    assert 0 < (mixed >= 3).sum() < len(mixed)  # some rows' head prediction is a cluster, some a class
    np.testing.assert_array_equal(ours.predict(tt.tensor(x)).numpy(), mixed)
    for shortlist, clusters in ((100.0, -100.0), (-100.0, 100.0)):  # every row in the shortlist, then none
        with torch.no_grad():
            ref.head.bias[:3] = shortlist
            ref.head.bias[3:] = clusters
        ours.head.bias.data = tt.tensor(ref.head.bias.detach().numpy())
        got_p, want_p = ours.predict(tt.tensor(x)), ref.predict(torch.tensor(x))
        assert ((want_p.numpy() >= 3) == (clusters > 0)).all()
        np.testing.assert_array_equal(got_p.numpy(), want_p.numpy())


def test_structure_and_repr_match_torch() -> None:
    ours, ref = _pair(16, 30, [5, 10, 20], div_value=2.0)
    assert repr(ours) == repr(ref)
    assert (ours.cutoffs, ours.shortlist_size, ours.n_clusters, ours.head_size) == (
        ref.cutoffs, ref.shortlist_size, ref.n_clusters, ref.head_size)
    for name, p in ref.named_parameters():
        assert tuple(dict(ours.named_parameters())[name].shape) == tuple(p.shape), name


def test_reset_parameters_draws_torchs_bounds() -> None:
    m = tt.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 8])
    m.reset_parameters()
    bound = 1 / np.sqrt(16)
    assert np.abs(m.head.weight.detach().numpy()).max() <= bound
    assert np.abs(m.tail[1][1].weight.detach().numpy()).max() <= 1 / np.sqrt(1)


@pytest.mark.parametrize(("cutoffs", "n_classes"), [([], 10), ([5, 3], 10), ([0, 3], 10), ([3, 10], 10),
                                                     ([3, 3], 10), ([2.5], 10)])
def test_bad_cutoffs_raise_torchs_error(cutoffs: list[Any], n_classes: int) -> None:
    with pytest.raises(ValueError, match="cutoffs should be a sequence") as ours:
        tt.nn.AdaptiveLogSoftmaxWithLoss(8, n_classes, cutoffs)
    with pytest.raises(ValueError) as ref:
        torch.nn.AdaptiveLogSoftmaxWithLoss(8, n_classes, cutoffs)
    assert str(ours.value) == str(ref.value)


@pytest.mark.parametrize(("x", "y", "match"), [
    ((4, 8), (4, 2), "0D or 1D target tensor expected"),
    ((4, 8), (3,), "same size in the batch dimension"),
    ((4, 2, 8), (4,), "1D target tensor expects 2D input"),
    ((4, 8), (), "0D target tensor expects 1D input"),
    ((4, 6), (4,), "input has 6 features"),
])
def test_shape_errors(x: tuple[int, ...], y: tuple[int, ...], match: str) -> None:
    m = tt.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])
    with pytest.raises(tt.ShapeError, match=match):
        m(tt.randn(*x), tt.zeros(*y, dtype=tt.int64))


def test_target_out_of_range_raises_torchs_error() -> None:
    m = tt.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\], but values in range \[-1, 10\]"):
        m(tt.randn(3, 8), tt.tensor([-1, 10, 2]))
