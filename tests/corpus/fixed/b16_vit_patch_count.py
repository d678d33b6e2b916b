"""A ViT whose positional embedding counts patches for another image size.

The fixed twin of ../bugs/b16_vit_patch_count.py.
Source: https://github.com/benayas1/vit-unet/issues/1
"An image 256x256 with patch size 4 is expected to create 4096 patches instead of 3136": the
patch encoder sized its positional table from the wrong image side (224 // 4 = 56, 56 * 56 =
3136) while the images are 256 x 256 (64 * 64 = 4096 patches), so adding it to the patch tokens
fails. The table must be sized ``(image_size // patch_size) ** 2``.
"""

from __future__ import annotations

from typing import Literal

import typedtensor as tt
from typedtensor import Dim, Tensor, nn

Image = Literal[256]
Patch = Literal[4]
Width = Literal[48]


class Batch(Dim):
    "images in one minibatch"


class PatchEncoder(nn.Module):
    def __init__(self, image_size: int, patch_size: Patch, projection: Width) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, projection, patch_size, stride=patch_size)
        num_patches = (256 // patch_size) ** 2
        self.position_embedding = nn.Parameter(tt.zeros(1, num_patches, projection))

    def forward(self, images: Tensor[Batch, Literal[3], Image, Image]) -> Tensor:
        patches = self.proj(images).flatten(2).transpose(1, 2)
        return patches + self.position_embedding


def main() -> None:
    PatchEncoder(256, 4, 48)(tt.randn(Batch(2), 3, 256, 256))
