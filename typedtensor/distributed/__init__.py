"""``typedtensor.distributed``: torch.distributed's process group and collectives, over MPI.

Start a program on N processes with ``mpirun -n N python prog.py`` or with
``python -m typedtensor.distributed.run --nproc-per-node N prog.py`` (which starts them through MPI's
own launcher), then ``init_process_group(backend="mpi")``. The rank and world size are MPI's; the
variables torch's launchers set (``RANK``, ``WORLD_SIZE``) and the ``rank=``/``world_size=``
arguments are checked against them. ``backend="gloo"`` is accepted as a name for the same CPU group,
so programs written for torch's CPU backend run unchanged. ``"nccl"`` adds an NCCL communicator
for CUDA tensors (``_nccl.py``; libnccl.so.2 from the nvidia-nccl wheel, opened at run time), the
processes still started and joined through MPI; CPU tensors keep going through MPI.

CPU tensors go to MPI as they are (their memory through the buffer protocol, no copy; a
non-contiguous tensor goes through a contiguous copy that is written back). Every public collective
first exchanges its tensors' shapes and dtypes, so ranks that disagree get a ``ValueError`` naming
the dim; a rank that raises aborts the job, and a collective that waits longer than the group's
``timeout`` aborts it too (NOTE [ Collective timeouts ] in ``_mpi.py``).

Differences from torch: ``reduce_scatter`` and ``reduce_scatter_tensor`` need equal shares;
``bfloat16`` tensors cannot be reduced over MPI (MPI has no such type); groups from ``new_group``
are used through the ``group=`` argument as in torch, with ``src``/``dst`` as global ranks.
"""

from __future__ import annotations

import datetime
import enum
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import TracebackType
from typing import Any, TypeAlias

from typedtensor import _runtime as tt
from typedtensor.distributed._env import local_rank_from_env, set_torchrun_env_from_mpi
from typedtensor.distributed._mpi import MpiGroup, Work, abort

_Tensor: TypeAlias = Any  # typedtensor's Tensor (the compiled class, untyped to mypy)

__all__ = [
    "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object",
    "all_reduce", "all_to_all", "all_to_all_single", "barrier", "broadcast", "broadcast_object_list",
    "destroy_process_group", "gather", "gather_object", "get_backend", "get_default_backend_for_device",
    "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
    "init_process_group", "irecv", "is_available", "is_initialized", "is_mpi_available", "is_nccl_available",
    "is_torchelastic_launched", "isend", "monitored_barrier", "new_group", "recv", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
]

ProcessGroup = MpiGroup
default_pg_timeout = datetime.timedelta(minutes=30)

# under `mpirun -n N python prog.py`, torchrun's variables for programs that read them before init
set_torchrun_env_from_mpi()


class ReduceOp(enum.Enum):
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


class GroupMember:
    WORLD: MpiGroup | None = None
    NON_GROUP_MEMBER = object()


_state: dict[str, Any] = {"world": None, "hook": None}


def is_available() -> bool:
    """True when the MPI bindings are installed (the ``distributed`` extra)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    return is_available()


def is_nccl_available() -> bool:
    """True when this build has CUDA, a device is present and libnccl.so.2 loads."""
    from typedtensor.distributed import _nccl

    return _nccl.available()


def is_gloo_available() -> bool:
    """True where MPI is: ``backend="gloo"`` names the MPI group on CPUs."""
    return is_available()


def get_default_backend_for_device(device: Any) -> str:
    """torch's backend name for a device: ``"gloo"`` for CPU (the MPI group here), ``"nccl"`` for CUDA."""
    kind = device if isinstance(device, str) else getattr(device, "type", None)
    if kind is None:
        raise ValueError(f"get_default_backend_for_device: expected a device or a device name, got {device!r}")
    kind = kind.split(":")[0]
    backends = {"cpu": "gloo", "cuda": "nccl"}
    if kind not in backends:
        raise ValueError(f"Default backend not registered for device : {kind}")
    return backends[kind]


def is_initialized() -> bool:
    return _state["world"] is not None


def is_torchelastic_launched() -> bool:
    return "TORCHELASTIC_RUN_ID" in os.environ


def _world() -> MpiGroup:
    w: MpiGroup | None = _state["world"]
    if w is None:
        raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")
    return w


def _group(group: Any) -> MpiGroup:
    if group is None or group is GroupMember.WORLD:
        return _world()
    if group is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("this rank is not a member of the group")
    if not isinstance(group, MpiGroup):
        raise TypeError(f"group must be a process group from new_group, got {type(group).__name__}")
    return group


