"""Distributed data-parallel training: equality with one process, all_reduce bandwidth, DDP step time.

Run on 2 processes with MPI's launcher (1 thread per process):

    mpiexec -n 2 python benchmarks/distributed.py equivalence --model mlp --steps 20
    mpiexec -n 2 python benchmarks/distributed.py equivalence --model char --steps 20
    mpiexec -n 2 python benchmarks/distributed.py torch-equivalence --model mlp --steps 20
    mpiexec -n 2 python benchmarks/distributed.py torch-equivalence --model char --steps 20
    mpiexec -n 2 python benchmarks/distributed.py bandwidth --reps 25
    mpiexec -n 2 python benchmarks/distributed.py check-designs --reps 600
    mpiexec -n 2 python benchmarks/distributed.py step

- equivalence: the model of examples/mlp_digits.py (dropout off, so both runs see the same
  function) or examples/char_transformer.py trained with DDP, each rank on half of every batch,
  against the same model trained in one process on the full batch (computed on rank 0 alongside);
  prints how far the parameters are after the last step (the largest elementwise difference
  relative to each tensor's largest value, and the norm of all differences relative to the norm
  of all parameters), per parameter (``--top N`` rows, 0 for all; attention's packed
  ``in_proj_bias`` as its q, k and v thirds), beside two more comparisons: one process on the full
  batch with its rows in another order against the full batch (the same mean summed in another
  order: float rounding alone, amplified by AdamW as DDP's difference is), and DDP against one
  process that averages the shares' gradients (DDP's order of summation, no communication: 0 when
  the reduction adds nothing). Parts whose gradient is zero in exact arithmetic (largest |gradient|
  under 1e-5 of the model's largest: the key third of ``in_proj_bias``) are marked, and the
  summary is given with and without them. ``--dtype float64`` shows the algorithm's equality.
- torch-equivalence: the same for torch itself (torch's DDP over gloo against torch in one
  process), the model rebuilt in torch with the same initial parameters, batches and optimiser:
  the rounding any data-parallel implementation shows on these models.
- bandwidth: ``typedtensor.distributed.all_reduce`` (SUM, float32; with and without the shape
  exchange) against mpi4py's own ``Allreduce`` on a numpy view of the same memory (and, for
  reference, on a numpy array of its own), 1 MB to 256 MB, interleaved in a shuffled order, each
  call after a barrier; the ratios of the best and of the median times (mpi4py's time / ours: 1.0
  is as fast). ``--json`` writes the ratios, for the median over several runs.
- check-designs: the ways of ordering the cross-rank shape check and the data call, measured in
  mpi4py alone (``check_designs``).
- step: one DDP training step of the digits MLP (batch 64, 32 per rank) against torch's DDP over
  gloo in the same processes, interleaved, each step after a barrier; the ratio of the medians and
  of the best times (on a shared machine a step waits for the other rank's time slice).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import _harness
import numpy as np

import typedtensor as tt
import typedtensor.distributed as dist
from typedtensor import nn
from typedtensor.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(float(np.abs(b).max()), 1e-12))


class Difference:
    """How far one set of parameters is from a reference: the largest elementwise difference of any
    tensor relative to that tensor's largest value, the norm of all differences relative to the norm
    of all reference parameters (``||p - q|| / ||q||``), and both per tensor."""

    def __init__(self, got: list[tuple[str, np.ndarray]], ref: list[tuple[str, np.ndarray]]) -> None:
        self.per_tensor = []
        diff_sq = ref_sq = 0.0
        for (name, p), (_, q) in zip(got, ref, strict=True):
            p64, q64 = p.astype(np.float64), q.astype(np.float64)
            d, n = float(np.linalg.norm(p64 - q64)), float(np.linalg.norm(q64))
            self.per_tensor.append((name, _relative(p64, q64), d / max(n, 1e-300)))
            diff_sq += d * d
            ref_sq += n * n
        self.norm = (diff_sq / max(ref_sq, 1e-300)) ** 0.5
        self.worst = max(self.per_tensor, key=lambda t: t[1])

    def summary(self, skip: set[str] | frozenset[str] = frozenset()) -> str:
        kept = [t for t in self.per_tensor if t[0] not in skip]
        worst = max(kept, key=lambda t: t[1])
        return f"elementwise max {worst[1]:.3g} ({worst[0]}), norm {self.norm:.3g}"

    def table(self, top: int) -> str:
        rows = sorted(self.per_tensor, key=lambda t: -t[1])[:top]
        return "\n".join(f"    {name:<40} elementwise {e:.3g}  norm {n:.3g}" for name, e, n in rows)


def _parts(name: str, a: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """A parameter as the parts the comparison lists: attention's packed ``in_proj_bias`` as its
    query, key and value thirds. The key third's gradient is zero in exact arithmetic (it adds
    ``q . b_k`` to every score of a query, a shift softmax ignores), so what it gets in float32 is
    rounding, which AdamW's normalised step turns into steps of about ``lr``."""
    if name.endswith("in_proj_bias"):
        e = a.shape[0] // 3
        return [(f"{name}[q]", a[:e]), (f"{name}[k]", a[e : 2 * e]), (f"{name}[v]", a[2 * e :])]
    return [(name, a)]


