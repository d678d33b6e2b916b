"""torchvision's classification models, run on torch and on typedtensor from the same weights and
compared: in train mode the forward output, the gradient of the loss for every parameter, the
BatchNorm running statistics and the weights after one SGD step; then in eval mode, from those
stepped weights, the output and the gradients. Each phase starts from torch's state in every run,
so what rounding moved in one phase does not count again in the next.

Both sides are built from the same ported file (``standins/torchvision/models/``): the stand-in
package is copied twice, once with its imports pointed back at torch (``harness.to_torch_source``),
as the harness runs a program on both libraries. typedtensor's model gets torch's initial state.
Dropout masks and stochastic depth's ``bernoulli_`` draws come from one shared generator in both
runs (``harness.SharedRandom``), so train mode is compared with both on.

The tolerance is the programs' yardstick (``harness.Comparison``): a third run, on torch from
weights one float32 ulp away and with the loss taken in float64, shows how far rounding alone
moves each compared array; typedtensor must stay within ten times that, and never closer than a
few float32 ulps of the array's scale.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("typedtensor._C")

from tests.programs import harness

Builder = Callable[[ModuleType], Any]  # torchvision.models (of one library) -> the model


def _load_torchvision(lib: str, root: Path) -> ModuleType:
    """The stand-in ``torchvision`` for ``lib``, imported from its own copy under ``root`` and then
    taken out of ``sys.modules`` (the other library's copy has the same module names)."""
    root.mkdir(parents=True)
    harness._copy_tree(harness.STANDINS, root, lib)
    before = set(sys.modules)
    sys.path.insert(0, str(root))
    try:
        import torchvision.models

        package: ModuleType = torchvision
    finally:
        sys.path.remove(str(root))
        for name in set(sys.modules) - before:
            if (getattr(sys.modules[name], "__file__", None) or "").startswith(str(root)):
                del sys.modules[name]
    return package


@pytest.fixture(scope="module")
def torchvision_packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleType]:
    root = tmp_path_factory.mktemp("torchvision")
    return {lib: _load_torchvision(lib, root / lib) for lib in ("torch", "typedtensor")}


@pytest.fixture(scope="module")
def torchvision_models(torchvision_packages: dict[str, ModuleType]) -> dict[str, ModuleType]:
    return {lib: package.models for lib, package in torchvision_packages.items()}


@dataclass(frozen=True)
class Case:
    build: Builder
    input_shape: tuple[int, ...]
    num_classes: int = 10


def _perturbed(state: dict[str, np.ndarray], params: set[str]) -> dict[str, np.ndarray]:
    """Every parameter moved by one float32 ulp, up or down at random (buffers stay exact)."""
    rng = np.random.default_rng(0)
    out = {}
    for key, array in state.items():
        if key in params:
            direction = np.where(rng.random(array.shape) < 0.5, -np.inf, np.inf).astype(array.dtype)
            array = np.nextafter(array, direction)
        out[key] = array
    return out


