"""``map_location`` of ``load`` with torch's meanings, for every checkpoint format: a device or a
device name moves each tensor there; a dict maps the tensor's saved location (``"cpu"``,
``"cuda:0"``) to another (locations it does not name stay where they are), as torch programs write
``map_location={"cuda:0": f"cuda:{rank}"}``; a callable gets ``(tensor, location)`` and returns the
tensor to use (or None: the tensor as loaded)."""

from __future__ import annotations

from typing import Any

__all__ = ["relocate"]


def relocate(t: Any, map_location: Any) -> Any:
    """``t`` moved as ``map_location`` says (``t`` itself when it says nothing)."""
    if map_location is None:
        return t
    location = str(t.device)
    if isinstance(map_location, dict):
        target = map_location.get(location, location)
        return t if str(target) == location else t.to(target)
    if callable(map_location) and not isinstance(map_location, str):
        moved = map_location(t, location)
        return t if moved is None else moved
    return t.to(map_location)
