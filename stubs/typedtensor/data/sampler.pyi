from . import BatchSampler as BatchSampler
from . import RandomSampler as RandomSampler
from . import Sampler as Sampler
from . import SequentialSampler as SequentialSampler
from . import SubsetRandomSampler as SubsetRandomSampler
from . import WeightedRandomSampler as WeightedRandomSampler
