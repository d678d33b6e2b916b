"""``nn.functional``'s losses beyond those of functional.py, and the distances they use, written over
differentiable ops with torch's formulas (ATen's ``Loss.cpp`` and ``torch/nn/functional.py``)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

__all__ = [
    "cosine_embedding_loss", "cosine_similarity", "gaussian_nll_loss", "hinge_embedding_loss", "kl_div",
    "margin_ranking_loss", "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
    "pairwise_distance", "pdist", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    from typedtensor._runtime.functional import _check_reduction, _legacy_reduction

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return reduction


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def kl_div(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
           log_target: bool = False) -> Any:
    """``target (log target - input)`` pointwise (0 where target is 0); ``batchmean`` divides the sum by
    the batch size (the mathematical KL divergence), ``mean`` by the number of elements, as torch."""
    if reduction == "batchmean":
        red = "batchmean"
    else:
        red = _reduction(size_average, reduce, reduction)
        if red == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
    check("kl_div", input=input, target=target, reduction="mean" if red == "batchmean" else red)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input
    if red == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, red)


def soft_margin_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Any:
    """``log(1 + exp(-y x))``."""
    red = _reduction(size_average, reduce, reduction)
    check("soft_margin_loss", input=input, target=target)
    return _reduce((-target * input).exp().log1p(), red)


def margin_ranking_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0, size_average: Any = None,
                        reduce: Any = None, reduction: str = "mean") -> Any:
    """``max(0, -y (x1 - x2) + margin)``."""
    red = _reduction(size_average, reduce, reduction)
    check("margin_ranking_loss", input1=input1, input2=input2, target=target, reduction=red)
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), red)


def hinge_embedding_loss(input: Any, target: Any, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Any:
    """``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1`` (torch's sum of the two masked terms)."""
    red = _reduction(size_average, reduce, reduction)
    check("hinge_embedding_loss", input=input, target=target)
    zeros = _C.zeros_like(input)
    margin_part = _C.where(target != 1, (margin - input).clamp(min=0), zeros)
    self_part = _C.where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, red)


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-8) -> Any:
    """``sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps))`` over ``dim`` (the inputs broadcast), torch's
    formula since 1.12."""
    check("cosine_similarity", x1=x1, x2=x2, dim=dim)
    if tuple(x1.shape) != tuple(x2.shape):  # torch broadcasts first, so a 0-d or 1-d operand may meet `dim`
        x1, x2 = _C.broadcast_tensors(x1, x2)
    n1 = x1.norm(2, dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Any:
    """``|x1 - x2 + eps|_p`` over the last dim."""
    check("pairwise_distance", x1=x1, x2=x2, keepdim=keepdim)
    diff = x1 - x2 + eps
    if diff.ndim == 0:
        return diff.abs()
    return diff.norm(p, -1, keepdim=keepdim)


def pdist(input: Any, p: float = 2.0) -> Any:
    """The ``p``-norm distance between rows ``i < j`` of ``input`` ``[N, M]``, in row-major order:
    ``[N (N - 1) / 2]``. Gradients are torch's: zero where two rows coincide (no 0/0), every entry
    that attains the maximum gets the whole gradient for ``p = inf``, none for ``p = 0``."""
    check("pdist", input=input, p=p)
    if not input.is_floating_point():
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype}")
    n = int(input.shape[0])
    # the pairs (i, j), i < j, in row-major order: from the size alone, so tt.compile captures them as constants
    rows, cols = (_C.from_numpy(v.astype(np.int64)).to(input.device) for v in np.triu_indices(n, 1))
    diff = input.index_select(0, rows) - input.index_select(0, cols)  # [pairs, M]
    size = diff.abs()
    p = float(p)
    if p == 0:  # how many entries differ, with a zero gradient as torch: the where never picks size.sum
        count = (diff != 0).to(diff.dtype).sum(-1)
        return _C.where(count != count, size.sum(-1), count)
    if p == float("inf"):
        if diff.shape[-1] == 0:
            return diff.sum(-1)
        top = size.amax(-1).detach()
        attains = (size.detach() == top.unsqueeze(-1)).to(diff.dtype)
        return top + ((size - size.detach()) * attains).sum(-1)  # each maximal entry takes the full gradient
    if p == 1:
        return size.sum(-1)
    total = (diff * diff if p == 2 else size.pow(p)).sum(-1)
    zero = total == 0
    return _C.where(zero, _C.zeros_like(total), _C.where(zero, _C.ones_like(total), total).pow(1.0 / p))


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0, size_average: Any = None,
                          reduce: Any = None, reduction: str = "mean") -> Any:
    """``1 - cos`` where ``y = 1``, ``max(0, cos - margin)`` where ``y = -1``; ``cos`` with torch's EPSILON
    (1e-12) added to each squared magnitude."""
    red = _reduction(size_average, reduce, reduction)
    check("cosine_embedding_loss", input1=input1, input2=input2, target=target, reduction=red)
    d = input1.ndim - 1
    prod = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + 1e-12
    mag2 = (input2 * input2).sum(d) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    zeros = _C.zeros_like(cos)
    pos = _C.where(target == 1, 1 - cos, zeros)
    neg = _C.where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _reduce(pos + neg, red)


