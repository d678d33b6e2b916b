"""tt.compile captures the convolution, pooling, resampling, normalisation and transformer modules that
are written over other primitives (conv3d as one conv2d, the transposed convolutions as conv2d's
input-gradient, the separable 3-d pools ...): the compiled forward, and a compiled training step's
loss and parameter gradients, equal eager execution."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import close

pytest.importorskip("typedtensor._C")

# (name, ctor, input shape)
CASES: list[tuple[str, Callable[[], Any], tuple[int, ...]]] = [
    ("ConvTranspose2d", lambda: tt.nn.ConvTranspose2d(4, 3, 4, stride=2, padding=1), (2, 4, 3, 3)),
    ("ConvTranspose1d", lambda: tt.nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1), (2, 4, 5)),
    ("Conv1d", lambda: tt.nn.Conv1d(3, 4, 3, padding=1), (2, 3, 7)),
    ("Conv3d", lambda: tt.nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=1), (2, 2, 4, 5, 4)),
    ("MaxPool3d", lambda: tt.nn.MaxPool3d(2, stride=(1, 2, 2)), (2, 2, 4, 4, 4)),
    ("AvgPool3d", lambda: tt.nn.AvgPool3d(2, padding=1, count_include_pad=False), (2, 2, 4, 5, 4)),
    ("Upsample-bilinear", lambda: tt.nn.Upsample(scale_factor=2, mode="bilinear"), (2, 3, 4, 5)),
    ("PixelShuffle", lambda: tt.nn.PixelShuffle(2), (2, 8, 3, 4)),
    # fast_neural_style's convolution block: reflection padding, then the convolution
    ("ReflectionPad2d+Conv2d", lambda: tt.nn.Sequential(tt.nn.ReflectionPad2d(1), tt.nn.Conv2d(3, 4, 3)), (2, 3, 5, 6)),
    ("ConstantPad1d", lambda: tt.nn.ConstantPad1d((2, -1), 0.5), (2, 3, 5)),
    ("GroupNorm", lambda: tt.nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    ("InstanceNorm2d", lambda: tt.nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 4)),
    ("TransformerEncoderLayer",
     lambda: tt.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True), (2, 5, 8)),
]


def _input(shape: tuple[int, ...], seed: int) -> Any:
    return tt.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_compiled_forward_equals_eager(name: str, ctor: Callable[[], Any], shape: tuple[int, ...]) -> None:
    model = ctor()
    x = _input(shape, 0)
    with tt.no_grad():
        want = model(x)
        got = tt.compile(lambda a: model(a))(x)
    close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_compiled_training_step_equals_eager(name: str, ctor: Callable[[], Any], shape: tuple[int, ...]) -> None:
    model = ctor()
    scale = tt.nn.Parameter(tt.ones(1))  # a gradient through the module even where it has no parameters
    params = [scale, *model.parameters()]
    x = _input(shape, 1)

    def step(a: Any) -> Any:
        loss = model(a * scale).square().mean()
        loss.backward()
        return loss.detach()

    cf = tt.compile(step, params=params)
    got = cf(x)
    got_grads = [p.grad.numpy().copy() for p in params]
    for p in params:
        p.grad = None
    want = step(x)
    close(got, want, rtol=1e-5, atol=1e-6)
    for g, p in zip(got_grads, params, strict=True):
        close(g, p.grad, rtol=1e-4, atol=1e-6)
