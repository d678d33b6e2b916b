"""Parameter lists of run-time callables and of stub functions, in one model, so the completeness
test can compare them: pybind11 functions are read from the signature line(s) pybind11 writes into
``__doc__``, Python functions with ``inspect.signature``, stubs from their AST."""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["positional_only", "positional", "keyword_only", "var_positional", "var_keyword"]


@dataclass(frozen=True)
class P:
    name: str
    kind: Kind
    has_default: bool

    def __str__(self) -> str:
        star = {"var_positional": "*", "var_keyword": "**"}.get(self.kind, "")
        mark = {"positional_only": "/", "keyword_only": "kw:"}.get(self.kind, "")
        return f"{mark}{star}{self.name}{'=' if self.has_default else ''}"


Sig = tuple[P, ...]


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets and quotes."""
    parts: list[str] = []
    depth, quote, cur = 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _pybind_line(line: str, name: str) -> Sig | None:
    line = line.strip()
    if line[:1].isdigit() and ". " in line:
        line = line.split(". ", 1)[1]
    if not line.startswith(name + "("):
        return None
    depth = 0
    for i, ch in enumerate(line):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                inner = line[len(name) + 1 : i]
                break
    else:
        return None
    out: list[P] = []
    keyword_only = False
    for part in _split_top(inner):
        if part == "*":
            keyword_only = True
            continue
        if part == "/":
            out = [P(p.name, "positional_only", p.has_default) for p in out]
            continue
        if part.startswith("**"):
            out.append(P(part[2:].split(":")[0].strip(), "var_keyword", False))
            continue
        if part.startswith("*"):
            out.append(P(part[1:].split(":")[0].strip(), "var_positional", False))
            keyword_only = True
            continue
        pname = part.split(":")[0].split("=")[0].strip()
        has_default = "=" in part
        if pname.startswith("arg") and pname[3:].isdigit():
            kind: Kind = "positional_only"
        else:
            kind = "keyword_only" if keyword_only else "positional"
        out.append(P(pname, kind, has_default))
    return tuple(out)


def runtime_sigs(obj: Any, name: str, method: bool) -> list[Sig]:
    """The overloads of a run-time callable (a method's without ``self``)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        kinds: dict[Any, Kind] = {
            inspect.Parameter.POSITIONAL_ONLY: "positional_only",
            inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
            inspect.Parameter.KEYWORD_ONLY: "keyword_only",
            inspect.Parameter.VAR_POSITIONAL: "var_positional",
            inspect.Parameter.VAR_KEYWORD: "var_keyword",
        }
        ps = [P(p.name, kinds[p.kind], p.default is not inspect.Parameter.empty) for p in sig.parameters.values()]
        if method and ps and ps[0].kind in ("positional", "positional_only"):
            ps = ps[1:]
        return [tuple(ps)]
    out: list[Sig] = []
    for line in (getattr(obj, "__doc__", "") or "").splitlines():
        parsed = _pybind_line(line, name)
        if parsed is not None:
            if method and parsed and parsed[0].name == "self":
                parsed = parsed[1:]
            out.append(parsed)
    return out


def stub_sig(fn: ast.FunctionDef, method: bool) -> Sig:
    a = fn.args
    out: list[P] = []
    positional = [*a.posonlyargs, *a.args]
    n_defaults = len(a.defaults)
    first_default = len(positional) - n_defaults
    for i, arg in enumerate(positional):
        kind: Kind = "positional_only" if i < len(a.posonlyargs) else "positional"
        out.append(P(arg.arg, kind, i >= first_default))
    if a.vararg:
        out.append(P(a.vararg.arg, "var_positional", False))
    for arg, dflt in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(P(arg.arg, "keyword_only", dflt is not None))
    if a.kwarg:
        out.append(P(a.kwarg.arg, "var_keyword", False))
    if method and out and out[0].name == "self":
        out = out[1:]
    return tuple(out)


def _accepts(runtime: Sig, p: P, position: int) -> str | None:
    """Why run time rejects the stub parameter ``p`` (at ``position``), or None."""
    var_pos = any(q.kind == "var_positional" for q in runtime)
    var_kw = any(q.kind == "var_keyword" for q in runtime)
    if p.kind == "var_positional":
        return None if var_pos else "run time takes no *args"
    if p.kind == "var_keyword":
        return None if var_kw else "run time takes no **kwargs"
    slots = [q for q in runtime if q.kind in ("positional_only", "positional")]
    named = {q.name: q for q in runtime if q.kind in ("positional", "keyword_only")}
    target: P | None = None
    if p.kind in ("positional_only", "positional"):
        if position < len(slots):
            target = slots[position]
        elif not var_pos:
            return f"positional {p.name} (#{position}) is beyond run time's parameters"
    if p.kind in ("positional", "keyword_only"):
        if p.name in named:
            if p.kind == "positional" and named[p.name].kind == "keyword_only" and not var_pos:
                return f"{p.name} is keyword-only at run time"
            target = named[p.name]
        elif not var_kw:
            return f"{p.name} is not a keyword parameter at run time"
    if target is not None and p.has_default and not target.has_default:
        return f"{p.name} has a default in the stub, none at run time"
    return None


def _covered(stubs: list[Sig], q: P, position: int) -> bool:
    for s in stubs:
        slots = [p for p in s if p.kind in ("positional_only", "positional")]
        if q.kind == "var_positional" and any(p.kind != "keyword_only" for p in s):
            return True  # run time's *args takes what the stub's positional parameters name
        if q.kind == "var_keyword" and any(p.kind == "var_keyword" for p in s):
            return True
        if q.kind == "positional_only" and (position < len(slots) or any(p.kind == "var_positional" for p in s)):
            return True
        if q.kind in ("positional", "keyword_only") and any(p.name == q.name for p in s):
            return True
    return False


def compare(runtime: list[Sig], stubs: list[Sig]) -> list[str]:
    """Problems between a callable's run-time overloads and its stub overloads: a stub parameter
    that no run-time overload accepts, a run-time parameter that no stub overload declares."""
    problems: list[str] = []
    for s in stubs:
        pos = 0
        reasons: list[str] = []
        for p in s:
            why = [_accepts(r, p, pos) for r in runtime]
            if all(w is not None for w in why):
                reasons.append(str(why[0]))
            if p.kind in ("positional_only", "positional"):
                pos += 1
        problems += [f"stub: {r}" for r in reasons]
    for r in runtime:
        pos = 0
        for q in r:
            if q.kind in ("var_positional", "var_keyword") and any(
                k.kind in ("var_positional", "var_keyword") and k is not q for k in r
            ):
                pass  # a catch-all ``(*args, **kwargs)`` at run time: the stub says what it takes
            elif q.kind == "var_keyword":
                pass  # **kwargs at run time: a stub may list keywords or not
            elif not _covered(stubs, q, pos):
                problems.append(f"run time: {q} has no stub parameter")
            if q.kind in ("positional_only", "positional"):
                pos += 1
    return sorted(set(problems))


def fmt(sig: Sig) -> str:
    return "(" + ", ".join(str(p) for p in sig) + ")"
