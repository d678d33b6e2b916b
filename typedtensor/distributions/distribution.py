"""``Distribution``: the base class of the probability distributions (``torch.distributions.Distribution``).

A distribution holds tensors of parameters batched over ``batch_shape``; one draw is an
``event_shape`` tensor. Everything is written on typedtensor's public tensor ops, so ``log_prob``,
``entropy`` and ``rsample`` are differentiable in the parameters. Shapes are tuples (typedtensor has
no ``torch.Size``).

Validation follows torch: on by default (off under ``python -O``), switched globally by
``Distribution.set_default_validate_args`` or per instance by ``validate_args``; a parameter outside
its constraint, or a ``log_prob`` value outside the support, raises torch's ``ValueError``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from typedtensor.distributions import constraints
from typedtensor.distributions.utils import lazy_property

Tensor = Any
Shape = tuple[int, ...]

__all__ = ["Distribution"]


def _as_shape(shape: Sequence[int] | int) -> Shape:
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def _numel(shape: Shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _all_true(valid: Tensor) -> bool:
    return bool(valid.all())


class Distribution:
    """The base class: shapes, validation and the defaults torch gives every distribution."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution made afterwards without
        ``validate_args`` (torch's default mimics ``assert``: on unless Python runs with ``-O``)."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = (),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = _as_shape(batch_shape)
        self._event_shape = _as_shape(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. "
                    + "Please set `arg_constraints = {}` or initialize the distribution "
                    + "with `validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked on its own
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # computed lazily from the parameter that was given
                value = getattr(self, param)
                valid = constraint.check(value)
                if not _all_true(valid):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}"
                    )
        super().__init__()

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Distribution:
        """A new distribution whose parameters are ``expand``ed to ``batch_shape`` (no copy, no new
        argument checks)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> Shape:
        """The shape the parameters are batched over."""
        return self._batch_shape

    @property
    def event_shape(self) -> Shape:
        """The shape of one draw."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Each tensor argument's constraint."""
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint | None:
        """The constraint the draws satisfy."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """``sample_shape + batch_shape + event_shape`` draws, outside autograd."""
        import typedtensor as tt

        with tt.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """Reparameterized draws: differentiable in the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))`` (deprecated in torch, as here)."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete distribution's support, along dimension 0."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, batched over ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: Sequence[int] = ()) -> Shape:
        """``sample_shape + batch_shape + event_shape``."""
        return _as_shape(sample_shape) + self._batch_shape + self._event_shape

    def _validate_sample(self, value: Tensor) -> None:
        """torch's checks of a value scored by ``log_prob``/``cdf``: a tensor, whose rightmost
        dimensions match the event shape and broadcast with the batch shape, inside the support."""
        import typedtensor as tt

        if not isinstance(value, tt.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        actual_shape = tuple(value.shape)
        event_dim_start = len(actual_shape) - len(self._event_shape)
        if actual_shape[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {_size_repr(actual_shape)} vs "
                f"{_size_repr(self._event_shape)}."
            )
        expected_shape = self._batch_shape + self._event_shape
        try:
            tt.broadcast_shapes(actual_shape, expected_shape)
        except ValueError:
            raise ValueError(
                "Value is not broadcastable with batch_shape+event_shape: "
                f"{_size_repr(actual_shape)} vs {_size_repr(expected_shape)}."
            ) from None
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable "
                + "sample validation. Please initialize the distribution with "
                + "`validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        valid = support.check(value)
        if not _all_true(valid):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {actual_shape}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else _size_repr(tuple(self.__dict__[p].shape))}"
            for p in param_names
        )
        return self.__class__.__name__ + "(" + args_string + ")"


def _size_repr(shape: Shape) -> str:
    """A shape as torch prints its ``torch.Size`` in messages."""
    return f"torch.Size({list(shape)})"
