"""Class labels made contiguous and missing codes left out (catalog.labels), alone and through fetch.

A user's labels ``1..4`` are classes ``0..3`` with the original values kept; a declared (``missing: 9``)
or recognised missing code gives a node no class (``y = -1``, in no split part) and drops a graph from a
collection; ``meta.json`` and the dataset card say which codes and how many items.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import raw_fixtures as rf
from helpers import write_package
from netzbench.catalog import custom
from netzbench.catalog.checks import DatasetError, check_arrays
from netzbench.catalog.labels import LabelError, contiguous, recognised_missing, relabel
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.cli import main
from netzbench.config import load_config
from netzbench.errors import ParamsError
from netzbench.graphs.layout import CARD
from netzbench.training.splits import stratified_node_split

# ---------------------------------------------------------------------------------- the functions


@pytest.mark.parametrize("labels, y, mapping", [
    (["b", "a", "b", "c"], [1, 0, 1, 2], {"0": "a", "1": "b", "2": "c"}),
    ([-1, 1, 1, -1], [0, 1, 1, 0], {"0": -1, "1": 1}),
    ([1, 2, 3, 4, 1], [0, 1, 2, 3, 0], {"0": 1, "1": 2, "2": 3, "3": 4}),
    ([0, 2, 5, 2], [0, 1, 2, 1], {"0": 0, "1": 2, "2": 5}),
    (["1", "10", "2"], [0, 2, 1], {"0": "1", "1": "2", "2": "10"}),  # numeric order, not text order
    ([1.0, 2.0, 1.0], [0, 1, 0], {"0": 1, "1": 2}),
])
def test_labels_become_the_classes_0_to_c_minus_1_with_their_original_values(labels, y, mapping):
    got_y, got_mapping, missing = contiguous(labels)
    assert got_y.tolist() == y and got_y.dtype == np.int64
    assert got_mapping == mapping and missing is None


def test_labels_that_are_0_to_c_minus_1_already_need_no_mapping():
    y, mapping, missing = contiguous(np.arange(10))
    assert y.tolist() == list(range(10)) and mapping is None and missing is None


def test_a_survey_code_beside_the_classes_is_recognised_as_missing():
    y, mapping, missing = contiguous([1, 2, 3, 4, 9, 9, 1])
    assert y.tolist() == [0, 1, 2, 3, -1, -1, 0]
    assert mapping == {"0": 1, "1": 2, "2": 3, "3": 4}
    assert missing == {"codes": [9], "found": "recognised", "count": 2}


@pytest.mark.parametrize("values, found", [
    ([1, 2, 3, 4, 9], [9]),
    (list(range(10)), []),  # 9 among 0..9 is a class
    ([0, 1, 2, 99], [99]),
    ([-9, 1, 2], [-9]),
    ([1, 2, 99, 9], [99]),  # 9 is next to nothing but 99 stands further apart
    (["x", "NA", "y"], ["NA"]),
    (["a", "?", " unknown ", "b"], ["?", " unknown "]),
    (["a", "b", "9"], []),  # labels that are not all numbers: no numeric code
    ([0.5, 1.5, 9], []),
])
def test_recognised_missing_codes(values, found):
    assert recognised_missing(values) == found


def test_declared_codes_are_the_missing_ones_and_an_empty_declaration_turns_recognition_off():
    y, mapping, missing = contiguous([1, 2, 0, 2, 1], missing=0)  # 0 would never be recognised
    assert y.tolist() == [0, 1, -1, 1, 0] and mapping == {"0": 1, "1": 2}
    assert missing == {"codes": [0], "found": "declared", "count": 1}
    y, _, missing = contiguous(["a", "NA", "b", "-"], missing=["NA", "-"])
    assert y.tolist() == [0, -1, 1, -1] and missing["count"] == 2 and missing["codes"] == ["-", "NA"]
    y, _, missing = contiguous(["1", "9", "2"], missing=9.0)  # a code matches its number written as text
    assert y.tolist() == [0, -1, 1] and missing["found"] == "declared"
    y, mapping, missing = contiguous([1, 2, 3, 4, 9], missing=[])
    assert y.tolist() == [0, 1, 2, 3, 4] and mapping["4"] == 9 and missing is None


def test_nan_is_missing_when_recognised_and_an_error_when_codes_are_declared_without_it():
    y, _, missing = contiguous([0.0, 1.0, float("nan"), 1.0])
    assert y.tolist() == [0, 1, -1, 1] and missing["count"] == 1
    for declared in ([], 9):
        with pytest.raises(LabelError, match="NaN"):
            contiguous([0.0, 1.0, float("nan")], missing=declared)
    y, _, missing = contiguous([0.0, 1.0, float("nan")], missing="nan")
    assert y.tolist() == [0, 1, -1] and missing["found"] == "declared"


def test_relabel_takes_missing_nodes_out_of_the_masks_given_with_the_data():
    n = 6
    arrays = {"num_nodes": np.asarray(n), "edge_index": np.zeros((2, 0), dtype=np.int64),
              "y": np.asarray([1, 2, 9, 1, 2, 9]), "train_mask": np.ones(n, dtype=bool),
              "val_mask": np.asarray([[1, 0]] * n, dtype=bool), "test_mask": np.zeros(n, dtype=bool)}
    out, mapping, missing = relabel(arrays, "node_cls", None, 9)
    assert out["y"].tolist() == [0, 1, -1, 0, 1, -1] and mapping == {"0": 1, "1": 2} and missing["count"] == 2
    assert out["train_mask"].tolist() == [True, True, False, True, True, False]
    assert out["val_mask"].shape == (n, 2) and out["val_mask"][:, 0].tolist() == out["train_mask"].tolist()
    assert arrays["y"].tolist() == [1, 2, 9, 1, 2, 9]  # the input is not changed in place


def test_relabel_drops_a_graph_whose_label_is_missing_with_its_nodes_and_edges():
    # three graphs: 2 nodes/1 edge pair, 3 nodes/2 edge pairs, 1 node/0 edges; the middle one unlabelled
    arrays = {"x": np.arange(6, dtype=np.float32).reshape(6, 1),
              "edge_index": np.asarray([[0, 1, 0, 1, 1, 2], [1, 0, 1, 0, 2, 1]]),
              "node_ptr": np.asarray([0, 2, 5, 6]), "edge_ptr": np.asarray([0, 2, 6, 6]),
              "y": np.asarray(["a", "NA", "b"], dtype=object), "split": np.asarray([0, 1, 2], dtype=np.int8)}
    out, mapping, missing = relabel(arrays, "graph_cls")
    assert out["y"].tolist() == [0, 1] and mapping == {"0": "a", "1": "b"} and missing["codes"] == ["NA"]
    assert out["node_ptr"].tolist() == [0, 2, 3] and out["edge_ptr"].tolist() == [0, 2, 2]
    assert out["x"].reshape(-1).tolist() == [0, 1, 5] and out["edge_index"].tolist() == [[0, 1], [1, 0]]
    assert out["split"].tolist() == [0, 2]


def test_a_reader_s_mapping_is_undone_before_the_classes_are_made_again():
    # a reader mapped text labels in text order ("1" < "10" < "2" < "NA"); the classes follow the numbers
    mapping = {"0": "1", "1": "10", "2": "2", "3": "NA"}
    out, new, missing = relabel({"y": np.asarray([0, 1, 2, 3, 2])}, "node_cls", mapping)
    assert out["y"].tolist() == [0, 2, 1, -1, 1] and new == {"0": "1", "1": "2", "2": "10"}
    assert missing == {"codes": ["NA"], "found": "recognised", "count": 1}
    out, new, missing = relabel({"y": np.asarray([1, 0, 1])}, "node_cls", {"0": "0", "1": "1"})
    assert out["y"].tolist() == [1, 0, 1] and new is None and missing is None  # 0..C-1 in the files already


def test_other_families_and_multilabel_targets_are_left_as_they_are():
    arrays = {"y": np.asarray([[1.0, np.nan], [0.0, 1.0]])}
    assert relabel(arrays, "graph_cls")[0] is arrays
    assert relabel({"y": np.asarray([1.5, 9.0])}, "graph_reg")[2] is None


def test_a_missing_label_is_no_class_in_the_fetch_checks():
    arrays = {"num_nodes": np.asarray(4), "edge_index": np.zeros((2, 0), dtype=np.int64),
              "y": np.asarray([0, -1, 0, -1])}
    with pytest.raises(DatasetError, match="1 class"):
        check_arrays("t", "node_cls", "stratified_per_seed_50_25_25", arrays)


# ---------------------------------------------------------------------------------- through fetch

def _write_survey_gml(folder: Path, labels: list) -> None:
    """A ring with chords whose node attribute ``answer`` is ``labels[i]`` (unquoted: numbers)."""
    folder.mkdir(parents=True, exist_ok=True)
    n = len(labels)
    lines = ["graph", "["]
    lines += [f"  node [ id {i} answer {v} ]" for i, v in enumerate(labels)]
    lines += [f"  edge [ source {i} target {(i + 1) % n} ]" for i in range(n)]
    lines += [f"  edge [ source {i} target {(i + 5) % n} ]" for i in range(0, n, 3)]
    (folder / "survey.gml").write_text("\n".join(lines + ["]"]) + "\n")


SURVEY = [1 + i % 4 for i in range(32)]
UNANSWERED = (0, 5, 10, 17)
for _i in UNANSWERED:
    SURVEY[_i] = 9
DROPPED_GRAPHS = (3, 8)


def _forget(ids) -> None:
    for tid in ids:
        TASKS.pop(tid, None)
        DATASETS.pop(tid, None)
        custom._REGISTERED.pop(tid, None)


@pytest.fixture
def survey(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write_survey_gml(tmp_path / "raw" / "survey", SURVEY)
    rf.write_tu(tmp_path / "raw" / "SURV", name="SURV")
    labels = ["9" if g in DROPPED_GRAPHS else str(1 + g % 2) for g in range(24)]
    (tmp_path / "raw" / "SURV" / "SURV_graph_labels.txt").write_text("\n".join(labels) + "\n")
    node = {"format": "gml", "path": "raw/survey", "family": "node_cls", "label": "answer"}
    tasks = {"lb_declared": {**node, "missing": 9}, "lb_recognised": node, "lb_none": {**node, "missing": []},
             "lb_graphs": {"format": "tu", "path": "raw/SURV", "family": "graph_cls", "missing": [9]}}
    params = {"tasks": list(tasks), "models": ["GCN"], "seeds": [0],
              "exec": {"workers": 1, "executor": "inprocess", "arithmetic": "native"},
              "custom_tasks": tasks, "train": {"epochs": {t: 2 for t in tasks}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    yield tmp_path
    _forget(tasks)


def _fetched(root: Path, tid: str, said: str = "") -> tuple[dict, dict, dict]:
    out = CliRunner().invoke(main, ["fetch", tid])
    assert out.exit_code == 0 and said in out.output, out.output
    folder = root / "data" / tid
    with np.load(folder / "graph.npz") as npz:
        arrays = {k: npz[k] for k in npz.files}
    return json.loads((folder / "meta.json").read_text()), arrays, json.loads((folder / CARD).read_text())


def test_a_declared_missing_code_leaves_nodes_unlabelled_in_no_split_and_on_the_card(survey):
    meta, arrays, card = _fetched(survey, "lb_declared", "4 node(s) without a class, labelled [9] (declared")
    assert meta["label_missing"] == {"codes": [9], "found": "declared", "count": len(UNANSWERED)}
    assert meta["label_mapping"] == {"0": 1, "1": 2, "2": 3, "3": 4} and meta["counts"]["num_classes"] == 4
    y = arrays["y"]
    assert np.flatnonzero(y < 0).tolist() == list(UNANSWERED)
    assert all(y[i] == SURVEY[i] - 1 for i in range(len(SURVEY)) if i not in UNANSWERED)
    masks = stratified_node_split(y, 0)
    assert not np.any(np.stack(masks)[:, list(UNANSWERED)]) and sum(int(m.sum()) for m in masks) == 28
    assert card["labels"]["missing"] == meta["label_missing"] and card["labels"]["original_values"] == [1, 2, 3, 4]
    assert sum(card["labels"]["counts"]) == len(SURVEY) - len(UNANSWERED)
    text = CliRunner().invoke(main, ["card", "lb_declared"]).output
    assert "original values [1, 2, 3, 4]" in text and "count 4" in text
    out = CliRunner().invoke(main, ["train", "lb_declared", "GCN"])
    assert out.exit_code == 0, out.output
    run = json.loads((survey / "metrics/runs/lb_declared/GCN.json").read_text())
    assert run["status"] == "ok", run


def test_the_code_is_recognised_undeclared_and_a_class_under_missing_none(survey):
    meta, arrays, _ = _fetched(survey, "lb_recognised", "labelled [9] (recognised as missing; `missing: []`")
    assert meta["label_missing"] == {"codes": [9], "found": "recognised", "count": len(UNANSWERED)}
    assert int((arrays["y"] < 0).sum()) == len(UNANSWERED)
    meta, arrays, card = _fetched(survey, "lb_none")
    assert "label_missing" not in meta and "missing" not in card["labels"]
    assert meta["counts"]["num_classes"] == 5 and meta["label_mapping"]["4"] == 9 and arrays["y"].min() == 0


def test_a_graph_whose_label_is_missing_is_dropped_from_the_collection(survey):
    meta, arrays, card = _fetched(survey, "lb_graphs", "2 graph(s) without a class")
    assert meta["label_missing"] == {"codes": [9], "found": "declared", "count": len(DROPPED_GRAPHS)}
    assert meta["counts"]["num_graphs"] == 24 - len(DROPPED_GRAPHS) and meta["label_mapping"] == {"0": 1, "1": 2}
    kept = [g for g in range(24) if g not in DROPPED_GRAPHS]
    assert np.diff(arrays["node_ptr"]).tolist() == [3 if g % 2 == 0 else 5 for g in kept]  # fixture's sizes
    assert arrays["y"].tolist() == [g % 2 for g in kept]
    assert meta["counts"]["num_nodes"] == sum(3 if g % 2 == 0 else 5 for g in kept)
    assert card["sizes"]["graphs"] == 22 and card["labels"]["missing"]["count"] == 2
    out = CliRunner().invoke(main, ["train", "lb_graphs", "GCN"])
    assert out.exit_code == 0, out.output


@pytest.mark.parametrize("entry, message", [
    ({"path": "x", "family": "link_pred", "missing": 9}, "node_cls and graph_cls only"),
    ({"path": "x", "family": "node_cls", "format": "gml", "label": "v", "missing": {"a": 1}}, "means 'no label'"),
    ({"path": "x", "family": "node_cls", "format": "gml", "label": "v", "missing": [True]}, "means 'no label'"),
])
def test_bad_missing_declarations_stop_at_load(tmp_path, entry, message):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"tasks": ["bad"], "models": ["GCN"], "custom_tasks": {"bad": entry},
                                    "train": {"epochs": {"bad": 3}}}))
    try:
        with pytest.raises(ParamsError, match=message):
            load_config(path)
    finally:
        _forget(["bad"])


def test_a_seed_aware_loader_cannot_declare_missing_codes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, "lbloaders", {"loaders": "def seeded(root, *, seed):\n    raise AssertionError\n"})
    tasks = {"lb_seeded": {"loader": "lbloaders.loaders:seeded", "family": "node_cls", "missing": 9}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"tasks": list(tasks), "models": ["GCN"], "seeds": [0],
                                                          "custom_tasks": tasks}))
    try:
        out = CliRunner().invoke(main, ["fetch", "lb_seeded"])
        assert out.exit_code == 2 and "seed-aware" in out.output, out.output
    finally:
        _forget(tasks)


def test_changing_the_declaration_changes_the_data_at_the_next_fetch(survey):
    assert "label_missing" in _fetched(survey, "lb_declared")[0]
    params = yaml.safe_load((survey / "params.yaml").read_text())
    params["custom_tasks"]["lb_declared"]["missing"] = []
    (survey / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    meta, arrays, _ = _fetched(survey, "lb_declared")
    assert "label_missing" not in meta and arrays["y"].min() == 0 and meta["counts"]["num_classes"] == 5


# ---------------------------------------------------------------------------------- the Python API's Task


def _survey_graph(labels):
    import torch
    from torch_geometric.data import Data

    n = len(labels)
    ring = torch.tensor([[i for i in range(n)], [(i + 1) % n for i in range(n)]])
    return Data(x=torch.eye(n), edge_index=torch.cat([ring, ring.flip(0)], 1), y=torch.tensor(labels))


def test_an_api_task_declares_its_missing_code_and_its_labels_become_0_to_c_minus_1(tmp_path):
    from netzbench.api import Task
    from netzbench.catalog.data import write_loader_task

    labels = [1, 2, 3, 4, 9, 1, 2, 3, 4, 9] * 3  # 1..4 answers, 9 no answer: 6 nodes
    task = Task("poll", "node_cls", lambda _root: _survey_graph(labels), epochs=5, missing=9)
    meta = write_loader_task(tmp_path / "poll", task.name, task.task_type, task.loader, root=tmp_path,
                             epochs=task.epochs, missing=task.missing)
    assert meta["label_missing"] == {"codes": [9], "found": "declared", "count": 6}
    assert meta["label_mapping"] == {"0": 1, "1": 2, "2": 3, "3": 4} and meta["counts"]["num_classes"] == 4
    with np.load(tmp_path / "poll" / "graph.npz") as npz:
        y = npz["y"]
    assert np.flatnonzero(y < 0).tolist() == [i for i, v in enumerate(labels) if v == 9]
    assert [int(v) for v in y[y >= 0]] == [v - 1 for v in labels if v != 9]
    masks = stratified_node_split(y, 0)
    assert not np.any(np.stack(masks)[:, y < 0])
    # undeclared, the code is recognised as a file's would be; `missing=[]` makes it a class
    plain = write_loader_task(tmp_path / "plain", "plain", "node_cls", lambda _root: _survey_graph(labels),
                              root=tmp_path)
    assert plain["label_missing"] == {"codes": [9], "found": "recognised", "count": 6}
    every = write_loader_task(tmp_path / "every", "every", "node_cls", lambda _root: _survey_graph(labels),
                              root=tmp_path, missing=[])
    assert "label_missing" not in every and every["counts"]["num_classes"] == 5
    assert every["label_mapping"] == {"0": 1, "1": 2, "2": 3, "3": 4, "4": 9}  # no empty class 0


def test_an_api_task_s_labels_1_to_4_are_four_classes_and_0_to_c_minus_1_stay_as_they_are(tmp_path):
    from netzbench.catalog.data import write_loader_task

    four = write_loader_task(tmp_path / "f", "f", "node_cls", lambda _root: _survey_graph([1, 2, 3, 4, 1, 2]),
                             root=tmp_path)
    assert four["counts"]["num_classes"] == 4 and four["label_mapping"] == {"0": 1, "1": 2, "2": 3, "3": 4}
    plain = write_loader_task(tmp_path / "p", "p", "node_cls", lambda _root: _survey_graph([0, 1, 2, 1]),
                              root=tmp_path)
    assert plain["counts"]["num_classes"] == 3 and "label_mapping" not in plain


def test_an_api_task_refuses_missing_where_it_cannot_apply(tmp_path):
    from netzbench.api import Task
    from netzbench.catalog.data import write_loader_task

    with pytest.raises(ValueError, match="node_cls and graph_cls only"):
        Task("r", "graph_reg", lambda _root: None, missing=9)
    with pytest.raises(DatasetError, match="seed-aware loader"):
        write_loader_task(tmp_path / "s", "s", "node_cls", lambda _root, seed: _survey_graph([0, 1, 9]),
                          root=tmp_path, seeds=[0], missing=9)
    with pytest.raises(DatasetError, match="NaN"):  # declared codes without NaN: a NaN label is an error
        write_loader_task(tmp_path / "n", "n", "node_cls", lambda _root: {
            **_arrays_of(_survey_graph([0, 1, 0])), "y": np.array([0.0, np.nan, 1.0])}, root=tmp_path, missing=9)


def _arrays_of(data) -> dict:
    return {"x": data.x.numpy(), "edge_index": data.edge_index.numpy(), "num_nodes": np.array([data.num_nodes])}
