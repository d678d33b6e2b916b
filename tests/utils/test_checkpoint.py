"""``typedtensor.utils.checkpoint.checkpoint`` against torch's: the same output, the same ``.grad``
for the parameters inside the checkpointed function and for its inputs, the function run again in
the backward pass (its activations were not kept), and the same random draws on that second run."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor.utils.checkpoint as tt_cp

torch = pytest.importorskip("torch")
torch_cp = pytest.importorskip("torch.utils.checkpoint")


def _pair(seed: int = 0) -> tuple[Any, Any]:
    """A small conv block on both libraries, with torch's weights in both."""
    torch.manual_seed(seed)
    ref = torch.nn.Sequential(torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.Conv2d(4, 6, 3, padding=1))
    ours = tt.nn.Sequential(tt.nn.BatchNorm2d(4), tt.nn.ReLU(), tt.nn.Conv2d(4, 6, 3, padding=1))
    ours.load_state_dict({k: tt.from_numpy(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})
    return ref, ours


@pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad=True")
@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_values_and_gradients_are_torchs(use_reentrant: bool, input_requires_grad: bool) -> None:
    ref, ours = _pair()
    x = np.random.default_rng(0).standard_normal((2, 4, 5, 5)).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_(input_requires_grad)
    ox = tt.from_numpy(x).requires_grad_(input_requires_grad)
    calls = []

    def counted(block: Any) -> Any:
        def run(inp: Any) -> Any:
            calls.append(type(inp).__module__)
            return block(inp)
        return run

    t_out = torch_cp.checkpoint(counted(ref), tx, use_reentrant=use_reentrant)
    o_out = tt_cp.checkpoint(counted(ours), ox, use_reentrant=use_reentrant)
    np.testing.assert_allclose(o_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert o_out.requires_grad == t_out.requires_grad
    if not t_out.requires_grad:  # the reentrant form with no input that requires grad: no gradients at all
        assert use_reentrant and not input_requires_grad and len(calls) == 2
        assert all(p.grad is None for p in ours.parameters())
        return
    (t_out * t_out).sum().backward()
    (o_out * o_out).sum().backward()
    assert len(calls) == 4  # each library ran the block twice: forward, then again in backward
    for (name, tp), (_, op) in zip(ref.named_parameters(), ours.named_parameters(), strict=True):
        np.testing.assert_allclose(op.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    if input_requires_grad:
        np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    else:
        assert ox.grad is None
    # BatchNorm ran twice in train mode in both libraries: its statistics moved twice
    np.testing.assert_allclose(ours[0].running_mean.numpy(), ref[0].running_mean.numpy(), rtol=1e-5, atol=1e-6)
    assert int(ours[0].num_batches_tracked.item()) == int(ref[0].num_batches_tracked.item()) == 2


@pytest.mark.parametrize("lib,cp", [(torch, torch_cp), (tt, tt_cp)], ids=["torch", "typedtensor"])
def test_without_use_reentrant_it_warns_and_is_reentrant(lib: Any, cp: Any) -> None:
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        out = cp.checkpoint(lambda a: a * 2, lib.ones(2, requires_grad=True))
    assert out.requires_grad
    with (
        pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"),
        pytest.raises(ValueError, match="Unexpected keyword arguments"),
    ):
        cp.checkpoint(lambda a, by: a * by, lib.ones(2), by=2)


def test_gradients_equal_the_uncheckpointed_run_and_reach_earlier_layers() -> None:
    _, ours = _pair()
    first = tt.nn.Linear(5, 5)
    x = tt.from_numpy(np.random.default_rng(1).standard_normal((2, 4, 5, 5)).astype(np.float32))
    grads = []
    for use in (False, True):
        first.zero_grad()
        ours.zero_grad()
        h = first(x)  # the checkpointed block's input requires grad through ``first``
        out = tt_cp.checkpoint(ours, h, use_reentrant=False) if use else ours(h)
        out.pow(2).mean().backward()
        grads.append([p.grad.numpy().copy() for p in (*first.parameters(), *ours.parameters())])
    for plain, checked in zip(*grads, strict=True):
        np.testing.assert_allclose(checked, plain, rtol=1e-5, atol=1e-7)


def test_the_recomputation_draws_the_same_dropout_mask() -> None:
    lin = tt.nn.Linear(8, 8)
    x = tt.ones(4, 8, requires_grad=True)
    tt.manual_seed(3)
    plain = tt.nn.functional.dropout(lin(x), 0.5)
    plain.sum().backward()
    want = (lin.weight.grad.numpy().copy(), x.grad.numpy().copy())
    lin.zero_grad()
    x.grad = None
    tt.manual_seed(3)
    out = tt_cp.checkpoint(lambda a: tt.nn.functional.dropout(lin(a), 0.5), x, use_reentrant=False)
    np.testing.assert_array_equal(out.detach().numpy(), plain.detach().numpy())
    after_forward = tt.rand(1).item()
    out.sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), want[0], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), want[1], rtol=1e-6)
    tt.manual_seed(3)
    tt.nn.functional.dropout(lin(x), 0.5)
    assert tt.rand(1).item() == after_forward  # the recomputation left the generator where it was


def test_keyword_arguments_need_use_reentrant_false_and_no_grad_just_runs() -> None:
    def scaled(a: Any, *, by: float) -> Any:
        return a * by

    x = tt.ones(3, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: by"):
        tt_cp.checkpoint(scaled, x, by=2.0, use_reentrant=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: by"):
        torch_cp.checkpoint(scaled, torch.ones(3, requires_grad=True), by=2.0, use_reentrant=True)
    tt_cp.checkpoint(scaled, x, by=2.0, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    with tt.no_grad():
        out = tt_cp.checkpoint(scaled, x, by=3.0, use_reentrant=False)
    assert not out.requires_grad
    np.testing.assert_array_equal(out.numpy(), [3.0, 3.0, 3.0])
