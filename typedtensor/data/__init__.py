"""``typedtensor.data`` (also ``typedtensor.utils.data``): datasets, samplers and the DataLoader."""

from __future__ import annotations

from typedtensor.data import collate as collate
from typedtensor.data import dataloader as dataloader
from typedtensor.data import dataset as dataset
from typedtensor.data import distributed as distributed
from typedtensor.data import sampler as sampler
from typedtensor.data._worker import WorkerInfo as WorkerInfo
from typedtensor.data._worker import get_worker_info as get_worker_info
from typedtensor.data.collate import default_collate as default_collate
from typedtensor.data.collate import default_convert as default_convert
from typedtensor.data.dataloader import DataLoader as DataLoader
from typedtensor.data.dataset import ChainDataset as ChainDataset
from typedtensor.data.dataset import ConcatDataset as ConcatDataset
from typedtensor.data.dataset import Dataset as Dataset
from typedtensor.data.dataset import IterableDataset as IterableDataset
from typedtensor.data.dataset import StackDataset as StackDataset
from typedtensor.data.dataset import Subset as Subset
from typedtensor.data.dataset import TensorDataset as TensorDataset
from typedtensor.data.dataset import random_split as random_split
from typedtensor.data.distributed import DistributedSampler as DistributedSampler
from typedtensor.data.sampler import BatchSampler as BatchSampler
from typedtensor.data.sampler import RandomSampler as RandomSampler
from typedtensor.data.sampler import Sampler as Sampler
from typedtensor.data.sampler import SequentialSampler as SequentialSampler
from typedtensor.data.sampler import SubsetRandomSampler as SubsetRandomSampler
from typedtensor.data.sampler import WeightedRandomSampler as WeightedRandomSampler

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
    "WeightedRandomSampler", "WorkerInfo", "default_collate", "default_convert", "get_worker_info", "random_split",
]
