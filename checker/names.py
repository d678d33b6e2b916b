"""Every full name the checker gives a meaning to, in one place."""

from __future__ import annotations

import builtins
from typing import Final

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
})
TYPING_MODULES: Final = ("typing", "typing_extensions")
#: Calls into these give a number (``x / math.sqrt(d)`` keeps x's shape).
SCALAR_MODULES: Final = ("math.", "random.random", "random.uniform", "random.gauss")


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
    if qual in TENSOR or qual in DIM_ARITH:
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
