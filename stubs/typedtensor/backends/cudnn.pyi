from contextlib import AbstractContextManager

enabled: bool
benchmark: bool
benchmark_limit: int
deterministic: bool
allow_tf32: bool

def is_available() -> bool: ...
def version() -> int | None: ...
def flags(
    enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
    allow_tf32: bool = True,
) -> AbstractContextManager[None]: ...
