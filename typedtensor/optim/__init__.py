"""``typedtensor.optim``: SGD, Adam, AdamW and learning-rate schedulers with torch's semantics."""

from __future__ import annotations

from typedtensor.optim import lr_scheduler as lr_scheduler
from typedtensor.optim.adam import Adam as Adam
from typedtensor.optim.adam import AdamW as AdamW
from typedtensor.optim.optimizer import Optimizer as Optimizer
from typedtensor.optim.sgd import SGD as SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "lr_scheduler"]