def _params(model: Any) -> list[tuple[str, np.ndarray]]:
    return [part for n, p in model.named_parameters() for part in _parts(n, p.detach().cpu().numpy().copy())]


def _grads(model: Any) -> list[tuple[str, np.ndarray]]:
    return [part for n, p in model.named_parameters() if p.grad is not None
            for part in _parts(n, p.grad.detach().cpu().numpy().copy())]


def _mlp() -> tuple[Any, Any, Any]:
    import mlp_digits as ex

    model = ex.MLP(ex.Pixels(64), ex.Hidden(256), ex.Classes(10), dropout=0.0)
    x, y, _, _ = ex.load(0)
    order = np.random.default_rng(0).permutation(x.shape[0])

    def batch(step: int) -> tuple[Any, Any]:
        idx = tt.tensor(order[(step * 64) % (len(order) - 64) :][:64])
        return x[idx], y[idx]

    def loss(m: Any, xb: Any, yb: Any) -> Any:
        return nn.functional.cross_entropy(m(xb), yb, label_smoothing=0.05)

    return model, (lambda m: tt.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=1e-4)), (batch, loss)


def _char() -> tuple[Any, Any, Any]:
    import char_transformer as ex

    text = ex.corpus()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    data = np.array([index[c] for c in text], dtype=np.int64)
    model = ex.CharLM(ex.Vocab(len(chars)), ex.Model(64), ex.Hidden(256), ex.Seq(64), layers=2, heads=4)

    def batch(step: int) -> tuple[Any, Any]:
        return ex.batch(data, 32, 64, np.random.default_rng(1000 + step))

    def loss(m: Any, xb: Any, yb: Any) -> Any:
        return nn.functional.cross_entropy(m(xb).flatten(0, 1), yb.flatten())

    return model, (lambda m: tt.optim.AdamW(m.parameters(), lr=2e-3, weight_decay=0.01)), (batch, loss)


def _prepare(dtype: str) -> Any:
    def prepare(xb: Any) -> Any:
        return xb.double() if dtype == "float64" and xb.is_floating_point() else xb

    return prepare


