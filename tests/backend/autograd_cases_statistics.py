"""Gradient cases of the statistics and arrangement ops (rules/statistics.py, rules/arrangement.py)
and of the resample / functional additions beside them (channel_shuffle, upsample*, gumbel_softmax,
affine_grid / grid_sample, the max unpools and the power-average pools)."""

from __future__ import annotations

from typing import Any

from .autograd_cases import Case, Pos, Unit, c


def _seeded(L: Any, f: Any) -> Any:
    L.t.manual_seed(0)
    return f()


CASES: dict[str, list[Case]] = {
    "std_mean": [c(lambda L, a: L.t.std_mean(a, 1)[0] + L.t.std_mean(a, 1)[1], (3, 4))],
    "var_mean": [c(lambda L, a: L.t.stack(list(L.t.var_mean(a, 0, keepdim=True))), (3, 4))],
    "kthvalue": [c(lambda L, a: a.kthvalue(2, 1).values, (3, 4))],
    "msort": [c(lambda L, a: L.t.msort(a), (4, 3))],
    "cummax": [c(lambda L, a: L.t.cummax(a, 1).values, (3, 5))],
    "cummin": [c(lambda L, a: a.cummin(0).values, (4, 3))],
    "nanmedian": [c(lambda L, a: a.nanmedian(1).values, (3, 5))],
    "quantile": [c(lambda L, a: L.t.quantile(a, 0.3, 1), (3, 5))],
    "nanquantile": [c(lambda L, a: L.t.nanquantile(a, 0.7, 0, keepdim=True), (4, 3))],
    "cov": [c(lambda L, a: L.t.cov(a), (3, 6))],
    "corrcoef": [c(lambda L, a: L.t.corrcoef(a), (3, 6))],
    "tensor_split": [c(lambda L, a: L.t.tensor_split(a, 3, 1)[1] * 2, (2, 7))],
    "hsplit": [c(lambda L, a: L.t.hsplit(a, [1])[1], (3, 4))],
    "vsplit": [c(lambda L, a: L.t.vsplit(a, 2)[0], (4, 3))],
    "dsplit": [c(lambda L, a: L.t.dsplit(a, 2)[1], (2, 2, 4))],
    "atleast_1d": [c(lambda L, a: L.t.atleast_1d(a) * 2, ())],
    "atleast_2d": [c(lambda L, a: L.t.atleast_2d(a) * 2, (3,))],
    "atleast_3d": [c(lambda L, a: L.t.atleast_3d(a) * 2, (2, 3))],
    "column_stack": [c(lambda L, a, b: L.t.column_stack([a, b]), (3,), (3, 2))],
    "row_stack": [c(lambda L, a, b: L.t.row_stack([a, b]), (3,), (2, 3))],
    "dstack": [c(lambda L, a, b: L.t.dstack([a, b]), (2, 3), (2, 3, 2))],
    "block_diag": [c(lambda L, a, b: L.t.block_diag(a, b), (2, 3), (4,))],
    # Tensor.unfold: overlapping windows (step < size) read an element more than once
    "unfold_windows": [c(lambda L, a: a.unfold(1, 3, 1) * 2, (2, 5)), c(lambda L, a: a.unfold(-2, 2, 3), (7, 3))],
    "diagflat": [c(lambda L, a: L.t.diagflat(a, 1), (2, 2))],
    "channel_shuffle": [c(lambda L, a: L.F.channel_shuffle(a, 2), (2, 4, 3))],
    "upsample": [c(lambda L, a: L.F.upsample(a, scale_factor=2, mode="bilinear"), (1, 2, 3, 3))],
    "upsample_nearest": [c(lambda L, a: L.F.upsample_nearest(a, size=(5, 4)), (1, 2, 3, 3))],
    "upsample_bilinear": [c(lambda L, a: L.F.upsample_bilinear(a, size=(5, 4)), (1, 2, 3, 3))],
    "gumbel_softmax": [c(lambda L, a: _seeded(L, lambda: L.F.gumbel_softmax(a, tau=0.5)), (3, 4), random=True)],
    "affine_grid": [c(lambda L, t: L.F.affine_grid(t, (2, 1, 3, 4), align_corners=False), (2, 2, 3)),
                    c(lambda L, t: L.F.affine_grid(t, (1, 1, 2, 3, 2), align_corners=True), (1, 3, 4))],
    # the grid in (-0.9, 0.9) (zeros padding) and scaled past the borders (border, reflection)
    "grid_sample": [c(lambda L, x, g: L.F.grid_sample(x, g, align_corners=False), (2, 2, 3, 4), Unit((2, 3, 2, 2))),
                    c(lambda L, x, g: L.F.grid_sample(x, g * 1.7, padding_mode="border", align_corners=True),
                      (1, 2, 3, 4), Unit((1, 2, 3, 2))),
                    c(lambda L, x, g: L.F.grid_sample(x, g * 2.3, padding_mode="reflection", align_corners=False),
                      (1, 2, 3, 4), Unit((1, 2, 3, 2))),
                    c(lambda L, x, g: L.F.grid_sample(x, g * 1.4, padding_mode="reflection", align_corners=True),
                      (1, 1, 2, 3, 2), Unit((1, 2, 2, 2, 3))),
                    c(lambda L, x, g: L.F.grid_sample(x, g.detach(), mode="nearest", align_corners=False),
                      (1, 2, 3, 4), Unit((1, 2, 3, 2)))],
    # unpooling a pool's own result: the gradient goes through the scatter and the pool's gather
    "max_unpool1d": [c(lambda L, a: L.F.max_unpool1d(*L.F.max_pool1d(a, 2, return_indices=True), 2), (2, 3, 6))],
    "max_unpool2d": [c(lambda L, a: L.F.max_unpool2d(*L.F.max_pool2d(a, 2, return_indices=True), 2,
                                                     output_size=(4, 5)), (1, 2, 4, 5))],
    "max_unpool3d": [c(lambda L, a: L.F.max_unpool3d(*L.F.max_pool3d(a, 2, return_indices=True), 2), (1, 2, 4, 4, 2))],
    "lp_pool1d": [c(lambda L, a: L.F.lp_pool1d(a, 2.0, 3, 2, ceil_mode=True), (2, 3, 8))],
    "lp_pool2d": [c(lambda L, a: L.F.lp_pool2d(a, 1.5, (2, 3)), Pos((1, 2, 4, 6)))],
    "lp_pool3d": [c(lambda L, a: L.F.lp_pool3d(a, 3.0, 2, ceil_mode=True), Pos((1, 2, 3, 4, 3)))],
}
