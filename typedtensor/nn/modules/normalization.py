"""``torch.nn.modules.normalization``'s classes that typedtensor has (see ``_paths``)."""

from __future__ import annotations

from typedtensor.nn.modules._paths import export

__all__ = export(__name__)
