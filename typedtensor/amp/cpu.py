"""``typedtensor.cpu.amp``: torch's deprecated ``torch.cpu.amp`` spellings, bound to device ``"cpu"``."""

from __future__ import annotations

from . import grad_scaler
from ._deprecated import warn_deprecated

__all__ = ["GradScaler"]


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
