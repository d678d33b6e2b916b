"""``F.ctc_loss`` (_runtime/ctc.py) and ``nn.CTCLoss`` (nn/ctc.py) against torch: losses and gradients
for padded and concatenated targets, tensor and tuple lengths, every reduction, repeated labels,
impossible alignments (with and without ``zero_infinity``), unbatched inputs, and torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")


def _targets(rng: np.random.Generator, n: int, s: int, c: int, blank: int, repeats: bool) -> np.ndarray:
    labels = [v for v in range(c) if v != blank]
    out = rng.choice(labels, size=(n, s))
    if repeats and s > 1:
        out[:, 1] = out[:, 0]  # a repeated label needs a blank between its two frames
    return out.astype(np.int64)


def _compare(x: np.ndarray, tg: np.ndarray, il: Any, tl: Any, *, logits: bool = True, **kw: Any) -> None:
    """The loss and the gradient (of a weighted sum of it) in x; NaN where torch's are NaN."""
    ours_x, ref_x = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours_lp = ours_x.log_softmax(-1) if logits else ours_x
    ref_lp = ref_x.log_softmax(-1) if logits else ref_x
    ours = tt.nn.functional.ctc_loss(ours_lp, tt.tensor(tg), *(tt.tensor(v) if isinstance(v, np.ndarray) else v
                                                               for v in (il, tl)), **kw)
    ref = torch.nn.functional.ctc_loss(ref_lp, torch.tensor(tg), *(torch.tensor(v) if isinstance(v, np.ndarray) else v
                                                                  for v in (il, tl)), **kw)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-10)
    w = np.linspace(0.5, 1.5, ref.numel()).reshape(tuple(ref.shape))
    (ours * tt.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), ref_x.grad.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concatenated", [False, True])
@pytest.mark.parametrize("as_tensors", [False, True])
def test_random_batches_match_torch(reduction: str, concatenated: bool, as_tensors: bool) -> None:
    rng = np.random.default_rng(3)
    t, n, c, s = 12, 4, 6, 4
    x = rng.standard_normal((t, n, c))
    tg = _targets(rng, n, s, c, 0, repeats=True)
    il, tl = [12, 9, 12, 7], [4, 3, 0, 2]
    if concatenated:
        tg = np.concatenate([tg[i, : tl[i]] for i in range(n)])
    lengths: tuple[Any, Any] = (np.array(il), np.array(tl)) if as_tensors else (tuple(il), tuple(tl))
    _compare(x, tg, *lengths, reduction=reduction)


@pytest.mark.parametrize("blank", [0, 3, 5])
@pytest.mark.parametrize("logits", [True, False])
def test_blank_and_unnormalised_log_probs_match_torch(blank: int, logits: bool) -> None:
    # torch's gradient is exp(lp) - ..., the logits' gradient (NOTE [ CTC gradient as torch's ])
    rng = np.random.default_rng(blank)
    x = rng.standard_normal((9, 3, 6))
    tg = _targets(rng, 3, 3, 6, blank, repeats=blank == 3)
    _compare(x, tg, (9, 8, 5), (3, 2, 3), blank=blank, logits=logits, reduction="none")


def test_repeated_labels_need_a_blank_between_them() -> None:
    x = np.random.default_rng(1).standard_normal((4, 2, 3))
    tg = np.array([[1, 1, 1], [1, 2, 1]])
    # [1, 1, 1] needs 5 frames (1 _ 1 _ 1): impossible in 4, while [1, 2, 1] fits in 3
    ours = tt.nn.functional.ctc_loss(tt.tensor(x).log_softmax(-1), tt.tensor(tg), (4, 4), (3, 3), reduction="none")
    assert np.isinf(ours.detach().numpy()[0]) and np.isfinite(ours.detach().numpy()[1])
    _compare(x, tg, (4, 4), (3, 3), reduction="none")
    _compare(x, tg, (4, 4), (3, 3), reduction="sum", zero_infinity=True)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_impossible_alignments_match_torch(reduction: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 3, 4))
    tg = _targets(rng, 3, 4, 4, 0, repeats=False)
    il, tl = (2, 6, 0), (3, 4, 1)  # 3 labels in 2 frames, 4 in 6, 1 in none
    ours = tt.nn.functional.ctc_loss(tt.tensor(x).log_softmax(-1), tt.tensor(tg), il, tl, reduction="none")
    assert np.isinf(ours.detach().numpy()[[0, 2]]).all()
    _compare(x, tg, il, tl, reduction=reduction, zero_infinity=True)
    ref_x = torch.tensor(x, requires_grad=True)
    ref = torch.nn.functional.ctc_loss(ref_x.log_softmax(-1), torch.tensor(tg), il, tl, reduction=reduction)
    ref.sum().backward()
    ours_x = tt.tensor(x, requires_grad=True)
    got = tt.nn.functional.ctc_loss(ours_x.log_softmax(-1), tt.tensor(tg), il, tl, reduction=reduction)
    got.sum().backward()
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy())  # inf where torch's is inf
    np.testing.assert_allclose(ours_x.grad.numpy(), ref_x.grad.numpy(), rtol=1e-9, atol=1e-10)  # NaN as torch's


