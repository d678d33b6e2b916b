"""``tt.Generator`` and the random ops' ``generator=`` (NOTE [ Generators ] in
backend/include/typedtensor/ops.h), with torch as the oracle for the API: a generator is a stream
of its own (its draws repeat for a seed and leave the global stream alone), its state round-trips,
and every random op takes it. Distributions are checked here by their moments and ranges; that a
seed gives torch's very values is test_torch_streams.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")

DRAWS: dict[str, Callable[[Any, Any], Any]] = {
    # (module, generator) -> a draw
    "rand": lambda m, g: m.rand(3, 4, generator=g),
    "randn": lambda m, g: m.randn(3, 4, generator=g),
    "randint": lambda m, g: m.randint(0, 100, (12,), generator=g),
    "randperm": lambda m, g: m.randperm(20, generator=g),
    "bernoulli": lambda m, g: m.bernoulli(m.full((40,), 0.5), generator=g),
    "normal": lambda m, g: m.normal(0.0, 2.0, (3, 4), generator=g),
    "normal_tensor": lambda m, g: m.normal(m.zeros(5), m.ones(5), generator=g),
    "multinomial": lambda m, g: m.multinomial(m.ones(10), 4, generator=g),
    "uniform_": lambda m, g: m.empty(12).uniform_(-1, 1, generator=g),
    "normal_": lambda m, g: m.empty(12).normal_(generator=g),
    "exponential_": lambda m, g: m.empty(12).exponential_(generator=g),
    "random_": lambda m, g: m.empty(12).random_(0, 10, generator=g),
    "bernoulli_": lambda m, g: m.empty(12).bernoulli_(0.5, generator=g),
}


def values(t: Any) -> list[float]:
    return [float(v) for v in t.flatten().tolist()]


@pytest.mark.parametrize("name", DRAWS)
def test_generator_repeats_for_a_seed_and_leaves_the_global_stream_alone(name: str) -> None:
    # torch: the same draws for the same seed; drawing from a generator does not move the global one
    for m in (torch, tt):
        m.manual_seed(5)
        expected_global = values(m.rand(6))
        m.manual_seed(5)
        first = values(DRAWS[name](m, m.Generator().manual_seed(7)))
        second = values(DRAWS[name](m, m.Generator().manual_seed(7)))
        assert first == second, m.__name__
        assert values(m.rand(6)) == expected_global, m.__name__


def test_two_seeds_give_different_streams() -> None:
    a = values(tt.rand(50, generator=tt.Generator().manual_seed(1)))
    b = values(tt.rand(50, generator=tt.Generator().manual_seed(2)))
    assert a != b


def test_state_round_trip_replays_the_stream() -> None:
    for m in (torch, tt):
        g = m.Generator().manual_seed(3)
        m.rand(5, generator=g)
        state = g.get_state()
        assert state.dtype == m.uint8 and state.dim() == 1
        after = values(m.rand(8, generator=g))
        g.set_state(state)
        assert values(m.rand(8, generator=g)) == after, m.__name__


def test_generator_api_matches_torch() -> None:
    for m in (torch, tt):
        g = m.Generator()
        assert g.manual_seed(11) is g
        assert g.initial_seed() == 11
        assert str(g.device) == "cpu"
        s = g.seed()
        assert isinstance(s, int) and g.initial_seed() == s
        assert isinstance(m.default_generator, m.Generator)
        m.manual_seed(9)
        assert m.default_generator.initial_seed() == 9


def test_global_rng_state_round_trip() -> None:
    for m in (torch, tt):
        m.manual_seed(4)
        state = m.get_rng_state()
        a = values(m.randn(7))
        m.set_rng_state(state)
        assert values(m.randn(7)) == a, m.__name__


def test_seed_reseeds_the_global_generator() -> None:
    for m in (torch, tt):
        s = m.seed()
        assert m.initial_seed() == s
        a = values(m.rand(4))
        m.manual_seed(s)
        assert values(m.rand(4)) == a, m.__name__


def test_generator_must_be_a_generator() -> None:
    for m in (torch, tt):
        with pytest.raises(TypeError):
            m.rand(3, generator=5)


def test_generator_device_type_must_match() -> None:
    # torch: "Expected a 'cpu' device type for generator but found 'cuda'"
    g = tt.Generator(device="cuda")
    assert g.device.type == "cuda"
    with pytest.raises((ValueError, RuntimeError), match="device type for generator"):
        tt.rand(3, generator=g)


def test_randperm_with_generator_is_a_permutation() -> None:
    p = tt.randperm(64, generator=tt.Generator().manual_seed(0))
    assert sorted(p.tolist()) == list(range(64))
    assert p.dtype == tt.int64


# --- the draws that take a tensor or fill one: torch's distributions, errors and gradients ---


def test_fills_have_torch_ranges_and_moments() -> None:
    g = tt.Generator().manual_seed(0)
    n = 20000
    u = tt.empty(n, dtype=tt.float64).uniform_(-2.0, 3.0, generator=g).numpy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.05
    z = tt.empty(n, dtype=tt.float64).normal_(1.5, 0.5, generator=g).numpy()
    assert abs(z.mean() - 1.5) < 0.02 and abs(z.std() - 0.5) < 0.02
    e = tt.empty(n, dtype=tt.float64).exponential_(4.0, generator=g).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.01
    r = tt.empty(n, dtype=tt.int64).random_(3, 7, generator=g).numpy()
    assert set(np.unique(r).tolist()) == {3, 4, 5, 6}
    r1 = tt.empty(n).random_(5, generator=g).numpy()  # random_(to): [0, to)
    assert set(np.unique(r1).tolist()) == {0, 1, 2, 3, 4}
    b = tt.zeros(n).bernoulli_(0.25, generator=g).numpy()
    assert set(np.unique(b).tolist()) == {0.0, 1.0} and abs(b.mean() - 0.25) < 0.02


def test_fills_keep_dtype_and_shape_and_return_self() -> None:
    x = tt.zeros(2, 3, dtype=tt.float64)
    for fill in ("uniform_", "normal_", "exponential_", "random_", "bernoulli_"):
        assert getattr(x, fill)() is x or getattr(x, fill)().shape == x.shape
        assert x.dtype == tt.float64 and tuple(x.shape) == (2, 3)


def test_random_default_range_is_the_dtypes_exact_integers() -> None:
    for dtype in ("uint8", "bool"):
        ours = tt.empty(5000, dtype=getattr(tt, dtype)).random_().to(tt.int64).numpy()
        ref = torch.empty(5000, dtype=getattr(torch, dtype)).random_().to(torch.int64).numpy()
        assert ours.min() >= 0 and ours.max() <= ref.max() <= (255 if dtype == "uint8" else 1)


@pytest.mark.parametrize(("call", "kind"), [
    (lambda m: m.empty(3).uniform_(2.0, 1.0), (ValueError, RuntimeError)),
    (lambda m: m.empty(3).normal_(0.0, -1.0), (ValueError, RuntimeError)),
    (lambda m: m.empty(3).exponential_(0.0), (ValueError, RuntimeError)),
    (lambda m: m.empty(3).random_(5, 5), (ValueError, RuntimeError)),
    (lambda m: m.empty(3).bernoulli_(1.5), (ValueError, RuntimeError)),
    (lambda m: m.normal(0.0, -1.0, (3,)), (ValueError, RuntimeError)),
    (lambda m: m.multinomial(m.tensor([1.0, -1.0]), 1), (ValueError, RuntimeError)),
    (lambda m: m.multinomial(m.ones(3), 4), (ValueError, RuntimeError)),
    (lambda m: m.multinomial(m.ones(2, 2, 2), 1), (ValueError, RuntimeError)),
], ids=["uniform_ from>to", "normal_ std<0", "exponential_ lambda 0", "random_ empty", "bernoulli_ p>1",
        "normal std<0", "multinomial negative", "multinomial n>k", "multinomial 3-d"])
def test_random_errors_where_torch_errors(call: Callable[[Any], Any], kind: tuple[type, ...]) -> None:
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(kind):
        call(tt)


def test_multinomial_without_replacement_draws_distinct_categories() -> None:
    w = tt.tensor([[1.0, 2.0, 3.0, 4.0, 0.0], [0.0, 1.0, 1.0, 1.0, 1.0]])
    for _ in range(20):
        picks = tt.multinomial(w, 4)
        assert tuple(picks.shape) == (2, 4) and picks.dtype == tt.int64
        for row, weights in zip(picks.tolist(), w.tolist(), strict=True):
            assert len(set(row)) == 4 and all(weights[i] > 0 for i in row)


def test_multinomial_draws_zero_weights_last_like_torch() -> None:
    for m in (torch, tt):
        picks = m.multinomial(m.tensor([1.0, 0.0, 0.0]), 3).tolist()
        assert picks[0] == 0 and sorted(picks) == [0, 1, 2], m.__name__


def test_multinomial_with_replacement_follows_the_weights() -> None:
    w = tt.tensor([1.0, 3.0, 0.0, 6.0])
    picks = w.multinomial(20000, replacement=True, generator=tt.Generator().manual_seed(1)).numpy()
    freq = np.bincount(picks, minlength=4) / picks.size
    np.testing.assert_allclose(freq, [0.1, 0.3, 0.0, 0.6], atol=0.015)


def test_multinomial_without_replacement_first_pick_follows_the_weights() -> None:
    w = tt.tensor([1.0, 3.0, 6.0])
    g = tt.Generator().manual_seed(2)
    first = [int(tt.multinomial(w, 2, generator=g)[0]) for _ in range(3000)]
    freq = np.bincount(first, minlength=3) / len(first)
    np.testing.assert_allclose(freq, [0.1, 0.3, 0.6], atol=0.03)


def test_normal_of_tensors_broadcasts_and_differentiates_like_torch() -> None:
    mean_np = np.array([[0.5], [-1.0]], np.float64)
    std_np = np.array([1.0, 2.0, 0.5], np.float64)
    ours_mean = tt.tensor(mean_np, requires_grad=True)
    ours_std = tt.tensor(std_np, requires_grad=True)
    out = tt.normal(ours_mean, ours_std, generator=tt.Generator().manual_seed(0))
    ref = torch.normal(torch.tensor(mean_np), torch.tensor(std_np))
    assert tuple(out.shape) == tuple(ref.shape) and out.dtype == tt.float64
    out.sum().backward()
    z = (out.detach().numpy() - mean_np) / std_np  # the standard draws behind out
    np.testing.assert_allclose(ours_mean.grad.numpy(), np.full((2, 1), 3.0))
    np.testing.assert_allclose(ours_std.grad.numpy(), z.sum(0), rtol=1e-12)


def test_normal_of_numbers_takes_dtype_device_and_requires_grad() -> None:
    x = tt.normal(2.0, 3.0, (4, 5), dtype=tt.float64, device="cpu", requires_grad=True)
    ref = torch.normal(2.0, 3.0, (4, 5), dtype=torch.float64, device="cpu", requires_grad=True)
    assert (tuple(x.shape), x.dtype.name, x.requires_grad) == (tuple(ref.shape), "float64", ref.requires_grad)
