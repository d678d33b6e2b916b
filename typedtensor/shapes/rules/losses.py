"""The losses of ``torch.nn`` beyond those of nn.py, their distance ops (``cosine_similarity``,
``pairwise_distance``) and the loss modules: targets of the input's shape, pairs of inputs, class
indices, and the triplet losses. As in nn.py, inputs and targets that torch would broadcast must
have equal shapes (DESIGN §3)."""

from __future__ import annotations

from typing import Any

from ..broadcast import broadcast_shapes
from ..dims import UNKNOWN, Unknown, as_int, differs, fmt_dim, same
from ..issue import Issue
from ..registry import Args, Result, get_op, module, op
from ..shape import Shape, ShapeLike, fmt_shape
from ._common import norm_axis, replace
from .nn import _LEGACY, _equal_shapes, _reduced


def _pair(name: str, args: Args, a: str, b: str) -> Result:
    """Two inputs of one shape: the per-element loss shape (or an Issue)."""
    x, y = args[a], args[b]
    if isinstance(x, Shape) and isinstance(y, Shape) and x.is_fixed and y.is_fixed and (
            len(x.dims) != len(y.dims) or any(differs(p, q) for p, q in zip(x.dims, y.dims, strict=True))):
        return Issue("shape-arg", f"{name}: {a} and {b} must have the same shape; shapes {fmt_shape(x)} vs {fmt_shape(y)}")
    return x if isinstance(x, Shape) else y


def _same(name: str) -> Any:
    def rule(args: Args) -> Result:
        return _equal_shapes(name, args)

    return rule


for _name, _params in (
    ("kl_div", f"input:tensor, target:tensor, {_LEGACY}, reduction:str='mean', log_target:bool=False"),
    ("soft_margin_loss", f"input:tensor, target:tensor, {_LEGACY}, reduction:str='mean'"),
    ("hinge_embedding_loss", f"input:tensor, target:tensor, margin:float=1.0, {_LEGACY}, reduction:str='mean'"),
    ("poisson_nll_loss", "input:tensor, target:tensor, log_input:bool=True, full:bool=False, size_average:any=None, "
                         "eps:float=1e-08, reduce:any=None, reduction:str='mean'"),
):
    op(_name, _params, expose="F", python="F", tags=("nn", "loss"), autocast="cuda=float32")(_same(_name))


def _reduce_class_dim(per: ShapeLike, reduction: Any) -> Result:
    if isinstance(per, Shape) and per.is_fixed and per.dims:
        per = Shape(per.dims[:-1])
    return _reduced(per, reduction)


@op("multilabel_soft_margin_loss", f"input:tensor, target:tensor, weight:optional_tensor=None, {_LEGACY}, "
    "reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"))
def multilabel_soft_margin_loss(args: Args) -> Result:
    """Scores and 0/1 targets ``[N, C]``: one loss per example (the mean over the classes)."""
    per = _equal_shapes("multilabel_soft_margin_loss", {**args, "reduction": "none"})
    if not isinstance(per, (Shape, Unknown)):
        return per
    return _reduce_class_dim(per, args["reduction"])


@op("margin_ranking_loss", f"input1:tensor, input2:tensor, target:tensor, margin:float=0.0, {_LEGACY}, "
    "reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"), autocast="cuda=float32")
def margin_ranking_loss(args: Args) -> Result:
    """Two scores and a ``+1`` / ``-1`` target, all of one shape."""
    per = _pair("margin_ranking_loss", args, "input1", "input2")
    if isinstance(per, Issue):
        return per
    per2 = _pair("margin_ranking_loss", {"input1": per, "target": args["target"]}, "input1", "target")
    return per2 if isinstance(per2, Issue) else _reduced(per2 if isinstance(per2, Shape) else UNKNOWN, args["reduction"])


@op("cosine_similarity", "x1:tensor, x2:tensor, dim:int=1, eps:float=1e-08", expose="tt F", python="tt F",
    tags=("nn",), autocast="cuda=float32")
