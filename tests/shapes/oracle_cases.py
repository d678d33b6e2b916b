"""Torch-oracle cases: for each registry op, a hypothesis generator of one concrete call.

A generator draws shapes and arguments, and returns a ``Case``: how to call the registry (the same
positional/keyword arguments a consumer would bind, tensors as ``concrete`` shapes) and how to make
the same call in torch. ``check`` runs both and compares: the rule's shape must be torch's shape, and
the rule must return an ``Issue`` exactly when torch raises -- except for the deliberate differences
listed in ``DELIBERATE`` (DESIGN §3), where the rule must return an Issue although torch accepts.

Scope of the oracle: arguments are drawn well typed for torch's own signature (a ``TypeError`` from
torch would be a generator bug, not a shape fact) and index *values* are kept valid (gather/scatter/
embedding/class targets use index 0 into non-empty dims): value-dependent errors are not shape rules.

Import this module only after ``torch`` is importable (the tests ``importorskip`` it first).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from typedtensor.shapes import (
    UNKNOWN,
    Issue,
    Outputs,
    Result,
    Shape,
    SliceIndex,
    TensorIndex,
    Unknown,
    all_modules,
    all_ops,
    apply,
    concrete,
    get_module,
)
from typedtensor.shapes.rules.elementwise import BINARY_SYMBOLS, CASTS, IDENTITY_LIKE, UNARY
from typedtensor.shapes.rules.reduce import REDUCTIONS

torch: Any = importlib.import_module("torch")
F: Any = importlib.import_module("torch.nn.functional")
nn: Any = importlib.import_module("torch.nn")

Draw = Callable[[st.SearchStrategy[Any]], Any]
Dims = tuple[int, ...]


@dataclass
class Case:
    op: str
    pos: tuple[Any, ...]
    kw: dict[str, Any]
    torch_fn: Callable[[], Any]
    deliberate: str | None = None  # a key of DELIBERATE when typedtensor differs on purpose here
    module: str | None = None  # a ModuleDef name: pos/kw are the forward's, ctor below
    ctor: tuple[tuple[Any, ...], dict[str, Any]] = field(default_factory=lambda: ((), {}))


# typedtensor differs from torch on purpose here (DESIGN §3); the rule must return the Issue.
DELIBERATE: dict[str, str] = {
    "loss-broadcast": "mse_loss / l1_loss / smooth_l1_loss / huber_loss (and their modules) require "
    "equal input and target shapes; torch broadcasts them with a warning ([B, 1] vs [B] silently "
    "gives [B, B]).",
    "cumulative-extreme-empty": "cummax / cummin with an out-of-range dim on an empty tensor: torch "
    "returns early without checking the dim; typedtensor reports shape-axis as for any other tensor.",
    "roll-empty": "roll with an out-of-range dim on an empty tensor: torch returns early without "
    "checking dims; typedtensor reports shape-axis as for any other tensor.",
    "expand-leading-minus-one": "expand/broadcast_to with -1 for a new leading dim: typedtensor "
    "always reports it (as torch does) -- torch skips the check when another size is 0 and "
    "returns a shape holding -1.",
    "pool-rank": "adaptive_avg_pool2d needs a 3-d or 4-d input (shape-rank); torch "
    "also accepts some other ranks (a 2-d input with output size 1, a 5-d one).",
    "circular-pad-wraps-cropped": "pad(mode='circular') with negative padding on one side: typedtensor "
    "reports a pad that wraps more than once around the part that is kept; torch only checks the "
    "uncropped size and returns uninitialised memory there.",
    "dropout2d-rank": "dropout2d needs a 3-d or 4-d input (shape-rank); torch only warns (deprecated) "
    "and treats other ranks as it guesses.",
}

# Ops torch cannot be an oracle for, each with the reason.
SKIP: dict[str, str] = {
    "from_numpy": "its argument is an ndarray value, not a shape the registry sees: the rule is "
    "UNKNOWN by design (checked below to never give an Issue)",
    "from_dlpack": "as from_numpy: an external buffer, rule UNKNOWN by design",
    "cuda": "needs a CUDA device; the rule is the identity, like `cpu`, which is oracle-tested",
    **{name: "an internal primitive of the backend (a backward kernel, a strided view, a fused kernel): no "
       "public call makes it, and its rule is UNKNOWN" for name, op in all_ops().items() if "internal" in op.tags},
    **{name: "a collective of typedtensor.distributed: torch checks its shapes against the number of processes "
       "at run time, which the rule leaves open (any multiple); tests/checker/cases/distributed.py and "
       "tests/mypy_plugin/cases/distributed.py hold its cases" for name, op in all_ops().items()
       if "distributed" in op.tags},
}

CASES: dict[str, Callable[[Draw], Case]] = {}
MODULE_CASES: dict[str, Callable[[Draw], Case]] = {}


def case(*names: str) -> Callable[[Callable[[Draw], Case]], Callable[[Draw], Case]]:
    def deco(fn: Callable[[Draw], Case]) -> Callable[[Draw], Case]:
        for n in names:
            CASES[n] = _named(fn, n)
        return fn

    return deco


def _named(fn: Callable[[Draw], Case], name: str) -> Callable[[Draw], Case]:
    return lambda draw: _renamed(fn(draw), name)


def _renamed(c: Case, name: str) -> Case:
    c.op = name
    return c


# ------------------------------------------------------------------------------------------------
# drawing helpers

SIZE = st.sampled_from([0, 1, 1, 2, 2, 3, 4, 5])
POS_SIZE = st.sampled_from([1, 1, 2, 2, 3, 4, 5])


def shape(draw: Draw, lo: int = 0, hi: int = 4, sizes: st.SearchStrategy[int] = SIZE) -> Dims:
    return tuple(draw(st.lists(sizes, min_size=lo, max_size=hi)))


def partner(draw: Draw, base: Dims, hi: int = 4) -> Dims:
    """A shape that mostly broadcasts with ``base`` (same dims, 1s, fewer dims), sometimes not."""
    rank = draw(st.integers(0, hi))
    out: list[int] = []
    for i in range(rank):
        if i < len(base):
            out.append(draw(st.sampled_from([base[-1 - i], base[-1 - i], base[-1 - i], 1, draw(SIZE)])))
        else:
            out.append(draw(st.sampled_from([1, draw(SIZE)])))
    return tuple(reversed(out))


def axis(draw: Draw, rank: int, extra: int = 0) -> int:
    n = max(rank + extra, 1)
    return int(draw(st.integers(-n - 1, n)))


def T(dims: Dims, kind: str = "f") -> Any:
    if kind == "l":
        return torch.zeros(dims, dtype=torch.long)
    if kind == "b":
        return torch.rand(dims) > 0.5
    if kind == "p":
        return torch.rand(dims)
    return torch.randn(dims)


def S(dims: Dims) -> Shape:
    return concrete(dims)


# ------------------------------------------------------------------------------------------------
# running and comparing


def run_rule(c: Case) -> Result:
    if c.module is not None:
        m = get_module(c.module)
        ctor = m.bind_ctor(*c.ctor)
        assert ctor is not None, f"{c.module}: constructor arguments do not bind: {c.ctor}"
        return m.call(ctor, c.pos, c.kw)
    return apply(c.op, c.pos, c.kw)


def shapes_of(out: Any) -> list[Dims | None]:
    if torch.is_tensor(out):
        return [tuple(out.shape)]
    if out is None:
        return [None]
    if isinstance(out, (tuple, list)):
        return [s for o in out for s in shapes_of(o)]
    if isinstance(out, (int, float, bool)):
        return [()]
    raise AssertionError(f"unexpected torch result {type(out)}")


def run_torch(c: Case) -> tuple[list[Dims | None] | None, str | None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = c.torch_fn()
        except Exception as e:
            assert not isinstance(e, (TypeError, AttributeError, NameError)) or "must be" in str(e), (
                f"oracle generator bug for {c.op}: {type(e).__name__}: {e}"
            )
            return None, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    return shapes_of(out), None


def _rule_shapes(r: Result) -> list[Shape | Unknown] | None:
    """The rule's result shapes, flat (torch's nested tuples are flattened alike)."""
    if isinstance(r, Outputs):
        if isinstance(r.shapes, Unknown):
            return None
        flat: list[Shape | Unknown] = []
        for s in r.shapes:
            inner = _rule_shapes(s) if isinstance(s, Outputs) else [s]
            if inner is None:
                return None
            flat += inner
        return flat
    assert not isinstance(r, Issue)
    return [r]


def _matches(rule: Shape | Unknown, got: Dims | None) -> bool:
    if isinstance(rule, Unknown) or got is None:
        return True
    if not rule.is_fixed or len(rule.dims) != len(got):
        return False
    return all(isinstance(d, Unknown) or d == g for d, g in zip(rule.dims, got, strict=False))


def check(c: Case) -> str | None:
    """None when the rule agrees with torch, else a description of the disagreement."""
    try:
        rule = run_rule(c)
    except Exception as e:
        return f"{c.op}: the rule raised {type(e).__name__}: {e} (rules never raise); args {c.pos} {c.kw}"
    got, err = run_torch(c)
    where = f"{c.op}{' (' + c.module + ')' if c.module else ''} args {c.pos} {c.kw} ctor {c.ctor}"
    if c.deliberate is not None:
        assert c.deliberate in DELIBERATE
        if isinstance(rule, Issue):
            return None
        return f"{where}: deliberate difference {c.deliberate!r} expects an Issue, rule gave {rule}"
    if err is not None:
        return None if isinstance(rule, Issue) else f"{where}: torch raised {err} but the rule gave {rule}"
    assert got is not None
    if isinstance(rule, Issue):
        return f"{where}: the rule gave {rule} but torch gave {got}"
    shapes = _rule_shapes(rule)
    if shapes is None:
        return None
    if len(shapes) != len(got) or not all(_matches(r, g) for r, g in zip(shapes, got, strict=False)):
        return f"{where}: the rule gave {rule} but torch gave {got}"
    return None


# ------------------------------------------------------------------------------------------------
# elementwise

_F_FIRST = {"gelu", "silu", "softplus", "elu", "leaky_relu", "relu6", "hardtanh", "mish", "logsigmoid", "hardsigmoid",
            "hardswish", "softsign"}
_TORCH_UNARY: dict[str, Callable[[Any], Any]] = {
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "trigamma": lambda x: torch.polygamma(1, x),
    "polygamma": lambda x: torch.polygamma(2, x), "mvlgamma": lambda x: torch.mvlgamma(x.abs() + 2, 2),
    # looked up at call time: tests/backend/test_output_types.py runs the cases with typedtensor as `torch`
    **{n: (lambda x, n=n: getattr(torch.special, n)(x)) for n in ("i0e", "i1", "i1e", "erfcx", "ndtri")},
}
_UNARY_ARGS: dict[str, Callable[[Any], tuple[Any, ...]]] = {"polygamma": lambda x: (2, x), "mvlgamma": lambda x: (x, 2)}


def _unary(name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        s = shape(draw)
        fn = _TORCH_UNARY.get(name) or (getattr(F, name) if name in _F_FIRST else getattr(torch, name))
        kind = "l" if name == "bitwise_not" else "f"
        args = _UNARY_ARGS.get(name, lambda x: (x,))(S(s))
        return Case(name, args, {}, lambda: fn(T(s, kind)))

    return gen


for _u in (*UNARY, *(a for u in UNARY for a in all_ops()[u].aliases)):  # torch's other names too (arccos)
    CASES[_u] = _unary(_u)

_CAST_CALLS: dict[str, Callable[[Any], Any]] = {
    "to": lambda x: x.to(torch.float64), "type": lambda x: x.type(torch.float64),
}


def _method(name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        s = shape(draw)
        call = _CAST_CALLS.get(name, lambda x: getattr(x, name)())
        args: tuple[Any, ...] = (S(s), UNKNOWN) if name in _CAST_CALLS else (S(s),)
        return Case(name, args, {}, lambda: call(T(s)))

    return gen


for _m in (*CASTS, *IDENTITY_LIKE, "to", "type"):
    CASES[_m] = _method(_m)


@case("dropout", "alpha_dropout")
def _dropout(draw: Draw) -> Case:
    s = shape(draw)
    training = draw(st.booleans())
    return Case("", (S(s), 0.3, training), {}, lambda: F.dropout(T(s), 0.3, training))


@case("feature_alpha_dropout")
def _feature_alpha_dropout(draw: Draw) -> Case:
    s = shape(draw, lo=2)  # torch refuses a rank under 2 in training (the rule does not see `training`)
    training = draw(st.booleans())
    return Case("", (S(s), 0.3, training), {}, lambda: F.feature_alpha_dropout(T(s), 0.3, training))


@case("fill")
def _fill(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s), 2.0), {}, lambda: T(s).fill_(2.0))


@case("zero")
def _zero(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: T(s).zero_())


def _binary(name: str) -> Callable[[Draw], Case]:
    kind = "l" if name.startswith("bitwise") else "f"

    def gen(draw: Draw) -> Case:
        a = shape(draw)
        fn = torch.special.zeta if name == "zeta" else getattr(torch, name)
        if draw(st.integers(0, 4)) == 0 and name != "heaviside":  # a Python scalar; torch gets it as a 0-d tensor
            return Case(name, (S(a), 2), {}, lambda: fn(T(a, kind), torch.tensor(2)))
        b = partner(draw, a)
        return Case(name, (S(a), S(b)), {}, lambda: fn(T(a, kind), T(b, kind)))

    return gen


for _b in BINARY_SYMBOLS:
    CASES[_b] = _binary(_b)


@case("where")
def _where(draw: Draw) -> Case:
    c = shape(draw)
    a = partner(draw, c) if draw(st.booleans()) else None
    b = partner(draw, c) if draw(st.booleans()) else None
    ra = S(a) if a is not None else 1.0
    rb = S(b) if b is not None else 0.0
    return Case("", (S(c), ra, rb), {}, lambda: torch.where(
        T(c, "b"), T(a) if a is not None else 1.0, T(b) if b is not None else 0.0))


@case("clamp", "clip")
def _clamp(draw: Draw) -> Case:
    s = shape(draw)
    if draw(st.booleans()):
        lo = draw(st.sampled_from([None, 0.0]))
        hi = 1.0 if lo is None else draw(st.sampled_from([None, 1.0]))
        return Case("", (S(s),), {"min": lo, "max": hi}, lambda: torch.clamp(T(s), min=lo, max=hi))
    lo_s = partner(draw, s) if draw(st.booleans()) else None
    hi_s = partner(draw, s) if draw(st.booleans()) or lo_s is None else None
    return Case(
        "", (S(s),), {"min": S(lo_s) if lo_s is not None else None, "max": S(hi_s) if hi_s is not None else None},
        lambda: torch.clamp(T(s), min=T(lo_s) if lo_s is not None else None,
                            max=T(hi_s) if hi_s is not None else None))


@case("masked_fill")
def _masked_fill(draw: Draw) -> Case:
    s = shape(draw)
    m = partner(draw, s)
    return Case("", (S(s), S(m), 0.0), {}, lambda: torch.masked_fill(T(s), T(m, "b"), 0.0))


@case("lerp")
def _lerp(draw: Draw) -> Case:
    s = shape(draw)
    e = partner(draw, s)
    w = partner(draw, s) if draw(st.booleans()) else None
    return Case("", (S(s), S(e), S(w) if w is not None else 0.5), {},
                lambda: torch.lerp(T(s), T(e), T(w) if w is not None else 0.5))


@case("addcmul")
def _addcmul(draw: Draw) -> Case:
    s = shape(draw)
    a, b = partner(draw, s), partner(draw, s)
    return Case("", (S(s), S(a), S(b)), {}, lambda: torch.addcmul(T(s), T(a), T(b)))


# ------------------------------------------------------------------------------------------------
# reductions


def _dims_arg(draw: Draw, rank: int, allow_tuple: bool) -> int | tuple[int, ...] | None:
    choice = draw(st.integers(0, 2 if allow_tuple else 1))
    if choice == 0:
        return None
    if choice == 1:
        return axis(draw, rank)
    return tuple(draw(st.lists(st.integers(-rank - 1, max(rank, 1)), min_size=1, max_size=3)))


def _reduction(name: str) -> Callable[[Draw], Case]:
    kind = "b" if name in ("all", "any") else "f"
    has_keepdim = name != "count_nonzero"

    def gen(draw: Draw) -> Case:
        s = shape(draw)
        fn = getattr(torch, name)
        dim = _dims_arg(draw, len(s), name != "prod")
        keep = draw(st.booleans()) if has_keepdim and dim is not None else False
        if dim is None:
            return Case(name, (S(s),), {}, lambda: fn(T(s, kind)))
        if not has_keepdim:
            return Case(name, (S(s), dim), {}, lambda: fn(T(s, kind), dim))
        return Case(name, (S(s), dim, keep), {}, lambda: fn(T(s, kind), dim, keepdim=keep))

    return gen


for _r in REDUCTIONS:
    CASES[_r] = _reduction(_r)


@case("var", "std")
def _var(draw: Draw) -> Case:
    s = shape(draw)
    dim = _dims_arg(draw, len(s), True)
    keep = draw(st.booleans())
    # the case's op name is set by @case; look it up at call time
    c = Case("", (S(s),), {"dim": dim, "keepdim": keep}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), dim=dim, keepdim=keep)
    return c


@case("argmax", "argmin")
def _argmax(draw: Draw) -> Case:
    s = shape(draw)
    dim = None if draw(st.booleans()) else axis(draw, len(s))
    keep = draw(st.booleans())
    c = Case("", (S(s),), {"dim": dim, "keepdim": keep}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), dim=dim, keepdim=keep)
    return c


@case("max", "min", "median", "mode")
def _max(draw: Draw) -> Case:
    s = shape(draw)
    mode = draw(st.integers(0, 2))
    c = Case("", (S(s),), {}, lambda: None)
    if mode == 2:
        c.kw["__finish__"] = lambda: None if c.op in ("max", "min") else _no_other(c, s)
    if mode == 0:
        c.torch_fn = lambda: getattr(torch, c.op)(T(s))
    elif mode == 1:
        dim, keep = axis(draw, len(s)), draw(st.booleans())
        c.pos = (S(s), dim, keep)
        c.torch_fn = lambda: getattr(torch, c.op)(T(s), dim, keep)
    else:
        o = partner(draw, s)
        c.pos = (S(s), S(o))
        c.torch_fn = lambda: getattr(torch, c.op)(T(s), T(o))
    return c


def _no_other(c: Case, s: Dims) -> None:
    """median/mode have no elementwise (input, other) form: fall back to a plain call."""
    c.pos = (S(s),)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s))


@case("logsumexp")
def _logsumexp(draw: Draw) -> Case:
    s = shape(draw)
    dim = _dims_arg(draw, len(s), True)
    dim = axis(draw, len(s)) if dim is None else dim
    keep = draw(st.booleans())
    return Case("", (S(s), dim, keep), {}, lambda: torch.logsumexp(T(s), dim, keep))


@case("norm")
def _norm(draw: Draw) -> Case:
    s = shape(draw)
    p = draw(st.sampled_from(["fro", 2, 1]))
    dim = _dims_arg(draw, len(s), True)
    keep = draw(st.booleans())
    return Case("", (S(s), p, dim, keep), {}, lambda: torch.norm(T(s), p, dim, keep))


@case("softmax", "log_softmax", "cumsum", "cumprod", "logcumsumexp")
def _scan(draw: Draw) -> Case:
    s = shape(draw)
    dim = axis(draw, len(s))
    c = Case("", (S(s), dim), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), dim)
    return c


# ------------------------------------------------------------------------------------------------
# creation


def _sizes(draw: Draw) -> tuple[int, ...]:
    return tuple(draw(st.lists(st.sampled_from([-1, 0, 1, 2, 3, 4]), min_size=0, max_size=4)))


@case("zeros", "ones", "empty", "rand", "randn")
def _factory(draw: Draw) -> Case:
    size = _sizes(draw)
    as_tuple = draw(st.booleans())
    c = Case("", (size,) if as_tuple else size, {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(size)
    return c


@case("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like")
def _like(draw: Draw) -> Case:
    s = shape(draw)
    c = Case("", (S(s),), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s))
    return c


@case("full")
def _full(draw: Draw) -> Case:
    size = _sizes(draw)
    return Case("", (size, 1.5), {}, lambda: torch.full(size, 1.5))


@case("full_like")
def _full_like(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s), 1.5), {}, lambda: torch.full_like(T(s), 1.5))


@case("randint")
def _randint(draw: Draw) -> Case:
    size = _sizes(draw)
    if draw(st.booleans()):
        return Case("", (5, size), {}, lambda: torch.randint(5, size))
    return Case("", (1, 5, size), {}, lambda: torch.randint(1, 5, size))


@case("arange")
def _arange(draw: Draw) -> Case:
    num = st.one_of(st.integers(-6, 6), st.sampled_from([-2.5, 0.5, 3.7]))
    start, end = draw(num), draw(num)
    step = draw(st.sampled_from([1, 2, 3, -1, -2, 0, 0.5, -1.5]))
    if draw(st.integers(0, 3)) == 0:
        return Case("", (end,), {}, lambda: torch.arange(end))
    return Case("", (start, end, step), {}, lambda: torch.arange(start, end, step))


@case("linspace")
def _linspace(draw: Draw) -> Case:
    n = draw(st.integers(-2, 5))
    return Case("", (0.0, 1.0, n), {}, lambda: torch.linspace(0.0, 1.0, n))


@case("eye")
def _eye(draw: Draw) -> Case:
    n = draw(st.integers(-1, 4))
    m = draw(st.one_of(st.none(), st.integers(-1, 4)))
    return Case("", (n, m), {}, lambda: torch.eye(n) if m is None else torch.eye(n, m))


@case("tensor", "as_tensor")
def _tensor(draw: Draw) -> Case:
    s = shape(draw)
    np = importlib.import_module("numpy")
    c = Case("", (S(s),), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(np.zeros(s))
    return c


@case("item")
def _item(draw: Draw) -> Case:
    s = shape(draw, sizes=st.sampled_from([0, 1, 1, 1, 2]))
    return Case("", (S(s),), {}, lambda: T(s).item())


# ------------------------------------------------------------------------------------------------
# movement


def _factor_sizes(draw: Draw, dims: Dims) -> tuple[int, ...]:
    """Sizes for reshape: a valid regrouping of ``dims`` (maybe with one -1), or random ones."""
    if draw(st.integers(0, 3)) == 0:
        return _sizes(draw)
    out: list[int] = []
    for d in dims:
        if out and draw(st.booleans()):
            out[-1] *= d
        else:
            out.append(d)
    if draw(st.booleans()):
        out.insert(draw(st.integers(0, len(out))), 1)
    if out and draw(st.booleans()):
        out[draw(st.integers(0, len(out) - 1))] = -1
    return tuple(out)


@case("reshape", "view")
def _reshape(draw: Draw) -> Case:
    s = shape(draw)
    new = _factor_sizes(draw, s)
    pos: tuple[Any, ...] = (S(s), new) if draw(st.booleans()) else (S(s), *new)
    c = Case("", pos, {}, lambda: None)
    c.torch_fn = lambda: getattr(T(s), c.op)(new)
    return c


@case("reshape_as", "view_as")
def _reshape_as(draw: Draw) -> Case:
    s = shape(draw)
    o = tuple(abs(d) for d in _factor_sizes(draw, s))
    c = Case("", (S(s), S(o)), {}, lambda: None)
    c.torch_fn = lambda: getattr(T(s), c.op)(T(o))
    return c


@case("flatten")
def _flatten(draw: Draw) -> Case:
    s = shape(draw)
    a, b = axis(draw, len(s)), axis(draw, len(s))
    return Case("", (S(s), a, b), {}, lambda: torch.flatten(T(s), a, b))


@case("unflatten")
def _unflatten(draw: Draw) -> Case:
    s = shape(draw, lo=0)
    d = axis(draw, len(s))
    target = s[d] if -len(s) <= d < len(s) else draw(SIZE)
    sizes = _factor_sizes(draw, (target,) if draw(st.booleans()) else (target, 1))
    return Case("", (S(s), d, sizes), {}, lambda: torch.unflatten(T(s), d, sizes))


@case("transpose", "swapaxes", "swapdims")
def _transpose(draw: Draw) -> Case:
    s = shape(draw)
    a, b = axis(draw, len(s)), axis(draw, len(s))
    c = Case("", (S(s), a, b), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), a, b)
    return c


@case("permute")
def _permute(draw: Draw) -> Case:
    s = shape(draw)
    perm = list(draw(st.permutations(range(len(s)))))
    perm = [p - len(s) if draw(st.booleans()) else p for p in perm]
    if draw(st.integers(0, 3)) == 0:
        perm = draw(st.lists(st.integers(-len(s) - 1, len(s)), max_size=5))
    pos: tuple[Any, ...] = (S(s), tuple(perm)) if draw(st.booleans()) else (S(s), *perm)
    return Case("", pos, {}, lambda: T(s).permute(perm))


@case("movedim", "moveaxis")
def _movedim(draw: Draw) -> Case:
    s = shape(draw)
    if draw(st.booleans()):
        a, b = axis(draw, len(s)), axis(draw, len(s))
        return Case("", (S(s), a, b), {}, lambda: torch.movedim(T(s), a, b))
    n = draw(st.integers(0, min(len(s), 3)))
    src = tuple(draw(st.lists(st.integers(-len(s), max(len(s) - 1, 0)), min_size=n, max_size=n)))
    dst = tuple(draw(st.lists(st.integers(-len(s), max(len(s) - 1, 0)), min_size=n, max_size=n)))
    return Case("", (S(s), src, dst), {}, lambda: torch.movedim(T(s), src, dst))


@case("T")
def _T(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: T(s).T)


@case("mT")
def _mT(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: T(s).mT)


@case("t")
def _t(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: T(s).t())


@case("unsqueeze")
def _unsqueeze(draw: Draw) -> Case:
    s = shape(draw)
    d = axis(draw, len(s), extra=1)
    return Case("", (S(s), d), {}, lambda: torch.unsqueeze(T(s), d))


@case("squeeze")
def _squeeze(draw: Draw) -> Case:
    s = shape(draw)
    dim = _dims_arg(draw, len(s), True)
    if dim is None:
        return Case("", (S(s),), {}, lambda: torch.squeeze(T(s)))
    return Case("", (S(s), dim), {}, lambda: torch.squeeze(T(s), dim))


def _expand_sizes(draw: Draw, s: Dims) -> tuple[int, ...]:
    lead = [draw(st.sampled_from([1, 2, 3, -1, 0])) for _ in range(draw(st.integers(0, 2)))]
    body = []
    for d in s:
        body.append(draw(st.sampled_from([d, d, -1, draw(SIZE)])))
    if draw(st.integers(0, 5)) == 0 and body:
        body.pop(0)
    return tuple(lead + body)


@case("expand")
def _expand(draw: Draw) -> Case:
    s = shape(draw)
    size = _expand_sizes(draw, s)
    pos: tuple[Any, ...] = (S(s), size) if draw(st.booleans()) else (S(s), *size)
    lead = size[: len(size) - len(s)]
    odd = -1 in lead and 0 in size
    return Case("", pos, {}, lambda: T(s).expand(size), deliberate="expand-leading-minus-one" if odd else None)


@case("broadcast_to")
def _broadcast_to(draw: Draw) -> Case:
    s = shape(draw)
    size = _expand_sizes(draw, s)
    lead = size[: len(size) - len(s)]
    odd = -1 in lead and 0 in size
    return Case("", (S(s), size), {}, lambda: torch.broadcast_to(T(s), size),
                deliberate="expand-leading-minus-one" if odd else None)


@case("expand_as")
def _expand_as(draw: Draw) -> Case:
    s = shape(draw)
    o = tuple(d if d >= 0 else 2 for d in _expand_sizes(draw, s))
    return Case("", (S(s), S(o)), {}, lambda: T(s).expand_as(T(o)))


@case("repeat")
def _repeat(draw: Draw) -> Case:
    s = shape(draw)
    reps = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=max(len(s) - 1, 0), max_size=len(s) + 2)))
    return Case("", (S(s), *reps), {}, lambda: T(s).repeat(*reps) if reps else T(s).repeat(()))


def _join_list(draw: Draw, vary_dim: bool) -> tuple[list[Dims], int]:
    base = shape(draw, lo=0)
    dim = axis(draw, len(base), extra=0 if vary_dim else 1)
    shapes = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(base)
        roll = draw(st.integers(0, 9))
        if vary_dim and s and -len(s) <= dim < len(s) and roll < 6:
            s[dim] = draw(SIZE)
        elif roll == 7 and s:
            s[draw(st.integers(0, len(s) - 1))] = draw(SIZE)
        elif roll == 8:
            s = list(shape(draw))
        elif roll == 9 and vary_dim:
            s = [0]
        shapes.append(tuple(s))
    return shapes, dim


@case("cat", "concat", "concatenate")
def _cat(draw: Draw) -> Case:
    shapes, dim = _join_list(draw, True)
    c = Case("", ([S(s) for s in shapes], dim), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)([T(s) for s in shapes], dim)
    return c


@case("stack")
def _stack(draw: Draw) -> Case:
    shapes, dim = _join_list(draw, False)
    return Case("", ([S(s) for s in shapes], dim), {}, lambda: torch.stack([T(s) for s in shapes], dim))


@case("split")
def _split(draw: Draw) -> Case:
    s = shape(draw)
    dim = axis(draw, len(s))
    n = s[dim] if -len(s) <= dim < len(s) else 3
    if draw(st.booleans()):
        size = draw(st.integers(0, 4))
        return Case("", (S(s), size, dim), {}, lambda: torch.split(T(s), size, dim))
    parts = list(draw(st.lists(st.integers(0, 3), max_size=3)))
    if draw(st.booleans()):
        parts.append(n - sum(parts))
    return Case("", (S(s), parts, dim), {}, lambda: torch.split(T(s), parts, dim))


@case("chunk")
def _chunk(draw: Draw) -> Case:
    s = shape(draw)
    dim = axis(draw, len(s))
    k = draw(st.integers(0, 6))
    return Case("", (S(s), k, dim), {}, lambda: torch.chunk(T(s), k, dim))


@case("unbind")
def _unbind(draw: Draw) -> Case:
    s = shape(draw)
    dim = axis(draw, len(s))
    return Case("", (S(s), dim), {}, lambda: torch.unbind(T(s), dim))


@case("flip")
def _flip(draw: Draw) -> Case:
    s = shape(draw)
    dims = tuple(draw(st.lists(st.integers(-len(s) - 1, len(s)), max_size=3)))
    return Case("", (S(s), dims), {}, lambda: torch.flip(T(s), dims))


@case("roll")
def _roll(draw: Draw) -> Case:
    s = shape(draw)
    if draw(st.booleans()):
        return Case("", (S(s), 1), {}, lambda: torch.roll(T(s), 1))
    d = axis(draw, len(s))
    bad = not -max(len(s), 1) <= d < max(len(s), 1) or not s
    empty = 0 in s
    return Case("", (S(s), 1, d), {}, lambda: torch.roll(T(s), 1, d),
                deliberate="roll-empty" if bad and empty else None)


@case("narrow")
def _narrow(draw: Draw) -> Case:
    s = shape(draw)
    d = axis(draw, len(s))
    start, length = draw(st.integers(-4, 4)), draw(st.integers(0, 4))
    return Case("", (S(s), d, start, length), {}, lambda: torch.narrow(T(s), d, start, length))


@case("tril", "triu")
def _tril(draw: Draw) -> Case:
    s = shape(draw)
    k = draw(st.integers(-2, 2))
    c = Case("", (S(s), k), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), k)
    return c


@case("diagonal")
def _diagonal(draw: Draw) -> Case:
    s = shape(draw)
    off = draw(st.integers(-3, 3))
    a, b = axis(draw, len(s)), axis(draw, len(s))
    return Case("", (S(s), off, a, b), {}, lambda: torch.diagonal(T(s), off, a, b))


def _index_shape(draw: Draw, s: Dims, d: int) -> Dims:
    """An index tensor for gather/scatter: mostly no larger than ``s`` off ``dim``. Never empty:
    torch skips every check for an empty index (out of the oracle's scope)."""
    out = []
    for i, n in enumerate(s):
        out.append(draw(st.sampled_from([n, max(n - 1, 1), n + 1])) if i != (d % max(len(s), 1)) else draw(POS_SIZE))
    if draw(st.integers(0, 6)) == 0:
        out = list(shape(draw, sizes=POS_SIZE))
    return tuple(out)


@case("gather")
def _gather(draw: Draw) -> Case:
    s = shape(draw, sizes=POS_SIZE)
    d = axis(draw, len(s))
    idx = _index_shape(draw, s, d)
    return Case("", (S(s), d, S(idx)), {}, lambda: torch.gather(T(s), d, T(idx, "l")))


@case("scatter", "scatter_add")
def _scatter(draw: Draw) -> Case:
    s = shape(draw, sizes=POS_SIZE)
    d = axis(draw, len(s))
    idx = _index_shape(draw, s, d)
    src = tuple(n + draw(st.sampled_from([0, 0, 1, -1])) for n in idx)
    src = tuple(max(n, 1) for n in src)
    c = Case("", (S(s), d, S(idx), S(src)), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), d, T(idx, "l"), T(src))
    return c


