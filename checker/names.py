"""Every full name the checker gives a meaning to, in one place."""

from __future__ import annotations

from typing import Final

PACKAGE: Final = "typedtensor"
TENSOR: Final = frozenset({"typedtensor.Tensor"})
DIM: Final = frozenset({"typedtensor.Dim"})
MODULE_BASE: Final = frozenset({"typedtensor.nn.Module"})
SEQUENTIAL: Final = frozenset({"typedtensor.nn.Sequential"})
MODULE_LIST: Final = frozenset({"typedtensor.nn.ModuleList"})
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
