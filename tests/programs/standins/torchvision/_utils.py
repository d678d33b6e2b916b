# Ported from pytorch/vision@1f1a920:torchvision/_utils.py (v0.29.1; BSD-3-Clause, see tests/programs/LICENSES.md).
# Unchanged (it does not import torch); see tests/programs/README.md.
import enum
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T", bound=enum.Enum)


class StrEnumMeta(enum.EnumMeta):
    auto = enum.auto

    def from_str(self: type[T], member: str) -> T:  # type: ignore[misc]
        try:
            return self[member]
        except KeyError:
            raise ValueError(f"Unknown value '{member}' for {self.__name__}.") from None


class StrEnum(enum.Enum, metaclass=StrEnumMeta):
    pass


def sequence_to_str(seq: Sequence, separate_last: str = "") -> str:
    if not seq:
        return ""
    if len(seq) == 1:
        return f"'{seq[0]}'"

    head = "'" + "', '".join([str(item) for item in seq[:-1]]) + "'"
    tail = f"{'' if separate_last and len(seq) == 2 else ','} {separate_last}'{seq[-1]}'"

    return head + tail
