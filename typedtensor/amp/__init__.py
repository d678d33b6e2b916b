"""``typedtensor.amp``: mixed precision, as ``torch.amp``.

``GradScaler`` scales the loss so float16 gradients do not underflow and skips the steps whose
gradients overflowed. ``tt.cuda.amp`` and ``tt.cpu.amp`` hold torch's deprecated spellings.
"""

from __future__ import annotations

from .grad_scaler import GradScaler, OptState

__all__ = ["GradScaler", "OptState"]
