from . import ChainDataset as ChainDataset
from . import ConcatDataset as ConcatDataset
from . import Dataset as Dataset
from . import IterableDataset as IterableDataset
from . import StackDataset as StackDataset
from . import Subset as Subset
from . import TensorDataset as TensorDataset
from . import random_split as random_split
