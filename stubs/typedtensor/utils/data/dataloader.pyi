# `typedtensor.utils.data.dataloader` is `typedtensor.data.dataloader` (torch's import path).
from typedtensor.data.dataloader import DataLoader as DataLoader
from typedtensor.data.dataloader import default_collate as default_collate
