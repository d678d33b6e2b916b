"""A ViT whose positional embedding counts patches for another image size.

Source: https://github.com/benayas1/vit-unet/issues/1
"An image 256x256 with patch size 4 is expected to create 4096 patches instead of 3136": the
patch encoder sized its positional table from the wrong image side (224 // 4 = 56, 56 * 56 =
3136) while the images are 256 x 256 (64 * 64 = 4096 patches), so adding it to the patch tokens
fails. The table must be sized ``(image_size // patch_size) ** 2``.
"""

import torch
from jaxtyping import Float
from torch import Tensor, nn


class PatchEncoder(nn.Module):
    def __init__(self, image_size: int = 224, patch_size: int = 4, dim: int = 32) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)
        self.position_embedding = nn.Parameter(torch.zeros(1, (256 // 4) ** 2, 32))

    def forward(self, images: Float[Tensor, "batch 3 256 256"]) -> Float[Tensor, "batch 4096 32"]:
        patches = self.proj(images).flatten(2).transpose(1, 2)
        return patches + self.position_embedding


def main() -> None:
    PatchEncoder()(torch.randn(2, 3, 256, 256))