def poisson_nll_loss(input: Any, target: Any, log_input: bool = True, full: bool = False, size_average: Any = None,
                     eps: float = 1e-8, reduce: Any = None, reduction: str = "mean") -> Any:
    """``exp(x) - y x`` (``x - y log(x + eps)`` without log_input); ``full`` adds Stirling's term where
    ``y > 1``."""
    red = _reduction(size_average, reduce, reduction)
    check("poisson_nll_loss", input=input, target=target)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        t = target.detach() if target.requires_grad else target
        stirling = t * t.log() - t + (t * (2 * math.pi)).log() * 0.5
        loss = loss + _C.where(t > 1, stirling, _C.zeros_like(stirling))
    return _reduce(loss, red)


def gaussian_nll_loss(input: Any, target: Any, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Any:
    """``(log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2`` (plus ``log(2 pi) / 2`` with
    full); the clamp is not differentiated through, as in torch."""
    from typedtensor._runtime.functional import _check_reduction

    _check_reduction(reduction)
    if isinstance(var, (int, float)):
        var = _C.full(tuple(input.shape), float(var), dtype=input.dtype, device=input.device)
    check("gaussian_nll_loss", input=input, target=target, var=var)
    if tuple(var.shape) != tuple(input.shape) and tuple(var.shape) == tuple(input.shape[:-1]):
        var = var.unsqueeze(-1)
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    from typedtensor._runtime import no_grad

    clamped = var.clone()
    with no_grad():
        clamped.copy_(var.detach().clamp(min=eps))
    var = var + (clamped - var).detach()
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input: Any, target: Any, weight: Any | None = None, size_average: Any = None,
                                reduce: Any = None, reduction: str = "mean") -> Any:
    """``-(y logsigmoid(x) + (1 - y) logsigmoid(-x))`` averaged over the classes (the last dim)."""
    red = _reduction(size_average, reduce, reduction)
    check("multilabel_soft_margin_loss", input=input, target=target, weight=weight, reduction=red)
    loss = -(target * _C.logsigmoid(input) + (1 - target) * _C.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.ndim - 1) / input.shape[-1]
    return _reduce(loss, red)


def multi_margin_loss(input: Any, target: Any, p: int = 1, margin: float = 1.0, weight: Any | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Any:
    """Per example ``sum_{j != y} max(0, margin - x[y] + x[j])^p / C`` (times ``weight[y]``)."""
    red = _reduction(size_average, reduce, reduction)
    check("multi_margin_loss", input=input, target=target, weight=weight, reduction=red)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.ndim == 2 else input.unsqueeze(0)
    y = target.long().reshape(-1, 1)
    c = int(x.shape[1])
    picked = x.gather(1, y)
    terms = (margin - picked + x).clamp(min=0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * weight[y.reshape(-1)].unsqueeze(1)
    others = _C.ones_like(x).scatter(1, y, 0.0)
    loss = (terms * others).sum(1) / c
    if input.ndim != 2:
        loss = loss.reshape([])
    return _reduce(loss, red)


def multilabel_margin_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Any:
    """Per example ``sum_{j in y} sum_{k not in y} max(0, 1 - (x[j] - x[k])) / C``; ``y`` lists class
    indices up to the first -1."""
    red = _reduction(size_average, reduce, reduction)
    check("multilabel_margin_loss", input=input, target=target, reduction=red)
    x = input if input.ndim == 2 else input.unsqueeze(0)
    rows = target.long().reshape(x.shape).tolist() if target.numel() else [[] for _ in range(int(x.shape[0]))]
    n, c = int(x.shape[0]), int(x.shape[1])
    is_target = [[0.0] * c for _ in range(n)]
    listed = [[0.0] * c for _ in range(n)]
    for i, row in enumerate(rows):
        for j in row:
            if j < 0:
                break
            is_target[i][j] = 1.0
            listed[i][j] += 1.0  # a repeated class counts each time, as torch's loop does
    tgt = _C.tensor(is_target, dtype=x.dtype, device=x.device)
    count = _C.tensor(listed, dtype=x.dtype, device=x.device)
    # [N, C(j), C(k)]: the hinge for each listed j against each unlisted k
    hinge = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).clamp(min=0)
    weights = count.unsqueeze(2) * (1 - tgt).unsqueeze(1)
    loss = (hinge * weights).sum((1, 2)) / c
    if input.ndim != 2:
        loss = loss.reshape([])
    return _reduce(loss, red)


def triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Any:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the pairwise p-norm distance (``swap``: the
    smaller of ``d(a, n)`` and ``d(p, n)``)."""
    red = _reduction(size_average, reduce, reduction)
    check("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative, reduction=red)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), red)


def triplet_margin_with_distance_loss(anchor: Any, positive: Any, negative: Any, *, distance_function: Any = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Any:
    """As triplet_margin_loss with any distance (pairwise_distance by default)."""
    from typedtensor._runtime.functional import _check_reduction

    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} instead")
    check("triplet_margin_with_distance_loss", anchor=anchor, positive=positive, negative=negative, reduction=reduction)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)
