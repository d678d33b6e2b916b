"""Inline expectations: ``# E: code ...`` must be reported on that line, ``# ok`` (or no comment)
must be clean, ``# N: text`` expects a note containing ``text``."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

EXPECT = re.compile(r"#\s*E:\s*([a-z0-9 -]+?)\s*$")
NOTE = re.compile(r"#\s*N:\s*(.+?)\s*$")
OK = re.compile(r"#\s*ok\b")


def expectations(path: Path) -> tuple[Counter[tuple[int, str]], dict[int, str], int]:
    """(line, code) pairs to report, note texts by line, and the number of explicit ``# ok`` lines."""
    must: Counter[tuple[int, str]] = Counter()
    notes: dict[int, str] = {}
    oks = 0
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        m = EXPECT.search(text)
        if m:
            must.update((number, code) for code in m.group(1).split())
        n = NOTE.search(text)
        if n:
            notes[number] = n.group(1)
        if OK.search(text):
            oks += 1
    return must, notes, oks
