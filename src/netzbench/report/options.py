"""Report options as validated properties: a bad value raises ``ValueError`` and never lands on the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def option(name: str, check: Callable[[Any, str], Any]) -> property:
    """A report option stored as ``_<name>`` and validated by ``check(value, name)`` whenever it is set,
    so a bad value raises ``ValueError`` and never lands on the report."""
    attr = "_" + name

    def set_option(self, value) -> None:
        setattr(self, attr, check(value, name))

    return property(lambda self: getattr(self, attr), set_option)


def one_of(choices: Sequence[str]) -> Callable[[Any, str], Any]:
    """A check for :func:`option`: the value must be one of ``choices``."""

    def check(value, name: str):
        if value not in choices:
            raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
        return value

    return check
