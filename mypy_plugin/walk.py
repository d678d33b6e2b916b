"""Statements of a function body, nested blocks included (mypy's compiled visitor classes cannot
be subclassed by an interpreted plugin, so the few walks the plugin needs are written out)."""

from __future__ import annotations

from collections.abc import Iterator

from mypy.nodes import Block, ForStmt, IfStmt, Statement, TryStmt, WhileStmt, WithStmt


def statements(stmts: list[Statement]) -> Iterator[Statement]:
    """Every statement of `stmts` and of the blocks nested in them (not of nested functions)."""
    for stmt in stmts:
        yield stmt
        for block in _blocks(stmt):
            yield from statements(block.body)


def _blocks(stmt: Statement) -> list[Block]:
    if isinstance(stmt, (ForStmt, WhileStmt)):
        return [stmt.body] + ([stmt.else_body] if stmt.else_body else [])
    if isinstance(stmt, IfStmt):
        return [*stmt.body, *([stmt.else_body] if stmt.else_body else [])]
    if isinstance(stmt, WithStmt):
        return [stmt.body]
    if isinstance(stmt, TryStmt):
        return [stmt.body, *stmt.handlers, *([stmt.else_body] if stmt.else_body else [])]
    if isinstance(stmt, Block):
        return [stmt]
    return []
