"""The eager tensor runtime on top of the compiled core ``typedtensor._C``."""

from __future__ import annotations

from typedtensor._runtime import _loader

_C = _loader.load_core()

__all__: list[str] = []
