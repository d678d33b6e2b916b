# `typedtensor.data.dataset` (torch's `torch.utils.data.dataset`): defined in the package.
from typedtensor.data import Dataset as Dataset
from typedtensor.data import Subset as Subset
from typedtensor.data import TensorDataset as TensorDataset
from typedtensor.data import random_split as random_split
