"""The device plumbing on a host-emulated CUDA device (no GPU needed): every runtime op of the
registry runs on "cuda" tensors through the real dispatch (device checks, CPU-scalar uploads,
device= creation, host fallbacks) and matches the CPU; ops without a CUDA kernel are exactly
typedtensor.cuda.CPU_ONLY_OPS. On a GPU, test_cuda.py runs the same sweep on the device."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import typedtensor._runtime as tt
from tests.backend.cuda_cases import CASES, HOST_CREATION
from tests.backend.cuda_sweep import compare_case, conv_grads, mlp_losses, nn_losses
from typedtensor._runtime import functional as F
from typedtensor._runtime.cuda import CPU_ONLY_OPS, HOST_FALLBACK_OPS
from typedtensor.shapes.registry import REGISTRY

SPECIAL = {"index": "__getitem__", "index_put": "__setitem__", "fill": "fill_", "zero": "zero_"}


def implemented(op: str) -> bool:
    name = SPECIAL.get(op, op)
    return hasattr(tt, name) or hasattr(tt.Tensor, name) or hasattr(F, name)


@pytest.fixture
def emulated() -> Iterator[None]:
    if tt.cuda.is_available():
        pytest.skip("a real CUDA device is present: test_cuda.py covers it")
    tt._C._testing_emulate_cuda(True)
    try:
        yield
    finally:
        tt._C._testing_emulate_cuda(False)


def test_every_runtime_registry_op_is_swept_or_cpu_only() -> None:
    runtime_ops = {op for op in REGISTRY if implemented(op)}
    unclassified = runtime_ops - set(CASES) - CPU_ONLY_OPS
    assert not unclassified, f"registry ops with neither a CUDA sweep case nor a CPU_ONLY_OPS entry: {sorted(unclassified)}"
    assert not (CPU_ONLY_OPS & set(CASES))
    assert set(REGISTRY) >= CPU_ONLY_OPS, sorted(CPU_ONLY_OPS - set(REGISTRY))
    assert HOST_CREATION <= CPU_ONLY_OPS
    for op in HOST_FALLBACK_OPS:
        assert op in REGISTRY or hasattr(tt, op) or hasattr(tt.Tensor, op), op


@pytest.mark.parametrize("op", sorted(CASES))
def test_op_on_emulated_cuda_matches_cpu(op: str, emulated: None) -> None:
    compare_case(op, "cuda")


def test_cpu_only_ops_refuse_cuda_tensors(emulated: None) -> None:
    x = tt.ones(3).cuda()
    with pytest.raises((TypeError, RuntimeError)):
        tt.from_dlpack(x)
    assert tt.from_numpy(x.cpu().numpy()).device.type == "cpu"


def test_mixing_devices_names_both(emulated: None) -> None:
    a, b = tt.ones(3), tt.ones(3).cuda()
    for fn in (lambda: a + b, lambda: tt.matmul(tt.ones(2, 3), tt.ones(3, 2).cuda()), lambda: tt.where(b > 0, a, b),
               lambda: tt.cat([a, b])):
        with pytest.raises(RuntimeError, match="expected all tensors on the same device, got cpu and cuda:0"):
            fn()


def test_cpu_scalars_mix_with_cuda_tensors(emulated: None) -> None:
    b = tt.arange(4.0).cuda()
    for r in (b + 1.5, 2 * b, b + tt.tensor(3.0), tt.tensor(3.0) - b, b.clamp(0.5, 2.0), tt.where(b > 1, b, 0.0)):
        assert r.device.type == "cuda"
    assert (tt.tensor(3.0) - b).tolist() == [3.0, 2.0, 1.0, 0.0]


def test_copy_across_devices_and_round_trip(emulated: None) -> None:
    x = tt.arange(12.0).reshape(3, 4)
    c = x.t().cuda()  # non-contiguous source
    assert c.device == tt.device("cuda:0") and c.is_contiguous()
    assert c.cpu().tolist() == x.t().tolist()
    dst = tt.zeros(4, 3)
    dst.copy_(c)  # cuda -> cpu through copy_
    assert dst.tolist() == x.t().tolist()
    d2 = tt.zeros(4, 3).cuda()
    d2.copy_(x.t())  # cpu -> cuda
    assert d2.tolist() == x.t().tolist()
    assert x.to("cuda", tt.float64).dtype == tt.float64
    other = tt.zeros(1, dtype=tt.float64).cuda()
    moved = x.to(other)  # other's dtype and device
    assert moved.dtype == tt.float64 and moved.is_cuda


def test_numpy_of_cuda_tensor_raises_like_torch(emulated: None) -> None:
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        tt.ones(2).cuda().numpy()
    assert "device='cuda:0'" in repr(tt.ones(2).cuda())


def test_training_on_emulated_cuda_matches_cpu(emulated: None) -> None:
    """Autograd on device tensors: seeds, VJP allocations and grads stay on the device."""
    if not hasattr(tt.Tensor, "backward"):
        pytest.skip("autograd is not in this build")
    np.testing.assert_allclose(mlp_losses("cuda"), mlp_losses("cpu"), rtol=1e-6)
    for a, b in zip(conv_grads("cpu"), conv_grads("cuda"), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def test_nn_modules_and_adam_on_emulated_cuda_match_cpu(emulated: None) -> None:
    """Modules moved with .to("cuda") and optimizer state stay on the device."""
    np.testing.assert_allclose(nn_losses("cuda"), nn_losses("cpu"), rtol=1e-5)