def test_unbatched_matches_torch() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((7, 5))
    _compare(x, np.array([2, 2, 4]), (7,), (3,), reduction="none")
    _compare(x, np.array([[1, 3]]), np.array(6), np.array(2), reduction="mean")


def test_float32_matches_torch() -> None:
    x = np.random.default_rng(2).standard_normal((8, 2, 5)).astype(np.float32)
    tg = np.array([[1, 2, 2], [4, 3, 0]])
    ours = tt.nn.functional.ctc_loss(tt.tensor(x).log_softmax(-1), tt.tensor(tg), (8, 6), (3, 2))
    ref = torch.nn.functional.ctc_loss(torch.tensor(x).log_softmax(-1), torch.tensor(tg), (8, 6), (3, 2))
    assert ours.dtype == tt.float32
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5)


def test_module_matches_functional_and_torch() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 2, 4))
    tg = np.array([[1, 2], [3, 3]])
    ours = tt.nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True)
    ref = torch.nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True)
    got = ours(tt.tensor(x).log_softmax(-1), tt.tensor(tg), tt.tensor([6, 5]), tt.tensor([2, 2]))
    want = ref(torch.tensor(x).log_softmax(-1), torch.tensor(tg), torch.tensor([6, 5]), torch.tensor([2, 2]))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    assert repr(ours) == repr(ref) == "CTCLoss()"
    assert (ours.blank, ours.reduction, ours.zero_infinity) == (0, "sum", True)


def _lp(*shape: int) -> Any:
    return tt.randn(*shape).log_softmax(-1)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 3, 4), tt.ones(2, 2, dtype=tt.int64), (5, 5), (1, 1)),
     tt.ShapeError, "ctc_loss: expected a 2-d or 3-d log_probs"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(3, 2, dtype=tt.int64), (5, 5), (1, 1)),
     tt.ShapeError, "ctc_loss: padded targets need one row per example"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), (5, 5, 5), (1, 1)),
     tt.ShapeError, "ctc_loss: input_lengths must be of size batch_size"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), tt.tensor([5]), (1, 1)),
     tt.ShapeError, "ctc_loss: input_lengths must be of size batch_size"),
    (lambda: tt.nn.functional.ctc_loss(_lp(0, 2, 4), tt.ones(2, 2, dtype=tt.int64), (0, 0), (1, 1)),
     tt.ShapeError, "log_probs tensor must not be empty"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), (6, 5), (1, 1)),
     RuntimeError, "input_lengths to have value at most 5"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), (5, 5), (3, 1)),
     RuntimeError, "shorter than the longest target length 3"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(3, dtype=tt.int64), (5, 5), (1, 1)),
     RuntimeError, "target lengths sum to 2"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), (5, 5), (1, 1), blank=4),
     RuntimeError, "blank must be in label range"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64) * 4, (5, 5), (1, 1)),
     RuntimeError, r"target labels must lie in \[0, 4\)"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), (5, 5), (1, 1), blank=1),
     RuntimeError, r"a target label equals the blank \(1\)"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), (5, 5), (1, -1)),
     RuntimeError, "target_lengths to have value at least 0"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), (5, 5), (1, 1), reduction="x"),
     ValueError, "x is not a valid value for reduction"),
    (lambda: tt.nn.functional.ctc_loss(_lp(5, 2, 4), tt.ones(2, 2, dtype=tt.int64), tt.tensor([5.0, 5.0]), (1, 1)),
     RuntimeError, "input_lengths must be integral"),
])
def test_errors(call: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()
