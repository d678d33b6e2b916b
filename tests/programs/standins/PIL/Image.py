"""``PIL.Image`` for the ported programs: ``open`` / ``fromarray`` / ``save`` on PNG files (8-bit,
grayscale or RGB, not interlaced), ``convert`` between ``L``, ``RGB`` and ``YCbCr`` with Pillow's
formulas, ``split``, ``merge``, ``copy``, ``crop`` and ``resize`` (a separable triangle filter widened
by the downscale factor, as Pillow's ``BILINEAR``; ``BICUBIC`` and ``LANCZOS`` resize with it too,
``NEAREST`` picks the nearest pixel).

The test data is written by the tests with this module, so reading only what it writes (filter types
0 to 2) is enough; any other PNG is refused rather than misread."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

NEAREST = 0
LANCZOS = 1
BILINEAR = 2
BICUBIC = 3

_CHANNELS = {"L": 1, "RGB": 3, "YCbCr": 3}
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_COLOUR = {0: "L", 2: "RGB"}


class Image:
    """An image: a uint8 array, H x W (mode ``L``) or H x W x 3 (``RGB``, ``YCbCr``)."""

    def __init__(self, array: np.ndarray, mode: str) -> None:
        if mode not in _CHANNELS:
            raise ValueError(f"unsupported image mode {mode!r}")
        self._array = np.ascontiguousarray(array, dtype=np.uint8)
        self.mode = mode

    @property
    def size(self) -> tuple[int, int]:
        """(width, height), as Pillow."""
        return int(self._array.shape[1]), int(self._array.shape[0])

    @property
    def width(self) -> int:
        return self.size[0]

    @property
    def height(self) -> int:
        return self.size[1]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._array.copy() if dtype is None else self._array.astype(dtype)

    def copy(self) -> Image:
        return Image(self._array.copy(), self.mode)

    def convert(self, mode: str) -> Image:
        if mode == self.mode:
            return self.copy()
        rgb = self._to_rgb()
        if mode == "RGB":
            return Image(rgb, "RGB")
        r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
        if mode == "L":
            return Image(_round(r * 0.299 + g * 0.587 + b * 0.114), "L")
        if mode == "YCbCr":
            y = r * 0.299 + g * 0.587 + b * 0.114
            cb = 128.0 - r * 0.168736 - g * 0.331264 + b * 0.5
            cr = 128.0 + r * 0.5 - g * 0.418688 - b * 0.081312
            return Image(_round(np.stack([y, cb, cr], axis=-1)), "YCbCr")
        raise ValueError(f"conversion to {mode!r} is not supported")

    def _to_rgb(self) -> np.ndarray:
        if self.mode == "RGB":
            return self._array
        if self.mode == "L":
            return np.repeat(self._array[..., None], 3, axis=-1)
        y, cb, cr = (self._array[..., i].astype(np.float64) for i in range(3))
        r = y + 1.402 * (cr - 128.0)
        g = y - 0.344136 * (cb - 128.0) - 0.714136 * (cr - 128.0)
        b = y + 1.772 * (cb - 128.0)
        return _round(np.stack([r, g, b], axis=-1))

    def split(self) -> tuple[Image, ...]:
        if self.mode == "L":
            return (self.copy(),)
        return tuple(Image(self._array[..., i], "L") for i in range(self._array.shape[-1]))

    def crop(self, box: Sequence[int]) -> Image:
        """The (left, upper, right, lower) box; outside the image reads as zeros, as in Pillow."""
        left, upper, right, lower = (int(v) for v in box)
        out = np.zeros((lower - upper, right - left, *self._array.shape[2:]), dtype=np.uint8)
        h, w = self._array.shape[:2]
        src = self._array[max(upper, 0) : min(lower, h), max(left, 0) : min(right, w)]
        out[max(-upper, 0) : max(-upper, 0) + src.shape[0], max(-left, 0) : max(-left, 0) + src.shape[1]] = src
        return Image(out, self.mode)

    def resize(self, size: Sequence[int], resample: int | None = None, **kwargs: Any) -> Image:
        width, height = (int(v) for v in size)
        if resample == NEAREST:
            rows = (np.arange(height) + 0.5) * self.height / height
            cols = (np.arange(width) + 0.5) * self.width / width
            return Image(self._array[rows.astype(np.int64)][:, cols.astype(np.int64)], self.mode)
        data = self._array.astype(np.float64)
        data = _resample_axis(data, height, axis=0)
        data = _resample_axis(data, width, axis=1)
        return Image(_round(data), self.mode)

    def save(self, fp: str | Path, format: str | None = None, **params: Any) -> None:
        Path(fp).write_bytes(_encode_png(self._array, self.mode))


def _round(values: np.ndarray) -> np.ndarray:
    return np.clip(np.floor(values + 0.5), 0, 255).astype(np.uint8)


def _resample_axis(data: np.ndarray, out_len: int, axis: int) -> np.ndarray:
    """Each output sample is the triangle-weighted mean of the inputs under it, the triangle's
    support widened by the downscale factor (antialiasing), as Pillow's bilinear filter."""
    in_len = data.shape[axis]
    scale = in_len / out_len
    support = max(scale, 1.0)
    centres = (np.arange(out_len) + 0.5) * scale
    src = np.arange(in_len) + 0.5
    weights = np.clip(1.0 - np.abs(src[None, :] - centres[:, None]) / support, 0.0, None)
    weights /= weights.sum(axis=1, keepdims=True)
    return np.moveaxis(np.tensordot(weights, np.moveaxis(data, axis, 0), axes=(1, 0)), 0, axis)


