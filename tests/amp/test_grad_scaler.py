"""GradScaler against torch's (2.13), step by step: the same model, optimizer and data under both
libraries' scalers; scales, skipped steps, growth trackers and parameters must agree."""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

STEPS = 12


def _weights(rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.standard_normal(s).astype(np.float32) * 0.5 for s in ((6, 8), (8,), (8, 3), (3,))]


def _data(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(rng.standard_normal((5, 6)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32))
            for _ in range(STEPS)]


def _run(lib: Any, weights: list[np.ndarray], data: list[tuple[np.ndarray, np.ndarray]], *, half: bool,
         poison: set[int], opt_name: str, explicit_unscale: bool, **scaler_kw: Any) -> dict[str, Any]:
    """A two-layer MLP trained for ``len(data)`` steps under ``lib.amp.GradScaler("cpu", ...)``.

    ``half`` runs the matmuls in float16 (float32 parameters, float16 activations and their gradients,
    which overflow when the scale is too large); ``poison`` lists the steps whose loss is made inf."""
    params = [lib.nn.Parameter(lib.tensor(w.copy())) for w in weights]
    opt = getattr(lib.optim, opt_name)(params, lr=0.05)
    scaler = lib.amp.GradScaler("cpu", **scaler_kw)
    scales, trackers, returned = [], [], []
    for i, (x_np, y_np) in enumerate(data):
        x, y = lib.tensor(x_np), lib.tensor(y_np)
        opt.zero_grad()
        w1, b1, w2, b2 = params
        if half:
            h = (x.half() @ w1.half() + b1.half()).relu()
            out = (h @ w2.half() + b2.half()).float()
        else:
            out = (x @ w1 + b1).relu() @ w2 + b2
        loss = ((out - y) ** 2).mean()
        if i in poison:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        if explicit_unscale:
            scaler.unscale_(opt)
        returned.append(scaler.step(opt))
        scaler.update()
        scales.append(scaler.get_scale())
        trackers.append(scaler._get_growth_tracker())
    return {
        "scales": scales, "trackers": trackers, "returned": returned,
        "params": [p.detach().numpy() for p in params], "state": scaler.state_dict(),
    }


CASES = [
    # float32 with infs forced at chosen steps: growth every 3 clean steps, backoff at each poisoned one
    ({"half": False, "poison": {2, 3, 8}, "opt_name": "SGD", "explicit_unscale": False},
     {"init_scale": 2.0**10, "growth_interval": 3}),
    ({"half": False, "poison": {0, 5}, "opt_name": "AdamW", "explicit_unscale": True},
     {"init_scale": 8.0, "growth_factor": 4.0, "backoff_factor": 0.25, "growth_interval": 2}),
    # float16 activations: a scale of 2**24 overflows their gradients until the scale has backed off
    ({"half": True, "poison": set(), "opt_name": "SGD", "explicit_unscale": False},
     {"init_scale": 2.0**24, "growth_interval": 2}),
]


@pytest.mark.parametrize(("run_kw", "scaler_kw"), CASES, ids=["f32-sgd", "f32-adamw-unscale", "f16-sgd"])
def test_training_matches_torch(run_kw: dict[str, Any], scaler_kw: dict[str, Any]) -> None:
    rng = np.random.default_rng(0)
    weights, data = _weights(rng), _data(rng)
    ours = _run(tt, weights, data, **run_kw, **scaler_kw)
    ref = _run(torch, weights, data, **run_kw, **scaler_kw)
    assert ours["scales"] == ref["scales"]
    assert ours["trackers"] == ref["trackers"]
    assert [r is None for r in ours["returned"]] == [r is None for r in ref["returned"]]
    assert ours["state"] == ref["state"]
    for a, b in zip(ours["params"], ref["params"], strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-3 if run_kw["half"] else 1e-5, atol=1e-5)
    # the run saw both directions of the scale
    steps = np.diff(np.log2([scaler_kw["init_scale"], *ref["scales"]]))
    assert (steps > 0).any() and (steps < 0).any()


def test_step_returns_what_optimizer_step_returned() -> None:
    p = tt.nn.Parameter(tt.ones(3))
    opt = tt.optim.SGD([p], lr=0.1)
    opt.step = lambda *a, **k: ("stepped", a, k)  # type: ignore[method-assign]
    scaler = tt.amp.GradScaler("cpu")
    scaler.scale(p.sum()).backward()
    assert scaler.step(opt, 1, x=2) == ("stepped", (1,), {"x": 2})


def test_unscale_twice_and_after_step_raise_torchs_errors() -> None:
    p = tt.nn.Parameter(tt.ones(3))
    opt = tt.optim.SGD([p], lr=0.1)
    scaler = tt.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale((p * 2).sum()).backward()
    scaler.unscale_(opt)
    np.testing.assert_array_equal(p.grad.numpy(), [2.0, 2.0, 2.0])  # unscaled in place
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) has already been called on this optimizer since the last update\(\)\.$"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) is being called after step\(\)\.$"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"^step\(\) has already been called since the last update\(\)\.$"):
        scaler.step(opt)
    scaler.update()
    scaler.scale((p * 2).sum()).backward()
    scaler.unscale_(opt)  # a new iteration: allowed again


