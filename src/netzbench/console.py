"""Where netzbench's log messages are printed: on stderr, one line each, as the command line prints them.

Every module logs with ``logging.getLogger(__name__)``, under the ``netzbench`` logger, which holds
only a :class:`logging.NullHandler` (a library prints nothing unless its program asks). The entry
points ask with :func:`console`: the command line around every command, ``run_benchmark`` when the
program has configured no logging of its own. A message is printed bare, a warning as
``WARNING: message``: the level is not written into the text, so a program's own format does not
say it twice.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

import click

PACKAGE = "netzbench"


class Plain(logging.Formatter):
    """The bare message (``%(message)s``); from WARNING up, ``LEVEL: message``."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text if record.levelno < logging.WARNING else f"{record.levelname}: {text}"


class _Stderr(logging.Handler):
    """``click.echo(..., err=True)``: stderr looked up at each message, so a stream swapped in later
    (click's CliRunner, pytest's capture) gets it, and click's handling of the terminal applies."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            click.echo(self.format(record), err=True)
        except Exception:  # logging's contract: a failing handler reports itself and never raises
            self.handleError(record)


def configured() -> bool:
    """Whether the program routes log records itself: a handler other than a NullHandler on the root
    logger or the package's."""
    return any(not isinstance(h, logging.NullHandler)
               for name in ("", PACKAGE) for h in logging.getLogger(name).handlers)


_lock = threading.Lock()
_users = 0  # blocks inside console() now, in any thread: the handler stays until the last one leaves
_saved: tuple = ()


@contextmanager
def console(*, unless_configured: bool = False):
    """Print the package's messages (INFO and up, unless its logger has a level of its own) on stderr
    inside the block; the logger is as it was afterwards. Propagation to the root logger is off
    meanwhile, so no root handler prints a message a second time. ``unless_configured``: leave
    everything to the program's handlers when :func:`configured`. Nested or in several threads at once
    (two ``run_benchmark`` calls): one handler, removed when the last block ends."""
    global _users, _saved
    logger = logging.getLogger(PACKAGE)
    with _lock:
        if unless_configured and not _users and configured():
            entered = False
        else:
            entered = True
            if not _users:
                handler = _Stderr()
                handler.setFormatter(Plain())
                _saved = (handler, logger.level, logger.propagate)
                if logger.level == logging.NOTSET:
                    logger.setLevel(logging.INFO)
                logger.propagate = False
                logger.addHandler(handler)
            _users += 1
    try:
        yield
    finally:
        if entered:
            with _lock:
                _users -= 1
                if not _users:
                    handler, level, propagate = _saved
                    logger.removeHandler(handler)
                    logger.setLevel(level)
                    logger.propagate = propagate
