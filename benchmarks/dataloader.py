"""DataLoader throughput with worker processes: typedtensor vs torch on the same dataset, interleaved.

    python benchmarks/dataloader.py [--workers 2] [--batches 150] [--batch-size 64] [--rounds 5]

The dataset is map-style and builds each sample in numpy (a 3x64x64 float32 image from a per-index
generator, a little arithmetic, an int label), as an image pipeline's transforms would; each library
collates the numpy samples into its own tensors in its workers and hands the batch to the main
process (typedtensor through shared-memory segments, torch through its shared storages). A second
row returns each library's tensors from ``__getitem__`` instead. Rows report batches per second in
steady state (after the first batch, which pays for starting the workers) and including start-up,
as medians over interleaved rounds; ratio = typedtensor / torch (higher is better).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
from _harness import cpu_name


class Images:
    """``n`` samples of (image, label); ``as_tensor`` turns the image into a library tensor."""

    def __init__(self, n: int, as_tensor: Any = None) -> None:
        self.n = n
        self.as_tensor = as_tensor

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[Any, int]:
        rng = np.random.default_rng(i)
        img = rng.random((3, 64, 64), dtype=np.float32)
        img = (img - 0.5) / 0.25  # normalise, as a transform pipeline would
        if self.as_tensor is not None:
            return self.as_tensor(img), i % 10
        return img, i % 10



def _run(loader: Any, batches: int) -> tuple[float, float]:
    """(seconds for the first batch, seconds for the next ``batches``)."""
    t0 = time.perf_counter()
    it = iter(loader)
    next(it)
    t1 = time.perf_counter()
    for _ in range(batches):
        x, _labels = next(it)
        assert int(x.shape[0]) == loader.batch_size
    t2 = time.perf_counter()
    del it
    return t1 - t0, t2 - t1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batches", type=int, default=150)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    import torch
    import torch.utils.data

    import typedtensor as tt
    import typedtensor.data

    n = (args.batches + 1) * args.batch_size
    rows = {
        "numpy samples": (Images(n), Images(n)),
        "tensor samples": (Images(n, tt.from_numpy), Images(n, torch.from_numpy)),
    }
    print(f"# DataLoader, {args.workers} workers, batch {args.batch_size} of 3x64x64 float32, {args.batches} batches")
    print(f"# {cpu_name()}; torch {torch.__version__}; other work may be running")
    print(f"{'dataset':16} {'tt batch/s':>11} {'torch batch/s':>14} {'ratio':>6} {'ratio incl. start':>18}")
    for name, (ours_ds, ref_ds) in rows.items():
        ours_steady, ref_steady, ours_total, ref_total = [], [], [], []
        for k in range(args.rounds):
            ours = typedtensor.data.DataLoader(ours_ds, batch_size=args.batch_size, num_workers=args.workers)
            ref = torch.utils.data.DataLoader(ref_ds, batch_size=args.batch_size, num_workers=args.workers)
            if k % 2:  # alternate which library goes first, so a slow spell of the machine hits both
                start_r, steady_r = _run(ref, args.batches)
                start_o, steady_o = _run(ours, args.batches)
            else:
                start_o, steady_o = _run(ours, args.batches)
                start_r, steady_r = _run(ref, args.batches)
            ours_steady.append(args.batches / steady_o)
            ref_steady.append(args.batches / steady_r)
            ours_total.append((args.batches + 1) / (start_o + steady_o))
            ref_total.append((args.batches + 1) / (start_r + steady_r))
        o, r = statistics.median(ours_steady), statistics.median(ref_steady)
        ratio_total = statistics.median(ours_total) / statistics.median(ref_total)
        spread = f"(rounds {min(a / b for a, b in zip(ours_steady, ref_steady, strict=True)):.2f}-" \
                 f"{max(a / b for a, b in zip(ours_steady, ref_steady, strict=True)):.2f})"
        print(f"{name:16} {o:11.1f} {r:14.1f} {o / r:6.2f} {ratio_total:18.2f}  {spread}")


if __name__ == "__main__":
    main()
