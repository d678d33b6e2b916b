"""``nn.functional``: the kernels bound from C++ plus composites (losses, batch_norm, ...).

Composites are written with differentiable primitives only, so they get gradients for free once
the autograd engine records nodes. Each checks its arguments' shapes with the op's registry rule
first (``errors.check``), so a bad call raises the registry's ``ShapeError`` text, not the one of
a primitive it happens to use inside; what a rule cannot see (dtypes, values) is checked here."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from typedtensor._runtime import _exports, _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()
Tensor = _C.Tensor

for _name in _exports.FUNCTIONAL_FROM_C:  # the F ops bound in C++ as they are (the op table)
    globals()[_name] = getattr(_C, _name)
del _name


def __getattr__(name: str) -> Any:  # the names bound above, as mypy sees them
    raise AttributeError(f"module 'typedtensor.nn.functional' has no attribute {name!r}")


_REDUCTIONS = ("none", "mean", "sum")


def _inplace(input: Any, fn: Callable[[Any], Any], inplace: bool) -> Any:
    """``fn(input)``, or with ``inplace`` that result written into ``input``.

    When autograd records the op, ``fn`` runs on a copy of ``input``: its backward keeps what it
    saved (the input) intact while ``input`` is overwritten, where running on ``input`` itself made
    every in-place activation's backward fail ("modified by an inplace operation"). torch keeps the
    original input for such in-place ops the same way."""
    if not inplace:
        return fn(input)
    src = input.clone() if input.requires_grad and _C.is_grad_enabled() else input
    out = fn(src)
    return input if out is src else input.copy_(out)  # an identity (p=0, eval) leaves input as it is


def relu(input: Any, inplace: bool = False) -> Any:
    return input.relu_() if inplace else _C.relu(input)


def silu(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.silu, inplace)


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    return _inplace(input, lambda x: _C.elu(x, alpha), inplace)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:
    return _inplace(input, lambda x: _C.leaky_relu(x, negative_slope), inplace)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Any:
    if min_val > max_val:
        raise ValueError("hardtanh: min_val cannot be greater than max_val")
    return _inplace(input, lambda x: x.clamp(min_val, max_val), inplace)


def mish(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.mish, inplace)


def relu6(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.relu6, inplace)


def hardsigmoid(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.hardsigmoid, inplace)


def hardswish(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.hardswish, inplace)


def softsign(input: Any) -> Any:
    """``input / (1 + |input|)``."""
    return input / (input.abs() + 1)


def bilinear(input1: Any, input2: Any, weight: Any, bias: Any = None) -> Any:
    """``input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``: the batch dims flattened, ``input1``
    times ``weight`` as one matmul, then the contraction with ``input2``; gradients from those ops."""
    check("bilinear", input1=input1, input2=input2, weight=weight, bias=bias)
    out, in1, in2 = (int(v) for v in weight.shape)
    batch = tuple(int(v) for v in input1.shape[:-1])
    rows = 1
    for v in batch:
        rows *= v
    x1, x2 = input1.reshape(rows, in1), input2.reshape(rows, in2)
    t = _C.matmul(x1, weight.permute(1, 0, 2).reshape(in1, out * in2)).reshape(rows, out, in2)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(*batch, out)


def embedding(
    input: Any, weight: Any, padding_idx: int | None = None, max_norm: float | None = None,
    norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False,
) -> Any:
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse gradients are not supported")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _C.embedding(input, weight, padding_idx)


def _embedding_renorm_(weight: Any, input: Any, max_norm: float, norm_type: float) -> None:
    """Rescale, in place and outside autograd, the rows ``input`` reads whose norm exceeds ``max_norm``."""
    from typedtensor._runtime import no_grad

    with no_grad():
        idx = input.reshape(-1).long()
        if idx.numel() == 0:
            return
        rows = weight.index_select(0, idx)
        norms = rows.norm(norm_type, 1, keepdim=True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[idx] = rows * scale


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    return _inplace(input, lambda x: _C.dropout(x, p, training), inplace)


def _feature_dropout(input: Any, p: float, training: bool) -> Any:
    """One keep-or-drop draw per (sample, channel) of ``[N, C, *]``, as torch's feature dropout."""
    if not training or p == 0.0:
        return input
    shape = (input.shape[0], input.shape[1]) + (1,) * (input.ndim - 2)
    mask = _C.dropout(_C.ones(*shape, dtype=input.dtype, device=input.device), p, True)  # 0 or 1/(1-p)
    return input * mask


