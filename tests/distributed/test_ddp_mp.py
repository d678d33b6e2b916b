"""DistributedDataParallel on 2 and 4 processes: one launch per world size runs every check of
programs/ddp.py (training equals single-process full-batch training, no_sync, unused parameters,
the state_dict prefix, the sampler's split)."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import mpirun, per_rank

CHECKS = [
    "parameters_broadcast_from_rank0", "training_equals_single_process_full_batch",
    "the_reduction_adds_no_rounding_of_its_own", "buckets_start_while_the_backward_runs",
    "gradients_are_averaged_when_backward_returns", "no_sync_accumulates_locally_then_reduces", "find_unused_parameters",
    "an_unused_parameter_without_find_unused_is_torchs_error", "state_dict_has_torchs_module_prefix",
    "mismatched_parameter_shapes_name_the_parameter", "distributed_sampler_splits_the_dataset",
]
_cache: dict[int, list[dict[str, Any]]] = {}


def outcome(world: int) -> list[dict[str, Any]]:
    if world not in _cache:
        _cache[world] = per_rank(mpirun(world, "ddp.py"), world)
    return _cache[world]


@pytest.mark.multiprocess
@pytest.mark.parametrize("world", [2, 4])
def test_the_program_ran_every_check(world: int) -> None:
    for r in outcome(world):
        assert sorted(r["results"]) == sorted(CHECKS)


@pytest.mark.multiprocess
@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("name", CHECKS)
def test_ddp(world: int, name: str) -> None:
    for r in outcome(world):
        assert r["results"].get(name) == "ok", f"rank {r['rank']} of {world}:\n{r['results'].get(name)}"
