"""``nn.Transformer`` and its encoder / decoder stacks and layers: each keeps the shape of the
sequence it transforms (``src`` for the encoder, ``tgt`` for the decoder and the whole model); the
feature dim must be ``d_model`` and ``src`` and ``tgt`` must share their batch."""

from __future__ import annotations

from typing import Any

from ..dims import UNKNOWN, DimExpr, Unknown, differs, fmt_dim
from ..issue import Issue
from ..registry import Args, Result, module
from ..shape import Shape, fmt_shape
from ._common import need_rank

_LAYER = ("d_model:size, nhead:int, dim_feedforward:int=2048, dropout:float=0.1, activation:any='relu', "
          "layer_norm_eps:float=1e-05, batch_first:bool=False, norm_first:bool=False, bias:bool=True, device:any=None, "
          "dtype:any=None")
_MASKS = "mask:optional_tensor=None, src_key_padding_mask:optional_tensor=None, is_causal:bool=None"
_DECODER_ARGS = ("tgt:tensor, memory:tensor, tgt_mask:optional_tensor=None, memory_mask:optional_tensor=None, "
                 "tgt_key_padding_mask:optional_tensor=None, memory_key_padding_mask:optional_tensor=None, "
                 "tgt_is_causal:bool=None, memory_is_causal:bool=False")


def _sequence(cls: str, what: str, x: Any, d_model: DimExpr) -> Issue | None:
    """A ``[S, N, E]`` / ``[N, S, E]`` or unbatched ``[S, E]`` sequence with ``E == d_model``."""
    if not isinstance(x, Shape):
        return None
    r = need_rank(cls, x, (2, 3), what)
    if r:
        return r
    if x.is_fixed and differs(x.dims[-1], d_model):
        return Issue("shape-arg", f"{cls}.forward: {what} has {fmt_dim(x.dims[-1])} features (dim -1), expected "
                                  f"d_model = {fmt_dim(d_model)}; shape {fmt_shape(x)}")
    return None


def _same_batch(cls: str, a: Any, b: Any, batch_first: Any, names: tuple[str, str]) -> Issue | None:
    if not (isinstance(a, Shape) and isinstance(b, Shape) and a.is_fixed and b.is_fixed and isinstance(batch_first, bool)):
        return None
    if len(a.dims) == len(b.dims) == 3:
        i = 0 if batch_first else 1
        if differs(a.dims[i], b.dims[i]):
            return Issue("shape-arg", f"{cls}.forward: {names[0]} and {names[1]} batch sizes differ: "
                                      f"{fmt_dim(a.dims[i])} vs {fmt_dim(b.dims[i])} (dim {i}); shapes {fmt_shape(a)}, "
                                      f"{fmt_shape(b)}")
    return None


@module("typedtensor.nn.TransformerEncoderLayer", _LAYER, ("d_model", "nhead", "batch_first"),
        "src:tensor, src_mask:optional_tensor=None, src_key_padding_mask:optional_tensor=None, is_causal:bool=False",
        ops=("linear", "layer_norm", "scaled_dot_product_attention"))
def encoder_layer_module(c: Args, args: Args) -> Result:
    """``src`` keeps its shape."""
    src = args["src"]
    return _sequence("TransformerEncoderLayer", "src", src, c["d_model"]) or (src if isinstance(src, Shape) else UNKNOWN)


@module("typedtensor.nn.TransformerDecoderLayer", _LAYER, ("d_model", "nhead", "batch_first"),
        _DECODER_ARGS.replace("tgt_is_causal:bool=None", "tgt_is_causal:bool=False"),
        ops=("linear", "layer_norm", "scaled_dot_product_attention"))
def decoder_layer_module(c: Args, args: Args) -> Result:
    """``tgt`` keeps its shape; ``memory`` (the encoder's output) has the same batch and features."""
    tgt, memory = args["tgt"], args["memory"]
    issue = (_sequence("TransformerDecoderLayer", "tgt", tgt, c["d_model"])
             or _sequence("TransformerDecoderLayer", "memory", memory, c["d_model"])
             or _same_batch("TransformerDecoderLayer", tgt, memory, c["batch_first"], ("tgt", "memory")))
    return issue or (tgt if isinstance(tgt, Shape) else UNKNOWN)


@module("typedtensor.nn.TransformerEncoder", "encoder_layer:any, num_layers:int, norm:any=None, "
        "enable_nested_tensor:bool=True, mask_check:bool=True", (), f"src:tensor, {_MASKS}",
        ops=("linear", "layer_norm", "scaled_dot_product_attention"))
def encoder_module(c: Args, args: Args) -> Result:
    src = args["src"]
    if isinstance(src, Unknown):
        return UNKNOWN
    return need_rank("TransformerEncoder", src, (2, 3), "src") or src


@module("typedtensor.nn.TransformerDecoder", "decoder_layer:any, num_layers:int, norm:any=None", (), _DECODER_ARGS,
        ops=("linear", "layer_norm", "scaled_dot_product_attention"))
def decoder_module(c: Args, args: Args) -> Result:
    tgt = args["tgt"]
    if isinstance(tgt, Unknown):
        return UNKNOWN
    return need_rank("TransformerDecoder", tgt, (2, 3), "tgt") or tgt


@module("typedtensor.nn.Transformer", "d_model:size=512, nhead:int=8, num_encoder_layers:int=6, "
        "num_decoder_layers:int=6, dim_feedforward:int=2048, dropout:float=0.1, activation:any='relu', "
        "custom_encoder:any=None, custom_decoder:any=None, layer_norm_eps:float=1e-05, batch_first:bool=False, "
        "norm_first:bool=False, bias:bool=True, device:any=None, dtype:any=None", ("d_model", "nhead", "batch_first"),
        "src:tensor, tgt:tensor, src_mask:optional_tensor=None, tgt_mask:optional_tensor=None, "
        "memory_mask:optional_tensor=None, src_key_padding_mask:optional_tensor=None, "
        "tgt_key_padding_mask:optional_tensor=None, memory_key_padding_mask:optional_tensor=None, "
        "src_is_causal:bool=None, tgt_is_causal:bool=None, memory_is_causal:bool=False",
        ops=("linear", "layer_norm", "scaled_dot_product_attention"))
def transformer_module(c: Args, args: Args) -> Result:
    """``(src, tgt) -> tgt``'s shape: both have ``d_model`` features and the same batch."""
    src, tgt = args["src"], args["tgt"]
    issue = (_sequence("Transformer", "src", src, c["d_model"]) or _sequence("Transformer", "tgt", tgt, c["d_model"])
             or _same_batch("Transformer", src, tgt, c["batch_first"], ("src", "tgt")))
    return issue or (tgt if isinstance(tgt, Shape) else UNKNOWN)