@case("index_add")
def _index_add(draw: Draw) -> Case:
    s = shape(draw, lo=1, sizes=POS_SIZE)
    d = axis(draw, len(s))
    n = draw(st.integers(0, 3))
    idx = draw(st.sampled_from([(n,), (n,), ()]))
    src = list(s)
    if -len(s) <= d < len(s):
        src[d] = draw(st.sampled_from([n, n, n + 1])) if idx else 1
    src_t = tuple(src)
    return Case("", (S(s), d, S(idx), S(src_t)), {},
                lambda: torch.index_add(T(s), d, torch.zeros(idx, dtype=torch.long), T(src_t)))


@case("select")
def _select(draw: Draw) -> Case:
    s = shape(draw)
    d, i = axis(draw, len(s)), draw(st.integers(-3, 3))
    return Case("", (S(s), d, i), {}, lambda: torch.select(T(s), d, i))


@case("index_select")
def _index_select(draw: Draw) -> Case:
    s = shape(draw, sizes=POS_SIZE)
    d = axis(draw, len(s))
    idx = shape(draw, lo=0, hi=2)
    return Case("", (S(s), d, S(idx)), {}, lambda: torch.index_select(T(s), d, T(idx, "l")))


@case("masked_select")
def _masked_select(draw: Draw) -> Case:
    s = shape(draw)
    m = partner(draw, s)
    return Case("", (S(s), S(m)), {}, lambda: torch.masked_select(T(s), T(m, "b")))


