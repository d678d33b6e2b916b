"""Registry ops: a call's types -> `registry.apply(...)` -> a mypy type, or the rule's `Issue`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from mypy.nodes import (
    ARG_POS,
    CallExpr,
    ComplexExpr,
    Context,
    Expression,
    FloatExpr,
    GeneratorExpr,
    IntExpr,
    ListComprehension,
    ListExpr,
    NameExpr,
    SliceExpr,
    StrExpr,
    TupleExpr,
    Var,
)
from mypy.plugin import (
    AttributeContext,
    CheckerPluginInterface,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
)
from mypy.types import (
    AnyType,
    CallableType,
    FunctionLike,
    Instance,
    TupleType,
    Type,
    TypeOfAny,
    TypeVarType,
    get_proper_type,
)

from typedtensor.shapes import UNKNOWN, Issue, Outputs, Param, Unknown, all_ops, api, apply, get_op
from typedtensor.shapes.shape import Shape

from .errors import report
from .lints import lint_op
from .loosen import loosen_signature
from .names import MAXMIN, TUPLE
from .translate import MakeInstance, Translator, literal_value, tensor_instance
from .values import Actual, Converter, GiveUp, Repeated, actuals_of, bind_values, expr_type


def _returns_tensors(t: Type) -> bool:
    """Whether the stub's result is one the registry computes (a tensor, `_MaxMin`, a tuple of
    tensors); other results (`item()` is a float) keep the stub's type."""
    p = get_proper_type(t)
    if isinstance(p, AnyType):
        return True
    if isinstance(p, Instance):
        if tensor_instance(p) is not None or p.type.fullname == MAXMIN:
            return True
        if p.type.fullname == TUPLE and p.args:
            return tensor_instance(p.args[0]) is not None
    if isinstance(p, TupleType):
        return all(tensor_instance(i) is not None for i in p.items)
    return False


def result_type(tr: Translator, result: Any, default: Type) -> Type:
    """A registry `Result` as a mypy type."""
    if isinstance(result, Outputs):
        return _outputs_type(tr, result, default)
    if isinstance(result, (Shape, Unknown)):
        if not _returns_tensors(default):
            return default
        p = get_proper_type(default)
        if isinstance(p, Instance) and p.type.fullname == MAXMIN:
            return tr.make(MAXMIN, tr.shape_args(result))
        return tr.tensor_type(result)
    return default


def _outputs_type(tr: Translator, out: Outputs, default: Type) -> Type:
    if out.names is not None and "values" in out.names:
        return tr.make(MAXMIN, tr.shape_args(out.get("values")))
    if isinstance(out.shapes, Unknown):
        return tr.make(TUPLE, [tr.tensor_type(out.element)])
    # an Outputs among them is a nested tuple (nn.LSTM's (output, (h_n, c_n)))
    items: list[Type] = [_outputs_type(tr, s, default) if isinstance(s, Outputs) else tr.tensor_type(s) for s in out.shapes]
    nested = any(isinstance(s, Outputs) for s in out.shapes)
    return TupleType(items, tr.make(TUPLE, [AnyType(TypeOfAny.special_form) if nested else tr.unknown_tensor()]))


# What a declared result type asks of `result_type` / `after_issue`: KEEP the declared type (not a
# computed one), a TENSOR, a _MaxMin, or OTHER tensors (a tuple of them, or Any). Both functions
# depend on the declared type only through this kind, so a computed type is remembered per kind.
KEEP, TENSOR, MAXMIN_KIND, OTHER = 0, 1, 2, 3


def result_kind(default: Type) -> int:
    p = get_proper_type(default)
    if isinstance(p, Instance):
        if tensor_instance(p) is not None:
            return TENSOR
        if p.type.fullname == MAXMIN:
            return MAXMIN_KIND
    return OTHER if _returns_tensors(p) else KEEP


def after_issue(tr: Translator, default: Type) -> Type:
    """After a reported error the expression's shape is unknown: one bug, one report."""
    p = get_proper_type(default)
    if isinstance(p, Instance) and tensor_instance(p) is not None:
        return tr.unknown_tensor()
    if _returns_tensors(default):
        return AnyType(TypeOfAny.from_error)
    return default


