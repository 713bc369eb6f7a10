"""What planning knows of training (batch sizes, when sampling applies) is result code, read without torch:
editing any function that decides it changes the per-seed key and the train stage's dependencies."""

from __future__ import annotations

import inspect
import shutil
import types

import pytest
import yaml

from netzbench import identity, params
from netzbench.catalog.data import fetch_task
from netzbench.run import estimate, plan
from netzbench.run.plan import plan_cell
from netzbench.training import graph_level, planning, sampling

from helpers import as_settings, REPO, make_params

#: the cells planned: a link task (sampling decided per graph), a graph-level one (batch size)
CELLS = (("random_tsp", "GCN"), ("synthetic_triangles", "GIN"))


def _deciders() -> list:
    """Every function that decides whether a seed samples or how many graphs a step takes."""
    own = [f for _, f in inspect.getmembers(planning, inspect.isfunction) if f.__module__ == planning.__name__]
    users = [sampling.plan] + [f for _, f in inspect.getmembers(graph_level, inspect.isfunction)
                               if f.__module__ == graph_level.__name__ and "BATCH_SIZE" in inspect.getsource(f)]
    assert {f.__name__ for f in own} == {"batch_size", "sampling_applies"} and len(users) >= 2
    return own + users


def test_planning_reads_the_training_loops_facts_without_torch():
    assert not [v for v in vars(planning).values() if isinstance(v, types.ModuleType)]  # nothing imported
    assert plan.batch_size is planning.batch_size and graph_level.BATCH_SIZE is planning.BATCH_SIZE
    assert [planning.batch_size(f) for f in ("graph_cls", "graph_reg", "node_cls", "link_pred")] == [32, 64, None, None]
    assert sampling.applies is planning.sampling_applies and estimate.sampling_applies is planning.sampling_applies
    assert not hasattr(params, "sampling_applies")  # params.py is not result code: it decides nothing
    assert (params.SAMPLING_MODES, params.SAMPLING_EVALS) == (planning.SAMPLING_MODES, planning.SAMPLING_EVALS)
    setting = {"mode": "auto", "min_edges": 10}
    assert [planning.sampling_applies(setting, e) for e in (9, 10)] == [False, True]
    assert planning.sampling_applies({"mode": "neighbour"}, 0) and not planning.sampling_applies({"mode": "full"}, 99)
    assert not planning.sampling_applies(None, 10**9)


def test_no_value_is_read_by_parsing_source():
    found = [str(p.relative_to(REPO)) for p in (REPO / "src/netzbench").rglob("*.py")
             if "literal_eval" in p.read_text(encoding="utf-8") or "import ast" in p.read_text(encoding="utf-8")]
    assert found == []


@pytest.fixture
def copied_result_code(tmp_path, monkeypatch):
    """The result code copied to a folder that :func:`netzbench.identity.code_version` hashes instead."""
    root = tmp_path / "netzbench"
    for entry in identity.RESULT_CODE:
        src = identity.PACKAGE_DIR / entry
        if src.is_dir():
            shutil.copytree(src, root / entry, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            root.mkdir(exist_ok=True)
            shutil.copy2(src, root / entry)
    monkeypatch.setattr(identity, "PACKAGE_DIR", root)
    return root


def test_editing_a_function_that_decides_sampling_or_batch_size_changes_key_and_deps(tmp_path, copied_result_code):
    data = tmp_path / "data"
    p = make_params(tasks=[t for t, _ in CELLS], seeds=[0])
    for task, _ in CELLS:
        fetch_task(task, as_settings(p), data)

    def keys() -> dict:
        return {(t, m): dict(plan_cell(t, m, as_settings(p), data_root=data, quiet=True).keys) for t, m in CELLS}

    before = keys()
    assert all(before.values()), before  # every cell has seeds to key
    train_deps = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]["train"]["deps"]
    for func in _deciders():
        path = identity.Path(inspect.getsourcefile(func)).resolve()
        rel = path.relative_to(REPO).as_posix()
        assert identity.classify(func.__module__) == "result", func.__qualname__
        assert any(rel == d or rel.startswith(d.rstrip("/") + "/") for d in train_deps), (rel, train_deps)
        copy = copied_result_code / path.relative_to(identity.Path(identity.__file__).resolve().parent)
        original = copy.read_text(encoding="utf-8")
        lines, first = inspect.getsourcelines(func)
        edited = original.splitlines(keepends=True)
        edited.insert(first, "    _edited = 1  # tests/test_planning.py\n")  # the function's first body line
        copy.write_text("".join(edited), encoding="utf-8")
        try:
            after = keys()
        finally:
            copy.write_text(original, encoding="utf-8")
        for cell, seeds in after.items():
            assert set(seeds) == set(before[cell]) and all(seeds[s] != before[cell][s] for s in seeds), \
                (func.__qualname__, cell)
    assert keys() == before  # restored: the same keys again
