"""Importing this package registers every op and module rule (one family per module)."""

from . import (
    activations,
    arrangement,
    attention,
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
    scatter_more,
    sequence_losses,
    small_math,
    statistics,
    surface,
    transformer,
)

__all__ = [
    "activations", "arrangement", "attention", "conv", "creation", "decompositions", "distributed", "elementwise", "indexing",
    "linalg", "losses", "modules", "movement", "nn", "norm", "primitives", "random", "recurrent", "reduce", "resample",
    "scatter_more", "sequence_losses", "small_math", "statistics", "surface", "transformer",
]
