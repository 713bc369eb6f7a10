"""Helpers shared by the tests (imported as ``from helpers import ...``)."""

from __future__ import annotations

import logging
import os
import struct
import subprocess
import textwrap
from contextlib import contextmanager
from pathlib import Path

from netzbench.params import DEFAULTS, merge, validate

REPO = Path(__file__).resolve().parents[1]


def git(cwd, *args) -> str:
    """``git ARGS`` in ``cwd`` with a fixed author and no user configuration; its stdout, stripped."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": "/dev/null"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def as_settings(params):
    """``params`` (a params dict, validated or partial: defaults merged, and a task and a model where it names
    none, for tests of one part) as :class:`~netzbench.settings.Settings`, what the entry points hand
    everything below them; settings pass through."""
    from netzbench.settings import Settings

    if isinstance(params, Settings):
        return params
    params = merge(DEFAULTS, params)
    params["tasks"], params["models"] = params["tasks"] or ["random_tsp"], params["models"] or ["GCN"]
    return Settings.from_params(validate(params))


def make_settings(**overrides):
    """:func:`make_params`' params as :class:`~netzbench.settings.Settings`."""
    return as_settings(make_params(**overrides))


def make_params(**overrides) -> dict:
    """Defaults merged with ``overrides`` (tasks/models/seeds/epochs filled in), validated."""
    base = {"tasks": ["random_tsp"], "models": ["GCN"], "seeds": [0, 1],
            "train": {"epochs": {"random_tsp": 3, "ising_lattice": 3, "karate": 3, "cora": 3, "mutag": 3}},
            "exec": {"workers": 1}}
    return validate(merge(merge(DEFAULTS, base), overrides))


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@contextmanager
def logged():
    """The list of what netzbench logs inside the block at INFO and up, each message as the command
    line prints it (``WARNING: ...``); attached to the package logger, so a handler the command line
    installs meanwhile, which stops propagation, hides nothing."""
    from netzbench.console import PACKAGE, Plain

    handler, logger = _Lines(), logging.getLogger(PACKAGE)
    handler.setFormatter(Plain())
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def write_package(root: Path, name: str, modules: dict[str, str]) -> Path:
    """A throwaway importable package ``root/name``: an empty ``__init__.py`` and ``modules``
    (module name -> source). ``root`` must be on ``sys.path`` for it to import."""
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module, source in modules.items():
        (package / f"{module}.py").write_text(source)
    return package


#: Source of a module of link-prediction models that misbehave on purpose (a linear layer each),
#: for the executor tests: ``write_package(root, name, {"models": MISBEHAVING_MODELS})``.
MISBEHAVING_MODELS = textwrap.dedent("""
    import os
    import time

    import torch

    class Linear(torch.nn.Module):
        task_types = {"link_pred"}
        node_encoder = True
        def __init__(self, i, h, o):
            super().__init__()
            self.lin = torch.nn.Linear(i, o)
        def forward(self, x, edge_index):
            return self.lin(x)

    class SlowOnSeedOne(Linear):
        '''Sleeps forever in forward when the run seed is 1 (torch.initial_seed() == 1).'''
        def forward(self, x, edge_index):
            if torch.initial_seed() == 1:
                time.sleep(600)
            return self.lin(x)

    class CrashOnSeedOne(Linear):
        def forward(self, x, edge_index):
            if torch.initial_seed() == 1:
                os._exit(137)  # as if the kernel had killed the process
            return self.lin(x)

    class Hungry(Linear):
        def forward(self, x, edge_index):
            big = torch.ones(1024, 1024, 1024)  # 4 GiB
            return self.lin(x) + big[0, 0, 0]

    class SlowEpochs(Linear):
        '''Every forward pass takes a fifth of a second.'''
        def forward(self, x, edge_index):
            time.sleep(0.2)
            return self.lin(x)

    class Chatty(Linear):
        def forward(self, x, edge_index):
            import sys
            print("a word from the model", file=sys.stderr, flush=True)
            return self.lin(x)

    class Exploding(Linear):
        def forward(self, x, edge_index):
            raise RuntimeError("boom in forward")
""")


def misbehaving_workdir(tmp_path: Path, monkeypatch, package: str) -> Path:
    """``tmp_path`` as the working directory, Random TSP fetched into ``data/``, and
    :data:`MISBEHAVING_MODELS` importable as ``<package>.models`` (a name per test module: an
    imported module stays in ``sys.modules``)."""
    from netzbench.catalog.data import fetch_task

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, package, {"models": MISBEHAVING_MODELS})
    fetch_task("random_tsp", make_settings(), "data")
    return tmp_path


def as_in_the_papers_setting(monkeypatch) -> None:
    """Compare a small fixture run with the paper's Table 3 as if it had the paper's protocol, seeds and epochs
    (the report compares only then: ReportFacts.paper_setting_differs); for tests of the comparison itself."""
    from netzbench.report.facts import ReportFacts

    monkeypatch.setattr(ReportFacts, "paper_setting_differs", property(lambda self: []))


def assert_fused_history_is_unfused(monkeypatch, module, fused, unfused, run, steps: int) -> None:
    """``run()`` (a seed's history) once with ``module.train_scores`` = ``fused``, counting its calls (one
    training step per epoch: ``steps``), then with ``unfused``: the same history, bit for bit."""
    calls = []
    monkeypatch.setattr(module, "train_scores", lambda *a: calls.append(1) or fused(*a))
    history = run()
    assert len(calls) == steps  # every training step went through it
    monkeypatch.setattr(module, "train_scores", unfused)
    assert same_bits(run(), history)  # the unfused graph: the same history, bit for bit (NaNs included)


def same_bits(a, b) -> bool:
    """Equal values of equal types, floats bit for bit (NaNs included: ``nan == nan`` is False)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return struct.pack("!d", a) == struct.pack("!d", b)
    if type(a) is list:
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(same_bits(a[k], b[k]) for k in a)
    return a == b
