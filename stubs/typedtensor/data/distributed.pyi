from . import DistributedSampler as DistributedSampler
