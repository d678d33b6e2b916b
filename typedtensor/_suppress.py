"""Suppression comments: ``# type: ignore``, ``# type: ignore[code, ...]`` and
``# typedtensor: ignore[...]`` silence reports on their own line.

Shared by both static tools (one parser, one meaning): the checker honours both forms; the mypy
plugin honours ``# typedtensor: ignore`` for the errors it reports (mypy itself reads
``# type: ignore``). It lives outside ``typedtensor.shapes`` so that the checker's warm path,
which reads comments but never needs the calculus, does not import it.

NOTE [ Suppression by line ]
A report sits on the line of its expression's first character (DESIGN §6), and a suppression
comment silences exactly the codes it names on that line (``shape`` names every ``shape-*`` code,
as the mypy plugin's parent code does). Only comments are looked at: the lines that carry a report
are tokenized, so a ``# type: ignore`` inside a string never counts.
"""

from __future__ import annotations

import functools
import re

#: The comment forms: ``type`` (mypy's, also read by the checker) and ``typedtensor`` (ours).
Form = str
BOTH: tuple[Form, ...] = ("type", "typedtensor")
OWN: tuple[Form, ...] = ("typedtensor",)


@functools.cache
def _ignore_re(forms: tuple[Form, ...]) -> re.Pattern[str]:
    """Compiled on first use: most runs never look at a comment."""
    alternatives = "|".join(re.escape(f) for f in forms)
    return re.compile(rf"#\s*(?:{alternatives})\s*:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?")


#: None means "every code"; otherwise the set of codes named.
Suppression = frozenset[str] | None


def _comments(line: str) -> list[str]:
    if "#" not in line:
        return []
    import io
    import tokenize  # here: a run whose reports sit on lines without comments never needs it

    comments: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.COMMENT:
                comments.append(tok.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # A line cut out of a multi-line construct (an open bracket, a string's tail) may not
        # tokenize alone; the comments seen before the error still count.
        pass
    return comments


def suppressions(line: str, forms: tuple[Form, ...] = BOTH) -> list[Suppression]:
    """Every ignore comment of the given forms on ``line``: None for a bare one, else the codes
    it names."""
    found: list[Suppression] = []
    for comment in _comments(line):
        for match in _ignore_re(forms).finditer(comment):
            codes = match.group("codes")
            if codes is None:
                found.append(None)
            else:
                found.append(frozenset(c.strip() for c in codes.split(",") if c.strip()))
    return found


def code_matches(code: str, names: frozenset[str]) -> bool:
    """Whether a set of named codes covers ``code`` (``shape`` covers ``shape-*``)."""
    return code in names or (code.startswith("shape-") and "shape" in names)


def is_suppressed(code: str, line_text: str, forms: tuple[Form, ...] = BOTH) -> bool:
    """Whether a comment of the given forms on ``line_text`` silences ``code``."""
    if "ignore" not in line_text:  # the common case, without tokenizing
        return False
    return any(names is None or code_matches(code, names) for names in suppressions(line_text, forms))
