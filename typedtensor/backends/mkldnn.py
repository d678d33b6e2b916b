"""``typedtensor.backends.mkldnn``: oneDNN is not used (CPU kernels are typedtensor's own and OpenBLAS);
``enabled`` is accepted like torch's flag."""

from __future__ import annotations

enabled = True


def is_available() -> bool:
    return False


__all__ = ["enabled", "is_available"]
