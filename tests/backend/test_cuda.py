"""The CUDA backend on a real GPU: every op against the CPU backend and torch, kernel paths that only
large or odd inputs reach, the caching allocator, device errors, seeding, cuBLAS/TF32, and a training
step on the GPU matching the CPU. Skipped without a device (``pytest -m cuda`` selects these)."""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt
from tests.backend.cuda_cases import CASES, data, to_host
from tests.backend.cuda_sweep import compare_case, conv_grads, mlp_losses, nn_losses
from typedtensor._runtime import functional as F

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not tt.cuda.is_available(), reason="no CUDA device")]

torch: Any = None
try:
    import torch as _torch

    torch = _torch
except ImportError:
    pass

TDEV = "cuda" if torch is not None and torch.cuda.is_available() else "cpu"


def close(ours: Any, ref: Any, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    a = to_host(ours)
    b = ref.detach().cpu().numpy() if hasattr(ref, "detach") else np.asarray(ref)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


# ---------------- every op: cuda vs the CPU backend ----------------
@pytest.mark.parametrize("op", sorted(CASES))
def test_op_on_cuda_matches_cpu(op: str) -> None:
    compare_case(op, "cuda", rtol=2e-4, atol=2e-5)


# ---------------- against torch, with sizes that reach every kernel path ----------------
needs_torch = pytest.mark.skipif(torch is None, reason="torch is the oracle")


@needs_torch
@pytest.mark.parametrize("n", [1, 3, 4, 1023, 4096 + 3, 1 << 22])
def test_elementwise_vectorised_and_tail_paths(n: int) -> None:
    x = data(n)
    for fn in ("exp", "tanh", "sigmoid", "gelu"):
        ours = getattr(F, fn, getattr(tt, fn, None))(tt.tensor(x, device="cuda"))
        ref = getattr(torch.nn.functional, fn, getattr(torch, fn, None))(torch.tensor(x, device=TDEV))
        close(ours, ref, 1e-5, 1e-6)
    # misaligned start (offset view) takes the scalar path
    a = tt.tensor(x, device="cuda")[1:]
    close(a * 2 + 1, torch.tensor(x)[1:] * 2 + 1)


@needs_torch
@pytest.mark.parametrize("shape,dim", [((7, 1 << 20), -1), ((1 << 22,), 0), ((3, 5000, 7), 1), ((2, 3, 4, 5), (0, 2)),
                                       ((100000, 3), 0), ((64, 1000), -1)])
def test_reductions_long_rows_split_and_columns(shape: Any, dim: Any) -> None:
    x = data(*shape)
    t, tx = tt.tensor(x, device="cuda"), torch.tensor(x, device=TDEV, dtype=torch.float64)
    close(t.sum(dim), tx.sum(dim), 1e-4, 1e-2)
    close(t.mean(dim), tx.mean(dim), 1e-4, 1e-5)
    close(t.amax(dim), tx.amax(dim))
    close(t.var(dim), tx.var(dim), 1e-4, 1e-4)
    if isinstance(dim, int):
        assert to_host(t.argmax(dim)).tolist() == tx.argmax(dim).cpu().tolist()
        close(tt.logsumexp(t, dim), torch.logsumexp(tx, dim), 1e-5, 1e-5)


@needs_torch
def test_reduction_nan_and_ties() -> None:
    x = np.array([[1.0, 3.0, 3.0, np.nan, 2.0], [5.0, 5.0, 1.0, 0.0, 5.0]], np.float32)
    t, tx = tt.tensor(x, device="cuda"), torch.tensor(x)
    assert to_host(t.argmax(1)).tolist() == tx.argmax(1).tolist()
    assert to_host(t.argmin(1)).tolist() == tx.argmin(1).tolist()
    close(t.amax(1), tx.amax(1))
    close(tt.nansum(t, 1), torch.nansum(tx, 1))


@needs_torch
@pytest.mark.parametrize("r", [1, 31, 1024, 1025, 50000])
def test_softmax_layer_norm_warp_and_block_rows(r: int) -> None:
    x = data(37, r) * 4
    t, tx = tt.tensor(x, device="cuda"), torch.tensor(x, device=TDEV)
    close(tt.softmax(t, -1), torch.softmax(tx, -1), 1e-4, 1e-6)
    close(tt.log_softmax(t, -1), torch.log_softmax(tx, -1), 1e-4, 1e-4)
    w, b = data(r), data(r)
    close(F.layer_norm(t, (r,), tt.tensor(w, device="cuda"), tt.tensor(b, device="cuda")),
          torch.nn.functional.layer_norm(tx, (r,), torch.tensor(w, device=TDEV), torch.tensor(b, device=TDEV)),
          1e-4, 1e-4)
    m = np.full((2, r), -np.inf, np.float32)
    m[:, 0] = 0.0
    close(tt.softmax(tt.tensor(m, device="cuda"), -1), torch.softmax(torch.tensor(m), -1))


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sa,sb,ta,tb", [((64, 48), (48, 80), False, False), ((5, 1, 64, 48), (3, 48, 80), False, False),
                                         ((48, 64), (80, 48), True, True), ((1, 7), (7, 1), False, False),
                                         ((3, 0), (0, 5), False, False)])
