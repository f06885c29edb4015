"""A dependency-free progress display on stderr: a redrawn bar on a terminal; elsewhere (a CI log, a file, a pipe) a
few lines only -- the first item, one line per tenth of the items done, one at least every :data:`LOG_EVERY` seconds
and the last -- and a heartbeat for items that run long (an audit of a gradient sampler can take minutes).

The heartbeat is a daemon thread: once the current item has run for ``quiet_for`` seconds it reports, every
``every`` seconds, which item is running, for how long, how many sample chunks of it are drawn (fed by the
``progress(done, total)`` callback of :func:`dpverify.audit.audit`) and when it should end at the rate so far (ETA).
An item whose ETA exceeds :data:`LONG_RUN` gets one warning line as soon as the rate is known (after
:data:`ETA_AFTER` seconds), so that a ``--samples 1e10`` typo costs seconds, not hours. An item that runs in this
process and has drawn no sample chunk yet (building a sampler, its privacy accountant, fitting statistics) is
reported with the dpverify function it is in (``now in dpverify.calculus.accounting.shift_mixture.shift_lattice``), so
that a slow preparation says what is slow. Off a terminal the heartbeat is at most one line every :data:`LOG_EVERY`
seconds.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

#: An item expected to run longer than this (seconds) is warned about once.
LONG_RUN = 3600.0
#: Seconds of running before the rate is trusted for an ETA.
ETA_AFTER = 2.0
#: Off a terminal: the longest silence between item lines, and the shortest interval between heartbeat lines (s).
LOG_EVERY = 30.0
#: Off a terminal: an item line each time this fraction more of the items is done.
LOG_FRACTION = 0.1


def current_function(thread_id: int) -> str | None:
    """The innermost dpverify function the thread ``thread_id`` is running (``module.qualified_name``), None if it
    runs none (or has ended). Read from the interpreter's frames, for the heartbeat: what a long item is doing."""
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("dpverify.") and module != __name__:
            code = frame.f_code
            return f"{module}.{getattr(code, 'co_qualname', code.co_name)}"
        frame = frame.f_back
    return None


