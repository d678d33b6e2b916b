"""Resampling and patch ops: ``interpolate`` (and ``nn.Upsample``), ``pixel_shuffle`` /
``pixel_unshuffle``, ``unfold`` / ``fold`` (im2col and its adjoint), ``embedding_bag``; and their
``nn`` modules."""

from __future__ import annotations

import math
from typing import Any

from ..dims import (
    UNKNOWN,
    DimExpr,
    Unknown,
    as_int,
    d_exact_div,
    d_floordiv,
    d_mul,
    d_prod,
    differs,
    fmt_dim,
)
from ..issue import Issue
from ..registry import Args, Result, module, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import dims_of, ints_of, need_rank
from .nn import conv_out

# the modes of interpolate and the input rank each needs (None: any of 3, 4, 5)
INTERPOLATE_MODES: dict[str, int | None] = {
    "nearest": None, "nearest-exact": None, "area": None, "linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5,
}


def _scaled(size: DimExpr, scale: Any) -> DimExpr:
    """``floor(size * scale)``: exact for an integral scale on a symbolic size, else only for a literal size."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        return UNKNOWN
    n = as_int(size)
    if n is not None:
        return math.floor(n * float(scale))
    if float(scale).is_integer():
        return d_mul(size, int(scale))
    inverse = 1.0 / float(scale)
    if inverse.is_integer():
        return d_floordiv(size, int(inverse))
    return UNKNOWN


@op("interpolate", "input:tensor, size:any=None, scale_factor:any=None, mode:str='nearest', align_corners:bool=None, "
    "recompute_scale_factor:bool=None, antialias:bool=False", expose="F", python="F", tags=("nn", "resample"),
    autocast="cuda=float32")
def interpolate(args: Args) -> Result:
    """``[N, C, *s]`` (1 to 3 spatial dims) -> ``[N, C, *size]`` or ``[N, C, *floor(s * scale_factor)]``."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("interpolate", x, (3, 4, 5))
    if r:
        return r
    if not x.is_fixed:
        return UNKNOWN
    nd = len(x.dims) - 2
    mode = args["mode"]
    if isinstance(mode, str):
        if mode not in INTERPOLATE_MODES:
            return Issue("shape-arg", f"interpolate: unknown mode {mode!r} (one of {', '.join(INTERPOLATE_MODES)})")
        need = INTERPOLATE_MODES[mode]
        if need is not None and need != len(x.dims):
            return Issue("shape-rank", f"interpolate: mode {mode!r} needs a {need}-d input, got {len(x.dims)}-d; "
                                       f"shape {fmt_shape(x)}")
    size, scale = args["size"], args["scale_factor"]
    if size is not None and scale is not None:
        return Issue("shape-arg", "interpolate: only one of size or scale_factor should be defined")
    if size is None and scale is None:
        return Issue("shape-arg", "interpolate: either size or scale_factor should be defined")
    if isinstance(size, Unknown) or isinstance(scale, Unknown):
        return Shape((*x.dims[:2], *(UNKNOWN,) * nd))
    if size is not None:
        if isinstance(size, (tuple, list)) and len(size) != nd:
            return Issue("shape-arg", f"interpolate: size {list(size)} has {len(size)} values for {nd} spatial dims; "
                                      f"shape {fmt_shape(x)}")
        sizes = dims_of(size, nd)
        if sizes is None:
            return UNKNOWN
        out: tuple[DimExpr, ...] = sizes
    else:
        scales = tuple(scale) if isinstance(scale, (tuple, list)) else (scale,) * nd
        if len(scales) != nd:
            return Issue("shape-arg", f"interpolate: scale_factor {list(scales)} has {len(scales)} values for {nd} "
                                      f"spatial dims; shape {fmt_shape(x)}")
        out = tuple(_scaled(d, s) for d, s in zip(x.dims[2:], scales, strict=True))
    for d in (*x.dims[2:], *out):
        v = as_int(d)
        if v is not None and v <= 0:
            return Issue("shape-arg", f"interpolate: input and output sizes should be greater than 0, got input "
                                      f"{fmt_shape(x)} and output size [{', '.join(fmt_dim(o) for o in out)}]")
    return Shape((*x.dims[:2], *out))