def cosine_similarity(args: Args) -> Result:
    """The broadcast shape of ``x1`` and ``x2`` without ``dim``."""
    a, b = args["x1"], args["x2"]
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    shape = broadcast_shapes(a, b, "cosine_similarity")
    if not isinstance(shape, Shape):
        return shape
    pos = norm_axis("cosine_similarity", shape, args["dim"])
    if isinstance(pos, Issue) or pos is None:
        return pos if isinstance(pos, Issue) else UNKNOWN
    return replace(shape, pos, ())


@op("pairwise_distance", "x1:tensor, x2:tensor, p:float=2.0, eps:float=1e-06, keepdim:bool=False", expose="tt F",
    python="tt F", tags=("nn",))
def pairwise_distance(args: Args) -> Result:
    """The norm of ``x1 - x2`` over the last dim (kept with ``keepdim``)."""
    a, b = args["x1"], args["x2"]
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    shape = broadcast_shapes(a, b, "pairwise_distance")
    if not isinstance(shape, Shape) or not shape.is_fixed:
        return shape if not isinstance(shape, Shape) else UNKNOWN
    if not shape.dims:
        return shape
    if args["keepdim"] is True:
        return Shape((*shape.dims[:-1], 1))
    return Shape(shape.dims[:-1]) if isinstance(args["keepdim"], bool) else UNKNOWN


@op("cosine_embedding_loss", f"input1:tensor, input2:tensor, target:tensor, margin:float=0.0, {_LEGACY}, "
    "reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"), autocast="cuda=float32")
def cosine_embedding_loss(args: Args) -> Result:
    """Pairs ``[N, D]`` (or ``[D]``) and a ``[N]`` (or ``[]``) target of +1 / -1."""
    per = _pair("cosine_embedding_loss", args, "input1", "input2")
    if isinstance(per, Issue) or not isinstance(per, Shape) or not per.is_fixed:
        return per if isinstance(per, Issue) else _reduced(UNKNOWN, args["reduction"])
    if len(per.dims) not in (1, 2):
        return Issue("shape-rank", f"cosine_embedding_loss: expected 1-d or 2-d inputs, got {fmt_shape(per)}")
    y = args["target"]
    want = Shape(per.dims[:1]) if len(per.dims) == 2 else Shape(())
    if isinstance(y, Shape) and y.is_fixed and (len(y.dims) != len(want.dims) or any(
            differs(p, q) for p, q in zip(y.dims, want.dims, strict=True))):
        return Issue("shape-arg", f"cosine_embedding_loss: target must be {fmt_shape(want)} for inputs {fmt_shape(per)}, "
                                  f"got {fmt_shape(y)}")
    return _reduced(want, args["reduction"])


@op("gaussian_nll_loss", "input:tensor, target:tensor, var:any, full:bool=False, eps:float=1e-06, "
    "reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"))
def gaussian_nll_loss(args: Args) -> Result:
    """Input, target of one shape; ``var`` that shape, or it with the last dim 1 or dropped (or a number)."""
    per = _pair("gaussian_nll_loss", args, "input", "target")
    if isinstance(per, Issue):
        return per
    var = args["var"]
    if isinstance(per, Shape) and per.is_fixed and isinstance(var, Shape) and var.is_fixed:
        # torch's rule: var is the input's shape, or that without its last dim, or of its rank with
        # var's sizes at the differing dims summing to 1 (one dim of size 1 where the input's is not)
        mismatched = [(p, v) for p, v in zip(per.dims, var.dims, strict=False) if not same(p, v)]
        literal = all(as_int(p) is not None and as_int(v) is not None for p, v in mismatched)
        ok = (var.dims == per.dims or var.dims == per.dims[:-1] or not literal
              or (len(var.dims) == len(per.dims) and sum(as_int(v) or 0 for _, v in mismatched) == 1))
        if not ok:
            return Issue("shape-arg", f"gaussian_nll_loss: var {fmt_shape(var)} must match the input {fmt_shape(per)}, "
                                      "or it with the last dim 1 or dropped")
    return _reduced(per if isinstance(per, Shape) else UNKNOWN, args["reduction"])


