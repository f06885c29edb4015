"""A dependency-free progress bar on stderr (a redrawn bar on a terminal, one line per item otherwise)."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self.start = time.perf_counter()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def advance(self, item: str = "", status: str = "") -> None:
        self.done += 1
        elapsed = time.perf_counter() - self.start
        if self.tty:
            filled = int(self.width * self.done / self.total)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:6.1f}s {item[:40]:40s}")
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"{self.label} {self.done}/{self.total} {item} {status} ({elapsed:.1f}s)\n")
        self.stream.flush()
