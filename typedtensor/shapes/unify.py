"""Matching declared shapes (with TypeVars and TypeVarTuples) against actual ones.

Unification records where each variable was first bound, so a reporter can say "N was bound to
Batch by argument 'x', dim 0" next to the mismatch it later caused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .dims import UNKNOWN, VAR_KINDS, DimExpr, Poly, Sym, Unknown, differs, fmt_dim, substitute_syms, symbol
from .issue import Issue
from .shape import Shape, ShapeLike, Star, fmt_shape


@dataclass
class Bindings:
    """Variable bindings of one call: dim variables, variadic variables, and where each was bound."""

    dims: dict[str, DimExpr] = field(default_factory=dict)
    stars: dict[str, tuple[DimExpr, ...] | Shape] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)

    def describe(self, name: str) -> str:
        if name in self.dims:
            value = fmt_dim(self.dims[name])
        elif name in self.stars:
            bound = self.stars[name]
            value = fmt_shape(bound) if isinstance(bound, Shape) else "[" + ", ".join(map(fmt_dim, bound)) + "]"
        else:
            return f"{name} is unbound"
        where = self.origin.get(name)
        shown = name.rsplit(".", 1)[-1]
        return f"{shown} = {value}" + (f" (bound by {where})" if where else "")


def _lone_var(d: DimExpr) -> str | None:
    """The variable's name when ``d`` is exactly one variable."""
    if isinstance(d, Poly) and len(d.items) == 1:
        (mono, coeff), = d.items
        if coeff == 1 and len(mono) == 1 and mono[0][1] == 1 and mono[0][0].kind in VAR_KINDS:
            return mono[0][0].name
    return None


def rigid(*values: object) -> Bindings:
    """Bindings in which every variable mentioned in ``values`` is bound to itself, i.e. rigid.

    A registry module's forward unifies its input against constructor sizes; when such a size is a
    TypeVar of the user's generic class (``nn.Linear(d_in, d_out)`` with ``d_in: I``), ``I`` is the
    class's variable, not one the rule may bind to whatever the input has."""
    b = Bindings()
    for v in values:
        for d in _dims_in(v):
            if isinstance(d, Poly):
                for s in d.all_symbols():
                    if s.kind in VAR_KINDS:
                        b.dims.setdefault(s.name, symbol(s))
    return b


def _dims_in(v: object) -> list[DimExpr]:
    if isinstance(v, (int, Poly, Unknown)) and not isinstance(v, bool):
        return [v]
    if isinstance(v, Shape):
        return [*v.prefix, *v.suffix]
    if isinstance(v, (tuple, list)):
        return [d for item in v for d in _dims_in(item)]
    return []


def substitute_dim(d: DimExpr, bindings: Bindings, free: frozenset[str] | None = None) -> DimExpr:
    """``d`` with the bound variables replaced. With ``free`` (the callee's own variable names), a
    dim that still mentions one of them unbound is UNKNOWN: to the caller it is no variable at all
    (a leaked callee variable would be rigid there and cause false errors)."""
    if not isinstance(d, Poly):
        return d
    if free:
        for s in d.all_symbols():
            if s.kind in VAR_KINDS and s.name in free and s.name not in bindings.dims:
                return UNKNOWN
    mapping: dict[Sym, DimExpr] = {}
    for s in d.all_symbols():
        if s.kind in VAR_KINDS and s.name in bindings.dims:
            mapping[s] = bindings.dims[s.name]
    return substitute_syms(d, mapping) if mapping else d


def substitute(shape: ShapeLike, bindings: Bindings, free: frozenset[str] | None = None) -> ShapeLike:
    """``shape`` with the bound variables replaced; ``free`` as in ``substitute_dim`` (an unbound
    free TypeVarTuple becomes an unknown run of dims)."""
    if isinstance(shape, Unknown):
        return shape
    prefix = tuple(substitute_dim(d, bindings, free) for d in shape.prefix)
    suffix = tuple(substitute_dim(d, bindings, free) for d in shape.suffix)
    if shape.star is None or shape.star.name is None or shape.star.name not in bindings.stars:
        star = shape.star
        if free and star is not None and star.name is not None and star.name in free:
            star = Star(None)
        return Shape(prefix, star, suffix)
    bound = bindings.stars[shape.star.name]
    if isinstance(bound, Shape):
        if bound.star is None:
            return Shape(prefix + bound.prefix + suffix)
        return Shape(prefix + bound.prefix, bound.star, bound.suffix + suffix)
    return Shape(prefix + tuple(bound) + suffix)


def _unify_dim(
    param: DimExpr, actual: DimExpr, b: Bindings, where: str, index: int,
    declared: Shape, got: Shape, bind: bool = True,
) -> Issue | None:
    name = _lone_var(param)
    if bind and name is not None and name not in b.dims:
        b.dims[name] = actual
        b.origin[name] = f"{where}, dim {index}"
        return None
    if bind and isinstance(param, Poly) and any(s.kind in VAR_KINDS and s.name not in b.dims for s in param.all_symbols()):
        return None  # arithmetic over variables not yet bound: nothing provable here
    expected = substitute_dim(param, b)
    if differs(expected, actual):
        note = ""
        for s in (param.all_symbols() if isinstance(param, Poly) else set()):
            if s.kind in VAR_KINDS and s.name in b.origin:
                note = f"; {b.describe(s.name)}"
                break
        return Issue(
            "shape-arg",
            f"{where}: dim {index} is {fmt_dim(actual)}, expected {fmt_dim(expected)}"
            f"{'' if expected == param else f' ({fmt_dim(param)})'}; "
            f"shapes {fmt_shape(got)} (given) vs {fmt_shape(declared)} (declared){note}",
        )
    return None