def equivalence(model_name: str, steps: int, dtype: str, top: int) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    make = _mlp if model_name == "mlp" else _char
    cast = (lambda m: m.double()) if dtype == "float64" else (lambda m: m)
    prepare = _prepare(dtype)

    tt.manual_seed(0)
    model, make_opt, (batch, loss) = make()
    cast(model)
    ref_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    ddp = DDP(model)
    opt = make_opt(ddp)
    for step in range(steps):
        xb, yb = batch(step)
        xb = prepare(xb)
        n = xb.shape[0] // world
        opt.zero_grad()
        loss(ddp, xb[rank * n : (rank + 1) * n], yb[rank * n : (rank + 1) * n]).backward()
        opt.step()
    if rank != 0:
        return

    def reference(mode: str) -> tuple[Any, dict[str, float]]:
        """One process: the full batch ("full"), the full batch with its rows in another order
        ("permuted": the same mean, summed in another order, so the difference to "full" is float
        rounding alone, amplified by the optimiser as DDP's is), or the mean of the W shares'
        gradients ("split": DDP's order of summation, without the communication). Also the
        largest |gradient| each parameter part got over the steps."""
        tt.manual_seed(0)
        ref, _, _ = make()
        cast(ref)
        ref.load_state_dict(ref_state)
        ropt = make_opt(ref)
        peaks: dict[str, float] = {}
        for step in range(steps):
            xb, yb = batch(step)
            xb = prepare(xb)
            ropt.zero_grad()
            if mode == "split":
                n = xb.shape[0] // world
                for r in range(world):
                    (loss(ref, xb[r * n : (r + 1) * n], yb[r * n : (r + 1) * n]) / world).backward()
            else:
                if mode == "permuted":
                    perm = tt.tensor(np.random.default_rng(step).permutation(xb.shape[0]))
                    xb, yb = xb[perm], yb[perm]
                loss(ref, xb, yb).backward()
            for name, g in _grads(ref):
                peaks[name] = max(peaks.get(name, 0.0), float(np.abs(g).max()))
            ropt.step()
        return ref, peaks

    full_model, peaks = reference("full")
    permuted_model, _ = reference("permuted")
    split_model, _ = reference("split")
    ours, full_params = _params(model), _params(full_model)
    full = Difference(ours, full_params)
    floor = Difference(_params(permuted_model), full_params)
    split = Difference(ours, _params(split_model))
    largest = max(peaks.values())
    zero = {name for name, v in peaks.items() if v < 1e-5 * largest}  # zero in exact arithmetic: rounding only
    count = sum(p.numel() for p in model.parameters())
    print(f"equivalence typedtensor {model_name} ({dtype}): {count} parameters, {steps} steps, {world} ranks x "
          f"batch/{world}\n  DDP vs 1 process on the full batch: {full.summary()}; "
          f"without the parts whose gradient is zero: {full.summary(skip=zero)}\n"
          f"  1 process, the full batch in another row order, vs the full batch (float rounding alone): "
          f"{floor.summary()}; without the zero-gradient parts: {floor.summary(skip=zero)}\n"
          f"  DDP vs 1 process averaging the {world} shares' gradients: {split.summary()}")
    rows = [(name, e, f, s_, peaks.get(name, 0.0) / largest)
            for (name, e, _), (_, f, _), (_, s_, _) in zip(full.per_tensor, floor.per_tensor, split.per_tensor, strict=True)]
    rows.sort(key=lambda r: -r[1])
    print(f"    {'parameter (part)':<34} {'DDP vs full':>11} {'reordered':>10} {'DDP vs split':>12} "
          f"{'max |grad| / largest':>21}")
    for name, e, f, s_, g in rows[: top if top > 0 else len(rows)]:
        note = "  <- gradient zero in exact arithmetic" if name in zero else ""
        print(f"    {name:<34} {e:>11.2g} {f:>10.2g} {s_:>12.2g} {g:>21.2g}{note}")