def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero whole channels of ``[N, C, H, W]``. Other ranks are deprecated in torch, which warns and
    still drops per (sample, channel): a 3-D input is read as ``[N, C, L]`` (not as an unbatched
    ``[C, H, W]``), a 2-D one element by element; typedtensor does the same, with torch's warnings."""
    if input.ndim not in (3, 4) and input.ndim >= 2:
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout "
            "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
            "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    if input.ndim == 4 or input.ndim < 2:  # the kernel's own path (and its error for fewer than 2 dims)
        return _inplace(input, lambda x: _C.dropout2d(x, p, training), inplace)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _inplace(input, lambda x: _feature_dropout(x, p, training), inplace)


def _channel_dropout(name: str, input: Any, p: float, training: bool, inplace: bool, batched_rank: int) -> Any:
    """torch's dropout1d / dropout3d: one draw per (sample, channel); an unbatched input (one dim
    fewer) is one sample."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    batched = input.ndim == batched_rank

    def drop(t: Any) -> Any:
        out = _feature_dropout(t if batched else t.unsqueeze(0), p, training)
        return out if batched else out.squeeze(0)

    return _inplace(input, drop, inplace)


def dropout1d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero whole channels of ``[N, C, L]`` (or ``[C, L]``)."""
    check("dropout1d", input=input, p=p, training=training, inplace=inplace)
    return _channel_dropout("dropout1d", input, p, training, inplace, 3)


def dropout3d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero whole channels of ``[N, C, D, H, W]`` (or ``[C, D, H, W]``); other ranks warn as torch's
    and are read as unbatched."""
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout "
            "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
            "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    check("dropout3d", input=input, p=p, training=training, inplace=inplace)
    return _channel_dropout("dropout3d", input, p, training, inplace, 5)


_SELU_ALPHA_SCALE = 1.7580993408473766  # selu's alpha * scale: the value alpha dropout drops to


def alpha_dropout(input: Any, p: float = 0.5, training: bool = False, inplace: bool = False) -> Any:
    """Dropout that keeps a SELU network's mean and variance (torch's formula)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _inplace(input, lambda x: x * 0.0, inplace)
    return _alpha_drop(input, p, tuple(input.shape), inplace)


def feature_alpha_dropout(input: Any, p: float = 0.5, training: bool = False, inplace: bool = False) -> Any:
    """``alpha_dropout`` with one keep-or-drop draw per (sample, channel) of ``[N, C, *]``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return _inplace(input, lambda x: x * 0.0, inplace)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _alpha_drop(input, p, (input.shape[0], input.shape[1]) + (1,) * (input.ndim - 2), inplace)


def _alpha_drop(input: Any, p: float, noise_shape: tuple[int, ...], inplace: bool) -> Any:
    """torch's alpha-dropout affine map: kept values scaled by ``a``, dropped ones set to SELU's
    negative saturation, then shifted so that mean and variance stay those of the input."""
    keep = (_C.rand(*noise_shape, device=input.device) >= p).to(input.dtype)
    a = 1.0 / ((_SELU_ALPHA_SCALE**2 * p + 1) * (1 - p)) ** 0.5
    b = (keep - 1) * (_SELU_ALPHA_SCALE * a) + _SELU_ALPHA_SCALE * a * p
    return _inplace(input, lambda x: x * (keep * a) + b, inplace)


def group_norm(input: Any, num_groups: int, weight: Any | None = None, bias: Any | None = None, eps: float = 1e-5) -> Any:
    """Normalise each group of ``C // num_groups`` channels over its channels and spatial dims."""
    check("group_norm", input=input, num_groups=num_groups, weight=weight, bias=bias)
    n, c = input.shape[0], input.shape[1]
    grouped = input.reshape(n, num_groups, -1)
    # statistics in float64 for narrower floats, as torch's CPU kernel accumulates: the variance of
    # values near 1e30 is 1e60, past float32's range
    wide = grouped.double() if grouped.dtype in (_C.float32, _C.float16, _C.bfloat16) else grouped
    mean = wide.mean(-1, keepdim=True)
    rstd = (wide.var(-1, keepdim=True, correction=0) + eps).rsqrt()
    out = ((grouped - mean.to(grouped.dtype)) * rstd.to(grouped.dtype)).reshape(input.shape)
    view = [1, c] + [1] * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out