@case("nonzero")
def _nonzero(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: torch.nonzero(T(s)))


@case("one_hot")
def _one_hot(draw: Draw) -> Case:
    s = shape(draw)
    k = draw(st.sampled_from([-1, 1, 2, 3]))
    return Case("", (S(s), k), {}, lambda: F.one_hot(T(s, "l"), k))


@case("pad")
def _pad(draw: Draw) -> Case:
    s = shape(draw, hi=5)
    mode = draw(st.sampled_from(["constant", "constant", "reflect", "replicate", "circular"]))
    pads = tuple(draw(st.lists(st.integers(-2, 3), max_size=6)))
    if mode == "constant":
        return Case("", (S(s), pads), {}, lambda: F.pad(T(s), pads))
    wraps_cropped = mode == "circular" and len(pads) // 2 <= len(s) and any(
        _circular_wraps_cropped(s[len(s) - 1 - i], pads[2 * i], pads[2 * i + 1]) for i in range(len(pads) // 2))
    return Case("", (S(s), pads), {"mode": mode}, lambda: F.pad(T(s), pads, mode=mode),
                deliberate="circular-pad-wraps-cropped" if wraps_cropped else None)


def _circular_wraps_cropped(n: int, lo: int, hi: int) -> bool:
    """A circular pad that wraps more than once around the part negative padding leaves
    (torch checks against the uncropped size and returns uninitialised memory)."""
    kept, out = n + min(lo, 0) + min(hi, 0), n + lo + hi
    return lo <= n and hi <= n and out > 0 and (kept <= 0 or lo > kept or hi > kept)


# ------------------------------------------------------------------------------------------------
# indexing


def _index(draw: Draw, put: bool) -> Case:
    s = shape(draw)
    key: list[Any] = []
    tkey: list[Any] = []
    pos = 0
    while pos < len(s) + 1 and draw(st.integers(0, 4)) > 0:
        n = s[pos] if pos < len(s) else 1
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "tensor", "bool"]))
        if kind == "int":
            i = draw(st.integers(-n - 1, n))
            key.append(i)
            tkey.append(i)
            pos += 1
        elif kind == "slice":
            a = draw(st.one_of(st.none(), st.integers(-6, 6)))
            b = draw(st.one_of(st.none(), st.integers(-6, 6)))
            c = draw(st.sampled_from([None, 1, 2, 3]))
            key.append(slice(a, b, c) if draw(st.booleans()) else SliceIndex(a, b, c))
            tkey.append(slice(a, b, c))
            pos += 1
        elif kind == "none":
            key.append(None)
            tkey.append(None)
        elif kind == "tensor" and n > 0:
            ishape = shape(draw, hi=2, sizes=st.sampled_from([1, 2, 3]))
            key.append(TensorIndex(S(ishape)))
            tkey.append(T(ishape, "l"))
            pos += 1
        elif kind == "bool" and not any(isinstance(k, TensorIndex) and k.is_bool for k in key):
            # one mask per key: two masks' True counts must agree, a value the rule cannot see
            k = draw(st.integers(0, 2))
            mshape = s[pos : pos + k] if draw(st.integers(0, 4)) else shape(draw, hi=2)
            key.append(TensorIndex(S(mshape), True))
            tkey.append(torch.ones(mshape, dtype=torch.bool))  # all True: a count the rule leaves unknown
            pos += max(len(mshape), 1)
    if key and draw(st.booleans()):
        at = draw(st.integers(0, len(key)))
        key.insert(at, Ellipsis)
        tkey.insert(at, Ellipsis)
    single = len(key) == 1 and draw(st.booleans())
    rkey: Any = key[0] if single else tuple(key)
    tk: Any = tkey[0] if single else tuple(tkey)
    c = Case("", (S(s), rkey), {}, lambda: T(s)[tk])
    if put:
        # index_put: x[key] = value, value shaped like a partner of the region (or a scalar)
        def assign(v: Any) -> Any:
            x = T(s)
            x[tk] = v
            return x

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                region: Dims | None = tuple(T(s)[tk].shape)
            except Exception:
                region = None
        v = partner(draw, region) if region is not None else shape(draw)
        if any(isinstance(k, TensorIndex) and k.is_bool for k in key):
            v = ()  # a mask's True count is a value the rule leaves unknown: put a scalar
        c_put = Case("", (S(s), rkey, S(v)), {}, lambda: assign(T(v)))
        return c_put
    return c