class _Memo:
    """NOTE [ One computation per call site ]
    mypy infers a call's arguments more than once (an argument of an overloaded or generic callee
    is inferred with and without context; the signature hook runs once per overload item), and
    each time the op's hook converts its actuals and applies the rule again; and a program applies
    the same op to the same shapes in many places. The result is a pure function of the op, the
    bound leading shapes and the actuals (kind, keyword, mypy type, the kind of expression and a
    literal's value, which a float's type does not hold), so it is kept here, keyed by them: a
    repeat re-uses the rule's result and the symbols it mentions (NOTE [ Symbols keep their mypy
    types ]) and re-reports an Issue at its own context. A call whose meaning depends on the
    written structure of an argument (a list, tuple or slice, whose items have their own types) is
    not memoised. An entry also keeps the mypy type made for each kind of declared result (`result_kind`)."""

    LIMIT = 4096

    def __init__(self) -> None:
        self.entries: dict[tuple[Any, ...], _Entry] = {}

    @staticmethod
    def key(op: Hashable, bound: Type | None, actuals: Sequence[Actual]) -> tuple[Any, ...] | None:
        """`op` names the computation, `bound` is the tensor a method is called on (its mypy type:
        equal types translate to equal shapes, and mypy keeps an Instance's hash, where a shape
        would be hashed through every dim of it at each lookup). An argument kind enters as its
        value (an Enum member hashes in Python code)."""
        parts = []
        index = op == _INDEX
        for a in actuals:
            expr = a.expr
            if isinstance(expr, _STRUCTURED):
                return None
            if index and tensor_instance(a.type) is not None:
                return None  # an index tensor's meaning depends on how it was made (NOTE [ Index tensors ])
            if isinstance(expr, NameExpr) and _is_list(a.type):
                return None  # its items are the value it was bound to (NOTE [ Names bound once ])
            parts.append((a.kind._value_, a.name, a.type, type(expr), expr.value if isinstance(expr, _LITERALS) else None))
        return (op, bound, tuple(parts))

    def get(self, key: tuple[Any, ...]) -> _Entry | None:
        try:
            return self.entries.get(key)
        except TypeError:  # a type mypy does not hash: compute every time
            return None

    def put(self, key: tuple[Any, ...], result: Any, tr: Translator) -> _Entry | None:
        if len(self.entries) >= self.LIMIT:
            self.entries.clear()
        entry = _Entry(result, dict(tr.syms), dict(tr.stars))
        try:
            self.entries[key] = entry
        except TypeError:
            return None
        return entry


def _is_list(t: Type) -> bool:
    p = get_proper_type(t)
    return isinstance(p, Instance) and p.type.fullname == "builtins.list"


_LITERALS = (IntExpr, FloatExpr, StrExpr, ComplexExpr)
_INDEX = api.OPERATORS["__getitem__"][0]
_LINTED = frozenset({"squeeze", "view"})  # NOTE [ Layout lints ]: lints.py
_ELEMENTWISE = frozenset(name for name in all_ops() if "elementwise" in get_op(name).tags)
_STRUCTURED = (ListExpr, TupleExpr, SliceExpr, ListComprehension, GeneratorExpr)


class _Entry:
    __slots__ = ("result", "stars", "syms", "types")

    def __init__(self, result: Any, syms: dict[Any, Type], stars: dict[str, Type]) -> None:
        self.result = result
        self.syms = syms
        self.stars = stars
        self.types: dict[int, Type] = {}  # by `result_kind` of the declared result


_MEMO = _Memo()
memo_key = _MEMO.key
GAVE_UP: Any = object()
"""A computation that could not translate its arguments: its result is unknown."""


def run_op(
    api: CheckerPluginInterface,
    op_name: str,
    actuals: Sequence[Actual],
    context: Context,
    default: Type,
    tr: Translator,
    self_type: Type | None = None,
) -> Type:
    """Convert the actuals by the op's parameters, apply, report (NOTE [ One computation per call
    site ]). A method's tensor `self_type` binds the op's first parameter."""

    def compute() -> Any:
        leading: list[Any] = []
        params: list[Param] = list(get_op(op_name).params)
        if self_type is not None:
            leading.append(tr.shape(self_type))
            params = params[1:]
        try:
            positional, keywords = bind_values(Converter(tr, api, operands=op_name in _ELEMENTWISE), params, actuals)
        except GiveUp:
            return GAVE_UP
        if any(isinstance(v, Repeated) for v in positional):
            return _apply_repeated(op_name, [*leading, *positional], keywords)
        return apply(op_name, [*leading, *positional], keywords)

    made = run_memoised(api, _MEMO.key(op_name, self_type, actuals), compute, context, default, tr)
    if op_name in _LINTED:
        lint_op(api, op_name, actuals, context, tr, self_type, made)
    return made


