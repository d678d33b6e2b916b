"""``nn.functional``'s instance, local-response and RMS normalisation, over differentiable primitives."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

__all__ = ["instance_norm", "local_response_norm", "rms_norm"]

_EPS = {"float16": 0.0009765625, "bfloat16": 0.0078125, "float32": 1.1920928955078125e-07,
        "float64": 2.220446049250313e-16}


def instance_norm(input: Any, running_mean: Any | None = None, running_var: Any | None = None,
                  weight: Any | None = None, bias: Any | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Any:
    """Normalise each (example, channel) of ``[N, C, *s]`` over ``s``. With ``use_input_stats`` the
    running statistics (when given) move towards the batch average of the per-instance ones (the
    unbiased variance), which is what torch's batch_norm over ``[1, N * C, *s]`` leaves in them."""
    check("instance_norm", input=input, running_mean=running_mean, running_var=running_var, weight=weight, bias=bias,
          use_input_stats=use_input_stats)
    c = int(input.shape[1])
    dims = list(range(2, input.ndim))
    view = [1, c] + [1] * (input.ndim - 2)
    if use_input_stats:
        mean = input.mean(dims, keepdim=True)
        var = input.var(dims, keepdim=True, correction=0)
        if running_mean is not None or running_var is not None:
            from typedtensor._runtime import no_grad

            m = int(input.numel() // max(input.shape[0] * c, 1))
            with no_grad():
                if running_mean is not None:
                    batch_mean = mean.detach().reshape(input.shape[0], c).mean(0)
                    running_mean.mul_(1 - momentum).add_(batch_mean.to(running_mean.dtype) * momentum)
                if running_var is not None:
                    unbiased = var.detach().reshape(input.shape[0], c).mean(0) * (m / max(m - 1, 1))
                    running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: running_mean and running_var are needed when use_input_stats=False")
        mean, var = running_mean.reshape(view), running_var.reshape(view)
    out = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out


def local_response_norm(input: Any, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Any:
    """``x / (k + alpha * mean of x^2 over size channels around)^beta``: the mean is an average pool
    over the channel dim (zero-padded ``size // 2`` before and ``(size - 1) // 2`` after), torch's way."""
    check("local_response_norm", input=input, size=size, alpha=alpha, beta=beta, k=k)
    from typedtensor._runtime.functional import pad as fpad

    n, c = int(input.shape[0]), int(input.shape[1])
    sq = (input * input).reshape(n, 1, c, -1)  # the spatial dims flattened: [N, 1, C, S]
    sq = fpad(sq, (0, 0, size // 2, (size - 1) // 2))
    div = _C.avg_pool2d(sq, (size, 1), (1, 1)).reshape(input.shape)
    return input / (div * alpha + k).pow(beta)


def rms_norm(input: Any, normalized_shape: Any, weight: Any | None = None, eps: float | None = None) -> Any:
    """``x / sqrt(mean(x^2) + eps)`` over the trailing ``normalized_shape`` dims, times ``weight``; eps
    defaults to the dtype's machine epsilon, as torch's."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    check("rms_norm", input=input, normalized_shape=shape, weight=weight)
    if eps is None:
        eps = _EPS.get(str(input.dtype).rpartition(".")[2], _EPS["float32"])
    dims = list(range(input.ndim - len(shape), input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out
