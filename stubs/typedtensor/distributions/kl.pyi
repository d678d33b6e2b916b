from collections.abc import Callable
from typing import Any, TypeVar

from typing_extensions import Unpack

from typedtensor import Tensor

from .distribution import Distribution

_T = Tensor[Unpack[tuple[Any, ...]]]
_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["kl_divergence", "register_kl"]

def register_kl(type_p: type, type_q: type) -> Callable[[_F], _F]: ...
def kl_divergence(p: Distribution, q: Distribution) -> _T: ...
