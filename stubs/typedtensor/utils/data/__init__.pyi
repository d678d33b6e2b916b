# `typedtensor.utils.data` is `typedtensor.data` (torch's import path).
from typedtensor.data import *  # noqa: F403
from typedtensor.data import collate as collate
from typedtensor.data import dataloader as dataloader
from typedtensor.data import dataset as dataset
from typedtensor.data import distributed as distributed
from typedtensor.data import sampler as sampler
