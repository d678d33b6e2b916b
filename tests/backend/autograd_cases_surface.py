"""Sample invocations of the convolution, pooling, resampling, normalisation, activation and loss
ops of the real-programs surface (merged into autograd_cases.CASES; same conventions)."""

from __future__ import annotations

from typing import Any

from .autograd_cases import Case, Pos, Unit, c


def _labels(L: Any, *v: int) -> Any:
    return L.t.tensor(list(v))


def _signs(L: Any, *v: float) -> Any:
    return L.t.tensor([float(x) for x in v], dtype=L.t.float64)


CASES: dict[str, list[Case]] = {
    "conv1d": [c(lambda L, x, w, b: L.F.conv1d(x, w, b, stride=2, padding=1), (2, 3, 7), (4, 3, 3), (4,)),
               c(lambda L, x, w: L.F.conv1d(x, w, groups=2, dilation=2), (1, 4, 8), (2, 2, 2))],
    "conv3d": [c(lambda L, x, w, b: L.F.conv3d(x, w, b, padding=1), (1, 2, 3, 4, 3), (3, 2, 2, 3, 2), (3,)),
               c(lambda L, x, w: L.F.conv3d(x, w, stride=(2, 1, 1), groups=2), (1, 4, 4, 3, 3), (2, 2, 2, 2, 1))],
    "conv_transpose1d": [c(lambda L, x, w, b: L.F.conv_transpose1d(x, w, b, stride=2, output_padding=1), (2, 3, 4),
                           (3, 2, 3), (2,))],
    "conv_transpose2d": [c(lambda L, x, w, b: L.F.conv_transpose2d(x, w, b, stride=2, padding=1), (2, 3, 3, 3),
                           (3, 2, 4, 4), (2,)),
                         c(lambda L, x, w: L.F.conv_transpose2d(x, w, groups=2, dilation=2), (1, 4, 3, 2),
                           (4, 1, 2, 2)),
                         c(lambda L, x, w: L.F.conv_transpose2d(x, w, stride=(1, 2), dilation=(3, 1),
                                                                output_padding=(2, 1)), (1, 2, 3, 3), (2, 2, 2, 2))],
    "max_pool1d": [c(lambda L, x: L.F.max_pool1d(x, 3, stride=2, padding=1), (2, 3, 7))],
    "max_pool3d": [c(lambda L, x: L.F.max_pool3d(x, 2, stride=(1, 2, 2)), (1, 2, 3, 4, 4))],
    "avg_pool1d": [c(lambda L, x: L.F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False), (2, 3, 7))],
    "avg_pool3d": [c(lambda L, x: L.F.avg_pool3d(x, 2, padding=1, ceil_mode=True), (1, 2, 3, 4, 3))],
    "adaptive_avg_pool1d": [c(lambda L, x: L.F.adaptive_avg_pool1d(x, 3), (2, 3, 7))],
    "adaptive_avg_pool3d": [c(lambda L, x: L.F.adaptive_avg_pool3d(x, (2, 3, 2)), (1, 2, 3, 5, 4))],
    "adaptive_max_pool1d": [c(lambda L, x: L.F.adaptive_max_pool1d(x, 3), (2, 3, 7))],
    "adaptive_max_pool2d": [c(lambda L, x: L.F.adaptive_max_pool2d(x, (2, 3)), (2, 2, 5, 7))],
    "adaptive_max_pool3d": [c(lambda L, x: L.F.adaptive_max_pool3d(x, 2), (1, 2, 3, 4, 5))],
    "interpolate": [c(lambda L, x: L.F.interpolate(x, scale_factor=2, mode="bilinear"), (1, 2, 3, 4)),
                    c(lambda L, x: L.F.interpolate(x, size=(5, 3), mode="bicubic", align_corners=True), (1, 2, 3, 4)),
                    c(lambda L, x: L.F.interpolate(x, size=7, mode="nearest"), (2, 2, 4)),
                    c(lambda L, x: L.F.interpolate(x, size=(2, 3), mode="area"), (1, 2, 5, 7))],
    "pixel_shuffle": [c(lambda L, x: L.F.pixel_shuffle(x, 2), (2, 8, 2, 3))],
    "pixel_unshuffle": [c(lambda L, x: L.F.pixel_unshuffle(x, 2), (2, 2, 4, 6))],
    "unfold": [c(lambda L, x: L.F.unfold(x, (2, 3), padding=1, stride=2), (2, 2, 5, 6))],
    "fold": [c(lambda L, x: L.F.fold(x, (4, 5), (2, 2), stride=(2, 1)), (2, 8, 8))],
    "embedding_bag": [c(lambda L, w: L.F.embedding_bag(L.t.tensor([1, 2, 4, 4, 3]), w, L.t.tensor([0, 2]), mode="sum"),
                        (6, 3)),
                      c(lambda L, w: L.F.embedding_bag(L.t.tensor([[1, 2], [0, 5]]), w, mode="max"), (6, 3)),
                      c(lambda L, w, p: L.F.embedding_bag(L.t.tensor([1, 2, 4]), w, L.t.tensor([0, 1]), mode="sum",
                                                          per_sample_weights=p), (6, 3), (3,))],
    "instance_norm": [c(lambda L, x, w, b: L.F.instance_norm(x, weight=w, bias=b), (2, 3, 5), (3,), (3,))],
    "local_response_norm": [c(lambda L, x: L.F.local_response_norm(x, 3), Pos((2, 5, 3, 3)))],
    "rms_norm": [c(lambda L, x, w: L.F.rms_norm(x, (4,), w), (3, 4), (4,))],
    "celu": [c(lambda L, a: L.F.celu(a * 3, 0.7), (3, 4))],
    "selu": [c(lambda L, a: L.F.selu(a * 3), (3, 4))],
    "glu": [c(lambda L, a: L.F.glu(a, 1), (3, 4))],
    "hardshrink": [c(lambda L, a: L.F.hardshrink(a * 3, 0.5), (3, 4))],
    "softshrink": [c(lambda L, a: L.F.softshrink(a * 3, 0.5), (3, 4))],
    "tanhshrink": [c(lambda L, a: L.F.tanhshrink(a), (3, 4))],
    "threshold": [c(lambda L, a: L.F.threshold(a * 3, 0.1, -2.0), (3, 4))],
    "rrelu": [c(lambda L, a: L.F.rrelu(a * 3, 0.1, 0.3, training=False), (3, 4))],
    "prelu": [c(lambda L, a, w: L.F.prelu(a, w), (2, 3, 4), (3,)), c(lambda L, a, w: L.F.prelu(a, w), (3, 4), (1,))],
    "softmin": [c(lambda L, a: L.F.softmin(a, dim=1), (3, 4))],
    "cosine_similarity": [c(lambda L, a, b: L.F.cosine_similarity(a, b), (3, 4), (3, 4))],
    "pairwise_distance": [c(lambda L, a, b: L.F.pairwise_distance(a, b), (3, 4), (3, 4))],
    "kl_div": [c(lambda L, a, b: L.F.kl_div(a, b, reduction="batchmean"), (3, 4), Pos((3, 4))),
               c(lambda L, a, b: L.F.kl_div(a, b, log_target=True), (3, 4), (3, 4))],
    "soft_margin_loss": [c(lambda L, a: L.F.soft_margin_loss(a, _signs(L, 1, -1, 1)), (3,))],
    "hinge_embedding_loss": [c(lambda L, a: L.F.hinge_embedding_loss(a * 3, _signs(L, 1, -1, -1, 1), margin=2.0),
                               (4,))],
    "poisson_nll_loss": [c(lambda L, a, t: L.F.poisson_nll_loss(a, t), (3, 4), Pos((3, 4)))],
    "gaussian_nll_loss": [c(lambda L, a, t, v: L.F.gaussian_nll_loss(a, t, v), (3, 4), (3, 4), Pos((3, 4)))],
    "multilabel_soft_margin_loss": [c(lambda L, a, t: L.F.multilabel_soft_margin_loss(a, t), (3, 4), Unit((3, 4)))],
    "multi_head_attention_forward": [
        c(lambda L, q, k, w, b, ow: L.F.multi_head_attention_forward(q, k, k, 4, 2, w, b, None, None, False, 0.0, ow, None),
          (3, 2, 4), (5, 2, 4), (12, 4), (12,), (4, 4)),
        c(lambda L, q, w, ow, ob: L.F.multi_head_attention_forward(q, q, q, 4, 1, w, None, None, None, True, 0.0, ow, ob,
                                                                   need_weights=False)[0], (3, 4), (12, 4), (4, 4), (4,))],
    "ctc_loss": [c(lambda L, a: L.F.ctc_loss(a.log_softmax(-1), L.t.tensor([[1, 2, 2], [3, 1, 0]]), (5, 4), (3, 2)),
                   (5, 2, 4)),
                 c(lambda L, a: L.F.ctc_loss(a.log_softmax(-1), L.t.tensor([2, 1, 0]), L.t.tensor([4, 3]),
                                             L.t.tensor([1, 2]), blank=3, reduction="none"), (4, 2, 4))],
    "multi_margin_loss": [c(lambda L, a: L.F.multi_margin_loss(a * 2, _labels(L, 1, 0, 3)), (3, 4))],
    "multilabel_margin_loss": [c(lambda L, a: L.F.multilabel_margin_loss(
        a * 2, L.t.tensor([[3, 0, -1, 1], [1, 2, -1, 0], [0, 1, 2, 3]])), (3, 4))],
    "margin_ranking_loss": [c(lambda L, a, b: L.F.margin_ranking_loss(a * 2, b * 2, _signs(L, 1, -1, 1)), (3,), (3,))],
    "cosine_embedding_loss": [c(lambda L, a, b: L.F.cosine_embedding_loss(a, b, _signs(L, 1, -1, 1)), (3, 4), (3, 4))],
    "triplet_margin_loss": [c(lambda L, a, p, n: L.F.triplet_margin_loss(a, p, n, margin=3.0), (3, 4), (3, 4), (3, 4))],
    "triplet_margin_with_distance_loss": [c(lambda L, a, p, n: L.F.triplet_margin_with_distance_loss(a, p, n, margin=3.0),
                                            (3, 4), (3, 4), (3, 4))],
}
