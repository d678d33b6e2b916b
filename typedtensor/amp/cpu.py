"""``typedtensor.cpu.amp``: torch's deprecated ``torch.cpu.amp`` spellings, bound to device type ``"cpu"``."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _C

from . import autocast_mode, grad_scaler
from ._deprecated import warn_deprecated

__all__ = ["GradScaler", "autocast"]


class autocast(autocast_mode.autocast):
    """``autocast("cpu", ...)`` (bfloat16 by default); warns (FutureWarning) as torch's deprecated spelling does."""

    def __init__(self, enabled: bool = True, dtype: Any = _C.bfloat16, cache_enabled: bool = True) -> None:
        warn_deprecated("cpu", "autocast")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    """``GradScaler("cpu", ...)``; warns (FutureWarning) as torch's deprecated spelling does."""

    def __init__(
        self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
        growth_interval: int = 2000, enabled: bool = True,
    ) -> None:
        warn_deprecated("cpu", "GradScaler")
        super().__init__(
            "cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
            growth_interval=growth_interval, enabled=enabled,
        )