def _env_int(name: str) -> int | None:
    v = os.environ.get(name)
    return None if v in (None, "") else int(v)


def _abort_job(reason: str, code: int) -> None:
    """Ends every rank of the job now (MPI_Abort) when this rank is leaving in a state the others
    cannot finish from; nothing when there is no group or no other rank."""
    world: MpiGroup | None = _state["world"]
    if world is None or world.size() <= 1:
        return
    sys.stderr.write(f"typedtensor.distributed: rank {world.rank()} {reason}; aborting the job\n")
    abort(world.comm, code)


def _abort_on_uncaught(comm: Any) -> None:
    """An uncaught exception on one rank ends every rank at once (MPI_Abort) instead of leaving the
    others waiting in their next collective."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        previous(kind, value, tb)
        if comm.Get_size() > 1 and not issubclass(kind, KeyboardInterrupt):
            sys.stderr.write(f"typedtensor.distributed: rank {comm.Get_rank()} raised {kind.__name__}; aborting the job\n")
            abort(comm, 1)

    _state["hook"] = (previous, hook)
    sys.excepthook = hook


def init_process_group(
    backend: str | None = None, init_method: str | None = None, timeout: datetime.timedelta | None = None,
    world_size: int = -1, rank: int = -1, store: Any = None, group_name: str = "", pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Joins the MPI job this process belongs to. ``init_method`` and ``store`` have nothing to set
    up (MPI's launcher has connected the processes) and are accepted for torch's programs."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    name = (backend or "mpi").lower()
    parts = {p.split(":")[-1] for p in name.split(",")}
    use_nccl = "nccl" in parts
    parts.discard("nccl")
    if use_nccl:
        from typedtensor.distributed import _nccl

        if not _nccl.available():
            raise RuntimeError(f"init_process_group: the 'nccl' backend is not available: {_nccl.status()}")
    if not parts <= {"mpi", "gloo"}:
        raise ValueError(f"init_process_group: unknown backend {backend!r}; use 'mpi' (or 'gloo', the same CPU group)")
    if not is_available():
        raise RuntimeError(
            "init_process_group: MPI is not installed; install typedtensor's 'distributed' extra (mpi4py and MPICH)"
        )
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    mpi_rank, mpi_size = comm.Get_rank(), comm.Get_size()
    for what, asked in (
        ("world_size argument", world_size), ("WORLD_SIZE", _env_int("WORLD_SIZE")),
    ):
        if asked is not None and asked >= 0 and asked != mpi_size:
            hint = (
                " (processes started one by one, by multiprocessing.Process, or each by a launcher or spawn of "
                "its own are separate MPI jobs and cannot form a group: start all N with one launcher: "
                "`mpirun -n N python prog.py` (or `mpirun -n 1 python prog.py --rank 0 : -n 1 python prog.py "
                "--rank 1` for arguments that differ), `python -m typedtensor.distributed.run --nproc-per-node N "
                "prog.py`, or one `typedtensor.multiprocessing.spawn(fn, nprocs=N)`)" if mpi_size == 1 else ""
            )
            why = os.environ.get("TYPEDTENSOR_SPAWNED_WITHOUT_MPI")
            if why and mpi_size == 1:
                hint = (
                    " (typedtensor.multiprocessing.spawn started this process with Python's multiprocessing, not "
                    f"as one MPI job with the others, because its args pickle only down a spawn pipe ({why}); "
                    "pass args that pickle (e.g. a multiprocessing.Manager().Queue() for a Queue) and spawn starts "
                    "the processes as one MPI job)"
                )
            raise RuntimeError(f"init_process_group: {what} is {asked} but the MPI job has {mpi_size} processes{hint}")
    for what, asked in (("rank argument", rank), ("RANK", _env_int("RANK"))):
        if asked is not None and asked >= 0 and asked != mpi_rank:
            raise RuntimeError(f"init_process_group: {what} is {asked} but this process is MPI rank {mpi_rank}")
    # torchrun's per-process variables, for programs that read them after init under plain mpirun
    local = local_rank_from_env()
    for var, value in (("RANK", mpi_rank), ("WORLD_SIZE", mpi_size), ("LOCAL_RANK", mpi_rank if local is None else local)):
        os.environ.setdefault(var, str(value))
    limit = (timeout or default_pg_timeout).total_seconds()
    world = MpiGroup(comm, limit, range(mpi_size))
    world.backend = name  # get_backend() answers the name the program asked for, as torch's
    if use_nccl:
        from typedtensor.distributed import _nccl

        world.nccl = world.blocking("init_process_group (nccl)", lambda: _nccl.open_comm(comm))
    _state["world"] = world
    GroupMember.WORLD = world
    _abort_on_uncaught(comm)


def destroy_process_group(group: Any = None) -> None:
    if group is not None and group is not GroupMember.WORLD:
        g = _group(group)
        g.comm.Free()
        return
    _world()
    hooks = _state["hook"]
    if hooks is not None and sys.excepthook is hooks[1]:
        sys.excepthook = hooks[0]
    _state["world"] = None
    _state["hook"] = None
    GroupMember.WORLD = None


def get_rank(group: Any = None) -> int:
    if not is_initialized():
        return -1 if group is not None else _uninitialised("get_rank")
    return _group(group).rank()


def get_world_size(group: Any = None) -> int:
    if not is_initialized():
        return -1 if group is not None else _uninitialised("get_world_size")
    return _group(group).size()


def _uninitialised(what: str) -> int:
    raise ValueError(f"{what}: Default process group has not been initialized, please make sure to call init_process_group.")


def get_backend(group: Any = None) -> str:
    return _group(group).backend


def new_group(ranks: Sequence[int] | None = None, timeout: datetime.timedelta | None = None, backend: str | None = None,
              pg_options: Any = None, use_local_synchronization: bool = False) -> Any:
    """A group of some ranks (all of them when ``ranks`` is None). Like torch, every rank of the
    world calls it; the ranks outside get ``GroupMember.NON_GROUP_MEMBER``."""
    from mpi4py import MPI

    world = _world()
    members = sorted(set(range(world.size()) if ranks is None else ranks))
    if any(r < 0 or r >= world.size() for r in members):
        raise ValueError(f"new_group: ranks {members} are not all in [0, {world.size()})")
    inside = world.rank() in members
    comm = world.blocking("new_group", lambda: world.comm.Split(0 if inside else MPI.UNDEFINED, members.index(world.rank()) if inside else 0))
    if not inside:
        return GroupMember.NON_GROUP_MEMBER
    group = MpiGroup(comm, timeout.total_seconds() if timeout else world.timeout_s, members)
    group.backend = world.backend
    return group


# ---- tensors to MPI buffers ---------------------------------------------------------------------


def _cpu(t: Any, what: str) -> _Tensor:
    if not isinstance(t, tt.Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(t).__name__}")
    if t.is_cuda:
        raise RuntimeError(f"{what}: CUDA tensors need a group opened with init_process_group(backend='nccl')")
    if t.dtype == tt.bfloat16:
        raise TypeError(f"{what}: bfloat16 tensors cannot go through MPI (MPI has no bfloat16 type); cast to float32")
    return t


class _Buffer:
    """A tensor's memory for MPI: the tensor itself when contiguous (zero copy: MPI reads and
    writes its storage through the buffer protocol, which autograd does not see, as torch's
    collectives write a tensor's data), else a contiguous copy that ``back()`` writes into the
    tensor once MPI is done."""

    __slots__ = ("buf", "copied", "tensor")

    def __init__(self, t: _Tensor) -> None:
        self.tensor = t
        self.copied = not t.is_contiguous()
        self.buf = t.detach().contiguous() if self.copied else t

    def back(self) -> None:
        if self.copied:
            with tt.no_grad():
                self.tensor.copy_(self.buf)


_MPI_OPS: dict[int, Any] = {}  # id(ReduceOp member) -> MPI.Op, filled on first use (importing MPI initialises it)


def _mpi_op(op: Any) -> Any:
    if not _MPI_OPS:
        from mpi4py import MPI

        # keyed by the members' ids: hashing an enum member is a Python-level call
        _MPI_OPS.update({id(ReduceOp.SUM): MPI.SUM, id(ReduceOp.AVG): MPI.SUM, id(ReduceOp.PRODUCT): MPI.PROD,
                         id(ReduceOp.MIN): MPI.MIN, id(ReduceOp.MAX): MPI.MAX})
    if isinstance(op, str):
        op = ReduceOp[op.upper()]
    got = _MPI_OPS.get(id(op)) if isinstance(op, ReduceOp) else None
    if got is None:
        raise ValueError(f"unsupported reduce op {op!r}")
    return got


def _is_avg(op: Any) -> bool:
    return op is ReduceOp.AVG or (isinstance(op, str) and op.upper() == "AVG")


def _run(
    g: MpiGroup, what: str, checked: Sequence[_Tensor], start: Any, block: Any, async_op: bool, then: Any = None,
    keep: tuple[Any, ...] = (),
) -> Work | None:
    """Checks ``checked``'s shapes across the group (NOTE [ The shape check before a collective ] in
    ``_mpi.py``), then either starts the non-blocking MPI call ``start()`` and hands back its Work, or
    makes the blocking call ``block()`` (no request to create and wait on) and runs ``then``."""
    if not async_op:
        g.collective(what, checked, block)
        if then is not None:
            then()
        return None
    g.check_same(what, checked)
    reqs = start()
    return Work(reqs if isinstance(reqs, list) else [reqs], what, g.timeout_s, g.comm, then, keep)


def _divide_in_place(t: _Tensor, n: int) -> None:
    """``t /= n`` in place. For a power of two it multiplies by ``1 / n`` instead: the same bits
    (scaling by a power of two is exact), and a multiplication is several times cheaper than a
    division (a third of the time on a 1 MB float32 tensor here)."""
    if n & (n - 1) == 0:
        t.mul_(1.0 / n)
    else:
        t.div_(n)


def _divide(buffers: Sequence[_Buffer], n: int) -> Any:
    """The division that follows an AVG's sum (checked before the collective starts, so a wrong
    dtype is an error on every rank before any data moves)."""
    for b in buffers:
        if not b.buf.is_floating_point():
            raise TypeError("ReduceOp.AVG needs floating-point tensors")

    def go() -> None:
        with tt.no_grad():
            for b in buffers:
                _divide_in_place(b.buf, n)
                b.back()

    return go


def _write_back(buffers: Sequence[_Buffer]) -> Any:
    """What must follow the MPI call: copying each non-contiguous tensor's buffer into it (None
    when every buffer is its tensor's own memory)."""
    copied = [b for b in buffers if b.copied]
    if not copied:
        return None

    def go() -> None:
        for b in copied:
            b.back()

    return go


