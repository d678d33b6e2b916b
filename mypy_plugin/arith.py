"""Dimension arithmetic: `Add[B, A]` in annotations and `h * d` on sizes, both in canonical form
(NOTE [ Canonical dim types ] in translate.py)."""

from __future__ import annotations

from collections.abc import Callable

from mypy.copytype import copy_type
from mypy.nodes import Expression, OpExpr
from mypy.plugin import AnalyzeTypeContext, MethodContext
from mypy.plugins.default import int_pow_callback
from mypy.types import Instance, LiteralType, PlaceholderType, Type, get_proper_type

from typedtensor.shapes.dims import DimExpr, Unknown, d_mul

from .names import ARITH_TYPES, DIV, INT, SIZE_OPERATORS
from .translate import Translator, combine, is_dim_class, literal_value
from .values import with_known_value


def arith_type_hook(fullname: str) -> Callable[[AnalyzeTypeContext], Type]:
    """The type-analyze hook of `Add`/`Sub`/`Mul`/`Div`: analyse both arguments, normalise."""

    def hook(ctx: AnalyzeTypeContext) -> Type:
        args = [ctx.api.analyze_type(a) for a in ctx.type.args]
        if len(args) != 2:
            name = fullname.rsplit(".", 1)[-1]
            ctx.api.fail(f'"{name}" expects 2 type arguments, {len(args)} given', ctx.context)
            return ctx.api.named_type(fullname, [])
        if any(_has_placeholder(a) for a in args):
            return ctx.api.named_type(fullname, args)  # analysis runs again once the names are ready
        key = (fullname, args[0], args[1])
        try:
            known = _ANALYSED.get(key)
            hashable = True
        except TypeError:  # a type mypy does not hash
            known, hashable = None, False
        if known is None:
            tr = Translator(ctx.api.named_type)
            result = combine(fullname, tr.dim(args[0]), tr.dim(args[1]))
            if isinstance(result, Unknown):
                return ctx.api.named_type(fullname, args)
            known = tr.dim_type(result)
            if hashable:
                if len(_ANALYSED) >= 4096:
                    _ANALYSED.clear()
                _ANALYSED[key] = known
        return copy_type(get_proper_type(known))  # each annotation its own (outermost) type object

    return hook


# `Mul[Heads, D]` is written in many annotations: its canonical type is a pure function of the
# operation and both analysed arguments.
_ANALYSED: dict[tuple[str, Type, Type], Type] = {}


def _has_placeholder(t: Type) -> bool:
    p = get_proper_type(t)
    if isinstance(p, PlaceholderType):
        return True
    if isinstance(p, Instance):
        return any(_has_placeholder(a) for a in p.args)
    return False


def is_size(t: Type) -> bool:
    """A named dim or dim arithmetic (a value typed `Batch`, `Mul[H, D]`)."""
    p = get_proper_type(t)
    if isinstance(p, Instance) and p.last_known_value is None:
        return p.type.fullname in ARITH_TYPES or is_dim_class(p)
    return False


def size_operator_hook(method: str) -> Callable[[MethodContext], Type]:
    """A method hook for `int` operators on sizes: `h * d` is `Mul[Heads, HeadDim]`; on two int
    literals the value is folded (`16 * 14 * 14` is `Literal[3136]?`, as the literal `3136` is),
    so a constructor size written as arithmetic (`nn.Linear(16 * 14 * 14, 10)`) is a `Literal`
    dim like any int literal."""
    arith = SIZE_OPERATORS[method]
    reflected = method.startswith("__r")

    def hook(ctx: MethodContext) -> Type:
        if len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1:
            return ctx.default_return_type
        receiver, operand = _operand_exprs(ctx, reflected)
        left = with_known_value(ctx.api, ctx.type, receiver)  # NOTE [ Final sizes ], [ Names bound once ]
        right = with_known_value(ctx.api, ctx.arg_types[0][0], operand)
        key = (method, left, right)
        try:
            if key in _SIZE_TYPES:
                known = _SIZE_TYPES[key]
                return ctx.default_return_type if known is None else known
        except TypeError:  # a type mypy does not hash
            known = _size_type(ctx, left, right, arith, reflected)
            return ctx.default_return_type if known is None else known
        if len(_SIZE_TYPES) >= 4096:
            _SIZE_TYPES.clear()
        known = _SIZE_TYPES[key] = _size_type(ctx, left, right, arith, reflected)
        return ctx.default_return_type if known is None else known

    return hook


# `h * d` on the same sizes recurs throughout a model: its type is a pure function of the
# operator and both operand types (None: plain `int`, the declared result).
_SIZE_TYPES: dict[tuple[str, Type, Type], Type | None] = {}


def _operand_exprs(ctx: MethodContext, reflected: bool) -> tuple[Expression | None, Expression | None]:
    """The written receiver and operand of `a // b` (for a reflected operator mypy calls `b`'s
    method with `a` as its argument)."""
    op = ctx.context
    if not isinstance(op, OpExpr):
        return None, None
    return (op.right, op.left) if reflected else (op.left, op.right)


def _size_type(ctx: MethodContext, left: Type, right: Type, arith: str, reflected: bool) -> Type | None:
    if not (_int_like(left) and _int_like(right)):
        return None
    if not (is_size(left) or is_size(right)) and not _foldable(arith, left, right):
        return None
    if reflected:
        left, right = right, left
    tr = Translator(ctx.api.named_generic_type)
    result = combine(arith, tr.dim(left), tr.dim(right))
    return None if isinstance(result, Unknown) else tr.size_type(result, ctx.default_return_type)


def _int_like(t: Type) -> bool:
    p = get_proper_type(t)
    if isinstance(p, LiteralType):  # `x.shape[2]` of a `Tensor[..., Literal[224], ...]`
        return isinstance(p.value, int) and not isinstance(p.value, bool)
    if not isinstance(p, Instance):
        return False
    if is_size(p):
        return True
    value = literal_value(p)
    return p.type.fullname == INT and (isinstance(value, (Unknown, int)))


def _foldable(arith: str, left: Type, right: Type) -> bool:
    """Two int literals (not a division by zero, which stays mypy's plain `int`)."""
    a, b = literal_value(left), literal_value(right)
    if not (isinstance(a, int) and isinstance(b, int)) or isinstance(a, bool) or isinstance(b, bool):
        return False
    return not (arith == DIV and b == 0)


def pow_hook(ctx: MethodContext) -> Type:
    """`n ** 2` on a size or an int literal, for a literal exponent from 0 to 8: the product
    (`(224 // PATCH) ** 2` is `Literal[196]?`, `h ** 2` is `Mul[H, H]`); otherwise mypy's own
    answer (its default plugin's, which this hook replaces for `int.__pow__`)."""
    fallback = int_pow_callback(ctx)
    if len(ctx.arg_types) != 2 or len(ctx.arg_types[0]) != 1 or ctx.arg_types[1]:
        return fallback
    receiver, operand = _operand_exprs(ctx, reflected=False)
    base = with_known_value(ctx.api, ctx.type, receiver)
    exponent = literal_value(with_known_value(ctx.api, ctx.arg_types[0][0], operand))
    if not isinstance(exponent, int) or isinstance(exponent, bool) or not 0 <= exponent <= 8 or not _int_like(base):
        return fallback
    if not is_size(base) and not isinstance(literal_value(base), int):
        return fallback
    tr = Translator(ctx.api.named_generic_type)
    d = tr.dim(base)
    result: DimExpr = 1
    for _ in range(exponent):
        result = d_mul(result, d)
    return fallback if isinstance(result, Unknown) else tr.size_type(result, fallback)
