# torch.nn.modules.linear's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typing import Any

from typedtensor.nn import Identity as Identity
from typedtensor.nn import Linear as Linear

class NonDynamicallyQuantizableLinear(Linear[Any, Any]): ...
