"""Graph mode vs eager vs torch vs numpy, side by side in one process.

1. The elementwise chain ``y = relu(tanh(x * w + b) * 0.5 + 1)`` with x of 4M float32
   ([4096, 1024]) and w, b per-column vectors ([1024]): typedtensor eager, typedtensor compiled,
   torch eager, torch.compile (when it works on this machine), numpy; and the memory-bandwidth bound
   = bytes the chain must move (read x, write y) / the copy bandwidth measured here (numpy copyto
   of 64 MB, counting read + write).
2. Training steps (forward + backward, gradients into .grad): an MLP, a one-block attention
   transformer and the small CNN of train.py, typedtensor eager vs compiled vs torch eager vs
   torch.compile.
3. The same models' full training steps (forward + backward + AdamW or SGD-with-momentum update),
   the optimizer's update traced into the compiled step.

usage: python benchmarks/compile.py [--threads 2] [--repeats 15] [--clock wall|cpu] [--skip-chain]
       [--skip-fwd-bwd] [--optimizers adamw,sgd] [--epilogue-ab]

``--epilogue-ab`` adds, to every training row, the compiled step with the ``epilogue`` pass off,
interleaved with the others: the pass's A/B in one process.

``--clock cpu`` times with the process's CPU time instead of wall time: on a machine shared with
other jobs, wall time mostly measures the scheduler; with ``--threads 1`` CPU time is the work done.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

import numpy as np
from _harness import cpu_name, interleaved

CLOCK = "wall"  # --clock: "wall" or "cpu" (_harness.CLOCKS)
EPILOGUE_AB = False  # --epilogue-ab: also time each compiled step with the epilogue pass off
NO_EPILOGUE_ROW = "typedtensor compiled, epilogue pass off"


def _no_epilogue(tt: Any) -> list[str]:
    """The default pipeline without the GEMM epilogues (NOTE [ GEMM epilogues ] in backend/src/graph/epilogue.cpp)."""
    from typedtensor.graph import PASSES

    return [p for p in PASSES if p != "epilogue"]



def fmt(t: float | None) -> str:
    if t is None:
        return "—"
    return f"{t * 1e3:.2f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} µs"


def try_torch_compile(torch: Any, fn: Callable[..., Any], *args: Any) -> tuple[Callable[[], Any] | None, str]:
    try:
        cfn = torch.compile(fn)
        cfn(*args)
        return (lambda: cfn(*args)), ""
    except Exception as e:
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"


def chain(tt: Any, torch: Any, repeats: int) -> list[tuple[str, float | None, str]]:
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((4096, 1024), dtype=np.float32)
    wn = rng.standard_normal(1024, dtype=np.float32)
    bn = rng.standard_normal(1024, dtype=np.float32)
    x, w, b = tt.from_numpy(xn), tt.from_numpy(wn), tt.from_numpy(bn)
    tx, tw, tb = torch.from_numpy(xn), torch.from_numpy(wn), torch.from_numpy(bn)

    def f(x: Any, w: Any, b: Any) -> Any:
        return (tt.tanh(x * w + b) * 0.5 + 1.0).relu()

    def tf(x: Any, w: Any, b: Any) -> Any:
        return torch.relu(torch.tanh(x * w + b) * 0.5 + 1.0)

    cf = tt.compile(f)
    np.testing.assert_allclose(cf(x, w, b).numpy(), f(x, w, b).numpy(), rtol=1e-5, atol=1e-6)
    cache = tt.backends.cpu
    limit = cache.cache_info()["limit_bytes"]

    def compiled_no_cache() -> Any:
        """The same call with the large-buffer cache off: its 16 MB output is mapped anew."""
        cache.set_cache_limit(0)
        try:
            return cf(x, w, b)
        finally:
            cache.set_cache_limit(limit)

    fns: dict[str, Callable[[], Any]] = {
        "typedtensor eager": lambda: f(x, w, b),
        "typedtensor compiled": lambda: cf(x, w, b),
        "typedtensor compiled, buffer cache off": compiled_no_cache,
        "torch eager": lambda: tf(tx, tw, tb),
    }
    tc, why = try_torch_compile(torch, tf, tx, tw, tb)
    if tc:
        fns["torch.compile"] = tc
    fns["numpy"] = lambda: np.maximum(np.tanh(xn * wn + bn) * 0.5 + 1.0, 0.0)
    src = np.ones(16 * 1024 * 1024, dtype=np.float32)
    dst = np.empty_like(src)
    fns["copy 64 MB"] = lambda: np.copyto(dst, src)
    t = interleaved(fns, repeats, clock=CLOCK)
    notes = {"typedtensor compiled": cf.graph_for(x, w, b).kernels()[0][0], "torch.compile": why}
    names = ("typedtensor eager", "typedtensor compiled", "typedtensor compiled, buffer cache off", "torch eager",
             "torch.compile", "numpy")
    rows: list[tuple[str, float | None, str]] = [(k, t.get(k), notes.get(k, "")) for k in names]
    bw = 2 * src.nbytes / t["copy 64 MB"]
    moved = xn.nbytes * 2 + wn.nbytes + bn.nbytes
    rows.append(("bandwidth bound", moved / bw, f"{moved / 1e6:.0f} MB at {bw / 1e9:.1f} GB/s copy bandwidth"))
    return rows


def _tt_params(tt: Any, shapes: list[tuple[int, ...]], seed: int, out_first: bool = False) -> list[Any]:
    """Normal weights scaled by 1/sqrt(fan-in). The MLP and the block multiply ``x @ w`` (fan-in is a
    weight's first dim); the CNN's conv and ``F.linear`` weights are [out, in, ...] (fan-in is the
    product of the other dims). Scaled by the wrong dim, the CNN starts at a loss of ~160 and SGD
    with momentum diverges to NaN within ten steps, so its full-step rows would time NaN arithmetic."""
    rng = np.random.default_rng(seed)
    ps = []
    for s in shapes:
        fan_in = int(np.prod(s[1:])) if out_first and len(s) > 1 else s[0]
        t = tt.from_numpy((rng.standard_normal(s) * (1.0 / np.sqrt(fan_in))).astype(np.float32))
        t.requires_grad = True
        ps.append(t)
    return ps


def mlp_loss(lib: Any, ps: list[Any], x: Any, y: Any) -> Any:
    w1, b1, w2, b2, w3, b3 = ps
    h = lib.relu(x @ w1 + b1)
    h = lib.tanh(h @ w2 + b2) * 0.5 + h * 0.5
    out = h @ w3 + b3
    return ((out - y) ** 2).mean()


def attn_loss(lib: Any, ps: list[Any], x: Any, y: Any, ln: Callable[..., Any]) -> Any:
    wq, wk, wv, wo, g, b, w1, w2 = ps
    d = x.shape[-1]
    h = ln(x, (d,), g, b, 1e-5)
    q, k, v = h @ wq, h @ wk, h @ wv
    att = (q @ k.transpose(-1, -2) * (1.0 / d**0.5)).softmax(-1)
    x = (att @ v) @ wo + x
    x = x + lib.relu(x @ w1) @ w2
    return ((x - y) ** 2).mean()


def cnn_loss(lib: Any, ps: list[Any], x: Any, y: Any) -> Any:
    """The small CNN of benchmarks/train.py (conv32-pool-conv64-pool-fc128-fc10 on 1 x 28 x 28)."""
    F = lib.nn.functional
    c1, b1, c2, b2, w3, b3, w4, b4 = ps
    h = F.max_pool2d(F.relu(F.conv2d(x, c1, b1, padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, c2, b2, padding=1)), 2)
    h = F.relu(F.linear(h.flatten(1), w3, b3))
    return ((F.linear(h, w4, b4) - y) ** 2).mean()


def model_loss(kind: str, lib: Any, ps: list[Any], x: Any, y: Any) -> Any:
    """The loss of the benchmark's model ``kind`` ("mlp", "attn" or "cnn") in ``lib`` (typedtensor or torch)."""
    if kind == "mlp":
        return mlp_loss(lib, ps, x, y)
    if kind == "cnn":
        return cnn_loss(lib, ps, x, y)
    return attn_loss(lib, ps, x, y, lib.nn.functional.layer_norm)


def _batch(tt: Any, torch: Any, xs: tuple[int, ...], ys: tuple[int, ...]) -> tuple[Any, Any, Any, Any]:
    """One fixed batch (inputs, targets) as typedtensor and as torch tensors over the same numbers."""
    rng = np.random.default_rng(1)
    xn = rng.standard_normal(xs, dtype=np.float32)
    yn = rng.standard_normal(ys, dtype=np.float32)
    return tt.from_numpy(xn), tt.from_numpy(yn), torch.from_numpy(xn), torch.from_numpy(yn)


def _train_rows(tt: Any, torch: Any, name: str, spec: tuple[Any, ...], repeats: int) -> list[tuple[str, str, float | None, str]]:
    shapes, xs, ys, kind = spec
    x, y, tx, ty = _batch(tt, torch, xs, ys)
    ps = _tt_params(tt, shapes, 2, out_first=kind == "cnn")
    tps = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in ps]

    def loss(lib: Any, params: list[Any], a: Any, c: Any) -> Any:
        return model_loss(kind, lib, params, a, c)

    def body(a: Any, c: Any) -> Any:
        out = loss(tt, ps, a, c)
        out.backward()
        return out.detach()

    compiled = tt.compile(body, params=ps)
    ps_off = _tt_params(tt, shapes, 2, out_first=kind == "cnn")

    def body_off(a: Any, c: Any) -> Any:
        out = loss(tt, ps_off, a, c)
        out.backward()
        return out.detach()

    compiled_off = tt.compile(body_off, params=ps_off, passes=_no_epilogue(tt))

    def compiled_off_step() -> Any:
        for p in ps_off:
            p.grad = None
        return compiled_off(x, y)

    def eager_step() -> Any:
        for p in ps:
            p.grad = None
        return body(x, y)

    def compiled_step() -> Any:
        for p in ps:
            p.grad = None
        return compiled(x, y)

    def torch_step(fn: Callable[..., Any]) -> Any:
        for p in tps:
            p.grad = None
        out = fn(tx, ty)
        out.backward()
        return out.detach()

    eager_loss = eager_step().item()
    comp_loss = compiled_step().item()
    assert abs(eager_loss - comp_loss) <= 1e-4 * max(1.0, abs(eager_loss)), (eager_loss, comp_loss)
    fns: dict[str, Callable[[], Any]] = {
        "typedtensor eager": eager_step,
        "typedtensor compiled": compiled_step,
        "torch eager": lambda: torch_step(lambda a, c: loss(torch, tps, a, c)),
    }
    if EPILOGUE_AB:
        assert abs(compiled_off_step().item() - comp_loss) <= 1e-4 * max(1.0, abs(comp_loss))
        fns[NO_EPILOGUE_ROW] = compiled_off_step
    why = ""
    try:
        tc = torch.compile(lambda a, c: loss(torch, tps, a, c))
        torch_step(tc)
        fns["torch.compile"] = lambda: torch_step(tc)
    except Exception as e:
        why = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
    t = interleaved(fns, repeats, clock=CLOCK)
    comp = t["typedtensor compiled"]
    ratio = f"{comp / t['typedtensor eager']:.2f}x our eager"
    if "torch.compile" in t:
        ratio += f", {comp / t['torch.compile']:.2f}x torch.compile"
    rows = [
        (name, "typedtensor eager", t["typedtensor eager"], ""),
        (name, "typedtensor compiled", comp, ratio),
    ]
    rows += _epilogue_rows(name, t, comp)
    rows.append((name, "torch eager", t["torch eager"], ""))
    rows.append((name, "torch.compile", t.get("torch.compile"), why))
    return rows


