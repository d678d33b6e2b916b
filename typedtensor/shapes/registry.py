"""The op registry: one ``OpDef`` per op, shared by the mypy plugin, the checker, the eager
runtime and the graph tracer.

NOTE [ Static values ]
A rule sees tensors as ``ShapeLike`` and every other argument as its static value: an ``int`` for a
literal, a ``DimExpr`` for a size, a tuple for a tuple, ``UNKNOWN`` when the caller cannot tell.
Rules never raise: they return a ``Shape``, ``UNKNOWN``, ``Outputs`` or an ``Issue``; the consumer
decides whether an Issue is a static error, a ``tt.ShapeError`` or an IR verification failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import EllipsisType
from typing import Any, Final, Literal, Union

from .dims import UNKNOWN, DimExpr, Unknown
from .issue import Issue
from .shape import Shape, ShapeLike

ParamKind = Literal[
    "tensor", "tensors", "optional_tensor", "size", "sizes", "int", "ints", "float", "bool", "str",
    "dtype", "index", "any",
]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()


@dataclass(frozen=True)
class Param:
    """One parameter of an op, in the order PyTorch declares it."""

    name: str
    kind: ParamKind
    default: Any = REQUIRED
    variadic: bool = False  # ``*size``: the remaining positional arguments bind here as a tuple
    keyword_only: bool = False
    positional_only: bool = False  # before a ``/`` in the spec: no keyword reaches it


@dataclass(frozen=True)
class SliceIndex:
    start: DimExpr | None = None
    stop: DimExpr | None = None
    step: DimExpr | None = None


@dataclass(frozen=True)
class TensorIndex:
    shape: ShapeLike
    is_bool: bool = False


IndexItem = Union[int, Unknown, SliceIndex, None, EllipsisType, TensorIndex]


@dataclass(frozen=True)
class Outputs:
    """Several results: ``max(dim=...)`` gives values and indices; ``split`` a tuple of pieces; an
    ``Outputs`` among the shapes is a nested tuple (``nn.LSTM``'s ``(output, (h_n, c_n))``)."""

    shapes: tuple[ShapeLike | Outputs, ...] | Unknown
    names: tuple[str, ...] | None = None
    element: ShapeLike = UNKNOWN  # the shape of each piece when their count is unknown

    def get(self, name: str) -> ShapeLike:
        if self.names is None or isinstance(self.shapes, Unknown) or name not in self.names:
            return UNKNOWN
        got = self.shapes[self.names.index(name)]
        return UNKNOWN if isinstance(got, Outputs) else got


Result = Union[Shape, Unknown, Issue, Outputs]
Args = dict[str, Any]
Rule = Callable[[Args], Result]


# NOTE [ One op table ]
# An op is declared once, by one ``op(...)`` entry next to its shape rule (``rules/*.py``; a family
# of ops that share a rule is a table of rows there). The entry holds everything every other layer
# needs: the parameters with their defaults, how the op is exposed (``tt.X``, ``Tensor.X``,
# ``Tensor.X_``, ``nn.functional.X``, a property, operator dunders), which of those forms Python
# implements, the dtype rule, the gradient status, the CUDA support, the fusion expression, whether
# graph files hold it, the C++ primitive it maps to and the ``nn`` module that wraps it. Every list
# of ops elsewhere is derived: at import time (``shapes/api.py``, the runtime's exports, the CUDA
# sets, the graph shape check) or by ``scripts/gen_ops.py`` (the stubs, the C++ X-macro header).
# PyTorch's ``native_functions.yaml`` (one schema per op, bindings generated from it) is the model.

# NOTE [ ONNX slot ]
# ``onnx`` names the ONNX operator that the op's graph node becomes when it maps one-to-one: the
# node's inputs in order, and attributes taken from the node's, ``"Gather(axis=int:dim)"`` (ONNX
# ``axis`` = the node's ``dim`` attribute as an int; ``float:``, ``ints:`` likewise). The exporter
# (``typedtensor/onnx/_ops.py``) builds its direct emitters from these; ops that ONNX writes as
# several nodes keep a composed emitter there.

# NOTE [ C++ functions from the table ]
# An op whose C++ front end is one function ``tt::<name>`` taking the op's parameters in order has
# ``cpp_fn``: its result type alone (``"Tensor"``, ``"TensorList"``: each parameter's C++ type then
# follows from its kind: tensor ``const Tensor&``, int ``int64_t``, float ``double``, bool ``bool``, str
# ``const std::string&``, dtype ``std::optional<DType>``) or the whole signature where a kind does not
# say (``"Tensor(const Tensor&, const Dims&, bool)"`` for a ``dim:any`` that is a list of dims).
# ``scripts/gen_ops.py`` writes from it the declaration (generated/ops_decl.inc, in ops.h) and the
# binding, as the method and the function with torch's names and defaults (generated/bindings.inc,
# in bind_tensor.cpp), as torchgen does from ``native_functions.yaml``. Ops whose binding does more
# than convert its arguments (overloads by argument type, several results) are bound by hand.

# NOTE [ Dtype rules ]
# ``dtype_rule`` names the result's dtype. The values the C++ backend shares (generated/ops.inc,
# tt::DTypeRule): ``same`` (the promoted input dtype), ``float`` (integers computed in the default
# float), ``float_only`` (floating inputs only), ``accumulate`` (integers accumulate in int64),
# ``integral`` (integer and bool inputs only) and ``bool`` (a bool result: tt::DTypeRule::Compare,
# or Logical when the op is tagged ``logical``, taking its operands' truthiness). Ops outside the C++
# enum families also use ``factory`` (the dtype= argument or the default), ``cast``, ``int64``,
# ``infer`` (from the data) and ``promote``.

# NOTE [ Public names ]
# The table is keyed by op name, and a form is exposed under its entry's key, except where ``public``
# names it otherwise: two different ops that torch spells alike (``F.unfold``, im2col, and
# ``Tensor.unfold``, the sliding-window view) are two entries, one of them exposing its form under
# the shared name. Every consumer reads the names through ``OpDef.public_name`` / ``api.ops_with``
# (public name -> entry), so the stubs, the exports, the checker and the mypy plugin agree.

Form = Literal["function", "method", "inplace", "functional", "property", "linalg"]
FORMS: Final[tuple[Form, ...]] = ("function", "method", "inplace", "functional", "property", "linalg")
_FORM_WORDS: Final[dict[str, Form]] = {
    "tt": "function", "function": "function", "method": "method", "inplace": "inplace", "_": "inplace",
    "F": "functional", "functional": "functional", "property": "property", "linalg": "linalg",
}
# NOTE [ Autocast policy ]
# What ``autocast`` does to an op's floating inputs, per device type (torch's lists, kept true by
# tests/amp/test_policy_table.py, which runs every op under torch's CPU autocast):
#   lower    cast to the region's low-precision dtype (bfloat16 / float16): GEMMs, convolutions, attention;
#   float32  cast to float32: ops whose range or accumulation needs it (losses, prod, CUDA's softmax);
#   promote  cast to the widest floating dtype among them (cat, stack): mixed inputs are not an error;
#   None     leave them alone (the op runs in whatever dtype its inputs have).
# float64 inputs and tensors on the other device type are never cast. The runtime applies the
# policy once per call, at the op's front end (backend/include/typedtensor/autocast.h for C++ ops,
# typedtensor/_runtime/autocast.py for Python-written ones); the lists it reads are generated from
# this field by scripts/gen_ops.py.
AutocastCast = Literal["lower", "float32", "promote"]


@dataclass(frozen=True)
class Autocast:
    """An op's autocast policy on CPU and on CUDA (NOTE [ Autocast policy ])."""

    cpu: AutocastCast | None = None
    cuda: AutocastCast | None = None


def parse_autocast(text: str) -> Autocast | None:
    """``"lower"`` (both device types) or ``"cpu=float32 cuda=lower"`` (each its own; one left out:
    none there) as an ``Autocast``; ``""`` is None."""
    if not text:
        return None
    words = text.split()
    if len(words) == 1 and "=" not in words[0]:
        words = [f"cpu={words[0]}", f"cuda={words[0]}"]  # one policy for both, checked as the others
    per = dict(w.split("=", 1) for w in words)
    assert set(per) <= {"cpu", "cuda"}, f"autocast: unknown device type in {text!r}"
    assert set(per.values()) <= {"lower", "float32", "promote"}, f"autocast: unknown policy in {text!r}"
    return Autocast(per.get("cpu"), per.get("cuda"))  # type: ignore[arg-type]


CudaSupport = Literal["kernel", "host", "cpu"]
"""``kernel``: runs on a CUDA tensor on the device (its own kernels, or primitives that have them);
``host``: accepts a CUDA tensor but computes on the host (a copy there and back); ``cpu``: CPU only."""


def parse_forms(text: str) -> frozenset[Form]:
    """``"tt method inplace F"`` as the set of forms (``tt`` = ``typedtensor.X``, ``F`` =
    ``typedtensor.nn.functional.X``, ``inplace`` = ``Tensor.X_``, ``linalg`` = ``typedtensor.linalg.Y``
    for the op ``linalg_Y``)."""
    return frozenset(_FORM_WORDS[w] for w in text.split())


@dataclass(frozen=True)
class ModuleSpec:
    """The ``nn`` module that wraps an op elementwise (``nn.LeakyReLU`` over ``F.leaky_relu``): its
    class name and constructor parameters, passed to the op by name (``training`` comes from the
    module). Its class, its ``ModuleDef`` and its stub are all derived from this."""

    name: str
    ctor: tuple[Param, ...] = ()


@dataclass(frozen=True)
class OpDef:
    """Everything the four consumers need to know about one op (DESIGN §3; NOTE [ One op table ])."""

    name: str
    params: tuple[Param, ...]
    rule: Rule
    differentiable: bool = True
    tags: frozenset[str] = frozenset()
    cuda: CudaSupport = "kernel"
    dtype_rule: str = "promote"  # NOTE [ Dtype rules ]
    signature: str | None = None
    doc: str = ""
    gradient: str = ""  # "" when differentiable by a registered VJP; else why not
    aliases: tuple[str, ...] = ()
    alias_of: str | None = None  # set on the entries registered for an alias
    expose: frozenset[Form] = frozenset()
    # A form whose parameters differ from ``params`` (``params`` is the union the rule binds; a
    # method's list leaves out ``self``): ``F.relu(input, inplace)`` but ``tt.relu(input)``.
    forms: Mapping[str, tuple[Param, ...]] = field(default_factory=dict, compare=False)
    python: frozenset[Form] = frozenset()  # forms implemented in Python (the rest are ``_C``'s)
    operators: tuple[str, ...] = ()  # ``__add__``, ``__radd__`` ...: reflected when ``__r...__``
    fusion: str | None = None  # C++ expression over operands A, B, C for the fused kernels
    graph: bool = False  # graph files can hold it (the IR has a node for it)
    cpp: str | None = None  # its value in a C++ op enum, e.g. ``UnaryOp::Exp``
    # A primitive of its own name in the C++ backend, outside the enum families: its kind
    # (tt::OpKind: Elementwise, View, StridedView, Reduction, Index, Other) and, where the
    # primitive is narrower than the op (a fused CPU kernel the op falls back from), its device.
    prim: str | None = None
    prim_cuda: CudaSupport | None = None
    module: ModuleSpec | None = None
    # Its ONNX operator where the graph node maps to one ONNX node 1:1 (NOTE [ ONNX slot ]).
    onnx: str | None = None
    # torch has it in ``torch.nn.functional`` only (no ``torch.X``), where typedtensor also has
    # ``tt.X``: a torch program's ``torch.X`` is then not read as ``typedtensor.X`` (checker/names.py).
    torch_functional_only: bool = False
    # Its C++ front-end function ``tt::<name>`` where the op is one (NOTE [ C++ functions from the table ]):
    # ``"Tensor(const Tensor&, int64_t, const Tensor&)"``, its result and parameter types in ``params``' order.
    cpp_fn: str | None = None
    # The parameters of its device kernel of the same name, a row of NOTE [ One kernel list ]
    # (typedtensor/kernel_list.h): ``"(const Tensor& out, const Tensor& in, int64_t dim)"``; the CPU and
    # CUDA backends implement it, the device table and the emulator expand it.
    kernel: str | None = None
    returns: str | None = None  # the stubs' result type; None: derived from the signature
    overloads: tuple[str, ...] = ()  # typed stub signatures of the function form, tried in order
    method_overloads: tuple[str, ...] = ()  # the method form's, where not the above with ``self``
    method_self: bool = True  # False: the method does not bind ``self`` to the first parameter
    autocast: Autocast | None = None  # NOTE [ Autocast policy ]
    # A form's public name where it is not the entry's key (NOTE [ Public names ]).
    public: Mapping[str, str] = field(default_factory=dict, compare=False)

    def public_name(self, form: Form) -> str:
        """The name ``form`` has in the API (``Tensor.X``, ``F.X`` ...): the key unless ``public`` says."""
        return self.public.get(form, self.name)

    def positional(self) -> list[Param]:
        return [p for p in self.params if not p.keyword_only]

    def form_params(self, form: Form) -> tuple[Param, ...]:
        """The parameters of one form (a method's and a property's without ``self``)."""
        if form in self.forms:
            return self.forms[form]
        if form in ("method", "inplace", "property"):
            if "method" in self.forms:
                return self.forms["method"]
            return self.params[1:] if self.method_self else self.params
        return self.params

    @property
    def preserves_shape(self) -> bool:
        return self.signature == "(*s) -> (*s)"


REGISTRY: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    assert op.name not in REGISTRY, f"op {op.name!r} registered twice"
    REGISTRY[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    _ensure_rules()
    return REGISTRY[name]


def _ensure_rules() -> None:
    if not REGISTRY:
        from . import rules  # noqa: F401  (registration happens on import)


def bind(op: OpDef, positional: Sequence[Any], keywords: Mapping[str, Any]) -> Args | Issue | None:
    """Bind call arguments to the op's parameters as Python would; None when they do not fit
    (an arity problem is a type error for the consumer's own machinery, not a shape error)."""
    args: Args = {}
    params = op.positional()
    i = 0
    for p in params:
        if p.variadic:
            rest = tuple(positional[i:])
            if len(rest) == 1 and p.kind == "sizes" and isinstance(rest[0], (tuple, list, Unknown)):
                args[p.name] = tuple(rest[0]) if isinstance(rest[0], (tuple, list)) else UNKNOWN
            else:
                args[p.name] = rest
            i = len(positional)
            continue
        if i < len(positional):
            args[p.name] = positional[i]
            i += 1
    if i < len(positional):
        return None
    for key, value in keywords.items():
        match = next((p for p in op.params if p.name == key), None)
        if match is None or key in args:
            if match is not None and match.variadic and key in args and args[key] == ():
                args[key] = tuple(value) if isinstance(value, (tuple, list)) else value
                continue
            return None
        args[key] = tuple(value) if match.variadic and isinstance(value, list) else value
    for p in op.params:
        if p.name not in args:
            if p.variadic:
                args[p.name] = ()
            elif p.default is REQUIRED:
                return None
            else:
                args[p.name] = p.default
    return args


def apply(op_name: str, positional: Sequence[Any] = (), keywords: Mapping[str, Any] | None = None) -> Result:
    """Bind and run an op's rule; an unbindable call gives UNKNOWN (the consumer reports arity)."""
    op = get_op(op_name)
    bound = bind(op, positional, keywords or {})
    if bound is None:
        return UNKNOWN
    if isinstance(bound, Issue):
        return bound
    return op.rule(bound)


# ---------------------------------------------------------------------------------------------
# Declaring ops

_CPP_TYPES: Final[dict[str, str]] = {
    "tensor": "const Tensor&", "int": "int64_t", "size": "int64_t", "float": "double", "bool": "bool",
    "str": "const std::string&", "dtype": "std::optional<DType>",
}


def cpp_parameter_types(signature: str) -> tuple[str, list[str]]:
    """``"Tensor(const Tensor&, std::pair<int64_t, int64_t>)"`` as ``("Tensor", [its two types])``."""
    result, _, rest = signature.partition("(")
    types: list[str] = []
    depth, cur = 0, ""
    for ch in rest[:-1]:
        depth += ch in "<(["
        depth -= ch in ">)]"
        if ch == "," and depth == 0:
            types.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        types.append(cur.strip())
    return result.strip(), types


def cpp_function(spec: str, params: tuple[Param, ...], name: str) -> str:
    """An entry's ``cpp_fn`` as the full ``"Result(Type, ...)"`` (NOTE [ C++ functions from the table ])."""
    if "(" in spec:
        count = len(cpp_parameter_types(spec)[1])
        assert count == len(params), f"op {name!r}: cpp_fn {spec!r} has {count} parameters, the op {len(params)}"
        return spec
    missing = [p.name for p in params if p.kind not in _CPP_TYPES or p.variadic]
    assert not missing, f"op {name!r}: cpp_fn needs the C++ types of {missing} written out"
    return f"{spec}({', '.join(_CPP_TYPES[p.kind] for p in params)})"


def op(
    name: str,
    params: str | tuple[Param, ...],
    *,
    expose: str = "",
    differentiable: bool = True,
    gradient: str = "",
    tags: tuple[str, ...] = (),
    cuda: CudaSupport = "kernel",
    dtype_rule: str = "promote",
    signature: str | None = None,
    aliases: tuple[str, ...] = (),
    function: str | None = None,
    method: str | None = None,
    inplace: str | None = None,
    functional: str | None = None,
    python: str = "",
    operators: tuple[str, ...] = (),
    fusion: str | None = None,
    graph: bool = False,
    cpp: str | None = None,
    prim: str | None = None,
    prim_cuda: CudaSupport | None = None,
    module: tuple[str, str] | None = None,
    onnx: str | None = None,
    torch_functional_only: bool = False,
    cpp_fn: str | None = None,
    kernel: str | None = None,
    returns: str | None = None,
    overloads: tuple[str, ...] = (),
    method_overloads: tuple[str, ...] = (),
    method_self: bool = True,
    alias_expose: Mapping[str, str] | None = None,
    autocast: str = "",
    public: Mapping[str, str] | None = None,
) -> Callable[[Rule], Rule]:
    """Register ``fn`` as the rule of op ``name``: the op's one entry (NOTE [ One op table ]).

    ``params`` is a compact spec, e.g. ``"input:tensor, dim:int=None, keepdim:bool=False"``;
    ``*size:sizes`` is a vararg; names after a lone ``*`` are keyword-only. ``expose`` names the
    forms (``"tt method inplace F property"``); ``function`` / ``method`` / ``functional`` give a
    form's own parameter spec where it differs (a method's without ``self``); ``python`` names the
    forms implemented in Python; ``module`` is ``(class name, constructor spec)`` of the ``nn``
    module that wraps the op; ``autocast`` its policy under ``tt.autocast`` (``parse_autocast``); ``public``
    a form's API name where it is not ``name`` (``{"method": "unfold"}``, NOTE [ Public names ]). Each alias gets an entry of its own that shares everything else
    but its operators and module (and its forms, where ``alias_expose`` names them).
    """
    parsed = parse_params(params) if isinstance(params, str) else params
    forms = {
        form: parse_params(spec)
        for form, spec in (
            ("function", function), ("method", method), ("inplace", inplace), ("functional", functional)
        )
        if spec is not None
    }
    spec = ModuleSpec(module[0], parse_params(module[1])) if module else None
    assert set(public or {}) <= set(parse_forms(expose)), f"op {name!r}: public names a form it does not expose"
    assert differentiable or gradient, f"op {name!r}: not differentiable, but no reason given"

    def deco(fn: Rule) -> Rule:
        for n in (name, *aliases):
            register(
                OpDef(
                    name=n, params=parsed, rule=fn, differentiable=differentiable, tags=frozenset(tags),
                    cuda=cuda, dtype_rule=dtype_rule, signature=signature, doc=(fn.__doc__ or "").strip(),
                    gradient=gradient, aliases=aliases if n == name else (), alias_of=None if n == name else name,
                    expose=parse_forms((alias_expose or {}).get(n, expose)), forms=forms, python=parse_forms(python),
                    operators=operators if n == name else (), fusion=fusion, graph=graph, cpp=cpp if n == name else None,
                    prim=prim if n == name else None, prim_cuda=prim_cuda,
                    module=spec if n == name else None, onnx=onnx if n == name else None,
                    torch_functional_only=torch_functional_only,
                    cpp_fn=cpp_function(cpp_fn, parsed, name) if cpp_fn and n == name else None,
                    kernel=kernel if n == name else None, returns=returns, overloads=overloads,
                    method_overloads=method_overloads,
                    method_self=method_self, autocast=parse_autocast(autocast),
                    public=dict(public or {}) if n == name else {},
                )
            )
        return fn

    return deco


_LITERALS: Final[dict[str, Any]] = {"None": None, "True": True, "False": False, "()": ()}


def _parse_default(text: str) -> Any:
    if text in _LITERALS:
        return _LITERALS[text]
    if text.startswith(("'", '"')):
        return text[1:-1]
    if text.startswith("("):  # a tuple of numbers, e.g. linalg.matrix_norm's dim=(-2, -1)
        return tuple(_parse_default(t.strip()) for t in text[1:-1].split(",") if t.strip())
    try:
        return int(text)
    except ValueError:
        return float(text)


@cache
def parse_params(spec: str) -> tuple[Param, ...]:
    """A compact parameter spec as `Param`s. Remembered per spec: 213 ops share 74 parameter lists
    (every unary op is `input:tensor`), and the registry is built at each import, which is every
    mypy run with the plugin; the result is an immutable tuple of frozen `Param`s."""
    out: list[Param] = []
    keyword_only = False
    for raw in (part.strip() for part in re.split(r",(?![^(]*\))", spec)):
        if not raw:
            continue
        if raw == "*":
            keyword_only = True
            continue
        if raw == "/":
            out = [Param(p.name, p.kind, p.default, p.variadic, p.keyword_only, True) for p in out]
            continue
        variadic = raw.startswith("*")
        raw = raw.lstrip("*")
        default: Any = REQUIRED
        if "=" in raw:
            raw, dflt = raw.split("=", 1)
            default = _parse_default(dflt.strip())
        pname, kind = (x.strip() for x in raw.split(":"))
        out.append(Param(pname, kind, default, variadic, keyword_only))  # type: ignore[arg-type]
        if variadic:
            keyword_only = True
    return tuple(out)


@dataclass(frozen=True)
class ModuleDef:
    """An ``nn`` module: its constructor parameters, which of them become the class's type
    arguments (``Linear[In, Hidden]``; for a conv or pool also the non-size arguments its output
    shape depends on, ``Conv2d[C, H, Literal[3], Literal[2], Literal[1], Literal[1]]``), and its
    forward rule over the constructor's values. A type argument a consumer does not know (an
    annotation that names fewer) is ``UNKNOWN``, never the parameter's default."""

    name: str
    ctor: tuple[Param, ...]
    type_params: tuple[str, ...]
    forward_params: tuple[Param, ...]
    forward: Callable[[Args, Args], Result]
    doc: str = ""
    ops: tuple[str, ...] = field(default_factory=tuple)

    def bind_ctor(self, positional: Sequence[Any], keywords: Mapping[str, Any]) -> Args | None:
        fake = OpDef(self.name, self.ctor, lambda a: UNKNOWN)
        got = bind(fake, positional, keywords)
        return got if isinstance(got, dict) else None

    def call(self, ctor_args: Args, positional: Sequence[Any], keywords: Mapping[str, Any]) -> Result:
        fake = OpDef(self.name, self.forward_params, lambda a: UNKNOWN)
        got = bind(fake, positional, keywords)
        if not isinstance(got, dict):
            return UNKNOWN
        return self.forward(ctor_args, got)


MODULE_REGISTRY: dict[str, ModuleDef] = {}


def register_module(md: ModuleDef) -> ModuleDef:
    assert md.name not in MODULE_REGISTRY, md.name
    MODULE_REGISTRY[md.name] = md
    return md


def module(
    name: str, ctor: str, type_params: tuple[str, ...], forward_params: str, ops: tuple[str, ...] = ()
) -> Callable[[Callable[[Args, Args], Result]], Callable[[Args, Args], Result]]:
    def deco(fn: Callable[[Args, Args], Result]) -> Callable[[Args, Args], Result]:
        register_module(ModuleDef(
            name, parse_params(ctor), type_params, parse_params(forward_params), fn, (fn.__doc__ or "").strip(), ops,
        ))
        return fn

    return deco


def get_module(name: str) -> ModuleDef:
    _ensure_rules()
    return MODULE_REGISTRY[name]


def all_ops() -> dict[str, OpDef]:
    _ensure_rules()
    return REGISTRY


def all_modules() -> dict[str, ModuleDef]:
    _ensure_rules()
    return MODULE_REGISTRY