def fromarray(obj: Any, mode: str | None = None) -> Image:
    array = np.asarray(obj)
    if array.dtype != np.uint8:
        raise TypeError(f"fromarray: only uint8 arrays are supported here, got {array.dtype}")
    if mode is None:
        mode = {2: "L", 3: "RGB"}.get(array.ndim)
        if mode is None or (array.ndim == 3 and array.shape[-1] != 3):
            raise TypeError(f"fromarray: cannot tell the mode of an array of shape {array.shape}")
    return Image(array, mode)


def merge(mode: str, bands: Sequence[Image]) -> Image:
    """One image from single-band (``L``) images, one per channel of ``mode``."""
    if len(bands) != _CHANNELS[mode] or any(b.mode != "L" for b in bands):
        raise ValueError(f"merge: {mode!r} takes {_CHANNELS[mode]} 'L' bands")
    if len({b.size for b in bands}) != 1:
        raise ValueError("merge: the bands differ in size")
    if mode == "L":
        return bands[0].copy()
    return Image(np.stack([np.asarray(b) for b in bands], axis=-1), mode)


def new(mode: str, size: Sequence[int], color: int | Sequence[int] = 0) -> Image:
    width, height = (int(v) for v in size)
    shape = (height, width) if _CHANNELS[mode] == 1 else (height, width, _CHANNELS[mode])
    array = np.empty(shape, dtype=np.uint8)
    array[...] = color
    return Image(array, mode)


def open(fp: str | Path, mode: str = "r", formats: Any = None) -> Image:
    data = Path(fp).read_bytes()
    if not data.startswith(_PNG_SIGNATURE):
        raise ValueError(f"{fp}: only PNG files are read by this stand-in")
    pos, idat, header = len(_PNG_SIGNATURE), b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError(f"{fp}: no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in _PNG_COLOUR or interlace != 0:
        raise ValueError(f"{fp}: only 8-bit grayscale or RGB PNGs without interlacing are read here")
    channels = _CHANNELS[_PNG_COLOUR[colour]]
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, stride + 1)
    rows = np.empty((height, stride), dtype=np.uint8)
    for i in range(height):
        kind, line = int(raw[i, 0]), raw[i, 1:]
        if kind == 0:
            rows[i] = line
        elif kind == 1:  # Sub: each byte adds the one a pixel to its left (uint8 sums wrap, as PNG's)
            rows[i] = np.cumsum(line.reshape(width, channels), axis=0, dtype=np.uint8).reshape(-1)
        elif kind == 2:  # Up
            rows[i] = line + (rows[i - 1] if i else np.uint8(0))
        else:
            raise ValueError(f"{fp}: PNG filter type {kind} is not read by this stand-in")
    array = rows.reshape(height, width) if channels == 1 else rows.reshape(height, width, channels)
    return Image(array, _PNG_COLOUR[colour])


def _encode_png(array: np.ndarray, mode: str) -> bytes:
    if mode not in ("L", "RGB"):
        raise ValueError(f"saving a {mode!r} image is not supported here")
    height, width = array.shape[:2]
    raw = np.concatenate([np.zeros((height, 1), dtype=np.uint8), array.reshape(height, -1)], axis=1)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    colour = 0 if mode == "L" else 2
    return (_PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw.tobytes())) + chunk(b"IEND", b""))
