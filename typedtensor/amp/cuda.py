"""``typedtensor.cuda.amp``: torch's deprecated ``torch.cuda.amp`` spellings, bound to device type ``"cuda"``."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _C

from . import autocast_mode, grad_scaler
from ._deprecated import warn_deprecated

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


class autocast(autocast_mode.autocast):
    """``autocast("cuda", ...)`` (float16 by default); warns (FutureWarning) as torch's deprecated spelling does."""

    def __init__(self, enabled: bool = True, dtype: Any = _C.float16, cache_enabled: bool = True) -> None:
        warn_deprecated("cuda", "autocast")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    """``GradScaler("cuda", ...)``; warns (FutureWarning) as torch's deprecated spelling does."""

    def __init__(
        self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
        growth_interval: int = 2000, enabled: bool = True,
    ) -> None:
        warn_deprecated("cuda", "GradScaler")
        super().__init__(
            "cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
            growth_interval=growth_interval, enabled=enabled,
        )


def custom_fwd(fwd: Any = None, *, cast_inputs: Any = None) -> Any:
    """``amp.custom_fwd(..., device_type="cuda")``; deprecated, as torch's."""
    import warnings

    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. "
        "Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning, stacklevel=2,
    )
    return autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Any = None) -> Any:
    """``amp.custom_bwd(..., device_type="cuda")``; deprecated, as torch's."""
    import warnings

    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. "
        "Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning, stacklevel=2,
    )
    return autocast_mode.custom_bwd(bwd, device_type="cuda")
