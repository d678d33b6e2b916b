"""Attributes a Module gets at run time rather than from its class body.

NOTE [ Registered attributes ]
`Module.__getattr__` (in the stubs, as in torch's) types an attribute the class does not declare as
`Tensor | Module`. mypy asks the attribute hook of `typedtensor.nn.Module.<name>` for each such
access, and the plugin narrows it where the program says what the name holds:
- a ModuleDict's entry (`self.transformer.wte` for `nn.ModuleDict(dict(wte=nn.Embedding(...)))`):
  the constructor hook records each literal key's module type on the instance type
  (`Instance.extra_attrs`, which mypy keeps through assignments and its cache); `md["wte"]` too;
  any other name of a ModuleDict is a `Module`;
- a name registered in one of the class's methods with a literal string:
  `self.register_buffer("mask", t)` / `self.register_parameter("w", p)` is a tensor (the shape of
  `t` when mypy has already inferred it, else unknown), `self.add_module("head", m)` /
  `setattr(self, "head", m)` is the module or tensor `m` is.
Anything else keeps the stub's `Tensor | Module`.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.checker import TypeChecker
from mypy.nodes import (
    ArgKind,
    AssignmentStmt,
    CallExpr,
    DictExpr,
    Expression,
    ExpressionStmt,
    FuncDef,
    IntExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    Statement,
    StrExpr,
    TupleExpr,
    TypeInfo,
    UnaryExpr,
)
from mypy.plugin import AttributeContext, CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import ExtraAttrs, Instance, LiteralType, Type, get_proper_type

from .names import MODULE, MODULE_DICT
from .translate import Translator, tensor_instance
from .values import expr_type
from .walk import statements

_REGISTERS = {
    "register_buffer": "tensor",
    "register_parameter": "tensor",
    "add_module": "module",
    "register_module": "module",
}


def _scan(stmts: list[Statement], found: dict[str, tuple[str, Expression]]) -> None:
    """`self.register_buffer("name", value)` and the like, by name, in a method's statements."""
    for stmt in statements(stmts):
        if isinstance(stmt, ExpressionStmt):
            _registration(stmt.expr, found)


def _registration(call: Expression, found: dict[str, tuple[str, Expression]]) -> None:
    if not (isinstance(call, CallExpr) and len(call.args) >= 2):
        return
    callee = call.callee
    if isinstance(callee, MemberExpr) and callee.name in _REGISTERS and _is_self(callee.expr):
        name, kind, value = call.args[0], _REGISTERS[callee.name], call.args[1]
    elif (isinstance(callee, NameExpr) and callee.name == "setattr" and len(call.args) == 3
          and _is_self(call.args[0])):
        name, kind, value = call.args[1], "value", call.args[2]
    else:
        return
    if isinstance(name, StrExpr):
        found.setdefault(name.value, (kind, value))


def _is_self(e: Expression) -> bool:
    return isinstance(e, NameExpr) and e.name == "self"


def registrations(info: TypeInfo) -> dict[str, tuple[str, Expression]]:
    """The names a class's methods register, with their kind and value expression."""
    found: dict[str, tuple[str, Expression]] = {}
    for stmt in info.defn.defs.body:
        if isinstance(stmt, FuncDef):
            _scan(stmt.body.body, found)
    return found


def record_registrations(info: TypeInfo) -> None:
    """Called while the class is analysed (before its methods' bodies are: names are matched as
    written): the kind of each registered name goes into the class's plugin metadata, which mypy's
    cache keeps (a class read from the cache has no body to scan)."""
    kinds = {name: kind for name, (kind, _) in registrations(info).items()}
    if kinds:
        info.metadata.setdefault(_METADATA, {})["registered"] = kinds
    else:
        info.metadata.pop(_METADATA, None)


_METADATA = "typedtensor"

# per class: its TypeInfo (a re-analysed class is a new one) and the value expressions registered
_VALUES: dict[str, tuple[TypeInfo, dict[str, tuple[str, Expression]]]] = {}


def _values(info: TypeInfo) -> dict[str, tuple[str, Expression]]:
    known = _VALUES.get(info.fullname)
    if known is not None and known[0] is info:
        return known[1]
    found = registrations(info)  # empty for a class read from mypy's cache
    _VALUES[info.fullname] = (info, found)
    return found


def module_getattr_hook(name: str) -> Callable[[AttributeContext], Type]:
    """The attribute hook of `typedtensor.nn.Module.<name>` (NOTE [ Registered attributes ])."""

    def hook(ctx: AttributeContext) -> Type:
        receiver = ctx.type
        if ctx.is_lvalue or not isinstance(receiver, Instance):
            return ctx.default_attr_type
        extra = receiver.extra_attrs
        if extra is not None and name in extra.attrs:
            return extra.attrs[name]
        if receiver.type.has_base(MODULE_DICT):
            return ctx.api.named_generic_type(MODULE, [])
        for info in receiver.type.mro:
            if info.fullname == MODULE:
                break
            kind = info.metadata.get(_METADATA, {}).get("registered", {}).get(name)
            if kind is not None:
                entry = _values(info).get(name)
                return _registered_type(ctx.api, kind, entry[1] if entry else None, ctx.default_attr_type)
        return ctx.default_attr_type

    return hook


