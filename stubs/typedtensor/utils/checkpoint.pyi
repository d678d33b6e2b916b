# typedtensor.utils.checkpoint: torch's activation checkpointing (typedtensor/utils/checkpoint.py).
from collections.abc import Callable
from typing import Any

def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = ...,
    preserve_rng_state: bool = ...,
    **kwargs: Any,
) -> Any: ...
