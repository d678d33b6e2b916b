"""``nn`` modules: constructor sizes become type arguments; ``forward`` reuses the op rules.

A module's forward mismatch is a ``shape-arg`` (the call's argument does not match what the
module's constructor sizes declare, as the stubs' ``forward(self, x: Tensor[*Bs, I])`` says to mypy);
a wrong rank or dim index keeps ``shape-rank`` / ``shape-axis``.
"""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, DimExpr, Unknown, as_int, d_mul
from ..issue import Issue
from ..registry import REGISTRY, Args, ModuleDef, Result, get_op, module, parse_params, register_module
from ..shape import Shape, Star
from ..unify import rigid, unify
from . import elementwise, resample  # noqa: F401  (their op entries declare modules: the activations, ChannelShuffle)
from ._common import dims_of
from .nn import conv2d
from .reduce import reduce_shape


def _as_arg(issue: Result, module_name: str) -> Result:
    """The inner op's mismatch is the module argument's (``shape-arg``); a rank or dim-index error
    keeps its own code, as ``F.conv2d`` on a 2-d input is ``shape-rank`` (DESIGN §2)."""
    if isinstance(issue, Issue) and issue.code not in ("shape-arg", "shape-rank", "shape-axis"):
        return Issue("shape-arg", f"{module_name}.forward: {issue.message}")
    return issue


def _call(op_name: str, **kwargs: Any) -> Result:
    op = get_op(op_name)
    args = {p.name: p.default for p in op.params}
    args.update(kwargs)
    return op.rule(args)


@module("typedtensor.nn.Linear", "in_features:size, out_features:size, bias:bool=True, *, device:any=None, dtype:any=None",
        ("in_features", "out_features"), "input:tensor", ops=("linear",))
def linear_module(ctor: Args, args: Args) -> Result:
    """``[*Bs, In] -> [*Bs, Out]``."""
    x = args["input"]
    issue = unify(Shape((), Star(None), (ctor["in_features"],)), x, rigid(ctor["in_features"]),
                  "Linear.forward argument 'input'")
    if issue:
        return issue
    if isinstance(x, Unknown):
        return UNKNOWN
    return x.with_tail((*x.tail[:-1], ctor["out_features"])) if x.tail else Shape((), Star(None), (ctor["out_features"],))


@module("typedtensor.nn.Bilinear", "in1_features:size, in2_features:size, out_features:size, bias:bool=True, *, "
        "device:any=None, dtype:any=None", ("in1_features", "in2_features", "out_features"), "input1:tensor, input2:tensor",
        ops=("bilinear",))
def bilinear_module(ctor: Args, args: Args) -> Result:
    """``[*Bs, In1], [*Bs, In2] -> [*Bs, Out]``."""
    weight = Shape((ctor["out_features"], ctor["in1_features"], ctor["in2_features"]))
    bias = Shape((ctor["out_features"],)) if ctor["bias"] is not False else None
    return _call("bilinear", input1=args["input1"], input2=args["input2"], weight=weight, bias=bias)


