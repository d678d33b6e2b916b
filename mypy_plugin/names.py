"""Every full name the plugin knows, in one place."""

from __future__ import annotations

from typing import Final

PACKAGE: Final = "typedtensor"
TENSOR: Final = "typedtensor.Tensor"
DIM: Final = "typedtensor.Dim"
MODULE: Final = "typedtensor.nn.Module"
SEQUENTIAL: Final = "typedtensor.nn.Sequential"
MODULE_DICT: Final = "typedtensor.nn.ModuleDict"
MAXMIN: Final = "typedtensor._MaxMin"
INT: Final = "builtins.int"
BOOL: Final = "builtins.bool"
TUPLE: Final = "builtins.tuple"
STR: Final = "builtins.str"

# Dimension arithmetic types and the calculus operation each one names.
ADD: Final = "typedtensor.Add"
SUB: Final = "typedtensor.Sub"
MUL: Final = "typedtensor.Mul"
DIV: Final = "typedtensor.Div"
ARITH_TYPES: Final = (ADD, SUB, MUL, DIV)

# `int` operators on sizes (`h * d` is `Mul[Heads, HeadDim]`), by dunder.
SIZE_OPERATORS: Final[dict[str, str]] = {
    "__add__": ADD,
    "__radd__": ADD,
    "__sub__": SUB,
    "__rsub__": SUB,
    "__mul__": MUL,
    "__rmul__": MUL,
    "__floordiv__": DIV,
    "__rfloordiv__": DIV,
}
