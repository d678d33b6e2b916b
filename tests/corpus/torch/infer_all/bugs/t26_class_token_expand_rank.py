"""A ViT class token expanded with too few sizes.

Planted, in the class-token step of a ViT (https://github.com/lucidrains/vit-pytorch, which
writes it with einops ``repeat``): the token is a ``[1, 1, dim]`` parameter and
``expand(batch, -1)`` names two sizes for three axes ("the number of sizes provided (2) must be
greater or equal to the number of dimensions in the tensor (3)"). The fix is
``expand(batch, -1, -1)``.

This copy of ../t26_class_token_expand_rank.py has its jaxtyping annotations removed, as the program was first written:
``--infer-all`` checks it on the shapes ``main()`` passes.
"""

import torch
from torch import nn


class ClassToken(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))

    def forward(self, patches):
        cls = self.cls_token.expand(patches.size(0), -1)  # E: shape-rank
        return torch.cat([cls, patches], dim=1)


def main() -> None:
    ClassToken(8)(torch.randn(2, 4, 8))
