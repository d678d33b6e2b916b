# torch.nn.modules.transformer's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Transformer as Transformer
from typedtensor.nn import TransformerDecoder as TransformerDecoder
from typedtensor.nn import TransformerDecoderLayer as TransformerDecoderLayer
from typedtensor.nn import TransformerEncoder as TransformerEncoder
from typedtensor.nn import TransformerEncoderLayer as TransformerEncoderLayer
