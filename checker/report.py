"""A report: one finding at one place. Plain data, so the cache and every output format share it.

A ``NamedTuple`` rather than a dataclass: ``dataclasses`` imports ``inspect`` (and ``dis``, ``ast``
...), which a warm run would load for nothing (NOTE [ The warm path ] in ``cache.py``).
"""

from __future__ import annotations

from typing import Any, Final, Literal, NamedTuple

Severity = Literal["error", "warning", "note"]

#: Codes the checker emits besides the DESIGN §2 shape codes.
SYNTAX: Final = "syntax"
INTERNAL: Final = "internal-error"
REVEAL: Final = "reveal"
SHOW: Final = "show-shape"


class Report(NamedTuple):
    """``line``/``end_line`` are 1-based; ``column`` is 1-based and ``end_column`` 1-based exclusive
    (SARIF's convention)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    severity: Severity
    message: str

    def to_json(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        return cls(
            str(data["path"]), int(data["line"]), int(data["column"]), int(data["end_line"]),
            int(data["end_column"]), str(data["code"]), data["severity"], str(data["message"]),
        )
