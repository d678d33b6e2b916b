"""typedtensor's mypy plugin: shape errors inside the user's own mypy run.

Enable with ``plugins = ["typedtensor.mypy_plugin"]`` (docs/mypy-plugin.md). Every shape rule
comes from the shape registry (``typedtensor.shapes``); this package only translates types.
"""

from __future__ import annotations

from .errors import CODE_BY_NAME as CODE_BY_NAME
from .errors import SHAPE as SHAPE
from .plugin import TypedTensorPlugin as TypedTensorPlugin
from .plugin import plugin as plugin

SUPPORTED_MYPY = (">=2.4", "<2.5")
"""The mypy versions this plugin is tested with (lowest and highest)."""

__all__ = ["CODE_BY_NAME", "SHAPE", "SUPPORTED_MYPY", "TypedTensorPlugin", "plugin"]
