"""Suppression comments: ``# type: ignore``, ``# type: ignore[code, ...]`` and
``# typedtensor: ignore[...]`` silence reports on their own line.

NOTE [ Suppression by line ]
A report sits on the line of its expression's first character (DESIGN §6), and a suppression
comment silences exactly the codes it names on that line (``shape`` names every ``shape-*`` code,
as the mypy plugin's parent code does). Only comments are looked at: the lines that carry a report
are tokenized, so a ``# type: ignore`` inside a string never counts.
"""

from __future__ import annotations

import functools
import re

_IGNORE_PATTERN = r"#\s*(?:type|typedtensor)\s*:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?"


@functools.cache
def _ignore_re() -> re.Pattern[str]:
    """Compiled on first use: most runs never look at a comment."""
    return re.compile(_IGNORE_PATTERN)


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


def suppressions(line: str) -> list[Suppression]:
    """Every ignore comment on ``line``: None for a bare one, else the codes it names."""
    found: list[Suppression] = []
    for comment in _comments(line):
        for match in _ignore_re().finditer(comment):
            codes = match.group("codes")
            if codes is None:
                found.append(None)
            else:
                found.append(frozenset(c.strip() for c in codes.split(",") if c.strip()))
    return found


def code_matches(code: str, names: frozenset[str]) -> bool:
    """Whether a set of named codes covers ``code`` (``shape`` covers ``shape-*``)."""
    return code in names or (code.startswith("shape-") and "shape" in names)


def is_suppressed(code: str, line_text: str) -> bool:
    return any(names is None or code_matches(code, names) for names in suppressions(line_text))