def scaled_dot_product_attention(
    query: Any, key: Any, value: Any, attn_mask: Any | None = None, dropout_p: float = 0.0,
    is_causal: bool = False, scale: float | None = None,
) -> Any:
    """``softmax(q @ k.mT * scale + mask) @ v``; a bool mask marks the positions that MAY attend."""
    check("scaled_dot_product_attention", query=query, key=key, value=value, attn_mask=attn_mask)
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: pass either attn_mask or is_causal=True, not both")
    e = query.shape[-1]
    s = (1.0 / e**0.5 if e else 1.0) if scale is None else scale
    wide = _fused_attention_dtype(query, key, value, attn_mask, dropout_p)
    if wide is not None and wide != query.dtype:  # float16 / bfloat16: the kernel runs in float32
        mask = attn_mask.to(wide) if attn_mask is not None and attn_mask.dtype != _C.bool else attn_mask
        out = _C._fused_attention(query.to(wide), key.to(wide), value.to(wide), mask, is_causal, float(s))
        return out.to(query.dtype)
    if wide is not None:
        return _C._fused_attention(query, key, value, attn_mask, is_causal, float(s))
    scores = query @ key.transpose(-2, -1)
    scores = scores * s
    if is_causal:
        lq, lk = query.shape[-2], key.shape[-2]
        allowed = _C.ones(lq, lk, dtype=_C.bool, device=query.device).tril()
        scores = scores.masked_fill(allowed.logical_not(), float("-inf"))
    elif attn_mask is not None:
        if attn_mask.dtype == _C.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    attn = _C.softmax(scores, -1)
    if dropout_p > 0.0:
        attn = _C.dropout(attn, dropout_p, True)
    return attn @ value


