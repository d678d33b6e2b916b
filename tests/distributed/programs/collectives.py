"""Every collective of typedtensor.distributed on this world, each checked against numpy on every
rank; prints one JSON line per rank: {check name: "ok" or the failure}."""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable

import numpy as np

import typedtensor as tt
import typedtensor.distributed as dist


def report(result: dict[str, object]) -> None:
    """This rank's result as JSON: a file in TT_RESULTS_DIR (the tests), else a line on stdout."""
    folder = os.environ.get("TT_RESULTS_DIR")
    if folder:
        with open(os.path.join(folder, f"rank{result['rank']}.json"), "w") as f:
            json.dump(result, f)
    else:
        print(json.dumps(result), flush=True)


dist.init_process_group("mpi")
R, W = dist.get_rank(), dist.get_world_size()
results: dict[str, str] = {}
checks: list[Callable[[], None]] = []


def check(fn: Callable[[], None]) -> Callable[[], None]:
    checks.append(fn)
    return fn


def value(rank: int, shape: tuple[int, ...] = (3, 4), dtype: str = "float32") -> np.ndarray:
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float64).reshape(shape) * (rank + 1) + rank).astype(dtype)


@check
def world() -> None:
    assert dist.is_initialized() and dist.is_available()
    assert 0 <= R < W
    assert dist.get_backend() == "mpi"


@check
def all_reduce_ops() -> None:
    everyone = np.stack([value(r, dtype="float64") for r in range(W)])
    expect = {"SUM": everyone.sum(0), "AVG": everyone.mean(0), "MAX": everyone.max(0), "MIN": everyone.min(0),
              "PRODUCT": everyone.prod(0)}
    for name, want in expect.items():
        t = tt.tensor(value(R, dtype="float64"))
        assert dist.all_reduce(t, op=getattr(dist.ReduceOp, name)) is None
        np.testing.assert_allclose(t.numpy(), want, rtol=1e-12, err_msg=name)


@check
def all_reduce_ints_and_float32() -> None:
    t = tt.tensor(value(R, dtype="int64"))
    dist.all_reduce(t)
    np.testing.assert_array_equal(t.numpy(), sum(value(r, dtype="int64") for r in range(W)))
    f = tt.tensor(value(R))
    dist.all_reduce(f)
    np.testing.assert_allclose(f.numpy(), sum(value(r) for r in range(W)), rtol=1e-6)


@check
def all_reduce_is_zero_copy() -> None:
    t = tt.tensor(value(R))
    view = t.numpy()  # shares the tensor's memory
    ptr = t.data_ptr()
    dist.all_reduce(t)
    assert t.data_ptr() == ptr
    np.testing.assert_allclose(view, sum(value(r) for r in range(W)), rtol=1e-6)


@check
def all_reduce_non_contiguous() -> None:
    base = tt.tensor(value(R, (4, 6)))
    t = base.t()
    assert not t.is_contiguous()
    dist.all_reduce(t)
    np.testing.assert_allclose(base.numpy(), sum(value(r, (4, 6)) for r in range(W)), rtol=1e-6)


@check
def async_all_reduce() -> None:
    t = tt.tensor(value(R))
    work = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
    assert work is not None
    assert work.wait()
    assert work.is_completed()
    np.testing.assert_allclose(t.numpy(), np.mean([value(r) for r in range(W)], axis=0), rtol=1e-6)


@check
def broadcast_from_each_rank() -> None:
    for src in range(W):
        t = tt.tensor(value(R))
        dist.broadcast(t, src=src)
        np.testing.assert_array_equal(t.numpy(), value(src))


@check
def all_gather_list() -> None:
    out = [tt.zeros(3, 4) for _ in range(W)]
    dist.all_gather(out, tt.tensor(value(R)))
    for r in range(W):
        np.testing.assert_array_equal(out[r].numpy(), value(r))


