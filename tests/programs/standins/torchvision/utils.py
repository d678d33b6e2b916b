"""``save_image`` writes nothing here (the tests keep no pictures); it checks it got an image batch.
``_log_api_usage_once`` and ``_make_ntuple`` are the helpers the ported models and ops import."""

from __future__ import annotations

import collections.abc
from itertools import repeat
from typing import Any


def save_image(tensor: Any, fp: Any, **kwargs: Any) -> None:
    if tensor.ndim not in (2, 3, 4):
        raise ValueError(f"save_image: expected a 2-D, 3-D or 4-D image tensor, got shape {tuple(tensor.shape)}")


def _log_api_usage_once(obj: Any) -> None:
    """torchvision reports each model and op it builds to torch's usage logging; there is none here."""


def _make_ntuple(x: Any, n: int) -> tuple[Any, ...]:
    """torchvision's: an iterable as a tuple, anything else repeated ``n`` times."""
    if isinstance(x, collections.abc.Iterable):
        return tuple(x)
    return tuple(repeat(x, n))