def _run(
    lib_name: str, models: ModuleType, case: Case, states: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None,
    x: np.ndarray, y: np.ndarray, wide_loss: bool = False,
) -> tuple[list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """One run, in two phases: in train mode, the output, the gradients and the buffers, then the
    parameters after one SGD step; in eval mode, the output and the gradients. ``states`` are the
    states each phase starts from (torch's, for the other runs: each phase is compared from the same
    weights, so what one phase's rounding moved does not count again in the next); without them the
    model keeps its own initialisation and its stepped weights. ``wide_loss`` takes the loss in
    float64 (the yardstick's run, below). Returns the two states and what is compared."""
    lib = harness._Lib(lib_name)
    lib.top.manual_seed(0)
    model = case.build(models)
    optimizer = lib.top.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    got: dict[str, np.ndarray] = {}
    used = []
    with harness.SharedRandom(lib, seed=7).installed():
        for phase, mode in enumerate(("train", "eval")):
            if states is not None:
                model.load_state_dict({k: lib.from_numpy(v) for k, v in states[phase].items()})
            used.append({k: lib.to_numpy(v) for k, v in model.state_dict().items()})
            model.train(mode == "train")
            out = model(lib.from_numpy(x))
            loss = lib.F.cross_entropy(out.double() if wide_loss else out, lib.from_numpy(y))
            optimizer.zero_grad()
            loss.backward()
            got[f"{mode} output"] = lib.to_numpy(out)
            for name, p in model.named_parameters():
                got[f"{mode} grad {name}"] = lib.to_numpy(p.grad)
            if mode == "train":
                for name, b in model.named_buffers():
                    got[f"train buffer {name}"] = lib.to_numpy(b)
                optimizer.step()
                for name, p in model.named_parameters():
                    got[f"stepped {name}"] = lib.to_numpy(p)
    return used, got


def _mismatches(ref: dict[str, np.ndarray], pert: dict[str, np.ndarray], ours: dict[str, np.ndarray]) -> list[str]:
    assert sorted(ours) == sorted(ref)
    out = []
    for key, want in ref.items():
        got = ours[key]
        if got.shape != want.shape or got.dtype != want.dtype:
            out.append(f"{key}: {got.dtype}{got.shape} vs torch's {want.dtype}{want.shape}")
            continue
        if not np.issubdtype(want.dtype, np.floating):
            if not np.array_equal(got, want):
                out.append(f"{key}: {got} vs torch's {want}")
            continue
        noise = float(np.max(np.abs(pert[key] - want), initial=0.0))
        tolerance = 10.0 * noise + 4e-7 * max(1.0, float(np.max(np.abs(want), initial=0.0)))
        diff = float(np.max(np.abs(got - want), initial=0.0))
        if not diff <= tolerance:  # NaN fails too
            out.append(f"{key}: max |diff| {diff:.3g} > tolerance {tolerance:.3g} (torch's one-ulp spread {noise:.3g})")
    return out


def check(torchvision_models: dict[str, ModuleType], case: Case) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(case.input_shape).astype(np.float32)
    y = rng.integers(0, case.num_classes, case.input_shape[0])
    states, ref = _run("torch", torchvision_models["torch"], case, None, x, y)
    model = case.build(torchvision_models["torch"])
    params = {name for name, _ in model.named_parameters()}
    perturbed = (_perturbed(states[0], params), _perturbed(states[1], params))
    # the yardstick's run also takes the loss in float64: a confident model's float32 gradient
    # p - 1 (p near 1) keeps few of its bits, and where one-ulp weights leave torch's rounding
    # of it in place, the two libraries' differently rounded p - 1 (each ~2 ulps of 1 from the
    # exact one in convnext_tiny's eval phase) would be measured against nothing
    _, pert = _run("torch", torchvision_models["torch"], case, perturbed, x, y, wide_loss=True)
    _, ours = _run("typedtensor", torchvision_models["typedtensor"], case, (states[0], states[1]), x, y)
    assert _mismatches(ref, pert, ours) == []


# ---------------------------------------------------------------- the models
def _mobilenet_v2(m: ModuleType) -> Any:
    return m.MobileNetV2(num_classes=10, width_mult=0.25)


def _mobilenet_v3_small(m: ModuleType) -> Any:
    return m.mobilenet_v3_small(weights=None, num_classes=10, width_mult=0.5)


def _mobilenet_v3_large(m: ModuleType) -> Any:
    return m.mobilenet_v3_large(weights=None, num_classes=10, width_mult=0.25, reduced_tail=True)


def _shufflenet_v2(m: ModuleType) -> Any:
    return m.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10)


def _squeezenet1_0(m: ModuleType) -> Any:
    return m.SqueezeNet("1_0", num_classes=10)


def _squeezenet1_1(m: ModuleType) -> Any:
    return m.SqueezeNet("1_1", num_classes=10)


def _vit(m: ModuleType) -> Any:
    vit = m.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, dropout=0.1,
        attention_dropout=0.1, num_classes=10,
    )
    # torchvision zeroes the head, which would leave every other gradient of the first step zero
    m.vision_transformer.nn.init.normal_(vit.heads.head.weight, std=0.02)
    return vit


def _convnext(m: ModuleType) -> Any:
    # two stages (ConvNeXt-T has four) and a layer scale that lets the blocks count (1e-6 hides them)
    cfg = m.convnext.CNBlockConfig
    return m.ConvNeXt([cfg(16, 32, 1), cfg(32, None, 2)], stochastic_depth_prob=0.5, layer_scale=0.5, num_classes=10)


def _efficientnet(m: ModuleType) -> Any:
    # EfficientNet-B0's first three stages, then an EfficientNetV2 fused stage
    e = m.efficientnet
    setting = [
        e.MBConvConfig(1, 3, 1, 32, 16, 1),
        e.MBConvConfig(6, 3, 2, 16, 24, 2),
        e.MBConvConfig(6, 5, 2, 24, 40, 1),
        e.FusedMBConvConfig(4, 3, 1, 40, 48, 1),
    ]
    return m.EfficientNet(setting, dropout=0.2, stochastic_depth_prob=0.5, num_classes=10, last_channel=128)


