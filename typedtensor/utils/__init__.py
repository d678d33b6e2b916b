"""``typedtensor.utils``: torch's import path for ``data`` (``typedtensor.utils.data``)."""

from __future__ import annotations

from typedtensor import data as data

__all__ = ["data"]
