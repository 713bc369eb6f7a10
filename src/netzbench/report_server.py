"""What a report server preloads and what each of its children runs: ``netzbench report``, in a fork of
a process that imported scipy, statsmodels, matplotlib and the report already (about a second of a report
stage otherwise; no torch). :mod:`netzbench.run.warm_cli` starts such a server and hands it the report
stage's command line; :mod:`netzbench.run.warm_server` forks the children."""

from __future__ import annotations

import os
import sys
import threading

from . import cli
from .report import stage  # noqa: F401 - statistics, figures, tables, site, REPORT.md
from .run import warm_cli, wire


def _warm_up() -> None:
    """Draw one small figure as the report draws them (fonts, mathtext, the PNG encoder: about 0.15 s the
    first time in a process), so every child and every figure worker forked from it starts with those
    loaded. Caches only: what a report draws afterwards is the same bytes (tests/test_warm.py)."""
    from matplotlib.figure import Figure

    from .report.figures.style import figure_bytes

    fig = Figure(figsize=(2, 1.5), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], marker="o")
    ax.set_title(r"$\alpha$ = 0.05")
    ax.set_xlabel("epoch")
    figure_bytes(fig, "png")


_warm_up()


def run(conn, job) -> None:
    """A child: run ``netzbench <args>`` (``job``: ``["cli", [args...]]``, a ``report`` command line) as the
    client's process would, its output on the client's stdout and stderr (already in place), and send back
    ``["exit", code]``. A client that goes away (its stage interrupted) takes the child with it: nothing is
    published after the stage was stopped."""
    if not (type(job) is list and len(job) == 2 and job[0] == "cli" and type(job[1]) is list
            and all(type(a) is str for a in job[1]) and job[1][:1] == ["report"]):
        return  # a report server runs reports only

    def watch() -> None:
        try:
            while conn.recv(64):
                pass
        except OSError:
            pass
        os._exit(1)  # the client left before the report finished

    threading.Thread(target=watch, daemon=True).start()
    warm_cli.IN_SERVER = True  # this process runs the report itself: never hands it on again
    try:
        cli.main.main(args=job[1], prog_name="netzbench", standalone_mode=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if type(exc.code) is int else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - said on the client's stderr as the stage would say it
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        wire.send(conn, ["exit", code])
    except OSError:
        pass
