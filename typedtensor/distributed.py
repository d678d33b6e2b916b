"""``typedtensor.distributed``: importable so that programs which import it (to use it only when
asked to train on several processes) run; distributed training itself is not implemented yet.

``is_available()`` is False and ``is_initialized()`` False, as torch answers on a build without
distributed support; every call that would need a process group raises ``NotImplementedError``.
"""

from __future__ import annotations

import enum
from typing import Any, NoReturn

__all__ = [
    "ReduceOp", "all_gather", "all_reduce", "barrier", "broadcast", "destroy_process_group", "get_rank",
    "get_world_size", "init_process_group", "is_available", "is_initialized", "is_torchelastic_launched",
    "new_group", "reduce",
]

_MESSAGE = (
    "typedtensor.distributed: distributed training is not implemented yet (is_available() is False); "
    "run the program in a single process"
)


class ReduceOp(enum.Enum):
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return False


def _unsupported(*args: Any, **kwargs: Any) -> NoReturn:
    raise NotImplementedError(_MESSAGE)


init_process_group = destroy_process_group = new_group = _unsupported
get_rank = get_world_size = barrier = _unsupported
all_reduce = all_gather = broadcast = reduce = _unsupported