for _name, _spec in (("upsample", "mode:str='nearest', align_corners:bool=None"),
                     ("upsample_nearest", None), ("upsample_bilinear", None)):
    def _upsample(args: Args, _n: str = _name) -> Result:
        """torch's deprecated spellings of ``interpolate`` (nearest; bilinear with aligned corners)."""
        mode = args.get("mode", "nearest" if _n != "upsample_bilinear" else "bilinear")
        return interpolate({"input": args["input"], "size": args["size"], "scale_factor": args["scale_factor"],
                            "mode": mode, "align_corners": args.get("align_corners")})

    op(_name, "input:tensor, size:any=None, scale_factor:any=None" + (f", {_spec}" if _spec else ""), expose="F",
       python="F", tags=("nn", "resample"))(_upsample)


@op("channel_shuffle", "input:tensor, groups:int", expose="tt F", python="tt F", tags=("nn", "movement"),
    module=("ChannelShuffle", "groups:int"))
def channel_shuffle(args: Args) -> Result:
    """``[N, C, *]`` -> the same shape, channels regrouped; ``C`` must divide into ``groups``."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown) or not x.is_fixed:
        return x
    if len(x.dims) < 3:
        return Issue("shape-rank", f"channel_shuffle: expects input to have at least 3 dimensions, but got input "
                                   f"with {len(x.dims)} dimension(s); shape {fmt_shape(x)}")
    g, c = as_int(args["groups"]), as_int(x.dims[1])
    if g is not None and g <= 0:
        return Issue("shape-arg", f"channel_shuffle: Number of groups to divide channels in must be positive. "
                                  f"Value of groups:{g}")
    if g is not None and c is not None and c % g:
        return Issue("shape-arg", f"channel_shuffle: Number of channels must be divisible by groups. Got {c} "
                                  f"channels and {g} groups; shape {fmt_shape(x)}")
    return x


@op("affine_grid", "theta:tensor, size:any, align_corners:bool=None", expose="F", python="F", tags=("nn", "resample"),
    autocast="lower")
def affine_grid(args: Args) -> Result:
    """``theta`` ``[N, 2, 3]`` and size ``(N, C, H, W)`` -> ``[N, H, W, 2]``; ``[N, 3, 4]`` and
    ``(N, C, D, H, W)`` -> ``[N, D, H, W, 3]``."""
    theta: ShapeLike = args["theta"]
    size = args["size"]
    if isinstance(size, Unknown) or not isinstance(size, (tuple, list)):
        return UNKNOWN
    if len(size) not in (4, 5):
        return Issue("shape-arg", f"affine_grid: only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively; got size {list(size)}")
    nd = len(size) - 2
    dims = dims_of(tuple(size), len(size))
    if dims is None:
        return UNKNOWN
    if isinstance(theta, Shape) and theta.is_fixed:
        want = (nd, nd + 1)
        # a named size against the literal 2 or 3 is not provably wrong (NOTE [ Provable facts ])
        if len(theta.dims) != 3 or any(as_int(d) not in (None, w) for d, w in zip(theta.dims[1:], want, strict=True)):
            return Issue("shape-arg", f"affine_grid: expected a batch of {nd}D affine matrices of shape "
                                      f"Nx{want[0]}x{want[1]} for size {list(size)}, got theta {fmt_shape(theta)}")
    # torch skips the positivity check when align_corners warns about a unit spatial size instead
    unit = args["align_corners"] is True and any(as_int(d) == 1 for d in dims[2:])
    if not unit and any((v := as_int(d)) is not None and v <= 0 for d in dims):
        return Issue("shape-arg", f"affine_grid: expected non-zero, positive output size, got {list(size)}")
    if isinstance(theta, Shape) and theta.is_fixed and differs(theta.dims[0], dims[0]):
        return Issue("shape-arg", f"affine_grid: theta holds {fmt_dim(theta.dims[0])} matrices for a batch of "
                                  f"{fmt_dim(dims[0])} (size {list(size)}); theta {fmt_shape(theta)}")
    return Shape((dims[0], *dims[2:], nd))


@op("grid_sample", "input:tensor, grid:tensor, mode:str='bilinear', padding_mode:str='zeros', align_corners:bool=None",
    expose="F", python="F", tags=("nn", "resample"), autocast="float32")
def grid_sample(args: Args) -> Result:
    """``[N, C, H_in, W_in]`` sampled at ``[N, H_out, W_out, 2]`` -> ``[N, C, H_out, W_out]`` (and the
    5-d analogue, a grid ``[N, D, H, W, 3]``)."""
    x: ShapeLike = args["input"]
    g: ShapeLike = args["grid"]
    if isinstance(x, Unknown) or isinstance(g, Unknown):
        return UNKNOWN
    r = need_rank("grid_sample", x, (4, 5)) or need_rank("grid_sample", g, (4, 5), "grid")
    if r:
        return r
    if not x.is_fixed or not g.is_fixed:
        return UNKNOWN
    if len(x.dims) != len(g.dims):
        return Issue("shape-rank", f"grid_sample: expected input and grid with the same number of dimensions, got "
                                   f"input {fmt_shape(x)} and grid {fmt_shape(g)}")
    nd = len(x.dims) - 2
    if differs(x.dims[0], g.dims[0]):
        return Issue("shape-arg", f"grid_sample: expected grid and input to have the same batch size, got input "
                                  f"{fmt_shape(x)} and grid {fmt_shape(g)}")
    if as_int(g.dims[-1]) not in (None, nd):
        return Issue("shape-arg", f"grid_sample: expected grid to have size {nd} in its last dimension for a "
                                  f"{len(x.dims)}-d input, got grid {fmt_shape(g)}")
    for d in x.dims[2:]:
        if as_int(d) == 0:
            return Issue("shape-arg", f"grid_sample: expected input to have non-empty spatial dimensions, got "
                                      f"input {fmt_shape(x)}")
    mode = args["mode"]
    if isinstance(mode, str) and mode == "bicubic" and nd == 3:
        return Issue("shape-rank", f"grid_sample: mode 'bicubic' needs a 4-d input, got input {fmt_shape(x)}")
    return Shape((x.dims[0], x.dims[1], *g.dims[1:-1]))


def _shuffle(name: str, args: Args, factor_name: str, up: bool) -> Result:
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    if x.is_fixed and len(x.dims) < 3:
        return Issue("shape-rank", f"{name}: expected at least 3 dims ([*, C, H, W]), got {len(x.dims)}; "
                                   f"shape {fmt_shape(x)}")
    if len(x.tail) < 3:
        return UNKNOWN
    r = as_int(args[factor_name])
    if r is None:
        return x.with_tail((*x.tail[:-3], UNKNOWN, UNKNOWN, UNKNOWN))
    if r <= 0:
        return Issue("shape-arg", f"{name}: {factor_name} must be positive, got {r}")
    c, h, w = x.tail[-3:]
    if up:
        c_out = d_exact_div(c, r * r)
        if c_out is None:
            ci = as_int(c)
            if ci is not None:
                return Issue("shape-arg", f"{name}: channels {ci} are not divisible by upscale_factor squared "
                                          f"({r * r}); shape {fmt_shape(x)}")
            c_out = UNKNOWN
        return x.with_tail((*x.tail[:-3], c_out, d_mul(h, r), d_mul(w, r)))
    parts = []
    for what, d in (("height", h), ("width", w)):
        q = d_exact_div(d, r)
        if q is None:
            di = as_int(d)
            if di is not None:
                return Issue("shape-arg", f"{name}: {what} {di} is not divisible by downscale_factor {r}; "
                                          f"shape {fmt_shape(x)}")
            q = UNKNOWN
        parts.append(q)
    return x.with_tail((*x.tail[:-3], d_mul(c, r * r), *parts))


@op("pixel_shuffle", "input:tensor, upscale_factor:int", expose="tt F", python="tt F", tags=("nn", "movement"))
def pixel_shuffle(args: Args) -> Result:
    """``[*, C r^2, H, W]`` -> ``[*, C, H r, W r]``."""
    return _shuffle("pixel_shuffle", args, "upscale_factor", True)


@op("pixel_unshuffle", "input:tensor, downscale_factor:int", expose="tt F", python="tt F", tags=("nn", "movement"))
def pixel_unshuffle(args: Args) -> Result:
    """``[*, C, H r, W r]`` -> ``[*, C r^2, H, W]``."""
    return _shuffle("pixel_unshuffle", args, "downscale_factor", False)


def _patches(name: str, args: Args, spatial: tuple[DimExpr, DimExpr]) -> tuple[tuple[DimExpr, ...], DimExpr] | Result:
    """The sliding blocks over ``spatial``: ((blocks along H, blocks along W), kh * kw)."""
    kernel = dims_of(args["kernel_size"], 2)
    geom = [ints_of(args[n], 2) for n in ("dilation", "padding", "stride")]
    if kernel is None or any(g is None for g in geom):
        return UNKNOWN
    dilation, padding, stride = geom
    assert dilation is not None and padding is not None and stride is not None
    blocks: list[DimExpr] = []
    for i, (size, k, d, p, s) in enumerate(zip(spatial, kernel, dilation, padding, stride, strict=True)):
        kk = as_int(k)
        if (kk is not None and kk <= 0) or (d is not None and d <= 0) or (s is not None and s <= 0) or (
                p is not None and p < 0):
            return Issue("shape-arg", f"{name}: kernel_size, dilation and stride must be positive and padding "
                                      "non-negative")
        if d is None or p is None or s is None:
            blocks.append(UNKNOWN)
            continue
        b = conv_out(size, k, s, p, d)
        bi = as_int(b)
        if bi is not None and bi < 1:
            return Issue("shape-arg", f"{name}: no sliding block fits along spatial dim {i}: size {fmt_dim(size)}, "
                                      f"kernel {fmt_dim(k)}, dilation {d}, padding {p}, stride {s}")
        blocks.append(b)
    return tuple(blocks), d_prod(kernel)


@op("unfold", "input:tensor, kernel_size:any, dilation:any=1, padding:any=0, stride:any=1", expose="F", python="F",
    tags=("nn", "movement"))
def unfold(args: Args) -> Result:
    """im2col: ``[N, C, H, W]`` -> ``[N, C kh kw, L]`` with ``L`` the number of sliding blocks (``F.unfold``;
    ``Tensor.unfold`` is another op)."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("unfold", x, (3, 4))
    if r:
        return r
    if not x.is_fixed:
        return UNKNOWN
    lead = x.dims[:-3]
    c = x.dims[-3]
    if any(d == 0 for d in x.dims[-3:]) or (lead and lead[0] == 0):
        return Issue("shape-arg", f"unfold: expected non-empty dims; shape {fmt_shape(x)}")
    got = _patches("unfold", args, (x.dims[-2], x.dims[-1]))
    if not isinstance(got, tuple):
        return got
    (bh, bw), k = got
    return Shape((*lead, d_mul(c, k), d_mul(bh, bw)))


