"""The collectives on 1, 2 and 4 processes: one launch per world size runs every check of
programs/collectives.py on every rank (each check compares with numpy)."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import mpirun, per_rank, run

CHECKS = [
    "world", "all_reduce_ops", "all_reduce_ints_and_float32", "all_reduce_is_zero_copy", "all_reduce_non_contiguous",
    "async_all_reduce", "broadcast_from_each_rank", "all_gather_list", "all_gather_into_tensor",
    "reduce_scatter_tensor", "reduce_scatter_list", "reduce_to_one_rank", "send_recv_ring", "barrier_and_objects",
    "mismatched_shapes_name_the_dim", "every_kind_of_mismatch_is_an_error_on_every_rank",
    "header_buffers_are_kept_per_shape_and_dtype", "avg_of_integers_is_refused_before_any_data_moves",
    "wrong_output_shapes_are_local_errors", "subgroup", "gather_to_each_rank", "scatter_from_each_rank",
    "all_to_all_even_uneven_and_lists", "objects_gathered_and_scattered", "group_rank_queries_and_monitored_barrier",
]
_cache: dict[int, list[dict[str, Any]]] = {}


def outcome(world: int) -> list[dict[str, Any]]:
    if world not in _cache:
        if world == 1:  # no launcher: MPI's world of one
            import sys

            from .helpers import PROGRAMS

            proc = run([sys.executable, str(PROGRAMS / "collectives.py")])
        else:
            proc = mpirun(world, "collectives.py")
        _cache[world] = per_rank(proc, world)
    return _cache[world]


@pytest.mark.multiprocess
@pytest.mark.parametrize("world", [1, 2, 4])
def test_the_program_ran_every_check(world: int) -> None:
    for r in outcome(world):
        assert sorted(r["results"]) == sorted(CHECKS)


@pytest.mark.multiprocess
@pytest.mark.parametrize("world", [1, 2, 4])
@pytest.mark.parametrize("name", CHECKS)
def test_collective(world: int, name: str) -> None:
    for r in outcome(world):
        assert r["results"].get(name) == "ok", f"rank {r['rank']} of {world}:\n{r['results'].get(name)}"