@check
def all_gather_into_tensor() -> None:
    out = tt.zeros(W * 3, 4)
    work = dist.all_gather_into_tensor(out, tt.tensor(value(R)), async_op=True)
    assert work is not None
    work.wait()
    np.testing.assert_array_equal(out.numpy(), np.concatenate([value(r) for r in range(W)]))
    stacked = tt.zeros(W, 3, 4)
    dist.all_gather_into_tensor(stacked, tt.tensor(value(R)))
    np.testing.assert_array_equal(stacked.numpy(), np.stack([value(r) for r in range(W)]))


@check
def reduce_scatter_tensor() -> None:
    inp = tt.tensor(value(R, (W * 2, 3)))
    out = tt.zeros(2, 3)
    dist.reduce_scatter_tensor(out, inp)
    full = sum(value(r, (W * 2, 3)) for r in range(W))
    np.testing.assert_allclose(out.numpy(), full[R * 2 : R * 2 + 2], rtol=1e-6)


@check
def reduce_scatter_list() -> None:
    inputs = [tt.tensor(value(R, (2, 3)) + 10 * i) for i in range(W)]
    out = tt.zeros(2, 3)
    dist.reduce_scatter(out, inputs, op=dist.ReduceOp.MAX)
    want = np.max([value(r, (2, 3)) + 10 * R for r in range(W)], axis=0)
    np.testing.assert_allclose(out.numpy(), want)


@check
def reduce_to_one_rank() -> None:
    t = tt.tensor(value(R))
    dist.reduce(t, dst=W - 1)
    if R == W - 1:
        np.testing.assert_allclose(t.numpy(), sum(value(r) for r in range(W)), rtol=1e-6)
    else:
        np.testing.assert_array_equal(t.numpy(), value(R))


@check
def send_recv_ring() -> None:
    right, left = (R + 1) % W, (R - 1) % W
    out = tt.zeros(3, 4)
    work = dist.isend(tt.tensor(value(R)), right)
    got_from = dist.recv(out, src=left)
    work.wait()
    assert got_from == left
    np.testing.assert_array_equal(out.numpy(), value(left))
    if W < 2:
        return
    if R == 0:
        dist.send(tt.tensor(value(7)), 1)
    elif R == 1:
        anyone = tt.zeros(3, 4)
        assert dist.recv(anyone) == 0
        np.testing.assert_array_equal(anyone.numpy(), value(7))


@check
def barrier_and_objects() -> None:
    dist.barrier()
    w = dist.barrier(async_op=True)
    assert w is not None and w.wait()
    objs: list[object] = [None] * W
    dist.all_gather_object(objs, {"rank": R})
    assert objs == [{"rank": r} for r in range(W)]
    lst: list[object] = [R, "x"] if R == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [0, "x"]


@check
def gather_to_each_rank() -> None:
    for dst in range(W):
        out = [tt.zeros(3, 4) for _ in range(W)] if dst == R else None
        dist.gather(tt.tensor(value(R)), out, dst=dst)
        if out is not None:
            for r in range(W):
                np.testing.assert_array_equal(out[r].numpy(), value(r))
    try:
        dist.gather(tt.tensor(value(R)), [tt.zeros(3, 4)] * W if R != 0 else None, dst=0)  # each rank on the wrong side
    except ValueError as e:  # the list on the wrong side is refused locally, before any data moves
        assert "gather_list" in str(e)
    else:
        raise AssertionError("a gather_list on the wrong rank was accepted")


@check
def scatter_from_each_rank() -> None:
    for src in range(W):
        shares = [tt.tensor(value(src) + 100 * r) for r in range(W)] if src == R else None
        out = tt.zeros(3, 4)
        work = dist.scatter(out, shares, src=src, async_op=True)
        assert work is not None
        work.wait()
        np.testing.assert_array_equal(out.numpy(), value(src) + 100 * R)


