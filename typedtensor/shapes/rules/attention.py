"""``F.multi_head_attention_forward``: torch's functional multi-head attention over sequence-first inputs
(``nn.MultiheadAttention``'s module rule is in modules.py; both run ``_runtime/attention.py``)."""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, DimExpr, as_int, d_add, d_mul, differs, fmt_dim
from ..issue import Issue
from ..registry import Args, Outputs, Result, op
from ..shape import Shape, fmt_shape
from ._common import need_rank

_OP = "multi_head_attention_forward"


def _fixed(x: Any) -> Shape | None:
    return x if isinstance(x, Shape) and x.is_fixed else None


def _literal_differs(a: DimExpr, b: DimExpr) -> bool:
    """For sizes derived from static arguments (``3 * E``, ``N * num_heads``): a literal factor against a
    named dim proves nothing, so only two literal sizes can differ."""
    x, y = as_int(a), as_int(b)
    return x is not None and y is not None and x != y


def _expect(what: str, x: Any, want: tuple[DimExpr, ...], derived: int = -1) -> Issue | None:
    """``x`` (when its shape is known) must be ``want``; its dim ``derived`` is compared as literals only."""
    s = _fixed(x)
    if s is not None and (len(s.dims) != len(want) or any(
            (_literal_differs if i == derived else differs)(a, b) for i, (a, b) in enumerate(zip(s.dims, want,
                                                                                               strict=True)))):
        return Issue("shape-arg", f"{_OP}: {what} must be {fmt_shape(Shape(want))}, got {fmt_shape(s)}")
    return None


@op(_OP, "query:tensor, key:tensor, value:tensor, embed_dim_to_check:int, num_heads:int, "
    "in_proj_weight:optional_tensor, in_proj_bias:optional_tensor, bias_k:optional_tensor, bias_v:optional_tensor, "
    "add_zero_attn:bool, dropout_p:float, out_proj_weight:tensor, out_proj_bias:optional_tensor, training:bool=True, "
    "key_padding_mask:optional_tensor=None, need_weights:bool=True, attn_mask:optional_tensor=None, "
    "use_separate_proj_weight:bool=False, q_proj_weight:optional_tensor=None, k_proj_weight:optional_tensor=None, "
    "v_proj_weight:optional_tensor=None, static_k:optional_tensor=None, static_v:optional_tensor=None, "
    "average_attn_weights:bool=True, is_causal:bool=False", expose="F", python="F", tags=("nn",),
    returns="tuple[_AnyTensor, _AnyTensor | None]", autocast="lower")
