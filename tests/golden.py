"""Golden histories: a handful of short cells whose histories are pinned bit for bit.

Each cell is one seed of one model on small data that needs no download (a
synthetic generator, or raw fixture files declared as a custom task), trained
for a few epochs through the same path as ``netzbench train`` (the params
file, fetch, the planner, the in-process executor, the run record). Together
they cover the four families and a knowledge graph, full batch and
neighbour-sampled. ``tests/test_golden.py`` trains them again in the unit tier
and compares every value of every series with ``tests/fixtures/golden_histories.json``,
where floats are written as ``float.hex`` (exact, readable) and kept per CPU
capability: torch picks its kernels by it (``torch.backends.cpu.get_cpu_capability()``,
AVX2 under ``exec.arithmetic: portable``'s variables), and a wider vector unit
rounds otherwise.

Regenerate the fixture after a change that is meant to move results (and say
in the commit which cell moved and why)::

    PYTHONPATH=src python tests/golden.py                      # this machine's capability
    ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 PYTHONPATH=src python tests/golden.py

Each run replaces the entry of the capability it runs under and keeps the others.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

import yaml
from helpers import as_settings

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "golden_histories.json"
SCHEMA = "netzbench.golden_histories/1"

#: raw fixture files (tests/raw_fixtures.py) declared as custom tasks
CUSTOM_TASKS = {
    "golden_tu": ("write_tu", "FIXMOL/raw", {"format": "tu", "family": "graph_cls"}),
    "golden_kg": ("write_triples", "kg", {"format": "triples", "family": "link_pred"}),
}

#: name -> (task, model, epochs, train overrides): one seed (0) each
CELLS = {
    "node_karate_gcn": ("karate", "GCN", 4, {}),
    "node_karate_sage_sampled": ("karate", "GraphSAGE", 3,
                                 {"sampling": {"mode": "neighbour", "fanouts": [3, 2], "batch_size": 8}}),
    "graph_cls_tu_gin": ("golden_tu", "GIN", 3, {}),
    "graph_reg_triangles_gcn": ("synthetic_triangles", "GCN", 2, {}),
    "link_random_tsp_gat": ("random_tsp", "GAT", 3, {}),
    "kg_triples_gcn": ("golden_kg", "GCN", 3, {}),
}


def capability() -> str:
    """The CPU capability torch computes with in this process (the fixture's key)."""
    import torch

    return torch.backends.cpu.get_cpu_capability()


def encode(history: dict[str, list[float]]) -> dict[str, list[str]]:
    return {series: [float(v).hex() for v in values] for series, values in sorted(history.items())}


def decode(history: dict[str, list[str]]) -> dict[str, list[float]]:
    return {series: [float.fromhex(v) for v in values] for series, values in history.items()}


@contextlib.contextmanager
def _inside(folder: Path):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _forget_custom_tasks() -> None:
    """Remove the golden custom tasks from the catalogue's tables (a test process goes on with others)."""
    from netzbench.catalog import custom
    from netzbench.catalog.table import DATASETS, TASKS

    for tid in CUSTOM_TASKS:
        TASKS.pop(tid, None)
        DATASETS.pop(tid, None)
        custom._REGISTERED.pop(tid, None)


def _project(root: Path, name: str) -> Path:
    """``root`` made a project for cell ``name``: its raw fixture files and its params file."""
    import raw_fixtures

    task, model, epochs, train = CELLS[name]
    custom = {}
    if task in CUSTOM_TASKS:
        writer, folder, entry = CUSTOM_TASKS[task]
        getattr(raw_fixtures, writer)(root / "raw" / folder)
        custom[task] = {**entry, "path": f"raw/{folder}"}
    params = {"tasks": [task], "models": [model], "seeds": [0], "custom_tasks": custom,
              "train": {"epochs": {task: epochs}, **train},
              "exec": {"executor": "inprocess", "workers": 1, "threads": 1, "device": "cpu", "arithmetic": "native"}}
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    return path


def history(name: str) -> tuple[list[int], dict[str, list[float]]]:
    """Train golden cell ``name`` afresh (its own folder and per-seed cache): its seed's evaluated epochs
    and history."""
    from netzbench.catalog.data import fetch_task
    from netzbench.config import load_config
    from netzbench.run.execute import train_cell

    task, model = CELLS[name][:2]
    cache = os.environ.get("NETZBENCH_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        root = Path(tmp)
        os.environ["NETZBENCH_CACHE_DIR"] = str(root / "cache")  # never a cached seed: it trains
        try:
            with _inside(root):
                params = load_config(_project(root, name))
                fetch_task(task, as_settings(params), "data")
                record = train_cell(task, model, as_settings(params), root / "record.json", progress=False)
        finally:
            _forget_custom_tasks()
            if cache is None:
                os.environ.pop("NETZBENCH_CACHE_DIR", None)
            else:
                os.environ["NETZBENCH_CACHE_DIR"] = cache
    seed = record["seeds"]["0"]
    if seed.get("status") != "ok":
        raise RuntimeError(f"golden cell {name}: the seed {seed.get('status')}: {seed.get('error')}")
    return seed["epochs"], seed["history"]


def read_fixture(path: Path = FIXTURE) -> dict:
    if not path.is_file():
        return {"schema": SCHEMA, "capabilities": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def generate(path: Path = FIXTURE) -> dict:
    """Train every golden cell and write their histories under this process's capability into ``path``."""
    import torch

    fixture = read_fixture(path)
    cells = {}
    for name in CELLS:
        epochs, hist = history(name)
        cells[name] = {"epochs": epochs, "history": encode(hist)}
    entry = {"torch": torch.__version__, "cells": cells}
    fixture["capabilities"][capability()] = entry
    fixture["capabilities"] = dict(sorted(fixture["capabilities"].items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(fixture, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return entry


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # raw_fixtures
    os.environ.setdefault("NETZBENCH_WARM_S", "0")
    entry = generate()
    cells = entry["cells"]
    print(f"{FIXTURE}: {len(cells)} cells under {capability()} (torch {entry['torch']}):")
    for name, cell in cells.items():
        print(f"  {name}: epochs {cell['epochs']}, series {', '.join(cell['history'])}")


if __name__ == "__main__":
    main()
