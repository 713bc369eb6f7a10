"""Warm servers whose children run a netzbench command line: the report server.

A report server is the warm server's process (:mod:`.warm_server`) with another preload and another job:
it imports :mod:`netzbench.report_server` (scipy, statsmodels, matplotlib and the report; no torch) instead
of torch and PyG, and each child runs one ``netzbench report`` command line. The train stage of a new
candidate starts one while it waits seconds for its seed server, on the core that wait leaves idle
(:func:`start_report_in_background`); the report stage that follows hands it its command line, stdout and
stderr (:func:`run_report_warm`) and skips its own imports. The kind is part of the fingerprint, so a seed
server is never asked for a report nor the other way round; every rule of :mod:`.warm` (same user, the
secret, a private folder, the same code, interpreter, import path, working directory and environment)
applies alike.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

from ..settings import Execution
from . import wire
from .warm import WarmUnavailable, ahead_of_the_pool, open_connection, send_output, socket_path, start_in_background

log = logging.getLogger(__name__)

#: the module a report server imports and its children run (``run(conn, job)``)
REPORT_SERVER = "netzbench.report_server"


def start_report_in_background(execution: Execution) -> threading.Thread | None:
    """Start this checkout's report server (scipy, statsmodels, matplotlib and the report imported, about a
    second) in a thread, for a report stage that follows while this stage waits: the train stage of a new
    candidate, whose seeds wait seconds for the seed server anyway. A failure only means the report stage
    imports them itself."""
    return start_in_background(execution, kind=REPORT_SERVER)


#: set in a report server's child, which runs the report itself
IN_SERVER = False


def run_report_warm(args: list[str], execution: Execution) -> int | None:
    """Run ``netzbench <args>`` (a ``report`` command line) in a child of this checkout's report server
    when one is running (:func:`start_report_in_background`; never started here), its output on this
    process's stdout and stderr; returns its exit status. None where no server took it (none running, a
    server that left, a folder that is not private): the caller runs the report itself. The server must
    have this process's fingerprint (code, interpreter, import path, working directory, environment), so
    the report it runs is the one this process would write; the environment and ``sys.path`` are set
    first as the train stage that started it set them (``execution``: its arithmetic, :func:`ahead_of_the_pool`)."""
    from .arithmetic import configure

    if IN_SERVER:
        return None
    environ, path = dict(os.environ), list(sys.path)
    configure(execution.arithmetic)  # as the train stage had it (checked_params)
    conn = None
    try:
        if ahead_of_the_pool(execution) is not None:  # else no server would have been started
            sock = socket_path(REPORT_SERVER)
            conn = open_connection(sock)[0] if sock.exists() else None
    except (WarmUnavailable, OSError, EOFError, wire.ProtocolError):
        conn = None
    if conn is None:  # the report runs here, in the environment it was given
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        return None
    with conn:
        try:
            send_output(conn)
            wire.send(conn, ["cli", list(args)])
        except (OSError, wire.ProtocolError):
            return None  # nothing ran: the caller runs it
        try:
            msg = wire.recv(conn)
        except (EOFError, OSError, wire.ProtocolError):
            msg = None
    if type(msg) is list and len(msg) == 2 and msg[0] == "exit" and type(msg[1]) is int:
        log.info("report: run by the warm report server (its imports were done while the train stage ran)")
        return msg[1]
    # the child died mid-report: nothing was published (the outputs are renamed into place together at
    # the end), so the caller runs it again
    print("netzbench: the warm report server's child stopped without finishing; the report runs here",
          file=sys.stderr)
    return None