CASES["index"] = lambda draw: _renamed(_index(draw, False), "index")
CASES["index_put"] = lambda draw: _renamed(_index(draw, True), "index_put")


# ------------------------------------------------------------------------------------------------
# linalg


@case("matmul")
def _matmul(draw: Draw) -> Case:
    a = shape(draw)
    b = list(partner(draw, a[:-2]) if len(a) > 2 else shape(draw, hi=2))
    tail_b = draw(st.sampled_from(["mat", "mat", "vec", "none"]))
    k = a[-1] if a and draw(st.integers(0, 4)) else draw(SIZE)
    if tail_b == "mat":
        b = [*b, k, draw(SIZE)]
    elif tail_b == "vec":
        b = [k]
    b_t = tuple(b)
    return Case("", (S(a), S(b_t)), {}, lambda: torch.matmul(T(a), T(b_t)))


def _sig_pair(draw: Draw, ra: int, rb: int, ka: int, kb: int) -> tuple[Dims, Dims]:
    a = list(shape(draw, lo=ra, hi=ra))
    b = list(shape(draw, lo=rb, hi=rb))
    if draw(st.integers(0, 5)):
        if a and b:
            b[kb] = a[ka]
        if ra == 3 and rb == 3:
            b[0] = a[0] if draw(st.integers(0, 4)) else b[0]
    if draw(st.integers(0, 8)) == 0:
        a = list(shape(draw))
    return tuple(a), tuple(b)


_SIG = {"mm": (2, 2, -1, 0), "bmm": (3, 3, -1, 1), "mv": (2, 1, -1, 0), "dot": (1, 1, 0, 0), "outer": (1, 1, 0, 0)}


def _sig(name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        a, b = _sig_pair(draw, *_SIG[name])
        fn = getattr(torch, name)
        return Case(name, (S(a), S(b)), {}, lambda: fn(T(a), T(b)))

    return gen


for _n in _SIG:
    CASES[_n] = _sig(_n)


@case("linear")
def _linear(draw: Draw) -> Case:
    x = shape(draw, lo=0)
    fin = x[-1] if x and draw(st.integers(0, 4)) else draw(SIZE)
    out = draw(SIZE)
    w: Dims = (out, fin) if draw(st.integers(0, 5)) else shape(draw)
    b: Dims | None = None
    if len(w) == 2 and draw(st.booleans()):
        b = (out,) if draw(st.integers(0, 3)) else partner(draw, (out,), hi=1)  # torch folds x to 2-d
    return Case("", (S(x), S(w), S(b) if b is not None else None), {},
                lambda: F.linear(T(x), T(w), T(b) if b is not None else None))


@case("tensordot")
def _tensordot(draw: Draw) -> Case:
    a = shape(draw)
    if draw(st.booleans()):
        n = draw(st.integers(0, 3))
        b = tuple(a[len(a) - n:] if n <= len(a) and draw(st.integers(0, 4)) else shape(draw, lo=0, hi=n)) + shape(draw, hi=2)
        return Case("", (S(a), S(b), n), {}, lambda: torch.tensordot(T(a), T(b), n))
    b = shape(draw)
    k = draw(st.integers(0, min(2, len(a), len(b))))
    da = list(draw(st.lists(st.integers(-len(a), max(len(a) - 1, 0)), min_size=k, max_size=k, unique=True)))
    db = list(draw(st.lists(st.integers(-len(b), max(len(b) - 1, 0)), min_size=k, max_size=k, unique=True)))
    if draw(st.integers(0, 3)) and a and b:
        bl = list(b)
        for i, j in zip(da, db, strict=False):
            if -len(a) <= i < len(a) and -len(b) <= j < len(b):
                bl[j] = a[i]
        b = tuple(bl)
    return Case("", (S(a), S(b), (da, db)), {}, lambda: torch.tensordot(T(a), T(b), (da, db)))


@case("einsum")
def _einsum(draw: Draw) -> Case:
    letters = "ijkl"
    sizes = {ch: draw(SIZE) for ch in letters}
    n_ops = draw(st.integers(1, 3))
    terms: list[str] = []
    shapes: list[Dims] = []
    for _ in range(n_ops):
        term = "".join(draw(st.lists(st.sampled_from(letters), max_size=3)))
        dims = [sizes[ch] if draw(st.integers(0, 6)) else draw(SIZE) for ch in term]
        if draw(st.integers(0, 4)) == 0:
            ell = shape(draw, hi=2)
            term = "..." + term
            dims = list(ell) + dims
        if draw(st.integers(0, 10)) == 0:
            dims = [*dims, 2]
        terms.append(term)
        shapes.append(tuple(dims))
    eq = ",".join(terms)
    if draw(st.booleans()):
        used = sorted(set("".join(terms).replace(".", "")))
        out = "".join(draw(st.lists(st.sampled_from(used or ["i"]), max_size=3, unique=True)))
        if any("..." in t for t in terms) and draw(st.booleans()):
            out = "..." + out
        eq += "->" + out
    return Case("", (eq, *[S(s) for s in shapes]), {}, lambda: torch.einsum(eq, *[T(s) for s in shapes]))


# ------------------------------------------------------------------------------------------------
# nn.functional


def _pair(draw: Draw, values: st.SearchStrategy[int]) -> int | tuple[int, int]:
    if draw(st.booleans()):
        return int(draw(values))
    return (int(draw(values)), int(draw(values)))


def _image(draw: Draw, ranks: tuple[int, ...] = (3, 4, 4), channels: bool = False) -> Dims:
    rank = draw(st.sampled_from(ranks)) if draw(st.integers(0, 8)) else draw(st.integers(1, 5))
    out = shape(draw, lo=rank, hi=rank, sizes=st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7]))
    if channels and len(out) >= 3 and out[-3] == 0:
        # zero input channels: torch's conv returns odd empty shapes (an unbatched [0, H, W]
        # gives 0 output channels); out of the oracle's scope
        out = (*out[:-3], 1, *out[-2:])
    return out


