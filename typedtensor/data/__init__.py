"""``typedtensor.data`` (also ``typedtensor.utils.data``): datasets and the DataLoader."""

from __future__ import annotations

from typedtensor.data.dataloader import DataLoader as DataLoader
from typedtensor.data.dataloader import default_collate as default_collate
from typedtensor.data.dataset import Dataset as Dataset
from typedtensor.data.dataset import Subset as Subset
from typedtensor.data.dataset import TensorDataset as TensorDataset
from typedtensor.data.dataset import random_split as random_split

__all__ = ["DataLoader", "Dataset", "Subset", "TensorDataset", "default_collate", "random_split"]