def _on_nccl(g: MpiGroup, *tensors: Any) -> bool:
    """CUDA tensors on a group with an NCCL communicator go through NCCL."""
    return g.nccl is not None and any(isinstance(t, tt.Tensor) and t.is_cuda for t in tensors)


def _nccl_op(op: Any) -> int:
    from typedtensor.distributed._nccl import OPS

    return OPS[(ReduceOp[op.upper()] if isinstance(op, str) else op).name]


def _nccl_done(async_op: bool) -> Work | None:
    from typedtensor.distributed._nccl import NcclWork

    return NcclWork() if async_op else None


# ---- collectives --------------------------------------------------------------------------------


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    g = _group(group)
    return _run(g, "barrier", [], lambda: g.comm.Ibarrier(), lambda: g.comm.Barrier(), async_op)


def all_reduce(tensor: _Tensor, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> Work | None:
    """Reduces ``tensor`` in place across the group; every rank ends with the result."""
    g = _group(group)
    if (op is ReduceOp.SUM and not async_op and g.nccl is None and isinstance(tensor, tt.Tensor) and not tensor.is_cuda
            and tensor.dtype is not tt.bfloat16 and tensor.is_contiguous()):
        # the most common call, with the least Python before the data call (all_reduce_in_place)
        g.all_reduce_in_place("all_reduce", tensor, g.mpi_sum)
        return None
    if g.nccl is not None and _on_nccl(g, tensor):
        g.nccl.all_reduce(tensor, _nccl_op(op))
        return _nccl_done(async_op)
    t = _cpu(tensor, "all_reduce")
    mop = _mpi_op(op)
    if not async_op and t.is_contiguous():
        avg = op is ReduceOp.AVG or _is_avg(op)
        if avg and not t.is_floating_point():
            raise TypeError("ReduceOp.AVG needs floating-point tensors")
        g.all_reduce_in_place("all_reduce", t, mop)
        if avg:
            with tt.no_grad():
                _divide_in_place(t, g.size())
        return None
    from mpi4py import MPI

    b = _Buffer(t)
    then = _divide([b], g.size()) if _is_avg(op) else _write_back([b])
    return _run(g, "all_reduce", [t], lambda: g.comm.Iallreduce(MPI.IN_PLACE, b.buf, mop),
                lambda: g.comm.Allreduce(MPI.IN_PLACE, b.buf, mop), async_op, then, (t,))


def reduce(tensor: _Tensor, dst: int, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> Work | None:
    """Reduces into ``tensor`` on global rank ``dst``; the other ranks' tensors are left as they are."""
    from mpi4py import MPI

    g = _group(group)
    t = _cpu(tensor, "reduce")
    mop = _mpi_op(op)
    root = g.group_rank(dst)
    b = _Buffer(t)
    mine = g.rank() == root
    then = _divide([b], g.size()) if _is_avg(op) and mine else _write_back([b])
    send = MPI.IN_PLACE if mine else b.buf
    recv = b.buf if mine else None
    return _run(g, "reduce", [t], lambda: g.comm.Ireduce(send, recv, mop, root=root),
                lambda: g.comm.Reduce(send, recv, mop, root=root), async_op, then if mine else None, (t,))


def broadcast(tensor: _Tensor, src: int, group: Any = None, async_op: bool = False) -> Work | None:
    """Copies global rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    g = _group(group)
    if _on_nccl(g, tensor):
        g.nccl.broadcast(tensor, g.group_rank(src))
        return _nccl_done(async_op)
    t = _cpu(tensor, "broadcast")
    root = g.group_rank(src)
    b = _Buffer(t)
    return _run(g, "broadcast", [t], lambda: g.comm.Ibcast(b.buf, root=root), lambda: g.comm.Bcast(b.buf, root=root),
                async_op, _write_back([b]), (t,))


def all_gather(tensor_list: list[_Tensor], tensor: _Tensor, group: Any = None, async_op: bool = False) -> Work | None:
    """``tensor_list[r]`` receives rank r's ``tensor`` (each list entry is written in place)."""
    g = _group(group)
    if _on_nccl(g, tensor):
        out = tt._C.empty(g.size(), *tensor.shape, dtype=tensor.dtype, device=tensor.device)
        g.nccl.all_gather(tensor, out)
        with tt.no_grad():
            for i, o in enumerate(tensor_list):
                o.copy_(out[i])
        return _nccl_done(async_op)
    t = _cpu(tensor, "all_gather")
    if len(tensor_list) != g.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of {g.size()}")
    for o in tensor_list:
        if tuple(o.shape) != tuple(t.shape) or o.dtype != t.dtype:
            raise ValueError(f"all_gather: output tensors must match the input {tuple(t.shape)} {t.dtype}, got "
                             f"{tuple(o.shape)} {o.dtype}")
    out = tt._C.empty(g.size(), *t.shape, dtype=t.dtype)
    src = _Buffer(t)

    def then() -> None:
        with tt.no_grad():
            for i, o in enumerate(tensor_list):
                o.copy_(out[i])

    return _run(g, "all_gather", [t], lambda: g.comm.Iallgather(src.buf, out), lambda: g.comm.Allgather(src.buf, out),
                async_op, then, (t, out, *tensor_list))


def all_gather_into_tensor(output_tensor: _Tensor, input_tensor: _Tensor, group: Any = None,
                           async_op: bool = False) -> Work | None:
    """Concatenates every rank's ``input_tensor`` along dim 0 into ``output_tensor``
    (``[world * n, ...]``; torch also accepts a stacked ``[world, n, ...]``)."""
    g = _group(group)
    if _on_nccl(g, input_tensor):
        g.nccl.all_gather(input_tensor, output_tensor)
        return _nccl_done(async_op)
    t = _cpu(input_tensor, "all_gather_into_tensor")
    o = _cpu(output_tensor, "all_gather_into_tensor")
    w = g.size()
    ok = o.numel() == w * t.numel() and o.dtype == t.dtype and (
        tuple(o.shape) == (w * (t.shape[0] if t.dim() else 1), *t.shape[1:]) or tuple(o.shape) == (w, *t.shape)
    )
    if not ok:
        first = w * t.shape[0] if t.dim() else w
        raise ValueError(
            f"all_gather_into_tensor: output_tensor must be {(first, *t.shape[1:])} ({w} ranks x input "
            f"{tuple(t.shape)}) of {t.dtype}, got {tuple(o.shape)} of {o.dtype}"
        )
    src, dst = _Buffer(t), _Buffer(o)
    return _run(g, "all_gather_into_tensor", [t], lambda: g.comm.Iallgather(src.buf, dst.buf),
                lambda: g.comm.Allgather(src.buf, dst.buf), async_op, _write_back([dst]), (t, o))


def reduce_scatter_tensor(output: _Tensor, input: _Tensor, op: Any = ReduceOp.SUM, group: Any = None,
                          async_op: bool = False) -> Work | None:
    """Reduces ``input`` (``[world * n, ...]``) across ranks and leaves rank r's share in ``output``."""
    g = _group(group)
    if _on_nccl(g, input):
        g.nccl.reduce_scatter(input, output, _nccl_op(op))
        return _nccl_done(async_op)
    i = _cpu(input, "reduce_scatter_tensor")
    o = _cpu(output, "reduce_scatter_tensor")
    w = g.size()
    if i.numel() != w * o.numel() or i.dtype != o.dtype:
        raise ValueError(
            f"reduce_scatter_tensor: input must hold {w} shares of the output {tuple(o.shape)} {o.dtype}, got "
            f"{tuple(i.shape)} {i.dtype}"
        )
    mop = _mpi_op(op)
    src, dst = _Buffer(i), _Buffer(o)
    then = _divide([dst], w) if _is_avg(op) else _write_back([dst])
    return _run(g, "reduce_scatter_tensor", [i], lambda: g.comm.Ireduce_scatter_block(src.buf, dst.buf, mop),
                lambda: g.comm.Reduce_scatter_block(src.buf, dst.buf, mop), async_op, then, (i, o))


def reduce_scatter(output: _Tensor, input_list: list[_Tensor], op: Any = ReduceOp.SUM, group: Any = None,
                   async_op: bool = False) -> Work | None:
    """``output`` on rank r gets the reduction of every rank's ``input_list[r]``."""
    g = _group(group)
    o = _cpu(output, "reduce_scatter")
    if len(input_list) != g.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors for a group of {g.size()}")
    for x in input_list:
        if tuple(x.shape) != tuple(o.shape) or x.dtype != o.dtype:
            raise ValueError(f"reduce_scatter: every input must match the output {tuple(o.shape)} {o.dtype}, got "
                             f"{tuple(x.shape)} {x.dtype}")
    stacked = tt._C.stack([_cpu(x, "reduce_scatter").detach() for x in input_list])
    return reduce_scatter_tensor(o, stacked, op, group, async_op)


def send(tensor: _Tensor, dst: int, group: Any = None, tag: int = 0) -> None:
    g = _group(group)
    if _on_nccl(g, tensor):
        g.nccl.send(tensor, g.group_rank(dst))
        return
    w = isend(tensor, dst, group, tag)
    w.wait()


def isend(tensor: _Tensor, dst: int, group: Any = None, tag: int = 0) -> Work:
    g = _group(group)
    b = _Buffer(_cpu(tensor, "send"))
    return Work([g.comm.Isend(b.buf, dest=g.group_rank(dst), tag=tag)], "send", g.timeout_s, g.comm, None, (b.buf,))


def irecv(tensor: _Tensor, src: int | None = None, group: Any = None, tag: int = 0) -> Work:
    from mpi4py import MPI

    g = _group(group)
    b = _Buffer(_cpu(tensor, "recv"))
    source = MPI.ANY_SOURCE if src is None else g.group_rank(src)
    return Work([g.comm.Irecv(b.buf, source=source, tag=tag)], "recv", g.timeout_s, g.comm, _write_back([b]), (tensor,))


def recv(tensor: _Tensor, src: int | None = None, group: Any = None, tag: int = 0) -> int:
    """Receives into ``tensor``; returns the sender's global rank (as torch)."""
    from mpi4py import MPI

    g = _group(group)
    if _on_nccl(g, tensor):
        if src is None:
            raise ValueError("recv: the nccl backend needs src")
        g.nccl.recv(tensor, g.group_rank(src))
        return src
    b = _Buffer(_cpu(tensor, "recv"))
    status = MPI.Status()
    source = MPI.ANY_SOURCE if src is None else g.group_rank(src)
    g.blocking("recv", lambda: g.comm.Recv(b.buf, source=source, tag=tag, status=status))
    b.back()
    got = status.Get_source()
    if status.Get_count(MPI.BYTE) != b.buf.nbytes:
        raise ValueError(f"recv: rank {g.global_ranks[got]} sent {status.Get_count(MPI.BYTE)} bytes into a tensor of "
                         f"{b.buf.nbytes} bytes {tuple(tensor.shape)}")
    return g.global_ranks[got]


def _same_shape_list(what: str, name: str, tensors: Sequence[_Tensor], like: _Tensor, n: int) -> None:
    if len(tensors) != n:
        raise ValueError(f"{what}: {name} has {len(tensors)} tensors for a group of {n}")
    for x in tensors:
        if tuple(x.shape) != tuple(like.shape) or x.dtype != like.dtype:
            raise ValueError(f"{what}: every tensor of {name} must match {tuple(like.shape)} {like.dtype}, got "
                             f"{tuple(x.shape)} {x.dtype}")


def gather(tensor: _Tensor, gather_list: list[_Tensor] | None = None, dst: int = 0, group: Any = None,
           async_op: bool = False) -> Work | None:
    """Global rank ``dst``'s ``gather_list[r]`` receives rank r's ``tensor``; the other ranks pass no list."""
    g = _group(group)
    t = _cpu(tensor, "gather")
    root = g.group_rank(dst)
    mine = g.rank() == root
    if mine and not gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not mine and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    out = None
    if mine:
        assert gather_list is not None
        _same_shape_list("gather", "gather_list", gather_list, t, g.size())
        out = tt._C.empty(g.size(), *t.shape, dtype=t.dtype)
    src = _Buffer(t)

    def then() -> None:
        if gather_list and out is not None:
            with tt.no_grad():
                for i, o in enumerate(gather_list):
                    o.copy_(out[i])

    return _run(g, "gather", [t], lambda: g.comm.Igather(src.buf, out, root=root),
                lambda: g.comm.Gather(src.buf, out, root=root), async_op, then, (t, out, *(gather_list or ())))


def scatter(tensor: _Tensor, scatter_list: list[_Tensor] | None = None, src: int = 0, group: Any = None,
            async_op: bool = False) -> Work | None:
    """Rank r's ``tensor`` receives global rank ``src``'s ``scatter_list[r]``; the other ranks pass no list."""
    g = _group(group)
    t = _cpu(tensor, "scatter")
    root = g.group_rank(src)
    mine = g.rank() == root
    if mine and not scatter_list:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    if not mine and scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    stacked = None
    if mine:
        assert scatter_list is not None
        _same_shape_list("scatter", "scatter_list", scatter_list, t, g.size())
        stacked = tt._C.stack([_cpu(x, "scatter").detach() for x in scatter_list])
    dst = _Buffer(t)
    return _run(g, "scatter", [t], lambda: g.comm.Iscatter(stacked, dst.buf, root=root),
                lambda: g.comm.Scatter(stacked, dst.buf, root=root), async_op, _write_back([dst]), (t, stacked))


def all_to_all_single(output: _Tensor, input: _Tensor, output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, group: Any = None,
                      async_op: bool = False) -> Work | None:
    """Rank r sends the r-th share of ``input``'s dim 0 to every rank and receives every rank's r-th
    share into ``output``: equal shares without split sizes, else ``input_split_sizes`` rows to each
    rank and ``output_split_sizes`` rows from each (the shapes may then differ between ranks)."""
    g = _group(group)
    i, o = _cpu(input, "all_to_all_single"), _cpu(output, "all_to_all_single")
    w = g.size()
    if i.dtype != o.dtype or tuple(i.shape[1:]) != tuple(o.shape[1:]):
        raise ValueError(f"all_to_all_single: input {tuple(i.shape)} {i.dtype} and output {tuple(o.shape)} {o.dtype} "
                         "must agree in dtype and in every dim but the first")
    row = 1
    for d in i.shape[1:]:
        row *= int(d)
    src, dst = _Buffer(i), _Buffer(o)
    if not input_split_sizes and not output_split_sizes:
        if i.shape[0] % w or tuple(i.shape) != tuple(o.shape):
            raise ValueError(f"all_to_all_single: without split sizes, input and output must have the same shape "
                             f"with dim 0 a multiple of {w}; got {tuple(i.shape)} and {tuple(o.shape)}")
        return _run(g, "all_to_all_single", [i], lambda: g.comm.Ialltoall(src.buf, dst.buf),
                    lambda: g.comm.Alltoall(src.buf, dst.buf), async_op, _write_back([dst]), (i, o))
    ins = list(input_split_sizes or [i.shape[0] // w] * w)
    outs = list(output_split_sizes or [o.shape[0] // w] * w)
    if len(ins) != w or len(outs) != w or sum(ins) != i.shape[0] or sum(outs) != o.shape[0]:
        raise ValueError(f"all_to_all_single: split sizes {ins} (input) and {outs} (output) must have {w} entries "
                         f"summing to dim 0 of input {tuple(i.shape)} and output {tuple(o.shape)}")

    def spec(buf: Any, rows: list[int]) -> list[Any]:
        counts = [r * row for r in rows]
        displs = [sum(counts[:k]) for k in range(len(counts))]
        return [buf, (counts, displs)]

    send, recv = spec(src.buf, ins), spec(dst.buf, outs)
    # the shapes may differ between ranks: only the dtypes and the dims after the first are checked
    return _run(g, "all_to_all_single", [i[:0]], lambda: g.comm.Ialltoallv(send, recv),
                lambda: g.comm.Alltoallv(send, recv), async_op, _write_back([dst]), (i, o))


def all_to_all(output_tensor_list: list[_Tensor], input_tensor_list: list[_Tensor], group: Any = None,
               async_op: bool = False) -> Work | None:
    """``output_tensor_list[r]`` on each rank receives rank r's ``input_tensor_list[this rank]``."""
    g = _group(group)
    w = g.size()
    if len(input_tensor_list) != w or len(output_tensor_list) != w:
        raise ValueError(f"all_to_all: both lists must hold {w} tensors, got {len(input_tensor_list)} and "
                         f"{len(output_tensor_list)}")
    ins = [_cpu(x, "all_to_all").detach().reshape(-1) for x in input_tensor_list]
    outs = [_cpu(x, "all_to_all") for x in output_tensor_list]
    flat_in = tt._C.cat(ins)
    flat_out = tt._C.empty(sum(int(x.numel()) for x in outs), dtype=flat_in.dtype)

    def then() -> None:
        with tt.no_grad():
            at = 0
            for x in outs:
                n = int(x.numel())
                x.copy_(flat_out[at : at + n].reshape(x.shape))
                at += n

    work = all_to_all_single(flat_out, flat_in, [int(x.numel()) for x in outs], [int(x.numel()) for x in ins], group,
                             async_op)
    if work is None:
        then()
        return None

    def wait_then_copy() -> None:
        work.wait()
        then()

    return Work([], "all_to_all", g.timeout_s, g.comm, wait_then_copy, (flat_in, flat_out, *outs))


def monitored_barrier(group: Any = None, timeout: datetime.timedelta | None = None, wait_all_ranks: bool = False) -> None:
    """A barrier that ends the job when a rank has not arrived within ``timeout`` (the group's by
    default): the watchdog's NOTE [ Collective timeouts ] in ``_mpi.py``."""
    g = _group(group)
    limit = g.timeout_s if timeout is None else timeout.total_seconds()
    saved, g.timeout_s = g.timeout_s, limit
    try:
        g.blocking("monitored_barrier", lambda: g.comm.Barrier())
    finally:
        g.timeout_s = saved


def get_process_group_ranks(group: Any) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    return list(_group(group).global_ranks)


def get_global_rank(group: Any, group_rank: int) -> int:
    ranks = _group(group).global_ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {ranks}")
    return ranks[group_rank]


def get_group_rank(group: Any, global_rank: int) -> int:
    return _group(group).group_rank(global_rank)


# ---- Python objects (pickled) -------------------------------------------------------------------


def all_gather_object(object_list: list[Any], obj: Any, group: Any = None) -> None:
    g = _group(group)
    got = g.blocking("all_gather_object", lambda: g.comm.allgather(obj))
    if len(object_list) != len(got):
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} entries for a group of {len(got)}")
    object_list[:] = got


def broadcast_object_list(object_list: list[Any], src: int = 0, group: Any = None, device: Any = None) -> None:
    g = _group(group)
    got = g.blocking("broadcast_object_list", lambda: g.comm.bcast(list(object_list), root=g.group_rank(src)))
    object_list[:] = got



def gather_object(obj: Any, object_gather_list: list[Any] | None = None, dst: int = 0, group: Any = None) -> None:
    """Global rank ``dst``'s ``object_gather_list`` receives every rank's ``obj`` (pickled)."""
    g = _group(group)
    root = g.group_rank(dst)
    mine = g.rank() == root
    if mine and (object_gather_list is None or len(object_gather_list) != g.size()):
        raise ValueError(f"gather_object: object_gather_list on the destination rank must have {g.size()} entries")
    got = g.blocking("gather_object", lambda: g.comm.gather(obj, root=root))
    if mine:
        assert object_gather_list is not None
        object_gather_list[:] = got


def scatter_object_list(scatter_object_output_list: list[Any], scatter_object_input_list: list[Any] | None = None,
                        src: int = 0, group: Any = None) -> None:
    """``scatter_object_output_list[0]`` on rank r receives global rank ``src``'s
    ``scatter_object_input_list[r]`` (pickled)."""
    g = _group(group)
    root = g.group_rank(src)
    if not scatter_object_output_list:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    if g.rank() == root and (scatter_object_input_list is None or len(scatter_object_input_list) != g.size()):
        raise ValueError(f"scatter_object_list: the source rank's input list must have {g.size()} entries")
    items = list(scatter_object_input_list) if g.rank() == root and scatter_object_input_list is not None else None
    scatter_object_output_list[0] = g.blocking("scatter_object_list", lambda: g.comm.scatter(items, root=root))
