"""Registry ops: a call's types -> `registry.apply(...)` -> a mypy type, or the rule's `Issue`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mypy.nodes import ARG_POS, CallExpr, Context, Expression
from mypy.plugin import (
    AttributeContext,
    CheckerPluginInterface,
    FunctionSigContext,
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
    get_proper_type,
)

from typedtensor.shapes import UNKNOWN, Issue, Outputs, Param, Unknown, apply, get_op
from typedtensor.shapes.shape import Shape, ShapeLike

from .errors import report
from .names import MAXMIN, TUPLE
from .translate import MakeInstance, Translator, tensor_instance
from .values import Actual, Converter, GiveUp, bind_values, expr_type


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
    items: list[Type] = [tr.tensor_type(s) for s in out.shapes]
    return TupleType(items, tr.make(TUPLE, [tr.unknown_tensor()]))


def after_issue(tr: Translator, default: Type) -> Type:
    """After a reported error the expression's shape is unknown: one bug, one report."""
    p = get_proper_type(default)
    if isinstance(p, Instance) and tensor_instance(p) is not None:
        return tr.unknown_tensor()
    if _returns_tensors(default):
        return AnyType(TypeOfAny.from_error)
    return default


def run_op(
    api: CheckerPluginInterface,
    op_name: str,
    leading: Sequence[Any],
    actuals: Sequence[Actual],
    context: Context,
    default: Type,
    tr: Translator,
    skip: int = 0,
) -> Type:
    """Convert the actuals by the op's parameters (after `skip` bound ones), apply, report."""
    op = get_op(op_name)
    params: list[Param] = list(op.params[skip:])
    try:
        positional, keywords = bind_values(Converter(tr, api), params, actuals)
    except GiveUp:
        return result_type(tr, UNKNOWN, default)
    result = apply(op_name, [*leading, *positional], keywords)
    if isinstance(result, Issue):
        report(api, result, context)
        return after_issue(tr, default)
    return result_type(tr, result, default)


def call_actuals(api: CheckerPluginInterface, context: Context, args: list[list[Expression]]) -> list[Actual]:
    """The written arguments with their types: from the call expression when there is one, else
    (operators, indexing) the operand mypy passes."""
    if isinstance(context, CallExpr):
        return [
            Actual(kind, name, expr, expr_type(api, expr))
            for expr, kind, name in zip(context.args, context.arg_kinds, context.arg_names, strict=False)
        ]
    return [Actual(ARG_POS, None, e, expr_type(api, e)) for group in args for e in group]


def _with_result(sig: CallableType, result: Type, make: MakeInstance) -> CallableType:
    from .calls import loosen_signature

    return loosen_signature(sig, make).copy_modified(ret_type=result)


def function_op_hook(op_name: str) -> Callable[[FunctionSigContext], FunctionLike]:
    """`tt.matmul(x, w)`, `F.conv2d(...)`: every argument goes to the op.

    NOTE [ Ops compute in the signature hook ]
    mypy checks each item of an overloaded stub with errors filtered out, so an error reported
    from a call hook there would make every item fail ("No overload variant"). The signature hook
    runs once per item but outside that filter: it computes the result, reports the Issue, and
    returns the item with tensors loosened and the computed result. Identical reports on one line
    are merged by mypy.
    """

    def hook(ctx: FunctionSigContext) -> FunctionLike:
        make = ctx.api.named_generic_type
        tr = Translator(make)
        actuals = call_actuals(ctx.api, ctx.context, ctx.args)
        sig = ctx.default_signature
        result = run_op(ctx.api, op_name, (), actuals, ctx.context, sig.ret_type, tr)
        return _with_result(sig, result, make)

    return hook


def method_op_hook(
    op_name: str, reflected: bool = False, binds_self: bool = True
) -> Callable[[MethodSigContext], FunctionLike]:
    """`x.sum(dim=1)`, `x @ w`, `2.0 * x`, `x[:, -1]`: the tensor binds the op's first parameter
    (its second for a reflected operator). See NOTE [ Ops compute in the signature hook ]."""

    def hook(ctx: MethodSigContext) -> FunctionLike:
        make = ctx.api.named_generic_type
        sig = ctx.default_signature
        tr = Translator(make)
        self_shape: ShapeLike | None = tr.shape(ctx.type)
        if self_shape is None:
            return sig
        actuals = call_actuals(ctx.api, ctx.context, ctx.args)
        default = sig.ret_type
        if not binds_self:
            result = run_op(ctx.api, op_name, (), actuals, ctx.context, default, tr)
        elif reflected:
            # `other <op> x`: the written left operand binds the op's first parameter.
            if len(actuals) != 1:
                return sig
            other = Converter(tr, ctx.api).tensor_or_scalar(actuals[0].type)
            applied = apply(op_name, [other, self_shape], {})
            if isinstance(applied, Issue):
                report(ctx.api, applied, ctx.context)
                result = after_issue(tr, default)
            else:
                result = result_type(tr, applied, default)
        else:
            result = run_op(ctx.api, op_name, (self_shape,), actuals, ctx.context, default, tr, skip=1)
        return _with_result(sig, result, make)

    return hook


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


__all__ = ["function_op_hook", "method_op_hook", "property_op_hook", "run_op"]