@op("fold", "input:tensor, output_size:any, kernel_size:any, dilation:any=1, padding:any=0, stride:any=1", expose="F",
    python="F", tags=("nn", "movement"))
def fold(args: Args) -> Result:
    """col2im, the adjoint of ``unfold``: ``[N, C kh kw, L]`` -> ``[N, C, *output_size]``; ``L`` must be
    the number of blocks that fit in ``output_size``."""
    x: ShapeLike = args["input"]
    if isinstance(x, Unknown):
        return UNKNOWN
    r = need_rank("fold", x, (2, 3))
    if r:
        return r
    size = dims_of(args["output_size"], 2)
    if not x.is_fixed or size is None:
        return UNKNOWN
    got = _patches("fold", args, (size[0], size[1]))
    if not isinstance(got, tuple):
        return got
    (bh, bw), k = got
    ck, blocks = x.dims[-2], x.dims[-1]
    c = d_exact_div(ck, k)
    if c is None:
        if as_int(ck) is not None and as_int(k) is not None:
            return Issue("shape-arg", f"fold: input dim -2 ({fmt_dim(ck)}) must be divisible by the kernel's "
                                      f"{fmt_dim(k)} positions; shape {fmt_shape(x)}")
        c = UNKNOWN
    want = d_mul(bh, bw)
    # a named block count is checked only against a literal one: products of named sizes against
    # output_size's literals cannot be disproved
    if as_int(blocks) is not None and as_int(want) is not None and differs(blocks, want):
        return Issue("shape-arg", f"fold: input has {fmt_dim(blocks)} blocks (dim -1) but output_size "
                                  f"[{fmt_dim(size[0])}, {fmt_dim(size[1])}] holds {fmt_dim(want)}; "
                                  f"shape {fmt_shape(x)}")
    if as_int(ck) == 0:
        return Issue("shape-arg", f"fold: expected a non-empty input; shape {fmt_shape(x)}")
    return Shape((*x.dims[:-2], c, size[0], size[1]))


