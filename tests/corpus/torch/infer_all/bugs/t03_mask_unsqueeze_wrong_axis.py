"""A token mask unsqueezed on the wrong axis before it scales the embeddings.

Source: https://github.com/Wenyueh/MinivLLM/pull/99
``mask`` is ``[batch_size, seq_len]`` and ``output`` (an embedding lookup) is ``[batch_size,
seq_len, embedding_dim]``. ``mask.unsqueeze(1)`` gives ``[batch_size, 1, seq_len]``, which does not
broadcast against the output; ``mask.unsqueeze(-1)`` (``[batch_size, seq_len, 1]``) does.

This copy of ../t03_mask_unsqueeze_wrong_axis.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
import torch.nn.functional as F


def masked_embedding(ids, weight,
                     limit: int):
    mask = ids < limit
    output = F.embedding(ids, weight)
    return mask.unsqueeze(1) * output  # E: shape-broadcast


def main() -> None:
    ids = torch.randint(0, 12, (3, 4))
    masked_embedding(ids, torch.randn(12, 5), 6)
