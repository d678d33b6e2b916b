"""The lazy modules against torch's: the sizes they learn from the first input, the layer they
become, their initialisation from the same seed, state dicts in both directions, and the
uninitialised parameters' own behaviour (nn.Buffer with them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

# (class, constructor args, kwargs, input shape, the layer it becomes)
CASES: list[tuple[str, tuple[Any, ...], dict[str, Any], tuple[int, ...], str]] = [
    ("LazyLinear", (5,), {}, (3, 7), "Linear"),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6), "Linear"),
    ("LazyConv1d", (6, 3), {"padding": 1}, (2, 4, 9), "Conv1d"),
    ("LazyConv2d", (8, 3), {"stride": 2, "groups": 2}, (2, 4, 9, 8), "Conv2d"),
    ("LazyConv2d", (5, (1, 3)), {"bias": False}, (3, 7, 6), "Conv2d"),  # unbatched
    ("LazyConv3d", (4, 2), {}, (1, 3, 5, 4, 4), "Conv3d"),
    ("LazyConvTranspose1d", (6, 3), {"stride": 2}, (2, 4, 5), "ConvTranspose1d"),
    ("LazyConvTranspose2d", (6, 3), {"stride": 2, "output_padding": 1, "groups": 2}, (2, 4, 5, 5), "ConvTranspose2d"),
    ("LazyBatchNorm1d", (), {}, (4, 3), "BatchNorm1d"),
    ("LazyBatchNorm2d", (), {"momentum": None}, (4, 3, 5, 5), "BatchNorm2d"),
    ("LazyBatchNorm3d", (), {"affine": False}, (2, 3, 2, 3, 3), "BatchNorm3d"),
    ("LazyInstanceNorm1d", (), {"affine": True}, (3, 5, 6), "InstanceNorm1d"),
    ("LazyInstanceNorm2d", (), {"track_running_stats": True}, (2, 3, 5, 5), "InstanceNorm2d"),
    ("LazyInstanceNorm3d", (), {}, (2, 2, 3, 3, 3), "InstanceNorm3d"),
]


def _np(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy()  # type: ignore[no-any-return]


@pytest.mark.parametrize(("name", "args", "kwargs", "shape", "becomes"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_first_call_materializes_like_torch(name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                                             shape: tuple[int, ...], becomes: str) -> None:
    tt.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = getattr(tt.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    y, ty = ours(tt.tensor(x)), theirs(torch.tensor(x))
    assert type(ours) is getattr(tt.nn, becomes) and type(theirs) is getattr(torch.nn, becomes)
    assert repr(ours) == repr(theirs)
    assert not ours.has_uninitialized_params() if hasattr(ours, "has_uninitialized_params") else True
    # the same draws from the same seed: the initialisation is the eager layer's
    ours_state, theirs_state = ours.state_dict(), theirs.state_dict()
    assert list(ours_state) == list(theirs_state)
    for k in theirs_state:
        np.testing.assert_allclose(_np(ours_state[k]), _np(theirs_state[k]), rtol=1e-5, atol=1e-6, err_msg=k)
    np.testing.assert_allclose(_np(y), _np(ty), rtol=1e-4, atol=1e-5)


def test_an_optimizer_built_before_the_first_call_trains_the_materialized_weights() -> None:
    model = tt.nn.Sequential(tt.nn.LazyLinear(8), tt.nn.ReLU(), tt.nn.LazyLinear(1))
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    x, target = tt.randn(16, 5), tt.randn(16, 1)
    loss0 = None
    for _ in range(5):
        opt.zero_grad()
        loss = tt.nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        loss0 = loss0 if loss0 is not None else loss.item()
    assert type(model[0]) is tt.nn.Linear and model[0].weight.shape == (8, 5)
    assert tt.nn.functional.mse_loss(model(x), target).item() < loss0


def test_state_dict_of_a_trained_layer_loads_into_a_lazy_one_and_back() -> None:
    tt.manual_seed(3)
    trained = tt.nn.Linear(6, 4)
    lazy = tt.nn.LazyLinear(4)
    lazy.load_state_dict(trained.state_dict())
    assert not lazy.has_uninitialized_params()
    x = tt.randn(2, 6)
    np.testing.assert_array_equal(_np(lazy(x)), _np(trained(x)))
    assert type(lazy) is tt.nn.Linear
    # torch reads the same checkpoint into its own lazy layer
    t_lazy = torch.nn.LazyLinear(4)
    t_lazy.load_state_dict({k: torch.tensor(_np(v)) for k, v in trained.state_dict().items()})
    np.testing.assert_allclose(t_lazy(torch.tensor(_np(x))).detach().numpy(), _np(trained(x)), rtol=1e-5, atol=1e-7)


def test_lazy_batch_norm_loads_its_running_statistics() -> None:
    src = torch.nn.BatchNorm2d(3)
    src.running_mean.fill_(0.5)
    src.running_var.fill_(2.0)
    lazy = tt.nn.LazyBatchNorm2d()
    lazy.load_state_dict({k: tt.tensor(v.numpy()) for k, v in src.state_dict().items()})
    lazy.eval()
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    src.eval()
    np.testing.assert_allclose(_np(lazy(tt.tensor(x))), src(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_to_before_the_first_call_sets_the_materialized_dtype() -> None:
    m = tt.nn.LazyConv2d(4, 3).to(tt.float64)
    y = m(tt.randn(1, 2, 5, 5, dtype=tt.float64))
    assert m.weight.dtype == tt.float64 and y.dtype == tt.float64 and m.weight.shape == (4, 2, 3, 3)


def test_uninitialized_parameter_refuses_its_shape_and_materializes() -> None:
    p = tt.nn.UninitializedParameter()
    assert repr(p) == repr(torch.nn.UninitializedParameter()) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        p.shape  # noqa: B018
    p.materialize((2, 3), dtype=tt.float64)
    assert type(p) is tt.nn.Parameter and p.shape == (2, 3) and p.dtype == tt.float64 and p.requires_grad
    assert tt.nn.parameter.is_lazy(tt.nn.UninitializedBuffer()) and not tt.nn.parameter.is_lazy(p)


def test_wrong_groups_for_the_first_input_is_torchs_error() -> None:
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        tt.nn.LazyConv2d(4, 3, groups=2)(tt.randn(1, 3, 5, 5))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        torch.nn.LazyConv2d(4, 3, groups=2)(torch.randn(1, 3, 5, 5))


def test_buffer_registers_itself_with_its_persistence() -> None:
    class M(tt.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.kept = tt.nn.Buffer(tt.ones(2))
            self.scratch = tt.nn.Buffer(tt.zeros(3), persistent=False)
            self.plain = tt.ones(1)  # a plain tensor stays an attribute

    class TM(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.kept = torch.nn.Buffer(torch.ones(2))
            self.scratch = torch.nn.Buffer(torch.zeros(3), persistent=False)
            self.plain = torch.ones(1)

    m, tm = M(), TM()
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in tm.named_buffers()] == ["kept", "scratch"]
    assert list(m.state_dict()) == list(tm.state_dict()) == ["kept"]
    m.to(tt.float64)
    assert m.kept.dtype == tt.float64
