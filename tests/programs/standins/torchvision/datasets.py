"""Synthetic ``MNIST`` and ``FakeData`` with torchvision's constructor signatures, and ``ImageFolder`` over
image files the tests write.

Each sample is drawn from ``numpy.random.default_rng`` seeded by the dataset and the index, so every
run (and every DataLoader worker) sees the same images; an MNIST image is noise plus a bright square
whose place depends on the label, so the programs' models have something to learn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Transform = Callable[[Any], Any] | None


class MNIST:
    """28x28 uint8 images (torchvision gives PIL images; ``transforms.ToTensor`` takes either)."""

    train_size = 256
    test_size = 64

    def __init__(
        self, root: str, train: bool = True, transform: Transform = None, target_transform: Transform = None,
        download: bool = False,
    ) -> None:
        self.root = root
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        self._seed = 1 if train else 2

    def __len__(self) -> int:
        return self.train_size if self.train else self.test_size

    def _draw(self, index: int) -> tuple[np.ndarray, int]:
        rng = np.random.default_rng((self._seed, index))
        target = int(rng.integers(10))
        img = rng.integers(0, 96, (28, 28), dtype=np.uint8)
        row, col = 4 + 7 * (target // 4), 4 + 6 * (target % 4)
        img[row : row + 6, col : col + 6] = 255
        return img, target

    @property
    def data(self) -> Any:
        """Every image as one uint8 (N, 28, 28) tensor, as torchvision's ``MNIST.data``."""
        import typedtensor as torch

        return torch.from_numpy(np.stack([self._draw(i)[0] for i in range(len(self))]))

    @property
    def targets(self) -> Any:
        """Every label as one int64 (N,) tensor, as torchvision's ``MNIST.targets``."""
        import typedtensor as torch

        return torch.from_numpy(np.array([self._draw(i)[1] for i in range(len(self))], dtype=np.int64))

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if not 0 <= index < len(self):
            raise IndexError(f"MNIST index {index} out of range")
        img, target = self._draw(index)
        sample: Any = self.transform(img) if self.transform is not None else img
        if self.target_transform is not None:
            return sample, self.target_transform(target)
        return sample, target


class FakeData:
    """Random ``image_size`` images (C, H, W) as uint8 H x W x C arrays, and random labels."""

    def __init__(
        self, size: int = 1000, image_size: tuple[int, int, int] = (3, 224, 224), num_classes: int = 10,
        transform: Transform = None, target_transform: Transform = None, random_offset: int = 0,
    ) -> None:
        self.size = size
        self.image_size = image_size
        self.num_classes = num_classes
        self.transform = transform
        self.target_transform = target_transform
        self.random_offset = random_offset

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if not 0 <= index < len(self):
            raise IndexError(f"{type(self).__name__} index {index} is out of bounds")
        rng = np.random.default_rng(index + self.random_offset)
        c, h, w = self.image_size
        img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        target = int(rng.integers(self.num_classes))
        sample: Any = self.transform(img) if self.transform is not None else img
        if self.target_transform is not None:
            return sample, self.target_transform(target)
        return sample, target


IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def pil_loader(path: str) -> Any:
    """torchvision's default loader: the file as an RGB ``PIL`` image."""
    from PIL import Image

    return Image.open(path).convert("RGB")


class ImageFolder:
    """torchvision's ``ImageFolder``: ``root/<class>/<image>``, classes in sorted order, each sample
    ``(transform(loader(path)), class_index)``, samples sorted by class then by file name."""

    def __init__(
        self, root: str, transform: Transform = None, target_transform: Transform = None,
        loader: Callable[[str], Any] = pil_loader, is_valid_file: Callable[[str], bool] | None = None,
    ) -> None:
        import os

        self.root = root
        self.transform = transform
        self.target_transform = target_transform
        self.loader = loader
        self.classes = sorted(entry.name for entry in os.scandir(root) if entry.is_dir())
        if not self.classes:
            raise FileNotFoundError(f"Couldn't find any class folder in {root}.")
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}
        valid = is_valid_file or (lambda path: path.lower().endswith(IMG_EXTENSIONS))
        self.samples: list[tuple[str, int]] = []
        for name in self.classes:
            folder = os.path.join(root, name)
            for dirpath, _, files in sorted(os.walk(folder, followlinks=True)):
                for file in sorted(files):
                    path = os.path.join(dirpath, file)
                    if valid(path):
                        self.samples.append((path, self.class_to_idx[name]))
        self.imgs = self.samples
        self.targets = [target for _, target in self.samples]

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            return sample, self.target_transform(target)
        return sample, target
