"""Where netzbench's log messages go: the command line prints them bare on stderr, once; a library says
nothing unless its program asks; ``run_benchmark`` prints them unless the program configured logging."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import yaml
from click.testing import CliRunner

from netzbench.cli import main
from netzbench.console import PACKAGE, configured, console

from helpers import logged

log = logging.getLogger(f"{PACKAGE}.test_console")  # a module's logger, as every module has


class _Records(logging.Handler):
    """A program's own handler: keeps what reaches it."""

    def __init__(self):
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _root_handlers(*handlers: logging.Handler):
    """The root logger with exactly ``handlers`` inside the block (pytest's own set aside meanwhile,
    in the same list object, so that pytest removes them as usual afterwards)."""
    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers[:] = list(handlers)
    try:
        yield
    finally:
        root.handlers[:] = saved


def _state() -> tuple:
    logger = logging.getLogger(PACKAGE)
    return logger.level, logger.propagate, list(logger.handlers)


def test_messages_are_printed_bare_and_warnings_with_their_level_on_stderr(capsys):
    with console():
        log.info("karate: ok")
        log.warning("cora: no source can deliver its raw files now")
        log.debug("not at INFO")
    out = capsys.readouterr()
    assert out.err == "karate: ok\nWARNING: cora: no source can deliver its raw files now\n" and out.out == ""


def test_a_program_handler_does_not_print_them_twice_and_the_logger_is_left_as_it_was(capsys):
    program, before = _Records(), _state()
    with _root_handlers(program):
        with console(), console():  # nested: the outer one prints
            log.warning("once")
        assert capsys.readouterr().err == "WARNING: once\n" and program.messages == []
        assert _state() == before
        log.warning("after")  # propagates again, and nothing prints it on stderr
    assert program.messages == ["after"] and capsys.readouterr().err == ""


def test_a_library_is_quiet_by_default(capsys):
    with _root_handlers():  # a plain script: no logging configured
        assert not configured()
        log.warning("said to no one")  # the package's NullHandler: no last-resort print on stderr
    assert capsys.readouterr().err == ""
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger(PACKAGE).handlers)


def test_run_benchmarks_printing_depends_on_whether_the_program_configured_logging(capsys):
    with _root_handlers():
        with console(unless_configured=True):
            log.info("fetched")
    assert capsys.readouterr().err == "fetched\n"
    program = _Records()
    with _root_handlers(program):
        assert configured()
        with console(unless_configured=True):
            log.warning("the program's")
    assert capsys.readouterr().err == "" and program.messages == ["the program's"]


def test_the_command_line_prints_each_message_once_on_stderr(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"tasks": ["karate"], "models": ["GCN"], "seeds": [0],
                                                          "train": {"epochs": {"karate": 2}}}))
    program, before = _Records(), _state()
    with _root_handlers(program), logged() as said:
        result = CliRunner().invoke(main, ["fetch", "karate"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and result.stderr.splitlines() == said
    assert len(said) == 1 and said[0].startswith("karate: ok, built from builtin; ")
    assert program.messages == [] and _state() == before


def test_overlapping_blocks_in_two_threads_keep_printing_until_the_last_ends(capsys):
    """Two run_benchmark calls at once: the first to finish must not take the second's output away."""
    import threading

    before = _state()
    second_in, first_out, second_done = threading.Event(), threading.Event(), threading.Event()

    def second():
        with console():
            second_in.set()
            first_out.wait(5)  # the first block has ended by now
            log.info("second still prints")
        second_done.set()

    worker = threading.Thread(target=second)
    with console():
        worker.start()
        assert second_in.wait(5)  # both blocks are open at once
    first_out.set()
    worker.join(5)
    assert second_done.is_set()
    assert capsys.readouterr().err == "second still prints\n" and _state() == before
