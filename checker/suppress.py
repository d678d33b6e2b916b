"""Suppression comments (NOTE [ Suppression by line ]): the parser is shared with the mypy plugin,
so both tools read ``# typedtensor: ignore[...]`` alike; it lives in ``typedtensor._suppress``."""

from __future__ import annotations

from typedtensor._suppress import Suppression, code_matches, is_suppressed, suppressions

__all__ = ["Suppression", "code_matches", "is_suppressed", "suppressions"]