def _apply_repeated(op_name: str, positional: list[Any], keywords: dict[str, Any]) -> Any:
    """NOTE [ Sequences of unknown length ]
    `tt.cat([f(x) for x in xs], dim=1)`: the list's element type is known, its length is not. The
    rule runs on two copies of the element and on three (as the checker does); an Issue of the first
    is the call's, a dim that comes out the same both ways is known, the others (the joined one) are
    unknown."""
    def copies(n: int) -> list[Any]:
        return [tuple([v.shape] * n) if isinstance(v, Repeated) else v for v in positional]

    two = apply(op_name, copies(2), keywords)
    if not isinstance(two, Shape) or not two.is_fixed:
        return two if isinstance(two, Issue) else UNKNOWN
    three = apply(op_name, copies(3), keywords)
    if not isinstance(three, Shape) or not three.is_fixed or len(three.dims) != len(two.dims):
        return UNKNOWN
    return Shape(tuple(a if a == b else UNKNOWN for a, b in zip(two.dims, three.dims, strict=False)))


def run_memoised(
    api: CheckerPluginInterface,
    key: tuple[Any, ...] | None,
    compute: Callable[[], Any],
    context: Context,
    default: Type,
    tr: Translator,
) -> Type:
    """The result type of a registry computation (a `Result`, an `Issue` or `GAVE_UP`), computed
    once per `key` (None: every time); an Issue is reported at `context` every time
    (NOTE [ One computation per call site ])."""
    entry = _MEMO.get(key) if key is not None else None
    if entry is None:
        result = compute()
        if key is not None:
            entry = _MEMO.put(key, result, tr)
    else:
        result = entry.result
    if isinstance(result, Issue):
        report(api, result, context)
    # KEEP: the declared type itself, or a tuple of outputs; nothing worth remembering
    kind = result_kind(default)
    if entry is not None:
        if kind != KEEP:
            made = entry.types.get(kind)
            if made is not None:
                return made
        # build from the symbols the computation met (NOTE [ Symbols keep their mypy types ])
        tr.syms.update(entry.syms)
        tr.stars.update(entry.stars)
    if result is GAVE_UP:
        made = result_type(tr, UNKNOWN, default)
    elif isinstance(result, Issue):
        made = after_issue(tr, default)
    else:
        made = result_type(tr, result, default)
    if entry is not None and kind != KEEP:
        entry.types[kind] = made
    return made


def call_actuals(api: CheckerPluginInterface, context: Context, args: list[list[Expression]]) -> list[Actual]:
    """The written arguments with their types: from the call expression when there is one, else
    (operators, indexing) the operand mypy passes.

    (Sharing the actuals between the overload items of one call, to save asking mypy again, is
    wrong: mypy does not always apply the hook to every item in a row, and for `a @ b` the
    reflected `b.__rmatmul__(a)` has the same context but another operand.)"""
    if isinstance(context, CallExpr):
        actuals = [
            Actual(kind, name, expr, expr_type(api, expr))
            for expr, kind, name in zip(context.args, context.arg_kinds, context.arg_names, strict=False)
        ]
    else:
        actuals = [Actual(ARG_POS, None, e, expr_type(api, e)) for group in args for e in group]
    return actuals


def _with_result(sig: CallableType, result: Type, make: MakeInstance, sizes: frozenset[str],
                 args: list[list[Expression]]) -> CallableType:
    loose = loosen_signature(sig, make, result)
    return accept_dim_variables(loose, args, sizes) if sizes else loose


def size_params(op_name: str) -> frozenset[str]:
    """The names of an op's size parameters (asked once per hook, not per call)."""
    return frozenset(p.name for p in get_op(op_name).params if p.kind in ("size", "sizes"))


