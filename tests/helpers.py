"""Helpers shared by the tests (imported as ``from helpers import ...``)."""

from __future__ import annotations

from pathlib import Path

from netzbench.params import DEFAULTS, merge, validate

REPO = Path(__file__).resolve().parents[1]


def make_params(**overrides) -> dict:
    """Defaults merged with ``overrides`` (tasks/models/seeds/epochs filled in), validated."""
    base = {"tasks": ["random_tsp"], "models": ["GCN"], "seeds": [0, 1],
            "train": {"epochs": {"random_tsp": 3, "ising_lattice": 3, "karate": 3, "cora": 3, "mutag": 3}},
            "exec": {"workers": 1}}
    return validate(merge(merge(DEFAULTS, base), overrides))


def write_package(root: Path, name: str, modules: dict[str, str]) -> Path:
    """A throwaway importable package ``root/name``: an empty ``__init__.py`` and ``modules``
    (module name -> source). ``root`` must be on ``sys.path`` for it to import."""
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module, source in modules.items():
        (package / f"{module}.py").write_text(source)
    return package
