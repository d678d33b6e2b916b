"""``typedtensor.optim``: torch's optimizers and learning-rate schedulers, with torch's semantics
(each update is torch's single-tensor algorithm, op for op) and torch's state-dict layout."""

from __future__ import annotations

from typedtensor.optim import lr_scheduler as lr_scheduler
from typedtensor.optim.adadelta import Adadelta as Adadelta
from typedtensor.optim.adagrad import Adagrad as Adagrad
from typedtensor.optim.adam import Adam as Adam
from typedtensor.optim.adam import AdamW as AdamW
from typedtensor.optim.adamax import Adamax as Adamax
from typedtensor.optim.lbfgs import LBFGS as LBFGS
from typedtensor.optim.nadam import NAdam as NAdam
from typedtensor.optim.optimizer import Optimizer as Optimizer
from typedtensor.optim.radam import RAdam as RAdam
from typedtensor.optim.rmsprop import RMSprop as RMSprop
from typedtensor.optim.sgd import SGD as SGD

__all__ = [
    "LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer", "RAdam", "RMSprop",
    "lr_scheduler",
]
