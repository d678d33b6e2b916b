"""The preset transforms torchvision's weights enums name (``transforms=partial(ImageClassification,
crop_size=224)``), and ``InterpolationMode``, which the ported model files import from here.

There are no pretrained weights in this stand-in, so no preset ever runs: a preset keeps the settings
it was given, as torchvision's does, and refuses to be applied."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any


class InterpolationMode(enum.Enum):
    """torchvision.transforms.InterpolationMode, with its values."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


class ImageClassification:
    """The settings of torchvision's ``ImageClassification`` preset (resize, centre crop, rescale,
    normalise), with its defaults."""

    def __init__(
        self,
        *,
        crop_size: int,
        resize_size: int = 256,
        mean: Sequence[float] = (0.485, 0.456, 0.406),
        std: Sequence[float] = (0.229, 0.224, 0.225),
        interpolation: InterpolationMode = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def __call__(self, img: Any) -> Any:
        raise NotImplementedError("the torchvision stand-in has no pretrained weights, so it applies no preset transforms")
