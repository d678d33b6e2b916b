from collections.abc import Sequence
from contextlib import AbstractContextManager
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
    module: Module
    device_ids: Any
    output_device: Any
    dim: int
    broadcast_buffers: bool
    find_unused_parameters: bool
    gradient_as_bucket_view: bool
    static_graph: bool
    require_backward_grad_sync: bool
    bucket_bytes_cap: int
    def __init__(
        self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
        broadcast_buffers: bool = True, init_sync: bool = True, process_group: Any = None,
        bucket_cap_mb: float | None = None, find_unused_parameters: bool = False, check_reduction: bool = False,
        gradient_as_bucket_view: bool = False, static_graph: bool = False, **kwargs: Any,
    ) -> None: ...
    def forward(self, *inputs: Any, **kwargs: Any) -> Any: ...
    def no_sync(self) -> AbstractContextManager[None]: ...

def data_parallel(
    module: Module, inputs: Any, device_ids: Sequence[Any] | None = None, output_device: Any = None, dim: int = 0,
    module_kwargs: dict[str, Any] | None = None,
) -> Any: ...