def duration(seconds: float) -> str:
    """A duration for people: '45 s', '12 min', '2 h 40 min', '3 days 4 h'."""
    seconds = max(float(seconds), 0.0)
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} min"
    hours = int(minutes // 60)
    if hours < 48:
        return f"{hours} h {int(minutes - 60 * hours)} min"
    return f"{hours // 24} days {hours % 24} h"


def eta_seconds(elapsed: float, done: int, total: int) -> float | None:
    """Seconds left at the rate so far (None before the first chunk)."""
    if done <= 0 or total <= done:
        return None if done <= 0 else 0.0
    return elapsed / done * (total - done)


class Progress:
    def __init__(self, total: int, label: str, stream: TextIO | None = None, width: int = 30, *,
                 item_lines: bool = True, quiet_for: float = 3.0, every: float = 10.0, counted: bool = True) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.item_lines = item_lines
        self.quiet_for = quiet_for
        #: False: the heartbeat reads "label: item running for ..." (one task, nothing to count)
        self.counted = counted
        self.done = 0
        self.start = time.perf_counter()
        try:
            self.tty = hasattr(self.stream, "isatty") and bool(self.stream.isatty())
        except (ValueError, OSError):  # a closed stream
            self.tty = False
        # off a terminal (a log) the heartbeat speaks at most every LOG_EVERY seconds
        self.every = every if self.tty else max(every, LOG_EVERY)
        self._lock = threading.Lock()
        self._running: dict[str, float] = {}
        self._threads: dict[str, int] = {}  # item -> the thread running it (items started in this process)
        self._logged_at = -float("inf")  # off a terminal: when the last item line was written
        self._logged_step = -1  # off a terminal: the tenth of the items done at the last item line
        self._chunks: dict[str, tuple[int, int]] = {}
        self._warned: set[str] = set()
        self._last_beat = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- items ----------------------------------------------------------------------------------------------------
    def start_item(self, item: str) -> None:
        """``item`` starts running now (for the heartbeat)."""
        with self._lock:
            self._running.setdefault(item, time.perf_counter())
            self._threads[item] = threading.get_ident()
        self._ensure_thread()

    def set_running(self, items: list[str]) -> None:
        """The items running right now (worker pools report them as a set)."""
        now = time.perf_counter()
        with self._lock:
            self._running = {i: self._running.get(i, now) for i in items}
        if items:
            self._ensure_thread()

    def chunk_callback(self, item: str):
        """A ``progress(done, total)`` callback for the audit of ``item``."""
        def callback(done: int, total: int) -> None:
            with self._lock:
                self._chunks[item] = (done, total)
                started = self._running.get(item)
            if started is not None:
                self._warn_if_long(item, time.perf_counter() - started, done, total)
        return callback

    def _warn_if_long(self, item: str, elapsed: float, done: int, total: int) -> None:
        """One warning line when ``item`` is expected to run longer than :data:`LONG_RUN`."""
        if item in self._warned or elapsed < ETA_AFTER:
            return
        left = eta_seconds(elapsed, done, total)
        if left is None or left < LONG_RUN:
            return
        self._warned.add(item)
        with self._lock:
            self.stream.write(("\r" if self.tty else "") + f"warning: {item} will take about {duration(left)} more "
                              f"at the rate so far ({done}/{total} sample chunks in {duration(elapsed)}); Ctrl-C "
                              "stops it" + ("\033[K\n" if self.tty else "\n"))
            self.stream.flush()

    def advance(self, item: str = "", status: str = "") -> None:
        with self._lock:
            self.done += 1
            self._running.pop(item, None)
            self._chunks.pop(item, None)
            self._threads.pop(item, None)
            if not self.item_lines:
                return
            now = time.perf_counter()
            elapsed = now - self.start
            if self.tty:
                filled = int(self.width * self.done / self.total)
                bar = "#" * filled + "." * (self.width - filled)
                self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:6.1f}s {item[:40]:40s}")
                if self.done >= self.total:
                    self.stream.write("\n")
            else:
                # a log: the first item, each further tenth of the items, after LOG_EVERY s of silence, the last
                step = int(self.done / self.total / LOG_FRACTION + 1e-9)
                if not (self.done >= self.total or step > self._logged_step or now - self._logged_at >= LOG_EVERY):
                    return
                self._logged_step, self._logged_at = step, now
                self.stream.write(f"{self.label} {self.done}/{self.total} {item} {status} ({elapsed:.1f}s)\n")
            self.stream.flush()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- heartbeat ------------------------------------------------------------------------------------------------
    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._beat, name="dpverify-progress", daemon=True)
            self._thread.start()

    def heartbeat_line(self, now: float | None = None) -> str | None:
        """The heartbeat's text for the items running longer than ``quiet_for`` (None if there are none)."""
        now = time.perf_counter() if now is None else now
        with self._lock:
            long = [(i, now - t0, self._chunks.get(i), self._threads.get(i)) for i, t0 in self._running.items()
                    if now - t0 >= self.quiet_for]
        if not long:
            return None
        parts = []
        for item, seconds, chunks, thread in long:
            extra = ""
            if chunks:
                extra = f", {chunks[0]}/{chunks[1]} sample chunks drawn"
                left = eta_seconds(seconds, *chunks)
                if left is not None and seconds >= ETA_AFTER:
                    extra += f", about {duration(left)} left"
            elif thread is not None:  # preparing in this process: say where the time goes
                where = current_function(thread)
                if where:
                    extra = f", now in {where}"
            parts.append(f"{item} running for {duration(seconds)}{extra}")
        head = f"{self.label} {self.done}/{self.total} done; " if self.counted else f"{self.label}: "
        return head + "; ".join(parts)

    def _beat(self) -> None:
        while not self._stop.wait(0.5):
            now = time.perf_counter()
            if now - self._last_beat < self.every and self._last_beat:
                continue
            line = self.heartbeat_line(now)
            if line is None:
                continue
            self._last_beat = now
            with self._lock:
                self.stream.write(("\r" if self.tty else "") + line + ("\033[K" if self.tty else "\n"))
                self.stream.flush()
