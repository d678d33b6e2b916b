"""The calculus behaviours the checker and the plugin rely on (their requests R4-R10): rigid
constructor variables, caller-rigid bindings, unknown integer indices, free callee variables,
and the code of an out-of-range ``dim``."""

from __future__ import annotations

from typedtensor.shapes import UNKNOWN, Issue, Shape, SliceIndex, Star, apply, dim_var, get_module, named_dim
from typedtensor.shapes.unify import Bindings, rigid, substitute, substitute_dim, unify

Batch, Seq, Model = (named_dim(f"m.{n}") for n in ("Batch", "Seq", "Model"))
N, M, K, H, Out, In = (dim_var(n) for n in ("N", "M", "K", "H", "O", "I"))


def test_linear_module_keeps_ctor_typevars_rigid() -> None:
    """R4: ``Linear(H, Out)`` applied to ``[Batch, I]`` is a mismatch, not a binding ``H := I``."""
    m = get_module("typedtensor.nn.Linear")
    ctor = {"in_features": H, "out_features": Out, "bias": True}
    bad = m.forward(ctor, {"input": Shape.of(Batch, In)})
    assert isinstance(bad, Issue) and bad.code == "shape-arg"
    assert "expected H" in bad.message and "dim 1 is I" in bad.message
    assert m.forward(ctor, {"input": Shape.of(Batch, H)}) == Shape.of(Batch, Out)
    assert m.forward(ctor, {"input": Shape((), Star("Bs"), (H,))}) == Shape((), Star("Bs"), (Out,))


def test_rigid_bindings_bind_each_variable_to_itself() -> None:
    b = rigid((H, 3), Shape.of(Out, Batch), "not a dim")
    assert b.dims == {"H": H, "O": Out}
    assert unify(Shape.of(H), Shape.of(H), b, "x") is None
    assert isinstance(unify(Shape.of(H), Shape.of(Out), b, "x"), Issue)


def test_unify_checks_a_dim_bound_to_a_callers_variable() -> None:
    """R7: inside ``def g(x: Tensor[N, M])``, ``mm(x, x)`` with ``mm(a: [N, K], b: [K, M])``."""
    b = Bindings()
    assert unify(Shape.of(N, K), Shape.of(N, M), b, "a") is None
    issue = unify(Shape.of(K, M), Shape.of(N, M), b, "b")
    assert isinstance(issue, Issue) and issue.code == "shape-arg"
    assert "dim 0 is N, expected M" in issue.message and "K = M (bound by a, dim 1)" in issue.message
    ok = Bindings()
    assert unify(Shape.of(N, K), Shape.of(N, M), ok, "a") is None
    assert unify(Shape.of(K, M), Shape.of(M, M), ok, "b") is None


def test_unify_still_skips_arithmetic_over_unbound_variables() -> None:
    from typedtensor.shapes import d_add

    b = Bindings()
    assert unify(Shape.of(d_add(N, 1), N), Shape.of(Seq, Model), b, "x") is None
    assert b.dims["N"] == Model  # bound by dim 1; dim 0 (N + 1) was not provable when it came


def test_variadic_suffix_respects_bind_false() -> None:
    """A rigid (``bind=False``) check of a variadic declared shape never binds its suffix variable."""
    b = Bindings()
    issue = unify(Shape((), Star("Bs"), (N,)), Shape.of(Batch, Seq), b, "value", bind=False)
    assert isinstance(issue, Issue) and "N" not in b.dims


def test_substitute_free_variables_become_unknown() -> None:
    """R10: a callee variable no argument bound is unknown to the caller (it is not the caller's)."""
    b = Bindings(dims={"N": Batch})
    free = frozenset({"N", "M", "Ts"})
    assert substitute(Shape.of(N, M, Seq), b, free) == Shape.of(Batch, UNKNOWN, Seq)
    assert substitute_dim(M, b, free) is UNKNOWN
    assert substitute_dim(M, b) == M  # without ``free`` a variable stays (a rigid one of the caller)
    out = substitute(Shape((), Star("Ts"), (N,)), b, free)
    assert out == Shape((), Star(None), (Batch,))
    b.stars["Ts"] = (Seq,)
    assert substitute(Shape((), Star("Ts"), (N,)), b, free) == Shape.of(Seq, Batch)


