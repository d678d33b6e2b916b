"""``typedtensor.autograd``: ``grad``, ``backward``, ``gradcheck`` and the grad-mode switches.

The implementation lives in ``typedtensor._runtime.autograd`` (it needs the compiled core); this
module only makes ``import typedtensor.autograd`` work."""

from typedtensor._runtime.autograd import (
    GradcheckError,
    backward,
    enable_grad,
    grad,
    gradcheck,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
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
