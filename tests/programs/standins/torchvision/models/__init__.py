"""torchvision's ResNet models (``resnet.py`` is torchvision's file, ported like the programs).

The builders also take torchvision >= 0.13's ``weights=`` keyword (``weights=None``: random
initialisation, as ``pretrained=False``); there are no pretrained weights here to load."""

import functools
from collections.abc import Callable
from typing import Any

from . import resnet as _resnet
from .resnet import *  # noqa: F403


def _taking_weights(builder: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(builder)
    def build(*args: Any, weights: Any = None, **kwargs: Any) -> Any:
        if weights is not None:
            raise ValueError(f"{builder.__name__}: no pretrained weights in this stand-in (got weights={weights!r})")
        return builder(*args, **kwargs)

    return build


for _name in _resnet.__all__:
    if _name != "ResNet":
        globals()[_name] = _taking_weights(getattr(_resnet, _name))
