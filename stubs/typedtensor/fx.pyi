# tt.fx: torch.fx's import-time registration (typedtensor/fx.py).
from collections.abc import Callable
from typing import Any, TypeVar

_W = TypeVar("_W", bound=Callable[..., Any] | str)

def wrap(fn_or_name: _W) -> _W: ...
