"""``nn.functional`` rules: convolution and pooling output sizes, normalisation, embedding,
dropout2d, attention, and the target contracts of the losses."""

from __future__ import annotations

from typing import Any

from ..broadcast import broadcast_into
from ..dims import (
    UNKNOWN,
    DimExpr,
    Unknown,
    as_int,
    d_add,
    d_floordiv,
    d_mul,
    d_prod,
    d_sub,
    differs,
    fmt_dim,
    is_literal,
)
from ..issue import Issue
from ..registry import Args, Result, Rule, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import dims_of, ints_of, need_rank, norm_axis


def conv_out(size: DimExpr, k: DimExpr, s: int, p: int, d: int, ceil_mode: bool = False) -> DimExpr:
    """``floor((size + 2p - d(k-1) - 1) / s) + 1`` (ceil with ceil_mode, as PyTorch pools do)."""
    span = d_sub(d_add(size, 2 * p), d_add(d_mul(d, d_sub(k, 1)), 1))
    if ceil_mode:
        out = d_add(d_floordiv(d_add(span, s - 1), s), 1)
        # PyTorch: the last window must start inside the input or left padding
        n = as_int(out)
        sz = as_int(size)
        if n is not None and sz is not None and (n - 1) * s >= sz + p:
            out = n - 1
        return out
    return d_add(d_floordiv(span, s), 1)


def _spatial(op_name: str, x: Shape, kernel: tuple[DimExpr, ...], stride: tuple[int | None, ...],
             padding: tuple[int | None, ...], dilation: tuple[int | None, ...], ceil_mode: bool,
             lead: tuple[DimExpr, ...]) -> Result:
    dims = x.dims[-2:]
    out: list[DimExpr] = []
    for i, (h, k, s, p, d) in enumerate(zip(dims, kernel, stride, padding, dilation, strict=False)):
        if s is None or p is None or d is None:
            out.append(UNKNOWN)
            continue
        if s <= 0 or d <= 0 or p < 0:
            return Issue("shape-arg", f"{op_name}: stride and dilation must be positive and padding non-negative")
        o = conv_out(h, k, s, p, d, ceil_mode)
        if is_literal(o) and int(o) < 1:
            return Issue(
                "shape-arg",
                f"{op_name}: output size {fmt_dim(o)} < 1 along spatial dim {i}: input {fmt_dim(h)}, "
                f"kernel {fmt_dim(k)}, stride {s}, padding {p}, dilation {d}; shape {fmt_shape(x)}",
            )
        out.append(o)
    return Shape(lead + tuple(out))


@op("conv2d", "input:tensor, weight:tensor, bias:optional_tensor=None, stride:ints=1, padding:any=0, "
    "dilation:ints=1, groups:int=1", kernel="(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* bias, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups)", expose="tt F", tags=("nn", "conv"), graph=True, prim="Other",
    autocast="lower")