@module("typedtensor.nn.Conv2d", "in_channels:size, out_channels:size, kernel_size:any, stride:any=1, padding:any=0, "
        "dilation:any=1, groups:int=1, bias:bool=True, padding_mode:str='zeros', *, device:any=None, dtype:any=None",
        ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation"), "input:tensor", ops=("conv2d",))
def conv2d_module(ctor: Args, args: Args) -> Result:
    kh, kw = dims_of(ctor["kernel_size"], 2) or (UNKNOWN, UNKNOWN)
    groups = as_int(ctor["groups"])
    in_per_group: DimExpr = UNKNOWN
    if groups is not None and groups > 0:
        from ..dims import d_exact_div

        q = d_exact_div(ctor["in_channels"], groups)
        in_per_group = q if q is not None else UNKNOWN
    weight = Shape((ctor["out_channels"], in_per_group, kh, kw))
    x = args["input"]
    if isinstance(x, Shape) and x.is_fixed and len(x.dims) in (3, 4):
        # The input's channels are the constructor's in_channels whatever the groups (which a
        # consumer may not know: the mypy plugin carries only the channel counts in the type).
        from ..dims import differs, fmt_dim
        from ..shape import fmt_shape

        c = x.dims[-3]
        if differs(c, ctor["in_channels"]):
            return Issue(
                "shape-arg",
                f"Conv2d.forward: input has {fmt_dim(c)} channels (dim {len(x.dims) - 3}) but the module expects "
                f"in_channels = {fmt_dim(ctor['in_channels'])}; shape {fmt_shape(x)}",
            )
    result = conv2d({
        "input": args["input"], "weight": weight, "bias": None, "stride": ctor["stride"],
        "padding": ctor["padding"], "dilation": ctor["dilation"], "groups": ctor["groups"],
    })
    return _as_arg(result, "Conv2d")


def _pool_module(op_name: str) -> Any:
    def forward(ctor: Args, args: Args) -> Result:
        return _as_arg(_call(op_name, input=args["input"], **ctor), op_name)

    return forward


# A conv's or pool's type parameters are every constructor argument its output's shape depends on
# (groups never changes it: the input's channels are checked against in_channels).
module("typedtensor.nn.MaxPool2d", "kernel_size:any, stride:any=None, padding:any=0, dilation:any=1, "
       "return_indices:bool=False, ceil_mode:bool=False",
       ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"), "input:tensor",
       ops=("max_pool2d",))(_pool_module("max_pool2d"))
module("typedtensor.nn.AvgPool2d", "kernel_size:any, stride:any=None, padding:any=0, ceil_mode:bool=False, "
       "count_include_pad:bool=True, divisor_override:any=None", ("kernel_size", "stride", "padding", "ceil_mode"),
       "input:tensor", ops=("avg_pool2d",))(_pool_module("avg_pool2d"))
module("typedtensor.nn.AdaptiveAvgPool2d", "output_size:any", ("output_size",), "input:tensor",
       ops=("adaptive_avg_pool2d",))(_pool_module("adaptive_avg_pool2d"))


def _batchnorm_module(name: str, ranks: tuple[int, ...]) -> None:
    """``nn.BatchNorm1d``/``2d``: the input's rank, then ``batch_norm`` with ``[C]`` statistics where
    ``C == num_features``."""

    def forward(ctor: Args, args: Args) -> Result:
        x = args["input"]
        if isinstance(x, Unknown):
            return UNKNOWN
        from ._common import need_rank

        r = need_rank(name, x, ranks)
        if r:
            return r
        c = ctor["num_features"]
        return _as_arg(_call("batch_norm", input=x, running_mean=Shape((c,)), running_var=Shape((c,))), name)

    module(f"typedtensor.nn.{name}", "num_features:size, eps:float=1e-05, momentum:float=0.1, affine:bool=True, "
           "track_running_stats:bool=True, device:any=None, dtype:any=None, *, bias:bool=True", ("num_features",),
           "input:tensor",
           ops=("batch_norm",))(forward)


_batchnorm_module("BatchNorm2d", (4,))
_batchnorm_module("BatchNorm1d", (2, 3))


@module("typedtensor.nn.LayerNorm", "normalized_shape:sizes, eps:float=1e-05, elementwise_affine:bool=True, "
        "bias:bool=True, *, device:any=None, dtype:any=None", ("normalized_shape",), "input:tensor", ops=("layer_norm",))
def layernorm_module(ctor: Args, args: Args) -> Result:
    return _as_arg(_call("layer_norm", input=args["input"], normalized_shape=ctor["normalized_shape"]), "LayerNorm")


@module("typedtensor.nn.Embedding", "num_embeddings:size, embedding_dim:size, padding_idx:any=None, "
        "max_norm:any=None, norm_type:float=2.0, scale_grad_by_freq:bool=False, sparse:bool=False, _weight:any=None, "
        "_freeze:bool=False, *, device:any=None, dtype:any=None", ("num_embeddings", "embedding_dim"), "input:tensor",
        ops=("embedding",))
def embedding_module(ctor: Args, args: Args) -> Result:
    """Indices ``[*idx]`` -> ``[*idx, Dim]``."""
    return _call("embedding", input=args["input"], weight=Shape((ctor["num_embeddings"], ctor["embedding_dim"])))


def _same(op_name: str | None) -> Any:
    def forward(ctor: Args, args: Args) -> Result:
        x = args["input"]
        if op_name is not None:
            return _as_arg(_call(op_name, input=x), op_name)
        return x if isinstance(x, (Shape, Unknown)) else UNKNOWN

    return forward


for _name, _op, _ctor in (
    ("Identity", None, ""), ("Dropout", "dropout", "p:float=0.5, inplace:bool=False"),
    ("Dropout2d", "dropout2d", "p:float=0.5, inplace:bool=False"),
    ("Dropout1d", "dropout1d", "p:float=0.5, inplace:bool=False"),
    ("Dropout3d", "dropout3d", "p:float=0.5, inplace:bool=False"),
    ("AlphaDropout", "alpha_dropout", "p:float=0.5, inplace:bool=False"),
    ("FeatureAlphaDropout", "feature_alpha_dropout", "p:float=0.5, inplace:bool=False"),
):
    module(f"typedtensor.nn.{_name}", _ctor, (), "input:tensor", ops=(_op,) if _op else ())(_same(_op))

# The modules that wrap one elementwise op come from the op's entry (its ``module=``).
for _opdef in list(REGISTRY.values()):
    if _opdef.module is not None:
        register_module(ModuleDef(
            f"typedtensor.nn.{_opdef.module.name}", _opdef.module.ctor, (), parse_params("input:tensor"),
            _same(_opdef.name), f"``{_opdef.name}`` elementwise, as a module.", (_opdef.name,),
        ))


def _dim_module(op_name: str) -> Any:
    def forward(ctor: Args, args: Args) -> Result:
        return _as_arg(_call(op_name, input=args["input"], dim=ctor["dim"]), op_name)

    return forward


module("typedtensor.nn.Softmax", "dim:any=None", ("dim",), "input:tensor", ops=("softmax",))(_dim_module("softmax"))
module("typedtensor.nn.LogSoftmax", "dim:any=None", ("dim",), "input:tensor",
       ops=("log_softmax",))(_dim_module("log_softmax"))


@module("typedtensor.nn.Flatten", "start_dim:int=1, end_dim:int=-1", ("start_dim", "end_dim"), "input:tensor",
        ops=("flatten",))
def flatten_module(ctor: Args, args: Args) -> Result:
    return _as_arg(_call("flatten", input=args["input"], start_dim=ctor["start_dim"], end_dim=ctor["end_dim"]), "Flatten")


@module("typedtensor.nn.Unflatten", "dim:int, unflattened_size:sizes", ("dim", "unflattened_size"), "input:tensor",
        ops=("unflatten",))
def unflatten_module(ctor: Args, args: Args) -> Result:
    return _as_arg(_call("unflatten", input=args["input"], dim=ctor["dim"], sizes=ctor["unflattened_size"]), "Unflatten")


@module("typedtensor.nn.MultiheadAttention", "embed_dim:size, num_heads:int, dropout:float=0.0, bias:bool=True, "
        "add_bias_kv:bool=False, add_zero_attn:bool=False, kdim:any=None, vdim:any=None, batch_first:bool=False, "
        "*, device:any=None, dtype:any=None", ("embed_dim", "num_heads", "batch_first"),
        "query:tensor, key:tensor, value:tensor, key_padding_mask:optional_tensor=None, need_weights:bool=True, "
        "attn_mask:optional_tensor=None, average_attn_weights:bool=True, is_causal:bool=False",
        ops=("linear", "scaled_dot_product_attention"))
def mha_module(ctor: Args, args: Args) -> Result:
    """(query ``[.., L, E]``, key/value ``[.., S, E]``) -> (output ``[.., L, E]``, weights)."""
    from ..dims import differs, fmt_dim
    from ..registry import Outputs
    from ..shape import fmt_shape

    e = ctor["embed_dim"]
    heads = as_int(ctor["num_heads"])
    ee = as_int(e)
    if heads is not None and ee is not None and (heads <= 0 or ee % heads):
        return Issue("shape-arg", f"MultiheadAttention: embed_dim {ee} is not divisible by num_heads {heads}")
    q, k, v = args["query"], args["key"], args["value"]
    for name, t in (("query", q), ("key", k), ("value", v)):
        if isinstance(t, Shape):
            from ._common import need_rank

            r = need_rank("MultiheadAttention", t, (2, 3), name)
            if r:
                return r
            if t.tail and differs(t.tail[-1], e) and (name == "query" or ctor["kdim"] is None):
                return Issue(
                    "shape-arg",
                    f"MultiheadAttention.forward: {name} has embedding dim {fmt_dim(t.tail[-1])}, expected "
                    f"{fmt_dim(e)}; shape {fmt_shape(t)}",
                )
    if not isinstance(q, Shape):
        return Outputs((UNKNOWN, UNKNOWN), ("output", "weights"))
    batch_first = ctor["batch_first"] is True
    if isinstance(k, Shape) and isinstance(v, Shape) and k.is_fixed and v.is_fixed and len(k.dims) == len(v.dims):
        sk = k.dims[-3 + (1 if batch_first else 0)] if len(k.dims) == 3 else k.dims[0]
        sv = v.dims[-3 + (1 if batch_first else 0)] if len(v.dims) == 3 else v.dims[0]
        if differs(sk, sv):
            return Issue("shape-arg", f"MultiheadAttention.forward: key and value lengths differ: {fmt_dim(sk)} vs {fmt_dim(sv)}")
    layout_known = isinstance(ctor["batch_first"], bool)  # an annotation `nn.MultiheadAttention` leaves it open
    if layout_known and isinstance(k, Shape) and q.is_fixed and k.is_fixed and len(q.dims) == len(k.dims) == 3:
        nq, nk = (q.dims[0], k.dims[0]) if batch_first else (q.dims[1], k.dims[1])
        if differs(nq, nk):
            layout = "(batch, seq, embed)" if batch_first else "(seq, batch, embed)"
            return Issue("shape-arg", f"MultiheadAttention.forward: query and key batch sizes differ: {fmt_dim(nq)} vs "
                                      f"{fmt_dim(nk)} (inputs are {layout}); shapes {fmt_shape(q)}, {fmt_shape(k)}")
    masks = _mha_masks(q, k, batch_first, heads, args["key_padding_mask"], args["attn_mask"]) if layout_known else None
    if masks is not None:
        return masks
    weights: Any = UNKNOWN
    if isinstance(k, Shape) and q.is_fixed and k.is_fixed and len(q.dims) == len(k.dims):
        if len(q.dims) == 2:
            weights = Shape((q.dims[0], k.dims[0]))
        elif batch_first:
            weights = Shape((q.dims[0], q.dims[1], k.dims[1]))
        else:
            weights = Shape((q.dims[1], q.dims[0], k.dims[0]))
    return Outputs((q, weights), ("output", "weights"))


def _mha_masks(q: Any, k: Any, batch_first: bool, heads: int | None, key_padding_mask: Any, attn_mask: Any) -> Issue | None:
    """``key_padding_mask`` is ``(N, S)`` (``(S,)`` unbatched); ``attn_mask`` is ``(L, S)`` or ``(N *
    num_heads, L, S)``, whatever the inputs' layout (torch's ``MultiheadAttention.forward``)."""
    from ..dims import differs
    from ..shape import fmt_shape

    if not (isinstance(q, Shape) and isinstance(k, Shape) and q.is_fixed and k.is_fixed and len(q.dims) == len(k.dims)):
        return None
    if len(q.dims) == 3:
        n, tgt, src = (q.dims[0], q.dims[1], k.dims[1]) if batch_first else (q.dims[1], q.dims[0], k.dims[0])
        padding: tuple[Any, ...] = (n, src)
    else:
        n, tgt, src = None, q.dims[0], k.dims[0]
        padding = (src,)
    if isinstance(key_padding_mask, Shape) and key_padding_mask.is_fixed:
        got = key_padding_mask.dims
        if len(got) != len(padding) or any(differs(g, e) for g, e in zip(got, padding, strict=False)):
            return Issue("shape-arg", f"MultiheadAttention.forward: key_padding_mask must be {fmt_shape(Shape(padding))} "
                                      f"(batch, source length), got {fmt_shape(key_padding_mask)}")
    if isinstance(attn_mask, Shape) and attn_mask.is_fixed:
        got = attn_mask.dims
        expected: list[tuple[Any, ...]] = [(tgt, src)]
        if n is not None:
            expected.append((d_mul(n, heads) if heads is not None else UNKNOWN, tgt, src))
        if not any(len(got) == len(e) and not any(differs(g, x) for g, x in zip(got, e, strict=False)) for e in expected):
            shown = " or ".join(fmt_shape(Shape(e)) for e in expected)
            return Issue("shape-arg", f"MultiheadAttention.forward: attn_mask must be {shown} (a 3-d mask has one "
                                      f"slice per example and head), got {fmt_shape(attn_mask)}")
    return None


def _loss_module(op_name: str, ctor_spec: str) -> None:
    def forward(ctor: Args, args: Args) -> Result:
        kw = {k: v for k, v in ctor.items() if k in {p.name for p in get_op(op_name).params}}
        return _call(op_name, input=args["input"], target=args["target"], **kw)

    module(f"typedtensor.nn.{_LOSS_NAMES[op_name]}", ctor_spec, (),
           "input:tensor, target:tensor", ops=(op_name,))(forward)


_LOSS_NAMES = {
    "cross_entropy": "CrossEntropyLoss", "nll_loss": "NLLLoss", "mse_loss": "MSELoss", "l1_loss": "L1Loss",
    "binary_cross_entropy": "BCELoss", "binary_cross_entropy_with_logits": "BCEWithLogitsLoss",
}
_loss_module("cross_entropy", "weight:optional_tensor=None, size_average:any=None, ignore_index:int=-100, "
             "reduce:any=None, reduction:str='mean', label_smoothing:float=0.0")
_loss_module("nll_loss", "weight:optional_tensor=None, size_average:any=None, ignore_index:int=-100, "
             "reduce:any=None, reduction:str='mean'")
_loss_module("mse_loss", "size_average:any=None, reduce:any=None, reduction:str='mean'")
_loss_module("l1_loss", "size_average:any=None, reduce:any=None, reduction:str='mean'")
_loss_module("binary_cross_entropy", "weight:optional_tensor=None, size_average:any=None, reduce:any=None, reduction:str='mean'")
_loss_module("binary_cross_entropy_with_logits", "weight:optional_tensor=None, size_average:any=None, reduce:any=None, "
             "reduction:str='mean', pos_weight:optional_tensor=None")

_ = (d_mul, reduce_shape)
