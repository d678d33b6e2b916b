"""The CPU generator is torch's (NOTE [ torch's CPU streams ] in backend/src/cpu/random.cpp): under
one seed every CPU draw equals torch's, bit for bit, whether from the global generator or from a
``Generator`` object, and the distributions' samples with them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

WEIGHTS = np.random.default_rng(0).random((40, 7)).astype(np.float32)
WEIGHTS[3, 2] = 0.0  # a category that can never be drawn

DRAWS: dict[str, Callable[[Any], Any]] = {
    "rand": lambda m: m.rand(1000),
    "rand-float64": lambda m: m.rand(100, dtype=m.float64),
    "randn-short": lambda m: m.randn(7),  # under 16: double Box-Muller, the sine cached
    "randn-short-thrice": lambda m: m.cat([m.randn(3), m.randn(5), m.randn(2)]),
    "randn-blocks": lambda m: m.randn(64),  # normal_fill over blocks of 16
    "randn-tail": lambda m: m.randn(4, 25),  # the last block redrawn
    "randn-float64": lambda m: m.randn(100, dtype=m.float64),
    "randint": lambda m: m.randint(0, 10, (100,)),
    "randint-wide": lambda m: m.randint(-5, 2**40, (100,)),
    "randperm": lambda m: m.randperm(50),
    "bernoulli-tensor": lambda m: m.bernoulli(m.tensor(WEIGHTS)),
    "bernoulli_-number": lambda m: m.empty(500).bernoulli_(0.3),
    "bernoulli-number": lambda m: m.bernoulli(m.ones(100), 0.3),
    "exponential_": lambda m: m.empty(1000).exponential_(),
    "multinomial-one": lambda m: m.multinomial(m.tensor(WEIGHTS), 1),
    "multinomial-one-replacement": lambda m: m.multinomial(m.tensor(WEIGHTS), 1, True),
    "multinomial-replacement": lambda m: m.multinomial(m.tensor(WEIGHTS), 5, True),
    "multinomial-without": lambda m: m.multinomial(m.tensor(WEIGHTS), 5),
    "multinomial-1d": lambda m: m.multinomial(m.tensor(WEIGHTS[0]), 3, True),
    "normal-tensors": lambda m: m.normal(m.zeros(5), m.ones(5) * 2),
    "normal-long": lambda m: m.normal(m.tensor(WEIGHTS), 1.5),
    "normal_": lambda m: m.empty(50).normal_(1, 2),
    "uniform_": lambda m: m.empty(50).uniform_(-2, 3),
    # bounds that are not floats: torch's float kernel rounds them to float and takes one fused
    # multiply-add; computed in double, half of these values were one ulp off
    "uniform_-inexact-bounds": lambda m: m.empty(5000).uniform_(-0.3, 0.7),
    "uniform_-narrow": lambda m: m.empty(5000).uniform_(-0.0577, 0.0577),
    "uniform_-float64": lambda m: m.empty(5000, dtype=m.float64).uniform_(-0.3, 0.7),
    "kaiming_uniform_": lambda m: m.nn.init.kaiming_uniform_(m.empty(64, 300), a=5**0.5),
    "Linear": lambda m: m.nn.Linear(300, 64).weight.detach(),
    # a mean and std that are not exact: torch fuses the scaling into the draw (one rounding)
    "normal_-scaled": lambda m: m.empty(5000).normal_(0.1, 0.02),
    "normal_-scaled-short": lambda m: m.empty(7).normal_(0.1, 0.02),
    "normal_-scaled-float64": lambda m: m.empty(5000, dtype=m.float64).normal_(0.1, 0.02),
    "normal-numbers": lambda m: m.normal(0.1, 0.02, (5000,)),
    "init.normal_": lambda m: m.nn.init.normal_(m.empty(300, 64), 0.0, 0.02),
    "dropout": lambda m: m.nn.functional.dropout(m.ones(100), 0.3),
    "Categorical": lambda m: m.distributions.Categorical(m.tensor(WEIGHTS)).sample(),
    "Categorical-shape": lambda m: m.distributions.Categorical(logits=m.tensor(WEIGHTS)).sample((4,)),
    "OneHotCategorical": lambda m: m.distributions.OneHotCategorical(m.tensor(WEIGHTS)).sample(),
    "Normal": lambda m: m.distributions.Normal(m.tensor(WEIGHTS), 1.0).sample(),
    "Normal-rsample": lambda m: m.distributions.Normal(m.tensor(WEIGHTS[0]), 1.0).rsample().detach(),
    "Bernoulli": lambda m: m.distributions.Bernoulli(m.tensor(WEIGHTS)).sample(),
    "Uniform": lambda m: m.distributions.Uniform(m.tensor(WEIGHTS), 2.0).sample(),
    "generator": lambda m: m.rand(20, generator=m.Generator().manual_seed(9)),
    "two-in-a-row": lambda m: m.cat([m.rand(3), m.randn(20), m.rand(2)]),
}


@pytest.mark.parametrize("name", DRAWS)
def test_cpu_draws_equal_torch_under_one_seed(name: str) -> None:
    out = []
    for m in (torch, tt):
        m.manual_seed(123)
        out.append(np.asarray(DRAWS[name](m).numpy()))
    assert out[0].dtype == out[1].dtype and out[0].shape == out[1].shape
    np.testing.assert_array_equal(out[1], out[0])


def test_an_unseeded_generator_starts_from_torchs_default_seed() -> None:
    ours, ref = tt.Generator(), torch.Generator()
    assert ours.initial_seed() == ref.initial_seed()
    np.testing.assert_array_equal(tt.rand(8, generator=ours).numpy(), torch.rand(8, generator=ref).numpy())


def test_state_round_trips_through_the_normal_cache() -> None:
    tt.manual_seed(4)
    tt.randn(3)  # leaves a cached draw behind
    state = tt.get_rng_state()
    first = tt.randn(5).tolist()
    tt.set_rng_state(state)
    assert tt.randn(5).tolist() == first
    torch.manual_seed(4)
    torch.randn(3)
    assert torch.randn(5).tolist() == first