def test_misuse_errors_match_torch() -> None:
    for lib in (tt, torch):
        scaler = lib.amp.GradScaler("cpu")
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
            scaler.step(opt)
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            scaler.step(opt, closure=lambda: None)
        with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
            scaler.scale([lib.ones(1), 3])
        with pytest.raises(AssertionError, match=r"The growth factor must be > 1\.0\."):
            lib.amp.GradScaler("cpu", growth_factor=1.0)
        with pytest.raises(AssertionError, match=r"The backoff factor must be < 1\.0\."):
            lib.amp.GradScaler("cpu", backoff_factor=1.0)
        half = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
        opt16 = lib.optim.SGD([half], lr=0.1)
        scaler.scale(half.float().sum()).backward()
        with pytest.raises(ValueError, match=r"Attempting to unscale FP16 gradients\."):
            scaler.unscale_(opt16)


def test_scale_of_nested_iterables_matches_torch() -> None:
    def scaled(lib: Any) -> Any:
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        a, b, c = lib.tensor([1.0, 2.0]), lib.tensor([3.0]), lib.tensor([[4.0]])
        out = scaler.scale([a, (b, [c]), iter([a])])
        return out

    ours, ref = scaled(tt), scaled(torch)
    assert type(ours) is list and type(ours[1]) is tuple and type(ours[1][1]) is list
    np.testing.assert_array_equal(ours[0].numpy(), ref[0].numpy())
    np.testing.assert_array_equal(ours[1][0].numpy(), ref[1][0].numpy())
    np.testing.assert_array_equal(ours[1][1][0].numpy(), ref[1][1][0].numpy())
    np.testing.assert_array_equal([t.numpy() for t in ours[2]], [t.numpy() for t in ref[2]])


def test_update_with_new_scale_and_accessors() -> None:
    for lib in (tt, torch):
        scaler = lib.amp.GradScaler("cpu", init_scale=16.0, growth_factor=3.0, backoff_factor=0.25,
                                    growth_interval=7)
        assert scaler.get_scale() == 16.0  # before the first scale(): the initial value
        assert (scaler.get_growth_factor(), scaler.get_backoff_factor(), scaler.get_growth_interval()) == (3.0, 0.25, 7)
        scaler.set_growth_factor(5.0)
        scaler.set_backoff_factor(0.125)
        scaler.set_growth_interval(9)
        assert (scaler.get_growth_factor(), scaler.get_backoff_factor(), scaler.get_growth_interval()) == (5.0, 0.125, 9)
        scaler.scale(lib.ones(1))
        scaler.update(new_scale=2.0)
        assert scaler.get_scale() == 2.0
        scaler.update(new_scale=lib.tensor(32.0))
        assert scaler.get_scale() == 32.0
        with pytest.raises(AssertionError, match="new_scale should be a float"):
            scaler.update(new_scale=lib.tensor([1.0, 2.0]))


def test_state_dict_round_trip_and_pickle() -> None:
    a = tt.amp.GradScaler("cpu", init_scale=64.0, growth_interval=1)
    p = tt.nn.Parameter(tt.ones(2))
    opt = tt.optim.SGD([p], lr=0.1)
    a.scale(p.sum()).backward()
    a.step(opt)
    a.update()  # one clean step with growth_interval 1: the scale doubles
    assert a.state_dict() == {"scale": 128.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                              "growth_interval": 1, "_growth_tracker": 0}
    b = tt.amp.GradScaler("cpu")
    b.load_state_dict(a.state_dict())
    assert b.state_dict() == a.state_dict()
    c = pickle.loads(pickle.dumps(a))
    assert c.state_dict() == a.state_dict()
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        b.load_state_dict({})


def test_disabled_scaler_passes_through() -> None:
    scaler = tt.amp.GradScaler("cpu", enabled=False)
    p = tt.nn.Parameter(tt.ones(2))
    opt = tt.optim.SGD([p], lr=0.5)
    loss = (p * 3).sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(p.detach().numpy(), [-0.5, -0.5])
    assert (scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()) == (False, 1.0, {})
    scaler.load_state_dict({})  # a no-op, as torch


def test_cuda_scaler_without_cuda_disables_itself_with_torchs_warnings() -> None:
    if tt.cuda.is_available() or torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    for lib in (tt, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = lib.cuda.amp.GradScaler(enabled=True)
        assert not scaler.is_enabled()
        assert [(w.category, str(w.message)) for w in caught] == [
            (FutureWarning, "`torch.cuda.amp.GradScaler(args...)` is deprecated. "
                            "Please use `torch.amp.GradScaler('cuda', args...)` instead."),
            (UserWarning, "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."),
        ]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert not lib.amp.GradScaler().is_enabled()  # device "cuda" by default
        assert [w.category for w in caught] == [UserWarning]


def test_cpu_alias_warns_and_scales() -> None:
    for lib in (tt, torch):
        with pytest.warns(FutureWarning, match=r"`torch\.cpu\.amp\.GradScaler\(args\.\.\.\)` is deprecated"):
            scaler = lib.cpu.amp.GradScaler(init_scale=4.0)
        assert scaler.is_enabled() and scaler.get_scale() == 4.0
        assert isinstance(scaler, lib.amp.GradScaler)
    assert tt.GradScaler is tt.amp.GradScaler