def _margin_class(name: str, args: Args, multilabel: bool) -> Result:
    """``[N, C]`` (or ``[C]``) scores; class-index targets ``[N]`` (``multi_margin``) or ``[N, C]`` lists
    (``multilabel_margin``). The per-example loss is ``[N]``."""
    x, y = args["input"], args["target"]
    if isinstance(x, Unknown):
        return _reduced(UNKNOWN, args["reduction"])
    if x.is_fixed and len(x.dims) not in (1, 2):
        return Issue("shape-rank", f"{name}: expected a 1-d or 2-d input, got {len(x.dims)}-d; shape {fmt_shape(x)}")
    if not x.is_fixed or not isinstance(y, Shape) or not y.is_fixed:
        return _reduced(UNKNOWN, args["reduction"])
    if multilabel:
        if len(y.dims) != len(x.dims) or any(differs(p, q) for p, q in zip(x.dims, y.dims, strict=True)):
            return Issue("shape-arg", f"{name}: target must have the input's shape {fmt_shape(x)}, got {fmt_shape(y)}")
        per: ShapeLike = Shape(x.dims[:1]) if len(x.dims) == 2 else Shape(())
    else:
        # torch: class indices of rank <= 1, one per example (one for a 1-d input); the loss has their shape
        frames = x.dims[0] if len(x.dims) == 2 else 1
        if len(y.dims) > 1 or (len(y.dims) == 1 and differs(y.dims[0], frames)) or (
                not y.dims and differs(frames, 1)):
            return Issue("shape-arg", f"{name}: expected {fmt_dim(frames)} class indices (a [{fmt_dim(frames)}] "
                                      f"target), got target {fmt_shape(y)}; input {fmt_shape(x)}")
        per = y
        w = args.get("weight")
        c = x.dims[-1]
        if isinstance(w, Shape) and w.is_fixed and (len(w.dims) != 1 or differs(w.dims[0], c)):
            return Issue("shape-arg", f"{name}: weight has shape {fmt_shape(w)}, expected [{fmt_dim(c)}] (one per class)")
    return _reduced(per, args["reduction"])


@op("multi_margin_loss", f"input:tensor, target:tensor, p:int=1, margin:float=1.0, weight:optional_tensor=None, "
    f"{_LEGACY}, reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"), autocast="cuda=float32")
def multi_margin_loss(args: Args) -> Result:
    return _margin_class("multi_margin_loss", args, False)


@op("multilabel_margin_loss", f"input:tensor, target:tensor, {_LEGACY}, reduction:str='mean'", expose="F", python="F",
    tags=("nn", "loss"), autocast="cuda=float32")
def multilabel_margin_loss(args: Args) -> Result:
    return _margin_class("multilabel_margin_loss", args, True)


def _triplet(name: str, args: Args) -> Result:
    a: ShapeLike = args["anchor"]
    p: ShapeLike = args["positive"]
    n: ShapeLike = args["negative"]
    shapes = [s for s in (a, p, n) if isinstance(s, Shape) and s.is_fixed]
    for s in shapes:
        if len(s.dims) not in (1, 2):
            return Issue("shape-rank", f"{name}: expected 1-d or 2-d inputs, got {fmt_shape(s)}")
    if len(shapes) == 3:
        if len({len(s.dims) for s in shapes}) != 1:
            return Issue("shape-arg", f"{name}: anchor, positive and negative must have the same rank; shapes "
                                      f"{', '.join(fmt_shape(s) for s in shapes)}")
        ap = broadcast_shapes(a, p, name)
        if isinstance(ap, Issue):
            return ap
        out = broadcast_shapes(ap, n, name)
        if isinstance(out, Issue):
            return out
    if isinstance(a, Shape) and a.is_fixed:
        return _reduced(Shape(a.dims[:-1]), args["reduction"])
    return _reduced(UNKNOWN, args["reduction"])


@op("triplet_margin_loss", f"anchor:tensor, positive:tensor, negative:tensor, margin:float=1.0, p:float=2.0, "
    f"eps:float=1e-06, swap:bool=False, {_LEGACY}, reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"),
    autocast="cuda=float32")
def triplet_margin_loss(args: Args) -> Result:
    """Anchors, positives and negatives ``[N, D]`` (or ``[D]``): one loss per triplet."""
    return _triplet("triplet_margin_loss", args)