def _registered_type(api: CheckerPluginInterface, kind: str, value: Expression | None, default: Type) -> Type:
    # inferred already when its method was checked first, in this module
    t = api.lookup_type_or_none(value) if isinstance(api, TypeChecker) and value is not None else None
    p = get_proper_type(t)
    if p is not None and (tensor_instance(p) is not None or (isinstance(p, Instance) and p.type.has_base(MODULE))):
        return p
    if kind == "tensor":
        return Translator(api.named_generic_type).unknown_tensor()
    if kind == "module":
        return api.named_generic_type(MODULE, [])
    return default


# ---- configuration objects ------------------------------------------------------------------------
def class_default(info: TypeInfo, attr: str) -> int | None:
    """NOTE [ Configuration defaults ]
    A size held by a configuration object (`cfg.pred_len` of `@dataclass class Config: pred_len: int
    = 72`, or a class-level `patch: int = 16`) is typed plain `int` by mypy. The plugin reads it as
    its literal default, as the checker does: a model is checked for its configuration's defaults.
    Only a field whose class body gives an int literal and that no method of the class assigns
    (`self.pred_len = ...`) is read; an instance built with other values has other sizes at run
    time, which neither tool can see. A class read from mypy's cache has no body: its fields stay
    `int`."""
    for base in info.mro:
        if base.fullname.startswith(("builtins.", "typedtensor.")) or attr not in base.names:
            continue
        body = base.defn.defs.body
        value: int | None = None
        for stmt in body:  # the class-level assignment first: most attributes have none
            if isinstance(stmt, AssignmentStmt) and any(isinstance(lv, NameExpr) and lv.name == attr
                                                        for lv in stmt.lvalues):
                value = _int_literal(stmt.rvalue)
        if value is None or any(isinstance(stmt, FuncDef) and _assigns_self_attr(stmt, attr) for stmt in body):
            return None
        return value
    return None


def _int_literal(e: Expression) -> int | None:
    if isinstance(e, IntExpr):
        return e.value
    if isinstance(e, UnaryExpr) and e.op == "-" and isinstance(e.expr, IntExpr):
        return -e.expr.value
    return None


def _assigns_self_attr(func: FuncDef, attr: str) -> bool:
    for stmt in statements(func.body.body):
        targets = stmt.lvalues if isinstance(stmt, AssignmentStmt) else []
        if any(isinstance(t, MemberExpr) and t.name == attr and _is_self(t.expr) for t in targets):
            return True
    return False


def config_default_hook(value: int) -> Callable[[AttributeContext], Type]:
    """`cfg.pred_len` read as its class-level default (NOTE [ Configuration defaults ])."""

    def hook(ctx: AttributeContext) -> Type:
        p = get_proper_type(ctx.default_attr_type)
        if ctx.is_lvalue or not (isinstance(p, Instance) and p.type.fullname == "builtins.int"
                                 and p.last_known_value is None):
            return ctx.default_attr_type
        return p.copy_modified(last_known_value=LiteralType(value, fallback=p))

    return hook


# ---- nn.ModuleDict -------------------------------------------------------------------------------
def module_dict_constructor_hook(ctx: FunctionContext) -> Type:
    """`nn.ModuleDict({"wte": nn.Embedding(...), ...})`, `nn.ModuleDict(dict(wte=...))` or
    `nn.ModuleDict([("wte", ...), ...])`: each literal key's module type, kept on the instance type
    (NOTE [ Registered attributes ])."""
    default = get_proper_type(ctx.default_return_type)
    if not isinstance(default, Instance) or not ctx.args or len(ctx.args[0]) != 1:
        return ctx.default_return_type
    entries = _literal_entries(ctx.api, ctx.args[0][0])
    if not entries:
        return ctx.default_return_type
    made = default.copy_modified()
    made.extra_attrs = ExtraAttrs(entries)
    return made


def _literal_entries(api: CheckerPluginInterface, e: Expression) -> dict[str, Type] | None:
    pairs: list[tuple[Expression, Expression]] = []
    if isinstance(e, DictExpr):
        pairs = [(k, v) for k, v in e.items if k is not None]
    elif isinstance(e, CallExpr) and isinstance(e.callee, NameExpr) and e.callee.fullname == "builtins.dict":
        if not all(kind == ArgKind.ARG_NAMED for kind in e.arg_kinds):
            return None
        pairs = [(StrExpr(n or ""), v) for n, v in zip(e.arg_names, e.args, strict=False)]
    elif isinstance(e, (ListExpr, TupleExpr)):
        for item in e.items:
            if not (isinstance(item, TupleExpr) and len(item.items) == 2):
                return None
            pairs.append((item.items[0], item.items[1]))
    else:
        return None
    entries: dict[str, Type] = {}
    for key, value in pairs:
        if not isinstance(key, StrExpr):
            return None
        entries[key.value] = expr_type(api, value)
    return entries


def module_dict_item(ctx: MethodContext) -> Type:
    """`md["wte"]` for a literal key the constructor recorded."""
    receiver = ctx.type
    if not isinstance(receiver, Instance) or receiver.extra_attrs is None or len(ctx.args) != 1 or len(ctx.args[0]) != 1:
        return ctx.default_return_type
    key = ctx.args[0][0]
    if isinstance(key, StrExpr) and key.value in receiver.extra_attrs.attrs:
        return receiver.extra_attrs.attrs[key.value]
    return ctx.default_return_type


__all__ = ["class_default", "config_default_hook", "module_dict_constructor_hook", "module_dict_item", "module_getattr_hook", "record_registrations"]
