from collections.abc import Callable
from multiprocessing import *  # noqa: F403
from typing import Any

class ProcessRaisedException(Exception):
    error_index: int
    pid: int | None

class ProcessExitedException(Exception):
    error_index: int
    pid: int | None
    exit_code: int | None

class ProcessContext:
    def pids(self) -> list[int | None]: ...
    def join(self, timeout: float | None = None) -> bool: ...

def get_all_sharing_strategies() -> set[str]: ...
def get_sharing_strategy() -> str: ...
def set_sharing_strategy(new_strategy: str) -> None: ...
def start_processes(
    fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None: ...
def spawn(
    fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None: ...
