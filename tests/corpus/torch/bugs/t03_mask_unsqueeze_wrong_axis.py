"""A token mask unsqueezed on the wrong axis before it scales the embeddings.

Source: https://github.com/Wenyueh/MinivLLM/pull/99
``mask`` is ``[batch_size, seq_len]`` and ``output`` (an embedding lookup) is ``[batch_size,
seq_len, embedding_dim]``. ``mask.unsqueeze(1)`` gives ``[batch_size, 1, seq_len]``, which does not
broadcast against the output; ``mask.unsqueeze(-1)`` (``[batch_size, seq_len, 1]``) does.
"""

import torch
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


def masked_embedding(ids: Int[Tensor, "batch seq"], weight: Float[Tensor, "vocab embed"],
                     limit: int) -> Float[Tensor, "batch seq embed"]:
    mask = ids < limit
    output = F.embedding(ids, weight)
    return mask.unsqueeze(1) * output  # E: shape-broadcast


def main() -> None:
    ids = torch.randint(0, 12, (3, 4))
    masked_embedding(ids, torch.randn(12, 5), 6)
