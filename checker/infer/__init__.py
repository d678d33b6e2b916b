"""Inference over a libcst module: what each name and expression holds, and the shape errors the
registry finds on the way (the layers are described in ``core``)."""

from __future__ import annotations

from ..context import ModuleCtx
from .statements import Statements


class Inferrer(Statements):
    """Runs one module: its top level, then each function body once."""

    def run_module(self) -> None:
        for i, stmt in enumerate(self.ctx.module.body):
            if self.module_scope.dead:
                break
            self.top = i
            self.exec_stmt(stmt, self.module_scope)
        self.top = -1
        self.ctx.env = self.module_scope.vars

    def check_bodies(self) -> None:
        while self.ctx.deferred:
            func, scope = self.ctx.deferred.pop(0)
            self.check_function(func, scope)


def inferrer_for(ctx: ModuleCtx) -> Inferrer:
    """The module's inference (one per module, kept on its context)."""
    inf = ctx.inferrer
    if not isinstance(inf, Inferrer):
        inf = Inferrer(ctx)
        ctx.inferrer = inf
    return inf


__all__ = ["Inferrer", "inferrer_for"]