def _fused_attention_dtype(query: Any, key: Any, value: Any, attn_mask: Any | None, dropout_p: float) -> Any | None:
    """The dtype the fused CPU kernel (NOTE [ Fused attention ] in backend/src/cpu/attention.cpp)
    computes this attention in, or None where it does not run: dropout, a float mask that needs a
    gradient, CUDA tensors and empty sequences take the composite path. float16 and bfloat16 run in
    float32 and are rounded back once, as the storage types they are here (docs/backend.md); torch's
    CPU flash attention also keeps its scores and softmax in float32 for them. The composite path
    would round the scores and the probabilities to the half type in between, and multiply slower."""
    if dropout_p > 0.0 or query.is_cuda or key.is_cuda or value.is_cuda:
        return None
    if not query.dtype == key.dtype == value.dtype:
        return None
    if query.dtype in (_C.float32, _C.float64):
        wide = query.dtype
    elif query.dtype in (_C.float16, _C.bfloat16):
        wide = _C.float32
    else:
        return None
    if 0 in (query.shape[-2], key.shape[-2], query.shape[-1], value.shape[-1]):
        return None
    if attn_mask is not None:
        if attn_mask.is_cuda:
            return None
        if attn_mask.dtype != _C.bool and (not attn_mask.is_floating_point() or attn_mask.requires_grad):
            return None
    return wide


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """torch's deprecated ``size_average``/``reduce`` flags, when given, decide the reduction."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is not None and not reduce:
        return "none"
    return "sum" if size_average is not None and not size_average else "mean"


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
    check("batch_norm", input=input, running_mean=running_mean, running_var=running_var, weight=weight, bias=bias)
    c = input.shape[1]
    view = [1, c] + [1] * (input.ndim - 2)
    dims = [0, *range(2, input.ndim)]
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


def nll_loss(
    input: Any,
    target: Any,
    weight: Any | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Any:
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check("nll_loss", input=input, target=target, weight=weight, reduction=reduction)
    if target.is_floating_point():
        raise TypeError(f"nll_loss: expected an integer class-index target, got {target.dtype}")
    if input.ndim == 1 and target.ndim == 1:  # torch takes a [1] target for an unbatched [C] input
        target = target.reshape([])
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


def _fused_cross_entropy_applies(input: Any, target: Any, weight: Any | None, reduction: str, label_smoothing: float) -> bool:
    """The common case (a batch of logits, int64 class indices, no class weights or smoothing, a
    reduced loss on the CPU) runs as one fused op with its own backward instead of ~10 ops."""
    return (
        weight is None and label_smoothing == 0 and reduction != "none" and input.ndim == 2 and target.ndim == 1
        and target.dtype == _C.int64 and input.dtype in (_C.float32, _C.float64)
        and not input.is_cuda and not target.is_cuda and input.shape[0] == target.shape[0] and input.shape[1] > 0
    )


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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check("cross_entropy", input=input, target=target, weight=weight, reduction=reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    if _fused_cross_entropy_applies(input, target, weight, reduction, label_smoothing):
        return _C._cross_entropy_indices(input, target, ignore_index, reduction == "mean")
    cdim = 1 if input.ndim > 1 else 0
    c = input.shape[cdim]
    logp = _C.log_softmax(input, cdim)
    wview = [1] * input.ndim
    wview[cdim] = c
    if target.is_floating_point():  # class probabilities
        if tuple(target.shape) != tuple(input.shape):  # the rule took it for class indices: a dtype error
            raise TypeError(f"cross_entropy: class-index targets must be integers, got {target.dtype} "
                            f"(a floating target holds probabilities, of the input's shape {list(input.shape)})")
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


def mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Any:
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check("mse_loss", input=input, target=target)
    return _reduce(_difference(input, target).square(), reduction)


def _difference(input: Any, target: Any) -> Any:
    """``input - target`` for the pointwise losses, which torch computes in one kernel over the
    promoted type: a bool operand is a number there (``-`` alone refuses bool tensors)."""
    if input.dtype == _C.bool or target.dtype == _C.bool:
        common = _C.promote_types(input.dtype, target.dtype)
        return input.to(common) - target.to(common)
    return input - target


def smooth_l1_loss(
    input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean", beta: float = 1.0,
) -> Any:
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check("smooth_l1_loss", input=input, target=target)
    if beta < 0:
        raise ValueError("smooth_l1_loss does not support negative values for beta.")
    d = _difference(input, target).abs()
    if beta == 0.0:
        return _reduce(d, reduction)
    return _reduce(_C.where(d < beta, d.square() * (0.5 / beta), d - 0.5 * beta), reduction)


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0) -> Any:
    _check_reduction(reduction)
    check("huber_loss", input=input, target=target)
    if delta <= 0:
        raise ValueError("huber_loss does not support non-positive values for delta.")
    d = _difference(input, target).abs()
    return _reduce(_C.where(d <= delta, d.square() * 0.5, (d - 0.5 * delta) * delta), reduction)


def l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Any:
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check("l1_loss", input=input, target=target)
    return _reduce((input - target).abs(), reduction)


def binary_cross_entropy(
    input: Any, target: Any, weight: Any | None = None, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean",
) -> Any:
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check("binary_cross_entropy", input=input, target=target, weight=weight)
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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check("binary_cross_entropy_with_logits", input=input, target=target, weight=weight, pos_weight=pos_weight)
    log1p_exp_neg = (-input.abs()).exp().log1p() + (-input).clamp(min=0)  # log(1 + exp(-x)), stable
    if pos_weight is not None:
        coef = 1 + (pos_weight - 1) * target
        loss = (1 - target) * input + coef * log1p_exp_neg
    else:
        loss = (1 - target) * input + log1p_exp_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def one_hot(input: Any, num_classes: int = -1) -> Any:
    tensor = input  # torch's keyword is `input` (its docs say `tensor`)
    if tensor.is_floating_point():
        raise TypeError("one_hot is only applicable to index tensors")
    if tensor.numel() == 0:
        if num_classes < 0:
            raise ValueError("one_hot: can not infer the number of classes from an empty tensor")
    else:  # as torch: a class outside [0, num_classes) is an error, never a wrapped index
        if int(tensor.min().item()) < 0:
            raise ValueError("one_hot: class values must be non-negative")
        if num_classes >= 0 and int(tensor.max().item()) >= num_classes:
            raise ValueError("one_hot: class values must be smaller than num_classes")
    n = int(tensor.max().item()) + 1 if num_classes < 0 else num_classes
    out = _C.zeros(*tensor.shape, n, dtype=_C.int64, device=tensor.device)
    return out.scatter(-1, tensor.long().unsqueeze(-1), 1)


def gumbel_softmax(logits: Any, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Any:
    """torch's ``F.gumbel_softmax``, the same draws: Gumbel noise from ``exponential_`` (torch's
    stream), softmax at temperature ``tau``; ``hard`` returns one-hot samples whose gradient is the
    soft sample's (the straight-through estimator). ``eps`` is unused, as in torch."""
    check("gumbel_softmax", logits=logits, tau=tau, hard=hard, dim=dim)
    gumbels = -_C.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _C.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Any:
    return input / input.norm(p, dim, keepdim=True).clamp(min=eps)


