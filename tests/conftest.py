"""Shared fixtures: an isolated cache, params, and the dataset mirror."""

from __future__ import annotations

import os
from pathlib import Path

import pytest



@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Never let a test read or write the developer's .netzbench cache."""
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("nbcache")))


@pytest.fixture
def mirror() -> Path:
    value = os.environ.get("NETZBENCH_MIRROR")
    if not value or not Path(value).is_dir():
        pytest.skip("dataset mirror not available: set NETZBENCH_MIRROR to ../shared/datasets")
    return Path(value)
