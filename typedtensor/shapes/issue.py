"""Shape problems as values: rules return an ``Issue`` and each consumer reports it its own way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

CODES: Final[dict[str, str]] = {
    "shape-matmul": "@/matmul: inner dims differ, or batch dims do not broadcast",
    "shape-broadcast": "elementwise op: two dims are neither equal nor Literal[1]",
    "shape-arg": "an argument's shape does not match the parameter's annotation",
    "shape-return": "a returned tensor's shape does not match the return annotation",
    "shape-assign": "assignment to an annotated name or attribute with another shape",
    "shape-reshape": "reshape/view provably changes the number of elements",
    "shape-axis": "an axis index out of range for the rank, or a named dim absent from the tensor",
    "shape-rank": "an op that needs a given rank gets another",
    "shape-concat": "cat/stack: the dims other than the joined one differ, or ranks differ",
}


@dataclass(frozen=True)
class Issue:
    """A provable shape error: a DESIGN §2 code and a message that starts with the op's name."""

    code: str
    message: str

    def __post_init__(self) -> None:
        assert self.code in CODES, f"unknown shape error code {self.code!r}"
