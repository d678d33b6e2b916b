"""A dependency-free text progress bar for the examples (one line, redrawn in place on a terminal;
one line per update elsewhere, so CI logs stay readable)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    def __init__(self, total: int, label: str, width: int = 30) -> None:
        self.total = max(total, 1)
        self.label = label
        self.width = width
        self.start = time.perf_counter()
        self.tty = sys.stdout.isatty()

    def update(self, done: int, info: str = "") -> None:
        """Draw the bar at ``done`` of ``total`` steps; off a terminal, draw only the final state."""
        if not self.tty and done < self.total:
            return
        filled = self.width * done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.perf_counter() - self.start
        line = f"{self.label} [{bar}] {done}/{self.total} {elapsed:5.1f}s {info}"
        print(("\r" + line) if self.tty else line, end="" if self.tty and done < self.total else "\n", flush=True)
