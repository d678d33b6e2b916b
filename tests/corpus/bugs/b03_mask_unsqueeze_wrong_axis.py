"""A token mask unsqueezed on the wrong axis before it scales the embeddings.

Source: https://github.com/Wenyueh/MinivLLM/pull/99
``mask`` is ``[batch_size, seq_len]`` and ``output`` (an embedding lookup) is ``[batch_size,
seq_len, embedding_dim]``. ``mask.unsqueeze(1)`` gives ``[batch_size, 1, seq_len]``, which does not
broadcast against the output; ``mask.unsqueeze(-1)`` (``[batch_size, seq_len, 1]``) does.
"""

from __future__ import annotations

import typedtensor as tt
from typedtensor import Dim, Tensor
from typedtensor.nn import functional as F


class Batch(Dim):
    "sequences in one minibatch"


class Seq(Dim):
    "tokens per sequence"


class Vocab(Dim):
    "rows of the embedding table"


class Embed(Dim):
    "embedding width"


def masked_embedding(ids: Tensor[Batch, Seq], weight: Tensor[Vocab, Embed], limit: int) -> Tensor[Batch, Seq, Embed]:
    mask = ids < limit
    output = F.embedding(ids, weight)
    return mask.unsqueeze(1) * output  # E: shape-broadcast


def main() -> None:
    ids = tt.randint(0, 12, (Batch(3), Seq(4)))
    masked_embedding(ids, tt.randn(Vocab(12), Embed(5)), 6)
