"""``typedtensor.backends.cuda``: ``matmul.allow_tf32`` (cuBLAS on TF32 tensor cores) and ``is_built()``."""

from __future__ import annotations

from typedtensor._runtime import backends as _backends

matmul = _backends.cuda.matmul


def is_built() -> bool:
    """True when this build contains the CUDA backend."""
    return _backends.cuda.is_built()


__all__ = ["is_built", "matmul"]