def _torch_mirror(model_name: str, ours: Any) -> Any:
    """torch's version of the example model, with ``ours``'s parameters (the same names)."""
    import torch
    from torch import nn as tnn

    class MLP(tnn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1, self.fc2, self.out = tnn.Linear(64, 256), tnn.Linear(256, 256), tnn.Linear(256, 10)

        def forward(self, x: Any) -> Any:
            return self.out(torch.relu(self.fc2(torch.relu(self.fc1(x)))))

    class Block(tnn.Module):
        def __init__(self, model: int, heads: int, hidden: int) -> None:
            super().__init__()
            self.ln1 = tnn.LayerNorm(model)
            self.attn = tnn.MultiheadAttention(model, heads, batch_first=True)
            self.ln2 = tnn.LayerNorm(model)
            self.fc1, self.fc2 = tnn.Linear(model, hidden), tnn.Linear(hidden, model)

        def forward(self, x: Any) -> Any:
            h = self.ln1(x)
            mask = tnn.Transformer.generate_square_subsequent_mask(x.shape[1], dtype=x.dtype)
            attended, _ = self.attn(h, h, h, need_weights=False, attn_mask=mask, is_causal=True)
            x = x + attended
            return x + self.fc2(tnn.functional.gelu(self.fc1(self.ln2(x))))

    class CharLM(tnn.Module):
        def __init__(self, vocab: int, model: int, hidden: int, context: int, layers: int, heads: int) -> None:
            super().__init__()
            self.tokens, self.positions = tnn.Embedding(vocab, model), tnn.Embedding(context, model)
            self.blocks = tnn.ModuleList([Block(model, heads, hidden) for _ in range(layers)])
            self.ln, self.head = tnn.LayerNorm(model), tnn.Linear(model, vocab)

        def forward(self, ids: Any) -> Any:
            x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln(x))

    if model_name == "mlp":
        theirs: Any = MLP()
    else:
        vocab = int(ours.tokens.weight.shape[0])
        theirs = CharLM(vocab, 64, 256, 64, layers=2, heads=4)
    state = {k: torch.tensor(v.detach().numpy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state, strict=True)
    return theirs


def torch_equivalence(model_name: str, steps: int, dtype: str, top: int) -> None:
    """The same comparison for torch itself: torch's DDP over gloo on the same ranks against torch in
    one process, the same model, initial parameters, batches and optimiser: how far torch's own
    DDP is from single-process training in ``dtype``."""
    import torch
    import torch.distributed as tdist

    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29732")
    tdist.init_process_group("gloo", rank=rank, world_size=world)
    make = _mlp if model_name == "mlp" else _char
    tt.manual_seed(0)
    ours, _, (batch, _) = make()
    wd, lr = (1e-4, 3e-3) if model_name == "mlp" else (0.01, 2e-3)

    def fresh() -> Any:
        m = _torch_mirror(model_name, ours)
        return m.double() if dtype == "float64" else m

    def loss(m: Any, xb: Any, yb: Any) -> Any:
        if model_name == "mlp":
            return torch.nn.functional.cross_entropy(m(xb), yb, label_smoothing=0.05)
        return torch.nn.functional.cross_entropy(m(xb).flatten(0, 1), yb.flatten())

    def torch_batch(step: int) -> tuple[Any, Any]:
        xb, yb = batch(step)
        x = torch.tensor(xb.numpy())
        return (x.double() if dtype == "float64" and x.is_floating_point() else x), torch.tensor(yb.numpy())

    model = torch.nn.parallel.DistributedDataParallel(fresh())
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=wd)
    for step in range(steps):
        xb, yb = torch_batch(step)
        n = xb.shape[0] // world
        opt.zero_grad()
        loss(model, xb[rank * n : (rank + 1) * n], yb[rank * n : (rank + 1) * n]).backward()
        opt.step()
    if rank == 0:
        ref = fresh()
        ropt = torch.optim.AdamW(ref.parameters(), lr=lr, weight_decay=wd)
        for step in range(steps):
            xb, yb = torch_batch(step)
            ropt.zero_grad()
            loss(ref, xb, yb).backward()
            ropt.step()
        full = Difference(_params(model.module), _params(ref))
        keys = {name for name, _, _ in full.per_tensor if name.endswith("in_proj_bias[k]")}  # zero gradient: _parts
        print(f"equivalence torch {model_name} ({dtype}): DDP (gloo) on {world} ranks x batch/{world} vs 1 process on "
              f"the full batch, {steps} steps: {full.summary()}; without in_proj_bias's key parts (their gradient is "
              f"zero): {full.summary(skip=keys)}\n{full.table(top)}")
    tdist.destroy_process_group()


