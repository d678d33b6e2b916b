"""Scaled-dot-product attention, forward + backward, typedtensor vs torch side by side in one process.

    python benchmarks/attention.py [--threads 2] [--repeats 15] [--clock wall|cpu]

Shapes: q, k, v [b, h, s, d] float32; is_causal and no mask, a bool padding mask, and no mask at
all. Each row times ``out = F.scaled_dot_product_attention(q, k, v, ...)`` and
``out.backward(g)`` (gradients of q, k and v), both libraries' steps interleaved round-robin
(median of ``--repeats``), and typedtensor's composite (explicit ``softmax(q @ k.mT * scale) @ v``)
beside them. The ratio is typedtensor fused / torch (lower is better).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import numpy as np
from _harness import cpu_name, interleaved

CLOCK = "wall"  # --clock: "wall" or "cpu" (_harness.CLOCKS)



def case(tt: Any, torch: Any, shape: tuple[int, int, int, int], mask: str, repeats: int) -> dict[str, float]:
    b, _, s, d = shape
    rng = np.random.default_rng(0)
    qn, kn, vn, gn = (rng.standard_normal(shape, dtype=np.float32) for _ in range(4))
    causal = mask == "causal"
    mn = None
    if mask == "padding":  # the last quarter of each sequence's keys is padding
        mn = np.ones((b, 1, 1, s), dtype=bool)
        mn[..., 3 * s // 4 :] = False
    q, k, v = (tt.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (qn, kn, vn))
    g, tg = tt.tensor(gn), torch.tensor(gn)
    m = tt.tensor(mn) if mn is not None else None
    tm = torch.tensor(mn) if mn is not None else None
    scale = 1.0 / d**0.5

    def ours() -> None:
        q.grad = k.grad = v.grad = None
        tt.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal).backward(g)

    def composite() -> None:
        q.grad = k.grad = v.grad = None
        sc = q @ k.mT * scale
        if causal:
            sc = sc.masked_fill(tt.ones(s, s, dtype=tt.bool).tril().logical_not(), float("-inf"))
        elif m is not None:
            sc = sc.masked_fill(m.logical_not(), float("-inf"))
        (sc.softmax(-1) @ v).backward(g)

    def ref() -> None:
        tq.grad = tk.grad = tv.grad = None
        torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=causal).backward(tg)

    ours()
    ref()
    np.testing.assert_allclose(q.grad.numpy(), tq.grad.numpy(), rtol=1e-3, atol=1e-4)
    return interleaved({"typedtensor fused": ours, "typedtensor composite": composite, "torch": ref}, repeats, clock=CLOCK)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=15)
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
    print(f"# {cpu}, {os.cpu_count()} CPUs, {args.threads} threads, torch {torch.__version__}, "
          f"BLAS {tt.backends.cpu.get_blas()}, {args.clock} clock, load average {os.getloadavg()[0]:.1f}\n")
    print("| q, k, v [b, h, s, d] | mask | typedtensor fused | typedtensor composite | torch | fused / torch |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for shape, mask in (((8, 8, 512, 64), "causal"), ((8, 8, 512, 64), "none"), ((8, 8, 512, 64), "padding"),
                        ((8, 4, 128, 64), "none")):
        t = case(tt, torch, shape, mask, args.repeats)
        f, c, r = t["typedtensor fused"], t["typedtensor composite"], t["torch"]
        print(f"| {list(shape)} | {mask} | {f * 1e3:.2f} ms | {c * 1e3:.2f} ms | {r * 1e3:.2f} ms | {f / r:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