def _densenet(m: ModuleType) -> Any:
    return m.DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=16, bn_size=2, drop_rate=0.2, num_classes=10)


def _densenet_memory_efficient(m: ModuleType) -> Any:
    # the bottlenecks run under torch.utils.checkpoint: recomputed in the backward pass
    return m.DenseNet(
        growth_rate=8, block_config=(2, 2), num_init_features=16, bn_size=2, drop_rate=0.2, num_classes=10,
        memory_efficient=True,
    )


FAST: dict[str, Case] = {
    "mobilenet_v2": Case(_mobilenet_v2, (2, 3, 64, 64)),
    "mobilenet_v3_small": Case(_mobilenet_v3_small, (2, 3, 64, 64)),
    "shufflenet_v2": Case(_shufflenet_v2, (2, 3, 64, 64)),
    "squeezenet1_1": Case(_squeezenet1_1, (2, 3, 64, 64)),
    "vit": Case(_vit, (2, 3, 32, 32)),
    "convnext": Case(_convnext, (2, 3, 32, 32)),
    "efficientnet": Case(_efficientnet, (2, 3, 64, 64)),
    "densenet": Case(_densenet, (2, 3, 64, 64)),
    "densenet (memory_efficient)": Case(_densenet_memory_efficient, (2, 3, 64, 64)),
}
# torchvision's own builders with their defaults (1000 classes, stochastic depth on), on 64 x 64
# inputs: each downsamples 32 times, so its last feature map is 2 x 2
BUILDERS = [
    "mobilenet_v2", "mobilenet_v3_large", "shufflenet_v2_x1_0", "squeezenet1_0", "efficientnet_b0",
    "efficientnet_v2_s", "convnext_tiny", "densenet121",
]


def _builder(name: str) -> Builder:
    return lambda m: getattr(m, name)(weights=None)


SLOW: dict[str, Case] = {
    "mobilenet_v3_large (narrow)": Case(_mobilenet_v3_large, (2, 3, 64, 64)),
    "squeezenet1_0 (10 classes)": Case(_squeezenet1_0, (2, 3, 64, 64)),
    **{f"{name} (torchvision's builder)": Case(_builder(name), (2, 3, 64, 64), 1000) for name in BUILDERS},
}


@pytest.mark.parametrize("name", sorted(FAST))
def test_model_matches_torch(torchvision_models: dict[str, ModuleType], name: str) -> None:
    check(torchvision_models, FAST[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW))
def test_larger_model_matches_torch(torchvision_models: dict[str, ModuleType], name: str) -> None:
    check(torchvision_models, SLOW[name])


def test_builders_take_weights_none_and_refuse_downloads(torchvision_models: dict[str, ModuleType]) -> None:
    models = torchvision_models["typedtensor"]
    assert "mobilenet_v2" in models.list_models()
    with pytest.raises(RuntimeError, match="downloads nothing"):
        models.mobilenet_v2(weights=models.MobileNet_V2_Weights.DEFAULT)
    with warnings.catch_warnings(record=True) as caught:  # the legacy keyword, as torchvision takes it
        warnings.simplefilter("always")
        model = models.squeezenet1_1(pretrained=False)
    assert any("'pretrained' is deprecated" in str(w.message) for w in caught)
    assert type(next(model.parameters())).__module__.startswith("typedtensor")


def test_frozen_batch_norm_takes_a_batch_norm_checkpoint(torchvision_packages: dict[str, ModuleType]) -> None:
    """torchvision's FrozenBatchNorm2d (ops/misc.py) drops BatchNorm2d's ``num_batches_tracked`` in
    its ``_load_from_state_dict`` override; then it normalises with the loaded statistics."""
    rng = np.random.default_rng(2)
    state = {
        "weight": rng.random(4).astype(np.float32) + 0.5, "bias": rng.standard_normal(4).astype(np.float32),
        "running_mean": rng.standard_normal(4).astype(np.float32), "running_var": rng.random(4).astype(np.float32) + 0.5,
        "num_batches_tracked": np.array(7),
    }
    x = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    outs = []
    for lib_name, package in torchvision_packages.items():
        lib = harness._Lib(lib_name)
        frozen = package.ops.FrozenBatchNorm2d(4)
        frozen.load_state_dict({k: lib.from_numpy(v) for k, v in state.items()})  # strict
        outs.append(lib.to_numpy(frozen(lib.from_numpy(x))))
    want = (x - state["running_mean"][:, None, None]) / np.sqrt(state["running_var"][:, None, None] + 1e-5)
    want = want * state["weight"][:, None, None] + state["bias"][:, None, None]
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(outs[1], want, rtol=1e-5, atol=1e-5)
