"""``nn.functional``: the kernels bound from C++ plus composites (losses, batch_norm, ...).

Composites are written with differentiable primitives only, so they get gradients for free once
the autograd engine records nodes."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import shape_error

_C = _loader.load_core()
Tensor = _C.Tensor

linear = _C.linear
conv2d = _C.conv2d
max_pool2d = _C.max_pool2d
avg_pool2d = _C.avg_pool2d
adaptive_avg_pool2d = _C.adaptive_avg_pool2d
layer_norm = _C.layer_norm
softmax = _C.softmax
log_softmax = _C.log_softmax
gelu = _C.gelu
sigmoid = _C.sigmoid
tanh = _C.tanh
silu = _C.silu
softplus = _C.softplus
mish = _C.mish
logsigmoid = _C.logsigmoid
relu6 = _C.relu6
hardsigmoid = _C.hardsigmoid
hardswish = _C.hardswish
elu = _C.elu
leaky_relu = _C.leaky_relu

_REDUCTIONS = ("none", "mean", "sum")


def relu(input: Any, inplace: bool = False) -> Any:
    return input.relu_() if inplace else _C.relu(input)


def embedding(input: Any, weight: Any, padding_idx: int | None = None, *args: Any, **kwargs: Any) -> Any:
    return _C.embedding(input, weight, padding_idx)


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    out = _C.dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    out = _C.dropout2d(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def batch_norm(
    input: Any,
    running_mean: Any | None,
    running_var: Any | None,
    weight: Any | None = None,
    bias: Any | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    if input.ndim < 2:
        raise shape_error("batch_norm", [tuple(input.shape)], {}, f"expected at least 2-D input, got {list(input.shape)}")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise shape_error(
                "batch_norm", [tuple(input.shape), tuple(t.shape)], {},
                f"{name} should have shape ({c},), got {tuple(t.shape)}",
            )
    view = [1, c] + [1] * (input.ndim - 2)
    dims = [0] + list(range(2, input.ndim))
    if training:
        n = input.numel() // c if c else 0
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input.shape)}")
        mean = input.mean(dims)
        var = input.var(dims, correction=0)
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: running_mean and running_var are required when training=False")
        mean, var = running_mean, running_var
    out = (input - mean.reshape(view)) * (var.reshape(view) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out


def _class_dim_checks(op: str, input: Any, target: Any, weight: Any | None, params: dict[str, object]) -> None:
    if input.ndim == 0:
        raise shape_error(op, [tuple(input.shape), tuple(target.shape)], params, "input must have at least 1 dimension")
    c = input.shape[1] if input.ndim > 1 else input.shape[0]
    if weight is not None and tuple(weight.shape) != (c,):
        raise shape_error(
            op, [tuple(input.shape), tuple(target.shape), tuple(weight.shape)], params,
            f"weight should have {c} elements (one per class), got shape {tuple(weight.shape)}",
        )


def nll_loss(
    input: Any,
    target: Any,
    weight: Any | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Any:
    _check_reduction(reduction)
    params: dict[str, object] = {"reduction": reduction, "ignore_index": ignore_index}
    _class_dim_checks("nll_loss", input, target, weight, params)
    if target.is_floating_point():
        raise TypeError(f"nll_loss: expected an integer class-index target, got {target.dtype}")
    want = (tuple(input.shape[:1]) + tuple(input.shape[2:])) if input.ndim > 1 else ()
    if tuple(target.shape) != want:
        raise shape_error(
            "nll_loss", [tuple(input.shape), tuple(target.shape)], params,
            f"expected target of shape {list(want)} for input of shape {list(input.shape)}, got {list(target.shape)}",
        )
    cdim = 1 if input.ndim > 1 else 0
    c = input.shape[cdim]
    tgt = target.long()
    valid = tgt != ignore_index
    safe = _C.where(valid, tgt, 0)
    if bool(((safe < 0) | (safe >= c)).any()):
        bad = safe[(safe < 0) | (safe >= c)][0].item()
        raise IndexError(f"Target {bad} is out of bounds (number of classes: {c})")
    picked = -input.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim)
    w = valid.to(input.dtype)
    if weight is not None:
        w = w * weight.to(input.dtype)[safe]
    loss = picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


def cross_entropy(
    input: Any,
    target: Any,
    weight: Any | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    _check_reduction(reduction)
    params: dict[str, object] = {"reduction": reduction, "label_smoothing": label_smoothing}
    _class_dim_checks("cross_entropy", input, target, weight, params)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    cdim = 1 if input.ndim > 1 else 0
    c = input.shape[cdim]
    logp = log_softmax(input, cdim)
    wview = [1] * input.ndim
    wview[cdim] = c
    if target.is_floating_point():  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise shape_error(
                "cross_entropy", [tuple(input.shape), tuple(target.shape)], params,
                f"probability targets must have the input's shape {list(input.shape)}, got {list(target.shape)}",
            )
        tgt = target
        if label_smoothing > 0:
            tgt = tgt * (1 - label_smoothing) + label_smoothing / c
        terms = logp * tgt
        if weight is not None:
            terms = terms * weight.reshape(wview)
        loss = -terms.sum(cdim)
        if reduction == "mean":
            return loss.sum() / (input.numel() // c if input.ndim > 1 else 1)
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return nll
    valid = (target != ignore_index).to(input.dtype)
    terms = logp if weight is None else logp * weight.reshape(wview)
    smooth = -terms.sum(cdim) * valid
    if reduction == "none":
        smooth_r = smooth
    elif reduction == "sum":
        smooth_r = smooth.sum()
    else:
        if weight is None:
            denom = valid.sum()
        else:
            denom = (valid * weight.to(input.dtype)[_C.where(target != ignore_index, target.long(), 0)]).sum()
        smooth_r = smooth.sum() / denom
    return nll * (1 - label_smoothing) + smooth_r * (label_smoothing / c)


def _same_shape(op: str, input: Any, target: Any) -> None:
    if tuple(input.shape) != tuple(target.shape):
        raise shape_error(
            op, [tuple(input.shape), tuple(target.shape)], {},
            f"input and target must have the same shape, got {list(input.shape)} and {list(target.shape)}",
        )


def mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Any:
    _check_reduction(reduction)
    _same_shape("mse_loss", input, target)
    return _reduce((input - target).square(), reduction)


def l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Any:
    _check_reduction(reduction)
    _same_shape("l1_loss", input, target)
    return _reduce((input - target).abs(), reduction)


def binary_cross_entropy(
    input: Any, target: Any, weight: Any | None = None, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean",
) -> Any:
    _check_reduction(reduction)
    _same_shape("binary_cross_entropy", input, target)
    if bool(((input < 0) | (input > 1)).any()):
        raise ValueError("binary_cross_entropy: all elements of input should be between 0 and 1")
    log_x = input.log().clamp(min=-100)
    log_1mx = (1 - input).log().clamp(min=-100)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(
    input: Any, target: Any, weight: Any | None = None, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean", pos_weight: Any | None = None,
) -> Any:
    _check_reduction(reduction)
    _same_shape("binary_cross_entropy_with_logits", input, target)
    softplus_neg = (-input.abs()).exp().log1p() + (-input).clamp(min=0)  # log(1 + exp(-x)), stable
    if pos_weight is not None:
        coef = 1 + (pos_weight - 1) * target
        loss = (1 - target) * input + coef * softplus_neg
    else:
        loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def one_hot(tensor: Any, num_classes: int = -1) -> Any:
    if tensor.is_floating_point():
        raise TypeError("one_hot is only applicable to index tensors")
    n = int(tensor.max().item()) + 1 if num_classes < 0 else num_classes
    out = _C.zeros(*tensor.shape, n, dtype=_C.int64, device=tensor.device)
    return out.scatter(-1, tensor.long().unsqueeze(-1), 1)


def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Any:
    return input / input.norm(p, dim, keepdim=True).clamp(min=eps)


def pad(input: Any, pad: tuple[int, ...], mode: str = "constant", value: float = 0.0) -> Any:
    if mode != "constant":
        raise NotImplementedError(f"pad: mode '{mode}' is not supported yet (only 'constant')")
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError("pad: padding length must be even and at most twice the number of dims")
    shape = list(input.shape)
    slices: list[slice] = [slice(None)] * input.ndim
    src = input
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0:
            src = src.narrow(d, -lo, src.shape[d] + lo)
            lo = 0
        if hi < 0:
            src = src.narrow(d, 0, src.shape[d] + hi)
            hi = 0
        shape[d] = src.shape[d] + lo + hi
        slices[d] = slice(lo, lo + src.shape[d])
    out = _C.full(shape, value, dtype=input.dtype, device=input.device)
    out[tuple(slices)] = src
    return out


__all__ = [
    "linear", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "batch_norm", "layer_norm",
    "softmax", "log_softmax", "relu", "gelu", "sigmoid", "tanh", "silu", "softplus", "mish",
    "logsigmoid", "relu6", "hardsigmoid", "hardswish", "elu", "leaky_relu", "embedding", "dropout",
    "dropout2d", "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "one_hot", "normalize", "pad",
]
