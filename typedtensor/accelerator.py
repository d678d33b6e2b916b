"""``typedtensor.accelerator``: torch 2.13's device-neutral API (``torch.accelerator``) over the one
accelerator typedtensor has, CUDA.

``current_accelerator()`` names the accelerator this build was compiled for (``device("cuda")``),
available or not, as torch's does; ``current_accelerator(check_available=True)`` and
``is_available()`` say whether a device can be used now. The calls that act on a device raise
torch's RuntimeError when none is available. One device is supported: its index is 0.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from typedtensor._runtime import _C
from typedtensor._runtime import cuda as _cuda

__all__ = [
    "current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
    "device_index", "empty_cache", "get_device_capability", "is_available", "max_memory_allocated",
    "memory_allocated", "memory_reserved", "reset_peak_memory_stats", "set_device_idx", "set_device_index",
    "set_stream", "synchronize",
]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """True when an accelerator device can be used now."""
    return _cuda.is_available()


def current_accelerator(check_available: bool = False) -> Any:
    """``device("cuda")`` in a build with CUDA (``None`` otherwise, or when ``check_available`` and no device)."""
    if not _cuda.is_built() or (check_available and not is_available()):
        return None
    return _C.device("cuda")


def device_count() -> int:
    """Number of accelerator devices (0 without one)."""
    return _cuda.device_count()


def _require() -> None:
    if not is_available():
        raise RuntimeError(_NONE_AVAILABLE)


def current_device_index() -> int:
    _require()
    return 0


current_device_idx = current_device_index


def set_device_index(device: Any) -> None:
    """Select the device; typedtensor drives device 0 only."""
    _require()
    index = device if isinstance(device, int) else getattr(device, "index", None)
    if index not in (None, 0, -1):
        raise RuntimeError(f"typedtensor uses one accelerator device (index 0), got index {index}")


set_device_idx = set_device_index


@contextlib.contextmanager
def device_index(device: Any) -> Iterator[None]:
    """Run the block on ``device`` (``None``: no change); with one device there is nothing to switch."""
    if device is not None:
        set_device_index(device)
    yield


def synchronize(device: Any = None) -> None:
    """Wait for every queued kernel."""
    _require()
    _cuda.synchronize()


def current_stream(device: Any = None) -> Any:
    raise NotImplementedError("typedtensor.accelerator.current_stream: streams are not exposed (one default stream)")


def set_stream(stream: Any) -> None:
    raise NotImplementedError("typedtensor.accelerator.set_stream: streams are not exposed (one default stream)")


def get_device_capability(device: Any = None) -> dict[str, Any]:
    _require()
    return {"supported_dtypes": [_C.float32, _C.float64, _C.float16, _C.bfloat16, _C.int32, _C.int64, _C.uint8, _C.bool]}


def empty_cache() -> None:
    """Return the caching allocator's unused blocks to the driver."""
    _require()
    _cuda.empty_cache()


def memory_allocated(device: Any = None) -> int:
    _require()
    return _cuda.memory_allocated()


def max_memory_allocated(device: Any = None) -> int:
    _require()
    return _cuda.max_memory_allocated()


def memory_reserved(device: Any = None) -> int:
    _require()
    return _cuda.memory_reserved()


def reset_peak_memory_stats(device: Any = None) -> None:
    _require()
    _cuda.reset_peak_memory_stats()