@case("conv2d")
def _conv2d(draw: Draw) -> Case:
    x = _image(draw, channels=True)
    groups = draw(st.sampled_from([1, 1, 2]))
    cin = x[-3] if len(x) >= 3 and draw(st.integers(0, 5)) else draw(SIZE)
    cpg = cin // groups if cin % groups == 0 and draw(st.integers(0, 5)) else draw(POS_SIZE)
    out = groups * draw(st.integers(1, 2))
    w: Dims = (out, cpg, draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    if draw(st.integers(0, 10)) == 0:
        w = shape(draw)
    bias = (out,) if draw(st.booleans()) else None
    stride = _pair(draw, st.integers(1, 3))
    dilation = _pair(draw, st.integers(1, 2))
    padding: Any = draw(st.sampled_from(["same", "valid", "int", "int", "int"]))
    if padding == "int":
        padding = _pair(draw, st.integers(0, 2))
    kw = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    return Case("", (S(x), S(w), S(bias) if bias else None), kw,
                lambda: F.conv2d(T(x), T(w), T(bias) if bias else None, **kw))


def _pool_args(draw: Draw, dilation: bool) -> dict[str, Any]:
    kw: dict[str, Any] = {"kernel_size": _pair(draw, st.integers(1, 4))}
    if draw(st.booleans()):
        kw["stride"] = _pair(draw, st.integers(1, 3))
    if draw(st.booleans()):
        kw["padding"] = _pair(draw, st.integers(0, 2))
    if dilation and draw(st.booleans()):
        kw["dilation"] = _pair(draw, st.integers(1, 2))
    kw["ceil_mode"] = draw(st.booleans())
    return kw


@case("max_pool2d")
def _max_pool2d(draw: Draw) -> Case:
    x = _image(draw)
    kw = _pool_args(draw, True)
    return Case("", (S(x),), kw, lambda: F.max_pool2d(T(x), **kw))


@case("avg_pool2d")
def _avg_pool2d(draw: Draw) -> Case:
    x = _image(draw)
    kw = _pool_args(draw, False)
    return Case("", (S(x),), kw, lambda: F.avg_pool2d(T(x), **kw))


@case("adaptive_avg_pool2d")
def _adaptive(draw: Draw) -> Case:
    # torch's empty-input behaviour differs between its 3-d and 4-d paths; drawn non-empty
    x = tuple(max(d, 1) for d in _image(draw))
    size: Any = draw(st.integers(1, 4)) if draw(st.booleans()) or len(x) < 3 else (
        draw(st.one_of(st.none(), st.integers(1, 4))), draw(st.one_of(st.none(), st.integers(1, 4))))
    return Case("", (S(x), size), {}, lambda: F.adaptive_avg_pool2d(T(x), size),
                deliberate=None if len(x) in (3, 4) else "pool-rank")


@case("batch_norm")
def _batch_norm(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=5, sizes=POS_SIZE)
    c = x[1] if len(x) > 1 else 2
    stats = [(c,) if draw(st.integers(0, 5)) else (draw(POS_SIZE),) for _ in range(2)]
    wb = [((c,) if draw(st.integers(0, 5)) else (draw(POS_SIZE),)) if draw(st.booleans()) else None for _ in range(2)]
    return Case(
        "", (S(x), S(stats[0]), S(stats[1]), *(S(v) if v else None for v in wb)), {"training": False},
        lambda: F.batch_norm(T(x), T(stats[0]), T(stats[1]).abs(), *(T(v) if v else None for v in wb), training=False))


@case("layer_norm")
def _layer_norm(draw: Draw) -> Case:
    x = shape(draw)
    k = draw(st.integers(1, 3))
    ns = x[len(x) - k:] if k <= len(x) and draw(st.integers(0, 4)) else shape(draw, lo=1, hi=3)
    w = (ns if draw(st.integers(0, 4)) else shape(draw, lo=1, hi=2)) if draw(st.booleans()) else None
    return Case("", (S(x), ns, S(w) if w else None), {},
                lambda: F.layer_norm(T(x), ns, T(w) if w else None))


@case("group_norm")
def _group_norm(draw: Draw) -> Case:
    x = shape(draw, sizes=POS_SIZE)
    g = draw(st.integers(1, 3))
    return Case("", (S(x), g), {}, lambda: F.group_norm(T(x), g))


@case("embedding")
def _embedding(draw: Draw) -> Case:
    idx = shape(draw)
    w = (draw(POS_SIZE), draw(SIZE)) if draw(st.integers(0, 6)) else shape(draw, lo=1, sizes=POS_SIZE)
    return Case("", (S(idx), S(w)), {}, lambda: F.embedding(T(idx, "l"), T(w)))


@case("dropout2d")
def _dropout2d(draw: Draw) -> Case:
    x = shape(draw, hi=5)
    return Case("", (S(x),), {}, lambda: F.dropout2d(T(x)),
                deliberate=None if len(x) in (3, 4) else "dropout2d-rank")


@case("scaled_dot_product_attention")
def _sdpa(draw: Draw) -> Case:
    batch = shape(draw, hi=2, sizes=POS_SIZE)
    L, Sn, E, Ev = (draw(POS_SIZE) for _ in range(4))
    q = (*batch, L, E)
    k = (partner(draw, batch, 2) if draw(st.integers(0, 3)) == 0 else batch) + (Sn, E if draw(st.integers(0, 6)) else draw(POS_SIZE))
    v = (*batch, Sn, Ev)
    # torch needs a mask of at least 2 dims
    mask = (*shape(draw, hi=2), draw(st.sampled_from([L, 1, 3])), draw(st.sampled_from([Sn, 1]))) if draw(st.booleans()) else None
    return Case("", (S(q), S(k), S(v), S(mask) if mask is not None else None), {},
                lambda: F.scaled_dot_product_attention(T(q), T(k), T(v), T(mask) if mask is not None else None))


def _class_case(draw: Draw, probs: bool) -> tuple[Dims, Dims, str, Dims | None]:
    x = shape(draw, lo=1, hi=4, sizes=POS_SIZE)
    cdim = 0 if len(x) == 1 else 1
    without = x[:cdim] + x[cdim + 1:]
    roll = draw(st.integers(0, 9))
    if probs and roll < 3:
        y = x
    elif roll < 8:
        y = without
    else:
        y = shape(draw, sizes=POS_SIZE)
    # torch decides between class indices and probabilities by dtype; draw the dtype that goes
    # with the rank (a dtype mismatch is not a shape error)
    kind = "p" if probs and len(y) == len(x) else "l"
    w = ((x[cdim],) if draw(st.integers(0, 4)) else (draw(POS_SIZE),)) if draw(st.booleans()) else None
    return x, y, kind, w


@case("cross_entropy", "nll_loss")
def _class_loss(draw: Draw) -> Case:
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    c = Case("", (), {}, lambda: None)

    def finish() -> None:
        x, y, kind, w = _class_case(draw, c.op == "cross_entropy")
        c.pos = (S(x), S(y), S(w) if w else None)
        c.kw = {"reduction": red}
        c.torch_fn = lambda: getattr(F, c.op)(T(x), T(y, kind), T(w) if w else None, reduction=red)

    c.kw = {"__finish__": finish}
    return c


def _equal_loss(name: str, fn: Callable[..., Any], deliberate: bool) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = shape(draw)
        y = x if draw(st.booleans()) else partner(draw, x)
        red = draw(st.sampled_from(["mean", "sum", "none"]))
        kw: dict[str, Any] = {"reduction": red}
        tkw: dict[str, Any] = {"reduction": red}
        if name.startswith("binary") and draw(st.booleans()):
            wname = draw(st.sampled_from(["weight", "pos_weight"] if "logits" in name else ["weight"]))
            w = partner(draw, x)
            kw[wname], tkw[wname] = S(w), T(w, "p")
        return Case(name, (S(x), S(y)), kw, lambda: fn(T(x, "p"), T(y, "p"), **tkw),
                    deliberate="loss-broadcast" if deliberate and x != y else None)

    return gen


for _n, _fn, _d in (
    ("mse_loss", F.mse_loss, True), ("l1_loss", F.l1_loss, True), ("smooth_l1_loss", F.smooth_l1_loss, True),
    ("huber_loss", F.huber_loss, True), ("binary_cross_entropy", F.binary_cross_entropy, False),
    ("binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits, False),
):
    CASES[_n] = _equal_loss(_n, _fn, _d)


def draw_case(name: str, draw: Draw) -> Case:
    c = CASES[name](draw)
    finish = c.kw.pop("__finish__", None)
    if finish is not None:
        finish()
    return c


# ------------------------------------------------------------------------------------------------
# nn modules: constructor arguments, then forward


def _mod(name: str, ctor: tuple[tuple[Any, ...], dict[str, Any]], tctor: Callable[[], Any],
         x: Dims, extra: tuple[Any, ...] = (), textra: tuple[Any, ...] = (), kind: str = "f",
         deliberate: str | None = None) -> Case:
    def run() -> Any:
        m = tctor()
        m.eval()
        return m(T(x, kind), *textra)

    return Case(name, (S(x), *extra), {}, run, deliberate=deliberate, module=f"typedtensor.nn.{name}", ctor=ctor)


def _m_linear(draw: Draw) -> Case:
    x = shape(draw)
    i = x[-1] if x and draw(st.integers(0, 4)) else draw(SIZE)
    o = draw(SIZE)
    return _mod("Linear", ((i, o), {}), lambda: nn.Linear(i, o), x)


def _bilinear_shapes(draw: Draw) -> tuple[Dims, Dims, int, int]:
    x1 = shape(draw, lo=0, hi=3)
    batch = x1[:-1]
    if draw(st.integers(0, 5)) == 0:
        batch = shape(draw, hi=2)
    i2 = draw(SIZE)
    x2 = (*batch, i2) if draw(st.integers(0, 6)) else shape(draw, hi=2)
    i1 = x1[-1] if x1 and draw(st.integers(0, 4)) else draw(SIZE)
    j2 = x2[-1] if x2 and draw(st.integers(0, 4)) else draw(SIZE)
    return x1, x2, i1, j2


def _m_bilinear(draw: Draw) -> Case:
    x1, x2, i1, i2 = _bilinear_shapes(draw)
    bias = draw(st.booleans())
    return _mod("Bilinear", ((i1, i2, 3), {"bias": bias}), lambda: nn.Bilinear(i1, i2, 3, bias=bias), x1, (S(x2),),
                (T(x2),))


@case("bilinear")
def _bilinear(draw: Draw) -> Case:
    x1, x2, i1, i2 = _bilinear_shapes(draw)
    w = (2, i1, i2) if draw(st.integers(0, 6)) else shape(draw, hi=3)
    b = None if draw(st.booleans()) else ((2,) if draw(st.integers(0, 4)) else shape(draw, hi=2))
    return Case("", (S(x1), S(x2), S(w), None if b is None else S(b)), {},
                lambda: F.bilinear(T(x1), T(x2), T(w), None if b is None else T(b)))


def _m_conv(draw: Draw) -> Case:
    x = _image(draw, channels=True)
    cin = x[-3] if len(x) >= 3 and draw(st.integers(0, 5)) else draw(POS_SIZE)
    k = _pair(draw, st.integers(1, 3))
    kw = {"stride": _pair(draw, st.integers(1, 2)), "padding": _pair(draw, st.integers(0, 1))}
    return _mod("Conv2d", ((cin, 2, k), kw), lambda: nn.Conv2d(cin, 2, k, **kw), x)


def _m_pool(name: str, dilation: bool) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = _image(draw)
        kw = _pool_args(draw, dilation)
        k = kw.pop("kernel_size")
        return _mod(name, ((k,), kw), lambda: getattr(nn, name)(k, **kw), x)

    return gen


def _m_adaptive(draw: Draw) -> Case:
    x = tuple(max(d, 1) for d in _image(draw))
    size = draw(st.integers(1, 3))
    return _mod("AdaptiveAvgPool2d", ((size,), {}), lambda: nn.AdaptiveAvgPool2d(size), x,
                deliberate=None if len(x) in (3, 4) else "pool-rank")


def _m_bn(name: str, ranks: tuple[int, ...]) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        rank = draw(st.sampled_from(ranks)) if draw(st.integers(0, 4)) else draw(st.integers(1, 5))
        x = shape(draw, lo=rank, hi=rank, sizes=POS_SIZE)
        c = x[1] if len(x) > 1 and draw(st.integers(0, 4)) else draw(POS_SIZE)
        return _mod(name, ((c,), {}), lambda: getattr(nn, name)(c), x)

    return gen


def _m_layernorm(draw: Draw) -> Case:
    x = shape(draw, lo=1)
    ns = x[-1:] if draw(st.integers(0, 4)) else (draw(POS_SIZE),)
    return _mod("LayerNorm", ((ns,), {}), lambda: nn.LayerNorm(ns), x)


def _m_embedding(draw: Draw) -> Case:
    idx = shape(draw)
    v, d = draw(POS_SIZE), draw(SIZE)
    return _mod("Embedding", ((v, d), {}), lambda: nn.Embedding(v, d), idx, kind="l")


def _m_same(name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = shape(draw, hi=5 if name == "Dropout2d" else 4)
        bad = name == "Dropout2d" and len(x) not in (3, 4)
        return _mod(name, ((), {}), lambda: getattr(nn, name)(), x, deliberate="dropout2d-rank" if bad else None)

    return gen


def _m_dropout1d(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=4)
    return _mod("Dropout1d", ((), {}), lambda: nn.Dropout1d(), x)


def _m_feature_alpha_dropout(draw: Draw) -> Case:
    x = shape(draw, lo=2, hi=5)
    return _mod("FeatureAlphaDropout", ((), {}), lambda: nn.FeatureAlphaDropout(), x)


def _m_dropout3d(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=5)
    return _mod("Dropout3d", ((), {}), lambda: nn.Dropout3d(), x)


@case("dropout1d", "dropout3d")
def _channel_dropout(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=5)
    c = Case("", (S(x),), {}, lambda: None)
    c.torch_fn = lambda: getattr(F, c.op)(T(x))
    return c


def _m_softmax(name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = shape(draw)
        d = axis(draw, len(x))
        return _mod(name, ((d,), {}), lambda: getattr(nn, name)(d), x)

    return gen


def _m_flatten(draw: Draw) -> Case:
    x = shape(draw)
    a, b = axis(draw, len(x)), axis(draw, len(x))
    return _mod("Flatten", ((a, b), {}), lambda: nn.Flatten(a, b), x)


def _m_unflatten(draw: Draw) -> Case:
    """A dim split into sizes whose product is its size, or (sometimes) is not; one size may be -1."""
    x = shape(draw, lo=1)
    d = axis(draw, len(x))  # sometimes out of range: a shape-axis case
    n = x[d] if -len(x) <= d < len(x) else 6
    first = draw(st.sampled_from([f for f in range(1, n + 1) if n % f == 0])) if n > 0 else 0
    sizes = [first, n // first if first else 0]
    if draw(st.integers(0, 4)) == 0:
        sizes[1] += 1
    if draw(st.integers(0, 2)) == 0:
        sizes[draw(st.integers(0, 1))] = -1
    return _mod("Unflatten", ((d, tuple(sizes)), {}), lambda: nn.Unflatten(d, tuple(sizes)), x)


def _m_mha(draw: Draw) -> Case:
    """Inputs in both layouts, batched or not; the key's batch and the two masks sometimes wrong."""
    heads = draw(st.integers(1, 3))
    e = heads * draw(st.integers(1, 2)) if draw(st.integers(0, 5)) else draw(POS_SIZE)
    bf = draw(st.booleans())
    batched = draw(st.integers(0, 3)) > 0
    n, L, Sn = draw(POS_SIZE), draw(POS_SIZE), draw(POS_SIZE)
    nk = n if draw(st.integers(0, 5)) else draw(POS_SIZE)

    def seq(length: int, emb: int, batch: int) -> Dims:
        if not batched:
            return (length, emb)
        return (batch, length, emb) if bf else (length, batch, emb)

    q = seq(L, e if draw(st.integers(0, 6)) else draw(POS_SIZE), n)
    k = seq(Sn, e, nk)
    v = seq(Sn if draw(st.integers(0, 6)) else draw(POS_SIZE), e, nk)
    padding: Dims | None = None
    attn: Dims | None = None
    choice = draw(st.integers(0, 5))
    if choice == 1:
        padding = (n, Sn) if batched else (Sn,)
    elif choice == 2:
        padding = (Sn, n)
    elif choice == 3:
        attn = (L, Sn) if draw(st.booleans()) or not batched else (n * heads, L, Sn)
    elif choice == 4:
        attn = (n, L, Sn) if batched else (L, Sn + 1)
    elif choice == 5:
        attn = (draw(POS_SIZE), draw(POS_SIZE))
    kw = {name: S(dims) for name, dims in (("key_padding_mask", padding), ("attn_mask", attn)) if dims is not None}
    tkw = {name: T(dims, "b") for name, dims in (("key_padding_mask", padding), ("attn_mask", attn)) if dims is not None}
    c = Case("MultiheadAttention", (S(q), S(k), S(v)), kw, lambda: None, module="typedtensor.nn.MultiheadAttention",
             ctor=((e, heads), {"batch_first": bf}))
    c.torch_fn = lambda: nn.MultiheadAttention(e, heads, batch_first=bf).eval()(T(q), T(k), T(v), **tkw)
    return c


def _m_loss(name: str, op_name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        c = draw_case(op_name, draw)
        x, y = c.pos[0], c.pos[1]
        red = c.kw.get("reduction", "mean")
        inner = c.torch_fn
        return Case(name, (x, y), {}, inner, deliberate=c.deliberate, module=f"typedtensor.nn.{name}",
                    ctor=((), {"reduction": red, **({"weight": c.pos[2]} if len(c.pos) > 2 and c.pos[2] is not None else {}),
                               **{k: v for k, v in c.kw.items() if k in ("weight", "pos_weight")}}))

    return gen


MODULE_CASES.update({
    "typedtensor.nn.Linear": _m_linear, "typedtensor.nn.Bilinear": _m_bilinear, "typedtensor.nn.Conv2d": _m_conv,
    "typedtensor.nn.MaxPool2d": _m_pool("MaxPool2d", True), "typedtensor.nn.AvgPool2d": _m_pool("AvgPool2d", False),
    "typedtensor.nn.AdaptiveAvgPool2d": _m_adaptive,
    "typedtensor.nn.BatchNorm1d": _m_bn("BatchNorm1d", (2, 3)), "typedtensor.nn.BatchNorm2d": _m_bn("BatchNorm2d", (4,)),
    "typedtensor.nn.LayerNorm": _m_layernorm, "typedtensor.nn.Embedding": _m_embedding,
    "typedtensor.nn.Softmax": _m_softmax("Softmax"), "typedtensor.nn.LogSoftmax": _m_softmax("LogSoftmax"),
    "typedtensor.nn.Flatten": _m_flatten, "typedtensor.nn.Unflatten": _m_unflatten, "typedtensor.nn.MultiheadAttention": _m_mha,
    **{f"typedtensor.nn.{n}": _m_same(n) for n in (
        "ReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "Identity", "Dropout", "Dropout2d", "LeakyReLU", "Softplus",
        "Softsign", "AlphaDropout")},
    "typedtensor.nn.Dropout1d": _m_dropout1d, "typedtensor.nn.Dropout3d": _m_dropout3d,
    "typedtensor.nn.FeatureAlphaDropout": _m_feature_alpha_dropout,
    **{f"typedtensor.nn.{n}": _m_loss(n, o) for n, o in (
        ("CrossEntropyLoss", "cross_entropy"), ("NLLLoss", "nll_loss"), ("MSELoss", "mse_loss"),
        ("L1Loss", "l1_loss"), ("BCELoss", "binary_cross_entropy"),
        ("BCEWithLogitsLoss", "binary_cross_entropy_with_logits"))},
})


@case("cdist")
def _cdist(draw: Draw) -> Case:
    a = shape(draw, lo=1, hi=4)
    batch = partner(draw, a[:-2], hi=2) if len(a) > 2 else ()
    b = (*batch, draw(SIZE), a[-1] if draw(st.integers(0, 4)) else draw(SIZE)) if a else (draw(SIZE),)
    if draw(st.integers(0, 5)) == 0:
        b = b[-1:]
    return Case("", (S(a), S(b)), {}, lambda: torch.cdist(T(a), T(b)))


@case("pdist")
def _pdist(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3)
    p = draw(st.sampled_from([2.0, 0.0, 1.0, float("inf"), -1.0]))
    return Case("", (S(s), p), {}, lambda: torch.pdist(T(s), p))


@case("sort", "argsort")
def _sort(draw: Draw) -> Case:
    s = shape(draw)
    d = axis(draw, len(s))
    c = Case("", (S(s), d), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), d)
    return c


@case("topk")
def _topk(draw: Draw) -> Case:
    s = shape(draw)
    d, k = axis(draw, len(s)), draw(st.integers(0, 4))
    return Case("", (S(s), k, d), {}, lambda: torch.topk(T(s), k, d))


@case("hstack", "vstack")
def _hvstack(draw: Draw) -> Case:
    shapes = [shape(draw, lo=1, hi=3) for _ in range(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        shapes = [shapes[0]] * len(shapes)
    c = Case("", ([S(x) for x in shapes],), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)([T(x) for x in shapes])
    return c


@case("broadcast_tensors")
def _broadcast_tensors(draw: Draw) -> Case:
    a = shape(draw)
    others = [partner(draw, a) for _ in range(draw(st.integers(0, 2)))]
    shapes = [a, *others]
    return Case("", tuple(S(x) for x in shapes), {}, lambda: torch.broadcast_tensors(*[T(x) for x in shapes]))


@case("isclose")
def _isclose(draw: Draw) -> Case:
    a = shape(draw)
    b = partner(draw, a)
    return Case("", (S(a), S(b)), {}, lambda: torch.isclose(T(a), T(b)))


@case("copy")
def _copy(draw: Draw) -> Case:
    a = shape(draw)
    b = partner(draw, a)
    return Case("", (S(a), S(b)), {}, lambda: T(a).copy_(T(b)))


@case("nan_to_num", "bernoulli")
def _same_p(draw: Draw) -> Case:
    s = shape(draw)
    c = Case("", (S(s),), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s, "p"))
    return c


@case("type_as")
def _type_as(draw: Draw) -> Case:
    a, b = shape(draw), shape(draw)
    return Case("", (S(a), S(b)), {}, lambda: T(a).type_as(T(b, "l")))


@case("new_zeros", "new_ones", "new_empty")
def _new_factory(draw: Draw) -> Case:
    sizes = _sizes(draw)
    c = Case("", sizes, {}, lambda: None)
    c.torch_fn = lambda: getattr(T((2,)), c.op)(sizes)
    return c


@case("new_full")
def _new_full(draw: Draw) -> Case:
    sizes = _sizes(draw)
    return Case("", (sizes, 1.5), {}, lambda: T((2,)).new_full(sizes, 1.5))


@case("new_tensor")
def _new_tensor(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: T((2,)).new_tensor(T(s)))


@case("normal")
def _normal(draw: Draw) -> Case:
    if draw(st.booleans()):
        sizes = _sizes(draw)
        return Case("", (0.0, 1.0, sizes), {}, lambda: torch.normal(0.0, 1.0, sizes))
    m = shape(draw)
    sd = partner(draw, m) if draw(st.booleans()) else None
    return Case("", (S(m), S(sd) if sd is not None else 1.0), {},
                lambda: torch.normal(T(m), T(sd, "p") if sd is not None else 1.0))


@case("uniform", "exponential", "random")
def _fill_in_place(draw: Draw) -> Case:
    s = shape(draw)
    c = Case("", (S(s),), {}, lambda: None)
    c.torch_fn = lambda: getattr(T(s), f"{c.op}_")()
    return c


@case("multinomial")
def _multinomial(draw: Draw) -> Case:
    s = shape(draw, lo=0, hi=3, sizes=POS_SIZE)
    k = draw(st.integers(1, 3))
    return Case("", (S(s), k, True), {}, lambda: torch.multinomial(T(s, "p") + 0.1, k, True))


@case("randperm")
def _randperm(draw: Draw) -> Case:
    n = draw(st.integers(0, 5))
    return Case("", (n,), {}, lambda: torch.randperm(n))


@case("randint_like")
def _randint_like(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s), 5), {}, lambda: torch.randint_like(T(s), 5))


@case("normalize")
def _normalize(draw: Draw) -> Case:
    s = shape(draw)
    d = axis(draw, len(s))
    return Case("", (S(s),), {"dim": d}, lambda: F.normalize(T(s), dim=d))


# ------------------------------------------------------------------------------------------------
# recurrent modules (typedtensor/shapes/rules/recurrent.py)


def _maybe_wrong(draw: Draw, dims: Dims) -> Dims:
    """``dims``, or sometimes one of them changed or the rank changed (a wrong initial state)."""
    pick = draw(st.integers(0, 5))
    if pick == 0 and dims:
        i = draw(st.integers(0, len(dims) - 1))
        return (*dims[:i], dims[i] + draw(st.integers(1, 2)), *dims[i + 1:])
    if pick == 1:
        return dims[1:] if len(dims) == 3 else (1, *dims)
    return dims


def _m_sequence(name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = tuple(draw(POS_SIZE) for _ in range(draw(st.sampled_from([1, 2, 3, 3, 3, 4]))))
        i = x[-1] if draw(st.integers(0, 4)) else draw(POS_SIZE)
        hidden = draw(st.integers(2, 4))
        kw: dict[str, Any] = {"num_layers": draw(st.integers(1, 2)), "batch_first": draw(st.booleans()),
                              "bidirectional": draw(st.booleans())}
        if name == "LSTM" and draw(st.booleans()):
            kw["proj_size"] = 1
        if name == "RNN" and draw(st.booleans()):
            kw["nonlinearity"] = "relu"
        hx: Any = None
        fwd: dict[str, Any] = {}
        if len(x) in (2, 3) and draw(st.booleans()):
            layers = kw["num_layers"] * (2 if kw["bidirectional"] else 1)
            batch = () if len(x) == 2 else (x[0] if kw["batch_first"] else x[1],)
            h = _maybe_wrong(draw, (layers, *batch, kw.get("proj_size", hidden)))
            if name == "LSTM":
                c = _maybe_wrong(draw, (layers, *batch, hidden))
                hx, fwd = (T(h), T(c)), {"hx": (S(h), S(c))}
            else:
                hx, fwd = T(h), {"hx": S(h)}
        c = Case(name, (S(x),), fwd, lambda: None, module=f"typedtensor.nn.{name}", ctor=((i, hidden), kw))
        c.torch_fn = lambda: getattr(nn, name)(i, hidden, **kw)(T(x), hx)
        return c

    return gen


def _m_cell(name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = tuple(draw(POS_SIZE) for _ in range(draw(st.sampled_from([1, 2, 2, 3]))))
        i = x[-1] if draw(st.integers(0, 4)) else draw(POS_SIZE)
        hidden = draw(st.integers(2, 4))
        hx: Any = None
        fwd: dict[str, Any] = {}
        if len(x) in (1, 2) and draw(st.booleans()):
            h = _maybe_wrong(draw, (*x[:-1], hidden))
            if name == "LSTMCell":
                c = _maybe_wrong(draw, (*x[:-1], hidden))
                hx, fwd = (T(h), T(c)), {"hx": (S(h), S(c))}
            else:
                hx, fwd = T(h), {"hx": S(h)}
        c = Case(name, (S(x),), fwd, lambda: None, module=f"typedtensor.nn.{name}", ctor=((i, hidden), {}))
        c.torch_fn = lambda: getattr(nn, name)(i, hidden)(T(x), hx)
        return c

    return gen


MODULE_CASES.update({
    **{f"typedtensor.nn.{n}": _m_sequence(n) for n in ("RNN", "LSTM", "GRU")},
    **{f"typedtensor.nn.{n}": _m_cell(n) for n in ("RNNCell", "LSTMCell", "GRUCell")},
})


def draw_any(name: str, draw: Draw) -> Case:
    """One case for an op name or a module name."""
    if name in MODULE_CASES:
        return MODULE_CASES[name](draw)
    return draw_case(name, draw)


def uncovered() -> tuple[list[str], list[str]]:
    ops = sorted(n for n in all_ops() if n not in CASES and n not in SKIP)
    mods = sorted(n for n in all_modules() if n not in MODULE_CASES)
    return ops, mods


# ------------------------------------------------------------------------------------------------
# the surface ops (rules/surface.py); index values are kept valid (0 into non-empty dims)


@case("addcdiv")
def _addcdiv(draw: Draw) -> Case:
    s = shape(draw)
    a, b = partner(draw, s), partner(draw, s)
    return Case("", (S(s), S(a), S(b)), {}, lambda: torch.addcdiv(T(s), T(a), T(b)))


@case("clamp_min", "clamp_max")
def _clamp_side(draw: Draw) -> Case:
    s = shape(draw)
    b = partner(draw, s) if draw(st.booleans()) else None
    c = Case("", (S(s), S(b) if b is not None else 0.5), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), T(b) if b is not None else 0.5)
    return c


@case("trace")
def _trace(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3)
    return Case("", (S(s),), {}, lambda: torch.trace(T(s)))


@case("diag")
def _diag(draw: Draw) -> Case:
    s = shape(draw, lo=0, hi=3)
    k = draw(st.integers(-3, 3))
    return Case("", (S(s), k), {}, lambda: torch.diag(T(s), k))


@case("diag_embed")
def _diag_embed(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3)
    k = draw(st.integers(-2, 2))
    d1, d2 = draw(st.integers(-len(s) - 1, len(s))), draw(st.integers(-len(s) - 1, len(s)))
    return Case("", (S(s), k, d1, d2), {}, lambda: torch.diag_embed(T(s), k, d1, d2))


def _addmm_gen(op: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        m, k, n, b = (draw(SIZE) for _ in range(4))

        def pick(*dims: int) -> Dims:
            return tuple(draw(st.sampled_from([d, d, d, 1, 2])) for d in dims)

        if op == "addmm":
            x, p, q = pick(m, n)[draw(st.integers(0, 1)):], pick(m, k), pick(k, n)
        elif op == "addmv":
            x, p, q = pick(m)[draw(st.integers(0, 1)):], pick(m, k), pick(k)
        else:
            x, p, q = pick(b, m, n)[draw(st.integers(0, 2)):], pick(b, m, k), pick(b, k, n)
        return Case(op, (S(x), S(p), S(q)), {}, lambda: getattr(torch, op)(T(x), T(p), T(q)))

    return gen


for _op in ("addmm", "addmv", "baddbmm"):
    CASES[_op] = _addmm_gen(_op)


@case("kron")
def _kron(draw: Draw) -> Case:
    a, b = shape(draw, hi=3), shape(draw, hi=3)
    return Case("", (S(a), S(b)), {}, lambda: torch.kron(T(a), T(b)))


@case("cross")
def _cross(draw: Draw) -> Case:
    s = list(shape(draw, lo=1, hi=3))
    s[draw(st.integers(0, len(s) - 1))] = draw(st.sampled_from([3, 3, 3, 2]))
    o = tuple(draw(st.sampled_from([d, d, 1])) if d != 3 else 3 for d in s)
    d = draw(st.sampled_from([None, *range(-len(s), len(s))]))
    dims = tuple(s)
    return Case("", (S(dims), S(o), d), {}, lambda: torch.linalg.cross(T(dims), T(o), dim=-1 if d is None else d)
                if d is None and 3 not in dims else torch.cross(T(dims), T(o), dim=d))


@case("tile")
def _tile(draw: Draw) -> Case:
    s = shape(draw)
    reps = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    return Case("", (S(s), reps), {}, lambda: torch.tile(T(s), reps))


@case("ravel")
def _ravel(draw: Draw) -> Case:
    s = shape(draw)
    return Case("", (S(s),), {}, lambda: torch.ravel(T(s)))


@case("rot90")
def _rot90(draw: Draw) -> Case:
    s = shape(draw, lo=2, hi=4)
    k = draw(st.integers(-5, 5))
    dims = (draw(st.integers(-len(s), len(s) - 1)), draw(st.integers(-len(s), len(s) - 1)))
    return Case("", (S(s), k, dims), {}, lambda: torch.rot90(T(s), k, dims))


@case("diff")
def _diff(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3)
    n = draw(st.integers(0, 3))
    d = draw(st.integers(-len(s), len(s) - 1))
    pre = tuple(draw(SIZE) if i == d % len(s) else x for i, x in enumerate(s)) if draw(st.booleans()) else None
    return Case("", (S(s), n, d, S(pre) if pre is not None else None), {},
                lambda: torch.diff(T(s), n, d, T(pre) if pre is not None else None))


@case("take")
def _take(draw: Draw) -> Case:
    s, i = shape(draw, sizes=POS_SIZE), shape(draw)
    return Case("", (S(s), S(i)), {}, lambda: torch.take(T(s), T(i, "l")))


@case("take_along_dim")
def _take_along_dim(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3, sizes=POS_SIZE)
    i = tuple(draw(st.sampled_from([x, 1, 2])) for x in s)
    d = draw(st.sampled_from([None, *range(-len(s), len(s))]))
    return Case("", (S(s), S(i), d), {}, lambda: torch.take_along_dim(T(s), T(i, "l"), d))


@case("index_fill")
def _index_fill(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3, sizes=POS_SIZE)
    d = draw(st.integers(-len(s), len(s) - 1))
    return Case("", (S(s), d, S((1,)), 0.5), {}, lambda: torch.index_fill(T(s), d, T((1,), "l"), 0.5))


@case("index_copy")
def _index_copy(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3, sizes=POS_SIZE)
    d = draw(st.integers(-len(s), len(s) - 1))
    src = tuple(1 if i == d % len(s) else x for i, x in enumerate(s))
    if draw(st.integers(0, 4)) == 0:
        src = tuple(reversed(src))
    return Case("", (S(s), d, S((1,)), S(src)), {}, lambda: torch.index_copy(T(s), d, T((1,), "l"), T(src)))


@case("masked_scatter")
def _masked_scatter(draw: Draw) -> Case:
    s = shape(draw)
    m = partner(draw, s)
    return Case("", (S(s), S(m), S((200,))), {}, lambda: torch.masked_scatter(T(s), T(m, "b"), T((200,))))


@case("repeat_interleave")
def _repeat_interleave(draw: Draw) -> Case:
    s = shape(draw, lo=0, hi=3)
    r = draw(st.integers(0, 3))
    d = draw(st.sampled_from([None, *range(-max(len(s), 1), max(len(s), 1))]))
    return Case("", (S(s), r, d), {}, lambda: torch.repeat_interleave(T(s), r, d))


@case("triu_indices", "tril_indices")
def _tri_indices(draw: Draw) -> Case:
    r, col, k = draw(st.integers(0, 5)), draw(st.integers(0, 5)), draw(st.integers(-6, 6))
    c = Case("", (r, col, k), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(r, col, k)
    return c


@case("meshgrid", "cartesian_prod")
def _grids(draw: Draw) -> Case:
    sizes = draw(st.lists(SIZE, min_size=1, max_size=3))
    c = Case("", tuple(S((n,)) for n in sizes), {}, lambda: None)
    c.torch_fn = lambda: (torch.meshgrid(*(T((n,)) for n in sizes), indexing="ij") if c.op == "meshgrid"
                          else torch.cartesian_prod(*(T((n,)) for n in sizes)))
    return c


@case("unique", "unique_consecutive")
def _unique(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=3)
    d = draw(st.sampled_from([None, *range(-len(s), len(s))]))
    inv, cnt = draw(st.booleans()), draw(st.booleans())
    c = Case("", (S(s),), {"return_inverse": inv, "return_counts": cnt, "dim": d}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s, "l"), return_inverse=inv, return_counts=cnt, dim=d)
    return c


@case("bincount")
def _bincount(draw: Draw) -> Case:
    s = shape(draw, lo=1, hi=1)
    w = s if draw(st.booleans()) else None
    return Case("", (S(s), S(w) if w is not None else None), {},
                lambda: torch.bincount(T(s, "l"), T(w) if w is not None else None))


@case("histc")
def _histc(draw: Draw) -> Case:
    s = shape(draw)
    bins = draw(st.integers(1, 6))
    return Case("", (S(s), bins), {}, lambda: torch.histc(T(s), bins))


@case("searchsorted")
def _searchsorted(draw: Draw) -> Case:
    v = shape(draw, lo=1, hi=3)
    seq = (*v[:-1], draw(SIZE)) if draw(st.booleans()) else (draw(SIZE),)
    return Case("", (S(seq), S(v)), {}, lambda: torch.searchsorted(T(seq).sort().values, T(v)))


@case("bucketize")
def _bucketize(draw: Draw) -> Case:
    v, b = shape(draw), (draw(SIZE),)
    return Case("", (S(v), S(b)), {}, lambda: torch.bucketize(T(v), T(b).sort().values))
# ---- statistics (rules/statistics.py) and arrangement (rules/arrangement.py) ----


@case("std_mean", "var_mean")
def _moments(draw: Draw) -> Case:
    s = shape(draw)
    d = draw(st.sampled_from([None, axis(draw, len(s))]))
    keep = draw(st.booleans())
    c = Case("", (S(s), d), {"keepdim": keep}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), d, keepdim=keep)
    return c


@case("kthvalue")
def _kthvalue(draw: Draw) -> Case:
    s = shape(draw, hi=3)
    d, k = axis(draw, len(s)), draw(st.integers(0, 4))
    keep = draw(st.booleans())
    return Case("", (S(s), k, d, keep), {}, lambda: torch.kthvalue(T(s), k, d, keep))


@case("msort")
def _msort(draw: Draw) -> Case:
    s = shape(draw, lo=1)
    return Case("", (S(s),), {}, lambda: torch.msort(T(s)))


@case("cummax", "cummin")
def _cumulative_extreme(draw: Draw) -> Case:
    s = shape(draw)
    d = axis(draw, len(s))
    bad = not -max(len(s), 1) <= d < max(len(s), 1)
    c = Case("", (S(s), d), {}, lambda: None, deliberate="cumulative-extreme-empty" if bad and 0 in s else None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), d)
    return c


@case("nanmedian")
def _nanmedian(draw: Draw) -> Case:
    s = shape(draw, sizes=POS_SIZE)
    d = draw(st.sampled_from([None, axis(draw, len(s))]))
    keep = draw(st.booleans())
    return Case("", (S(s), d, keep), {}, lambda: torch.nanmedian(T(s)) if d is None else torch.nanmedian(T(s), d, keep))


@case("quantile", "nanquantile")
def _quantile(draw: Draw) -> Case:
    s = shape(draw, hi=3)
    q: Any = draw(st.sampled_from([0.5, (2,), (3,), (1, 2)]))
    d = draw(st.sampled_from([None, axis(draw, len(s))]))
    keep = draw(st.booleans())
    c = Case("", (S(s), S(q) if isinstance(q, tuple) else q, d, keep), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), torch.rand(q) if isinstance(q, tuple) else q, d, keep)
    return c


@case("cov", "corrcoef")
def _cov(draw: Draw) -> Case:
    s = shape(draw, hi=3, sizes=POS_SIZE)
    c = Case("", (S(s),), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s))
    return c


@case("isin")
def _isin(draw: Draw) -> Case:
    a, b = shape(draw), shape(draw)
    return Case("", (S(a), S(b)), {}, lambda: torch.isin(T(a, "l"), T(b, "l")))


@case("tensor_split")
def _tensor_split(draw: Draw) -> Case:
    s = shape(draw, hi=3)
    spec: Any = draw(st.one_of(st.integers(0, 4), st.lists(st.integers(-5, 6), max_size=3)))
    d = axis(draw, len(s))
    return Case("", (S(s), spec, d), {}, lambda: torch.tensor_split(T(s), spec, d))


@case("hsplit", "vsplit", "dsplit")
def _directional_split(draw: Draw) -> Case:
    s = shape(draw, hi=4)
    spec: Any = draw(st.one_of(st.integers(0, 3), st.lists(st.integers(-4, 5), max_size=3)))
    c = Case("", (S(s), spec), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(T(s), spec)
    return c


@case("atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(draw: Draw) -> Case:
    shapes = [shape(draw, hi=4) for _ in range(draw(st.integers(1, 3)))]
    c = Case("", tuple(S(x) for x in shapes), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)(*[T(x) for x in shapes])
    return c


@case("column_stack", "row_stack", "dstack")
def _stacks(draw: Draw) -> Case:
    shapes = [shape(draw, hi=3) for _ in range(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        shapes = [shapes[0]] * len(shapes)
    c = Case("", ([S(x) for x in shapes],), {}, lambda: None)
    c.torch_fn = lambda: getattr(torch, c.op)([T(x) for x in shapes])
    return c


@case("block_diag")
def _block_diag(draw: Draw) -> Case:
    shapes = [shape(draw, hi=3) for _ in range(draw(st.integers(0, 3)))]
    return Case("", tuple(S(x) for x in shapes), {}, lambda: torch.block_diag(*[T(x) for x in shapes]))


@case("diagflat")
def _diagflat(draw: Draw) -> Case:
    s = shape(draw, hi=3)
    k = draw(st.integers(-2, 2))
    return Case("", (S(s), k), {}, lambda: torch.diagflat(T(s), k))


@case("logspace")
def _logspace(draw: Draw) -> Case:
    n = draw(st.integers(-1, 4))
    return Case("", (0.0, 2.0, n), {}, lambda: torch.logspace(0.0, 2.0, n))


@case("channel_shuffle")
def _channel_shuffle(draw: Draw) -> Case:
    s = shape(draw, hi=5)
    g = draw(st.integers(0, 4))
    return Case("", (S(s), g), {}, lambda: torch.nn.functional.channel_shuffle(T(s), g))


@case("upsample", "upsample_nearest", "upsample_bilinear")
def _upsample(draw: Draw) -> Case:
    s = shape(draw, lo=3, hi=5, sizes=POS_SIZE)
    if draw(st.booleans()):
        kw: dict[str, Any] = {"size": tuple(draw(POS_SIZE) for _ in s[2:])}
    else:
        kw = {"scale_factor": draw(st.sampled_from([1, 2, 0.5]))}
    c = Case("", (S(s),), kw, lambda: None)
    c.torch_fn = lambda: getattr(torch.nn.functional, c.op)(T(s), **kw)
    return c


@case("gumbel_softmax")
def _gumbel_softmax(draw: Draw) -> Case:
    s = shape(draw, lo=1)
    d = axis(draw, len(s))
    return Case("", (S(s),), {"dim": d}, lambda: torch.nn.functional.gumbel_softmax(T(s), dim=d))


@case("grid_sample")
def _grid_sample(draw: Draw) -> Case:
    rank = draw(st.sampled_from([3, 4, 4, 5, 5]))
    x = shape(draw, lo=rank, hi=rank, sizes=SIZE if draw(st.integers(0, 4)) == 0 else POS_SIZE)
    g_rank = rank if draw(st.integers(0, 5)) else draw(st.sampled_from([4, 5]))
    g = [x[0] if x and draw(st.integers(0, 5)) else draw(POS_SIZE)]
    g += [draw(POS_SIZE) for _ in range(g_rank - 2)]
    g.append(max(g_rank - 2, 1) if draw(st.integers(0, 5)) else draw(st.sampled_from([1, 2, 3])))
    kw = {"mode": draw(st.sampled_from(["bilinear", "nearest", "bicubic"])), "align_corners": draw(st.booleans())}
    return Case("", (S(x), S(tuple(g))), kw, lambda: F.grid_sample(T(x), T(tuple(g)), **kw))


@case("affine_grid")
def _affine_grid(draw: Draw) -> Case:
    nd = draw(st.sampled_from([2, 2, 3]))
    rank = draw(st.sampled_from([nd + 2, nd + 2, nd + 2, 3, 6]))
    size = tuple(draw(SIZE if draw(st.integers(0, 4)) == 0 else POS_SIZE) for _ in range(rank))
    n = size[0] if size and draw(st.integers(0, 3)) else draw(POS_SIZE)
    theta = (n, nd, nd + 1) if draw(st.integers(0, 5)) else shape(draw, lo=2, hi=4, sizes=POS_SIZE)
    ac = draw(st.booleans())
    return Case("", (S(theta), size), {"align_corners": ac}, lambda: F.affine_grid(T(theta), size, align_corners=ac))


@case("unfold_windows")
def _unfold_windows(draw: Draw) -> Case:
    s = shape(draw, hi=3)
    d, size, step = axis(draw, len(s)), draw(st.integers(-1, 4)), draw(st.integers(-1, 3))
    return Case("", (S(s), d, size, step), {}, lambda: T(s).unfold(d, size, step))


# the linear-algebra cases; the convolution, pooling, resampling, normalisation, activation and loss cases
import oracle_cases_linalg  # noqa: E402,F401
import oracle_cases_scatter  # noqa: E402,F401
import oracle_cases_small_math  # noqa: E402,F401
import oracle_cases_surface  # noqa: E402,F401