@check
def all_to_all_even_uneven_and_lists() -> None:
    # even: row block j of rank r's input goes to rank j
    inp = tt.tensor(value(R, (W * 2, 3)))
    out = tt.zeros(W * 2, 3)
    dist.all_to_all_single(out, inp)
    np.testing.assert_array_equal(out.numpy(), np.concatenate([value(r, (W * 2, 3))[R * 2 : R * 2 + 2] for r in range(W)]))
    # uneven: rank r sends j + 1 rows to rank j, so receives R + 1 rows from everyone
    sends = [j + 1 for j in range(W)]
    rows = sum(sends)
    inp = tt.tensor(value(R, (rows, 2)))
    out = tt.zeros(W * (R + 1), 2)
    dist.all_to_all_single(out, inp, output_split_sizes=[R + 1] * W, input_split_sizes=sends)
    start = sum(sends[:R])
    np.testing.assert_array_equal(out.numpy(), np.concatenate([value(r, (rows, 2))[start : start + R + 1] for r in range(W)]))
    ins = [tt.tensor(value(R, (j + 1,)) + j) for j in range(W)]
    outs = [tt.zeros(R + 1) for _ in range(W)]
    dist.all_to_all(outs, ins)
    for r in range(W):
        np.testing.assert_array_equal(outs[r].numpy(), value(r, (R + 1,)) + R)


@check
def objects_gathered_and_scattered() -> None:
    got: list[object] | None = [None] * W if R == W - 1 else None
    dist.gather_object({"from": R}, got, dst=W - 1)
    if got is not None:
        assert got == [{"from": r} for r in range(W)]
    out: list[object] = [None]
    dist.scatter_object_list(out, [f"to {r}" for r in range(W)] if R == 0 else None, src=0)
    assert out == [f"to {R}"]


@check
def group_rank_queries_and_monitored_barrier() -> None:
    import datetime

    world = dist.GroupMember.WORLD
    assert dist.get_process_group_ranks(world) == list(range(W))
    assert dist.get_global_rank(world, W - 1) == W - 1 and dist.get_group_rank(world, 0) == 0
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=60))
    if W > 2:
        g = dist.new_group([1, 2])
        if g is not dist.GroupMember.NON_GROUP_MEMBER:
            assert dist.get_process_group_ranks(g) == [1, 2]
            assert dist.get_global_rank(g, 0) == 1 and dist.get_group_rank(g, 2) == 1


@check
def mismatched_shapes_name_the_dim() -> None:
    if W < 2:
        return
    t = tt.zeros(4, 3 + (R == W - 1))
    try:
        dist.all_reduce(t)
    except ValueError as e:
        msg = str(e)
        assert "all_reduce" in msg and "dim 1" in msg and "(4, 3)" in msg and "(4, 4)" in msg, msg
    else:
        raise AssertionError("no error for mismatched shapes")
    dtype = tt.float64 if R == 0 else tt.float32
    try:
        dist.broadcast(tt.zeros(2, dtype=dtype), src=0)
    except ValueError as e:
        assert "dtype" in str(e), str(e)
    else:
        raise AssertionError("no error for mismatched dtypes")


@check
def every_kind_of_mismatch_is_an_error_on_every_rank() -> None:
    """The last rank differs in element count, in shape with the same count, in the number of dims
    (also past the header's eight), or in dtype, through each collective, blocking and async; every
    rank raises, and the group still works afterwards (nothing hung or was left half-sent)."""
    if W < 2:
        return
    odd = R == W - 1
    cases: list[tuple[str, tuple[int, ...], tuple[int, ...], str, str]] = [
        ("count", (4, 3), (4, 5), "float32", "dim 1 is 3 on rank 0 and 5"),
        ("same count", (4, 3), (3, 4), "float32", "dim 0 is 4 on rank 0 and 3"),
        ("dims", (12,), (3, 4), "float32", "rank 0 has 1 dims"),
        ("long shapes", (1,) * 9 + (2,), (1,) * 9 + (3,), "float32", "tensor shapes differ"),
        ("dtype", (4,), (4,), "float64", "dtypes differ"),
    ]
    calls = {
        "all_reduce": lambda t, a: dist.all_reduce(t, async_op=a),
        "all_reduce AVG": lambda t, a: dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=a),
        "broadcast": lambda t, a: dist.broadcast(t, src=0, async_op=a),
        "reduce": lambda t, a: dist.reduce(t, dst=0, async_op=a),
        "all_gather_into_tensor": lambda t, a: dist.all_gather_into_tensor(
            tt.zeros(W * t.shape[0], *t.shape[1:], dtype=t.dtype), t, async_op=a),
    }
    for label, mine, theirs, dtype, words in cases:
        for what, call in calls.items():
            for async_op in (False, True):
                t = tt.zeros(*(theirs if odd else mine), dtype=getattr(tt, dtype) if odd else tt.float32)
                try:
                    work = call(t, async_op)
                    if work is not None:
                        work.wait()
                except ValueError as e:
                    assert what.split()[0] in str(e) and words in str(e), (label, what, str(e))
                else:
                    raise AssertionError(f"no error for {label} through {what} (async_op={async_op})")
    t = tt.tensor(value(R))
    dist.all_reduce(t)
    np.testing.assert_allclose(t.numpy(), sum(value(r) for r in range(W)), rtol=1e-6)