def unify(
    param: ShapeLike, actual: ShapeLike, b: Bindings, where: str, bind: bool = True
) -> Issue | None:
    """Bind the variables of ``param`` from ``actual``; an Issue when they provably disagree.

    With ``bind=False`` the variables are rigid (a generic body's view of its own TypeVars).
    """
    if isinstance(param, Unknown) or isinstance(actual, Unknown):
        return None
    declared = param
    if param.star is None:
        if actual.star is None:
            if len(actual.prefix) != len(param.prefix):
                return Issue(
                    "shape-arg",
                    f"{where}: expected {len(param.prefix)} dims, got {len(actual.prefix)}; "
                    f"shapes {fmt_shape(actual)} (given) vs {fmt_shape(declared)} (declared)",
                )
            pairs = list(enumerate(zip(param.prefix, actual.prefix, strict=True)))
        else:
            if actual.min_rank > len(param.prefix):
                return Issue(
                    "shape-arg",
                    f"{where}: expected {len(param.prefix)} dims, got at least {actual.min_rank}; "
                    f"shapes {fmt_shape(actual)} (given) vs {fmt_shape(declared)} (declared)",
                )
            pairs = [(i, (param.prefix[i], actual.prefix[i])) for i in range(len(actual.prefix))]
            n = len(param.prefix)
            pairs += [(n - k, (param.prefix[-k], actual.suffix[-k])) for k in range(1, len(actual.suffix) + 1)]
        for i, (p, a) in pairs:
            issue = _unify_dim(p, a, b, where, i, declared, actual, bind)
            if issue:
                return issue
        return None
    # The declared shape is variadic: match its fixed ends, give the middle to the star.
    if actual.star is None:
        dims = actual.prefix
        if len(dims) < param.min_rank:
            return Issue(
                "shape-arg",
                f"{where}: expected at least {param.min_rank} dims, got {len(dims)}; "
                f"shapes {fmt_shape(actual)} (given) vs {fmt_shape(declared)} (declared)",
            )
        n_pre, n_suf = len(param.prefix), len(param.suffix)
        for i in range(n_pre):
            issue = _unify_dim(param.prefix[i], dims[i], b, where, i, declared, actual, bind)
            if issue:
                return issue
        for k in range(1, n_suf + 1):
            issue = _unify_dim(param.suffix[-k], dims[-k], b, where, len(dims) - k, declared, actual, bind)
            if issue:
                return issue
        middle: tuple[DimExpr, ...] | Shape = dims[n_pre : len(dims) - n_suf]
    else:
        n_pre = min(len(param.prefix), len(actual.prefix))
        for i in range(n_pre):
            issue = _unify_dim(param.prefix[i], actual.prefix[i], b, where, i, declared, actual, bind)
            if issue:
                return issue
        n_suf = min(len(param.suffix), len(actual.suffix))
        for k in range(1, n_suf + 1):
            issue = _unify_dim(param.suffix[-k], actual.suffix[-k], b, where, -k, declared, actual, bind)
            if issue:
                return issue
        if len(param.prefix) > len(actual.prefix) or len(param.suffix) > len(actual.suffix):
            middle = Shape.unknown_rank()
        else:
            middle = Shape(
                actual.prefix[len(param.prefix):], actual.star,
                actual.suffix[: len(actual.suffix) - len(param.suffix)],
            )
    star = param.star.name
    if star is None:
        return None
    if not bind and star not in b.stars:
        b.stars[star] = Shape((), param.star, ())
    if star in b.stars:
        previous = b.stars[star]
        prev_shape = previous if isinstance(previous, Shape) else Shape(tuple(previous))
        now_shape = middle if isinstance(middle, Shape) else Shape(tuple(middle))
        mismatch = False
        if prev_shape.is_fixed and now_shape.is_fixed:
            mismatch = len(prev_shape.dims) != len(now_shape.dims) or any(
                differs(x, y) for x, y in zip(prev_shape.dims, now_shape.dims, strict=True)
            )
        elif _is_named_star(prev_shape) and now_shape.is_fixed:
            mismatch = True
        elif _is_named_star(prev_shape) and _is_named_star(now_shape):
            mismatch = prev_shape.star != now_shape.star
        elif prev_shape.is_fixed and _is_named_star(now_shape):
            mismatch = True
        if mismatch:
            return Issue(
                "shape-arg",
                f"{where}: *{star} is {fmt_shape(now_shape)}, expected {fmt_shape(prev_shape)}; "
                f"{b.describe(star)}",
            )
        return None
    b.stars[star] = middle
    b.origin[star] = where
    return None


def _is_named_star(s: Shape) -> bool:
    """A shape that is exactly one rigid TypeVarTuple, ``[*Bs]``."""
    return not s.prefix and not s.suffix and s.star is not None and s.star.name is not None


def compatible(expected: ShapeLike, actual: ShapeLike) -> bool:
    """Whether ``actual`` may stand where ``expected`` is declared; variables are rigid here."""
    return unify(expected, actual, Bindings(), "value", bind=False) is None


__all__ = ["UNKNOWN", "Bindings", "Star", "compatible", "rigid", "substitute", "substitute_dim", "unify"]