def multi_head_attention_forward(args: Args) -> Result:
    """``query`` ``[L, N, E]``, ``key`` / ``value`` ``[S, N, kdim / vdim]`` (unbatched: without ``N``) ->
    (``[L, N, E_out]``, weights ``[N, L, S']`` averaged over the heads or ``[N, H, L, S']``, None without
    ``need_weights``); ``S'`` counts ``bias_k`` and ``add_zero_attn``'s extra key."""
    q, k, v = _fixed(args["query"]), _fixed(args["key"]), _fixed(args["value"])
    names = ("attn_output", "attn_output_weights")
    if q is None:
        return Outputs((UNKNOWN, UNKNOWN), names)
    issue = need_rank(_OP, q, (2, 3), "query")
    if issue:
        return issue
    batched = len(q.dims) == 3
    for what, t in (("key", k), ("value", v)):
        if t is not None and len(t.dims) != len(q.dims):
            return Issue("shape-rank", f"{_OP}: for {'batched (3-D)' if batched else 'unbatched (2-D)'} `query`, "
                                       f"expected `{what}` to be {len(q.dims)}-D, got {len(t.dims)}-D; shape {fmt_shape(t)}")
    if k is None or v is None:
        return Outputs((UNKNOWN, UNKNOWN), names)
    lq, e = q.dims[0], q.dims[-1]
    n: DimExpr = q.dims[1] if batched else 1
    s = k.dims[0]
    if batched and (differs(k.dims[1], n) or differs(v.dims[1], n)):
        return Issue("shape-arg", f"{_OP}: query, key and value must share the batch size (dim 1); shapes "
                                  f"{fmt_shape(q)}, {fmt_shape(k)}, {fmt_shape(v)}")
    ed = args["embed_dim_to_check"]
    if isinstance(ed, int) and _literal_differs(e, ed):
        return Issue("shape-arg", f"{_OP}: was expecting embedding dimension of {ed}, but got {fmt_dim(e)}; "
                                  f"query {fmt_shape(q)}")
    h = args["num_heads"]
    ei = as_int(e)
    if isinstance(h, int) and ei is not None and (h <= 0 or ei % h):
        return Issue("shape-arg", f"{_OP}: embed_dim {ei} not divisible by num_heads {h}")
    separate = args["use_separate_proj_weight"] is True
    if separate:
        if differs(k.dims[0], v.dims[0]):
            return Issue("shape-arg", f"{_OP}: key's and value's sequence lengths differ; shapes {fmt_shape(k)}, "
                                      f"{fmt_shape(v)}")
        issue = (_expect("q_proj_weight", args["q_proj_weight"], (e, e))
                 or _expect("k_proj_weight", args["k_proj_weight"], (e, k.dims[-1]))
                 or _expect("v_proj_weight", args["v_proj_weight"], (e, v.dims[-1])))
    else:
        if len(k.dims) != len(v.dims) or any(differs(a, b) for a, b in zip(k.dims, v.dims, strict=True)):
            return Issue("shape-arg", f"{_OP}: key shape {fmt_shape(k)} does not match value shape {fmt_shape(v)}")
        issue = _expect("key", k, (*k.dims[:-1], e)) or _expect("in_proj_weight", args["in_proj_weight"], (d_mul(3, e), e), 0)
    issue = issue or _expect("in_proj_bias", args["in_proj_bias"], (d_mul(3, e),), 0)
    if issue:
        return issue
    w = _fixed(args["out_proj_weight"])
    e_out: DimExpr = e
    if w is not None:
        if len(w.dims) != 2 or differs(w.dims[1], e):
            return Issue("shape-arg", f"{_OP}: out_proj_weight must be [E_out, {fmt_dim(e)}], got {fmt_shape(w)}")
        e_out = w.dims[0]
    issue = _expect("out_proj_bias", args["out_proj_bias"], (e_out,))
    for what in ("bias_k", "bias_v"):
        issue = issue or _expect(what, args[what], (1, 1, e))
    if issue:
        return issue
    mask = _fixed(args["attn_mask"])
    if mask is not None:
        heads: DimExpr = d_mul(n, h) if isinstance(h, int) else UNKNOWN
        want = (lq, s) if len(mask.dims) == 2 else (heads, lq, s)
        if len(mask.dims) not in (2, 3) or any(
                (_literal_differs if i == 0 and len(want) == 3 else differs)(a, b)
                for i, (a, b) in enumerate(zip(mask.dims, want, strict=True))):
            return Issue("shape-arg", f"{_OP}: attn_mask must be {fmt_shape(Shape((lq, s)))} or "
                                      f"{fmt_shape(Shape((heads, lq, s)))}, got {fmt_shape(mask)}")
    static = args["static_k"] is not None or args["static_v"] is not None
    if not static:
        issue = _expect("key_padding_mask", args["key_padding_mask"], (n, s) if batched else (s,))
        if issue:
            return issue
    out = Shape((lq, n, e_out)) if batched else Shape((lq, e_out))
    if args["need_weights"] is False:
        return Outputs((out, UNKNOWN), names)
    if static or not isinstance(args["need_weights"], bool) or not isinstance(args["add_zero_attn"], bool):
        return Outputs((out, UNKNOWN), names)
    extra = int(args["bias_k"] is not None and args["bias_v"] is not None) + int(args["add_zero_attn"])
    src = d_add(s, extra)
    if args["average_attn_weights"] is True:
        weights = Shape((n, lq, src)) if batched else Shape((lq, src))
    elif args["average_attn_weights"] is False and isinstance(h, int):
        weights = Shape((n, h, lq, src)) if batched else Shape((h, lq, src))
    else:
        return Outputs((out, UNKNOWN), names)
    return Outputs((out, weights), names)
