from collections.abc import Callable
from typing import Any

from . import Optimizer as Optimizer

class RemovableHandle:
    id: int
    def remove(self) -> None: ...

required: Any

def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle: ...
def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle: ...
