"""ConvTranspose2d on dcgan's generator shapes, typedtensor vs torch side by side in one process.

    python benchmarks/conv_transpose.py [--threads 2] [--repeats 15] [--batch 64] [--clock wall|cpu]

pytorch/examples' dcgan generator (nz=100, ngf=64, nc=3) is five transposed convolutions, 4x4
kernels: 100 -> 512 (1x1 -> 4x4, stride 1, no padding), then 512 -> 256 -> 128 -> 64 -> 3 (stride 2,
padding 1, each doubling the image). Each row times one layer on the same input, both libraries'
steps interleaved round-robin (median of ``--repeats``): the forward alone, and forward + backward
(the gradients of the input and the weight). The ratio is typedtensor / torch (lower is better).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np
from _harness import cpu_name, interleaved

CLOCK = "wall"  # --clock: "wall" or "cpu" (_harness.CLOCKS)

# (C_in, C_out, input size, stride, padding) of dcgan's generator
LAYERS = ((100, 512, 1, 1, 0), (512, 256, 4, 2, 1), (256, 128, 8, 2, 1), (128, 64, 16, 2, 1), (64, 3, 32, 2, 1))



def layer(tt: Any, torch: Any, cin: int, cout: int, size: int, stride: int, pad: int, batch: int,
          repeats: int) -> dict[str, float]:
    ref = torch.nn.ConvTranspose2d(cin, cout, 4, stride, pad, bias=False)
    ours = tt.nn.ConvTranspose2d(cin, cout, 4, stride, pad, bias=False)
    ours.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((batch, cin, size, size), dtype=np.float32)
    xo, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out = (size - 1) * stride - 2 * pad + 4
    g = np.random.default_rng(1).standard_normal((batch, cout, out, out), dtype=np.float32)
    go, gr = tt.tensor(g), torch.tensor(g)

    def fwd_ours() -> None:
        with tt.no_grad():
            ours(xo)

    def fwd_ref() -> None:
        with torch.no_grad():
            ref(xr)

    def step_ours() -> None:
        xo.grad = None
        ours.weight.grad = None
        ours(xo).backward(go)

    def step_ref() -> None:
        xr.grad = None
        ref.weight.grad = None
        ref(xr).backward(gr)

    step_ours()
    step_ref()
    np.testing.assert_allclose(ours(xo).detach().numpy(), ref(xr).detach().numpy(), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(xo.grad.numpy(), xr.grad.numpy(), rtol=1e-3, atol=1e-3)
    return interleaved({"fwd ours": fwd_ours, "fwd torch": fwd_ref, "step ours": step_ours, "step torch": step_ref},
                       repeats, clock=CLOCK)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = ap.parse_args()
    global CLOCK
    CLOCK = args.clock
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import torch

    import typedtensor as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    cpu = cpu_name()
    print(f"# {cpu}, {os.cpu_count()} CPUs, {args.threads} threads, torch {torch.__version__}, batch {args.batch}, "
          f"{args.clock} clock, load average {os.getloadavg()[0]:.1f}\n")
    print("| layer (in -> out, size, stride) | fwd typedtensor | fwd torch | fwd ratio | fwd+bwd typedtensor | "
          "fwd+bwd torch | fwd+bwd ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    totals = dict.fromkeys(("fwd ours", "fwd torch", "step ours", "step torch"), 0.0)
    for cin, cout, size, stride, pad in LAYERS:
        t = layer(tt, torch, cin, cout, size, stride, pad, args.batch, args.repeats)
        for k in totals:
            totals[k] += t[k]
        print(f"| {cin} -> {cout}, {size}x{size}, s{stride} | {t['fwd ours'] * 1e3:.2f} ms | "
              f"{t['fwd torch'] * 1e3:.2f} ms | {t['fwd ours'] / t['fwd torch']:.2f} | {t['step ours'] * 1e3:.2f} ms | "
              f"{t['step torch'] * 1e3:.2f} ms | {t['step ours'] / t['step torch']:.2f} |", flush=True)
    print(f"| generator (sum) | {totals['fwd ours'] * 1e3:.2f} ms | {totals['fwd torch'] * 1e3:.2f} ms | "
          f"{totals['fwd ours'] / totals['fwd torch']:.2f} | {totals['step ours'] * 1e3:.2f} ms | "
          f"{totals['step torch'] * 1e3:.2f} ms | {totals['step ours'] / totals['step torch']:.2f} |")


if __name__ == "__main__":
    main()
