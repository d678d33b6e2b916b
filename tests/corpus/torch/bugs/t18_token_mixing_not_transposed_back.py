"""An MLP-Mixer token-mixing block that forgets to transpose back.

Planted, in the token-mixing MLP of https://github.com/lucidrains/mlp-mixer-pytorch: the MLP
mixes along the patch axis, so the block transposes ``[batch, patches, dim]`` to ``[batch, dim,
patches]`` and must transpose the result back; returning it as it is hands the next layer the
axes swapped.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class TokenMixing(nn.Module):
    def __init__(self, num_patches: int, dim: int, expansion: int = 4) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(num_patches, num_patches * expansion), nn.GELU(),
                                 nn.Linear(num_patches * expansion, num_patches))

    def forward(self, x: Float[Tensor, "batch patches dim"]) -> Float[Tensor, "batch patches dim"]:
        return self.mlp(self.norm(x).transpose(1, 2))  # E: shape-return


def main() -> None:
    block = TokenMixing(num_patches=16, dim=8)
    block(torch.randn(2, 16, 8)).mean(dim=1)