def accept_dim_variables(sig: CallableType, args: list[list[Expression]], sizes: frozenset[str]) -> CallableType:
    """NOTE [ Dim variables as sizes ]
    `N = TypeVar("N")` is a dim variable (DESIGN §1), but mypy, seeing no bound, does not take an
    `N` for the `int` a stub's size parameter declares: `tt.eye(n)` with `n: N` would be mypy's
    `arg-type`, an error the checker (which takes a dim variable for a size) does not report. A
    size parameter (by the registry's kinds) given a name whose declared type is a TypeVar accepts
    it; the registry sees the variable as a dim. Only written names are looked at: a signature
    hook does not infer its arguments (NOTE [ Plain stubs compute in the call hook ])."""
    types: list[Type] | None = None
    names = sig.arg_names
    for i, group in enumerate(args):
        if i >= len(names):
            break
        if names[i] not in sizes:
            continue
        for e in group:
            if isinstance(e, NameExpr) and isinstance(e.node, Var) and isinstance(e.node.type, TypeVarType):
                if types is None:
                    types = list(sig.arg_types)
                types[i] = AnyType(TypeOfAny.special_form)
                break
    return sig if types is None else sig.copy_modified(arg_types=types)


def function_op_hook(op_name: str) -> Callable[[FunctionSigContext], FunctionLike]:
    """`tt.matmul(x, w)`, `F.conv2d(...)`: every argument goes to the op.

    NOTE [ Ops compute in the signature hook ]
    mypy checks each item of an overloaded stub with errors filtered out, so an error reported
    from a call hook there would make every item fail ("No overload variant"). The signature hook
    runs once per item but outside that filter: it computes the result, reports the Issue, and
    returns the item with tensors loosened and the computed result. Identical reports on one line
    are merged by mypy.
    """
    sizes = size_params(op_name)

    def hook(ctx: FunctionSigContext) -> FunctionLike:
        make = ctx.api.named_generic_type
        tr = Translator(make)
        actuals = call_actuals(ctx.api, ctx.context, ctx.args)
        sig = ctx.default_signature
        result = run_op(ctx.api, op_name, actuals, ctx.context, sig.ret_type, tr)
        return _with_result(sig, result, make, sizes, ctx.args)

    return hook


def method_op_hook(
    op_name: str, reflected: bool = False, binds_self: bool = True
) -> Callable[[MethodSigContext], FunctionLike]:
    """`x.sum(dim=1)`, `x @ w`, `2.0 * x`, `x[:, -1]`: the tensor binds the op's first parameter
    (its second for a reflected operator). See NOTE [ Ops compute in the signature hook ]."""
    sizes = size_params(op_name)

    def hook(ctx: MethodSigContext) -> FunctionLike:
        sig = ctx.default_signature
        self_type = ctx.type
        if tensor_instance(self_type) is None:
            return sig
        make = ctx.api.named_generic_type
        tr = Translator(make)
        actuals = call_actuals(ctx.api, ctx.context, ctx.args)
        default = sig.ret_type
        if not binds_self:
            result = run_op(ctx.api, op_name, actuals, ctx.context, default, tr)
        elif reflected:
            # `other <op> x`: the written left operand binds the op's first parameter.
            if len(actuals) != 1:
                return sig
            other = actuals[0]

            def compute() -> Any:
                left = Converter(tr, ctx.api).tensor_or_scalar(other.type)
                return apply(op_name, [left, tr.shape(self_type)], {})

            key = _MEMO.key(("reflected", op_name), self_type, actuals)
            result = run_memoised(ctx.api, key, compute, ctx.context, default, tr)
        else:
            result = run_op(ctx.api, op_name, actuals, ctx.context, default, tr, self_type)
        return _with_result(sig, result, make, sizes, ctx.args)

    return hook


@functools.cache
def loosen_hook(op_name: str) -> Callable[[FunctionSigContext | MethodSigContext], FunctionLike]:
    """The signature hook of a registry op with a plain stub (one per op)."""
    sizes = size_params(op_name)
    if not sizes:
        return _loosened

    def hook(ctx: FunctionSigContext | MethodSigContext) -> FunctionLike:
        return accept_dim_variables(_loosened(ctx), ctx.args, sizes)

    return hook


