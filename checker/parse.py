"""Parsing a file with libcst: first a guard against input libcst cannot survive, then the parse
without libcst's per-node validation.

NOTE [ Parsing without node validation ]
Every libcst node validates itself on construction (``CSTNode.__post_init__`` calls
``_validate``: regular expressions over each whitespace node, parenthesis checks...). That guards
trees built by hand; a tree the parser builds from source that CPython's grammar accepted is valid
by construction, and on the standard library the validation was most of the parse time. So the
parse runs with ``__post_init__`` switched off, under a lock, and restores it afterwards: other
libcst users in the same process (and nodes the checker itself builds) still validate.

NOTE [ What libcst survives ]
libcst's native parser recurses once per level of an expression and its time grows faster than
linearly with the depth: measured (libcst 1.9, CPython 3.11, a loaded 2-core machine) a chain of
1,000 unary minus signs parses in 0.5 s, 2,000 in 2.4 s, 6,000 in 39 s (2 GB), and 10,000 kill the
process (SIGSEGV); 1,000 ``+`` terms take 1 s, 4,000 take 52 s, 10,000 crash; 300 chained
``.relu()`` calls take 0.7 s, 1,000 take 13 s; 500 chained subscripts 1.6 s; 200 nested calls
1.3 s (CPython itself refuses more than 200 nested brackets). Width is harmless: a 1,000,000-character
line parses in 0.05 s, a 100,000-element list in 17 s (linear in the tokens). So before libcst sees
a file, CPython's parser (C, about five times faster) checks that it is Python at all and the
syntax tree's depth is measured: a file deeper than ``MAX_DEPTH`` levels or larger than
``MAX_BYTES`` is refused with ``ParseLimitError`` (``could not parse ...``). CPython raises a clean
``RecursionError`` or ``MemoryError`` on the deepest inputs; both are refusals too.
"""

from __future__ import annotations

import ast
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import libcst as cst
from libcst._nodes.base import CSTNode

_LOCK = threading.Lock()

#: The deepest syntax tree (CPython's ``ast`` levels) handed to libcst: about 500 chained unary
#: or binary operators, 250 chained method calls (NOTE [ What libcst survives ]).
MAX_DEPTH = 500
#: The largest file handed to libcst (about 100,000 lines of ordinary code).
MAX_BYTES = 4 * 1024 * 1024


class ParseLimitError(ValueError):
    """The file is beyond what the parser survives (NOTE [ What libcst survives ]); the message
    says which limit."""


def _no_validation(self: CSTNode) -> None:
    return None


@contextmanager
def _validation_off() -> Iterator[None]:
    with _LOCK:
        original = CSTNode.__dict__["__post_init__"]
        CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
        try:
            yield
        finally:
            CSTNode.__post_init__ = original  # type: ignore[method-assign]


def tree_depth(tree: ast.AST, limit: int) -> int:
    """The depth of ``tree`` (iteratively, so any depth is safe), or ``limit + 1`` as soon as it
    is known to exceed ``limit``."""
    children = ast.iter_child_nodes
    level = [tree]
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return depth
        nxt: list[ast.AST] = []
        for node in level:
            nxt.extend(children(node))
        level = nxt
    return depth


def check_limits(source: str | bytes) -> None:
    """Raise ``ParseLimitError`` when ``source`` must not reach libcst (NOTE [ What libcst
    survives ]). Source CPython does not accept is left to libcst, whose error the caller reports
    as before (libcst also reads the syntax of newer Pythons)."""
    size = len(source)
    if size > MAX_BYTES:
        raise ParseLimitError(f"the file is {size / 2**20:.1f} MiB; the checker parses at most "
                              f"{MAX_BYTES // 2**20} MiB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = compile(source, "<checked file>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except RecursionError:
        raise ParseLimitError("the code is nested too deeply for CPython's own parser") from None
    except MemoryError:
        raise ParseLimitError("CPython's parser ran out of memory on it (nesting too deep)") from None
    except (SyntaxError, ValueError):  # not Python for this interpreter (ValueError: a null byte)
        return
    depth = tree_depth(tree, MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise ParseLimitError(f"an expression or statement is nested more than {MAX_DEPTH} levels deep "
                              "(a chain of that many operators, calls or subscripts)")


def parse_module(source: str | bytes) -> cst.Module:
    """``libcst.parse_module`` after ``check_limits`` (NOTE [ What libcst survives ]), without node
    validation (NOTE [ Parsing without node validation ])."""
    check_limits(source)
    with _validation_off():
        return cst.parse_module(source)


__all__ = ["MAX_BYTES", "MAX_DEPTH", "ParseLimitError", "check_limits", "parse_module", "tree_depth"]
