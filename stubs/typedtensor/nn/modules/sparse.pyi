# torch.nn.modules.sparse's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Embedding as Embedding
from typedtensor.nn import EmbeddingBag as EmbeddingBag
