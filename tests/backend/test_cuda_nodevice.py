"""CUDA behaviour on machines without a usable GPU (this CI, a CPU-only build, no driver): the
package imports, CUDA reports unavailable with a reason, every way onto the device raises a clear
RuntimeError, and the device-mixing check still guards ops (exercised with a view that only claims
to live on cuda:0)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

import typedtensor._runtime as tt

pytestmark = pytest.mark.skipif(tt.cuda.is_available(), reason="a CUDA device is present")


def test_unavailable_reports_why() -> None:
    assert tt.cuda.is_available() is False
    assert tt.cuda.device_count() == 0
    assert isinstance(tt.cuda.status(), str) and tt.cuda.status()
    assert "no CUDA device" in tt.cuda.cublas_status() or "without CUDA" in tt.cuda.cublas_status()
    tt.cuda.synchronize()  # a no-op, not an error
    tt.cuda.empty_cache()
    assert tt.cuda.memory_allocated() == 0 and tt.cuda.max_memory_allocated() == 0


@pytest.mark.parametrize("make", [
    lambda: tt.ones(2).to("cuda"),
    lambda: tt.ones(2).to("cuda:0"),
    lambda: tt.ones(2).to(device=tt.device("cuda")),
    lambda: tt.ones(2).cuda(),
    lambda: tt.zeros(2, 3, device="cuda"),
    lambda: tt.randn(4, device="cuda"),
    lambda: tt.tensor([1.0, 2.0], device="cuda"),
    lambda: tt.arange(3, device="cuda"),
    lambda: tt.zeros_like(tt.ones(2), device="cuda"),
    lambda: tt.ones(2).to(0),  # torch: a bare index is a CUDA device (DDP programs' `.to(local_rank)`)
    lambda: tt.ones(2).to(1, tt.float64),
    lambda: tt.zeros(2, device=0),
], ids=["to", "to-index", "to-device-kw", "cuda", "zeros", "randn", "tensor", "arange", "zeros_like", "to-int",
        "to-int-dtype", "zeros-int"])
def test_moving_to_cuda_raises_clearly(make: object) -> None:
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        make()  # type: ignore[operator]


def test_a_bare_index_names_a_cuda_device_as_torch() -> None:
    import typedtensor.nn as nn

    assert tt.device(0) == tt.device("cuda:0") and tt.device(1).index == 1
    assert tt.ones(2).to(int).dtype == tt.int64  # the type int is still a dtype
    with pytest.raises(ValueError, match="Device index must not be negative"):
        tt.ones(2).to(-1)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        nn.Linear(2, 2).to(0)  # `model.to(rank)`: a CUDA move, not "expected a dtype, got int"


def test_set_device_and_current_device_as_torch_without_a_device() -> None:
    tt.cuda.set_device(-1)  # torch: a negative index leaves the device as it is
    for device in (0, "cuda:0", tt.device("cuda", 0), 1):
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            tt.cuda.set_device(device)
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        tt.cuda.set_device("cpu")
    with pytest.raises(ValueError, match="with a specified index"):
        tt.cuda.set_device("cuda")  # torch's message: no index to select
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        tt.cuda.current_device()


def test_cpu_paths_untouched() -> None:
    x = tt.arange(6.0).reshape(2, 3)
    assert x.device == tt.device("cpu") and x.to("cpu") is not None and x.cpu().tolist() == x.tolist()
    assert x.to("cpu", tt.float64).dtype == tt.float64
    assert tt.zeros(2, device="cpu").device.type == "cpu"


def test_mixing_devices_is_refused_before_any_kernel() -> None:
    fake = tt._C._testing_as_cuda(tt.ones(3))  # claims cuda:0, memory on the host
    assert fake.device == tt.device("cuda:0") and fake.is_cuda
    for fn in (lambda: tt.ones(3) + fake, lambda: fake * tt.ones(3), lambda: tt.stack([tt.ones(3), fake])):
        with pytest.raises(RuntimeError, match=r"\[\w+\] expected all tensors on the same device, got cpu and cuda:0"):
            fn()


def test_numpy_and_item_of_a_cuda_tensor() -> None:
    fake = tt._C._testing_as_cuda(tt.ones(3))
    with pytest.raises(TypeError, match=r"can.t convert cuda:0 device type tensor to numpy\. Use Tensor\.cpu\(\)"):
        fake.numpy()
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        fake.cpu()  # the copy needs the device


def test_bf16_support_without_a_device_is_false_as_torch() -> None:
    assert tt.cuda.is_bf16_supported() is False  # torch: False where CUDA is not available
    assert tt.cuda.is_bf16_supported(including_emulation=False) is False


def test_tf32_switch() -> None:
    flag = tt.backends.cuda.matmul
    assert flag.allow_tf32 is False
    flag.allow_tf32 = True
    try:
        assert flag.allow_tf32 is tt.cuda.is_built()  # a build without CUDA has nothing to switch
    finally:
        flag.allow_tf32 = False
    with pytest.raises(AttributeError):
        flag.allow_fp16 = True  # type: ignore[attr-defined]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH: the build has no CUDA backend")
def test_cuda_backend_built_and_imports_without_a_driver() -> None:
    if os.environ.get("TYPEDTENSOR_CUDA", "AUTO").upper() == "OFF":
        pytest.skip("built with TYPEDTENSOR_CUDA=OFF")
    assert tt.cuda.is_built(), "nvcc is present, so the CUDA backend should have been compiled in"
    # a fresh interpreter imports, queries and runs CPU ops with the CUDA code loaded
    code = "import typedtensor as tt; assert not tt.cuda.is_available(); print((tt.ones(2) + 1).tolist())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[2.0, 2.0]"