def _epilogue_rows(label: str, t: dict[str, Any], comp: float) -> list[tuple[str, str, float | None, str]]:
    """With --epilogue-ab, the compiled step again with the epilogue pass off, beside the step."""
    if not EPILOGUE_AB:
        return []
    off = t[NO_EPILOGUE_ROW]
    return [(label, NO_EPILOGUE_ROW, off, f"{off / t['typedtensor eager']:.2f}x our eager; epilogue on / off {comp / off:.3f}")]


def _make_opt(lib: Any, which: str, params: list[Any]) -> Any:
    if which == "adamw":
        return lib.optim.AdamW(params, lr=1e-3, weight_decay=1e-2)
    return lib.optim.SGD(params, lr=1e-2, momentum=0.9)


def _full_step_rows(tt: Any, torch: Any, name: str, spec: tuple[Any, ...], which: str,
                    repeats: int) -> list[tuple[str, str, float | None, str]]:
    """The whole training step: forward, backward and the optimizer's update (NOTE [ Compiled
    optimizer steps ] in typedtensor/optim/optimizer.py). Eager and compiled each train their own
    copy of the parameters; the compiled function traces ``loss.backward()`` and ``opt.step()``, so
    its graph updates the parameters and the optimizer's state in place. torch.compile compiles the
    loss and ``opt.step`` (its graph breaks at ``backward()``), as its tutorials do."""
    shapes, xs, ys, kind = spec
    x, y, tx, ty = _batch(tt, torch, xs, ys)
    ps_eager, ps_comp, ps_half, ps_off = (_tt_params(tt, shapes, 2, out_first=kind == "cnn") for _ in range(4))
    tps, tps_c = ([torch.tensor(p.detach().numpy(), requires_grad=True) for p in ps_eager] for _ in range(2))
    opt_eager, opt_comp, opt_half, opt_off = (_make_opt(tt, which, p) for p in (ps_eager, ps_comp, ps_half, ps_off))
    topt, topt_c = _make_opt(torch, which, tps), _make_opt(torch, which, tps_c)

    def loss(lib: Any, params: list[Any], a: Any, c: Any) -> Any:
        return model_loss(kind, lib, params, a, c)

    def body(ps: list[Any], opt: Any) -> Callable[[Any, Any], Any]:
        def step(a: Any, c: Any) -> Any:
            out = loss(tt, ps, a, c)
            out.backward()
            opt.step()
            return out.detach()
        return step

    eager_body = body(ps_eager, opt_eager)
    compiled = tt.compile(body(ps_comp, opt_comp), params=ps_comp)
    compiled_off = tt.compile(body(ps_off, opt_off), params=ps_off, passes=_no_epilogue(tt))

    def fwd_bwd(a: Any, c: Any) -> Any:
        out = loss(tt, ps_half, a, c)
        out.backward()
        return out.detach()

    compiled_fwd_bwd = tt.compile(fwd_bwd, params=ps_half)

    def half_compiled(a: Any, c: Any) -> Any:
        """What a compiled step was before the optimizer could be traced: its update runs eagerly."""
        out = compiled_fwd_bwd(a, c)
        opt_half.step()
        return out

    def tt_step(ps: list[Any], fn: Callable[[Any, Any], Any]) -> Callable[[], Any]:
        def run() -> Any:
            for p in ps:
                p.grad = None
            return fn(x, y)
        return run

    def torch_step(ps: list[Any], opt_step: Callable[[], Any], fn: Callable[..., Any]) -> Callable[[], Any]:
        def run() -> Any:
            for p in ps:
                p.grad = None
            out = fn(tx, ty)
            out.backward()
            opt_step()
            return out.detach()
        return run

    eager_run, comp_run, half_run, off_run = (tt_step(ps_eager, eager_body), tt_step(ps_comp, compiled),
                                              tt_step(ps_half, half_compiled), tt_step(ps_off, compiled_off))
    for _ in range(3):  # the same trajectory, step for step
        le, lc, lh, lo = eager_run().item(), comp_run().item(), half_run().item(), off_run().item()
        assert all(abs(le - v) <= 1e-4 * max(1.0, abs(le)) for v in (lc, lh, lo)), (le, lc, lh, lo)
    fns: dict[str, Callable[[], Any]] = {
        "typedtensor eager": eager_run,
        "typedtensor compiled": comp_run,
        "typedtensor compiled fwd+bwd, eager update": half_run,
        "torch eager": torch_step(tps, topt.step, lambda a, c: loss(torch, tps, a, c)),
    }
    if EPILOGUE_AB:
        fns[NO_EPILOGUE_ROW] = off_run
    why = ""
    try:
        tc = torch.compile(lambda a, c: loss(torch, tps_c, a, c))
        tstep = torch.compile(topt_c.step)
        run = torch_step(tps_c, tstep, tc)
        run()
        fns["torch.compile"] = run
    except Exception as e:
        why = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
    t = interleaved(fns, repeats, clock=CLOCK)
    for impl in ("typedtensor eager", "typedtensor compiled", "torch eager"):
        last = float(fns[impl]().item())
        if not np.isfinite(last):  # a diverged run times inf/NaN arithmetic, not the training step
            raise RuntimeError(f"{name} + {which}: {impl} diverged (loss {last}) while it was timed")
    comp = t["typedtensor compiled"]
    ratio = f"{comp / t['typedtensor eager']:.2f}x our eager"
    if "torch.compile" in t:
        ratio += f", {comp / t['torch.compile']:.2f}x torch.compile"
    label = f"{name} + {'AdamW' if which == 'adamw' else 'SGD momentum'}"
    half = t["typedtensor compiled fwd+bwd, eager update"]
    rows = [
        (label, "typedtensor eager", t["typedtensor eager"], ""),
        (label, "typedtensor compiled fwd+bwd, eager update", half, f"{half / t['typedtensor eager']:.2f}x our eager"),
        (label, "typedtensor compiled", comp, ratio),
    ]
    rows += _epilogue_rows(label, t, comp)
    rows.append((label, "torch eager", t["torch eager"], ""))
    rows.append((label, "torch.compile", t.get("torch.compile"), why))
    return rows


