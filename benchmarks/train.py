"""Training-step benchmarks: typedtensor vs torch eager, side by side in one run, same threads.

    python benchmarks/train.py [--threads 2] [--repeats 15] [--markdown] [--precision highest|high|medium]

Workloads (issue 6):
- MLP 784-512-512-10, batch 256: forward + cross-entropy + backward + SGD step;
- transformer block (batch 8, seq 128, d_model 256, 4 heads, MLP 1024): forward + backward, with
  nn.MultiheadAttention, and again with the attention written out (``softmax(q @ k.mT) @ v``) and
  with ``F.scaled_dot_product_attention`` on a QKV projection;
- small CNN (conv32-pool-conv64-pool-fc128-fc10 on 64 x 1 x 28 x 28): forward + backward + SGD step;
- peak memory of the MLP benchmark: the resident-set high-water mark (``VmHWM``, reset through
  ``/proc/self/clear_refs`` after the imports and one step of a tiny model) of a child process per
  library, above its RSS before the MLP is built. The backend has no allocation counter, so this is what both
  libraries can be measured by alike.

Both libraries start from identical weights. Each figure is the median over ``--repeats`` timed
steps after warm-up, the two libraries' steps interleaved; the ratio is typedtensor / torch (lower
is better). ``--precision`` sets both libraries' ``set_float32_matmul_precision`` ("medium": float32
products on the bfloat16 GEMM, NOTE [ float32 matmul precision ] in backend/src/cpu/gemm.cpp).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

CLOCK: Callable[[], float] = time.perf_counter


def compare_ms(ours: Callable[[], Any], ref: Callable[[], Any], repeats: int, warmup: int = 3) -> tuple[float, float]:
    """Median step times, the two libraries' steps interleaved so that both see the same machine
    load (this box is shared; a burst of load then hurts both alike rather than one of them)."""
    for _ in range(warmup):
        ours()
        ref()
    a, b = [], []
    for _ in range(repeats):
        t0 = CLOCK()
        ours()
        t1 = CLOCK()
        ref()
        t2 = CLOCK()
        a.append(t1 - t0)
        b.append(t2 - t1)
    return statistics.median(a) * 1e3, statistics.median(b) * 1e3


# ---------------------------------------------------------------- models (written once, for both)
def mlp(nn: Any) -> Any:
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def cnn(nn: Any) -> Any:
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10),
    )


def block(nn: Any) -> Any:
    """A pre-norm transformer block; ``forward`` is shared through ``_block_forward``."""
    m = nn.ModuleDict({
        "ln1": nn.LayerNorm(256), "attn": nn.MultiheadAttention(256, 4, batch_first=True),
        "ln2": nn.LayerNorm(256), "fc1": nn.Linear(256, 1024), "fc2": nn.Linear(1024, 256),
    })
    return m


def _block_forward(m: Any, F: Any, x: Any) -> Any:
    h = m["ln1"](x)
    a, _ = m["attn"](h, h, h, need_weights=False)
    x = x + a
    return x + m["fc2"](F.gelu(m["fc1"](m["ln2"](x))))


def block_qkv(nn: Any) -> Any:
    """The same pre-norm block with its attention written out (one QKV projection, then either
    ``softmax(q @ k.mT * scale) @ v`` or ``F.scaled_dot_product_attention``)."""
    return nn.ModuleDict({
        "ln1": nn.LayerNorm(256), "qkv": nn.Linear(256, 768), "proj": nn.Linear(256, 256),
        "ln2": nn.LayerNorm(256), "fc1": nn.Linear(256, 1024), "fc2": nn.Linear(1024, 256),
    })


def _block_qkv_forward(m: Any, F: Any, x: Any, sdpa: bool) -> Any:
    b, s, d = x.shape
    q, k, v = (t.reshape(b, s, 4, d // 4).transpose(1, 2) for t in m["qkv"](m["ln1"](x)).chunk(3, -1))
    if sdpa:
        a = F.scaled_dot_product_attention(q, k, v)
    else:
        a = F.softmax(q @ k.transpose(-2, -1) * (1.0 / (d // 4) ** 0.5), -1) @ v
    x = x + m["proj"](a.transpose(1, 2).reshape(b, s, d))
    return x + m["fc2"](F.gelu(m["fc1"](m["ln2"](x))))


def _same_weights(ours: Any, ref: Any, tt: Any) -> None:
    ours.load_state_dict({k: tt.tensor(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})


# ---------------------------------------------------------------- the three timed workloads
def bench_mlp(tt: Any, torch: Any, np: Any, repeats: int) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    ref, ours = mlp(torch.nn), mlp(tt.nn)
    _same_weights(ours, ref, tt)

    def step_tt(model: Any = ours, opt: Any = tt.optim.SGD(ours.parameters(), lr=0.01), xb: Any = tt.tensor(x), yb: Any = tt.tensor(y)) -> None:
        opt.zero_grad()
        tt.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()

    def step_torch(model: Any = ref, opt: Any = torch.optim.SGD(ref.parameters(), lr=0.01), xb: Any = torch.tensor(x), yb: Any = torch.tensor(y)) -> None:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()

    return compare_ms(step_tt, step_torch, repeats)


def bench_block(tt: Any, torch: Any, np: Any, repeats: int) -> tuple[float, float]:
    x = np.random.default_rng(0).standard_normal((8, 128, 256)).astype(np.float32)
    ref, ours = block(torch.nn), block(tt.nn)
    _same_weights(ours, ref, tt)
    xt, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)

    def step_tt() -> None:
        ours.zero_grad()
        _block_forward(ours, tt.nn.functional, xt).mean().backward()

    def step_torch() -> None:
        ref.zero_grad()
        _block_forward(ref, torch.nn.functional, xr).mean().backward()

    return compare_ms(step_tt, step_torch, repeats)


def bench_block_qkv(tt: Any, torch: Any, np: Any, repeats: int, sdpa: bool, bf16: bool = False,
                    autocast: bool = False) -> tuple[float, float]:
    """``bf16``: weights and input in bfloat16 (the loss taken in float32), as a
    ``model.to(torch.bfloat16)`` user runs it. ``autocast``: float32 weights and input, the forward
    under ``autocast("cpu", dtype=bfloat16)``, as a mixed-precision user runs it."""
    x = np.random.default_rng(0).standard_normal((8, 128, 256)).astype(np.float32)
    ref, ours = block_qkv(torch.nn), block_qkv(tt.nn)
    _same_weights(ours, ref, tt)
    xt, xr = tt.tensor(x), torch.tensor(x)
    if bf16:
        ref, ours, xt, xr = ref.to(torch.bfloat16), ours.to(tt.bfloat16), xt.to(tt.bfloat16), xr.to(torch.bfloat16)
    xt.requires_grad = True
    xr.requires_grad = True

    def step_tt() -> None:
        ours.zero_grad()
        with tt.autocast("cpu", dtype=tt.bfloat16, enabled=autocast):
            out = _block_qkv_forward(ours, tt.nn.functional, xt, sdpa)
        (out.float() if bf16 or autocast else out).mean().backward()

    def step_torch() -> None:
        ref.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            out = _block_qkv_forward(ref, torch.nn.functional, xr, sdpa)
        (out.float() if bf16 or autocast else out).mean().backward()

    return compare_ms(step_tt, step_torch, repeats)


def bench_cnn(tt: Any, torch: Any, np: Any, repeats: int) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    ref, ours = cnn(torch.nn), cnn(tt.nn)
    _same_weights(ours, ref, tt)
    opt_t, opt_r = tt.optim.SGD(ours.parameters(), lr=0.01), torch.optim.SGD(ref.parameters(), lr=0.01)
    xt, yt, xr, yr = tt.tensor(x), tt.tensor(y), torch.tensor(x), torch.tensor(y)

    def step_tt() -> None:
        opt_t.zero_grad()
        tt.nn.functional.cross_entropy(ours(xt), yt).backward()
        opt_t.step()

    def step_torch() -> None:
        opt_r.zero_grad()
        torch.nn.functional.cross_entropy(ref(xr), yr).backward()
        opt_r.step()

    return compare_ms(step_tt, step_torch, repeats)


# ---------------------------------------------------------------- peak memory (child processes)
def _proc_status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def memory_child(lib: str, threads: int, steps: int) -> None:
    """Print the MLP benchmark's peak RSS above the RSS before the model exists (bytes)."""
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    if lib == "typedtensor":
        import typedtensor as m

        m.set_num_threads(threads)
        F, optim, tensor = m.nn.functional, m.optim, m.tensor
    else:
        import torch as m  # type: ignore[no-redef]

        m.set_num_threads(threads)
        F, optim, tensor = m.nn.functional, m.optim, m.tensor
    xb, yb = tensor(x), tensor(y)
    # One step of a tiny model first, so lazily initialised library state (kernel tables, thread
    # pools, the autograd engine) is not counted as the MLP's memory.
    tiny = m.nn.Linear(4, 2)
    F.cross_entropy(tiny(tensor(x[:3, :4])), yb[:3] % 2).backward()
    optim.SGD(tiny.parameters(), lr=0.1).step()
    del tiny
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    base = _proc_status("VmRSS")
    model = mlp(m.nn)
    opt = optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        opt.step()
    print(_proc_status("VmHWM") - base)


