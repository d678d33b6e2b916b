# `typedtensor.data.dataloader` (torch's `torch.utils.data.dataloader`): defined in the package.
from typedtensor.data import DataLoader as DataLoader
from typedtensor.data import default_collate as default_collate
