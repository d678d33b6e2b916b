"""mypy types <-> the shape calculus (`DimExpr`, `Shape`), and nothing else.

NOTE [ Symbols keep their mypy types ]
Translating a type into the calculus records, for every symbol met (a `Dim` class, a TypeVar),
the mypy type it came from. Translating a result back uses that record, so a result can only
mention symbols its inputs mentioned, and the plugin never looks a name up. A floor division the
algebra keeps opaque (from a `Div[...]` annotation or a rule's own `(H - k)//s`) carries its
operands and is emitted as `Div[num, den]` from them; a symbol with neither becomes `Any`:
unknown, never a false positive.

NOTE [ Canonical dim types ]
`Add`/`Sub`/`Mul`/`Div` types are always emitted from a polynomial's canonical terms
(`Poly.terms()`), in one fixed nesting: a sum folds left with `Add` over the positive terms then
`Sub` for each negative one; a term is `Mul[Literal[c], monomial]` when its coefficient is not 1;
a monomial folds left with `Mul`. Annotations go through the same emitter (the type-analyze hook),
so mypy's structural comparison of returns and assignments agrees with the calculus.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import MemberExpr, NameExpr, TypeInfo, Var
from mypy.types import (
    AnyType,
    Instance,
    LiteralType,
    TupleType,
    Type,
    TypeOfAny,
    TypeVarTupleType,
    TypeVarType,
    UnpackType,
    get_proper_type,
)

from typedtensor.shapes.dims import (
    UNKNOWN,
    DimExpr,
    Poly,
    Sym,
    Unknown,
    d_add,
    d_exact_div,
    d_floordiv,
    d_mul,
    d_sub,
    dim_var,
    named_dim,
)
from typedtensor.shapes.shape import Shape, ShapeLike, Star

from .names import ADD, ARITH_TYPES, DIM, DIV, INT, MUL, SUB, TENSOR, TUPLE

MakeInstance = Callable[[str, list[Type]], Instance]


@lru_cache(maxsize=4096)
def _named(qualname: str, display: str) -> DimExpr:
    # Building a Poly normalises it; a dim's polynomial is immutable, so build each one once.
    return named_dim(qualname, display)


@lru_cache(maxsize=1024)
def _var(name: str) -> DimExpr:
    return dim_var(name)


def any_type() -> AnyType:
    return AnyType(TypeOfAny.special_form)


def tensor_instance(t: Type) -> Instance | None:
    """`t` seen as `typedtensor.Tensor[...]` (a subclass such as `Parameter` is mapped up)."""
    p = get_proper_type(t)
    if not isinstance(p, Instance):
        return None
    if p.type.fullname == TENSOR:
        return p
    for base in p.type.mro[1:]:
        if base.fullname == TENSOR:
            return map_instance_to_supertype(p, base)
    return None


_IS_DIM: dict[str, tuple[TypeInfo, bool]] = {}


def is_dim_class(inst: Instance) -> bool:
    """A user's named dim: a subclass of `Dim` other than `Dim` and the arithmetic types
    (remembered per class object: a re-analysed class is a new TypeInfo and is asked again)."""
    info = inst.type
    entry = _IS_DIM.get(info.fullname)
    if entry is not None and entry[0] is info:
        return entry[1]
    name = info.fullname
    known = name != DIM and name not in ARITH_TYPES and any(base.fullname == DIM for base in info.mro[1:])
    if info.mro:  # not yet analysed: ask again later
        _IS_DIM[name] = (info, known)
    return known


# A named dim's class -> (its TypeInfo, symbol, calculus expression, bare mypy type): the common
# case of `dim()` answered by one dict hit (checked against the TypeInfo, like `_IS_DIM`).
_DIM_OF: dict[str, tuple[TypeInfo, Sym, DimExpr, Instance]] = {}


@lru_cache(maxsize=4096)
def _sym(kind: str, name: str) -> Sym:
    return Sym("dim" if kind == "dim" else "var", name)


def literal_value(t: Type) -> object:
    """The value of a literal type (`Literal[3]`, or an `int` expression's `Literal[3]?`);
    `UNKNOWN` otherwise."""
    p = get_proper_type(t)
    if isinstance(p, Instance) and p.last_known_value is not None:
        p = p.last_known_value
    if isinstance(p, LiteralType):
        return p.value
    if isinstance(p, Instance) and p.type.fullname == "builtins.NoneType":
        return None
    return UNKNOWN


def with_final_value(t: Type, expr: object) -> Type:
    """NOTE [ Final sizes ]
    `PATCH: Final = 16` is typed `Literal[16]?`, but `PATCH: Final[int] = 16` is plain `int`: mypy
    keeps the value on the name (`Var.final_value`), not in its type. A size written as such a
    constant (`x.reshape(b, PATCH, -1)`, `h // PATCH`) is its value, as the literal itself is."""
    if not isinstance(expr, (NameExpr, MemberExpr)):  # the common case first: hooks call this per argument
        return t
    node = expr.node
    if not (isinstance(node, Var) and node.is_final):
        return t
    value = node.final_value
    p = get_proper_type(t)
    if isinstance(value, int) and not isinstance(value, bool) and isinstance(p, Instance) and p.type.fullname == INT \
            and p.last_known_value is None:
        return p.copy_modified(last_known_value=LiteralType(value, fallback=p))
    return t


def combine(fullname: str, left: DimExpr, right: DimExpr) -> DimExpr:
    if fullname == ADD:
        return d_add(left, right)
    if fullname == SUB:
        return d_sub(left, right)
    if fullname == MUL:
        return d_mul(left, right)
    exact = d_exact_div(left, right)
    return exact if exact is not None else d_floordiv(left, right)


_SHAPES: dict[tuple[bool, tuple[Type, ...]], tuple[ShapeLike, tuple[tuple[Sym, Type], ...], tuple[tuple[str, Type], ...]]] = {}
_UNKNOWN_TENSOR: dict[int, tuple[object, Instance]] = {}


class Translator:
    """One translation session (one hook call): see NOTE [ Symbols keep their mypy types ].

    NOTE [ Rigid type variables ]
    Inside a generic body its own TypeVars are fixed unknown dims: `I` and `H` of `MLP[I, H, O]`
    differ like two named dims. So by default a TypeVar becomes a *rigid* symbol (a named dim
    `<I>` displayed `I`), which no rule can bind. Only the declared side of a call the plugin
    unifies itself (`rigid=False`) uses calculus variables, which `unify` binds.
    """

    def __init__(self, make: MakeInstance, rigid: bool = True) -> None:
        self.make = make
        self.rigid = rigid
        self.syms: dict[Sym, Type] = {}
        self.stars: dict[str, Type] = {}

    # ---- mypy -> calculus -----------------------------------------------------------------------
    def dim(self, t: Type) -> DimExpr:
        p = get_proper_type(t)
        if isinstance(p, Instance) and p.last_known_value is None:
            known = _DIM_OF.get(p.type.fullname)
            if known is not None and known[0] is p.type:  # a named dim met before
                self.syms.setdefault(known[1], known[3])
                return known[2]
        value = literal_value(p)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(p, TypeVarType):
            if self.rigid:
                self.syms.setdefault(_sym("dim", f"<{p.name}>"), p)
                return _named(f"<{p.name}>", p.name)
            self.syms.setdefault(_sym("var", p.name), p)
            return _var(p.name)
        if not isinstance(p, Instance):
            return UNKNOWN
        if p.type.fullname in ARITH_TYPES:
            if len(p.args) != 2:
                return UNKNOWN
            return combine(p.type.fullname, self.dim(p.args[0]), self.dim(p.args[1]))
        if is_dim_class(p):
            sym = _sym("dim", p.type.fullname)
            bare = Instance(p.type, [])
            self.syms.setdefault(sym, bare)
            expr = _named(p.type.fullname, p.type.name)
            if p.type.mro:  # analysed: remember (see `is_dim_class`)
                _DIM_OF[p.type.fullname] = (p.type, sym, expr, bare)
            return expr
        return UNKNOWN

    def shape(self, t: Type) -> ShapeLike | None:
        """The shape of a tensor type; `None` when `t` is not a tensor."""
        inst = tensor_instance(t)
        if inst is None:
            return None
        return self.shape_of_args(inst.args)

    def shape_of_args(self, args: tuple[Type, ...] | list[Type]) -> ShapeLike:
        """The shape a tensor's type arguments spell. Remembered per (rigidity, arguments) with the
        symbols met (NOTE [ Symbols keep their mypy types ]): the same few tensor types recur
        throughout a program, and equal mypy types name the same classes and variables."""
        try:
            key = (self.rigid, tuple(args))
            hit = _SHAPES.get(key)
        except TypeError:  # a type mypy does not hash: translate every time
            return self._shape_of_args(args)
        if hit is None:
            fresh = Translator(self.make, self.rigid)
            shape = fresh._shape_of_args(args)
            hit = (shape, tuple(fresh.syms.items()), tuple(fresh.stars.items()))
            if len(_SHAPES) >= 8192:
                _SHAPES.clear()
            _SHAPES[key] = hit
        for sym, t in hit[1]:
            self.syms.setdefault(sym, t)
        for name, t in hit[2]:
            self.stars.setdefault(name, t)
        return hit[0]

    def _shape_of_args(self, args: tuple[Type, ...] | list[Type]) -> ShapeLike:
        prefix: list[DimExpr] = []
        suffix: list[DimExpr] = []
        star: Star | None = None
        for arg in self._flatten(args):
            if isinstance(arg, UnpackType):
                inner = get_proper_type(arg.type)
                if star is not None:
                    return UNKNOWN
                if isinstance(inner, TypeVarTupleType):
                    star = Star(inner.name)
                    self.stars.setdefault(inner.name, inner)
                else:
                    star = Star(None)
                continue
            (suffix if star is not None else prefix).append(self.dim(arg))
        if star is not None and star.name is None and not prefix and not suffix:
            return UNKNOWN
        return Shape(tuple(prefix), star, tuple(suffix))

    def _flatten(self, args: tuple[Type, ...] | list[Type]) -> list[Type]:
        out: list[Type] = []
        for arg in args:
            if isinstance(arg, UnpackType):
                inner = get_proper_type(arg.type)
                if isinstance(inner, TupleType):
                    out.extend(self._flatten(inner.items))
                    continue
            out.append(arg)
        return out

    # ---- calculus -> mypy -----------------------------------------------------------------------
    def literal(self, value: int) -> LiteralType:
        return LiteralType(value, fallback=self.make(INT, []))

    def int_value(self, value: int) -> Instance:
        """An int expression's type `Literal[v]?` (widens on assignment, unlike `Literal[v]`)."""
        return self.make(INT, []).copy_modified(last_known_value=self.literal(value))

    def dim_type(self, d: DimExpr) -> Type:
        if isinstance(d, Unknown):
            return any_type()
        if isinstance(d, Poly):
            return self._poly_type(d)
        return self.literal(int(d))

    def size_type(self, d: DimExpr, default: Type) -> Type:
        """The type of a size *value* (`h * d`): a dim type, `Literal[v]?` for a number, and
        `default` (plain `int`) when unknown."""
        if isinstance(d, Unknown):
            return default
        if isinstance(d, Poly):
            return self._poly_type(d)
        return self.int_value(int(d))

    def _poly_type(self, p: Poly) -> Type:
        if len(p.items) == 1:  # the common case: one symbol
            ((only, c),) = p.items
            if c == 1 and len(only) == 1 and only[0][1] == 1:
                return self.sym_type(only[0][0])
        positive: list[Type] = []
        negative: list[Type] = []
        for coeff, mono in p.terms():
            term = self._term_type(abs(coeff), mono)
            (positive if coeff > 0 else negative).append(term)
        acc: Type = positive[0] if positive else self.literal(0)
        for term in positive[1:]:
            acc = self.make(ADD, [acc, term])
        for term in negative:
            acc = self.make(SUB, [acc, term])
        return acc

    def sym_type(self, sym: Sym) -> Type:
        """A symbol's recorded type; a floor division a rule produced is rebuilt as `Div[num, den]`
        from its operands; anything else is `Any` (NOTE [ Symbols keep their mypy types ])."""
        known = self.syms.get(sym)
        if known is not None:
            return known
        if sym.kind == "opaque" and len(sym.args) == 2:
            num, den = (self.dim_type(a) for a in sym.args)
            if not isinstance(get_proper_type(num), AnyType) and not isinstance(get_proper_type(den), AnyType):
                return self.make(DIV, [num, den])
        return any_type()

    def _term_type(self, coeff: int, mono: list[tuple[Sym, int]]) -> Type:
        factors: list[Type] = []
        for sym, power in mono:
            factors.extend([self.sym_type(sym)] * power)
        if not factors:
            return self.literal(coeff)
        acc = factors[0]
        for factor in factors[1:]:
            acc = self.make(MUL, [acc, factor])
        return acc if coeff == 1 else self.make(MUL, [self.literal(coeff), acc])

    def shape_args(self, shape: ShapeLike) -> list[Type]:
        if isinstance(shape, Unknown):
            return [UnpackType(self.make(TUPLE, [any_type()]))]
        args: list[Type] = [self.dim_type(d) for d in shape.prefix]
        if shape.star is not None:
            star = self.stars.get(shape.star.name) if shape.star.name else None
            args.append(UnpackType(star if star is not None else self.make(TUPLE, [any_type()])))
            args.extend(self.dim_type(d) for d in shape.suffix)
        return args

    def tensor_type(self, shape: ShapeLike) -> Instance:
        return self.make(TENSOR, self.shape_args(shape))

    def unknown_tensor(self) -> Instance:
        """`Tensor[*tuple[Any, ...]]`, built once per checker (`make` is bound to it)."""
        owner = getattr(self.make, "__self__", None)
        cached = _UNKNOWN_TENSOR.get(id(owner))
        if cached is not None and cached[0] is owner:
            return cached[1]
        t = self.tensor_type(UNKNOWN)
        if owner is not None:
            _UNKNOWN_TENSOR[id(owner)] = (owner, t)
        return t

