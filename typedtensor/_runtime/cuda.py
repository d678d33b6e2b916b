"""``typedtensor.cuda``: the CUDA device, its memory and its random generator.

The CUDA kernels are compiled into ``typedtensor._C`` when the build finds nvcc; the CUDA runtime
is linked statically and cuBLAS is loaded on first use, so the same module imports (and runs
everything on the CPU) on machines without a driver, a GPU or cuBLAS. ``is_available()`` then
says False and moving a tensor to ``"cuda"`` raises a RuntimeError that says why.
"""

from __future__ import annotations

import contextlib
import functools
import os
import site
import sys

from typedtensor._runtime import _loader

__all__ = [
    "CPU_ONLY_OPS",
    "HOST_FALLBACK_OPS",
    "cublas_status",
    "device_count",
    "empty_cache",
    "initial_seed",
    "is_available",
    "is_built",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "memory_allocated",
    "memory_reserved",
    "nvrtc_status",
    "reset_peak_memory_stats",
    "status",
    "synchronize",
]

_C = _loader.load_core()

# Registry ops (typedtensor.shapes registry names) that cannot run on a CUDA tensor: they build
# CPU tensors from host objects (move the result with ``.cuda()``); ``from_dlpack`` of a CUDA
# capsule raises. Every other registry op the runtime implements runs on the device
# (tests/backend/test_cuda_emulated.py checks each one; test_cuda.py does on a GPU).
CPU_ONLY_OPS: frozenset[str] = frozenset({"from_numpy", "from_dlpack"})

# Registry ops that accept CUDA tensors but compute on the host (a device->host copy, the CPU
# kernel, and a copy back): their output size depends on the data, or no kernel exists yet.
HOST_FALLBACK_OPS: frozenset[str] = frozenset({
    "nonzero", "masked_select", "sort", "argsort", "topk", "index_put", "randperm",
})


def is_built() -> bool:
    """True when this build of typedtensor contains the CUDA backend (nvcc was found)."""
    return bool(_C._cuda_compiled())


@functools.lru_cache(maxsize=1)
def device_count() -> int:
    """Number of usable CUDA devices: 0 without the CUDA backend, a driver or a device."""
    n = int(_C._cuda_device_count())
    if n:
        _C._cuda_set_cublas_search_path(os.pathsep.join(_cublas_dirs()))
    return n


def is_available() -> bool:
    """True when a CUDA device can be used."""
    return device_count() > 0


def status() -> str:
    """Why CUDA is (not) available: the CUDA runtime's status text, or the build's."""
    return str(_C._cuda_status())


def nvrtc_status() -> str:
    """Where NVRTC was loaded from, or why not: graph mode compiles its fused CUDA kernels with it
    (without it they run op by op)."""
    device_count()
    return str(_C._cuda_nvrtc_status())


def cublas_status() -> str:
    """Where cuBLAS was loaded from, or why it could not be (matmul on CUDA needs it)."""
    device_count()
    return str(_C._cuda_cublas_status())


def synchronize() -> None:
    """Wait until every queued kernel has finished (a no-op without a device)."""
    _C._cuda_synchronize()


def manual_seed(seed: int) -> None:
    """Seed the CUDA generator only (``typedtensor.manual_seed`` seeds the CPU one and this one)."""
    _C._cuda_manual_seed(int(seed))


manual_seed_all = manual_seed  # one device is supported


def initial_seed() -> int:
    return int(_C._cuda_initial_seed())


def memory_allocated() -> int:
    """Bytes held by live CUDA tensors (rounded to the allocator's block sizes)."""
    return int(_C._cuda_memory_allocated())


def max_memory_allocated() -> int:
    """Peak of ``memory_allocated()`` since start or ``reset_peak_memory_stats()``."""
    return int(_C._cuda_max_memory_allocated())


def memory_reserved() -> int:
    """Bytes obtained from the driver: live blocks plus the allocator's cache."""
    return int(_C._cuda_memory_reserved())


def reset_peak_memory_stats() -> None:
    _C._cuda_reset_peak_memory_stats()


def empty_cache() -> None:
    """Return the allocator's cached (unused) blocks to the driver."""
    _C._cuda_empty_cache()


def _cublas_dirs() -> list[str]:
    """Folders where pip puts cuBLAS and NVRTC (the nvidia-* wheels), for the run-time loaders."""
    roots = [*sys.path]
    with contextlib.suppress(AttributeError):  # some virtualenv layouts lack these
        roots += [*site.getsitepackages(), site.getusersitepackages()]
    dirs: list[str] = []
    for root in roots:
        for sub in (("nvidia", "cu13", "lib"), ("nvidia", "cublas", "lib"), ("nvidia", "cuda_nvrtc", "lib")):
            d = os.path.join(root, *sub)
            if os.path.isdir(d) and d not in dirs:
                dirs.append(d)
    return dirs