def test_matmul_layouts_and_batches(dtype: str, sa: Any, sb: Any, ta: bool, tb: bool) -> None:
    a, b = data(*sa).astype(dtype), data(*sb).astype(dtype)
    A, B = tt.tensor(a, device="cuda"), tt.tensor(b, device="cuda")
    TA, TB = torch.tensor(a, device=TDEV), torch.tensor(b, device=TDEV)
    if ta:
        A, TA = A.mT, TA.mT
    if tb:
        B, TB = B.mT, TB.mT
    tol = 1e-4 if dtype == "float32" else 1e-10
    close(A @ B, TA.double() @ TB.double(), tol, tol)


@needs_torch
def test_tf32_is_off_by_default_and_switchable() -> None:
    a, b = data(512, 1024), data(1024, 512)
    ref = torch.tensor(a, dtype=torch.float64) @ torch.tensor(b, dtype=torch.float64)
    A, B = tt.tensor(a, device="cuda"), tt.tensor(b, device="cuda")
    assert tt.backends.cuda.matmul.allow_tf32 is False
    close(A @ B, ref, 1e-5, 1e-3)  # true float32 accuracy
    tt.backends.cuda.matmul.allow_tf32 = True
    try:
        close(A @ B, ref, 1e-2, 1e-1)  # TF32: 10-bit mantissa products
    finally:
        tt.backends.cuda.matmul.allow_tf32 = False


@needs_torch
@pytest.mark.parametrize("k,s,p,d,g", [(3, 1, 1, 1, 1), (3, 2, 0, 2, 1), (1, 1, 0, 1, 1), (5, 2, 2, 1, 4)])
def test_conv2d_against_torch(k: int, s: int, p: int, d: int, g: int) -> None:
    x, w, b = data(3, 8, 17, 13), data(12, 8 // g, k, k), data(12)
    ours = F.conv2d(tt.tensor(x, device="cuda"), tt.tensor(w, device="cuda"), tt.tensor(b, device="cuda"), s, p, d, g)
    ref = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), s, p, d, g)
    close(ours, ref, 1e-4, 1e-4)


@needs_torch
def test_index_ops_against_torch() -> None:
    x = data(50, 33)
    idx = np.random.default_rng(0).integers(0, 50, 200)
    t, tx = tt.tensor(x, device="cuda"), torch.tensor(x)
    close(tt.index_select(t, 0, tt.tensor(idx, device="cuda")), torch.index_select(tx, 0, torch.tensor(idx)))
    src = data(200, 33)
    ours = tt.zeros(50, 33, device="cuda").index_add(0, tt.tensor(idx, device="cuda"), tt.tensor(src, device="cuda"))
    close(ours, torch.zeros(50, 33).index_add(0, torch.tensor(idx), torch.tensor(src)), 1e-5, 1e-5)
    gi = np.random.default_rng(1).integers(0, 33, (50, 40))
    close(tt.gather(t, 1, tt.tensor(gi, device="cuda")), torch.gather(tx, 1, torch.tensor(gi)))
    si = np.random.default_rng(2).integers(0, 33, (50, 40))
    sv = data(50, 40)
    close(tt.scatter_add(t, 1, tt.tensor(si, device="cuda"), tt.tensor(sv, device="cuda")),
          torch.scatter_add(tx, 1, torch.tensor(si), torch.tensor(sv)), 1e-5, 1e-5)
    with pytest.raises(IndexError):
        tt.index_select(t, 0, tt.tensor([50], device="cuda"))


# ---------------- allocator ----------------
def test_caching_allocator_stats_and_reuse() -> None:
    gc.collect()
    tt.cuda.synchronize()
    tt.cuda.empty_cache()
    base, reserved0 = tt.cuda.memory_allocated(), tt.cuda.memory_reserved()
    tt.cuda.reset_peak_memory_stats()
    x = tt.empty(1 << 20, device="cuda")  # 4 MiB
    assert tt.cuda.memory_allocated() - base == 4 << 20
    reserved1 = tt.cuda.memory_reserved()
    del x
    assert tt.cuda.memory_allocated() == base
    assert tt.cuda.max_memory_allocated() >= base + (4 << 20)
    y = tt.empty(1 << 20, device="cuda")  # same bucket: served from the cache
    assert tt.cuda.memory_reserved() == reserved1
    del y
    tt.cuda.empty_cache()
    assert tt.cuda.memory_reserved() <= reserved0
    small = tt.empty(3, device="cuda")  # rounded to a 512-byte block
    assert tt.cuda.memory_allocated() - base == 512
    del small