def peak_memory(threads: int) -> tuple[int, int] | None:
    if not os.path.exists("/proc/self/clear_refs"):
        return None
    out = []
    for lib in ("typedtensor", "torch"):
        proc = subprocess.run(
            [sys.executable, __file__, "--memory-child", lib, "--threads", str(threads)],
            capture_output=True, text=True, check=True, cwd=os.path.dirname(os.path.abspath(__file__)),
        )
        out.append(int(proc.stdout.strip().splitlines()[-1]))
    return out[0], out[1]


# ---------------------------------------------------------------- report
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time with the process's CPU clock (with --threads 1: robust to other load on the machine)")
    ap.add_argument("--only", choices=["mlp", "block", "block-explicit", "block-sdpa", "block-explicit-bf16",
                                       "block-sdpa-bf16", "block-sdpa-autocast", "cnn", "memory"], action="append")
    ap.add_argument("--precision", choices=["highest", "high", "medium"], default="highest")
    ap.add_argument("--memory-child", choices=["typedtensor", "torch"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    if args.memory_child:
        memory_child(args.memory_child, args.threads, steps=10)
        return
    global CLOCK
    if args.cpu_time:
        CLOCK = time.process_time
    import numpy as np
    import torch

    import typedtensor as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    tt.set_float32_matmul_precision(args.precision)
    torch.set_float32_matmul_precision(args.precision)
    if args.precision != "highest":
        print(f"float32 matmul precision: {args.precision}")
    tt.manual_seed(0)
    torch.manual_seed(0)
    targets = {"mlp": 1.0, "block": 1.2, "block-explicit": 0.9, "block-sdpa": 0.9, "block-explicit-bf16": 1.0,
               "block-sdpa-bf16": 1.0, "block-sdpa-autocast": 1.0, "cnn": 1.5}
    names = {
        "mlp": "MLP 784-512-512-10, batch 256 (fwd+bwd+SGD)",
        "block": "transformer block b8 s128 d256 h4 mlp1024 (fwd+bwd)",
        "block-explicit": "same block, attention written out (fwd+bwd)",
        "block-sdpa": "same block, F.scaled_dot_product_attention (fwd+bwd)",
        "block-explicit-bf16": "same block, attention written out, bfloat16",
        "block-sdpa-bf16": "same block, SDPA, bfloat16",
        "block-sdpa-autocast": "same block, SDPA, float32 under autocast bfloat16",
        "cnn": "small CNN 64x1x28x28 (fwd+bwd+SGD)",
    }
    rows = []
    benches: tuple[tuple[str, Callable[..., tuple[float, float]]], ...] = (
        ("mlp", bench_mlp), ("block", bench_block),
        ("block-explicit", lambda t, r, n, k: bench_block_qkv(t, r, n, k, sdpa=False)),
        ("block-sdpa", lambda t, r, n, k: bench_block_qkv(t, r, n, k, sdpa=True)), ("cnn", bench_cnn),
        ("block-explicit-bf16", lambda t, r, n, k: bench_block_qkv(t, r, n, k, sdpa=False, bf16=True)),
        ("block-sdpa-bf16", lambda t, r, n, k: bench_block_qkv(t, r, n, k, sdpa=True, bf16=True)),
        ("block-sdpa-autocast", lambda t, r, n, k: bench_block_qkv(t, r, n, k, sdpa=True, autocast=True)))
    for key, fn in benches:
        if (args.only and key not in args.only) or (not args.only and key.endswith(("-bf16", "-autocast"))):
            continue  # the bfloat16 rows run when named
        ours, ref = fn(tt, torch, np, args.repeats)
        rows.append((names[key], ours, ref, targets[key]))
        if not args.markdown:
            print(f"{names[key]:55s} tt {ours:8.2f} ms  torch {ref:8.2f} ms  ratio {ours / ref:5.2f} (target <= {targets[key]})", flush=True)
    mem = peak_memory(args.threads) if not args.only or "memory" in args.only else None
    if mem and not args.markdown:
        print(f"{'MLP peak memory above baseline (VmHWM)':55s} tt {mem[0] / 2**20:8.1f} MiB torch {mem[1] / 2**20:8.1f} MiB ratio {mem[0] / mem[1]:5.2f} (target <= 1.2)")
    if args.markdown:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, "
              f"{os.cpu_count()} CPUs, {args.threads} threads, torch {torch.__version__}, load average {load:.1f}, "
              f"{'CPU' if args.cpu_time else 'wall'} clock, float32 matmul precision {args.precision}.\n")
        print("| workload | typedtensor | torch eager | ratio | target |")
        print("| --- | --- | --- | --- | --- |")
        for name, ours, ref, target in rows:
            print(f"| {name} | {ours:.2f} ms | {ref:.2f} ms | {ours / ref:.2f} | ≤ {target} |")
        if mem:
            print(f"| MLP peak memory above baseline | {mem[0] / 2**20:.1f} MiB | {mem[1] / 2**20:.1f} MiB | {mem[0] / mem[1]:.2f} | ≤ 1.2 |")


if __name__ == "__main__":
    main()
