"""The FutureWarning torch gives for its device-bound spellings (``torch.cuda.amp.X(...)`` and
``torch.cpu.amp.X(...)`` for ``torch.amp.X("cuda" | "cpu", ...)``)."""

from __future__ import annotations

import warnings


def warn_deprecated(device: str, name: str, stacklevel: int = 3) -> None:
    """Warn as torch does when ``torch.<device>.amp.<name>`` is used."""
    warnings.warn(
        f"`torch.{device}.amp.{name}(args...)` is deprecated. "
        f"Please use `torch.amp.{name}('{device}', args...)` instead.",
        FutureWarning,
        stacklevel=stacklevel,
    )
