"""Progress of a training run, in epochs: a bar on a terminal, a line now and then in a log.

The rate and the time left are measured from the first finished epoch on,
never from the start: the first epoch of a worker carries its start-up
(imports, data loading), which made the first estimate of a short run read
as minutes when it was seconds. Until an epoch has finished, no estimate is
shown. When the stream is not a terminal (CI, ``dvc repro > log``), one
plain line is written every ``interval`` seconds and one at the end,
instead of carriage-return frames.
"""

from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class LineProgress:
    """Plain progress lines for logs: ``desc: 120/400 epochs (30%), 0:42 elapsed, ~1:38 left, <note>``."""

    def __init__(self, total: int, desc: str, stream=None, interval: float = 30.0, clock=time.monotonic,
                 unit: str = "epochs"):
        self.total, self.desc, self.interval, self.clock, self.unit = total, desc, interval, clock, unit
        self.stream = stream if stream is not None else sys.stderr
        self.n, self.note = 0, ""
        self.started = self.clock()
        self.first = None  # (time, epochs) at the first finished epoch: the rate is measured from there
        self.last_line = self.started

    def update(self, epochs: int) -> None:
        if epochs <= 0:
            return
        self.n += epochs
        now = self.clock()
        if self.first is None:
            self.first = (now, self.n)
        if now - self.last_line >= self.interval:
            self._write(now)

    def set_postfix_str(self, note: str) -> None:
        self.note = note

    def estimate(self, now: float) -> str:
        """``~m:ss left`` from the epochs finished since the first one, or ``''`` before there is a rate."""
        if self.first is None or now <= self.first[0] or self.n <= self.first[1]:
            return ""
        rate = (self.n - self.first[1]) / (now - self.first[0])
        return f", ~{_clock((self.total - self.n) / rate)} left"

    def _write(self, now: float) -> None:
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        note = f", {self.note}" if self.note else ""
        print(f"{self.desc}: {self.n}/{self.total} {self.unit}{share}, {_clock(now - self.started)} elapsed"
              f"{self.estimate(now)}{note}", file=self.stream, flush=True)
        self.last_line = now

    def close(self) -> None:
        self._write(self.clock())


class BarProgress:
    """A tqdm bar that appears at the first finished epoch, so its rate excludes worker start-up."""

    def __init__(self, total: int, desc: str, stream=None, unit: str = "epochs"):
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        self.bar, self.note = None, ""

    def update(self, epochs: int) -> None:
        if epochs <= 0:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, desc=self.desc, unit=self.unit.rstrip("s"), file=self.stream, dynamic_ncols=True,
                            mininterval=0.5, initial=epochs)
            if self.note:
                self.bar.set_postfix_str(self.note)
            return
        self.bar.update(epochs)

    def set_postfix_str(self, note: str) -> None:
        self.note = note
        if self.bar is not None:
            self.bar.set_postfix_str(note)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def progress_bar(total: int, desc: str, stream=None, *, unit: str = "epochs", interval: float = 30.0):
    """A bar on a terminal, plain lines otherwise, one each ``interval`` seconds (see the module docstring);
    ``unit``: what ``total`` counts."""
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return BarProgress(total, desc, stream, unit=unit)
    return LineProgress(total, desc, stream, interval=interval, unit=unit)
