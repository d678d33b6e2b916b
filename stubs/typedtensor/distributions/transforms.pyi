from collections.abc import Sequence
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

from . import constraints

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "SigmoidTransform", "Transform",
           "identity_transform"]

class Transform:
    bijective: bool
    domain: constraints.Constraint
    codomain: constraints.Constraint
    def __init__(self, cache_size: int = 0) -> None: ...
    @property
    def event_dim(self) -> int: ...
    @property
    def inv(self) -> Transform: ...
    @property
    def sign(self) -> Any: ...
    def __call__(self, x: _T) -> _T: ...
    def log_abs_det_jacobian(self, x: _T, y: _T) -> _T: ...
    def forward_shape(self, shape: Sequence[int]) -> tuple[int, ...]: ...
    def inverse_shape(self, shape: Sequence[int]) -> tuple[int, ...]: ...

class ComposeTransform(Transform):
    parts: list[Transform]
    def __init__(self, parts: Sequence[Transform], cache_size: int = 0) -> None: ...

identity_transform: ComposeTransform

class ExpTransform(Transform): ...
class SigmoidTransform(Transform): ...
class AbsTransform(Transform): ...

class AffineTransform(Transform):
    loc: _T | float
    scale: _T | float
    def __init__(self, loc: _T | float, scale: _T | float, event_dim: int = 0, cache_size: int = 0) -> None: ...
