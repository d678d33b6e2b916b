"""``typedtensor.autograd``: ``grad``, ``backward``, ``gradcheck`` and the grad-mode switches.

The implementation lives in ``typedtensor._runtime.autograd`` (it needs the compiled core); this
module only makes ``import typedtensor.autograd`` work."""

from typedtensor._runtime.autograd import (
    GradcheckError as GradcheckError,
    backward as backward,
    enable_grad as enable_grad,
    grad as grad,
    gradcheck as gradcheck,
    is_grad_enabled as is_grad_enabled,
    no_grad as no_grad,
    set_grad_enabled as set_grad_enabled,
)

__all__ = [
    "GradcheckError",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
