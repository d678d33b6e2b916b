"""An einsum that uses one letter for two different axes.

Source: https://github.com/hw-native-sys/pypto-lib/pull/186
In ``torch.einsum("thd,btd->bht", q, dense_kv)`` the letter ``t`` names both the query-token axis
of ``q`` and the cache-position axis of ``dense_kv``; einsum requires their sizes to be equal, so
it raises as soon as the cache length differs. The scores need their own letter for the cache
axis.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor


class Tokens(Dim):
    "query tokens (one per sequence in the batch)"


class Heads(Dim):
    "indexer heads"


class HeadDim(Dim):
    "width of one head"


class Cache(Dim):
    "cached positions"


def index_scores(q: Tensor[Tokens, Heads, HeadDim], dense_kv: Tensor[Tokens, Cache, HeadDim]) -> Tensor[Tokens, Heads, Cache]:
    return tt.einsum("thd,btd->bht", q, dense_kv)  # E: shape-matmul


def main() -> None:
    index_scores(tt.randn(Tokens(4), Heads(2), HeadDim(8)), tt.randn(Tokens(4), Cache(3), HeadDim(8)))
