"""``typedtensor.amp``: mixed precision, as ``torch.amp``.

``autocast`` runs a region's ops in bfloat16 / float16 where their op-table policy says so;
``GradScaler`` scales the loss so float16 gradients do not underflow and skips the steps whose
gradients overflowed. ``tt.cuda.amp`` and ``tt.cpu.amp`` hold torch's deprecated spellings.
See docs/amp.md.
"""

from __future__ import annotations

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler, OptState

__all__ = ["GradScaler", "OptState", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