def _median_time(fn: Any, reps: int) -> float:
    times = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bandwidth(reps: int, clock: str, json_path: str | None) -> None:
    """Per size, ``reps`` rounds (more for the small sizes, where one slow call is more of the
    time) of the calls in a shuffled order (the same on every rank), each after a barrier; the
    ratios of the best and of the median times (the machine may be shared: the best is the least
    disturbed).

    mpi4py's ``Allreduce`` gets a numpy view of the very memory ``dist.all_reduce`` reduces, so
    both see the same pages in the same cache state (the tensor's memory comes from the backend's
    allocator, 2 MB-aligned and advised for huge pages from 1 MB up; a separate ``np.ones`` gets
    4 KB pages, which MPI's copies through shared memory walk more slowly at 4-16 MB: that
    comparison is the last column, for reference)."""
    import json
    import random

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = dist.get_rank()
    group = dist.GroupMember.WORLD
    assert group is not None
    now = time.perf_counter if clock == "wall" else time.process_time
    if rank == 0:
        print(f"{_harness.cpu_name()}; {clock} clock on rank 0; load average {os.getloadavg()[0]:.1f} at the start")
        print(f"{'MB':>5} {'mpi4py ms':>10} {'ours ms':>8} {'ratio':>6} {'(median)':>8} {'no check':>9} "
              f"{'(median)':>8} {'own numpy buffer':>17} {'(median)':>8}")
    order = random.Random(0)
    rows = []
    for mb in (1, 4, 16, 64, 256):
        n = mb * 1024 * 1024 // 4
        ours = tt.zeros(n)
        same = ours.numpy()  # the same memory
        own = np.zeros(n, dtype=np.float32)

        def bare() -> None:
            group.check_shapes = False
            dist.all_reduce(ours)
            group.check_shapes = True

        calls = {
            "mpi4py": lambda: comm.Allreduce(MPI.IN_PLACE, same, MPI.SUM),
            "ours": lambda: dist.all_reduce(ours),
            "bare": bare,
            "own": lambda: comm.Allreduce(MPI.IN_PLACE, own, MPI.SUM),
        }
        times: dict[str, list[float]] = {k: [] for k in calls}
        names = list(calls)
        for f in calls.values():  # first touches and MPI's first-use set-up, untimed
            f()
        for _ in range(max(reps, reps * 64 // (4 * mb))):
            order.shuffle(names)
            for k in names:
                comm.Barrier()
                t0 = now()
                calls[k]()
                times[k].append(now() - t0)
        best = {k: min(v) for k, v in times.items()}
        med = {k: statistics.median(v) for k, v in times.items()}
        ratios = {f"{k}_{s}": (best["mpi4py"] / best[k] if s == "best" else med["mpi4py"] / med[k])
                  for k in ("ours", "bare", "own") for s in ("best", "median")}
        rows.append({"mb": mb, "mpi4py_ms": best["mpi4py"] * 1e3, "ours_ms": best["ours"] * 1e3, **ratios})
        if rank == 0:
            print(f"{mb:>5} {best['mpi4py'] * 1e3:>10.3f} {best['ours'] * 1e3:>8.3f} {ratios['ours_best']:>6.2f} "
                  f"{ratios['ours_median']:>8.2f} {ratios['bare_best']:>9.2f} {ratios['bare_median']:>8.2f} "
                  f"{ratios['own_best']:>17.2f} {ratios['own_median']:>8.2f}", flush=True)
    if rank == 0 and json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f)


def check_designs(reps: int, mb: float) -> None:
    """The designs of the cross-rank check, in mpi4py alone (no typedtensor Python): a 1 MB
    ``Allreduce`` on numpy memory bare; after a blocking ``Allgather`` of the 10-number header (the
    check as built: NOTE [ The shape check before a collective ] in _mpi.py); after a blocking
    ``Allreduce(MAX)`` of (count, -count) (detects a count mismatch only); that, with the header's
    ``Iallgather`` running beside the data call and waited for after it (the full check
    overlapped); and the header's ``Iallgather`` beside the data with no check first (not safe: a
    count mismatch would reach MPI; for the cost only). Interleaved in a shuffled order, each call
    after a barrier; ratios to the bare call, of the best and of the median times."""
    import array
    import random

    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    n = int(mb * 1024 * 1024) // 4
    data = np.zeros(n, dtype=np.float32)
    header = array.array("q", [7, 1, n] + [-1] * 7)
    headers = array.array("q", bytes(8 * len(header) * comm.Get_size()))
    pair, pair_out = array.array("q", [n, -n]), array.array("q", [0, 0])

    def bare() -> None:
        comm.Allreduce(MPI.IN_PLACE, data, MPI.SUM)

    def header_first() -> None:
        comm.Allgather(header, headers)
        bare()

    def count_first() -> None:
        comm.Allreduce(pair, pair_out, MPI.MAX)
        bare()

    def count_first_header_beside() -> None:
        comm.Allreduce(pair, pair_out, MPI.MAX)
        req = comm.Iallgather(header, headers)
        bare()
        req.Wait()

    def header_beside_unsafe() -> None:
        req = comm.Iallgather(header, headers)
        bare()
        req.Wait()

    calls = {"bare": bare, "header Allgather first": header_first, "(count, -count) MAX first": count_first,
             "count first, header beside": count_first_header_beside, "header beside (unsafe)": header_beside_unsafe}
    times: dict[str, list[float]] = {k: [] for k in calls}
    names = list(calls)
    order = random.Random(0)
    for f in calls.values():
        f()
    for _ in range(reps):
        order.shuffle(names)
        for k in names:
            comm.Barrier()
            t0 = time.perf_counter()
            calls[k]()
            times[k].append(time.perf_counter() - t0)
    if comm.Get_rank() == 0:
        best, med = min(times["bare"]), statistics.median(times["bare"])
        print(f"{_harness.cpu_name()}; {mb:g} MB float32 all-reduce, {reps} rounds; load average {os.getloadavg()[0]:.1f}")
        for k, v in times.items():
            print(f"  {k:<28} best {min(v) * 1e6:8.1f} us ({best / min(v):.3f})  median {statistics.median(v) * 1e6:8.1f} us "
                  f"({med / statistics.median(v):.3f})")


def step_time(reps: int) -> None:
    import mlp_digits as ex
    import torch
    import torch.distributed as tdist

    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    tt.set_num_threads(1)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29731")
    tdist.init_process_group("gloo", rank=rank, world_size=world)
    tt.manual_seed(0)
    ours = DDP(ex.MLP(ex.Pixels(64), ex.Hidden(256), ex.Classes(10), dropout=0.0))
    opt = tt.optim.AdamW(ours.parameters(), lr=3e-3)
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                 torch.nn.Linear(256, 10))
    theirs = torch.nn.parallel.DistributedDataParallel(tmodel)
    topt = torch.optim.AdamW(theirs.parameters(), lr=3e-3)
    rng = np.random.default_rng(rank)
    xn = rng.random((32, 64), dtype=np.float32)
    yn = rng.integers(0, 10, 32)
    x, y = tt.tensor(xn), tt.tensor(yn)
    tx, ty = torch.tensor(xn), torch.tensor(yn)

    def ours_step() -> None:
        opt.zero_grad()
        nn.functional.cross_entropy(ours(x), y).backward()
        opt.step()

    def torch_step() -> None:
        topt.zero_grad()
        torch.nn.functional.cross_entropy(theirs(tx), ty).backward()
        topt.step()

    plain = ours.module
    popt = tt.optim.AdamW(plain.parameters(), lr=3e-3)
    tplain = tmodel
    tpopt = torch.optim.AdamW(tplain.parameters(), lr=3e-3)

    def ours_local() -> None:  # the same step without DDP: what the reduction adds
        popt.zero_grad()
        nn.functional.cross_entropy(plain(x), y).backward()
        popt.step()

    def torch_local() -> None:
        tpopt.zero_grad()
        torch.nn.functional.cross_entropy(tplain(tx), ty).backward()
        tpopt.step()

    steps = {"ours": ours_step, "torch": torch_step, "ours_local": ours_local, "torch_local": torch_local}
    for _ in range(5):
        for f in steps.values():
            f()
    times: dict[str, list[float]] = {k: [] for k in steps}
    for _ in range(reps):
        for k, f in steps.items():
            times[k].extend(_median_time(f, 1) for _ in range(10))
    if rank == 0:
        for label, stat in (("median", statistics.median), ("best", min)):
            m = {k: stat(v) * 1e3 for k, v in times.items()}
            print(f"DDP step ({label}), digits MLP, {world} ranks x 32 rows, 1 thread each: typedtensor "
                  f"{m['ours']:.3f} ms, torch (gloo) {m['torch']:.3f} ms, ratio torch/ours {m['torch'] / m['ours']:.3f}; "
                  f"the same step without DDP: typedtensor {m['ours_local']:.3f} ms, torch {m['torch_local']:.3f} ms")
    tdist.destroy_process_group()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["equivalence", "torch-equivalence", "bandwidth", "check-designs", "step"])
    p.add_argument("--model", choices=["mlp", "char"], default="mlp")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--top", type=int, default=5, help="equivalence: the tensors furthest off, listed")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="bandwidth: rank 0's wall or process CPU clock")
    p.add_argument("--mb", type=float, default=1.0, help="check-designs: the all-reduce's size")
    p.add_argument("--json", default=None, help="bandwidth: also write the table's ratios to this file (rank 0)")
    args = p.parse_args()
    tt.set_num_threads(1)
    dist.init_process_group("mpi")
    if args.what == "equivalence":
        equivalence(args.model, args.steps, args.dtype, args.top)
    elif args.what == "torch-equivalence":
        torch_equivalence(args.model, args.steps, args.dtype, args.top)
    elif args.what == "bandwidth":
        bandwidth(args.reps, args.clock, args.json)
    elif args.what == "check-designs":
        check_designs(args.reps, args.mb)
    else:
        step_time(args.reps)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
