"""Module bookkeeping: registration, walks, modes, devices, state dicts and their errors."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import close, to_np

nn = tt.nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.norm = nn.BatchNorm1d(4)
        self.scale = nn.Parameter(tt.ones(4))
        self.register_buffer("steps", tt.zeros(1))
        self.register_buffer("cache", tt.zeros(2), persistent=False)

    def forward(self, x: Any) -> Any:
        return self.norm(self.fc(x)) * self.scale


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))
        self.shared = self.head  # the same module twice: walks see it once

    def forward(self, x: Any) -> Any:
        x = self.blocks[0](x)
        x = self.blocks[1].norm(x)
        return self.head(x)


def test_names_follow_torch_conventions() -> None:
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == [
        "blocks.0.scale", "blocks.0.fc.weight", "blocks.0.fc.bias", "blocks.0.norm.weight", "blocks.0.norm.bias",
        "blocks.1.scale", "blocks.1.fc.weight", "blocks.1.fc.bias", "blocks.1.norm.weight", "blocks.1.norm.bias",
        "head.1.weight", "head.1.bias",
    ]
    assert [n for n, _ in net.named_buffers()][:4] == [
        "blocks.0.steps", "blocks.0.cache", "blocks.0.norm.running_mean", "blocks.0.norm.running_var",
    ]
    sd = net.state_dict()
    assert "blocks.0.cache" not in sd  # non-persistent
    assert "blocks.0.norm.num_batches_tracked" in sd
    assert [n for n, _ in net.named_modules()][:4] == ["", "blocks", "blocks.0", "blocks.0.fc"]
    assert [n for n, _ in net.named_children()] == ["blocks", "head"]
    assert net.get_submodule("blocks.1.fc") is net.blocks[1].fc
    assert net.get_parameter("head.1.bias") is net.head[1].bias


def test_state_dict_roundtrip_and_sharing() -> None:
    a, b = Net(), Net()
    b.load_state_dict(a.state_dict())
    for (n1, p1), (n2, p2) in zip(a.named_parameters(), b.named_parameters(), strict=True):
        assert n1 == n2
        close(p1, p2)
    sd = a.state_dict()
    assert sd["head.1.weight"]._shares_storage(a.head[1].weight)
    assert not sd["head.1.weight"].requires_grad


def test_load_state_dict_names_the_offending_entries() -> None:
    net = Net()
    sd = net.state_dict()
    bad = dict(sd)
    bad["head.1.weight"] = tt.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"size mismatch for head\.1\.weight: .*\[3, 4\].*\[2, 4\]"):
        net.load_state_dict(bad)
    missing = dict(sd)
    del missing["blocks.1.fc.bias"]
    missing["extra.weight"] = tt.zeros(1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(missing)
    assert 'Missing key(s) in state_dict: "blocks.1.fc.bias"' in str(info.value)
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in str(info.value)
    result = net.load_state_dict(missing, strict=False)
    assert result.missing_keys == ["blocks.1.fc.bias"]
    assert result.unexpected_keys == ["extra.weight"]
    with pytest.raises(RuntimeError, match="size mismatch"):  # shapes are checked even when not strict
        net.load_state_dict(bad, strict=False)
    with pytest.raises(RuntimeError, match="expected a Tensor"):
        net.load_state_dict({**sd, "head.1.bias": [1.0, 2.0]})


def test_failed_load_copies_nothing() -> None:
    net = Net()
    before = to_np(net.blocks[0].fc.weight).copy()
    sd = {k: v.clone() * 0 for k, v in net.state_dict().items()}
    sd["head.1.weight"] = tt.zeros(7)
    with pytest.raises(RuntimeError):
        net.load_state_dict(sd)
    np.testing.assert_array_equal(to_np(net.blocks[0].fc.weight), before)


def test_assignment_rules() -> None:
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        m.weight = tt.zeros(2, 2)
    m.bias = None
    assert m.bias is None and [n for n, _ in m.named_parameters()] == ["weight"]
    with pytest.raises(AttributeError, match=r"before Module\.__init__"):

        class Early(nn.Module):
            def __init__(self) -> None:
                self.p = nn.Parameter(tt.ones(1))

        Early()
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("weight", tt.zeros(1))
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = m.nope
    del m.weight
    assert list(m.parameters()) == []


def test_parameter_is_a_detached_alias_that_requires_grad() -> None:
    t = tt.randn(3)
    p = nn.Parameter(t)
    assert isinstance(p, tt.Tensor) and p.requires_grad and not t.requires_grad
    assert p._shares_storage(t)
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:")
    with pytest.raises(TypeError, match="expected a Tensor"):
        nn.Parameter([1.0])  # type: ignore[arg-type]


def test_train_eval_apply_zero_grad_requires_grad() -> None:
    net = Net()
    net.eval()
    assert all(not m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    seen: list[str] = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen.count("Block") == 2
    for p in net.parameters():
        p.grad = tt.ones_like(p)
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_to_keeps_identity_for_noops_and_casts_floating_tensors() -> None:
    net = Net()
    w = net.head[1].weight
    assert net.to("cpu") is net and net.head[1].weight is w
    assert net.cpu().head[1].weight is w
    net.double()
    assert net.head[1].weight.dtype == tt.float64 and isinstance(net.head[1].weight, nn.Parameter)
    assert net.blocks[0].norm.num_batches_tracked.dtype == tt.int64  # integer buffers keep their dtype
    assert net.head[1].weight.requires_grad
    with pytest.raises(TypeError, match="floating point"):
        net.to(tt.int64)
    out = net(tt.randn(5, 3, dtype=tt.float64))
    assert out.dtype == tt.float64


def test_containers() -> None:
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert isinstance(seq[:2], nn.Sequential) and len(seq[:2]) == 2
    with pytest.raises(IndexError):
        seq[3]
    ml = nn.ModuleList([nn.ReLU()])
    ml.append(nn.Tanh()).extend([nn.Identity()])
    ml.insert(0, nn.Sigmoid())
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "ReLU", "Tanh", "Identity"]
    del ml[1]
    assert [n for n, _ in ml.named_children()] == ["0", "1", "2"]
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.Linear(1, 2)
    assert list(md) == ["a", "b"] and "b" in md and len(md) == 2
    assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias", "b.weight", "b.bias"]
    from collections import OrderedDict

    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in named.named_parameters()] == ["fc.weight", "fc.bias"]


def test_deepcopy_gives_independent_parameters() -> None:
    net = Net()
    twin = copy.deepcopy(net)
    assert isinstance(twin.head[1].weight, nn.Parameter)
    with tt.no_grad():
        twin.head[1].weight.fill_(0)
    assert float(net.head[1].weight.abs().sum()) > 0


def test_repr_looks_like_torch() -> None:
    text = repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
    assert text == "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)"


def test_forward_is_required() -> None:
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


def _frozen_batch_norm(lib: Any) -> Any:
    """torchvision's FrozenBatchNorm2d (ops/misc.py) loading step: a BatchNorm2d checkpoint's
    ``num_batches_tracked`` is dropped before the module reads its entries."""

    class FrozenBatchNorm2d(lib.nn.Module):
        def __init__(self, n: int) -> None:
            super().__init__()
            self.register_buffer("weight", lib.ones(n))
            self.register_buffer("bias", lib.zeros(n))
            self.register_buffer("running_mean", lib.zeros(n))
            self.register_buffer("running_var", lib.ones(n))

        def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                                  missing_keys: Any, unexpected_keys: Any, error_msgs: Any) -> None:
            num_batches_tracked_key = prefix + "num_batches_tracked"
            if num_batches_tracked_key in state_dict:
                del state_dict[num_batches_tracked_key]
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

    return FrozenBatchNorm2d


def _renaming_linear(lib: Any) -> Any:
    """A layer that still reads an older checkpoint's name for its weight (``w``)."""

    class Renaming(lib.nn.Linear):
        def _load_from_state_dict(self, state_dict: Any, prefix: str, *args: Any) -> None:
            if prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, *args)

    return Renaming


