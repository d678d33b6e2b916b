# torch.nn.modules.distance's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import CosineSimilarity as CosineSimilarity
from typedtensor.nn import PairwiseDistance as PairwiseDistance
