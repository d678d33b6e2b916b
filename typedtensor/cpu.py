"""``typedtensor.cpu``: the CPU device module, as ``torch.cpu`` (its ``amp`` holds torch's deprecated
``torch.cpu.amp`` spellings)."""

from __future__ import annotations

from typing import Any

__all__ = ["current_device", "device_count", "is_available", "synchronize"]


def is_available() -> bool:
    """Always True: the CPU backend is always built."""
    return True


def device_count() -> int:
    """Always 1, as torch.cpu."""
    return 1


def current_device() -> str:
    """Always ``"cpu"``, as torch.cpu."""
    return "cpu"


def synchronize(device: Any = None) -> None:
    """A no-op: CPU work is synchronous."""


def __getattr__(name: str) -> Any:
    if name == "amp":
        import typedtensor.amp.cpu as amp

        return amp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