def _loosened(ctx: FunctionSigContext | MethodSigContext) -> CallableType:
    """NOTE [ Plain stubs compute in the call hook ]
    A signature hook sees its arguments' expressions but not their types: asking mypy for them
    (`get_expression_type`) infers each argument once more before mypy infers it for the call,
    and for nested calls that doubling compounds. An op whose stub is not overloaded therefore
    only loosens its signature here and computes in the call hook, which gets the argument types
    mypy has just inferred. Overloaded stubs (and operators) keep computing in the signature hook
    (NOTE [ Ops compute in the signature hook ])."""
    return loosen_signature(ctx.default_signature, ctx.api.named_generic_type)


def function_call_hook(op_name: str) -> Callable[[FunctionContext], Type]:
    """`tt.relu(x)` with a plain stub: see NOTE [ Plain stubs compute in the call hook ]."""

    def hook(ctx: FunctionContext) -> Type:
        tr = Translator(ctx.api.named_generic_type)
        actuals = actuals_of(ctx.api, ctx.context, ctx.args, ctx.arg_types, ctx.arg_kinds, ctx.arg_names)
        return run_op(ctx.api, op_name, actuals, ctx.context, ctx.default_return_type, tr)

    return hook


def method_call_hook(op_name: str, binds_self: bool = True) -> Callable[[MethodContext], Type]:
    """`x.sum(dim=1)` with a plain stub: see NOTE [ Plain stubs compute in the call hook ]."""

    def hook(ctx: MethodContext) -> Type:
        self_type = ctx.type
        if tensor_instance(self_type) is None:
            return ctx.default_return_type
        tr = Translator(ctx.api.named_generic_type)
        actuals = actuals_of(ctx.api, ctx.context, ctx.args, ctx.arg_types, ctx.arg_kinds, ctx.arg_names)
        bound = self_type if binds_self else None
        return run_op(ctx.api, op_name, actuals, ctx.context, ctx.default_return_type, tr, bound)

    return hook


def iter_hook(ctx: MethodContext) -> Type:
    """`for row in x`: each element has the shape of `x[0]` (the registry's index rule), as the
    checker infers it; quietly (a rank the rule rejects gives the stub's unknown element, and
    iterating a 0-d tensor is left to the runtime, as in the checker)."""
    tr = Translator(ctx.api.named_generic_type)
    shape = tr.shape(ctx.type)
    default = get_proper_type(ctx.default_return_type)
    if shape is None or not isinstance(default, Instance) or len(default.args) != 1:
        return ctx.default_return_type
    result = apply(api.OPERATORS["__getitem__"][0], [shape, (0,)], {})
    if not isinstance(result, (Shape, Unknown)):
        return ctx.default_return_type
    return default.copy_modified(args=[tr.tensor_type(result)])


def size_hook(ctx: MethodContext) -> Type:
    """`x.size(1)` is the size `x.shape[1]` is (`In`, `Literal[3]`), for a literal dim; the stub's
    plain `int` otherwise (`x.size()` is the stub's `tuple[*Shape]` already)."""
    if len(ctx.args) != 1 or len(ctx.args[0]) != 1:
        return ctx.default_return_type
    index = literal_value(ctx.arg_types[0][0])
    tr = Translator(ctx.api.named_generic_type)
    shape = tr.shape(ctx.type)
    if not isinstance(index, int) or isinstance(index, bool) or not isinstance(shape, Shape) or not shape.is_fixed:
        return ctx.default_return_type
    dims = shape.dims
    if not -len(dims) <= index < len(dims):
        return ctx.default_return_type  # out of range: the runtime's error, as `x.shape[9]` is mypy's
    return tr.size_type(dims[index], ctx.default_return_type)


def property_op_hook(op_name: str) -> Callable[[AttributeContext], Type]:
    """`x.T`, `x.mT`."""

    def hook(ctx: AttributeContext) -> Type:
        if ctx.is_lvalue:
            return ctx.default_attr_type
        tr = Translator(ctx.api.named_generic_type)
        shape = tr.shape(ctx.type)
        if shape is None:
            return ctx.default_attr_type
        result = apply(op_name, [shape], {})
        if isinstance(result, Issue):
            report(ctx.api, result, ctx.context)
            return after_issue(tr, ctx.default_attr_type)
        return result_type(tr, result, ctx.default_attr_type)

    return hook


__all__ = [
    "function_call_hook", "function_op_hook", "iter_hook", "loosen_hook", "method_call_hook", "method_op_hook",
    "property_op_hook", "run_memoised", "run_op", "size_hook",
]
