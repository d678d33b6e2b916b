"""The transforms the ported programs use, on numpy arrays (H x W or H x W x C uint8 images)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class Compose:
    def __init__(self, transforms: Sequence[Callable[[Any], Any]]) -> None:
        self.transforms = list(transforms)

    def __call__(self, img: Any) -> Any:
        for t in self.transforms:
            img = t(img)
        return img


class ToTensor:
    """uint8 H x W (x C) -> float32 C x H x W in [0, 1], as torchvision's ToTensor does."""

    def __call__(self, pic: np.ndarray) -> np.ndarray:
        arr = np.asarray(pic)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return np.ascontiguousarray(arr.transpose(2, 0, 1), dtype=np.float32) / np.float32(255)


class Normalize:
    """``(x - mean) / std`` per channel of a C x H x W float array."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        self.mean = np.asarray(mean, dtype=np.float32).reshape(-1, 1, 1)
        self.std = np.asarray(std, dtype=np.float32).reshape(-1, 1, 1)

    def __call__(self, tensor: np.ndarray) -> np.ndarray:
        return ((tensor - self.mean) / self.std).astype(np.float32)


class Lambda:
    """A user function as a transform. torchvision hands it what the transforms before it made, a
    tensor after ``ToTensor``; here those make numpy arrays, so an array becomes a tensor of the
    library the program runs on (``typedtensor``, or ``torch`` in the torch twin) first."""

    def __init__(self, lambd: Callable[[Any], Any]) -> None:
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img: Any) -> Any:
        if isinstance(img, np.ndarray):
            import typedtensor as torch

            img = torch.from_numpy(np.ascontiguousarray(img))
        return self.lambd(img)