def test_unknown_integer_index_drops_its_dim() -> None:
    """R8: ``x[i]`` with ``i`` an int of unknown value drops dim 0 (and is not range-checked)."""
    x = Shape.of(Batch, Seq, Model)
    assert apply("index", [x, (UNKNOWN,)]) == Shape.of(Seq, Model)
    assert apply("index", [x, (SliceIndex(), UNKNOWN)]) == Shape.of(Batch, Model)
    assert apply("index", [Shape.of(2, 3), (UNKNOWN, UNKNOWN)]) == Shape.of()
    too_many = apply("index", [Shape.of(2, 3), (UNKNOWN, UNKNOWN, UNKNOWN)])
    assert isinstance(too_many, Issue) and too_many.code == "shape-axis"
    variadic = Shape((), Star("Bs"), (Seq, Model))
    assert apply("index", [variadic, (Ellipsis, UNKNOWN)]) == Shape((), Star("Bs"), (Seq,))


def test_cat_and_stack_dim_out_of_range_is_shape_axis() -> None:
    """R5: DESIGN §2 gives an out-of-range dim ``shape-axis`` for every op."""
    x = Shape.of(Batch, Model)
    for op in ("cat", "stack"):
        issue = apply(op, [[x, x]], {"dim": 3})
        assert isinstance(issue, Issue) and issue.code == "shape-axis", (op, issue)


def test_module_forward_keeps_rank_codes() -> None:
    """R5: ``nn.Conv2d(...)(x_2d)`` is ``shape-rank`` like ``F.conv2d(x_2d, w)``; a channel
    mismatch is the module argument's ``shape-arg``."""
    conv = get_module("typedtensor.nn.Conv2d")
    ctor = conv.bind_ctor([3, 8, 3], {})
    assert ctor is not None
    rank = conv.call(ctor, [Shape.of(Batch, Model)], {})
    assert isinstance(rank, Issue) and rank.code == "shape-rank"
    channels = conv.call(ctor, [Shape.of(Batch, 4, 10, 10)], {})
    assert isinstance(channels, Issue) and channels.code == "shape-arg"
    assert conv.call(ctor, [Shape.of(Batch, 3, 10, 10)], {}) == Shape.of(Batch, 8, 8, 8)


def test_floor_division_keeps_its_operands() -> None:
    """Plugin request 3: an opaque ``(A)//(2)`` carries ``(A, 2)``, so ``Div[A, 2]`` can be rebuilt."""
    from typedtensor.shapes import d_add, d_floordiv, fmt_dim
    from typedtensor.shapes.dims import opaque_parts

    half = d_floordiv(Seq, 2)
    assert opaque_parts(half) == (Seq, 2)
    assert fmt_dim(half) == "(Seq)//(2)"
    assert opaque_parts(d_add(half, 1)) is None and opaque_parts(Seq) is None
    other_seq = named_dim("other.Seq")  # displays like m.Seq, but is another dim
    assert d_floordiv(other_seq, 2) != half and d_floordiv(Seq, 2) == half


def test_substitution_reaches_inside_a_floor_division() -> None:
    """``Tensor[N, Div[N, 2]]`` called with ``[8, 4]``: N := 8 makes ``N // 2`` 4, not a mismatch."""
    from typedtensor.shapes import d_floordiv

    declared = Shape.of(N, d_floordiv(N, 2))
    assert unify(declared, Shape.of(8, 4), Bindings(), "x") is None
    bad = unify(declared, Shape.of(8, 5), Bindings(), "x")
    assert isinstance(bad, Issue) and "expected 4" in bad.message
    b = Bindings()
    assert unify(declared, Shape.of(Seq, d_floordiv(Seq, 2)), b, "x") is None
    assert substitute(Shape.of(d_floordiv(N, 2)), b) == Shape.of(d_floordiv(Seq, 2))
    assert substitute(Shape.of(d_floordiv(M, 2)), b, frozenset({"M"})) == Shape.of(UNKNOWN)


def test_conv_module_checks_channels_without_knowing_groups() -> None:
    """The mypy plugin carries only a Conv2d's channel counts: the input's channels are still
    checked against in_channels when groups (and the kernel) are unknown."""
    conv = get_module("typedtensor.nn.Conv2d")
    ctor = {p.name: UNKNOWN for p in conv.ctor} | {"in_channels": Model, "out_channels": Seq}
    bad = conv.forward(ctor, {"input": Shape.of(Batch, Seq, 8, 8)})
    assert isinstance(bad, Issue) and bad.code == "shape-arg" and "in_channels = Model" in bad.message
    ok = conv.forward(ctor, {"input": Shape.of(Batch, Model, 8, 8)})
    assert isinstance(ok, Shape) and ok.dims[:2] == (Batch, Seq)
