"""``typedtensor.backends``: backend switches, spelled like torch's.

``typedtensor.backends.cuda.matmul.allow_tf32`` (default False) lets cuBLAS run float32 matmuls
on TF32 tensor cores: about 8x the FP32 rate on an H100, with 10-bit mantissas in the products.
"""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _loader

__all__ = ["cuda"]

_C = _loader.load_core()


class _Matmul:
    """``allow_tf32`` reads and writes the backend's flag."""

    @property
    def allow_tf32(self) -> bool:
        return bool(_C._cuda_allow_tf32())

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        _C._cuda_set_allow_tf32(bool(value))

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
