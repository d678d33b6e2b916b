"""``typedtensor.backends.openmp``: the CPU kernels are parallelised with OpenMP."""

from __future__ import annotations


def is_available() -> bool:
    return True


__all__ = ["is_available"]
