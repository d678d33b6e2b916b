"""Pretrained weights are a download, which the tests never do."""

from __future__ import annotations

from typing import Any


def load_state_dict_from_url(url: str, **kwargs: Any) -> Any:
    raise RuntimeError(f"the torchvision stand-in downloads nothing (asked for {url})")
