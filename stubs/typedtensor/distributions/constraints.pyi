from collections.abc import Callable
from typing import Any

from typing_extensions import Unpack

from typedtensor import Tensor

_T = Tensor[Unpack[tuple[Any, ...]]]

__all__ = [
    "Constraint", "boolean", "dependent", "dependent_property", "greater_than", "greater_than_eq", "half_open_interval",
    "independent", "integer_interval", "interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_integer", "real",
    "real_vector", "simplex", "square", "symmetric", "unit_interval",
]

class Constraint:
    is_discrete: bool
    event_dim: int
    def check(self, value: _T) -> _T: ...

class _Dependent(Constraint):
    def __init__(self, *, is_discrete: Any = ..., event_dim: Any = ...) -> None: ...
    def __call__(self, *, is_discrete: Any = ..., event_dim: Any = ...) -> _Dependent: ...

class _DependentProperty(property, _Dependent):
    def __init__(
        self, fn: Callable[..., Any] | None = None, *, is_discrete: Any = ..., event_dim: Any = ...
    ) -> None: ...
    def __call__(self, fn: Callable[..., Any]) -> _DependentProperty: ...  # type: ignore[override]

class _IndependentConstraint(Constraint):
    base_constraint: Constraint
    reinterpreted_batch_ndims: int
    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None: ...

class _IntegerInterval(Constraint):
    lower_bound: Any
    upper_bound: Any
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None: ...

class _IntegerGreaterThan(Constraint):
    lower_bound: Any
    def __init__(self, lower_bound: Any) -> None: ...

class _GreaterThan(Constraint):
    lower_bound: Any
    def __init__(self, lower_bound: Any) -> None: ...

class _GreaterThanEq(Constraint):
    lower_bound: Any
    def __init__(self, lower_bound: Any) -> None: ...

class _LessThan(Constraint):
    upper_bound: Any
    def __init__(self, upper_bound: Any) -> None: ...

class _Interval(Constraint):
    lower_bound: Any
    upper_bound: Any
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None: ...

class _HalfOpenInterval(_Interval): ...

def is_dependent(constraint: object) -> bool: ...

dependent: _Dependent
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean: Constraint
one_hot: Constraint
nonnegative_integer: _IntegerGreaterThan
positive_integer: _IntegerGreaterThan
integer_interval = _IntegerInterval
real: Constraint
real_vector: _IndependentConstraint
positive: _GreaterThan
nonnegative: _GreaterThanEq
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval: _Interval
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex: Constraint
lower_triangular: Constraint
lower_cholesky: Constraint
square: Constraint
symmetric: Constraint