@op("embedding_bag", "input:tensor, weight:tensor, offsets:optional_tensor=None, max_norm:float=None, "
    "norm_type:float=2.0, scale_grad_by_freq:bool=False, mode:str='mean', sparse:bool=False, "
    "per_sample_weights:optional_tensor=None, include_last_offset:bool=False, padding_idx:int=None", expose="F",
    python="F", tags=("nn", "indexing"))
def embedding_bag(args: Args) -> Result:
    """Bags of indices reduced to one row each: ``[B, N]`` (fixed-size bags) or ``[N]`` with ``offsets``
    ``[B]`` (``[B + 1]`` with include_last_offset) -> ``[B, D]`` for a ``[V, D]`` table."""
    idx, w, offsets = args["input"], args["weight"], args["offsets"]
    if isinstance(w, Unknown) or isinstance(idx, Unknown):
        return UNKNOWN
    r = need_rank("embedding_bag", w, (2,), "weight") or need_rank("embedding_bag", idx, (1, 2))
    if r:
        return r
    if not idx.is_fixed or not w.is_fixed:
        return UNKNOWN
    psw = args["per_sample_weights"]
    if isinstance(psw, Shape) and psw.is_fixed and (
            len(psw.dims) != len(idx.dims) or any(differs(a, b) for a, b in zip(psw.dims, idx.dims, strict=True))):
        return Issue("shape-arg", f"embedding_bag: per_sample_weights {fmt_shape(psw)} must have the input's shape "
                                  f"{fmt_shape(idx)}")
    if len(idx.dims) == 2:
        if offsets is not None and not isinstance(offsets, Unknown):
            return Issue("shape-arg", "embedding_bag: offsets must be None when the input is 2-d (one bag per row)")
        return Shape((idx.dims[0], w.dims[1]))
    if offsets is None:
        return Issue("shape-arg", "embedding_bag: a 1-d input needs offsets (where each bag starts)")
    if isinstance(offsets, Unknown) or not offsets.is_fixed:
        return Shape((UNKNOWN, w.dims[1]))
    r = need_rank("embedding_bag", offsets, (1,), "offsets")
    if r:
        return r
    bags = offsets.dims[0]
    if args["include_last_offset"] is True:
        b = as_int(bags)
        bags = max(b - 1, 0) if b is not None else UNKNOWN
    elif not isinstance(args["include_last_offset"], bool):
        bags = UNKNOWN
    return Shape((bags, w.dims[1]))


