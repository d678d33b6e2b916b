"""Every full name the checker gives a meaning to, in one place."""

from __future__ import annotations

import builtins
from typing import Final

from typedtensor.shapes.registry import all_ops

PACKAGE: Final = "typedtensor"
TENSOR: Final = frozenset({"typedtensor.Tensor"})
DIM: Final = frozenset({"typedtensor.Dim"})
MODULE_BASE: Final = frozenset({"typedtensor.nn.Module"})
SEQUENTIAL: Final = frozenset({"typedtensor.nn.Sequential"})
MODULE_LIST: Final = frozenset({"typedtensor.nn.ModuleList"})
MODULE_DICT: Final = frozenset({"typedtensor.nn.ModuleDict"})
#: A parameter or buffer is the tensor it wraps.
PARAMETER: Final = frozenset({"typedtensor.nn.Parameter", "typedtensor.nn.parameter.Parameter", "typedtensor.nn.Buffer"})
TENSOR_DATASET: Final = frozenset({"typedtensor.data.TensorDataset", "typedtensor.utils.data.TensorDataset"})
DATA_LOADER: Final = frozenset({"typedtensor.data.DataLoader", "typedtensor.utils.data.DataLoader"})
#: ``nn.Module`` methods that add an attribute by name (``self.register_buffer("pe", pe)``).
REGISTER_METHODS: Final = frozenset({"register_buffer", "register_parameter", "register_module", "add_module"})
DIM_ARITH: Final = {
    "typedtensor.Add": "add", "typedtensor.Sub": "sub", "typedtensor.Mul": "mul",
    "typedtensor.Div": "div",
}
REVEAL: Final = frozenset({"typedtensor.reveal_shape", "reveal_shape"})
#: Decorators that keep a function's signature.
TRANSPARENT_DECORATORS: Final = frozenset({
    "typedtensor.checked", "typedtensor.compile", "typedtensor.no_grad", "typedtensor.jit",
    "functools.wraps", "functools.cache", "functools.lru_cache", "typing.final",
    "typing.override", "typing_extensions.override", "typing.no_type_check", "abc.abstractmethod",
    "staticmethod", "classmethod", "property", "functools.cached_property",
    "jaxtyping.jaxtyped", "beartype.beartype", "typeguard.typechecked",
})
TYPING_MODULES: Final = ("typing", "typing_extensions")
#: Calls into these give a number (``x / math.sqrt(d)`` keeps x's shape).
SCALAR_MODULES: Final = ("math.", "random.random", "random.uniform", "random.gauss")


#: jaxtyping's dtype wrappers: ``Float[torch.Tensor, "batch dim"]`` (NOTE [ jaxtyping annotations ]).
JAXTYPING_DTYPES: Final = frozenset(f"jaxtyping.{n}" for n in (
    "Shaped", "Bool", "Key", "Num", "Inexact", "Float", "BFloat16", "Float16", "Float32", "Float64",
    "Float8e4m3b11fnuz", "Float8e4m3fn", "Float8e4m3fnuz", "Float8e5m2", "Float8e5m2fnuz", "Complex",
    "Complex64", "Complex128", "Integer", "UInt", "UInt2", "UInt4", "UInt8", "UInt16", "UInt32", "UInt64",
    "Int", "Int2", "Int4", "Int8", "Int16", "Int32", "Int64", "Real",
))
JAXTYPING_BOOL: Final = "jaxtyping.Bool"
TORCH: Final = "torch"
#: typedtensor's top-level names that torch's top level lacks: its annotation language and tools,
#: and the ops torch keeps in ``torch.nn.functional`` only (their table entries say
#: ``torch_functional_only``): ``torch.Dim`` and ``torch.gelu`` stay unknown rather than becoming
#: ``typedtensor.Dim`` and ``typedtensor.gelu``. A test keeps this complete for the registry's names.
_TYPEDTENSOR_ONLY: Final = frozenset({
    "Dim", "Add", "Sub", "Mul", "Div", "reveal_shape", "checked", "data",
    *(name for name, op in all_ops().items() if op.torch_functional_only),
})


