from collections.abc import Sequence
from typing import Any

from typedtensor.nn import Module

class DataParallel(Module):
    module: Module
    device_ids: list[Any]
    output_device: Any
    dim: int
    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None, output_device: Any = None, dim: int = 0) -> None: ...
    def forward(self, *inputs: Any, **kwargs: Any) -> Any: ...

class DistributedDataParallel(Module):
    def __init__(self, module: Module, *args: Any, **kwargs: Any) -> None: ...

def data_parallel(
    module: Module, inputs: Any, device_ids: Sequence[Any] | None = None, output_device: Any = None, dim: int = 0,
    module_kwargs: dict[str, Any] | None = None,
) -> Any: ...
