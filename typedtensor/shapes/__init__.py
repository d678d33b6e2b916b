"""The shape calculus: dim algebra, broadcasting, unification and the op registry.

Pure Python and importable without the compiled backend: the mypy plugin, the libcst checker,
the eager runtime and the graph tracer all take their shape rules from here (docs/shapes-api.md).
"""

from .broadcast import broadcast_all, broadcast_dim, broadcast_into, broadcast_shapes
from .dims import (
    UNKNOWN,
    DimExpr,
    Poly,
    Sym,
    Unknown,
    as_int,
    d_add,
    d_ceildiv,
    d_exact_div,
    d_floordiv,
    d_mul,
    d_neg,
    d_prod,
    d_sub,
    differs,
    dim_axis,
    dim_var,
    fmt_dim,
    is_literal,
    is_unknown,
    named_dim,
    opaque,
    same,
)
from .issue import CODES, Issue
from .registry import (
    REGISTRY,
    Args,
    ModuleDef,
    OpDef,
    Outputs,
    Param,
    Result,
    SliceIndex,
    TensorIndex,
    all_modules,
    all_ops,
    apply,
    bind,
    get_module,
    get_op,
)
from .rules._common import SCALAR, Scalar
from .shape import Shape, ShapeLike, Star, concrete, fmt_shape
from .unify import Bindings, compatible, substitute, substitute_dim, unify

all_ops()  # register every rule now: consumers expect a full registry on import

__all__ = [
    "CODES", "REGISTRY", "SCALAR", "UNKNOWN", "Args", "Bindings", "DimExpr", "Issue", "ModuleDef", "OpDef",
    "Outputs", "Param", "Poly", "Result", "Scalar", "Shape", "ShapeLike", "SliceIndex", "Star", "Sym",
    "TensorIndex", "Unknown", "all_modules", "all_ops", "apply", "as_int", "bind", "broadcast_all",
    "broadcast_dim", "broadcast_into", "broadcast_shapes", "compatible", "concrete", "d_add", "d_ceildiv", "d_exact_div",
    "d_floordiv", "d_mul", "d_neg", "d_prod", "d_sub", "differs", "dim_axis", "dim_var", "fmt_dim", "fmt_shape",
    "get_module", "get_op", "is_literal", "is_unknown", "named_dim", "opaque", "same", "substitute",
    "substitute_dim", "unify",
]
