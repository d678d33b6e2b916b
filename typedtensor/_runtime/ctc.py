"""``F.ctc_loss``: the connectionist temporal classification loss, torch's ``ctc_loss`` (ATen's
``LossCTC.cpp``) written over differentiable ops. The forward variables (alpha) of every example and
every position of its extended label sequence (blank, l1, blank, l2, ..., blank) advance one frame
at a time in log space; the gradient comes from autograd through that recursion.

NOTE [ CTC gradient as torch's ]
torch's backward does not return the derivative of the loss with respect to ``log_probs``: for a frame
``t`` below the input length it returns ``exp(lp) - exp(log(alpha beta) + nll - lp)``, which is the
derivative with respect to the logits when ``log_probs = log_softmax(logits)`` (the two agree after
log_softmax's VJP, whose rows of ``exp(lp)`` sum to one). To give torch's numbers, each example's loss
adds ``sum(exp(lp)) - detach(sum(exp(lp)))`` over its frames: zero in value, ``exp(lp)`` in gradient.
An impossible alignment (an infinite loss) has torch's gradient there: NaN on its frames (the square
root of zero times ``lp``, zero in value, has that derivative), or zero with ``zero_infinity=True``."""

from __future__ import annotations

from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

__all__ = ["ctc_loss"]

_NEG_INF = float("-inf")


def _lengths(what: str, lengths: Any, n: int) -> list[int]:
    """``input_lengths`` / ``target_lengths`` as a tensor, a tuple/list or (unbatched) one int."""
    if isinstance(lengths, _C.Tensor):
        if lengths.is_floating_point() or lengths.dtype == _C.bool:
            raise RuntimeError(f"{what} must be integral")
        values = [int(v) for v in np.asarray(lengths.detach().cpu().numpy()).reshape(-1)]
    elif isinstance(lengths, int):
        values = [lengths]
    else:
        values = [int(v) for v in lengths]
    if len(values) != n:
        raise RuntimeError(f"{what} must be of size batch_size")
    return values


