"""``typedtensor.backends``: backend switches, spelled like torch's.

``typedtensor.backends.cuda.matmul.allow_tf32`` (default False) lets cuBLAS run float32 matmuls
on TF32 tensor cores: about 8x the FP32 rate on an H100, with 10-bit mantissas in the products.

``typedtensor.backends.cpu`` controls the caching allocator that keeps freed CPU buffers of 64 KB
and more for reuse, which saves re-mapping (and page-faulting) a result every call: ``cache_info()``,
``empty_cache()``, ``set_cache_limit(bytes)`` (0 disables it; the default is 256 MB, or
``$TYPEDTENSOR_CPU_CACHE_MB``).
``get_cpu_capability()`` says which build of the unary math kernels runs: ``"avx512"`` on CPUs
that have it (twice the lanes of the ``"avx2"`` baseline), switched with
``set_cpu_capability(name)`` or, before import, ``TYPEDTENSOR_CPU_CAPABILITY=avx2``.
``get_blas()`` says which BLAS runs float matrix products: ``"openblas"`` (always there) or
``"mkl"`` (on Intel CPUs where the ``mkl`` wheel is installed: ``pip install typedtensor[mkl]``);
``set_blas(name)`` or, before import, ``TYPEDTENSOR_BLAS=openblas|mkl|auto`` overrides the choice.
"""

from __future__ import annotations

import warnings
from typing import Any

from typedtensor._runtime import _loader

__all__ = ["cpu", "cuda"]

_C = _loader.load_core()


_PRECISIONS = ("highest", "high", "medium")  # the backend's MatmulPrecision, in its order


def set_float32_matmul_precision(precision: str) -> None:
    """torch's: ``"highest"`` (the default) multiplies float32 in float32; ``"high"`` lets cuBLAS use
    TF32 tensor cores; ``"medium"`` also rounds float32 operands to bfloat16 for the CPU's bfloat16
    GEMM where the BLAS has one (NOTE [ float32 matmul precision ] in backend/src/cpu/gemm.cpp).
    Another string warns and changes nothing, as torch's does."""
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", UserWarning, stacklevel=2)
        return
    _C._set_float32_matmul_precision(_PRECISIONS.index(precision))


def get_float32_matmul_precision() -> str:
    return _PRECISIONS[int(_C._float32_matmul_precision())]


class _Matmul:
    """``allow_tf32`` is the float32 matmul precision seen from CUDA, as torch's: True is ``"high"``
    (or ``"medium"``), and setting it sets the precision to ``"high"`` or ``"highest"``."""

    @property
    def allow_tf32(self) -> bool:
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        set_float32_matmul_precision("high" if value else "highest")

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "allow_tf32":
            raise AttributeError(f"typedtensor.backends.cuda.matmul has no setting {name!r}")
        object.__setattr__(self, name, value)


class _Cuda:
    def __init__(self) -> None:
        self.matmul = _Matmul()

    def is_built(self) -> bool:
        return bool(_C._cuda_compiled())


cuda = _Cuda()


class _Cpu:
    """The caching allocator (NOTE [ CPU caching allocator ] in backend/src/core/cpu_allocator.cpp) and the
    instruction set of the unary math kernels (backend/src/cpu/cpu_capability.cpp)."""

    def get_cpu_capability(self) -> str:
        """``"avx512"``, ``"avx2"`` or ``"default"``, like ``torch.backends.cpu``'s."""
        return str(_C._cpu_capability())

    def set_cpu_capability(self, name: str) -> None:
        """Runs the unary kernels built for ``"avx2"`` or ``"avx512"`` (results agree to an ulp
        or two; the switch exists to compare them and to rule the wide kernels out)."""
        _C._cpu_set_capability(str(name))

    def get_blas(self) -> str:
        """``"openblas"`` or ``"mkl"`` (NOTE [ BLAS by CPU ] in backend/src/cpu/blas_select.cpp)."""
        return str(_C._cpu_blas())

    def blas_available(self) -> list[str]:
        """The BLAS libraries this machine can run: ``"openblas"``, and ``"mkl"`` where installed."""
        return [str(n) for n in _C._cpu_blas_available()]

    def blas_has_bf16_gemm(self) -> bool:
        """Whether bfloat16 matrix products run natively on the BLAS in use (MKL's bfloat16 GEMM,
        on AMX where the CPU has it); otherwise matmul widens bfloat16 to float32, multiplies and
        rounds back (NOTE [ bfloat16 GEMM ] in backend/src/cpu/gemm.cpp). Results agree either
        way to bfloat16's rounding."""
        return bool(_C._cpu_blas_has_bf16_gemm())

    def set_blas(self, name: str) -> None:
        """``"openblas"``, ``"mkl"`` (an error where it cannot be loaded) or ``"auto"`` (MKL on
        Intel CPUs where it is installed, else OpenBLAS)."""
        _C._cpu_set_blas(str(name))

    def cache_info(self) -> dict[str, int]:
        """Bytes and buffers held, hits and misses (allocations of 64 KB and more) since start, and
        the limit in bytes."""
        return {str(k): int(v) for k, v in _C._cpu_cache_info().items()}

    def empty_cache(self) -> None:
        """Returns every cached buffer to the operating system."""
        _C._cpu_cache_empty()

    def set_cache_limit(self, nbytes: int) -> None:
        """Caps the bytes the cache may hold, releasing what is held above it; 0 disables the
        cache and frees what it holds."""
        if nbytes < 0:
            raise ValueError(f"cache limit must be non-negative, got {nbytes}")
        _C._cpu_cache_set_limit(int(nbytes))


cpu = _Cpu()
