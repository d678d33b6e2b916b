"""Attention written the TransformerLens way: per-head weight tensors, einsum everywhere, and every
intermediate annotated with its axes (``batch pos head_index d_head``).

Ported from the structure of https://github.com/TransformerLensOrg/TransformerLens
(transformer_lens/components: ``Attention``, ``MLP``, ``TransformerBlock``), on plain torch.
"""

import math

import torch
from jaxtyping import Float
from torch import Tensor, nn


class Attention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_head: int) -> None:
        super().__init__()
        self.W_Q = nn.Parameter(torch.randn(n_heads, d_model, d_head) / math.sqrt(d_model))
        self.W_K = nn.Parameter(torch.randn(n_heads, d_model, d_head) / math.sqrt(d_model))
        self.W_V = nn.Parameter(torch.randn(n_heads, d_model, d_head) / math.sqrt(d_model))
        self.W_O = nn.Parameter(torch.randn(n_heads, d_head, d_model) / math.sqrt(d_head))
        self.b_O = nn.Parameter(torch.zeros(d_model))
        self.d_head = d_head

    def apply_causal_mask(self, scores: Float[Tensor, "batch head_index query_pos key_pos"]
                          ) -> Float[Tensor, "batch head_index query_pos key_pos"]:
        q, k = scores.size(-2), scores.size(-1)
        mask = torch.triu(torch.ones(q, k, dtype=torch.bool, device=scores.device), diagonal=1)
        return scores.masked_fill(mask, float("-inf"))

    def forward(self, resid: Float[Tensor, "batch pos d_model"]) -> Float[Tensor, "batch pos d_model"]:
        q: Float[Tensor, "batch pos head_index d_head"] = torch.einsum("bpm,hmd->bphd", resid, self.W_Q)
        k: Float[Tensor, "batch pos head_index d_head"] = torch.einsum("bpm,hmd->bphd", resid, self.W_K)
        v: Float[Tensor, "batch pos head_index d_head"] = torch.einsum("bpm,hmd->bphd", resid, self.W_V)
        scores: Float[Tensor, "batch head_index query_pos key_pos"] = (
            torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(self.d_head)
        )
        pattern = self.apply_causal_mask(scores).softmax(dim=-1)
        z: Float[Tensor, "batch pos head_index d_head"] = torch.einsum("bhqk,bkhd->bqhd", pattern, v)
        out: Float[Tensor, "batch pos d_model"] = torch.einsum("bqhd,hdm->bqm", z, self.W_O)
        return out + self.b_O


class MLP(nn.Module):
    def __init__(self, d_model: int, d_mlp: int) -> None:
        super().__init__()
        self.W_in = nn.Parameter(torch.randn(d_model, d_mlp) / math.sqrt(d_model))
        self.b_in = nn.Parameter(torch.zeros(d_mlp))
        self.W_out = nn.Parameter(torch.randn(d_mlp, d_model) / math.sqrt(d_mlp))
        self.b_out = nn.Parameter(torch.zeros(d_model))

    def forward(self, x: Float[Tensor, "batch pos d_model"]) -> Float[Tensor, "batch pos d_model"]:
        pre: Float[Tensor, "batch pos d_mlp"] = torch.einsum("bpm,mn->bpn", x, self.W_in) + self.b_in
        post = torch.nn.functional.gelu(pre)
        return torch.einsum("bpn,nm->bpm", post, self.W_out) + self.b_out


class TransformerBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_head: int, d_mlp: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = Attention(d_model, n_heads, d_head)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, d_mlp)

    def forward(self, resid_pre: Float[Tensor, "batch pos d_model"]) -> Float[Tensor, "batch pos d_model"]:
        resid_mid = resid_pre + self.attn(self.ln1(resid_pre))
        return resid_mid + self.mlp(self.ln2(resid_mid))


def logit_lens(resid: Float[Tensor, "batch pos d_model"], W_U: Float[Tensor, "d_model d_vocab"]
               ) -> Float[Tensor, "batch pos d_vocab"]:
    return resid @ W_U


def main() -> None:
    block = TransformerBlock(d_model=32, n_heads=4, d_head=8, d_mlp=64)
    resid = torch.randn(2, 6, 32)
    out = block(resid)
    logits = logit_lens(out, torch.randn(32, 50))
    logits.sum().backward()
