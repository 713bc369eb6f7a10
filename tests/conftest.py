"""Shared fixtures: an isolated cache, params, and the dataset mirror."""

from __future__ import annotations

import os
from pathlib import Path

import pytest



@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Never let a test read or write the developer's .netzbench cache."""
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("nbcache")))


@pytest.fixture(autouse=True)
def _no_warm_server(monkeypatch):
    """No warm worker server unless a test asks for one (tests/test_warm.py): each test's own cache
    directory is a new environment, hence a new server that would linger after the test."""
    monkeypatch.setenv("NETZBENCH_WARM_S", "0")


@pytest.fixture(autouse=True)
def _arithmetic_environment(monkeypatch):
    """A command line run in this process under ``exec.arithmetic: portable`` sets the kernel
    variables in ``os.environ``; undo that after each test so no test depends on the order."""
    from netzbench.run.arithmetic import PORTABLE_ENV

    for name in PORTABLE_ENV:
        if name in os.environ:
            monkeypatch.setenv(name, os.environ[name])
        else:  # setenv records "absent" for the teardown; delenv alone would record nothing
            monkeypatch.setenv(name, "")
            monkeypatch.delenv(name)


@pytest.fixture
def mirror() -> Path:
    value = os.environ.get("NETZBENCH_MIRROR")
    if not value or not Path(value).is_dir():
        pytest.skip("dataset mirror not available: set NETZBENCH_MIRROR to ../shared/datasets")
    return Path(value)
