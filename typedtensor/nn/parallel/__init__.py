"""``typedtensor.nn.parallel``: ``DataParallel`` runs its module on the one device typedtensor drives
(a pass-through with torch's ``module.`` state-dict prefix); ``DistributedDataParallel`` (in
``distributed.py``) averages gradients across the processes of ``typedtensor.distributed``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from typedtensor.nn.module import Module
from typedtensor.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; ``forward`` calls it on the inputs as given (one device: nothing to scatter)."""

    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device
        self.dim = dim
        if len(self.device_ids) > 1:
            raise NotImplementedError(f"DataParallel: typedtensor drives one device, got device_ids={self.device_ids}")

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


def data_parallel(
    module: Module, inputs: Any, device_ids: Sequence[Any] | None = None, output_device: Any = None, dim: int = 0,
    module_kwargs: dict[str, Any] | None = None,
) -> Any:
    """The functional form: ``module(*inputs, **module_kwargs)`` on the one device."""
    args = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*args, **(module_kwargs or {}))