def pad(input: Any, pad: tuple[int, ...], mode: str = "constant", value: float | None = None) -> Any:
    """torch's ``F.pad``: ``pad`` lists (left, right) pairs from the last dim backwards."""
    pad = tuple(int(p) for p in pad)
    if mode not in ("constant", *_PAD_SOURCES):
        raise NotImplementedError(f"pad: unrecognised padding mode '{mode}'")
    check("pad", input=input, pad=pad, mode=mode)
    if mode == "constant":
        return _pad_constant(input, pad, 0.0 if value is None else value)
    if value is not None:
        raise ValueError(f"pad: padding mode '{mode}' doesn't take a value argument")
    return _pad_indexed(input, pad, mode)


def _pad_constant(input: Any, pad: tuple[int, ...], value: float) -> Any:
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


# The input positions read by the n + lo + hi outputs of a dim of size n padded by (lo, hi).
# Negative padding crops, as in torch: reflect and replicate read x[i - lo] inside the input;
# circular crops first and then wraps around the cropped part.
def _reflect_sources(n: int, lo: int, hi: int) -> list[int]:
    return [-p if p < 0 else (2 * (n - 1) - p if p >= n else p) for p in range(-lo, n + hi)]


def _replicate_sources(n: int, lo: int, hi: int) -> list[int]:
    return [min(max(p, 0), n - 1) for p in range(-lo, n + hi)]


def _circular_sources(n: int, lo: int, hi: int) -> list[int]:
    start, kept = max(-lo, 0), n + min(lo, 0) + min(hi, 0)
    if kept <= 0 < n + lo + hi:
        raise ValueError(f"pad: circular padding ({lo}, {hi}) wraps around a dim of size {n} more than once")
    return [start + (i - max(lo, 0)) % kept for i in range(n + lo + hi)]


_PAD_SOURCES = {"reflect": _reflect_sources, "replicate": _replicate_sources, "circular": _circular_sources}


def _pad_indexed(input: Any, pad: tuple[int, ...], mode: str) -> Any:
    """reflect / replicate / circular padding of the last 1-3 dims as a gather per padded dim:
    the map from output to input positions is separable, so one ``index_select`` per dim gives
    the values, and its VJP (``index_add``) sums each output's gradient back into its source."""
    k, shape = len(pad) // 2, tuple(input.shape)
    result = input
    for i in range(k):
        d = input.ndim - 1 - i
        n, lo, hi = shape[d], pad[2 * i], pad[2 * i + 1]
        src = _PAD_SOURCES[mode](n, lo, hi)
        result = result.index_select(d, _C.tensor(src, dtype=_C.int64, device=input.device))
    return result

# the convolutions, pools, resampling, normalisations, activations and losses written in their own modules
from typedtensor._runtime.activation import *  # noqa: E402,F403
from typedtensor._runtime.attention import *  # noqa: E402,F403
from typedtensor._runtime.autocast import wrap_ops  # noqa: E402
from typedtensor._runtime.conv import *  # noqa: E402,F403
from typedtensor._runtime.ctc import *  # noqa: E402,F403
from typedtensor._runtime.loss import *  # noqa: E402,F403
from typedtensor._runtime.norm import *  # noqa: E402,F403
from typedtensor._runtime.resample import *  # noqa: E402,F403

wrap_ops(globals())  # the Python-written F ops with an autocast policy (NOTE [ Autocast policy ])

__all__ = [*_exports.FUNCTIONAL_FROM_C, *_exports.FUNCTIONAL_IN_PYTHON]
