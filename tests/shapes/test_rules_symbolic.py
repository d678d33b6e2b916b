"""Symbolic VALID / INVALID examples per rule family, over named dims (no torch needed)."""

from __future__ import annotations

from typing import Any

import pytest

from typedtensor.shapes import (
    UNKNOWN,
    Issue,
    Outputs,
    Shape,
    SliceIndex,
    Star,
    apply,
    d_add,
    d_mul,
    dim_var,
    get_module,
    named_dim,
)

Batch, In, Hidden, Out = (named_dim(f"m.{n}") for n in ("Batch", "In", "Hidden", "Out"))
Seq, Model, Classes, Chan = (named_dim(f"m.{n}") for n in ("Seq", "Model", "Classes", "Chan"))
H, W = named_dim("m.H"), named_dim("m.W")
Bs = Star("Bs")


def s(*dims: Any) -> Shape:
    return Shape.of(*dims)


VALID: list[tuple[str, list[Any], dict[str, Any], Any]] = [
    ("matmul", [s(Batch, In), s(In, Out)], {}, s(Batch, Out)),
    ("matmul", [Shape((), Bs, (Seq, In)), s(In, Out)], {}, Shape((), Bs, (Seq, Out))),
    ("matmul", [s(In), s(In, Out)], {}, s(Out)),
    ("add", [s(Batch, Out), s(Out)], {}, s(Batch, Out)),
    ("add", [s(Batch, 1), s(Out)], {}, s(Batch, Out)),
    ("cat", [[s(Batch, Model), s(Seq, Model)]], {}, s(d_add(Batch, Seq), Model)),
    ("stack", [[s(Batch, Model), s(Batch, Model)]], {"dim": 1}, s(Batch, 2, Model)),
    ("reshape", [s(Batch, Seq, Model), Batch, -1], {}, s(Batch, d_mul(Seq, Model))),
    ("transpose", [s(Batch, Seq, Model), 0, 1], {}, s(Seq, Batch, Model)),
    ("sum", [s(Batch, Seq, Model), -1], {"keepdim": True}, s(Batch, Seq, 1)),
    ("softmax", [s(Batch, Classes), -1], {}, s(Batch, Classes)),
    ("linear", [s(Batch, In), s(Out, In), s(Out)], {}, s(Batch, Out)),
    ("index", [s(Batch, Seq, Model), (0, SliceIndex(None, None, None), None)], {}, s(Seq, 1, Model)),
    ("cross_entropy", [s(Batch, Classes), s(Batch)], {}, s()),
    ("cross_entropy", [s(Batch, Classes), s(Batch)], {"reduction": "none"}, s(Batch)),
    ("mse_loss", [s(Batch, Out), s(Batch, Out)], {"reduction": "none"}, s(Batch, Out)),
    ("einsum", ["bi,io->bo", s(Batch, In), s(In, Out)], {}, s(Batch, Out)),
    ("embedding", [s(Batch, Seq), s(named_dim("m.Vocab"), Model)], {}, s(Batch, Seq, Model)),
    ("layer_norm", [s(Batch, Seq, Model), (Model,)], {}, s(Batch, Seq, Model)),
]

INVALID: list[tuple[str, list[Any], dict[str, Any], str, str | None]] = [
    ("matmul", [s(Batch, In), s(Hidden, Out)], {}, "shape-matmul",
     "matmul: inner dimensions differ: In (left, dim -1) vs Hidden (right, dim -2); shapes [Batch, In] @ [Hidden, Out]"),
    ("matmul", [s(Batch, Seq, In), s(Hidden, In, Out)], {}, "shape-matmul", None),
    ("add", [s(Batch, In), s(Out)], {}, "shape-broadcast", None),
    ("cat", [[s(Batch, Model), s(Batch, Hidden)]], {}, "shape-concat", None),
    ("stack", [[s(Batch, Model), s(Seq, Model)]], {}, "shape-concat", None),
    ("reshape", [s(2, 3), 4], {}, "shape-reshape", None),
    ("sum", [s(Batch, Model), 2], {}, "shape-axis", None),
    ("softmax", [s(Batch, Classes), 2], {}, "shape-axis", None),
    ("conv2d", [s(Batch, In, H, W), s(Out, In, 3, 3, 3)], {}, "shape-rank", None),
    ("max_pool2d", [s(Batch, W)], {"kernel_size": 2}, "shape-rank", None),
    ("dropout2d", [s(Batch)], {}, "shape-rank", None),
    ("mse_loss", [s(Batch, 1), s(Batch)], {}, "shape-arg", None),
    ("cross_entropy", [s(Batch, Classes), s(Seq)], {}, "shape-arg", None),
    ("nll_loss", [s(Batch, Classes), s(Batch)], {"weight": s(Hidden)}, "shape-arg", None),
    ("linear", [s(Batch, In), s(Out, Hidden)], {}, "shape-matmul", None),
    ("einsum", ["bi,io->bo", s(Batch, In), s(Hidden, Out)], {}, "shape-matmul", None),
    ("layer_norm", [s(Batch, Seq, Model), (Hidden,)], {}, "shape-arg", None),
]


@pytest.mark.parametrize("op, pos, kw, want", VALID)
def test_valid(op: str, pos: list[Any], kw: dict[str, Any], want: Any) -> None:
    got = apply(op, pos, kw)
    assert not isinstance(got, Issue), got
    if want is not UNKNOWN:
        assert got == want


@pytest.mark.parametrize("op, pos, kw, code, message", INVALID)
def test_invalid(op: str, pos: list[Any], kw: dict[str, Any], code: str, message: str | None) -> None:
    got = apply(op, pos, kw)
    assert isinstance(got, Issue), got
    assert got.code == code
    assert got.message.startswith(op)
    if message is not None:
        assert got.message == message


def test_reshape_infers_symbolic_hole() -> None:
    got = apply("reshape", [s(Batch, Seq, Model), Batch, -1])
    assert isinstance(got, Shape) and got.dims[0] == Batch


def test_max_with_dim_gives_values_and_indices() -> None:
    got = apply("max", [s(Batch, Classes), 1])
    assert isinstance(got, Outputs) and got.get("values") == s(Batch) and got.get("indices") == s(Batch)


def test_module_linear_binds_ctor_sizes() -> None:
    m = get_module("typedtensor.nn.Linear")
    ctor = m.bind_ctor([In, Hidden], {})
    assert ctor is not None
    assert m.call(ctor, [s(Batch, In)], {}) == s(Batch, Hidden)
    bad = m.call(ctor, [s(Batch, Out)], {})
    assert isinstance(bad, Issue) and bad.code == "shape-arg"


def test_generic_variable_dims() -> None:
    n = dim_var("N")
    assert apply("matmul", [s(n, In), s(In, Out)]) == s(n, Out)
