"""Device sweep cases of the convolution, pooling, resampling, normalisation, activation and loss
ops of the real-programs surface (merged into cuda_cases.CASES; same conventions)."""

from __future__ import annotations

import numpy as np

from typedtensor._runtime import functional as F

from .cuda_cases import Case, data


def _i(*v: int) -> np.ndarray:
    return np.array(v, np.int64)


def _s(*v: float) -> np.ndarray:
    return np.array(v, np.float32)


CASES: dict[str, Case] = {
    "conv1d": lambda mk, dev: F.conv1d(mk(data(2, 4, 9)), mk(data(6, 2, 3)), mk(data(6)), stride=2, padding=1, groups=2),
    "conv3d": lambda mk, dev: F.conv3d(mk(data(1, 2, 4, 5, 4)), mk(data(3, 2, 2, 3, 2)), mk(data(3)), padding=1),
    "conv_transpose1d": lambda mk, dev: F.conv_transpose1d(mk(data(2, 3, 5)), mk(data(3, 2, 3)), mk(data(2)), stride=2,
                                                           output_padding=1),
    "conv_transpose2d": lambda mk, dev: F.conv_transpose2d(mk(data(2, 4, 3, 3)), mk(data(4, 2, 4, 4)), mk(data(4)),
                                                           stride=2, padding=1, groups=2),
    "max_pool1d": lambda mk, dev: F.max_pool1d(mk(data(2, 3, 9)), 3, 2, 1),
    "max_pool3d": lambda mk, dev: F.max_pool3d(mk(data(1, 2, 4, 5, 4)), 2, return_indices=True),
    "avg_pool1d": lambda mk, dev: F.avg_pool1d(mk(data(2, 3, 9)), 3, 2, 1),
    "avg_pool3d": lambda mk, dev: F.avg_pool3d(mk(data(1, 2, 4, 5, 4)), 2, padding=1, count_include_pad=False),
    "adaptive_avg_pool1d": lambda mk, dev: F.adaptive_avg_pool1d(mk(data(2, 3, 10)), 4),
    "adaptive_avg_pool3d": lambda mk, dev: F.adaptive_avg_pool3d(mk(data(1, 2, 5, 4, 6)), (2, 3, 4)),
    "adaptive_max_pool1d": lambda mk, dev: F.adaptive_max_pool1d(mk(data(2, 3, 10)), 4, return_indices=True),
    "adaptive_max_pool2d": lambda mk, dev: F.adaptive_max_pool2d(mk(data(2, 3, 7, 5)), (3, 2), return_indices=True),
    "adaptive_max_pool3d": lambda mk, dev: F.adaptive_max_pool3d(mk(data(1, 2, 5, 4, 6)), 2),
    "interpolate": lambda mk, dev: (F.interpolate(mk(data(1, 2, 3, 4)), scale_factor=2, mode="bilinear"),
                                    F.interpolate(mk(data(1, 2, 3, 4)), size=(5, 7), mode="bicubic", align_corners=True),
                                    F.interpolate(mk(data(2, 2, 5)), size=8, mode="nearest")),
    "pixel_shuffle": lambda mk, dev: F.pixel_shuffle(mk(data(2, 8, 2, 3)), 2),
    "pixel_unshuffle": lambda mk, dev: F.pixel_unshuffle(mk(data(2, 2, 4, 6)), 2),
    "unfold": lambda mk, dev: F.unfold(mk(data(2, 2, 5, 6)), (2, 3), padding=1, stride=2),
    "fold": lambda mk, dev: F.fold(mk(data(2, 8, 8)), (4, 5), (2, 2), stride=(2, 1)),
    "embedding_bag": lambda mk, dev: (F.embedding_bag(mk(_i(1, 2, 4, 4, 3)), mk(data(6, 3)), mk(_i(0, 2)), mode="mean"),
                                      F.embedding_bag(mk(_i(1, 2, 0, 5)).reshape(2, 2), mk(data(6, 3)), mode="max")),
    "instance_norm": lambda mk, dev: F.instance_norm(mk(data(2, 3, 6)), weight=mk(data(3)), bias=mk(data(3))),
    "local_response_norm": lambda mk, dev: F.local_response_norm(mk(data(2, 5, 3, 3)), 3),
    "rms_norm": lambda mk, dev: F.rms_norm(mk(data(3, 4)), (4,), mk(data(4))),
    "celu": lambda mk, dev: F.celu(mk(data(3, 17)), 0.7),
    "selu": lambda mk, dev: F.selu(mk(data(3, 17))),
    "glu": lambda mk, dev: F.glu(mk(data(3, 4)), 1),
    "hardshrink": lambda mk, dev: F.hardshrink(mk(data(3, 17))),
    "softshrink": lambda mk, dev: F.softshrink(mk(data(3, 17))),
    "tanhshrink": lambda mk, dev: F.tanhshrink(mk(data(3, 17))),
    "threshold": lambda mk, dev: F.threshold(mk(data(3, 17)), 0.1, -2.0),
    "rrelu": lambda mk, dev: F.rrelu(mk(data(3, 17)), training=False),
    "prelu": lambda mk, dev: F.prelu(mk(data(2, 3, 4)), mk(data(3))),
    "softmin": lambda mk, dev: F.softmin(mk(data(3, 4)), dim=1),
    "cosine_similarity": lambda mk, dev: F.cosine_similarity(mk(data(3, 4)), mk(data(3, 4)) * 0.5),
    "pairwise_distance": lambda mk, dev: F.pairwise_distance(mk(data(3, 4)), mk(data(3, 4)) * 0.5),
    "kl_div": lambda mk, dev: F.kl_div(mk(data(3, 4)), mk(data(3, 4, lo=0.1, hi=1.0)), reduction="batchmean"),
    "soft_margin_loss": lambda mk, dev: F.soft_margin_loss(mk(data(3)), mk(_s(1, -1, 1))),
    "hinge_embedding_loss": lambda mk, dev: F.hinge_embedding_loss(mk(data(4)), mk(_s(1, -1, -1, 1))),
    "poisson_nll_loss": lambda mk, dev: F.poisson_nll_loss(mk(data(3, 4)), mk(data(3, 4, lo=0.0, hi=2.0))),
    "gaussian_nll_loss": lambda mk, dev: F.gaussian_nll_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5,
                                                             mk(data(3, 4, lo=0.1, hi=2.0))),
    "multilabel_soft_margin_loss": lambda mk, dev: F.multilabel_soft_margin_loss(mk(data(3, 4)),
                                                                                 mk(data(3, 4, lo=0.0, hi=1.0))),
    "multi_head_attention_forward": lambda mk, dev: F.multi_head_attention_forward(
        mk(data(3, 2, 4)), mk(data(5, 2, 4)), mk(data(5, 2, 4)), 4, 2, mk(data(12, 4)), mk(data(12)), None, None, False,
        0.0, mk(data(4, 4)), mk(data(4)), key_padding_mask=mk(np.array([[False] * 4 + [True]] * 2))),
    "ctc_loss": lambda mk, dev: F.ctc_loss(mk(data(6, 2, 4)).log_softmax(-1), mk(np.array([[1, 2, 2], [3, 1, 0]], np.int64)),
                                           (6, 4), (3, 2)),
    "multi_margin_loss": lambda mk, dev: F.multi_margin_loss(mk(data(3, 4)), mk(_i(1, 0, 3))),
    "multilabel_margin_loss": lambda mk, dev: F.multilabel_margin_loss(
        mk(data(3, 4)), mk(np.array([[3, 0, -1, 1], [1, 2, -1, 0], [0, 1, 2, 3]], np.int64))),
    "margin_ranking_loss": lambda mk, dev: F.margin_ranking_loss(mk(data(3)), mk(data(3)) * 0.5, mk(_s(1, -1, 1))),
    "cosine_embedding_loss": lambda mk, dev: F.cosine_embedding_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5,
                                                                     mk(_s(1, -1, 1))),
    "triplet_margin_loss": lambda mk, dev: F.triplet_margin_loss(mk(data(3, 4)), mk(data(3, 4)) * 0.5,
                                                                 mk(data(3, 4)) * -0.5),
    "triplet_margin_with_distance_loss": lambda mk, dev: F.triplet_margin_with_distance_loss(
        mk(data(3, 4)), mk(data(3, 4)) * 0.5, mk(data(3, 4)) * -0.5),
}
