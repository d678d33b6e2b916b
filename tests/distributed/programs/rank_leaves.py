"""Rank 1 finishes normally without joining the collective the others wait in: the watchdog
(NOTE [ Collective timeouts ]) ends the job after the group's timeout."""

import datetime
import os

import typedtensor as tt
import typedtensor.distributed as dist

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=float(os.environ.get("TT_TEST_TIMEOUT", "2"))))
if dist.get_rank() != 1:
    dist.all_reduce(tt.ones(4))
    print("unreachable: the all_reduce completed", flush=True)
