"""Importing this package registers every op and module rule (one family per module)."""

from . import (
           creation,
           elementwise,
           indexing,
           linalg,
           modules,
           movement,
           nn,
           primitives,
           random,
           recurrent,
           reduce,
           surface,
)

__all__ = ["creation", "elementwise", "indexing", "linalg", "modules", "movement", "nn", "primitives", "random",
           "recurrent", "reduce", "surface"]
