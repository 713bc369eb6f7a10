"""The recorded dataset sizes (netzbench.catalog.sizes): complete, well-formed, and equal to the processed counts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import as_settings, make_params
from netzbench.catalog.sizes import MEASURED, REFERENCE_SIZES, SIZES, SOURCES, size_of
from netzbench.catalog.table import DATASETS, TASKS

#: the keys every dataset of a family has a size for (link_pred of a knowledge graph: ``relational``)
NEEDS = {
    "node_cls": {"num_nodes", "num_edges", "num_features", "num_classes"},
    "link_pred": {"num_nodes", "num_edges"},
    "relational": {"num_nodes", "num_edges", "num_relations"},
    "graph_cls": {"num_graphs", "num_nodes", "num_edges", "num_features", "num_classes"},
    "graph_reg": {"num_graphs", "num_nodes", "num_edges", "num_features", "num_targets"},
}
#: what a recorded size must match exactly where the processed data can be made
COMPARED = ("num_graphs", "num_nodes", "num_edges")


def _catalogue() -> list[str]:
    """The catalogue's own datasets (not custom ones other tests registered)."""
    from netzbench.catalog.custom import process

    return sorted(d for d, ds in DATASETS.items() if ds.processor is not process)


def _needed(dataset_id: str) -> set[str]:
    """The keys the dataset's tasks need (a dataset serving two families: the union)."""
    keys: set[str] = set()
    for task in TASKS.values():
        if task.dataset == dataset_id:
            keys |= NEEDS["relational" if task.relational else task.family]
    return keys


def _task_of(dataset_id: str) -> str:
    return min(t for t, spec in TASKS.items() if spec.dataset == dataset_id)


def _mirror_at_collection() -> Path:
    return Path(os.environ.get("NETZBENCH_MIRROR") or "/nonexistent")


def _from_the_mirror() -> list[str]:
    """Datasets recorded as measured that need a download, and any the mirror holds at collection."""
    mirror = _mirror_at_collection()
    return sorted(d for d in _catalogue() if DATASETS[d].needs_download
                  and (SOURCES.get(d) == MEASURED or (mirror / d).is_dir()))


def test_every_catalogue_dataset_has_a_size_with_the_keys_of_its_families_and_a_source():
    missing = [d for d in _catalogue() if d not in SIZES]
    assert not missing, f"no recorded size for {missing}"
    assert set(SOURCES) == set(SIZES), set(SOURCES) ^ set(SIZES)
    for dataset_id in _catalogue():
        size = SIZES[dataset_id]
        assert _needed(dataset_id) <= set(size), (dataset_id, sorted(_needed(dataset_id) - set(size)))
        for key, value in size.items():
            assert type(value) is int and value > 0, (dataset_id, key, value)
        assert size["num_edges"] <= size["num_nodes"] * (size["num_nodes"] - 1) // 2, dataset_id
        source = SOURCES[dataset_id]
        assert isinstance(source, str) and source.strip(), dataset_id
        if DATASETS[dataset_id].synthetic:
            assert source.startswith("generator parameters"), dataset_id


def test_a_homogeneous_link_task_has_no_relations_and_a_knowledge_graph_its_triples():
    for dataset_id in _catalogue():
        relational = any(t.relational for t in TASKS.values() if t.dataset == dataset_id)
        assert ("num_relations" in SIZES[dataset_id]) == relational, dataset_id
        if relational:
            triples = [SIZES[dataset_id][f"num_{s}_triples"] for s in ("train", "valid", "test")]
            assert all(n > 0 for n in triples), dataset_id


def test_size_of_returns_a_copy_and_names_an_unknown_dataset():
    size = size_of("cora")
    assert size == SIZES["cora"] and size is not SIZES["cora"]
    size["num_nodes"] = 0
    assert SIZES["cora"]["num_nodes"] == 2708
    with pytest.raises(KeyError, match="no_such_dataset"):
        size_of("no_such_dataset")


def _assert_recorded(dataset_id: str, counts: dict) -> None:
    size = SIZES[dataset_id]
    for key in COMPARED:
        if key in size or key in counts:
            assert size.get(key) == counts.get(key), (dataset_id, key, size.get(key), counts.get(key))
    for key, value in size.items():  # the rest (features, classes, relations, triples) too, where counted
        if key in counts:
            assert value == counts[key], (dataset_id, key, value, counts[key])


def _fetched_counts(dataset_id: str, root: Path) -> dict | None:
    """``meta.json``'s counts of the dataset's first task fetched into ``root`` (a generated task: of
    its seed-0 instance); None when the data cannot be obtained."""
    from netzbench.catalog.data import fetch_task
    from netzbench.graphs.counts import family_counts
    from netzbench.graphs.layout import task_arrays

    task = _task_of(dataset_id)
    meta = fetch_task(task, as_settings(make_params(tasks=[task])), root)
    if meta["status"] != "ok":
        return None
    if DATASETS[dataset_id].synthetic:
        return family_counts(TASKS[task].family, task_arrays(root / task, 0, meta))
    return meta["counts"]


@pytest.mark.parametrize("dataset_id", [d for d in _catalogue() if not DATASETS[d].needs_download])
def test_generated_and_builtin_sizes_equal_the_processed_counts(dataset_id, tmp_path):
    counts = _fetched_counts(dataset_id, tmp_path)
    assert counts is not None, dataset_id
    _assert_recorded(dataset_id, counts)


def test_reference_sizes_are_the_paper_protocol_instances():
    from netzbench.graphs.counts import family_counts

    for dataset_id, size in REFERENCE_SIZES.items():
        ds = DATASETS[dataset_id]
        assert ds.synthetic and ds.reference_params, dataset_id
        arrays, _ = ds.processor(0, **{**ds.generator_params, **ds.reference_params})
        assert family_counts("link_pred", arrays) == size, dataset_id


@pytest.mark.mirror
@pytest.mark.parametrize("dataset_id", _from_the_mirror())
def test_sizes_of_datasets_from_the_mirror_equal_the_processed_counts(dataset_id, tmp_path, mirror, monkeypatch):
    monkeypatch.setenv("NETZBENCH_MIRROR", str(mirror))
    if not (mirror / dataset_id).is_dir():
        pytest.skip(f"the mirror has no {dataset_id}/")
    counts = _fetched_counts(dataset_id, tmp_path)
    if counts is None:  # e.g. pubmed: the mirror lacks ind.pubmed.allx
        assert SOURCES[dataset_id] != MEASURED, f"{dataset_id} is recorded as measured but cannot be processed"
        pytest.skip(f"{dataset_id} cannot be processed from the mirror")
    assert SOURCES[dataset_id] == MEASURED, f"{dataset_id} can be processed offline: record its measured counts"
    _assert_recorded(dataset_id, counts)
