"""torchvision's classification models: ``resnet.py``, ``vgg.py``, ``mobilenetv2.py``, ``mobilenetv3.py``,
``shufflenetv2.py``, ``squeezenet.py``, ``vision_transformer.py``, ``convnext.py``, ``efficientnet.py``
and ``densenet.py`` are torchvision's files, ported like the programs, and so are ``_api.py`` (the
weights enums and the model registry), ``_utils.py`` and ``_meta.py`` that the newer ones import.

ResNet and VGG are an older torchvision's files; their builders also take torchvision >= 0.13's
``weights=`` keyword. There are no pretrained weights here to load (the harness gives both runs
torch's initial weights anyway), so ``weights=None`` and the VGG weights enums below
(``VGG16_Weights.IMAGENET1K_V1``, as fast_neural_style's ``vgg.py`` names them) all mean random
initialisation; anything else is refused. The newer models' builders take their own weights enums,
as in torchvision: ``weights=None`` is random initialisation, and a weights member asks for a
download, which ``utils.load_state_dict_from_url`` refuses."""

import enum
import functools
from collections.abc import Callable
from typing import Any

from . import resnet as _resnet
from . import vgg as _vgg
from ._api import Weights as Weights
from ._api import WeightsEnum as WeightsEnum
from ._api import get_model as get_model
from ._api import get_model_builder as get_model_builder
from ._api import get_model_weights as get_model_weights
from ._api import get_weight as get_weight
from ._api import list_models as list_models
from .convnext import *  # noqa: F403
from .densenet import *  # noqa: F403
from .efficientnet import *  # noqa: F403
from .mobilenetv2 import *  # noqa: F403
from .mobilenetv3 import *  # noqa: F403
from .resnet import *  # noqa: F403
from .shufflenetv2 import *  # noqa: F403
from .squeezenet import *  # noqa: F403
from .vgg import *  # noqa: F403
from .vision_transformer import *  # noqa: F403

# the members of a weights enum (DEFAULT an alias, as in torchvision); each stands for random initialisation
_MEMBERS = {"IMAGENET1K_V1": "IMAGENET1K_V1", "DEFAULT": "IMAGENET1K_V1"}
VGG11_Weights = enum.Enum("VGG11_Weights", _MEMBERS, type=str)
VGG11_BN_Weights = enum.Enum("VGG11_BN_Weights", _MEMBERS, type=str)
VGG13_Weights = enum.Enum("VGG13_Weights", _MEMBERS, type=str)
VGG13_BN_Weights = enum.Enum("VGG13_BN_Weights", _MEMBERS, type=str)
VGG16_Weights = enum.Enum("VGG16_Weights", _MEMBERS, type=str)
VGG16_BN_Weights = enum.Enum("VGG16_BN_Weights", _MEMBERS, type=str)
VGG19_Weights = enum.Enum("VGG19_Weights", _MEMBERS, type=str)
VGG19_BN_Weights = enum.Enum("VGG19_BN_Weights", _MEMBERS, type=str)
_WEIGHTS_ENUMS = (
    VGG11_Weights, VGG11_BN_Weights, VGG13_Weights, VGG13_BN_Weights, VGG16_Weights, VGG16_BN_Weights,
    VGG19_Weights, VGG19_BN_Weights,
)


def _taking_weights(builder: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(builder)
    def build(*args: Any, weights: Any = None, **kwargs: Any) -> Any:
        if weights is not None and not isinstance(weights, _WEIGHTS_ENUMS):
            raise ValueError(f"{builder.__name__}: no pretrained weights in this stand-in (got weights={weights!r})")
        return builder(*args, **kwargs)

    return build


for _module, _class in ((_resnet, "ResNet"), (_vgg, "VGG")):
    for _name in _module.__all__:
        if _name != _class:
            globals()[_name] = _taking_weights(getattr(_module, _name))
