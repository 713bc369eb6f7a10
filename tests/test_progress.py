"""Progress output: no estimate before the first finished epoch, plain lines when not on a terminal."""

import io

from netzbench.run.progress import BarProgress, LineProgress, progress_bar


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_the_rate_starts_at_the_first_finished_epoch():
    clock, out = Clock(), io.StringIO()
    p = LineProgress(total=100, desc="cells", stream=out, interval=10.0, clock=clock)
    clock.t = 30.0  # worker start-up: 30 s before the first epoch finishes
    p.update(1)
    assert p.estimate(clock.t) == ""  # one epoch: no rate yet
    clock.t = 31.0
    p.update(9)  # 9 epochs in 1 s after the first: 9 epochs/s
    assert p.estimate(clock.t) == ", ~0:10 left"  # 90 left at 9/s, not 90 x 3.1 s
    assert out.getvalue() == "cells: 1/100 epochs (1%), 0:30 elapsed\n"  # the line at 30 s: no estimate


def test_lines_are_written_at_an_interval_not_per_frame():
    clock, out = Clock(), io.StringIO()
    p = LineProgress(total=1000, desc="protocols", stream=out, interval=30.0, clock=clock)
    for i in range(1000):
        clock.t = i * 0.1  # 100 s in all
        p.update(1)
        p.set_postfix_str(f"runs done {i // 10}/100")
    p.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert 3 <= len(lines) <= 5  # about every 30 s, plus the last one
    assert lines[-1].startswith("protocols: 1000/1000 epochs (100%)") and "runs done 99/100" in lines[-1]


def test_a_terminal_gets_a_bar_and_a_log_gets_lines():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert isinstance(progress_bar(10, "x", Tty()), BarProgress)
    assert isinstance(progress_bar(10, "x", io.StringIO()), LineProgress)
    bar = progress_bar(10, "x", Tty())
    bar.set_postfix_str("note")
    assert bar.bar is None  # nothing drawn before the first epoch
    bar.update(2)
    bar.update(3)
    assert bar.bar.n == 5
    bar.close()
