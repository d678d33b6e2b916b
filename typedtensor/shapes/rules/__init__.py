"""Importing this package registers every op and module rule (one family per module)."""

from . import (
    activations,
    conv,
    creation,
    decompositions,
    distributed,
    elementwise,
    indexing,
    linalg,
    losses,
    modules,
    movement,
    nn,
    norm,
    primitives,
    random,
    recurrent,
    reduce,
    resample,
    surface,
    transformer,
)

__all__ = [
    "activations", "conv", "creation", "decompositions", "distributed", "elementwise", "indexing", "linalg", "losses", "modules",
    "movement", "nn", "norm", "primitives", "random", "recurrent", "reduce", "resample", "surface", "transformer",
]