def from_torch(full: str) -> str:
    """NOTE [ Reading torch programs ]
    typedtensor's surface is PyTorch's (DESIGN §3): the registry's every function, method and
    module has torch's name and semantics (the torch-oracle tests check each rule against torch).
    So a torch program is read by giving each ``torch`` name the meaning of the ``typedtensor`` name
    spelt the same: ``torch.nn.functional.relu`` is ``typedtensor.nn.functional.relu``,
    ``torch.Tensor`` is ``typedtensor.Tensor``, ``torch.nn.modules.linear.Linear`` is
    ``typedtensor.nn.Linear``. ``torch`` itself stays ``torch`` (its attributes are mapped one at a
    time, here), and the names of typedtensor's annotation language (``Dim``, ``Add``...), which
    torch does not have, are not mapped: a torch name the registry does not know stays a name
    nobody knows, whose calls are unknown (never an error)."""
    if full == TORCH or not full.startswith("torch."):
        return full
    parts = full.split(".")[1:]
    if parts[0] in _TYPEDTENSOR_ONLY:
        return full
    if parts[0] == "functional":  # torch.functional.split/einsum/... are torch.split/einsum/...
        parts = parts[1:]
    elif parts[:2] == ["nn", "modules"]:  # torch.nn.modules[.<file>].Linear is torch.nn.Linear
        if not parts[-1][:1].isupper():
            return full  # the package or one of its files: its classes are mapped when named
        parts = ["nn", parts[-1]]
    return ".".join((PACKAGE, *parts))


def typing_name(qual: str) -> str | None:
    """``typing.Literal`` / ``typing_extensions.Literal`` → ``Literal``; else None."""
    mod, _, name = qual.rpartition(".")
    if mod in TYPING_MODULES:
        return name
    if mod == "builtins" or mod == "":
        return name if name in ("tuple", "list", "int", "float", "bool", "str", "type") else None
    return None


#: Subscripted, these make a type, not a value (``Side = Literal[8]`` is a type alias).
_TYPE_FORMS: Final = frozenset({
    "Literal", "Optional", "Union", "Annotated", "Tuple", "List", "Sequence", "Unpack", "tuple", "list",
})


def is_type_form(qual: str) -> bool:
    """Whether ``qual[...]`` is a type expression (an alias when assigned to a name)."""
    if qual in TENSOR or qual in DIM_ARITH or qual in JAXTYPING_DTYPES:
        return True
    name = typing_name(qual)
    return name is not None and name in _TYPE_FORMS


_TYPING_NAMES: Final = (
    "Any", "Annotated", "Generic", "Literal", "Optional", "Sequence", "Tuple", "List", "TypeVar",
    "TypeVarTuple", "Union", "Unpack", "cast", "Iterable", "Iterator",
)
_PACKAGE_NAMES: Final = (
    *TENSOR, *DIM, *DIM_ARITH, *MODULE_BASE, *SEQUENTIAL, *MODULE_LIST, *MODULE_DICT, "typedtensor.reveal_shape",
    "typedtensor.nn", "typedtensor.nn.functional",
)


def star_names(module: str, public: tuple[str, ...]) -> list[str]:
    """What ``from <module> import *`` binds, for typedtensor's modules (from the registry's public
    names and the annotation language) and typing's; nothing for other modules outside the tree."""
    if module in TYPING_MODULES:
        return list(_TYPING_NAMES)
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        return []
    prefix = module + "."
    shadowing = set(dir(builtins))  # `sum`, `max`, `abs`...: keep the builtins (the safe guess)
    return sorted({q[len(prefix):] for q in (*public, *_PACKAGE_NAMES)
                   if q.startswith(prefix) and "." not in q[len(prefix):] and q[len(prefix):] not in shadowing})