@pytest.mark.parametrize("lib_name", ["torch", "typedtensor"])
def test_load_state_dict_lets_a_module_read_its_own_entries(lib_name: str) -> None:
    """``_load_from_state_dict`` overrides, as torch calls them: per module, with the entries
    under its prefix; what one drops is neither loaded nor unexpected, what one renames loads."""
    lib = pytest.importorskip("torch") if lib_name == "torch" else tt
    bn = lib.nn.BatchNorm2d(3)
    with lib.no_grad():
        bn.running_mean.fill_(0.5)
    net = lib.nn.Sequential(_frozen_batch_norm(lib)(3), _renaming_linear(lib)(2, 2))
    sd = {f"0.{k}": v for k, v in bn.state_dict().items()}
    sd["1.w"] = lib.full((2, 2), 3.0)
    sd["1.bias"] = lib.zeros(2)
    result = net.load_state_dict(sd)  # strict: num_batches_tracked is not unexpected
    assert (result.missing_keys, result.unexpected_keys) == ([], [])
    assert to_np(net[0].running_mean).tolist() == [0.5, 0.5, 0.5]
    assert to_np(net[1].weight).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert "0.num_batches_tracked" in sd and "1.w" in sd  # the caller's dict is left as it was
    with pytest.raises(RuntimeError, match=r"size mismatch for 1\.bias"):
        net.load_state_dict({**sd, "1.bias": lib.zeros(5)})
    # called on its own, outside load_state_dict, the step copies at once
    missing: list[str] = []
    net[1]._load_from_state_dict({"1.weight": lib.zeros(2, 2)}, "1.", {}, True, missing, [], [])
    assert missing == ["1.bias"]
    assert to_np(net[1].weight).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_an_overridden_load_step_still_copies_nothing_when_a_check_fails() -> None:
    net = tt.nn.Sequential(_frozen_batch_norm(tt)(3), tt.nn.Linear(2, 2))
    sd = {"0.weight": tt.full((3,), 2.0), "0.bias": tt.zeros(3), "0.running_mean": tt.zeros(3),
          "0.running_var": tt.ones(3), "1.weight": tt.zeros(2, 2), "1.bias": tt.zeros(7)}
    with pytest.raises(RuntimeError, match=r"size mismatch for 1\.bias"):
        net.load_state_dict(sd)
    assert to_np(net[0].weight).tolist() == [1.0, 1.0, 1.0]


def test_a_module_reached_twice_loads_from_either_path() -> None:
    shared = tt.nn.Linear(2, 2)
    net = tt.nn.Sequential(shared, tt.nn.ReLU(), shared)
    assert list(net.state_dict()) == ["0.weight", "0.bias"]  # listed once, under its first path
    assert net.load_state_dict({"0.weight": tt.ones(2, 2), "0.bias": tt.zeros(2)}) == ([], [])
    # torch lists it under both paths: both load (the later wins), nothing unexpected
    both = {"0.weight": tt.ones(2, 2), "0.bias": tt.zeros(2), "2.weight": tt.full((2, 2), 4.0), "2.bias": tt.zeros(2)}
    assert net.load_state_dict(both) == ([], [])
    assert to_np(shared.weight).tolist() == [[4.0, 4.0], [4.0, 4.0]]
