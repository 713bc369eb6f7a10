"""Shared fixtures: an isolated cache, params, and the dataset mirror."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import tiers

_TIER = pytest.StashKey[str]()


def pytest_configure(config):
    """A relative ``NETZBENCH_MIRROR`` (the README's ``../shared/datasets``) is read from where pytest
    started: made absolute once, so tests that change directory find the same mirror."""
    value = os.environ.get("NETZBENCH_MIRROR")
    if value and not os.path.isabs(value):
        os.environ["NETZBENCH_MIRROR"] = os.path.abspath(value)


def pytest_collection_modifyitems(config, items):
    """Mark every test with its tier (tests/tiers.py): ``-m unit`` is the fast loop."""
    for item in items:
        func = getattr(item, "function", None)
        if func is None:
            continue
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}) or {}
        fixtures = [d.func for ds in defs.values() for d in ds if tiers._in_tests(d.func)]
        tier = tiers.tier_of(func, item.module, fixtures)
        if item.get_closest_marker("slow"):  # the dvc end-to-end tests say so themselves
            tier = "e2e"
        if item.get_closest_marker("golden"):  # tests/golden.py's tiny cells: trained in the fast tier on purpose
            tier = "unit"
        item.stash[_TIER] = tier
        item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture(autouse=True)
def _tier_guard(request, monkeypatch):
    """Hold each test to its tier while it runs (a missed detection fails, naming what to add)."""
    tier = request.node.stash.get(_TIER, None)
    if tier is not None and tier != "e2e":
        tiers.guard(monkeypatch, tier, training=request.node.get_closest_marker("golden") is not None)



_PUBLISHED_DPI: list[int] = []


@pytest.fixture(scope="session", autouse=True)
def _draft_figures():
    """Figures at 40 dpi instead of the report's 200, for the whole session (module fixtures that build a
    report draw the same way as the tests that compare with them): rasterising is a fifth of the unit
    tier, and a test reads what a figure holds, not its pixels."""
    from netzbench.report.figures import style

    _PUBLISHED_DPI.append(style.DPI)
    style.DPI = 40
    yield
    style.DPI = _PUBLISHED_DPI.pop()


#: what the report stage writes for a figure in tests that do not read its pixels, per format
_PLACEHOLDERS: dict[str, bytes] = {}


@pytest.fixture(autouse=True)
def _figure_placeholders(request, monkeypatch):
    """The report stage still draws every figure (an error in one fails the test) but writes a 1-inch
    stand-in instead of rasterising it: saving is most of a stage's time in tests. Tests that read the
    files the stage wrote are marked ``stage_figures``."""
    if request.node.get_closest_marker("stage_figures") is not None:
        return
    from netzbench.report import stage
    from netzbench.report.figures import figure_bytes

    def placeholder(fig, fmt):
        if fmt not in _PLACEHOLDERS:
            from matplotlib.figure import Figure

            _PLACEHOLDERS[fmt] = figure_bytes(Figure(figsize=(1, 1)), fmt)
        return _PLACEHOLDERS[fmt]

    monkeypatch.setattr(stage, "figure_bytes", placeholder)


@pytest.fixture(autouse=True)
def _published_dpi(request, monkeypatch):
    """Tests that measure pixels (marked ``published_dpi``) get the report's resolution back."""
    if request.node.get_closest_marker("published_dpi") is not None:
        from netzbench.report.figures import style

        monkeypatch.setattr(style, "DPI", _PUBLISHED_DPI[0])


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Never let a test read or write the developer's .netzbench cache."""
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("nbcache")))


@pytest.fixture(autouse=True)
def _figures_in_this_process(monkeypatch):
    """The report stage renders its figures here, not in forked workers (a unit test starts no process)."""
    monkeypatch.setenv("NETZBENCH_FIGURE_WORKERS", "1")


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
