"""Questions about libcst nodes that need no inference: dotted names, assignment targets, the
names a block may assign, string literals, whether a function is small enough to inline."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import libcst as cst

MAX_INLINE_STATEMENTS: Final = 40  # a larger unannotated function is not inlined


def dotted(node: cst.CSTNode | None) -> str | None:
    """``a.b.c`` as text; None for anything that is not a chain of names."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def target_text(t: cst.BaseExpression) -> str:
    d = dotted(t)
    return d if d is not None else "target"


def target_names(t: cst.CSTNode) -> Iterator[str]:
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            yield from target_names(el.value)
    elif isinstance(t, cst.StarredElement):
        yield from target_names(t.value)


def ann_expr(p: cst.Param) -> cst.BaseExpression | None:
    return p.annotation.annotation if p.annotation is not None else None


def string_literal(node: cst.SimpleString) -> str:
    """A short one-line string's value (einsum equations, ``mode=`` arguments). Docstrings, long
    and prefixed strings are never needed by a rule and are not decoded."""
    text = node.value
    if len(text) > 200 or text[:1] not in "'\"" or text[:3] in ('"""', "'''"):
        return ""
    if "\\" not in text:
        return text[1:-1]
    try:
        value = node.evaluated_value
    except Exception:
        return ""
    return value if isinstance(value, str) else ""


def is_tuple_subscript(node: cst.Subscript) -> bool:
    """``x[0,]``: one item followed by a comma is a tuple key."""
    return len(node.slice) == 1 and node.slice[0].comma is not cst.MaybeSentinel.DEFAULT and \
        isinstance(node.slice[0].comma, cst.Comma)


def small_without_yield(body: cst.CSTNode, limit: int = MAX_INLINE_STATEMENTS) -> bool:
    """At most ``limit`` statements and no ``yield`` (nested functions, classes and lambdas count as
    one statement and are not looked into)."""
    count = 0
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Yield):
            return False
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            count += 1
            if count > limit:
                return False
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                continue
        if isinstance(node, cst.Lambda):
            continue
        stack.extend(node.children)
    return True


def assigned_names(body: cst.CSTNode, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    """Names a block may assign (statement targets, loop and ``with``/``except`` names, nested
    definitions; not walrus targets inside expressions), memoised per block."""
    hit = memo.get(id(body))
    if hit is not None:
        return hit
    names: set[str] = set()
    todo: list[cst.CSTNode] = [body]
    while todo:
        node = todo.pop()
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine)):
            todo.extend(node.body)
        elif isinstance(node, cst.Assign):
            for t in node.targets:
                names.update(target_names(t.target))
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            names.update(target_names(node.target))
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.add(node.name.value)
        elif isinstance(node, (cst.For, cst.While, cst.If, cst.With, cst.Try, cst.TryStar, cst.Match,
                               cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)):
            if isinstance(node, cst.For):
                names.update(target_names(node.target))
            if isinstance(node, cst.With):
                for item in node.items:
                    if item.asname is not None:
                        names.update(target_names(item.asname.name))
            if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)) and node.name is not None:
                names.update(target_names(node.name.name))
            if isinstance(node, cst.MatchCase):
                names.update(pattern_names(node.pattern))
            if isinstance(node, cst.Match):
                todo.extend(node.cases)
            else:
                todo.append(node.body)
            for attr in ("orelse", "handlers", "finalbody"):
                extra = getattr(node, attr, None)
                if isinstance(extra, (list, tuple)):
                    todo.extend(extra)
                elif isinstance(extra, cst.CSTNode):
                    todo.append(extra)
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                target = alias.asname.name if alias.asname is not None else alias.name
                name = dotted(target)
                if name:
                    names.add(name.split(".")[0])
    frozen = frozenset(names)
    memo[id(body)] = frozen  # the trees outlive the memo (both belong to one ModuleCtx)
    return frozen


def pattern_names(p: cst.CSTNode) -> set[str]:
    """The names a ``match`` pattern binds."""
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_MatchAs(self, node: cst.MatchAs) -> None:
            if node.name is not None:
                out.add(node.name.value)

        def visit_MatchStar(self, node: cst.MatchStar) -> None:
            if node.name is not None:
                out.add(node.name.value)

        def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
            if node.rest is not None:
                out.add(node.rest.value)

    p.visit(V())
    return out
