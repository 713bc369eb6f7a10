"""Catalogue entries name their processor by object, and fetch records it by the name it always had.

The recorded name (``"module:qualname"``) is meta.json's ``generator`` of a synthetic task and part
of the fetch fingerprint of a processed download: it must not change when the entry holds the
function instead of the string, or every cached seed run of a synthetic task would be invalidated.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

import netzbench.catalog.entries
from netzbench.catalog import custom, loaders
from netzbench.catalog.data import fetch_task
from netzbench.catalog.readers import networks, pyg_datasets, pyg_misc, pyg_vision
from netzbench.catalog.table import DATASETS, TASKS, add_dataset, callable_ref
from netzbench.paths import import_ref
from netzbench.synthetic import optimisation, routing

from helpers import as_settings, make_params

#: the strings entries held before they held the function (one per processor module, and the custom one)
WELL_KNOWN = {
    "karate": "netzbench.catalog.loaders:karate",
    "cora": "netzbench.catalog.loaders:planetoid",
    "mutag": "netzbench.catalog.loaders:tudataset",
    "euroroad": "netzbench.catalog.readers.networks:link_pred",
    "celegans": "netzbench.catalog.readers.networks:link_pred_directed",
    "fb15k_237": "netzbench.catalog.readers.pyg_datasets:fb15k_237",
    "zinc": "netzbench.catalog.readers.pyg_misc:zinc",
    "mnist_superpixels": "netzbench.catalog.readers.pyg_vision:mnist_superpixels",
    "random_tsp": "netzbench.synthetic.routing:random_tsp",
    "max_flow": "netzbench.synthetic.optimisation:max_flow",
}
CATALOGUE = sorted(d for d, ds in DATASETS.items() if ds.processor is not custom.process)
ENTRY_FILES = sorted(Path(netzbench.catalog.entries.__file__).parent.glob("*.py")) + [
    Path(loaders.__file__).with_name("table.py")]


@pytest.mark.parametrize("dataset", CATALOGUE)
def test_every_processor_is_named_by_the_module_and_qualname_that_import_back_to_it(dataset):
    fn = DATASETS[dataset].processor
    assert DATASETS[dataset].processor_ref == f"{fn.__module__}:{fn.__qualname__}"
    assert import_ref(DATASETS[dataset].processor_ref) is fn


@pytest.mark.parametrize("dataset", sorted(WELL_KNOWN))
def test_the_recorded_name_is_the_string_the_entry_held_before(dataset):
    assert DATASETS[dataset].processor_ref == WELL_KNOWN[dataset]


def test_the_entries_hold_the_functions_themselves():
    assert DATASETS["karate"].processor is loaders.karate and DATASETS["cora"].processor is loaders.planetoid
    assert DATASETS["celegans"].processor is networks.link_pred_directed
    assert DATASETS["euroroad"].processor is networks.link_pred
    assert DATASETS["ogbn_arxiv"].processor is pyg_datasets.ogbn_arxiv
    assert DATASETS["qm9"].processor is pyg_misc.qm9 and DATASETS["shapenet"].processor is pyg_vision.shapenet
    assert DATASETS["vrp"].processor is routing.vrp and DATASETS["max_cut"].processor is optimisation.max_cut


@pytest.mark.parametrize("path", ENTRY_FILES, ids=lambda p: p.name)
def test_no_entry_names_its_processor_by_a_string(path):
    calls = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]
    by_string = [k.value.lineno for c in calls for k in c.keywords
                 if k.arg == "processor" and isinstance(k.value, (ast.Constant, ast.JoinedStr))]
    assert not by_string, f"{path.name}, lines {by_string}: name the function, not its 'module:function'"


def test_a_processor_must_be_a_module_level_function():
    ds = DATASETS["karate"]

    def local(raw_dir, fmt):
        return loaders.karate(raw_dir, fmt)

    for bad in ("netzbench.catalog.loaders:karate", local, lambda raw_dir, fmt: None):
        with pytest.raises(ValueError, match="module-level function"):
            add_dataset(dataclasses.replace(ds, id="not_registered", processor=bad))
    assert "not_registered" not in DATASETS


def test_the_custom_processor_keeps_its_name():
    assert custom.PROCESSOR == "netzbench.catalog.custom:process" == callable_ref(custom.process)
    try:
        custom.register_custom_tasks({"proc_ref_net": {"format": "gml", "path": "raw/x.gml", "family": "link_pred"}})
        assert DATASETS["proc_ref_net"].processor is custom.process
    finally:
        DATASETS.pop("proc_ref_net", None)
        TASKS.pop("proc_ref_net", None)
        custom._REGISTERED.pop("proc_ref_net", None)


def test_a_synthetic_task_records_its_generator_by_the_same_name(tmp_path):
    for task in ("random_tsp", "max_flow"):
        meta = fetch_task(task, as_settings(make_params()), tmp_path / "data")
        assert meta["generator"] == WELL_KNOWN[task]
        assert json.loads((tmp_path / "data" / task / "meta.json").read_text())["generator"] == WELL_KNOWN[task]


def test_the_catalogue_imports_no_torch():
    """Holding processors by object imports their modules; they import torch and PyG only when they run."""
    out = subprocess.run(
        [sys.executable, "-c", "import sys, netzbench.catalog.table as t; print(len(t.DATASETS), sorted(m for m in "
         "('torch', 'torch_geometric', 'ogb', 'networkx', 'scipy', 'pandas') if m in sys.modules))"],
        capture_output=True, text=True, check=True).stdout.split(maxsplit=1)
    assert int(out[0]) == len(CATALOGUE) and out[1].strip() == "[]"