# ---------------------------------------------------------------------------------------------
# Modules


def _as_arg(issue: Result, module_name: str) -> Result:
    if isinstance(issue, Issue) and issue.code not in ("shape-arg", "shape-rank", "shape-axis"):
        return Issue("shape-arg", f"{module_name}.forward: {issue.message}")
    return issue


@module("typedtensor.nn.Upsample", "size:any=None, scale_factor:any=None, mode:str='nearest', align_corners:bool=None, "
        "recompute_scale_factor:bool=None", ("size", "scale_factor", "mode"), "input:tensor", ops=("interpolate",))
def upsample_module(c: Args, args: Args) -> Result:
    return _as_arg(interpolate({"input": args["input"], "size": c["size"], "scale_factor": c["scale_factor"],
                                "mode": c["mode"]}), "Upsample")


def _fixed_mode_upsample(cls: str, mode: str) -> None:
    def forward(c: Args, args: Args) -> Result:
        return _as_arg(interpolate({"input": args["input"], "size": c["size"], "scale_factor": c["scale_factor"],
                                    "mode": mode}), cls)

    module(f"typedtensor.nn.{cls}", "size:any=None, scale_factor:any=None", ("size", "scale_factor"), "input:tensor",
           ops=("interpolate",))(forward)


_fixed_mode_upsample("UpsamplingNearest2d", "nearest")
_fixed_mode_upsample("UpsamplingBilinear2d", "bilinear")