def test_out_of_memory_is_a_clean_error() -> None:
    with pytest.raises(RuntimeError, match="CUDA out of memory"):
        tt.empty(1 << 45, dtype=tt.uint8, device="cuda")  # 32 TiB
    assert (tt.ones(3, device="cuda") + 1).tolist() == [2.0, 2.0, 2.0]  # still usable


# ---------------- devices ----------------
def test_devices_and_errors() -> None:
    x = tt.ones(2, 3, device="cuda")
    assert x.is_cuda and x.device == tt.device("cuda", 0) and str(x.device) == "cuda:0"
    assert x.cuda() is not None and x.to("cuda:0").device == x.device and x.cpu().device.type == "cpu"
    with pytest.raises(RuntimeError, match="expected all tensors on the same device, got cpu and cuda:0"):
        x + tt.ones(2, 3)
    with pytest.raises(RuntimeError, match="expected all tensors on the same device"):
        tt.matmul(tt.ones(2, 3), tt.ones(3, 2, device="cuda"))
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.numpy()
    with pytest.raises(RuntimeError):
        x.to(f"cuda:{tt.cuda.device_count()}")
    assert (x + 1.5).device == x.device and (tt.tensor(2.0) * x).device == x.device
    assert x.sum().item() == 6.0 and x.tolist() == [[1.0] * 3] * 2
    assert "device='cuda:0'" in repr(x)


# ---------------- random ----------------
def test_seeding_reproduces_device_streams() -> None:
    tt.manual_seed(123)
    a = tt.randn(10000, device="cuda")
    b = tt.rand(100, device="cuda")
    tt.manual_seed(123)
    assert to_host(tt.randn(10000, device="cuda")).tolist() == to_host(a).tolist()
    assert to_host(tt.rand(100, device="cuda")).tolist() == to_host(b).tolist()
    tt.cuda.manual_seed(7)
    c = to_host(tt.rand(1000, device="cuda"))
    assert not np.array_equal(c[:100], to_host(b))
    h = to_host(a)
    assert abs(h.mean()) < 0.05 and abs(h.std() - 1) < 0.05
    r = to_host(tt.randint(3, 9, (10000,), device="cuda"))
    assert r.min() == 3 and r.max() == 8
    d = to_host(F.dropout(tt.ones(100000, device="cuda"), 0.3, True))
    assert abs((d == 0).mean() - 0.3) < 0.02


# ---------------- training on the GPU ----------------
def test_mlp_training_step_matches_cpu() -> None:
    if not hasattr(tt.Tensor, "backward"):
        pytest.skip("autograd is not in this build")
    cpu = mlp_losses("cpu")
    gpu = mlp_losses("cuda")
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-5)
    assert gpu[-1] < gpu[0]


def test_conv_net_gradients_match_cpu() -> None:
    if not hasattr(tt.Tensor, "backward"):
        pytest.skip("autograd is not in this build")
    for a, b in zip(conv_grads("cpu"), conv_grads("cuda"), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_nn_modules_and_adam_match_cpu() -> None:
    np.testing.assert_allclose(nn_losses("cuda"), nn_losses("cpu"), rtol=1e-4, atol=1e-5)


def test_set_device_selects_device_zero_as_torch() -> None:
    for device in (0, "cuda:0", tt.device("cuda", 0), -1):
        tt.cuda.set_device(device)
    assert tt.cuda.current_device() == 0
    with pytest.raises(RuntimeError, match=r"invalid device ordinal|device 0 only"):
        tt.cuda.set_device(tt.cuda.device_count())
    with pytest.raises(ValueError, match="Expected a cuda device"):
        tt.cuda.set_device("cpu")


def test_bf16_supported_on_any_device_as_a_storage_type() -> None:
    """nanoGPT picks bfloat16 when ``torch.cuda.is_bf16_supported()``: bfloat16 tensors run on every
    GPU here (computed in float32), torch's "emulation"; natively never."""
    assert tt.cuda.is_bf16_supported() is True
    assert tt.cuda.is_bf16_supported(including_emulation=False) is False
    x = tt.ones(4, device="cuda", dtype=tt.bfloat16)
    assert (x * 3).float().cpu().tolist() == [3.0] * 4