@op("triplet_margin_with_distance_loss", "anchor:tensor, positive:tensor, negative:tensor, *, distance_function:any=None, "
    "margin:float=1.0, swap:bool=False, reduction:str='mean'", expose="F", python="F", tags=("nn", "loss"))
def triplet_margin_with_distance_loss(args: Args) -> Result:
    return _triplet("triplet_margin_with_distance_loss", args)


# ---------------------------------------------------------------------------------------------
# Modules


def _loss_module(cls: str, op_name: str, ctor: str, inputs: str = "input:tensor, target:tensor") -> None:
    def forward(c: Args, args: Args) -> Result:
        params = {p.name for p in get_op(op_name).params}
        call = {p.name: p.default for p in get_op(op_name).params}
        call.update({k: v for k, v in c.items() if k in params})
        call.update(args)
        return get_op(op_name).rule(call)

    module(f"typedtensor.nn.{cls}", ctor, (), inputs, ops=(op_name,))(forward)


_L = f"{_LEGACY}, reduction:str='mean'"
_loss_module("HuberLoss", "huber_loss", "reduction:str='mean', delta:float=1.0")
_loss_module("SmoothL1Loss", "smooth_l1_loss", f"{_L}, beta:float=1.0")
_loss_module("KLDivLoss", "kl_div", f"{_L}, log_target:bool=False")
_loss_module("SoftMarginLoss", "soft_margin_loss", _L)
_loss_module("HingeEmbeddingLoss", "hinge_embedding_loss", f"margin:float=1.0, {_L}")
_loss_module("PoissonNLLLoss", "poisson_nll_loss", "log_input:bool=True, full:bool=False, size_average:any=None, "
             "eps:float=1e-08, reduce:any=None, reduction:str='mean'")
_loss_module("MultiLabelSoftMarginLoss", "multilabel_soft_margin_loss", f"weight:optional_tensor=None, {_L}")
_loss_module("MultiMarginLoss", "multi_margin_loss", f"p:int=1, margin:float=1.0, weight:optional_tensor=None, {_L}")
_loss_module("MultiLabelMarginLoss", "multilabel_margin_loss", _L)
_loss_module("MarginRankingLoss", "margin_ranking_loss", f"margin:float=0.0, {_L}",
             "input1:tensor, input2:tensor, target:tensor")
_loss_module("CosineEmbeddingLoss", "cosine_embedding_loss", f"margin:float=0.0, {_L}",
             "input1:tensor, input2:tensor, target:tensor")
_loss_module("GaussianNLLLoss", "gaussian_nll_loss", "*, full:bool=False, eps:float=1e-06, reduction:str='mean'",
             "input:tensor, target:tensor, var:any")
_loss_module("TripletMarginLoss", "triplet_margin_loss", f"margin:float=1.0, p:float=2.0, eps:float=1e-06, "
             f"swap:bool=False, {_L}", "anchor:tensor, positive:tensor, negative:tensor")
_loss_module("TripletMarginWithDistanceLoss", "triplet_margin_with_distance_loss", "*, distance_function:any=None, "
             "margin:float=1.0, swap:bool=False, reduction:str='mean'", "anchor:tensor, positive:tensor, negative:tensor")
_loss_module("NLLLoss2d", "nll_loss", "weight:optional_tensor=None, size_average:any=None, ignore_index:int=-100, "
             "reduce:any=None, reduction:str='mean'")


@module("typedtensor.nn.CosineSimilarity", "dim:int=1, eps:float=1e-08", ("dim",), "x1:tensor, x2:tensor",
        ops=("cosine_similarity",))
def cosine_similarity_module(c: Args, args: Args) -> Result:
    return cosine_similarity({"x1": args["x1"], "x2": args["x2"], "dim": c["dim"], "eps": c["eps"]})


@module("typedtensor.nn.PairwiseDistance", "p:float=2.0, eps:float=1e-06, keepdim:bool=False", ("keepdim",),
        "x1:tensor, x2:tensor", ops=("pairwise_distance",))
def pairwise_distance_module(c: Args, args: Args) -> Result:
    return pairwise_distance({"x1": args["x1"], "x2": args["x2"], "p": c["p"], "eps": c["eps"], "keepdim": c["keepdim"]})