def _log_add_paths(x: Any, dim: int) -> Any:
    """The log-sum-exp whose value is -inf and whose gradient is 0 where every term is -inf (states that
    no alignment reaches), so that they pass no NaN back through the recursion."""
    m = x.max(dim).values.detach()
    m = _C.where(m.isinf(), _C.zeros_like(m), m)
    s = (x - m.unsqueeze(dim)).exp().sum(dim)
    empty = s == 0
    lse = m + _C.where(empty, _C.ones_like(s), s).log()
    return _C.where(empty, _C.full_like(lse, _NEG_INF), lse)


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Any:
    """``log_probs`` ``[T, N, C]`` (or unbatched ``[T, C]``), ``targets`` padded ``[N, S]`` or concatenated
    ``[sum(target_lengths)]``; the negative log likelihood of each example's target over all its
    alignments. ``mean`` divides each loss by its target length (at least 1) and averages the batch."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    check("ctc_loss", log_probs=log_probs, targets=targets, input_lengths=input_lengths,
          target_lengths=target_lengths, blank=blank, reduction=reduction, zero_infinity=zero_infinity)
    if not log_probs.is_floating_point():
        raise NotImplementedError(f"ctc_loss: log_probs must be floating point, got {log_probs.dtype}")
    if targets.is_floating_point():
        raise RuntimeError(f"ctc_loss: targets must be integer class indices, got {targets.dtype}")
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    tg = targets  # 1-d: concatenated (also unbatched: torch reads it so), 2-d: padded rows
    frames, n, c = (int(v) for v in lp.shape)
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    in_len = _lengths("input_lengths", input_lengths, n)
    tg_len = _lengths("target_lengths", target_lengths, n)
    for what, values, top in (("input_lengths", in_len, frames), ("target_lengths", tg_len, None)):
        for v in values:
            if v < 0:
                raise RuntimeError(f"ctc_loss: expected {what} to have value at least 0, but got value {v}")
            if top is not None and v > top:
                raise RuntimeError(f"ctc_loss: expected {what} to have value at most {top}, but got value {v}")
    # the targets of each example, read on the host (class indices: no gradient flows into them)
    flat = np.asarray(tg.detach().cpu().numpy()).astype(np.int64)
    if tg.ndim == 2:
        if flat.shape[1] < max(tg_len, default=0):
            raise RuntimeError(f"ctc_loss: targets {list(targets.shape)} are shorter than the longest target "
                               f"length {max(tg_len)}")
        rows = [flat[i, : tg_len[i]] for i in range(n)]
    else:
        if flat.shape[0] != sum(tg_len):
            raise RuntimeError(f"ctc_loss: concatenated targets of {flat.shape[0]} labels, but the target lengths "
                               f"sum to {sum(tg_len)}")
        starts = np.cumsum([0, *tg_len])
        rows = [flat[starts[i] : starts[i + 1]] for i in range(n)]
    for row in rows:
        if row.size and (row.min() < 0 or row.max() >= c):
            raise RuntimeError(f"ctc_loss: target labels must lie in [0, {c}), got {int(row.min())}..{int(row.max())}")
        if (row == blank).any():
            # torch's documented precondition; its kernels give no meaningful numbers for such a target
            raise RuntimeError(f"ctc_loss: a target label equals the blank ({blank}); targets cannot hold the blank")
    s_max = max(tg_len, default=0)
    width = 2 * s_max + 1
    # extended label sequences [N, 2S + 1]: blank, l1, blank, l2, ... (blank past each one's end)
    ext = np.full((n, width), blank, dtype=np.int64)
    skip = np.zeros((n, width), dtype=bool)  # the s - 2 transition: a label that differs from the previous one
    for i, row in enumerate(rows):
        ext[i, 1 : 2 * len(row) : 2] = row
        if len(row) > 1:
            skip[i, 3 : 2 * len(row) : 2] = row[1:] != row[:-1]
    dev = lp.device
    ext_t = _C.tensor(ext.tolist(), dtype=_C.int64, device=dev)
    skip_t = _C.tensor(skip.tolist(), dtype=_C.bool, device=dev)
    emit = lp.gather(2, ext_t.unsqueeze(0).expand(frames, n, width))  # [T, N, 2S + 1]
    neg = _C.full((n, 1), _NEG_INF, dtype=lp.dtype, device=dev)
    neg2 = _C.full((n, 2), _NEG_INF, dtype=lp.dtype, device=dev)
    start = np.full((n, width), False)
    start[:, 0] = True
    start[:, 1] = np.asarray(tg_len) > 0 if width > 1 else False
    start_t = _C.tensor(start.tolist(), dtype=_C.bool, device=dev)
    live = [_C.tensor([t < v for v in in_len], dtype=_C.bool, device=dev).unsqueeze(1) for t in range(frames)]
    alpha = _C.full((n, width), _NEG_INF, dtype=lp.dtype, device=dev)
    if frames:
        alpha = _C.where(start_t & live[0], emit[0], alpha)
    for t in range(1, frames):
        prev1 = _C.cat([neg, alpha[:, :-1]], 1)
        prev2 = _C.cat([neg2, alpha[:, :-2]], 1) if width > 2 else _C.full_like(alpha, _NEG_INF)
        prev2 = _C.where(skip_t, prev2, _C.full_like(prev2, _NEG_INF))
        step = _log_add_paths(_C.stack([alpha, prev1, prev2], 0), 0) + emit[t]
        alpha = _C.where(live[t], step, alpha)
    # each example ends in its last label or the blank after it
    last = _C.tensor([[2 * v, max(2 * v - 1, 0)] for v in tg_len], dtype=_C.int64, device=dev)
    ends = alpha.gather(1, last)
    one_end = _C.tensor([[False, v == 0] for v in tg_len], dtype=_C.bool, device=dev)
    ends = _C.where(one_end, _C.full_like(ends, _NEG_INF), ends)
    nll = -_log_add_paths(ends, 1)
    # NOTE [ CTC gradient as torch's ]: zero in value, exp(lp) on the valid frames in gradient
    valid = _C.tensor([[t < v for v in in_len] for t in range(frames)], dtype=lp.dtype, device=dev).unsqueeze(2)
    mass = (lp.exp() * valid).sum(2).sum(0)
    loss = nll + (mass - mass.detach())
    infinite = [i for i, v in enumerate(nll.detach().isinf().tolist()) if v]
    if zero_infinity:
        loss = _C.where(nll.detach().isinf(), _C.zeros_like(loss), loss)
    elif infinite:
        nan_grad = [(lp[: in_len[i], i] * 0).sqrt().sum() for i in infinite if in_len[i] > 0]
        if nan_grad:
            loss = loss + _C.stack(nan_grad).sum()
    if unbatched:
        loss = loss.squeeze(0)
    if reduction == "mean":
        lengths = _C.tensor(tg_len, dtype=lp.dtype, device=dev).clamp(min=1)
        return (loss / (lengths.squeeze(0) if unbatched else lengths)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss
