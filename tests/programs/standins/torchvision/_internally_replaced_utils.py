"""What ``models/_api.py`` imports to fetch pretrained weights: a download, which the tests never do."""

from __future__ import annotations

from .models.utils import load_state_dict_from_url

__all__ = ["load_state_dict_from_url"]