def conv2d(args: Args) -> Result:
    """Input ``[N, C, H, W]`` or unbatched ``[C, H, W]``; weight ``[O, C/groups, kH, kW]``."""
    x, w, b = args["input"], args["weight"], args["bias"]
    if isinstance(x, Unknown) or isinstance(w, Unknown):
        return UNKNOWN
    r = need_rank("conv2d", x, (3, 4))
    if r:
        return r
    r = need_rank("conv2d", w, (4,), "weight")
    if r:
        return r
    if not x.is_fixed or not w.is_fixed:
        return UNKNOWN
    groups = as_int(args["groups"])
    out_c, in_per_group, kh, kw = w.dims
    channels = x.dims[-3]
    expected = d_mul(in_per_group, groups) if groups is not None else UNKNOWN
    if differs(channels, expected):
        return Issue(
            "shape-arg",
            f"conv2d: input has {fmt_dim(channels)} channels but weight expects {fmt_dim(expected)} "
            f"(weight dim 1 {fmt_dim(in_per_group)} x groups {groups}); shapes {fmt_shape(x)}, weight {fmt_shape(w)}",
        )
    if isinstance(b, Shape) and b.is_fixed and (len(b.dims) != 1 or differs(b.dims[0], out_c)):
        return Issue("shape-arg", f"conv2d: bias shape {fmt_shape(b)} does not match {fmt_dim(out_c)} output channels")
    padding_arg = args["padding"]
    if any(d == 0 for d in x.dims[-2:]) and (padding_arg == "same" or all(d != 0 for d in x.dims[:-2])):
        return Issue("shape-arg", f"conv2d: empty spatial dims are not supported (only an empty batch or channel dim); shape {fmt_shape(x)}")
    stride, dilation = ints_of(args["stride"], 2), ints_of(args["dilation"], 2)
    if stride is None or dilation is None:
        return UNKNOWN
    if padding_arg == "same":
        if any(s is not None and s != 1 for s in stride):
            return Issue("shape-arg", f"conv2d: padding='same' needs stride 1, got stride {args['stride']}; shape {fmt_shape(x)}")
        lead = (*x.dims[:-3], out_c)
        return Shape(lead + x.dims[-2:])
    padding = ints_of(padding_arg, 2) if padding_arg != "valid" else (0, 0)
    if padding is None:
        return UNKNOWN
    return _spatial("conv2d", x, (kh, kw), stride, padding, dilation, False, (*x.dims[:-3], out_c))


def _nonempty_features(name: str, x: Shape) -> Issue | None:
    """torch pools need every non-batch dim non-empty (only a 4-d input's batch may be 0)."""
    dims = x.dims[1:] if len(x.dims) == 4 else x.dims
    if any(d == 0 for d in dims):
        return Issue("shape-arg", f"{name}: the channel and spatial dims must be non-empty; shape {fmt_shape(x)}")
    return None


def _pool(name: str, args: Args, with_dilation: bool) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank(name, x, (3, 4))
    if r:
        return r
    if not x.is_fixed:
        return UNKNOWN
    r = _nonempty_features(name, x)
    if r:
        return r
    kernel = dims_of(args["kernel_size"], 2)
    stride_arg = args["stride"]
    stride = ints_of(args["kernel_size"] if stride_arg in (None, ()) else stride_arg, 2)
    padding = ints_of(args["padding"], 2)
    dilation = ints_of(args["dilation"], 2) if with_dilation else (1, 1)
    if kernel is None or stride is None or padding is None or dilation is None:
        return UNKNOWN
    for k, p in zip(kernel, padding, strict=False):
        kk = as_int(k)
        if kk is not None and p is not None and p > kk // 2:
            return Issue("shape-arg", f"{name}: padding {p} must be at most half the kernel size {kk}; shape {fmt_shape(x)}")
    ceil_mode = args["ceil_mode"] is True
    return _spatial(name, x, kernel, stride, padding, dilation, ceil_mode, x.dims[:-2])


@op("max_pool2d", "input:tensor, kernel_size:any, stride:any=None, padding:any=0, dilation:any=1, "
    "ceil_mode:bool=False, return_indices:bool=False", kernel="(const Tensor& out, const Tensor& idx, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw)", expose="tt F", tags=("nn", "pool"), returns="Any", graph=True,
    prim="Other")
def max_pool2d(args: Args) -> Result:
    """Output size from kernel, stride (defaults to kernel), padding (<= kernel/2), dilation."""
    return _pool("max_pool2d", args, True)


@op("avg_pool2d", "input:tensor, kernel_size:any, stride:any=None, padding:any=0, ceil_mode:bool=False, "
    "count_include_pad:bool=True, divisor_override:any=None", kernel="(const Tensor& out, const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, bool count_include_pad, int64_t divisor)", expose="tt F", torch_functional_only=True, tags=("nn", "pool"), graph=True,
    prim="Other")
def avg_pool2d(args: Args) -> Result:
    return _pool("avg_pool2d", {**args, "dilation": 1}, False)


@op("adaptive_avg_pool2d", "input:tensor, output_size:any", kernel="(const Tensor& out, const Tensor& x)", expose="tt F", torch_functional_only=True, tags=("nn", "pool"), graph=True,
    prim="Other")
