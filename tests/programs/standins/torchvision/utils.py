"""``save_image`` writes nothing here (the tests keep no pictures); it checks it got an image batch."""

from __future__ import annotations

from typing import Any


def save_image(tensor: Any, fp: Any, **kwargs: Any) -> None:
    if tensor.ndim not in (2, 3, 4):
        raise ValueError(f"save_image: expected a 2-D, 3-D or 4-D image tensor, got shape {tuple(tensor.shape)}")
