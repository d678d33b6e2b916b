# `typedtensor.utils.data.dataset` is `typedtensor.data.dataset` (torch's import path).
from typedtensor.data.dataset import Dataset as Dataset
from typedtensor.data.dataset import Subset as Subset
from typedtensor.data.dataset import TensorDataset as TensorDataset
from typedtensor.data.dataset import random_split as random_split