SPECS: dict[str, tuple[Any, ...]] = {
    "MLP 256x512-1024-1024-10": (
        [(512, 1024), (1024,), (1024, 1024), (1024,), (1024, 10), (10,)], (256, 512), (256, 10), "mlp"),
    "attention block B8 T64 D128": (
        [(128, 128)] * 4 + [(128,), (128,), (128, 512), (512, 128)], (8, 64, 128), (8, 64, 128), "attn"),
    "CNN 64x1x28x28 conv32-conv64-fc128-fc10": (
        [(32, 1, 3, 3), (32,), (64, 32, 3, 3), (64,), (128, 64 * 7 * 7), (128,), (10, 128), (10,)],
        (64, 1, 28, 28), (64, 10), "cnn"),
}


def full_steps(tt: Any, torch: Any, repeats: int, optimizers: list[str]) -> list[tuple[str, str, float | None, str]]:
    rows: list[tuple[str, str, float | None, str]] = []
    for name, spec in SPECS.items():
        for which in optimizers:
            rows += _full_step_rows(tt, torch, name, spec, which, repeats)
    return rows


def training(tt: Any, torch: Any, repeats: int) -> list[tuple[str, str, float | None, str]]:
    rows: list[tuple[str, str, float | None, str]] = []
    for name, spec in SPECS.items():
        rows += _train_rows(tt, torch, name, spec, repeats)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--skip-training", action="store_true")
    ap.add_argument("--skip-chain", action="store_true", help="only the training steps")
    ap.add_argument("--skip-fwd-bwd", action="store_true", help="leave out the forward + backward rows")
    ap.add_argument("--epilogue-ab", action="store_true",
                    help="also time each compiled step with the epilogue pass off, interleaved (an A/B in one process)")
    ap.add_argument("--optimizers", default="adamw,sgd",
                    help="the full steps' optimizers (comma-separated: adamw, sgd; empty: no full-step rows)")
    args = ap.parse_args()
    global CLOCK, EPILOGUE_AB
    CLOCK = args.clock
    EPILOGUE_AB = args.epilogue_ab
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import torch

    import typedtensor as tt

    tt.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    print(f"# {cpu_name()}, {os.cpu_count()} CPUs, {args.threads} threads, "
          f"torch {torch.__version__}, numpy {np.__version__}, {args.clock} clock, "
          f"load average {os.getloadavg()[0]:.1f}")
    if not args.skip_chain:
        report_chain(chain(tt, torch, args.repeats))
    if args.skip_training:
        return
    if not args.skip_fwd_bwd:
        print("\n| training step (fwd + bwd) | implementation | time | note |\n| --- | --- | ---: | --- |")
        for name, impl, t, note in training(tt, torch, args.repeats):
            print(f"| {name} | {impl} | {fmt(t)} | {note} |")
    optimizers = [o for o in args.optimizers.split(",") if o]
    if optimizers:
        print("\n| full training step (fwd + bwd + optimizer) | implementation | time | note |\n"
              "| --- | --- | ---: | --- |")
        for name, impl, t, note in full_steps(tt, torch, args.repeats, optimizers):
            print(f"| {name} | {impl} | {fmt(t)} | {note} |")


def report_chain(rows: list[tuple[str, float | None, str]]) -> None:
    compiled = dict((r[0], r[1]) for r in rows)
    print("\n| chain relu(tanh(x*w+b)*0.5+1), x 4096x1024 f32 | time | note |\n| --- | ---: | --- |")
    for name, t, note in rows:
        print(f"| {name} | {fmt(t)} | {note} |")
    ours = compiled["typedtensor compiled"]
    if compiled.get("torch.compile") and ours:
        print(f"\ncompiled / torch.compile = {ours / compiled['torch.compile']:.2f}")
    if compiled.get("bandwidth bound") and ours:
        print(f"compiled / bandwidth bound = {ours / compiled['bandwidth bound']:.2f}")
        off = compiled.get("typedtensor compiled, buffer cache off")
        if off:
            print(f"compiled with the buffer cache off / bandwidth bound = {off / compiled['bandwidth bound']:.2f}")


if __name__ == "__main__":
    main()