@check
def header_buffers_are_kept_per_shape_and_dtype() -> None:
    """The check's buffers are made once per (shape, dtype) and reused: after every rank has used
    both float32 and float64 tensors of one shape, ranks that pass different ones still get the
    error, and a call that agrees still reduces."""
    if W < 2:
        return
    for dtype in (tt.float32, tt.float64, tt.float32):
        t = tt.ones(3, 4, dtype=dtype)
        dist.all_reduce(t)
        np.testing.assert_array_equal(t.numpy(), np.full((3, 4), W))
    odd = R == W - 1
    try:
        dist.all_reduce(tt.ones(3, 4, dtype=tt.float64 if odd else tt.float32))
    except ValueError as e:
        assert "dtypes differ" in str(e), str(e)
    else:
        raise AssertionError("no error for mismatched dtypes of one shape")
    try:
        dist.all_reduce(tt.ones(*((4, 3) if odd else (3, 4))))
    except ValueError as e:
        assert "dim 0 is 3 on rank 0 and 4" in str(e), str(e)
    else:
        raise AssertionError("no error for mismatched shapes of one count")
    t = tt.ones(3, 4, dtype=tt.float64)
    dist.all_reduce(t, op="avg")
    np.testing.assert_array_equal(t.numpy(), np.ones((3, 4)))


@check
def avg_of_integers_is_refused_before_any_data_moves() -> None:
    t = tt.tensor(np.arange(4, dtype=np.int64) + R)
    for async_op in (False, True):
        try:
            dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=async_op)
        except TypeError as e:
            assert "floating-point" in str(e), str(e)
        else:
            raise AssertionError("no error for AVG of integers")
        np.testing.assert_array_equal(t.numpy(), np.arange(4) + R)  # left as it was


@check
def wrong_output_shapes_are_local_errors() -> None:
    try:
        dist.all_gather_into_tensor(tt.zeros(W * 3 + 1, 4), tt.zeros(3, 4))
    except ValueError as e:
        assert f"({W * 3}, 4)" in str(e), str(e)
    else:
        raise AssertionError("no error")


@check
def subgroup() -> None:
    if W < 2:
        return
    g = dist.new_group([0, 1])
    if R > 1:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        return
    assert dist.get_world_size(g) == 2 and dist.get_rank(g) == R
    t = tt.tensor(value(R))
    dist.all_reduce(t, group=g)
    np.testing.assert_allclose(t.numpy(), value(0) + value(1), rtol=1e-6)
    b = tt.tensor(value(R))
    dist.broadcast(b, src=1, group=g)
    np.testing.assert_array_equal(b.numpy(), value(1))


for fn in checks:
    try:
        fn()
        results[fn.__name__] = "ok"
    except Exception:
        results[fn.__name__] = traceback.format_exc()
dist.barrier()
report({"rank": R, "world": W, "results": results})
dist.destroy_process_group()
sys.exit(0)