@module("typedtensor.nn.PixelShuffle", "upscale_factor:int", ("upscale_factor",), "input:tensor", ops=("pixel_shuffle",))
def pixel_shuffle_module(c: Args, args: Args) -> Result:
    return _as_arg(pixel_shuffle({"input": args["input"], "upscale_factor": c["upscale_factor"]}), "PixelShuffle")


@module("typedtensor.nn.PixelUnshuffle", "downscale_factor:int", ("downscale_factor",), "input:tensor",
        ops=("pixel_unshuffle",))
def pixel_unshuffle_module(c: Args, args: Args) -> Result:
    return _as_arg(pixel_unshuffle({"input": args["input"], "downscale_factor": c["downscale_factor"]}), "PixelUnshuffle")


@module("typedtensor.nn.Unfold", "kernel_size:any, dilation:any=1, padding:any=0, stride:any=1",
        ("kernel_size", "dilation", "padding", "stride"), "input:tensor", ops=("unfold",))
def unfold_module(c: Args, args: Args) -> Result:
    return _as_arg(unfold({"input": args["input"], **c}), "Unfold")


@module("typedtensor.nn.Fold", "output_size:any, kernel_size:any, dilation:any=1, padding:any=0, stride:any=1",
        ("output_size", "kernel_size", "dilation", "padding", "stride"), "input:tensor", ops=("fold",))
def fold_module(c: Args, args: Args) -> Result:
    return _as_arg(fold({"input": args["input"], **c}), "Fold")


@module("typedtensor.nn.EmbeddingBag", "num_embeddings:size, embedding_dim:size, max_norm:float=None, "
        "norm_type:float=2.0, scale_grad_by_freq:bool=False, mode:str='mean', sparse:bool=False, _weight:any=None, "
        "include_last_offset:bool=False, padding_idx:int=None, *, device:any=None, dtype:any=None",
        ("num_embeddings", "embedding_dim", "include_last_offset"),
        "input:tensor, offsets:optional_tensor=None, per_sample_weights:optional_tensor=None", ops=("embedding_bag",))
def embedding_bag_module(c: Args, args: Args) -> Result:
    """Bags ``[B, N]`` (or ``[N]`` with offsets) -> ``[B, embedding_dim]``."""
    return _as_arg(embedding_bag({
        "input": args["input"], "weight": Shape((c["num_embeddings"], c["embedding_dim"])), "offsets": args["offsets"],
        "per_sample_weights": args["per_sample_weights"], "include_last_offset": c["include_last_offset"],
    }), "EmbeddingBag")