def adaptive_avg_pool2d(args: Args) -> Result:
    """The last two dims become ``output_size`` (None keeps a dim)."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("adaptive_avg_pool2d", x, (3, 4))
    if r:
        return r
    if not x.is_fixed:
        return UNKNOWN
    size = args["output_size"]
    keep = (True, True) if size is None else tuple(s is None for s in size) if isinstance(size, (tuple, list)) else (False, False)
    sizes = dims_of(size, 2)
    if sizes is None or len(keep) != 2:
        return UNKNOWN
    out = tuple(x.dims[-2 + i] if keep[i] else s for i, s in enumerate(sizes))
    return Shape(x.dims[:-2] + out)


def _channel_check(name: str, x: Shape, what: str, v: Any, channels: DimExpr) -> Issue | None:
    if isinstance(v, Shape) and v.is_fixed and (len(v.dims) != 1 or differs(v.dims[0], channels)):
        return Issue(
            "shape-arg",
            f"{name}: {what} has shape {fmt_shape(v)}, expected [{fmt_dim(channels)}] for "
            f"input {fmt_shape(x)} (channels at dim 1)",
        )
    return None


@op("batch_norm", "input:tensor, running_mean:optional_tensor, running_var:optional_tensor, "
    "weight:optional_tensor=None, bias:optional_tensor=None, training:bool=False, momentum:float=0.1, "
    "eps:float=1e-05", expose="tt F", python="tt F", tags=("nn", "normalization"), signature="(*s) -> (*s)")
def batch_norm(args: Args) -> Result:
    """Statistics per channel (dim 1); the parameters are ``[C]``."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("batch_norm", x, (2, 3, 4, 5))
    if r:
        return r
    if x.is_fixed:
        c = x.dims[1]
        for what in ("running_mean", "running_var", "weight", "bias"):
            issue = _channel_check("batch_norm", x, what, args[what], c)
            if issue:
                return issue
    return x


@op("layer_norm", "input:tensor, normalized_shape:sizes, weight:optional_tensor=None, "
    "bias:optional_tensor=None, eps:float=1e-05", kernel="(const Tensor& out, const Tensor& in, const Tensor* w, const Tensor* b, int64_t rows, int64_t cols, double eps)", expose="tt F", tags=("nn", "normalization"),
    signature="(*s) -> (*s)", graph=True, prim="Other", autocast="cuda=float32")
