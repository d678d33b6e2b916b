"""Importing this package registers every op and module rule (one family per module)."""

from . import (
    activations,
    conv,
    creation,
    elementwise,
    indexing,
    linalg,
    losses,
    modules,
    movement,
    nn,
    norm,
    primitives,
    reduce,
    resample,
    transformer,
)

__all__ = [
    "activations", "losses", "conv", "creation", "elementwise", "indexing", "linalg", "modules", "movement", "nn", "norm", "primitives",
    "reduce", "resample", "transformer",
]
