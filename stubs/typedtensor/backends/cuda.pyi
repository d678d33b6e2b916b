class _Matmul:
    allow_tf32: bool

matmul: _Matmul

def is_built() -> bool: ...
