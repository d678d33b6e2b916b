"""Torch-oracle cases (see ``oracle_cases``) for the convolutions, pools, resampling, normalisation,
activation and loss ops and modules that real programs need (rules/conv.py, resample.py, norm.py,
activations.py, losses.py, transformer.py). Imported at the end of ``oracle_cases``, into whose
``CASES`` / ``MODULE_CASES`` it registers."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from oracle_cases import (  # type: ignore[import-not-found]
    CASES,
    MODULE_CASES,
    POS_SIZE,
    SIZE,
    Case,
    Draw,
    F,
    S,
    T,
    _circular_wraps_cropped,
    _mod,
    axis,
    case,
    nn,
    partner,
    shape,
    torch,
)

Dims = tuple[int, ...]
_SPATIAL = st.sampled_from([1, 2, 3, 4, 5, 6])


def _tuple(draw: Draw, nd: int, values: st.SearchStrategy[int]) -> int | tuple[int, ...]:
    if draw(st.booleans()):
        return int(draw(values))
    return tuple(int(draw(values)) for _ in range(nd))


def _volume(draw: Draw, nd: int, zero: bool = True) -> Dims:
    """A batched or unbatched input with ``nd`` spatial dims (sometimes another rank)."""
    rank = draw(st.sampled_from([nd + 1, nd + 2, nd + 2])) if draw(st.integers(0, 8)) else draw(st.integers(1, 6))
    sizes = st.sampled_from([0, 1, 2, 3, 4, 5, 6]) if zero and not draw(st.integers(0, 4)) else _SPATIAL
    return shape(draw, lo=rank, hi=rank, sizes=sizes)


# ------------------------------------------------------------------------------------------------
# convolutions


def _conv(nd: int, transposed: bool) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = _volume(draw, nd)
        if len(x) >= nd + 1 and x[-nd - 1] == 0:
            x = (*x[: -nd - 1], 1, *x[-nd:])  # zero channels: odd torch shapes, out of scope (as conv2d's)
        groups = draw(st.sampled_from([1, 1, 2]))
        cin = x[-nd - 1] if len(x) > nd and draw(st.integers(0, 5)) else draw(POS_SIZE)
        k = tuple(draw(st.integers(1, 3)) for _ in range(nd))
        if transposed:
            w: Dims = (cin, draw(st.integers(1, 2)), *k)
        else:
            cpg = cin // groups if cin % groups == 0 and draw(st.integers(0, 5)) else draw(POS_SIZE)
            w = (groups * draw(st.integers(1, 2)), cpg, *k)
        if draw(st.integers(0, 10)) == 0:
            w = shape(draw)
        out_c = (w[1] * groups if transposed else w[0]) if len(w) >= 2 else 1
        bias = (out_c,) if draw(st.booleans()) else None
        kw: dict[str, Any] = {"stride": _tuple(draw, nd, st.integers(1, 3)), "dilation": _tuple(draw, nd, st.integers(1, 2)),
                              "groups": groups}
        if transposed:
            kw["padding"] = _tuple(draw, nd, st.integers(0, 2))
            kw["output_padding"] = _tuple(draw, nd, st.integers(0, 2))
        else:
            p = draw(st.sampled_from(["same", "valid", "int", "int", "int"]))
            kw["padding"] = _tuple(draw, nd, st.integers(0, 2)) if p == "int" else p
        name = f"conv_transpose{nd}d" if transposed else f"conv{nd}d"
        return Case("", (S(x), S(w), S(bias) if bias else None), kw,
                    lambda: getattr(F, name)(T(x), T(w), T(bias) if bias else None, **kw))

    return gen


case("conv1d")(_conv(1, False))
case("conv3d")(_conv(3, False))
case("conv_transpose1d")(_conv(1, True))
case("conv_transpose2d")(_conv(2, True))


# ------------------------------------------------------------------------------------------------
# pools


def _pool(name: str, nd: int, dilation: bool) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = _volume(draw, nd)
        kw: dict[str, Any] = {"kernel_size": _tuple(draw, nd, st.integers(1, 4))}
        if draw(st.booleans()):
            kw["stride"] = _tuple(draw, nd, st.integers(1, 3))
        if draw(st.booleans()):
            kw["padding"] = _tuple(draw, nd, st.integers(0, 2))
        if dilation and draw(st.booleans()):
            kw["dilation"] = _tuple(draw, nd, st.integers(1, 2))
        kw["ceil_mode"] = draw(st.booleans())
        return Case("", (S(x),), kw, lambda: getattr(F, name)(T(x), **kw))

    return gen


for _name, _nd, _dil in (("max_pool1d", 1, True), ("max_pool3d", 3, True), ("avg_pool1d", 1, False),
                         ("avg_pool3d", 3, False)):
    case(_name)(_pool(_name, _nd, _dil))


def _unpool_args(draw: Draw, nd: int) -> tuple[Dims, Dims, dict[str, Any]]:
    """A pooled input, its indices' shape (index 0, always valid, unless the shapes differ) and the
    unpool's geometry; output_size near the default, sometimes out of torch's range."""
    x = _volume(draw, nd)
    idx = x if draw(st.integers(0, 5)) else _volume(draw, nd)
    k = _tuple(draw, nd, st.integers(1, 3))
    kw: dict[str, Any] = {"kernel_size": k}
    if draw(st.booleans()):
        kw["stride"] = _tuple(draw, nd, st.integers(1, 3))
    if draw(st.booleans()):
        kw["padding"] = _tuple(draw, nd, st.integers(0, 1))
    if draw(st.booleans()) and len(x) >= nd:
        ks, ss, ps = (v if isinstance(v, tuple) else (v,) * nd for v in (
            k, kw.get("stride", k), kw.get("padding", 0)))
        size = [(x[len(x) - nd + i] - 1) * ss[i] + ks[i] - 2 * ps[i] + draw(st.integers(-2, 2)) for i in range(nd)]
        kw["output_size"] = tuple(x[:2]) + tuple(size) if draw(st.integers(0, 3)) == 0 and len(x) == nd + 2 else \
            tuple(size)
    return x, idx, kw


def _unpool(name: str, nd: int) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x, idx, kw = _unpool_args(draw, nd)
        return Case("", (S(x), S(idx)), kw, lambda: getattr(F, name)(T(x), T(idx, "l"), **kw))

    return gen


def _lp(name: str, nd: int) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = _volume(draw, nd)
        p = draw(st.sampled_from([1.0, 2.0, 3.0, float("inf")]))
        k = _tuple(draw, nd, st.integers(1, 4)) if nd > 1 else draw(st.integers(1, 4))
        stride = _tuple(draw, nd, st.integers(1, 3)) if draw(st.booleans()) else None
        cm = draw(st.booleans())
        return Case("", (S(x), p, k), {"stride": stride, "ceil_mode": cm},
                    lambda: getattr(F, name)(T(x), p, k, stride, cm))

    return gen


for _nd in (1, 2, 3):
    case(f"max_unpool{_nd}d")(_unpool(f"max_unpool{_nd}d", _nd))
    case(f"lp_pool{_nd}d")(_lp(f"lp_pool{_nd}d", _nd))


def _adaptive(name: str, nd: int) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        # non-empty inputs (torch's empty-input paths differ between ranks) of the pool's ranks:
        # torch's adaptive pools also take other ranks in places (DELIBERATE "pool-rank")
        rank = draw(st.sampled_from([nd + 1, nd + 2]))
        x = shape(draw, lo=rank, hi=rank, sizes=_SPATIAL)
        size: Any = draw(st.integers(1, 4)) if draw(st.booleans()) or nd == 1 else tuple(
            draw(st.one_of(st.none(), st.integers(1, 4))) for _ in range(nd))
        return Case("", (S(x), size), {}, lambda: getattr(F, name)(T(x), size))

    return gen


for _name, _nd in (("adaptive_avg_pool1d", 1), ("adaptive_avg_pool3d", 3), ("adaptive_max_pool1d", 1),
                   ("adaptive_max_pool2d", 2), ("adaptive_max_pool3d", 3)):
    case(_name)(_adaptive(_name, _nd))


# ------------------------------------------------------------------------------------------------
# resampling


@case("interpolate")
def _interpolate(draw: Draw) -> Case:
    rank = draw(st.sampled_from([3, 4, 5])) if draw(st.integers(0, 8)) else draw(st.integers(1, 6))
    x = shape(draw, lo=rank, hi=rank, sizes=_SPATIAL)
    nd = max(rank - 2, 1)
    mode = draw(st.sampled_from(["nearest", "nearest-exact", "area", "linear", "bilinear", "bicubic", "trilinear"]))
    kw: dict[str, Any] = {"mode": mode}
    if draw(st.booleans()):
        kw["size"] = _tuple(draw, nd, st.integers(1, 7))
    else:
        kw["scale_factor"] = draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0])) if draw(st.booleans()) else tuple(
            draw(st.sampled_from([0.5, 1.0, 2.0, 2.5])) for _ in range(nd))
    return Case("", (S(x),), kw, lambda: F.interpolate(T(x), **kw))


@case("pixel_shuffle", "pixel_unshuffle")
def _shuffle(draw: Draw) -> Case:
    x = shape(draw, lo=2, hi=5, sizes=st.sampled_from([1, 2, 3, 4, 6, 8]))
    r = draw(st.integers(1, 3))
    c = Case("", (S(x), r), {}, lambda: None)
    c.torch_fn = lambda: getattr(F, c.op)(T(x), r)
    return c


def _geometry(draw: Draw) -> dict[str, Any]:
    return {"kernel_size": _tuple(draw, 2, st.integers(1, 3)), "dilation": _tuple(draw, 2, st.integers(1, 2)),
            "padding": _tuple(draw, 2, st.integers(0, 1)), "stride": _tuple(draw, 2, st.integers(1, 2))}


@case("unfold")
def _unfold(draw: Draw) -> Case:
    x = _volume(draw, 2)
    kw = _geometry(draw)
    return Case("", (S(x),), kw, lambda: F.unfold(T(x), **kw))


@case("fold")
def _fold(draw: Draw) -> Case:
    kw = _geometry(draw)
    out = (draw(_SPATIAL), draw(_SPATIAL))
    k = kw["kernel_size"] if isinstance(kw["kernel_size"], tuple) else (kw["kernel_size"],) * 2
    c = draw(st.integers(1, 2)) * k[0] * k[1] if draw(st.integers(0, 5)) else draw(POS_SIZE)
    blocks = draw(st.integers(1, 12))
    if draw(st.integers(0, 2)):  # usually the right number of blocks
        # no block fits: torch raises RuntimeError, typedtensor (standing in for torch) ShapeError
        with torch.no_grad(), contextlib.suppress(RuntimeError, ValueError):
            blocks = int(F.unfold(torch.zeros(1, 1, *out), **kw).shape[-1])
    x = (draw(POS_SIZE), c, blocks) if draw(st.integers(0, 3)) else (c, blocks)
    return Case("", (S(x), out), kw, lambda: F.fold(T(x), out, **kw))


@case("embedding_bag")
def _embedding_bag(draw: Draw) -> Case:
    v, d = draw(POS_SIZE), draw(SIZE)
    two_d = draw(st.booleans())
    idx = (draw(POS_SIZE), draw(POS_SIZE)) if two_d else (draw(POS_SIZE),)
    kw: dict[str, Any] = {"mode": draw(st.sampled_from(["sum", "mean", "max"]))}
    offsets: Dims | None = None
    if not two_d:
        kw["include_last_offset"] = draw(st.booleans())
        # torch 2.13 crashes (SIGSEGV) on zero bags in mode 'max': a single offset with include_last_offset
        offsets = (draw(st.integers(2 if kw["include_last_offset"] and kw["mode"] == "max" else 1, 3)),)

    def run() -> Any:
        off = None if offsets is None else torch.zeros(offsets, dtype=torch.long)
        return F.embedding_bag(T(idx, "l"), T((v, d)), off, **kw)

    return Case("", (S(idx), S((v, d)), S(offsets) if offsets else None), kw, run)


# ------------------------------------------------------------------------------------------------
# normalisation


@case("instance_norm")
def _instance_norm(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=5, sizes=POS_SIZE)
    c = x[1] if len(x) > 1 else 2
    w = ((c,) if draw(st.integers(0, 5)) else (draw(POS_SIZE),)) if draw(st.booleans()) else None
    return Case("", (S(x), None, None, S(w) if w else None), {},
                lambda: F.instance_norm(T(x), weight=T(w) if w else None))


@case("local_response_norm")
def _lrn(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=5, sizes=POS_SIZE)
    size = draw(st.integers(1, 4))
    return Case("", (S(x), size), {}, lambda: F.local_response_norm(T(x), size))


@case("rms_norm")
def _rms_norm(draw: Draw) -> Case:
    x = shape(draw)
    k = draw(st.integers(1, 2))
    ns = x[len(x) - k:] if k <= len(x) and draw(st.integers(0, 4)) else shape(draw, lo=1, hi=2)
    w = (ns if draw(st.integers(0, 4)) else shape(draw, lo=1, hi=2)) if draw(st.booleans()) else None
    return Case("", (S(x), ns, S(w) if w else None), {}, lambda: F.rms_norm(T(x), ns, T(w) if w else None))


# ------------------------------------------------------------------------------------------------
# activations


def _f_unary(name: str, *args: Any) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        s = shape(draw)
        return Case(name, (S(s), *args), {}, lambda: getattr(F, name)(T(s), *args))

    return gen


for _name in ("celu", "selu", "hardshrink", "softshrink", "tanhshrink", "rrelu", "mish", "relu6", "hardsigmoid",
              "hardswish"):
    case(_name)(_f_unary(_name))
case("threshold")(_f_unary("threshold", 0.5, 2.0))


@case("glu")
def _glu(draw: Draw) -> Case:
    s = shape(draw)
    d = axis(draw, len(s))
    return Case("", (S(s), d), {}, lambda: F.glu(T(s), d))


@case("softmin")
def _softmin(draw: Draw) -> Case:
    s = shape(draw)
    d = axis(draw, len(s))
    return Case("", (S(s), d), {}, lambda: F.softmin(T(s), d))


@case("prelu")
def _prelu(draw: Draw) -> Case:
    s = shape(draw, sizes=POS_SIZE)
    w = (draw(st.sampled_from([1, 2, 3])),)
    return Case("", (S(s), S(w)), {}, lambda: F.prelu(T(s), T(w)))


# ------------------------------------------------------------------------------------------------
# losses and distances


def _same_loss(name: str, extra: Callable[[Dims], tuple[Any, ...]] | None = None, positive: bool = False) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = shape(draw)
        y = x if draw(st.integers(0, 4)) else partner(draw, x)
        red = draw(st.sampled_from(["mean", "sum", "none"]))
        kind = "p" if positive else "f"
        c = Case(name, (S(x), S(y)), {"reduction": red}, lambda: getattr(F, name)(T(x, kind), T(y, kind), reduction=red))
        if tuple(x) != tuple(y):
            c.deliberate = "loss-broadcast"
            try:
                torch.broadcast_shapes(x, y)
            except RuntimeError:
                c.deliberate = None
        return c

    return gen


for _name in ("kl_div", "soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss"):
    case(_name)(_same_loss(_name, positive=_name == "poisson_nll_loss"))


@case("multilabel_soft_margin_loss")
def _mlsm(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=3, sizes=POS_SIZE)
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    return Case("", (S(x), S(x)), {"reduction": red},
                lambda: F.multilabel_soft_margin_loss(T(x), T(x, "p"), reduction=red))


@case("margin_ranking_loss")
def _mrl(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    y = x if draw(st.integers(0, 5)) else shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    c = Case("", (S(x), S(x), S(y)), {"reduction": red},
             lambda: F.margin_ranking_loss(T(x), T(x), T(y), reduction=red))
    if tuple(x) != tuple(y):
        c.deliberate = "loss-broadcast"
        try:
            torch.broadcast_shapes(x, y)
        except RuntimeError:
            c.deliberate = None
    return c


@case("cosine_similarity")
def _cos(draw: Draw) -> Case:
    a = shape(draw, lo=1, sizes=POS_SIZE)
    b = partner(draw, a) if draw(st.integers(0, 3)) else a
    d = axis(draw, max(len(a), len(b)))
    return Case("", (S(a), S(b)), {"dim": d}, lambda: F.cosine_similarity(T(a), T(b), dim=d))


@case("pairwise_distance")
def _pd(draw: Draw) -> Case:
    a = shape(draw, lo=1, hi=3, sizes=POS_SIZE)
    b = a if draw(st.integers(0, 3)) else partner(draw, a, hi=3)
    keep = draw(st.booleans())
    return Case("", (S(a), S(b)), {"keepdim": keep}, lambda: F.pairwise_distance(T(a), T(b), keepdim=keep))


@case("cosine_embedding_loss")
def _cel(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    y = x[:1] if len(x) == 2 and draw(st.integers(0, 4)) else (() if draw(st.booleans()) else (draw(POS_SIZE),))
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    return Case("", (S(x), S(x), S(y)), {"reduction": red},
                lambda: F.cosine_embedding_loss(T(x), T(x), T(y).sign(), reduction=red))


@case("gaussian_nll_loss")
def _gnll(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=3, sizes=POS_SIZE)
    v = draw(st.sampled_from([x, (*x[:-1], 1), x[:-1]])) if draw(st.integers(0, 4)) else shape(draw, sizes=POS_SIZE)
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    return Case("", (S(x), S(x), S(v)), {"reduction": red},
                lambda: F.gaussian_nll_loss(T(x), T(x), T(v, "p"), reduction=red))


@case("multi_margin_loss")
def _mml(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    y = x[:1] if len(x) == 2 and draw(st.integers(0, 4)) else shape(draw, hi=1, sizes=POS_SIZE)
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    return Case("", (S(x), S(y)), {"reduction": red}, lambda: F.multi_margin_loss(T(x), T(y, "l"), reduction=red))


@case("ctc_loss")
def _ctc(draw: Draw) -> Case:
    rank = draw(st.sampled_from([3, 3, 3, 2, 2, 4])) if draw(st.integers(0, 8)) else draw(st.integers(1, 4))
    lp = shape(draw, lo=rank, hi=rank, sizes=POS_SIZE if draw(st.integers(0, 8)) else SIZE)
    t = lp[0] if lp else 1
    n = lp[1] if len(lp) == 3 else 1
    in_len = [draw(st.integers(0, max(t, 0))) for _ in range(n)]
    tg_len = [min(draw(st.integers(0, 3)), v) for v in in_len]
    padded = draw(st.booleans())
    rows = n if draw(st.integers(0, 6)) else draw(SIZE)
    tg: Dims = (rows, max(tg_len, default=0) + draw(st.integers(0, 1))) if padded else (sum(tg_len),)
    if draw(st.integers(0, 10)) == 0:
        tg = shape(draw, hi=3)
    as_tensor = draw(st.booleans())
    count = n if draw(st.integers(0, 6)) else draw(SIZE)
    in_len = (in_len + [0] * count)[:count]
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    # torch takes both lengths as tensors or both as tuples
    kw = {"input_lengths": S((count,)) if as_tensor else tuple(in_len),
          "target_lengths": S((n,)) if as_tensor else tuple(tg_len), "reduction": red}

    def run() -> Any:
        lengths = ((torch.tensor(in_len, dtype=torch.long), torch.tensor(tg_len, dtype=torch.long)) if as_tensor
                   else (tuple(in_len), tuple(tg_len)))
        return F.ctc_loss(T(lp).log_softmax(-1), T(tg, "l"), *lengths, reduction=red)

    return Case("", (S(lp), S(tg)), kw, run)


@case("multi_head_attention_forward")
def _mha_forward(draw: Draw) -> Case:
    batched = draw(st.booleans())
    heads, hd = draw(st.sampled_from([1, 2])), draw(st.integers(1, 3))
    e, lq, src, n = heads * hd, draw(POS_SIZE), draw(POS_SIZE), draw(POS_SIZE)
    separate = draw(st.booleans())
    kdim = draw(POS_SIZE) if separate else e
    seq = (lambda length, d: (length, n, d)) if batched else (lambda length, d: (length, d))
    q, k = seq(lq, e), seq(src, kdim)
    v = k
    broken = draw(st.sampled_from(["none", "none", "none", "key", "value", "check", "weight", "mask", "kpm", "out"]))
    if broken == "key":
        k = shape(draw, lo=1, hi=4)
    elif broken == "value":
        v = shape(draw, lo=1, hi=4)
    check_dim = draw(POS_SIZE) if broken == "check" else e
    w_in = (3 * e, e) if broken != "weight" else shape(draw, lo=1, hi=3)
    out_w = (draw(POS_SIZE), e) if broken != "out" else shape(draw, lo=1, hi=3)
    mask_kind = draw(st.sampled_from([None, "2d", "3d"]))
    mask = None if mask_kind is None else ((lq, src) if mask_kind == "2d" else (n * heads if batched else heads, lq, src))
    if broken == "mask":
        mask = shape(draw, lo=1, hi=3)
    kpm = ((n, src) if batched else (src,)) if draw(st.booleans()) else None
    if broken == "kpm":
        kpm = shape(draw, lo=1, hi=2)
    bias_kv, zero = draw(st.booleans()), draw(st.booleans())
    need, average = draw(st.booleans()), draw(st.booleans())
    tensors = {"in_proj_weight": None if separate else w_in, "in_proj_bias": (3 * e,), "bias_k": (1, 1, e) if bias_kv else None,
               "bias_v": (1, 1, e) if bias_kv else None, "out_proj_weight": out_w,
               "out_proj_bias": out_w[:1] if len(out_w) == 2 else None, "key_padding_mask": kpm, "attn_mask": mask,
               "q_proj_weight": (e, e) if separate else None, "k_proj_weight": (e, k[-1] if k else 1) if separate else None,
               "v_proj_weight": (e, v[-1] if v else 1) if separate else None}
    flags = {"add_zero_attn": zero, "need_weights": need, "average_attn_weights": average,
             "use_separate_proj_weight": separate}
    kw = {"embed_dim_to_check": check_dim, "num_heads": heads, "dropout_p": 0.0, **flags,
          **{name: None if d is None else S(d) for name, d in tensors.items()}}

    def run() -> Any:
        made = {name: None if d is None else (T(d, "b") if name == "key_padding_mask" else T(d))
                for name, d in tensors.items()}
        return F.multi_head_attention_forward(
            T(q), T(k), T(v), check_dim, heads, made["in_proj_weight"], made["in_proj_bias"], made["bias_k"],
            made["bias_v"], zero, 0.0, made["out_proj_weight"], made["out_proj_bias"], training=False,
            key_padding_mask=made["key_padding_mask"], need_weights=need, attn_mask=made["attn_mask"],
            use_separate_proj_weight=separate, q_proj_weight=made["q_proj_weight"], k_proj_weight=made["k_proj_weight"],
            v_proj_weight=made["v_proj_weight"], average_attn_weights=average)

    return Case("", (S(q), S(k), S(v)), kw, run)


@case("multilabel_margin_loss")
def _mlml(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    y = x if draw(st.integers(0, 4)) else shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    return Case("", (S(x), S(y)), {"reduction": red}, lambda: F.multilabel_margin_loss(T(x), T(y, "l"), reduction=red))


@case("triplet_margin_loss", "triplet_margin_with_distance_loss")
def _triplet(draw: Draw) -> Case:
    a = shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    p = a if draw(st.integers(0, 4)) else shape(draw, lo=1, hi=2, sizes=POS_SIZE)
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    c = Case("", (S(a), S(p), S(a)), {"reduction": red}, lambda: None)
    c.torch_fn = lambda: getattr(F, c.op)(T(a), T(p), T(a), reduction=red)
    return c


# ------------------------------------------------------------------------------------------------
# modules


def _m_conv(cls: str, nd: int) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = _volume(draw, nd, zero=False)
        cin = x[-nd - 1] if len(x) > nd and draw(st.integers(0, 5)) else draw(POS_SIZE)
        k = _tuple(draw, nd, st.integers(1, 3))
        kw: dict[str, Any] = {"stride": _tuple(draw, nd, st.integers(1, 2)), "padding": _tuple(draw, nd, st.integers(0, 1))}
        if cls.startswith("ConvTranspose") and draw(st.booleans()):
            kw["output_padding"] = _tuple(draw, nd, st.integers(0, 1))
        return _mod(cls, ((cin, 2, k), kw), lambda: getattr(nn, cls)(cin, 2, k, **kw), x)

    return gen


def _m_pool(cls: str, fn: str, nd: int, dilation: bool) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        c = _pool(fn, nd, dilation)(draw)
        kw = dict(c.kw)
        k = kw.pop("kernel_size")
        x = c.pos[0].dims
        return _mod(cls, ((k,), kw), lambda: getattr(nn, cls)(k, **kw), tuple(int(d) for d in x))

    return gen


def _m_unpool(nd: int) -> Callable[[Draw], Case]:
    cls = f"MaxUnpool{nd}d"

    def gen(draw: Draw) -> Case:
        x, idx, kw = _unpool_args(draw, nd)
        k, size = kw.pop("kernel_size"), kw.pop("output_size", None)
        return Case(cls, (S(x), S(idx)), {"output_size": size},
                    lambda: getattr(nn, cls)(k, **kw)(T(x), T(idx, "l"), output_size=size),
                    module=f"typedtensor.nn.{cls}", ctor=((k,), kw))

    return gen


def _m_lp(nd: int) -> Callable[[Draw], Case]:
    cls = f"LPPool{nd}d"

    def gen(draw: Draw) -> Case:
        c = _lp(f"lp_pool{nd}d", nd)(draw)
        x, p, k = c.pos
        kw = dict(c.kw)
        return _mod(cls, ((p, k), kw), lambda: getattr(nn, cls)(p, k, **kw), tuple(int(d) for d in x.dims))

    return gen


def _m_adaptive(cls: str, fn: str, nd: int) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        c = _adaptive(fn, nd)(draw)
        size = c.pos[1]
        x = tuple(int(d) for d in c.pos[0].dims)
        return _mod(cls, ((size,), {}), lambda: getattr(nn, cls)(size), x)

    return gen


def _m_simple(cls: str, gen_ctor: Callable[[Draw, Dims], tuple[tuple[Any, ...], dict[str, Any]]],
              x_of: Callable[[Draw], Dims], kind: str = "f") -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        x = x_of(draw)
        args, kw = gen_ctor(draw, x)
        return _mod(cls, (args, kw), lambda: getattr(nn, cls)(*args, **kw), x, kind=kind)

    return gen


def _image4(draw: Draw) -> Dims:
    return shape(draw, lo=4, hi=4, sizes=st.sampled_from([1, 2, 3, 4, 6]))


def _norm_input(draw: Draw, nd: int) -> Dims:
    rank = draw(st.sampled_from([nd + 1, nd + 2, nd + 2])) if draw(st.integers(0, 6)) else draw(st.integers(1, 6))
    return shape(draw, lo=rank, hi=rank, sizes=st.sampled_from([2, 3, 4]))


def _channels(draw: Draw, x: Dims, nd: int) -> int:
    return x[-nd - 1] if len(x) > nd and draw(st.integers(0, 4)) else draw(POS_SIZE)


MODULE_CASES.update({
    "typedtensor.nn.Conv1d": _m_conv("Conv1d", 1), "typedtensor.nn.Conv3d": _m_conv("Conv3d", 3),
    "typedtensor.nn.ConvTranspose1d": _m_conv("ConvTranspose1d", 1),
    "typedtensor.nn.ConvTranspose2d": _m_conv("ConvTranspose2d", 2),
    "typedtensor.nn.MaxPool1d": _m_pool("MaxPool1d", "max_pool1d", 1, True),
    "typedtensor.nn.MaxPool3d": _m_pool("MaxPool3d", "max_pool3d", 3, True),
    "typedtensor.nn.AvgPool1d": _m_pool("AvgPool1d", "avg_pool1d", 1, False),
    "typedtensor.nn.AvgPool3d": _m_pool("AvgPool3d", "avg_pool3d", 3, False),
    "typedtensor.nn.AdaptiveAvgPool1d": _m_adaptive("AdaptiveAvgPool1d", "adaptive_avg_pool1d", 1),
    "typedtensor.nn.AdaptiveAvgPool3d": _m_adaptive("AdaptiveAvgPool3d", "adaptive_avg_pool3d", 3),
    "typedtensor.nn.AdaptiveMaxPool1d": _m_adaptive("AdaptiveMaxPool1d", "adaptive_max_pool1d", 1),
    "typedtensor.nn.AdaptiveMaxPool2d": _m_adaptive("AdaptiveMaxPool2d", "adaptive_max_pool2d", 2),
    "typedtensor.nn.AdaptiveMaxPool3d": _m_adaptive("AdaptiveMaxPool3d", "adaptive_max_pool3d", 3),
    **{f"typedtensor.nn.MaxUnpool{nd}d": _m_unpool(nd) for nd in (1, 2, 3)},
    **{f"typedtensor.nn.LPPool{nd}d": _m_lp(nd) for nd in (1, 2, 3)},
    "typedtensor.nn.Upsample": _m_simple("Upsample", lambda d, x: ((), {"scale_factor": d(st.sampled_from([1, 2, 3]))}),
                                         _image4),
    "typedtensor.nn.UpsamplingNearest2d": _m_simple("UpsamplingNearest2d", lambda d, x: ((), {"size": (3, 5)}), _image4),
    "typedtensor.nn.UpsamplingBilinear2d": _m_simple("UpsamplingBilinear2d", lambda d, x: ((), {"scale_factor": 2}),
                                                     _image4),
    # the module's rule sees only the input (its ctor's groups are the op's business at run time): valid groups
    "typedtensor.nn.ChannelShuffle": _m_simple("ChannelShuffle", lambda d, x: ((d(st.sampled_from([1, x[1]])),), {}),
                                               _image4),
    "typedtensor.nn.PixelShuffle": _m_simple("PixelShuffle", lambda d, x: ((d(st.integers(1, 2)),), {}), _image4),
    "typedtensor.nn.PixelUnshuffle": _m_simple("PixelUnshuffle", lambda d, x: ((d(st.integers(1, 2)),), {}), _image4),
    "typedtensor.nn.Unfold": _m_simple("Unfold", lambda d, x: ((2,), {"padding": d(st.integers(0, 1))}), _image4),
    "typedtensor.nn.Fold": _m_simple("Fold", lambda d, x: (((4, 5), 2), {}),
                                     lambda d: (d(st.integers(1, 2)), 4 * d(st.integers(1, 2)), 12)),
    "typedtensor.nn.GroupNorm": _m_simple("GroupNorm", lambda d, x: ((d(st.sampled_from([1, 2])), _channels(d, x, len(x) - 2)), {}),
                                          lambda d: _norm_input(d, 2)),
    "typedtensor.nn.BatchNorm3d": _m_simple("BatchNorm3d", lambda d, x: ((_channels(d, x, 3),), {}),
                                            lambda d: _norm_input(d, 3)),
    "typedtensor.nn.LocalResponseNorm": _m_simple("LocalResponseNorm", lambda d, x: ((2,), {}), lambda d: _norm_input(d, 2)),
    "typedtensor.nn.RMSNorm": _m_simple("RMSNorm", lambda d, x: ((x[-1:] if x and d(st.integers(0, 3)) else (3,),), {}),
                                        lambda d: shape(d, lo=1, sizes=POS_SIZE)),
    "typedtensor.nn.EmbeddingBag": _m_simple("EmbeddingBag", lambda d, x: ((5, d(POS_SIZE)), {"mode": "sum"}),
                                             lambda d: (d(POS_SIZE), d(POS_SIZE)), kind="l"),  # indices; torch fails on a 0-wide table
})
for _nd in (1, 2, 3):
    MODULE_CASES[f"typedtensor.nn.InstanceNorm{_nd}d"] = _m_simple(
        f"InstanceNorm{_nd}d", lambda d, x, nd=_nd: ((_channels(d, x, nd),), {"affine": True}),
        lambda d, nd=_nd: _norm_input(d, nd))


def _m_elementwise(cls: str, args: tuple[Any, ...] = ()) -> Callable[[Draw], Case]:
    return _m_simple(cls, lambda d, x: (args, {}), lambda d: shape(d))


for _cls, _args in (("ELU", ()), ("CELU", ()), ("SELU", ()), ("Hardshrink", ()), ("Softshrink", ()), ("Tanhshrink", ()),
                    ("Threshold", (0.1, 1.0)), ("RReLU", ()), ("Hardsigmoid", ()), ("Hardswish", ()), ("Hardtanh", ()),
                    ("ReLU6", ()), ("LogSigmoid", ()), ("Mish", ())):
    MODULE_CASES[f"typedtensor.nn.{_cls}"] = _m_elementwise(_cls, _args)

MODULE_CASES["typedtensor.nn.GLU"] = _m_simple("GLU", lambda d, x: ((axis(d, len(x)),), {}), lambda d: shape(d))
MODULE_CASES["typedtensor.nn.Softmin"] = _m_simple("Softmin", lambda d, x: ((axis(d, len(x)),), {}), lambda d: shape(d))
MODULE_CASES["typedtensor.nn.Softmax2d"] = _m_simple("Softmax2d", lambda d, x: ((), {}), lambda d: shape(d, lo=3, hi=5))
MODULE_CASES["typedtensor.nn.PReLU"] = _m_simple(
    "PReLU", lambda d, x: ((d(st.sampled_from([1, x[1] if len(x) > 1 else 1, 3])),), {}),
    lambda d: shape(d, lo=1, sizes=POS_SIZE))


def _m_loss(cls: str, op_name: str, inputs: int = 2) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        c = CASES[op_name](draw)
        red = c.kw.get("reduction", "mean")
        tensors = tuple(p for p in c.pos[:inputs])
        return Case(cls, tensors, {}, c.torch_fn, deliberate=c.deliberate, module=f"typedtensor.nn.{cls}",
                    ctor=((), {"reduction": red}))

    return gen


for _cls, _op, _n in (
    ("KLDivLoss", "kl_div", 2), ("SoftMarginLoss", "soft_margin_loss", 2),
    ("HingeEmbeddingLoss", "hinge_embedding_loss", 2), ("PoissonNLLLoss", "poisson_nll_loss", 2),
    ("MultiLabelSoftMarginLoss", "multilabel_soft_margin_loss", 2), ("MultiMarginLoss", "multi_margin_loss", 2),
    ("MultiLabelMarginLoss", "multilabel_margin_loss", 2), ("MarginRankingLoss", "margin_ranking_loss", 3),
    ("CosineEmbeddingLoss", "cosine_embedding_loss", 3), ("GaussianNLLLoss", "gaussian_nll_loss", 3),
    ("TripletMarginLoss", "triplet_margin_loss", 3),
    ("TripletMarginWithDistanceLoss", "triplet_margin_with_distance_loss", 3),
    ("HuberLoss", "huber_loss", 2), ("SmoothL1Loss", "smooth_l1_loss", 2), ("NLLLoss2d", "nll_loss", 2),
):
    MODULE_CASES[f"typedtensor.nn.{_cls}"] = _m_loss(_cls, _op, _n)


def _m_ctc(draw: Draw) -> Case:
    c = CASES["ctc_loss"](draw)
    kw = {k: v for k, v in c.kw.items() if k != "reduction"}
    return Case("CTCLoss", c.pos, kw, c.torch_fn, module="typedtensor.nn.CTCLoss",
                ctor=((), {"reduction": c.kw["reduction"]}))


MODULE_CASES["typedtensor.nn.CTCLoss"] = _m_ctc


def _m_adaptive_log_softmax(draw: Draw) -> Case:
    x = shape(draw, lo=1, hi=2) if draw(st.integers(0, 6)) else shape(draw, hi=3)
    y = x[:1] if len(x) == 2 and draw(st.integers(0, 4)) else (() if len(x) == 1 and draw(st.integers(0, 2))
                                                              else shape(draw, hi=2))
    f = x[-1] if x and x[-1] > 0 and draw(st.integers(0, 5)) else draw(POS_SIZE)
    n_classes = 10
    cutoffs = draw(st.sampled_from([[4], [2, 6], [3, 5, 8]]))
    return Case("AdaptiveLogSoftmaxWithLoss", (S(x), S(y)), {},
                lambda: nn.AdaptiveLogSoftmaxWithLoss(f, n_classes, cutoffs)(T(x), T(y, "l")),
                module="typedtensor.nn.AdaptiveLogSoftmaxWithLoss", ctor=((f, n_classes, cutoffs), {}))


MODULE_CASES["typedtensor.nn.AdaptiveLogSoftmaxWithLoss"] = _m_adaptive_log_softmax


def _m_distance(cls: str, op_name: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        c = CASES[op_name](draw)
        kw = {k: v for k, v in c.kw.items() if k in ("dim", "keepdim")}
        return Case(cls, c.pos, {}, c.torch_fn, module=f"typedtensor.nn.{cls}", ctor=((), kw))

    return gen


MODULE_CASES["typedtensor.nn.CosineSimilarity"] = _m_distance("CosineSimilarity", "cosine_similarity")
MODULE_CASES["typedtensor.nn.PairwiseDistance"] = _m_distance("PairwiseDistance", "pairwise_distance")


def _m_transformer(cls: str) -> Callable[[Draw], Case]:
    def gen(draw: Draw) -> Case:
        e, heads = 4, 2
        bf = draw(st.booleans())
        n, s, t = draw(POS_SIZE), draw(POS_SIZE), draw(POS_SIZE)
        feat = e if draw(st.integers(0, 4)) else draw(POS_SIZE)
        nt = n if draw(st.integers(0, 4)) else draw(POS_SIZE)
        src = (n, s, feat) if bf else (s, n, feat)
        tgt = (nt, t, e) if bf else (t, nt, e)
        kw = {"dim_feedforward": 8, "batch_first": bf}
        if cls == "TransformerEncoderLayer":
            return Case(cls, (S(src),), {}, lambda: nn.TransformerEncoderLayer(e, heads, **kw).eval()(T(src)),
                        module=f"typedtensor.nn.{cls}", ctor=((e, heads), kw))
        if cls == "TransformerDecoderLayer":
            return Case(cls, (S(tgt), S(src)), {},
                        lambda: nn.TransformerDecoderLayer(e, heads, **kw).eval()(T(tgt), T(src)),
                        module=f"typedtensor.nn.{cls}", ctor=((e, heads), kw))
        if cls == "TransformerEncoder":
            return Case(cls, (S(src),), {}, lambda: nn.TransformerEncoder(
                nn.TransformerEncoderLayer(feat, 1, **kw), 1).eval()(T(src)), module=f"typedtensor.nn.{cls}",
                ctor=((None, 1), {}))
        if cls == "TransformerDecoder":  # the stack knows no d_model or layout: only the ranks are checked
            tgt, src = ((n, t, e), (n, s, e)) if bf else ((t, n, e), (s, n, e))
            return Case(cls, (S(tgt), S(src)), {}, lambda: nn.TransformerDecoder(
                nn.TransformerDecoderLayer(e, heads, **kw), 1).eval()(T(tgt), T(src)), module=f"typedtensor.nn.{cls}",
                ctor=((None, 1), {}))
        return Case(cls, (S(src), S(tgt)), {}, lambda: nn.Transformer(
            e, heads, 1, 1, **kw).eval()(T(src), T(tgt)), module=f"typedtensor.nn.{cls}",
            ctor=((e, heads), {**kw, "num_encoder_layers": 1, "num_decoder_layers": 1}))

    return gen


for _cls in ("Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer"):
    MODULE_CASES[f"typedtensor.nn.{_cls}"] = _m_transformer(_cls)



def _m_padding(cls: str, nd: int) -> Callable[[Draw], Case]:
    """A padding module: an int for every side, or F.pad's tuple (last dim first; negative values
    crop); circular padding that wraps more than once around what the cropping leaves is F.pad's
    deliberate difference (torch returns uninitialised memory there)."""
    constant = cls.startswith("Constant")

    def gen(draw: Draw) -> Case:
        x = _norm_input(draw, nd)
        padding: Any = (draw(st.integers(0, 3)) if draw(st.booleans())
                        else tuple(draw(st.integers(-1, 3)) for _ in range(2 * nd)))
        args = (padding, 1.5) if constant else (padding,)
        pads = (padding,) * (2 * nd) if isinstance(padding, int) else padding
        wraps = cls.startswith("Circular") and len(x) > nd and any(
            _circular_wraps_cropped(x[len(x) - 1 - i], pads[2 * i], pads[2 * i + 1]) for i in range(nd))
        return _mod(cls, (args, {}), lambda: getattr(nn, cls)(*args), x,
                    deliberate="circular-pad-wraps-cropped" if wraps else None)

    return gen


for _nd in (1, 2, 3):
    for _kind in ("Reflection", "Replication", "Circular", "Zero", "Constant"):
        MODULE_CASES[f"typedtensor.nn.{_kind}Pad{_nd}d"] = _m_padding(f"{_kind}Pad{_nd}d", _nd)
