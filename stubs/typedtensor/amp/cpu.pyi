
from typedtensor import dtype

from . import autocast_mode, grad_scaler

class autocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype: dtype = ..., cache_enabled: bool = True) -> None: ...

class GradScaler(grad_scaler.GradScaler):
    def __init__(
        self,
        init_scale: float = 65536.0,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None: ...