def layer_norm(args: Args) -> Result:
    """The trailing dims must equal ``normalized_shape``; weight and bias have that shape."""
    x: ShapeLike = args["input"]
    ns = args["normalized_shape"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if isinstance(ns, Unknown):
        return x
    norm = tuple(ns) if isinstance(ns, (tuple, list)) else (ns,)
    tail = x.tail
    if len(tail) < len(norm):
        if x.is_fixed:
            return Issue("shape-arg", f"layer_norm: normalized_shape {list(map(fmt_dim, norm))} has more dims than input {fmt_shape(x)}")
        return x
    for i, (have, want) in enumerate(zip(tail[len(tail) - len(norm):], norm, strict=False)):
        if differs(have, want):
            return Issue(
                "shape-arg",
                f"layer_norm: input dim {i - len(norm)} is {fmt_dim(have)} but normalized_shape expects "
                f"{fmt_dim(want)}; shape {fmt_shape(x)} vs normalized_shape [{', '.join(map(fmt_dim, norm))}]",
            )
    for what in ("weight", "bias"):
        v = args[what]
        if isinstance(v, Shape) and v.is_fixed and (len(v.dims) != len(norm) or any(differs(a, b) for a, b in zip(v.dims, norm, strict=True))):
            return Issue("shape-arg", f"layer_norm: {what} has shape {fmt_shape(v)}, expected [{', '.join(map(fmt_dim, norm))}]")
    return x


@op("group_norm", "input:tensor, num_groups:int, weight:optional_tensor=None, bias:optional_tensor=None, "
    "eps:float=1e-05", expose="tt F", python="tt F", tags=("nn", "normalization"), signature="(*s) -> (*s)",
    autocast="cuda=float32")
def group_norm(args: Args) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) < 2:
        return Issue("shape-rank", f"group_norm: expected at least 2 dims (N, C, ...), got {len(x.dims)}; shape {fmt_shape(x)}")
    if isinstance(x, Unknown) or not x.is_fixed:
        return x
    g, c = as_int(args["num_groups"]), as_int(x.dims[1])
    if g is not None and c is not None and (g <= 0 or c % g):
        return Issue("shape-arg", f"group_norm: {c} channels are not divisible into {g} groups; shape {fmt_shape(x)}")
    per_group = d_mul(x.dims[0], d_prod(x.dims[2:])) if g is None or c is None else d_mul(d_mul(x.dims[0], c // g), d_prod(x.dims[2:]))
    if g is not None and c is not None and per_group == 1:
        return Issue("shape-arg", f"group_norm: each group has a single value (torch needs more than 1); shape {fmt_shape(x)}")
    return x


@op("embedding", "input:tensor, weight:tensor, padding_idx:int=None, max_norm:float=None, norm_type:float=2.0, "
    "scale_grad_by_freq:bool=False, sparse:bool=False", expose="tt F",
    function="input:tensor, weight:tensor, padding_idx:int=None", python="F", tags=("nn", "indexing"), graph=True)
def embedding(args: Args) -> Result:
    """Indices of any shape gain the embedding dim: ``[*idx, D]`` for a ``[V, D]`` table."""
    idx: ShapeLike = args["input"]
    w: ShapeLike = args["weight"]
    if isinstance(w, Unknown):
        return UNKNOWN
    r = need_rank("embedding", w, (2,), "weight")
    if r:
        return r
    if isinstance(idx, Unknown) or not w.is_fixed:
        return UNKNOWN
    return idx.with_tail((*idx.tail, w.dims[1]))


@op("dropout2d", "input:tensor, p:float=0.5, training:bool=True, inplace:bool=False", expose="tt F", torch_functional_only=True,
    function="input:tensor, p:float=0.5, training:bool=True", python="F", tags=("nn", "random"),
    signature="(*s) -> (*s)", graph=True)
def dropout2d(args: Args) -> Result:
    """Zeroes whole channels: needs ``[N, C, H, W]`` or ``[C, H, W]``."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("dropout2d", x, (3, 4))
    return r if r else x


@op("scaled_dot_product_attention", "query:tensor, key:tensor, value:tensor, attn_mask:optional_tensor=None, "
    "dropout_p:float=0.0, is_causal:bool=False, scale:float=None", expose="F", python="F", tags=("nn", "attention"),
    prim="Other", prim_cuda="cpu", graph=True,  # the fused CPU kernel (backend/src/cpu/attention.cpp)
    autocast="lower")
def scaled_dot_product_attention(args: Args) -> Result:
    """``softmax(q @ k.mT) @ v``: q ``[*b, L, E]``, k ``[*b, S, E]``, v ``[*b, S, Ev]`` -> ``[*b, L, Ev]``."""
    from .linalg import matmul_shapes

    q, k, v = args["query"], args["key"], args["value"]
    for what, t in (("query", q), ("key", k), ("value", v)):
        if isinstance(t, Shape) and t.is_fixed and len(t.dims) < 2:
            return Issue("shape-rank", f"scaled_dot_product_attention: {what} needs at least 2 dims "
                         f"([..., L, E]), got {len(t.dims)}; shape {fmt_shape(t)}")
    if isinstance(q, Unknown) or isinstance(k, Unknown) or isinstance(v, Unknown):
        return UNKNOWN
    if len(k.tail) < 2:
        return UNKNOWN
    kt = k.with_tail((*k.tail[:-2], k.tail[-1], k.tail[-2]))
    scores = matmul_shapes(q, kt, "scaled_dot_product_attention")
    if not isinstance(scores, Shape):
        return scores
    mask = args["attn_mask"]
    if isinstance(mask, Shape):
        issue = broadcast_into(scores, mask, "scaled_dot_product_attention (attn_mask)")
        if issue:
            return issue
    return matmul_shapes(scores, v, "scaled_dot_product_attention")


# ---------------------------------------------------------------------------------------------
# Losses

def _reduced(target_shape: ShapeLike, reduction: Any) -> Result:
    if reduction == "none":
        return target_shape
    if isinstance(reduction, Unknown):
        return UNKNOWN
    return Shape(())


def _class_target(name: str, x: Shape, y: Shape, allow_probs: bool) -> Issue | ShapeLike | None:
    """Class-index targets drop the class dim (dim 1, or 0 for an unbatched input); probability
    targets (cross_entropy only) have the input's shape. Returns the per-element loss shape."""
    class_dim = 0 if len(x.dims) == 1 else 1
    without = Shape(x.dims[:class_dim] + x.dims[class_dim + 1 :])
    shown = f"input {fmt_shape(x)}, target {fmt_shape(y)}"
    if allow_probs and len(y.dims) == len(x.dims):
        for i, (a, b) in enumerate(zip(x.dims, y.dims, strict=True)):
            if differs(a, b):
                return Issue("shape-arg", f"{name}: probability target must match the input: dim {i} is {fmt_dim(b)}, expected {fmt_dim(a)}; {shown}")
        return without
    if len(x.dims) == 1 and y.is_fixed and len(y.dims) == 1 and not differs(y.dims[0], 1):
        return without  # torch accepts a [1] class-index target for an unbatched [C] input
    if len(y.dims) != len(without.dims):
        want = f"{len(without.dims)}-d class indices" + (f" or a {len(x.dims)}-d probability target" if allow_probs else "")
        return Issue("shape-arg", f"{name}: expected {want}, got a {len(y.dims)}-d target; {shown}")
    for i, (a, b) in enumerate(zip(without.dims, y.dims, strict=True)):
        if differs(a, b):
            return Issue(
                "shape-arg",
                f"{name}: target dim {i} is {fmt_dim(b)}, expected {fmt_dim(a)} (the input without its class dim {class_dim}); {shown}",
            )
    return without


def _class_loss(name: str, args: Args, allow_probs: bool) -> Result:
    x, y, w = args["input"], args["target"], args["weight"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if x.is_fixed and len(x.dims) == 0:
        return Issue("shape-rank", f"{name}: input needs at least 1 dim (classes); shape {fmt_shape(x)}")
    if not x.is_fixed:
        return _reduced(UNKNOWN, args["reduction"])
    class_dim = 0 if len(x.dims) == 1 else 1
    classes = x.dims[class_dim]
    if isinstance(w, Shape) and w.is_fixed and (len(w.dims) != 1 or differs(w.dims[0], classes)):
        return Issue("shape-arg", f"{name}: weight has shape {fmt_shape(w)}, expected [{fmt_dim(classes)}] (one per class); input {fmt_shape(x)}")
    if isinstance(y, Unknown) or not y.is_fixed:
        return _reduced(UNKNOWN, args["reduction"])
    per = _class_target(name, x, y, allow_probs)
    if isinstance(per, Issue):
        return per
    return _reduced(per if per is not None else UNKNOWN, args["reduction"])


@op("cross_entropy", "input:tensor, target:tensor, weight:optional_tensor=None, size_average:any=None, "
    "ignore_index:int=-100, reduce:any=None, reduction:str='mean', label_smoothing:float=0.0", expose="F", python="F",
    tags=("nn", "loss"), graph=True, prim="Other", prim_cuda="cpu",  # the primitive: the fused CPU kernel
    autocast="float32")
def cross_entropy(args: Args) -> Result:
    """Logits ``[N, C, *d]`` (or ``[C]``) with class-index targets ``[N, *d]`` or probabilities ``[N, C, *d]``."""
    return _class_loss("cross_entropy", args, True)


@op("nll_loss", "input:tensor, target:tensor, weight:optional_tensor=None, size_average:any=None, "
    "ignore_index:int=-100, reduce:any=None, reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"),
    autocast="float32")
def nll_loss(args: Args) -> Result:
    """Log-probabilities ``[N, C, *d]`` with class-index targets ``[N, *d]``."""
    return _class_loss("nll_loss", args, False)


def _equal_shapes(name: str, args: Args, a_name: str = "input", b_name: str = "target") -> Result:
    """typedtensor requires equal shapes where PyTorch would silently broadcast (``[B, 1]`` vs ``[B]``)."""
    x, y = args[a_name], args[b_name]
    if isinstance(x, Unknown) or isinstance(y, Unknown):
        return _reduced(x if isinstance(y, Unknown) else y, args["reduction"])
    if x.is_fixed and y.is_fixed and (
        len(x.dims) != len(y.dims) or any(differs(a, b) for a, b in zip(x.dims, y.dims, strict=True))
    ):
        return Issue(
            "shape-arg",
            f"{name}: input and target must have the same shape (typedtensor does not broadcast losses); "
            f"shapes {fmt_shape(x)} vs {fmt_shape(y)}",
        )
    for extra in ("weight", "pos_weight"):
        v = args.get(extra)
        if isinstance(v, Shape):
            issue = broadcast_into(x, v, f"{name} ({extra})")
            if issue:
                return issue
    return _reduced(x, args["reduction"])


def _equal_shapes_rule(name: str) -> Rule:
    def rule(args: Args) -> Result:
        return _equal_shapes(name, args)

    return rule


_LEGACY = "size_average:any=None, reduce:any=None"
for _name, _extra in (
    ("mse_loss", f"{_LEGACY}, reduction:str='mean'"), ("l1_loss", f"{_LEGACY}, reduction:str='mean'"),
    ("smooth_l1_loss", f"{_LEGACY}, reduction:str='mean', beta:float=1.0"),
    ("huber_loss", "reduction:str='mean', delta:float=1.0"),
):
    op(_name, f"input:tensor, target:tensor, {_extra}", expose="F", python="F",
       tags=("nn", "loss"), autocast="float32")(_equal_shapes_rule(_name))


@op("binary_cross_entropy", "input:tensor, target:tensor, weight:optional_tensor=None, size_average:any=None, "
    "reduce:any=None, reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"), autocast="cpu=float32")
def binary_cross_entropy(args: Args) -> Result:
    """Probabilities and targets of the same shape."""
    return _equal_shapes("binary_cross_entropy", args)


@op("binary_cross_entropy_with_logits", "input:tensor, target:tensor, weight:optional_tensor=None, "
    "size_average:any=None, reduce:any=None, reduction:str='mean', pos_weight:optional_tensor=None",
    expose="F", python="F", tags=("nn", "loss"), autocast="float32")
def binary_cross_entropy_with_logits(args: Args) -> Result:
    """Logits and targets of the same shape; ``pos_weight`` broadcasts over the class dim."""
    return _equal_shapes("binary_cross_entropy_with_logits", args)


_ = (ShapeLike,)


@op("gumbel_softmax", "logits:tensor, tau:float=1.0, hard:bool=False, eps:float=1e-10, dim:int=-1", expose="F",
    python="F", tags=("nn", "random"), signature="(*s) -> (*s)")
def gumbel_softmax(args: Args) -> Result:
    """Samples of the Gumbel-softmax over ``dim``: the logits' shape."""
    x: ShapeLike = args["logits"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = norm_axis("gumbel_softmax", x, args["dim"])
    return p if isinstance(p, Issue) else x


@op("normalize", "input:tensor, p:float=2.0, dim:int=1, eps:float=1e-12", expose="F", python="F", tags=("nn",),
    signature="(*s) -> (*s)")
def normalize(args: Args) -> Result:
    """``input / norm(input, p, dim)``: the shape stays; ``dim`` must be one of its dims."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    p = norm_axis("normalize", x, args["dim"])
    return p if isinstance(p, Issue) else x
