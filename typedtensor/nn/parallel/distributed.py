"""``DistributedDataParallel``: one replica of the model per process, gradients averaged across the
processes during the backward, so every replica takes the same optimiser step.

How it follows torch's reducer:
- At construction the parameters' shapes are compared across ranks (a mismatch names the parameter
  and the dim), then rank 0's parameters and buffers are broadcast to every rank.
- Parameters are grouped, in reverse registration order (roughly the order the backward produces
  their gradients), into buckets of at most ``bucket_cap_mb`` (the first bucket 1 MiB unless
  ``bucket_cap_mb`` is given, as torch, so communication starts early). Each bucket is one contiguous tensor.
- A post-accumulate-grad hook on each parameter (``Tensor.register_post_accumulate_grad_hook``)
  copies its fresh ``.grad``, divided by the world size, into its bucket. When a bucket is full its
  all-reduce starts (non-blocking, the bucket's memory handed to MPI as it is) while the backward
  carries on; buckets start in the same order on every rank, as MPI requires of collectives. When
  the last bucket has started, the reductions are waited for and the averaged gradients copied back
  into ``.grad``; ``backward()`` returns with every gradient averaged.
- ``find_unused_parameters=True`` walks the autograd graph of the forward's outputs to find the
  parameters the backward will not reach; they count as ready at once (contributing zero), and a
  parameter no rank used keeps its ``.grad``. Without it, a parameter that gets no gradient leaves
  the reduction unfinished, and the next forward raises torch's error.
- ``no_sync()``: forwards inside it skip the reduction (gradients accumulate locally); the first
  forward-backward outside it reduces the accumulated gradients.
- ``state_dict()`` keys carry the ``module.`` prefix, as torch's do; save ``ddp.module.state_dict()``
  for a checkpoint a plain model loads.

CUDA parameters (a group opened with "nccl") are reduced through NCCL on the CUDA stream.
MPI moves a non-blocking collective forward only inside MPI calls (MPICH has no progress thread by
default), so each hook also lets the buckets in flight progress; the overlap with the backward is
what those calls allow. ``gradient_as_bucket_view`` is accepted, and gradients are copied out of the
buckets either way.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from typedtensor import _runtime as tt
from typedtensor.nn.module import Module
from typedtensor.nn.parameter import Parameter

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    def __init__(self, params: list[Parameter], dtype: Any) -> None:
        self.params = params
        self.offsets: list[int] = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = tt._C.zeros(n, dtype=dtype, device=params[0].device)
        self.pending = len(params)
        self.work: Any = None

    def slot(self, i: int) -> Any:
        o = self.offsets[i]
        return self.flat[o : o + self.params[i].numel()]


def _tensors_in(obj: Any) -> Iterator[Any]:
    if isinstance(obj, tt.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _tensors_in(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _tensors_in(x)


def _check_module_and_devices(module: Module, device_ids: Any, output_device: Any) -> None:
    """torch's checks of what is wrapped: a CPU module takes no ``device_ids`` or ``output_device``
    (a CUDA program's ``DDP(model, device_ids=[rank])`` run on CPUs fails here as it does in torch,
    rather than leaving a CPU model and a device list that disagree)."""
    params = [p for p in module.parameters() if p.requires_grad]
    if not params:
        raise RuntimeError(
            "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient."
        )
    if device_ids is not None and len(device_ids) > 1:
        raise ValueError("device_ids can only be None or contain a single element.")
    kinds = {p.device.type for p in params}
    if len(kinds) != 1:
        raise ValueError(
            "DistributedDataParallel's input module must be on the same type of devices, but input module "
            f"parameters locate in {kinds}."
        )
    if kinds == {"cpu"} and (device_ids or output_device):
        raise ValueError(
            "DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-"
            f"device GPU modules or CPU modules, but got device_ids {device_ids}, output_device {output_device}, and "
            f"module parameters {({p.device for p in params})}."
        )


class DistributedDataParallel(Module):
    """torch's ``nn.parallel.DistributedDataParallel`` for CPU modules over the MPI process group."""

    def __init__(
        self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
        broadcast_buffers: bool = True, init_sync: bool = True, process_group: Any = None,
        bucket_cap_mb: float | None = None, find_unused_parameters: bool = False, check_reduction: bool = False,
        gradient_as_bucket_view: bool = False, static_graph: bool = False, **kwargs: Any,
    ) -> None:
        super().__init__()
        from typedtensor import distributed as dist

        _check_module_and_devices(module, device_ids, output_device)
        if not dist.is_initialized():
            raise RuntimeError("DistributedDataParallel: call typedtensor.distributed.init_process_group first")
        self.module = module
        pg = dist._group(process_group)
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        # torch: the first bucket is 1 MiB (communication starts early) unless bucket_cap_mb is given
        object.__setattr__(self, "_first_cap", _FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap)
        object.__setattr__(self, "process_group", pg)
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        object.__setattr__(self, "_named_params", named)
        self._check_same_parameters(pg, named)
        if init_sync:
            self._sync_from_rank0(pg)
        buckets = self._make_buckets([p for _, p in named])
        object.__setattr__(self, "_buckets", buckets)
        where: dict[int, tuple[int, int]] = {}
        for b, bucket in enumerate(buckets):
            for i, p in enumerate(bucket.params):
                where[id(p)] = (b, i)
        object.__setattr__(self, "_where", where)
        object.__setattr__(self, "_armed", False)
        object.__setattr__(self, "_ready", set())
        object.__setattr__(self, "_next_bucket", 0)
        object.__setattr__(self, "_locally_used", set())
        me = weakref.ref(self)
        # the hooks hold the module weakly and their parameter by index: a hook holding its own
        # tensor would be a cycle through C++ that Python's collector cannot see
        handles = [p.register_post_accumulate_grad_hook(self._hook_for(me, i)) for i, (_, p) in enumerate(named)]
        object.__setattr__(self, "_hook_handles", handles)

    # ---- construction ----

    @staticmethod
    def _check_same_parameters(pg: Any, named: list[tuple[str, Parameter]]) -> None:
        mine = [(n, tuple(int(s) for s in p.shape), str(p.dtype)) for n, p in named]
        everyone = pg.blocking("DistributedDataParallel", lambda: pg.comm.allgather(mine))
        for r, theirs in enumerate(everyone):
            if theirs == mine:
                continue
            if len(theirs) != len(mine):
                raise ValueError(f"DistributedDataParallel: this rank has {len(mine)} parameters, rank {r} has {len(theirs)}")
            for (n, s, d), (n2, s2, d2) in zip(mine, theirs, strict=True):
                if (n, s, d) == (n2, s2, d2):
                    continue
                if s != s2 and len(s) == len(s2):
                    k = next(i for i in range(len(s)) if s[i] != s2[i])
                    detail = f"dim {k} is {s[k]} here (rank {pg.rank()}) and {s2[k]} on rank {r}"
                else:
                    detail = f"here (rank {pg.rank()}) {n} {s} {d}, on rank {r} {n2} {s2} {d2}"
                raise ValueError(f"DistributedDataParallel: parameter {n!r} differs between ranks: {detail}")

    def _sync_from_rank0(self, pg: Any) -> None:
        from typedtensor.distributed import _Buffer

        tensors = [p for _, p in self._named_params] + [b for _, b in self.module.named_buffers()]
        with tt.no_grad():
            for t in tensors:
                if t.is_cuda:
                    from typedtensor import distributed as dist

                    dist.broadcast(t.detach(), 0, group=pg)
                    continue
                buf = _Buffer(t)
                pg.blocking("DistributedDataParallel broadcast", lambda b=buf: pg.comm.Bcast(b.buf, root=0))
                buf.back()

    def _make_buckets(self, params: list[Parameter]) -> list[_Bucket]:
        buckets: list[_Bucket] = []
        open_: dict[Any, tuple[list[Parameter], int]] = {}
        for p in reversed(params):
            cap = self._first_cap if not buckets else self.bucket_bytes_cap
            group, size = open_.get(p.dtype, ([], 0))
            group.append(p)
            size += p.numel() * p.element_size()
            if size >= cap:
                buckets.append(_Bucket(group, p.dtype))
                open_.pop(p.dtype, None)
            else:
                open_[p.dtype] = (group, size)
        for dtype, (group, _) in open_.items():
            buckets.append(_Bucket(group, dtype))
        return buckets

    # ---- forward ----

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self._armed and self._locally_used:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`DistributedDataParallel`. Parameters that got no gradient: "
                + ", ".join(n for n, p in self._named_params if id(p) not in self._ready)
            )
        if self.broadcast_buffers and self.require_backward_grad_sync:
            bufs = [b for _, b in self.module.named_buffers()]
            if bufs:
                self._broadcast_buffers(bufs)
        out = self.module(*inputs, **kwargs)
        sync = self.require_backward_grad_sync and tt.is_grad_enabled() and bool(self._named_params)
        self._arm(out if sync else None)
        return out

    def _broadcast_buffers(self, bufs: list[Any]) -> None:
        from typedtensor.distributed import _Buffer

        pg = self.process_group
        with tt.no_grad():
            for t in bufs:
                if t.is_cuda:
                    from typedtensor import distributed as dist

                    dist.broadcast(t, 0, group=pg)
                    continue
                buf = _Buffer(t)
                pg.blocking("DistributedDataParallel buffers", lambda b=buf: pg.comm.Bcast(b.buf, root=0))
                buf.back()

    def _arm(self, out: Any) -> None:
        object.__setattr__(self, "_armed", out is not None)
        object.__setattr__(self, "_ready", set())
        object.__setattr__(self, "_next_bucket", 0)
        object.__setattr__(self, "_locally_used", set())
        for b in self._buckets:
            b.pending = len(b.params)
            b.work = None
        if out is None or not self.find_unused_parameters:
            return
        params = [p for _, p in self._named_params]
        reached = tt._C._autograd_reaches(list(_tensors_in(out)), params)
        for p, used in zip(params, reached, strict=True):
            if not used:
                self._mark_ready(p, None)

    # ---- the reducer ----

    @staticmethod
    def _hook_for(me: weakref.ReferenceType[DistributedDataParallel], index: int) -> Any:
        def hook(param: Any) -> None:
            ddp = me()
            if ddp is not None and ddp._armed:
                ddp._mark_ready(ddp._named_params[index][1], param.grad)

        return hook

    def _mark_ready(self, p: Parameter, grad: Any) -> None:
        from typedtensor.distributed import _divide_in_place

        key = id(p)
        if key in self._ready:
            raise RuntimeError(
                "DistributedDataParallel: a parameter was marked ready twice in one iteration (it got gradients from "
                "two backward passes); reduce once per forward, or use no_sync() for the extra passes"
            )
        self._ready.add(key)
        b, i = self._where[key]
        bucket = self._buckets[b]
        with tt.no_grad():
            slot = bucket.slot(i)
            if grad is None:
                slot.zero_()
            else:
                self._locally_used.add(key)
                slot.copy_(grad.reshape(-1))
                _divide_in_place(slot, self.process_group.size())
        bucket.pending -= 1
        self._launch_ready()
        for other in self._buckets[: self._next_bucket]:
            if other.work is not None:
                other.work.test()  # MPI progresses a non-blocking collective only inside MPI calls
        if self._next_bucket == len(self._buckets):
            self._finish()

    def _launch_ready(self) -> None:
        from mpi4py import MPI

        from typedtensor.distributed._mpi import Work

        pg = self.process_group
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            bucket = self._buckets[self._next_bucket]
            if bucket.flat.is_cuda:  # NCCL, ordered on the CUDA stream
                from typedtensor.distributed._nccl import NcclWork

                pg.nccl.all_reduce(bucket.flat, 0)
                bucket.work = NcclWork()
            else:
                req = pg.comm.Iallreduce(MPI.IN_PLACE, bucket.flat, MPI.SUM)
                bucket.work = Work([req], "DistributedDataParallel all_reduce", pg.timeout_s, pg.comm, None, (bucket.flat,))
            object.__setattr__(self, "_next_bucket", self._next_bucket + 1)

    def _finish(self) -> None:
        for bucket in self._buckets:
            bucket.work.wait()
        globally_used: set[int] | None = None
        if self.find_unused_parameters:
            globally_used = self._globally_used()
        with tt.no_grad():
            for bucket in self._buckets:
                for i, p in enumerate(bucket.params):
                    if globally_used is not None and id(p) not in globally_used:
                        continue
                    reduced = bucket.slot(i).reshape(tuple(p.shape))
                    if p.grad is None:
                        p.grad = reduced.clone()
                    else:
                        p.grad.copy_(reduced)
        object.__setattr__(self, "_armed", False)
        object.__setattr__(self, "_ready", set())

    def _globally_used(self) -> set[int]:
        import numpy as np
        from mpi4py import MPI

        params = [p for _, p in self._named_params]
        flags = np.array([1 if id(p) in self._locally_used else 0 for p in params], dtype=np.int32)
        pg = self.process_group
        pg.blocking("DistributedDataParallel unused parameters", lambda: pg.comm.Allreduce(MPI.IN_PLACE, flags, MPI.MAX))
        return {id(p) for p, f in zip(params, flags, strict=True) if f}

    # ---- torch's API ----

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Forward-backward passes inside skip the all-reduce; gradients accumulate on each rank."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _set_static_graph(self) -> None:
        self.static_graph = True

    def __del__(self) -> None:
        for h in self.__dict__.get("_hook_handles", ()):
            h.remove()
