"""Bijections for ``TransformedDistribution`` (``torch.distributions.transforms``): ``ExpTransform``,
``AffineTransform``, ``SigmoidTransform``, ``AbsTransform`` and their inverses (``t.inv``) and
compositions (``ComposeTransform``). A transform maps ``x`` to ``y = t(x)``, inverts with
``t.inv(y)`` and gives ``log |dy/dx|`` as ``log_abs_det_jacobian(x, y)``; the formulas, domains and
codomains are torch's."""

from __future__ import annotations

import math
import numbers
import weakref
from collections.abc import Sequence
from typing import Any

from typedtensor.distributions import constraints
from typedtensor.distributions.utils import _finfo

Tensor = Any

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "SigmoidTransform", "Transform",
           "identity_transform"]


class Transform:
    """An invertible (or, like ``AbsTransform``, a many-to-one) map with a computable log-Jacobian."""

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)
        self._inv: Any = None

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (``inv.inv`` is this one)."""
        inv = None if self._inv is None else self._inv()
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self) -> int:
        """The sign of the derivative, for monotone transforms."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError

    def forward_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)

    def inverse_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class _InverseTransform(Transform):
    """``t.inv``: ``t`` run backwards."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv_t = transform

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv_t.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv_t.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv_t.bijective

    @property
    def sign(self) -> int:
        return self._inv_t.sign

    @property
    def inv(self) -> Transform:
        return self._inv_t

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv_t == other._inv_t

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._inv_t!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv_t._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv_t.log_abs_det_jacobian(y, x)


class ComposeTransform(Transform):
    """The transforms applied in order: ``parts[0]`` first."""

    def __init__(self, parts: Sequence[Transform], cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.parts[0].domain if self.parts else constraints.real

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.parts[-1].codomain if self.parts else constraints.real

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> int:
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        return ComposeTransform([p.inv for p in reversed(self.parts)])

    def _call(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        import typedtensor as tt

        if not self.parts:
            return tt.zeros_like(x)
        terms = []
        for part in self.parts:
            y_part = part(x)
            terms.append(part.log_abs_det_jacobian(x, y_part))
            x = y_part
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    def __repr__(self) -> str:
        return self.__class__.__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, clamped into ``[tiny, 1 - eps]`` so the inverse stays finite, as torch's."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        info = _finfo(x.dtype)
        return x.sigmoid().clamp(min=float(info.tiny), max=1.0 - float(info.eps))

    def _inverse(self, y: Tensor) -> Tensor:
        info = _finfo(y.dtype)
        y = y.clamp(min=float(info.tiny), max=1.0 - float(info.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        import typedtensor as tt

        softplus = tt.nn.functional.softplus
        return -softplus(-x) - softplus(x)


class AbsTransform(Transform):
    """``y = |x|`` (not invertible: the inverse gives the non-negative root)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


def _all_equal(a: Any, b: Any) -> Any:
    return (a == b).all()


class AffineTransform(Transform):
    """``y = loc + scale * x``, over ``event_dim`` rightmost dimensions (their log-Jacobians summed)."""

    bijective = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.domain

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(mine, numbers.Number) and isinstance(theirs, numbers.Number):
                if mine != theirs:
                    return False
            elif isinstance(mine, numbers.Number) or isinstance(theirs, numbers.Number) or not bool(_all_equal(mine, theirs)):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()  # type: ignore[union-attr]

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        import typedtensor as tt

        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = tt.full_like(x, math.log(abs(float(scale))))
        else:
            result = scale.abs().log()  # type: ignore[union-attr]
        if self._event_dim:
            result_size = (*tuple(result.shape[:result.dim() - self._event_dim]), -1)
            result = result.reshape(result_size).sum(-1)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(*shape)

    def forward_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        import typedtensor as tt

        extra = [tuple(getattr(v, "shape", ())) for v in (self.loc, self.scale)]
        return tuple(tt.broadcast_shapes(tuple(shape), *extra))

    inverse_shape = forward_shape

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"

