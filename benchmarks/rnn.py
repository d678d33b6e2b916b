"""Recurrent layers, forward + backward, typedtensor vs torch side by side in one process.

    python benchmarks/rnn.py [--threads 2] [--repeats 15] [--clock wall|cpu] [--rows N]

Each row builds the same module in both libraries (torch's weights copied into typedtensor's),
then times ``out, _ = module(x)`` and ``out.backward(g)`` (gradients of x and every parameter),
the libraries' steps interleaved round-robin (median of ``--repeats``), plus typedtensor's
composite of ordinary ops (``typedtensor.nn.rnn.use_fused(False)``) beside them. The headline row
is issue 17's: LSTM, 2 layers, batch 32, sequence 64, input and hidden 256. The ratio is
typedtensor fused / torch (lower is better).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np
from _harness import cpu_name, interleaved

CLOCK = "wall"  # --clock: "wall" or "cpu" (_harness.CLOCKS)



def case(tt: Any, torch: Any, name: str, layers: int, batch: int, seq: int, size: int, repeats: int,
         composite: bool) -> dict[str, float]:
    torch.manual_seed(0)
    ref = getattr(torch.nn, name)(size, size, num_layers=layers)
    ours = getattr(tt.nn, name)(size, size, num_layers=layers)
    ours.load_state_dict({k: tt.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((seq, batch, size), dtype=np.float32)
    gn = rng.standard_normal((seq, batch, size), dtype=np.float32)
    x, tx = tt.tensor(xn, requires_grad=True), torch.tensor(xn, requires_grad=True)
    g, tg = tt.tensor(gn), torch.tensor(gn)

    def ours_step() -> None:
        x.grad = None
        ours.zero_grad()
        ours(x)[0].backward(g)

    def composite_step() -> None:
        with tt.nn.rnn.use_fused(False):
            ours_step()

    def ref_step() -> None:
        tx.grad = None
        ref.zero_grad()
        ref(tx)[0].backward(tg)

    ours_step()
    ref_step()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-3, atol=1e-4)
    fns = {"typedtensor fused": ours_step, "torch": ref_step}
    if composite:
        fns["typedtensor composite"] = composite_step
    return interleaved(fns, repeats, clock=CLOCK)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--rows", type=int, default=None, help="only the first N rows (the first is the headline)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = args.clock
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import torch

    import typedtensor as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    cpu = cpu_name()
    print(f"# {cpu}, {os.cpu_count()} CPUs, {args.threads} threads, torch {torch.__version__} "
          f"(mkldnn {torch.backends.mkldnn.is_available()}), BLAS {tt.backends.cpu.get_blas()}, {args.clock} clock, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| module | layers | batch | seq | input = hidden | typedtensor fused | typedtensor composite | torch "
          "| fused / torch |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, layers, batch, seq, size, composite in (
        ("LSTM", 2, 32, 64, 256, True), ("GRU", 2, 32, 64, 256, False), ("RNN", 2, 32, 64, 256, False),
        ("LSTM", 1, 8, 28, 64, True),  # mnist_rnn's size
    )[: args.rows]:
        t = case(tt, torch, name, layers, batch, seq, size, args.repeats, composite)
        f, r = t["typedtensor fused"], t["torch"]
        c = f"{t['typedtensor composite'] * 1e3:.1f} ms" if composite else "-"
        print(f"| {name} | {layers} | {batch} | {seq} | {size} | {f * 1e3:.1f} ms | {c} | {r * 1e3:.1f} ms | {f / r:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
