# `typedtensor.utils.data` is `typedtensor.data` (torch's import path).
from typedtensor.data import DataLoader as DataLoader
from typedtensor.data import Dataset as Dataset
from typedtensor.data import Subset as Subset
from typedtensor.data import TensorDataset as TensorDataset
from typedtensor.data import default_collate as default_collate
from typedtensor.data import random_split as random_split

from . import dataloader as dataloader
from . import dataset as dataset
