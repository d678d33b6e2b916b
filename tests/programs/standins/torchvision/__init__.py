"""A stand-in for torchvision, which the ported programs import but which is not installed here.

Datasets are synthetic (drawn from a numpy generator seeded per sample: no downloads, no files) and
transforms work on numpy arrays, so samples reach the DataLoader as numpy arrays and its
``default_collate`` turns them into tensors of whichever library runs the program. ``models`` holds
torchvision's own classification models and ``ops`` the layers they are built of, ported like the
programs."""

from . import datasets, models, ops, transforms, utils

__all__ = ["datasets", "models", "ops", "transforms", "utils"]
