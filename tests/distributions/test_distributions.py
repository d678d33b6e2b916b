"""typedtensor.distributions against torch.distributions on the same inputs: values and gradients of
log_prob / entropy / rsample / kl_divergence, shapes and parameter broadcasting, the ValueErrors of
argument validation, and sampling that calls the library's random ops the way torch's does."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import typedtensor as tt

torch = pytest.importorskip("torch")

LIBS = (("typedtensor", tt, tt.distributions), ("torch", torch, torch.distributions))


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def _both(build: Callable[[Any, Any, list[Any]], Any], *arrays: np.ndarray) -> tuple[list[Any], list[Any]]:
    """Runs ``build(lib, dists, params)`` on both libraries with ``arrays`` as leaf parameters; returns
    each library's (result, parameter gradients of the result's sum)."""
    out = []
    for _, lib, dists in LIBS:
        params = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        result = build(lib, dists, params)
        grads = []
        if result.requires_grad:
            result.sum().backward()
            grads = [None if p.grad is None else _np(p.grad) for p in params]
        out.append((_np(result), grads))
    return out[0], out[1]


def _assert_same(build: Callable[[Any, Any, list[Any]], Any], *arrays: np.ndarray, rtol: float = 1e-5,
                 atol: float = 1e-6) -> None:
    (ours, our_grads), (ref, ref_grads) = _both(build, *arrays)
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=atol)
    assert len(our_grads) == len(ref_grads)
    for g, r in zip(our_grads, ref_grads, strict=True):
        if r is None:
            assert g is None or not np.any(g)
        else:
            assert g is not None
            np.testing.assert_allclose(g, r, rtol=rtol, atol=atol)


PROBS = np.array([[0.2, 0.3, 0.5], [0.05, 0.15, 0.8]], dtype=np.float32)
LOGITS = np.array([[1.5, -0.5, 0.25], [-2.0, 0.0, 3.0]], dtype=np.float32)


# ---------------------------------------------------------------- Categorical
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_categorical_log_prob_and_entropy_match_torch(param: str) -> None:
    values = np.array([2, 0], dtype=np.int64)

    def build(lib: Any, d: Any, p: list[Any]) -> Any:
        c = d.Categorical(**{param: p[0]})
        return c.log_prob(p[1]) + c.entropy()

    _assert_same(build, PROBS if param == "probs" else LOGITS, values)


def test_categorical_normalises_as_torch() -> None:
    # unnormalised weights divided by their sum; logits shifted by their logsumexp
    for arr, key in ((PROBS * 3.0, "probs"), (LOGITS, "logits")):
        _assert_same(lambda lib, d, p, key=key: getattr(d.Categorical(**{key: p[0]}), key), arr)
        _assert_same(lambda lib, d, p, key=key: d.Categorical(**{key: p[0]}).probs, arr)
        _assert_same(lambda lib, d, p, key=key: d.Categorical(**{key: p[0]}).logits, arr)


def test_categorical_log_prob_broadcasts_values_against_the_batch() -> None:
    values = np.array([[0], [1], [2]], dtype=np.int64)  # (3, 1) against batch (2,): (3, 2)
    _assert_same(lambda lib, d, p: d.Categorical(logits=p[0]).log_prob(p[1]), LOGITS, values)


def test_categorical_shapes_mode_and_enumerate_support() -> None:
    for _, lib, d in LIBS:
        c = d.Categorical(lib.tensor(PROBS))
        assert tuple(c.batch_shape) == (2,) and tuple(c.event_shape) == ()
        assert tuple(c.sample((4, 5)).shape) == (4, 5, 2)
        assert c.mode.tolist() == [2, 2]
        assert c.enumerate_support().tolist() == [[0, 0], [1, 1], [2, 2]]
        assert tuple(c.expand((3, 2)).batch_shape) == (3, 2)
        assert np.isnan(_np(c.mean)).all() and tuple(c.mean.shape) == (2,)


@contextlib.contextmanager
def _shared_draws(seed: int) -> Iterator[None]:
    """Both libraries' ``multinomial``/``bernoulli``/``normal``/``rand`` draw from one numpy stream:
    then a distribution's samples are equal exactly when it calls them as torch's does."""
    saved = [(lib, n, getattr(lib, n)) for _, lib, _ in LIBS for n in ("multinomial", "bernoulli", "normal", "rand")]
    streams = {id(lib): np.random.default_rng(seed) for _, lib, _ in LIBS}

    def make(lib: Any) -> dict[str, Callable[..., Any]]:
        rng = streams[id(lib)]

        def multinomial(probs: Any, n: int, replacement: bool = False) -> Any:
            assert replacement and probs.dim() == 2
            w = _np(probs).astype(np.float64)
            cdf = np.cumsum(w, -1) / w.sum(-1, keepdims=True)
            u = rng.random((w.shape[0], n))
            picks = np.minimum((cdf[:, None, :] <= u[:, :, None]).sum(-1), w.shape[1] - 1)
            return lib.from_numpy(picks.astype(np.int64))

        def bernoulli(p: Any) -> Any:
            return lib.from_numpy((rng.random(tuple(p.shape)) < _np(p)).astype(np.float32))

        def normal(mean: Any, std: Any) -> Any:
            z = rng.standard_normal(tuple(mean.shape)).astype(np.float32)
            return mean + lib.from_numpy(z) * std

        def rand(shape: Any, **kwargs: Any) -> Any:
            return lib.from_numpy(rng.random(tuple(shape)).astype(np.float32))

        return {"multinomial": multinomial, "bernoulli": bernoulli, "normal": normal, "rand": rand}

    try:
        for _, lib, _ in LIBS:
            for name, fn in make(lib).items():
                setattr(lib, name, fn)
        yield
    finally:
        for lib, name, fn in saved:
            setattr(lib, name, fn)


@pytest.mark.parametrize("make", [
    lambda lib, d: d.Categorical(lib.tensor(PROBS)),
    lambda lib, d: d.Categorical(logits=lib.tensor(LOGITS[0])),
    lambda lib, d: d.OneHotCategorical(lib.tensor(PROBS)),
    lambda lib, d: d.Bernoulli(lib.tensor(PROBS)),
    lambda lib, d: d.Normal(lib.tensor(LOGITS), lib.tensor(PROBS)),
    lambda lib, d: d.Uniform(lib.tensor(LOGITS), lib.tensor(LOGITS) + 1),
    lambda lib, d: d.Independent(d.Normal(lib.tensor(LOGITS), 2.0), 1),
], ids=["categorical", "categorical-1d", "one-hot", "bernoulli", "normal", "uniform", "independent"])
def test_samples_call_the_random_ops_as_torch_does(make: Callable[[Any, Any], Any]) -> None:
    samples = []
    for _, lib, d in LIBS:
        with _shared_draws(3):
            samples.append(_np(make(lib, d).sample((4, 3))))
    assert samples[0].shape == samples[1].shape
    np.testing.assert_array_equal(samples[0], samples[1])


def test_categorical_samples_follow_the_probabilities() -> None:
    tt.manual_seed(0)
    draws = tt.distributions.Categorical(tt.tensor([0.1, 0.2, 0.7])).sample((20000,))
    assert draws.dtype == tt.int64
    freq = np.bincount(_np(draws), minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.015)


# ---------------------------------------------------------------- Bernoulli
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_bernoulli_log_prob_entropy_mean_variance_match_torch(param: str) -> None:
    arr = PROBS if param == "probs" else LOGITS
    values = np.array([[1, 0, 1], [0, 0, 1]], dtype=np.float32)

    def build(lib: Any, d: Any, p: list[Any]) -> Any:
        b = d.Bernoulli(**{param: p[0]})
        return b.log_prob(p[1].detach()) + b.entropy() + b.mean + b.variance

    _assert_same(build, arr, values)


def test_bernoulli_number_parameter_and_mode() -> None:
    for _, lib, d in LIBS:
        b = d.Bernoulli(0.3)
        assert tuple(b.batch_shape) == ()
        assert tuple(b.sample((5,)).shape) == (5,)
        modes = d.Bernoulli(lib.tensor([0.2, 0.5, 0.9])).mode
        assert modes[0].item() == 0.0 and math.isnan(modes[1].item()) and modes[2].item() == 1.0


# ---------------------------------------------------------------- Normal
@given(
    hnp.arrays(np.float32, (3, 2), elements=st.floats(-3, 3, width=32)),
    hnp.arrays(np.float32, (3, 2), elements=st.floats(0.125, 3, width=32)),
    hnp.arrays(np.float32, (2,), elements=st.floats(-3, 3, width=32)),
)
@settings(max_examples=25, deadline=None)
def test_normal_log_prob_cdf_entropy_match_torch(loc: np.ndarray, scale: np.ndarray, value: np.ndarray) -> None:
    def build(lib: Any, d: Any, p: list[Any]) -> Any:
        n = d.Normal(p[0], p[1])
        return n.log_prob(p[2]) + n.cdf(p[2].detach()) + n.entropy()

    _assert_same(build, loc, scale, value, rtol=1e-5, atol=1e-5)


def test_normal_broadcasts_a_number_against_a_tensor() -> None:
    _assert_same(lambda lib, d, p: d.Normal(p[0], 2.0).log_prob(p[1]), LOGITS[0], LOGITS)
    _assert_same(lambda lib, d, p: d.Normal(0.5, p[0]).entropy(), PROBS)
    for _, lib, d in LIBS:
        n = d.Normal(lib.zeros(3, 1), lib.ones(4))
        assert tuple(n.batch_shape) == (3, 4)
        assert tuple(d.Normal(0.0, 1.0).batch_shape) == ()


def test_normal_rsample_is_differentiable_in_loc_and_scale() -> None:
    loc = tt.tensor([0.5, -1.0], requires_grad=True)
    scale = tt.tensor([2.0, 0.5], requires_grad=True)
    x = tt.distributions.Normal(loc, scale).rsample((3,))
    assert tuple(x.shape) == (3, 2)
    x.sum().backward()
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(_np(loc.grad), [3.0, 3.0])
    np.testing.assert_allclose(_np(scale.grad), _np(eps.sum(0)), rtol=1e-5)


def test_normal_icdf_and_moments_match_torch() -> None:
    q = np.array([[0.1, 0.5], [0.7, 0.99]], dtype=np.float32)
    _assert_same(lambda lib, d, p: d.Normal(p[0], p[1]).icdf(p[2].detach()), LOGITS[:, :2], PROBS[:, :2], q,
                 rtol=1e-5, atol=1e-5)
    _assert_same(lambda lib, d, p: d.Normal(p[0], p[1]).variance + d.Normal(p[0], p[1]).stddev, LOGITS, PROBS)


# ---------------------------------------------------------------- Uniform
def test_uniform_log_prob_cdf_entropy_match_torch() -> None:
    low = np.array([0.0, -1.0, 2.0], dtype=np.float32)
    high = np.array([1.0, 3.0, 2.5], dtype=np.float32)
    value = np.array([0.5, 2.0, 2.25], dtype=np.float32)

    def build(lib: Any, d: Any, p: list[Any]) -> Any:
        u = d.Uniform(p[0], p[1])
        return u.log_prob(p[2].detach()) + u.cdf(p[2].detach()) + u.entropy() + u.mean + u.variance

    _assert_same(build, low, high, value)


def test_uniform_rsample_lies_in_the_interval() -> None:
    u = tt.distributions.Uniform(tt.tensor([0.0, 5.0]), tt.tensor([1.0, 7.0]))
    x = _np(u.rsample((1000,)))
    assert x.shape == (1000, 2)
    assert (x[:, 0] >= 0).all() and (x[:, 0] < 1).all() and (x[:, 1] >= 5).all() and (x[:, 1] < 7).all()


# ---------------------------------------------------------------- Independent, OneHotCategorical
def test_independent_sums_the_reinterpreted_dimensions() -> None:
    value = np.array([[0.1, 0.2], [0.3, -0.4], [1.0, 2.0]], dtype=np.float32)

    def build(lib: Any, d: Any, p: list[Any]) -> Any:
        i = d.Independent(d.Normal(p[0], p[1]), 1)
        assert tuple(i.batch_shape) == (3,) and tuple(i.event_shape) == (2,)
        return i.log_prob(p[2]) + i.entropy()

    _assert_same(build, LOGITS.T.copy(), PROBS.T.copy(), value)
    for _, lib, d in LIBS:
        with pytest.raises(ValueError, match=r"Expected reinterpreted_batch_ndims <= len\(base_distribution"):
            d.Independent(d.Normal(lib.zeros(2), 1.0), 2)


def test_one_hot_categorical_matches_torch() -> None:
    values = np.array([[0, 0, 1], [1, 0, 0]], dtype=np.float32)

    def build(lib: Any, d: Any, p: list[Any]) -> Any:
        o = d.OneHotCategorical(logits=p[0])
        assert tuple(o.event_shape) == (3,)
        return o.log_prob(p[1].detach()) + o.entropy()

    _assert_same(build, LOGITS, values)
    for _, lib, d in LIBS:
        o = d.OneHotCategorical(lib.tensor(PROBS))
        assert _np(o.mode).tolist() == [[0, 0, 1], [0, 0, 1]]
        assert tuple(o.enumerate_support().shape) == (3, 2, 3)


# ---------------------------------------------------------------- kl_divergence
KL_CASES: dict[str, Callable[[Any, Any, list[Any]], Any]] = {
    "categorical": lambda lib, d, p: d.kl_divergence(d.Categorical(logits=p[0]), d.Categorical(p[1])),
    "one-hot": lambda lib, d, p: d.kl_divergence(d.OneHotCategorical(logits=p[0]), d.OneHotCategorical(p[1])),
    "bernoulli": lambda lib, d, p: d.kl_divergence(d.Bernoulli(p[1]), d.Bernoulli(logits=p[0])),
    "normal": lambda lib, d, p: d.kl_divergence(d.Normal(p[0], p[1]), d.Normal(p[0] * 0.5, p[1] + 1)),
    "uniform": lambda lib, d, p: d.kl_divergence(d.Uniform(p[0], p[0] + p[1]), d.Uniform(p[0] - 1, p[0] + 2)),
    "uniform-normal": lambda lib, d, p: d.kl_divergence(d.Uniform(p[0], p[0] + p[1]), d.Normal(p[0], p[1])),
    "independent": lambda lib, d, p: d.kl_divergence(d.Independent(d.Normal(p[0], p[1]), 1),
                                                      d.Independent(d.Normal(p[0] * 2, p[1]), 1)),
}


@pytest.mark.parametrize("name", KL_CASES)
def test_kl_divergence_matches_torch(name: str) -> None:
    _assert_same(KL_CASES[name], LOGITS, PROBS, rtol=1e-5, atol=1e-5)


def test_kl_divergence_infinite_and_zero_where_torch_writes_them() -> None:
    p = np.array([0.0, 0.5, 0.5], dtype=np.float32)
    q = np.array([0.5, 0.5, 0.0], dtype=np.float32)
    _assert_same(lambda lib, d, t: d.kl_divergence(d.Categorical(t[0]), d.Categorical(t[1])), p, q)
    _assert_same(lambda lib, d, t: d.kl_divergence(d.Bernoulli(t[0]), d.Bernoulli(t[1])), p, q)
    _assert_same(lambda lib, d, t: d.kl_divergence(d.Uniform(0.0, t[0] + 1), d.Uniform(0.5, t[1] + 1)), p, q)
    _assert_same(lambda lib, d, t: d.kl_divergence(d.Normal(t[0], 1.0), d.Uniform(0.0, t[1] + 1)), p, q)


def test_register_kl_dispatches_to_the_most_specific_pair() -> None:
    d = tt.distributions

    class MyNormal(d.Normal):
        pass

    @d.register_kl(MyNormal, d.Normal)
    def _kl(p: Any, q: Any) -> Any:
        return tt.zeros(3) + 7

    try:
        a, b = MyNormal(tt.zeros(3), 1.0), d.Normal(tt.ones(3), 1.0)
        assert d.kl_divergence(a, b).tolist() == [7.0, 7.0, 7.0]
        np.testing.assert_allclose(_np(d.kl_divergence(b, a)), [0.5, 0.5, 0.5])  # Normal, Normal still
    finally:
        from typedtensor.distributions import kl

        del kl._KL_REGISTRY[MyNormal, d.Normal]
        kl._KL_MEMOIZE.clear()
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Bernoulli and q type Normal"):
        d.kl_divergence(d.Bernoulli(0.5), d.Normal(0.0, 1.0))
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        d.register_kl(int, d.Normal)


# ---------------------------------------------------------------- validation
def _message(fn: Callable[[Any, Any], Any]) -> list[str]:
    out = []
    for _, lib, d in LIBS:
        with pytest.raises(ValueError) as info:
            fn(lib, d)
        out.append(str(info.value).replace("torch.", "typedtensor.").replace("typedtensor.Size", "torch.Size"))
    return out


@pytest.mark.parametrize("bad", [
    lambda lib, d: d.Normal(0.0, -1.0),
    lambda lib, d: d.Normal(lib.zeros(2), lib.tensor([1.0, 0.0])),
    lambda lib, d: d.Categorical(lib.tensor([0.5, -0.5, 1.0])),
    lambda lib, d: d.Bernoulli(lib.tensor([0.5, 1.5])),
    lambda lib, d: d.Uniform(lib.tensor([1.0]), lib.tensor([0.5])),
    lambda lib, d: d.Categorical(),
    lambda lib, d: d.Categorical(lib.tensor(1.0)),
    lambda lib, d: d.Normal(lib.zeros(2), 1.0).log_prob(lib.zeros(3)),
    lambda lib, d: d.Categorical(lib.tensor(PROBS)).log_prob(lib.tensor([3, 0])),
    lambda lib, d: d.Categorical(lib.tensor(PROBS)).log_prob([1, 0]),
    lambda lib, d: d.Bernoulli(0.5).log_prob(lib.tensor(0.5)),
    lambda lib, d: d.OneHotCategorical(lib.tensor([0.5, 0.5])).log_prob(lib.tensor([0.0, 0.0, 1.0])),
    lambda lib, d: d.Uniform(0.0, 1.0).log_prob(lib.tensor(2.0)),
], ids=["normal-scale", "normal-scale-tensor", "categorical-probs", "bernoulli-probs", "uniform-order",
        "categorical-none", "categorical-0d", "log-prob-shape", "categorical-support", "not-a-tensor",
        "bernoulli-support", "one-hot-event", "uniform-support"])
def test_validation_raises_torch_value_errors(bad: Callable[[Any, Any], Any]) -> None:
    ours, ref = _message(bad)
    assert ours == ref


def test_validation_can_be_switched_off() -> None:
    for _, lib, d in LIBS:
        d.Normal(0.0, -1.0, validate_args=False)
        d.Distribution.set_default_validate_args(False)
        try:
            d.Normal(0.0, -1.0)
            # the support is not checked either: a value of 1.5 is read as category 1
            assert d.Categorical(lib.tensor(PROBS)).log_prob(lib.tensor([1.5, 0.0])).shape == (2,)
        finally:
            d.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            d.Normal(0.0, -1.0)
        with pytest.raises(ValueError):
            d.Distribution.set_default_validate_args(2)  # type: ignore[arg-type]


def test_constraints_reprs_and_checks_match_torch() -> None:
    x = np.array([[0.0, 1.0], [0.5, -1.0]], dtype=np.float32)
    for name in ("real", "positive", "nonnegative", "unit_interval", "boolean", "simplex", "real_vector", "one_hot"):
        ours, ref = getattr(tt.distributions.constraints, name), getattr(torch.distributions.constraints, name)
        assert repr(ours) == repr(ref)
        assert _np(ours.check(tt.tensor(x))).tolist() == ref.check(torch.tensor(x)).tolist(), name
    assert repr(tt.distributions.constraints.integer_interval(0, 3)) == "IntegerInterval(lower_bound=0, upper_bound=3)"
    assert tt.distributions.constraints.is_dependent(tt.distributions.Categorical.support)
    assert tt.distributions.Uniform(0.0, 1.0).support.check(tt.tensor([0.5, 2.0])).tolist() == [True, False]


def test_reachable_as_an_attribute_of_the_package() -> None:
    import typedtensor.distributions as mod

    assert tt.distributions is mod
    from typedtensor.distributions import Categorical

    assert Categorical is mod.categorical.Categorical
