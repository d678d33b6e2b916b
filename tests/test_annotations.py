"""The annotation language at run time and @checked (DESIGN §1)."""

from __future__ import annotations

import types
from typing import Literal, TypeVar

import pytest
from typing_extensions import TypeVarTuple, Unpack

import typedtensor as tt
from typedtensor import Add, Dim, Mul
from typedtensor._shape_check import shape_of_annotation
from typedtensor.shapes import Shape, Star, dim_var, fmt_shape


class Batch(Dim):
    "examples"


class In(Dim):
    "features in"


class Out(Dim):
    "features out"


N = TypeVar("N")
Bs = TypeVarTuple("Bs")


class FakeTensor:
    """Just a shape: @checked reads ``.shape`` and nothing else."""

    def __init__(self, *shape: int) -> None:
        self.shape = shape

    def __class_getitem__(cls, params: object) -> types.GenericAlias:
        return types.GenericAlias(cls, params if isinstance(params, tuple) else (params,))


FakeTensor.__name__ = "Tensor"
Tensor = FakeTensor


def test_dim_is_an_int_typed_by_its_class() -> None:
    b = Batch(32)
    assert b == 32 and isinstance(b, int) and type(b) is Batch
    assert repr(b) == "Batch(32)"
    assert b + 1 == 33


def test_dim_rejects_hierarchies_negative_sizes_and_bare_dim() -> None:
    with pytest.raises(TypeError, match="directly"):
        type("Sub", (Batch,), {})
    with pytest.raises(ValueError, match="negative"):
        Batch(-1)
    with pytest.raises(TypeError, match="abstract"):
        Dim(3)


def test_dim_arithmetic_subscripts() -> None:
    alias = Add[Batch, In]
    assert alias.__origin__ is Add
    with pytest.raises(TypeError):
        Mul[Batch]  # type: ignore[misc]


def test_annotation_to_shape() -> None:
    s = shape_of_annotation(Tensor[Batch, Literal[3], int])
    assert s is not None
    assert fmt_shape(s) == "[Batch, 3, ?]"
    v = shape_of_annotation(Tensor[Unpack[Bs], N])
    assert v == Shape((), Star("Bs"), (dim_var("N"),))
    assert shape_of_annotation(Tensor) is None


@tt.checked
def linear(x: Tensor[Batch, In], w: Tensor[In, Out], n: Batch) -> Tensor[Batch, Out]:
    return FakeTensor(x.shape[0], w.shape[1])


def test_checked_accepts_consistent_sizes() -> None:
    assert linear(FakeTensor(2, 3), FakeTensor(3, 4), Batch(2)).shape == (2, 4)


def test_checked_names_argument_dim_and_sizes() -> None:
    with pytest.raises(tt.ShapeError) as err:
        linear(FakeTensor(2, 3), FakeTensor(4, 4), Batch(2))
    msg = str(err.value)
    assert "argument 'w'" in msg and "dim 0 is 4, expected 3" in msg and "In = 3" in msg


def test_checked_binds_sized_arguments() -> None:
    with pytest.raises(tt.ShapeError, match="argument 'x': dim 0 is 2, expected 5"):
        linear(FakeTensor(2, 3), FakeTensor(3, 4), Batch(5))


@tt.checked
def bad_result(x: Tensor[Batch, In]) -> Tensor[Batch, Out]:
    return FakeTensor(x.shape[0] + 1, 7)


def test_checked_checks_the_result() -> None:
    with pytest.raises(tt.ShapeError, match="return value: dim 0 is 3, expected 2"):
        bad_result(FakeTensor(2, 5))


@tt.checked
def variadic(x: Tensor[Unpack[Bs], In], y: Tensor[Add[In, In]]) -> Tensor[Unpack[Bs]]:
    return FakeTensor(*x.shape[:-1])


def test_checked_variadics_and_arithmetic() -> None:
    assert variadic(FakeTensor(5, 6, 3), FakeTensor(6)).shape == (5, 6)
    with pytest.raises(tt.ShapeError, match="dim 0 is 7, expected 6"):
        variadic(FakeTensor(5, 6, 3), FakeTensor(7))


class Model:
    @tt.checked
    def forward(self, x: Tensor[Batch, In]) -> Tensor[Batch, In]:
        return x


def test_checked_methods() -> None:
    m = Model()
    assert m.forward(FakeTensor(2, 2)).shape == (2, 2)
    with pytest.raises(tt.ShapeError, match="argument 'x'"):
        m.forward(FakeTensor(2))


def test_bare_tensor_and_plain_int_are_never_errors() -> None:
    @tt.checked
    def f(x: Tensor, y: Tensor[int, Batch]) -> Tensor:
        return x

    assert f(FakeTensor(1, 2, 3), FakeTensor(9, 4)).shape == (1, 2, 3)
