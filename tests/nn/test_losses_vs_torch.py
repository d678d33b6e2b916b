"""The loss and distance functions and modules added to close torch.nn's list, against torch: values
for every reduction and the gradients of every differentiable input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import close

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
N, C = 4, 5


def _f(*shape: int, lo: float | None = None) -> np.ndarray:
    x = rng.standard_normal(shape).astype(np.float64)
    return np.abs(x) + lo if lo is not None else x


def _sign(*shape: int) -> np.ndarray:
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


# (name, module name, ctor kwargs, inputs: (array, differentiable) in call order)
CASES: list[tuple[str, str, dict[str, Any], list[tuple[np.ndarray, bool]]]] = [
    ("huber", "HuberLoss", {"delta": 0.7}, [(_f(N, C), True), (_f(N, C), True)]),
    ("smooth_l1", "SmoothL1Loss", {"beta": 0.5}, [(_f(N, C), True), (_f(N, C), True)]),
    ("kl_div", "KLDivLoss", {}, [(np.log(_f(N, C, lo=0.1)), True), (_f(N, C, lo=0.0) * (rng.random((N, C)) > 0.2), True)]),
    ("kl_div-logtarget", "KLDivLoss", {"log_target": True}, [(_f(N, C), True), (_f(N, C), True)]),
    ("soft_margin", "SoftMarginLoss", {}, [(_f(N, C), True), (_sign(N, C), False)]),
    ("hinge_embedding", "HingeEmbeddingLoss", {"margin": 0.5}, [(_f(N, C), True), (_sign(N, C), False)]),
    ("poisson_nll", "PoissonNLLLoss", {}, [(_f(N, C), True), (_f(N, C, lo=0.0), False)]),
    ("poisson_nll-full", "PoissonNLLLoss", {"log_input": False, "full": True},
     [(_f(N, C, lo=0.1), True), (_f(N, C, lo=0.5) * 2, False)]),
    ("gaussian_nll", "GaussianNLLLoss", {}, [(_f(N, C), True), (_f(N, C), True), (_f(N, C, lo=0.1), True)]),
    ("gaussian_nll-full-1", "GaussianNLLLoss", {"full": True}, [(_f(N, C), True), (_f(N, C), True), (_f(N, 1, lo=0.1), True)]),
    ("gaussian_nll-dropped", "GaussianNLLLoss", {}, [(_f(N, C), True), (_f(N, C), True), (_f(N, lo=0.1), True)]),
    ("multilabel_soft_margin", "MultiLabelSoftMarginLoss", {},
     [(_f(N, C), True), ((rng.random((N, C)) > 0.5).astype(np.float64), False)]),
    ("multi_margin", "MultiMarginLoss", {}, [(_f(N, C), True), (rng.integers(0, C, N), False)]),
    ("multi_margin-p2", "MultiMarginLoss", {"p": 2, "margin": 0.5}, [(_f(N, C), True), (rng.integers(0, C, N), False)]),
    ("multilabel_margin", "MultiLabelMarginLoss", {},
     [(_f(N, C), True), (np.array([[3, 0, -1, 1, 2], [1, 2, 4, -1, 0], [0, 1, 2, 3, 4], [-1, 1, 1, 1, 1]]), False)]),
    ("margin_ranking", "MarginRankingLoss", {"margin": 0.2}, [(_f(N), True), (_f(N), True), (_sign(N), False)]),
    ("cosine_embedding", "CosineEmbeddingLoss", {"margin": 0.1},
     [(_f(N, C), True), (_f(N, C), True), (_sign(N), False)]),
    ("triplet", "TripletMarginLoss", {"margin": 1.5}, [(_f(N, C), True), (_f(N, C), True), (_f(N, C), True)]),
    ("triplet-swap-p1", "TripletMarginLoss", {"p": 1.0, "swap": True},
     [(_f(N, C), True), (_f(N, C), True), (_f(N, C), True)]),
    ("triplet-distance", "TripletMarginWithDistanceLoss", {"margin": 2.0},
     [(_f(N, C), True), (_f(N, C), True), (_f(N, C), True)]),
]


def _run(ns: Any, lib: Any, name: str, kw: dict[str, Any], inputs: list[tuple[np.ndarray, bool]],
         reduction: str) -> tuple[Any, list[Any]]:
    tensors = [lib.tensor(a, requires_grad=g and a.dtype.kind == "f") for a, g in inputs]
    if ns is tt.nn and inputs[1][0].dtype.kind == "i":
        tensors[1] = lib.tensor(inputs[1][0])
    extra = {} if reduction == "default" else {"reduction": reduction}
    loss = getattr(ns, name)(**kw, **extra)(*tensors)
    return loss, tensors


@pytest.mark.parametrize("reduction", ["default", "sum", "none"])
@pytest.mark.parametrize(("case", "name", "kw", "inputs"), CASES, ids=[c[0] for c in CASES])
def test_loss_matches_torch(case: str, name: str, kw: dict[str, Any], inputs: list[tuple[np.ndarray, bool]],
                            reduction: str) -> None:
    lo, to = _run(tt.nn, tt, name, kw, inputs, reduction)
    lr, tr = _run(torch.nn, torch, name, kw, inputs, reduction)
    close(lo, lr, rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(tuple(lr.shape))
    (lo * tt.tensor(g)).sum().backward()
    (lr * torch.tensor(g)).sum().backward()
    for a, b in zip(to, tr, strict=True):
        if b.requires_grad:
            close(a.grad, b.grad, rtol=1e-9, atol=1e-12)


def test_kl_div_batchmean_is_the_sum_over_the_batch() -> None:
    x, y = np.log(_f(3, 4, lo=0.1)), _f(3, 4, lo=0.1)
    got = tt.nn.functional.kl_div(tt.tensor(x), tt.tensor(y), reduction="batchmean")
    close(got, torch.nn.functional.kl_div(torch.tensor(x), torch.tensor(y), reduction="batchmean"), rtol=1e-12)


@pytest.mark.parametrize("fn, shapes, kw", [
    ("cosine_similarity", ((4, 5), (4, 5)), {}),
    ("cosine_similarity", ((3, 1, 5), (4, 5)), {"dim": -1}),
    ("pairwise_distance", ((4, 5), (4, 5)), {}),
    ("pairwise_distance", ((4, 5), (1, 5)), {"p": 3.0, "keepdim": True}),
])
def test_distances_match_torch(fn: str, shapes: tuple[tuple[int, ...], ...], kw: dict[str, Any]) -> None:
    a, b = _f(*shapes[0]), _f(*shapes[1])
    ao, bo = tt.tensor(a, requires_grad=True), tt.tensor(b, requires_grad=True)
    ar, br = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    yo, yr = getattr(tt.nn.functional, fn)(ao, bo, **kw), getattr(torch.nn.functional, fn)(ar, br, **kw)
    close(yo, yr, rtol=1e-12, atol=1e-12)
    yo.sum().backward()
    yr.sum().backward()
    close(ao.grad, ar.grad, rtol=1e-10, atol=1e-12)
    close(bo.grad, br.grad, rtol=1e-10, atol=1e-12)


def test_rrelu_in_training_draws_slopes_between_lower_and_upper() -> None:
    x = tt.tensor(-np.ones((1000,), dtype=np.float32))
    y = tt.nn.functional.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert (y <= -0.1 + 1e-6).all() and (y >= -0.3 - 1e-6).all() and y.std() > 0.01

