"""The transforms the ported programs use, on numpy arrays (H x W or H x W x C uint8 images) and, for
the geometric ones, on ``PIL`` images (what ``ImageFolder`` and the programs' own loaders give)."""

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
    """uint8 H x W (x C) -> float32 C x H x W in [0, 1], as torchvision's ToTensor does. A ``PIL``
    image becomes a tensor of the library the program runs on, as in torchvision (super_resolve.py
    calls ``.view`` on it); a numpy array stays an array, which the DataLoader's ``default_collate``
    turns into that library's tensors (the synthetic datasets' samples, in DataLoader workers too)."""

    def __call__(self, pic: Any) -> Any:
        arr = np.asarray(pic)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        out = np.ascontiguousarray(arr.transpose(2, 0, 1), dtype=np.float32) / np.float32(255)
        if isinstance(pic, np.ndarray):
            return out
        import typedtensor as torch

        return torch.from_numpy(out)


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


def _as_image(img: Any) -> Any:
    """A PIL image as it is; a uint8 array as a PIL image (torchvision's geometric transforms take either)."""
    if isinstance(img, np.ndarray):
        from PIL import Image

        return Image.fromarray(img)
    return img


def _pair(size: int | Sequence[int]) -> tuple[int, int]:
    """(height, width) from torchvision's ``int`` or ``(h, w)`` sizes."""
    if isinstance(size, int):
        return size, size
    if len(size) == 1:
        return int(size[0]), int(size[0])
    return int(size[0]), int(size[1])


class CenterCrop:
    """The central ``size`` window, as torchvision rounds it (zero-padded where the image is smaller)."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = _pair(size)

    def __call__(self, img: Any) -> Any:
        img = _as_image(img)
        crop_h, crop_w = self.size
        width, height = img.size
        top = round((height - crop_h) / 2.0)
        left = round((width - crop_w) / 2.0)
        return img.crop((left, top, left + crop_w, top + crop_h))


class Resize:
    """torchvision's Resize: an ``int`` scales the shorter side to it (keeping the aspect ratio,
    the longer side truncated as torchvision does), ``(h, w)`` is the exact size; bilinear."""

    def __init__(self, size: int | Sequence[int], interpolation: Any = None, max_size: int | None = None,
                 antialias: bool | None = True) -> None:
        self.size = size
        self.interpolation = interpolation

    def __call__(self, img: Any) -> Any:
        from PIL import Image

        img = _as_image(img)
        width, height = img.size
        if isinstance(self.size, int) or len(self.size) == 1:
            short = self.size if isinstance(self.size, int) else int(self.size[0])
            if width <= height:
                new_w, new_h = short, int(short * height / width)
            else:
                new_w, new_h = int(short * width / height), short
        else:
            new_h, new_w = _pair(self.size)
        if (new_w, new_h) == (width, height):
            return img
        return img.resize((new_w, new_h), Image.BILINEAR)
