"""A ViT class token expanded with too few sizes.

Planted, in the class-token step of a ViT (https://github.com/lucidrains/vit-pytorch, which
writes it with einops ``repeat``): the token is a ``[1, 1, dim]`` parameter and
``expand(batch, -1)`` names two sizes for three axes ("the number of sizes provided (2) must be
greater or equal to the number of dimensions in the tensor (3)"). The fix is
``expand(batch, -1, -1)``.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class ClassToken(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))

    def forward(self, patches: Float[Tensor, "batch n dim"]) -> Float[Tensor, "batch n+1 dim"]:
        cls = self.cls_token.expand(patches.size(0), -1, -1)
        return torch.cat([cls, patches], dim=1)


def main() -> None:
    ClassToken(8)(torch.randn(2, 4, 8))
