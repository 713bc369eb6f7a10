"""Declared datasets in params.yaml (`custom_tasks` with `path:`), through `netzbench fetch` and `train`.

Fixture files in every format (``raw_fixtures``), the mirror's real files
declared as custom tasks, the loader route's ``root``, and the catalogue's
processed bytes left unchanged by the shared reader code.
"""

from __future__ import annotations

import hashlib
import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import raw_fixtures as rf
from helpers import as_settings, make_params, write_package
from netzbench.catalog import custom
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.cli import main
from netzbench.config import load_config
from netzbench.errors import ParamsError
from netzbench.graphs.layout import CARD

FIXTURES = {  # task -> (writer, folder under raw/, custom_tasks entry without path)
    "fx_gml": (rf.write_gml, "books", {"format": "gml", "family": "node_cls", "label": "value"}),
    "fx_gml_links": (rf.write_gml, "books", {"family": "link_pred"}),
    "fx_konect": (rf.write_konect, "konect", {"family": "link_pred"}),
    "fx_edges": (rf.write_edgelist_csv, "edges", {"format": "edgelist", "family": "link_pred"}),
    "fx_netz": (rf.write_netzschleuder, "netz", {"format": "netzschleuder", "family": "node_cls", "label": "club"}),
    "fx_sp": (rf.write_sociopatterns, "sp", {"family": "link_pred"}),
    "fx_ucinet": (rf.write_ucinet, "ucinet", {"format": "ucinet", "family": "link_pred"}),
    "fx_multiplex": (rf.write_multiplex, "multiplex", {"family": "link_pred"}),
    "fx_tu": (rf.write_tu, "FIXMOL/raw", {"format": "tu", "family": "graph_cls"}),
    "fx_tu_plain": (lambda d: rf.write_tu(d, name="PLAIN", node_labels=False), "PLAIN", {"family": "graph_cls"}),
    "fx_planetoid": (rf.write_planetoid, "planetoid", {"family": "node_cls"}),
    "fx_triples": (rf.write_triples, "kg", {"format": "triples", "family": "link_pred"}),
    "fx_openke": (rf.write_openke, "openke", {"family": "link_pred", "epochs": 3}),
}
TRAINED = ("fx_gml", "fx_edges", "fx_tu", "fx_triples")


def _forget(ids) -> None:
    for tid in ids:
        TASKS.pop(tid, None)
        DATASETS.pop(tid, None)
        custom._REGISTERED.pop(tid, None)


def _project(root: Path, tasks: dict, **extra) -> None:
    params = {"tasks": list(tasks), "models": ["GCN"], "seeds": [0], "exec": {"workers": 1, "executor": "inprocess", "arithmetic": "native"},
              "custom_tasks": tasks, "train": {"epochs": {t: 2 for t in tasks}}, **extra}
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    expected, tasks = {}, {}
    for tid, (writer, folder, entry) in FIXTURES.items():
        if not (tmp_path / "raw" / folder).exists():
            expected[folder] = writer(tmp_path / "raw" / folder)
        tasks[tid] = {**entry, "path": f"raw/{folder}"}
    _project(tmp_path, tasks)
    yield tmp_path, expected
    _forget(FIXTURES)


def _tree_hashes(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_every_format_declared_fetches_and_trains(project):
    root, expected = project
    raw_before = _tree_hashes(root / "raw")
    r = CliRunner()
    metas = {}
    for tid in FIXTURES:
        out = r.invoke(main, ["fetch", tid])
        assert out.exit_code == 0, (tid, out.output)
        metas[tid] = json.loads((root / "data" / tid / "meta.json").read_text())
    assert _tree_hashes(root / "raw") == raw_before  # raw input is read, never written
    gml = metas["fx_gml"]
    assert gml["format"] == "gml" and gml["path"] == "raw/books" and list(gml["raw_sha256"]) == ["books.gml"]
    assert gml["counts"] == {"num_nodes": 30, "num_edges": 36, "num_classes": 3, "num_features": 30}
    assert gml["node_features"] == {"kind": "identity", "dim": 30, "source": "one-hot node ids"}  # none in the file
    assert gml["label_mapping"] == {"0": "c", "1": "l", "2": "n"} and gml["split"] == "stratified_per_seed_50_25_25"
    assert metas["fx_gml_links"]["dropped"] == {"self_loops": 1, "duplicate_edges": 1, "edge_attributes": ["value"],
                                                "weights": True, "reverse_duplicates": 1}
    assert metas["fx_konect"]["format"] == "konect" and metas["fx_konect"]["counts"]["num_edges"] == 12
    assert list(metas["fx_konect"]["raw_sha256"]) == ["out.fixture_konect"]
    tu = metas["fx_tu"]
    assert tu["counts"]["num_graphs"] == 24 and tu["label_mapping"] == {"0": -1, "1": 1}
    assert sorted(tu["raw_sha256"]) == ["FIXMOL_A.txt", "FIXMOL_graph_indicator.txt", "FIXMOL_graph_labels.txt",
                                        "FIXMOL_node_labels.txt"]
    assert "structural" in metas["fx_tu_plain"]["notes"]["node_features"]
    for kg in ("fx_triples", "fx_openke"):
        assert metas[kg]["relational"] is True and metas[kg]["split"] == "relational_canonical"
        assert {"num_nodes", "num_relations", "num_train_triples", "num_valid_triples", "num_test_triples"} <= set(
            metas[kg]["counts"])
    assert metas["fx_edges"]["relational"] is False and metas["fx_netz"]["counts"]["num_classes"] == 2
    assert metas["fx_planetoid"]["split"] == "dataset_masks"
    for tid in TRAINED:
        out = r.invoke(main, ["train", tid, "GCN"])
        assert out.exit_code == 0, (tid, out.output)
        rec = json.loads((root / "metrics/runs" / tid / "GCN.json").read_text())
        assert rec["status"] == "ok", (tid, rec)


def test_editing_a_raw_file_changes_the_data_and_fetch_never_writes_it(project):
    root, _ = project
    r = CliRunner()
    assert r.invoke(main, ["fetch", "fx_konect"]).exit_code == 0
    meta = (root / "data/fx_konect/meta.json").read_bytes()
    assert r.invoke(main, ["fetch", "fx_konect"]).exit_code == 0
    assert (root / "data/fx_konect/meta.json").read_bytes() == meta  # same raw bytes, same data
    raw = root / "raw/konect/out.fixture_konect"
    raw.write_bytes(raw.read_bytes() + b"7 9 1\r\n")
    assert r.invoke(main, ["fetch", "fx_konect"]).exit_code == 0
    changed = json.loads((root / "data/fx_konect/meta.json").read_text())
    assert changed["raw_sha256"] != json.loads(meta)["raw_sha256"] and changed["counts"]["num_edges"] == 13


def test_a_bad_raw_file_stops_fetch_with_format_file_and_line(project):
    root, _ = project
    (root / "raw/konect/out.fixture_konect").write_text("% sym unweighted\n1 2\n2 3\n3 three\n")
    out = CliRunner().invoke(main, ["fetch", "fx_konect"])
    assert out.exit_code == 2, out.output
    assert "custom task 'fx_konect' (link_pred): format 'konect':" in out.output
    assert "out.fixture_konect, line 4" in out.output and "found '3 three'" in out.output
    assert "Traceback" not in out.output and not (root / "data/fx_konect").exists()


def test_an_explicit_format_is_checked_against_the_files(project):
    root, _ = project
    _project(root, {"fx_wrong": {"format": "gml", "path": "raw/konect", "family": "link_pred"}})
    try:
        out = CliRunner().invoke(main, ["fetch", "fx_wrong"])
        assert out.exit_code == 2 and "expected a *.gml file" in out.output and "look like 'konect'" in out.output
    finally:
        _forget(["fx_wrong"])


def test_a_relative_path_is_the_repository_s_and_missing_paths_are_named(project, monkeypatch):
    root, _ = project
    (root / "dvc.yaml").write_text("stages: {}\n")
    monkeypatch.chdir(root / "raw")  # a stage runs in the repository; paths resolve against it either way
    out = CliRunner().invoke(main, ["fetch", "fx_edges", "--params", str(root / "params.yaml"),
                                    "--data-root", str(root / "data")])
    assert out.exit_code == 0, out.output
    monkeypatch.chdir(root)
    _project(root, {"fx_missing": {"path": "raw/nothing", "family": "link_pred"}})
    try:
        out = CliRunner().invoke(main, ["fetch", "fx_missing"])
        assert out.exit_code == 2 and "`path: raw/nothing` does not exist" in out.output
    finally:
        _forget(["fx_missing"])


@pytest.mark.parametrize("entry, message", [
    ({"path": "x", "family": "link_pred", "fromat": "gml"}, "`custom_tasks.bad.fromat` is not a custom task key (did you mean 'format'?)"),
    ({"path": "x", "family": "link_pred", "format": "gmll"}, "did you mean 'gml'?"),
    ({"path": "x", "family": "link_pred", "format": "tu"}, "format 'tu' serves graph_cls, graph_reg, not 'link_pred'"),
    ({"path": "x", "family": "link_pred", "label": "value"}, "`custom_tasks.bad.label` names the node attribute"),
    ({"path": "x", "family": "node_cls", "format": "planetoid", "label": "value"}, "node_cls from gml or netzschleuder"),
    ({"path": "x", "family": "node_cls", "format": "konect"}, "format 'konect' serves link_pred, not 'node_cls'"),
    ({"loader": "a:b", "family": "node_cls", "format": "gml"}, "give one route"),
    ({"family": "node_cls"}, "needs `path:`"),
    ({"path": "x", "family": "link_pred", "epochs": 0}, "epochs` must be a positive integer"),
])
def test_bad_declared_entries_stop_at_load(tmp_path, entry, message):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"tasks": ["bad"], "models": ["GCN"], "custom_tasks": {"bad": entry},
                                    "train": {"epochs": {"bad": 3}}}))
    try:
        with pytest.raises(ParamsError) as info:
            load_config(path)
        assert message in str(info.value)
    finally:
        _forget(["bad"])


LOADERS = textwrap.dedent("""
    import os
    import torch
    from torch_geometric.data import Data
    from torch_geometric.datasets import TUDataset

    SEEN = []

    def listing(root):
        SEEN.append(root)
        n = 40
        src = torch.arange(n)
        ei = torch.stack([torch.cat([src, (src + 1) % n]), torch.cat([(src + 1) % n, src])])
        y = torch.tensor([len(os.listdir(root)) % 2] * 20 + [1 - len(os.listdir(root)) % 2] * 20)
        return Data(x=torch.ones(n, 1), edge_index=ei, y=y, num_nodes=n)

    def seeded(root, *, seed):
        assert os.path.isdir(root), root
        g = torch.Generator().manual_seed(seed)
        return Data(x=torch.randn(30, 2, generator=g), edge_index=torch.randint(0, 30, (2, 90), generator=g),
                    num_nodes=30)

    def tu_featureless(root):
        return TUDataset(root, "PLAIN")

    def tu_labelled(root):
        return TUDataset(root, "FIXMOL")

    def knowledge(root):
        ei = torch.tensor([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]])
        et = torch.tensor([0, 1, 0, 1, 0, 1])
        return Data(num_nodes=6, num_relations=2, train_edge_index=ei, train_edge_type=et,
                    valid_edge_index=ei[:, :2], valid_edge_type=et[:2], test_edge_index=ei[:, 2:4],
                    test_edge_type=et[2:4])
""")


@pytest.fixture
def loader_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, "myloaders", {"loaders": LOADERS})
    rf.write_tu(tmp_path / "tu_root" / "PLAIN" / "raw", name="PLAIN", node_labels=False)
    rf.write_tu(tmp_path / "tu_root" / "FIXMOL" / "raw")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "a.txt").write_text("a raw file of the user\n")
    tasks = {
        "ld_listing": {"loader": "myloaders.loaders:listing", "path": "mine", "family": "node_cls"},
        "ld_seeded": {"loader": "myloaders.loaders:seeded", "path": "mine", "family": "link_pred"},
        "ld_tu_plain": {"loader": "myloaders.loaders:tu_featureless", "path": "tu_root", "family": "graph_cls"},
        "ld_tu": {"loader": "myloaders.loaders:tu_labelled", "path": "tu_root", "family": "graph_cls"},
        "ld_kg": {"loader": "myloaders.loaders:knowledge", "family": "link_pred"},
    }
    _project(tmp_path, tasks)
    yield tmp_path
    _forget(tasks)


def test_the_loader_route_gets_its_path_as_root_and_its_files_hashed(loader_project):
    root = loader_project
    r = CliRunner()
    assert r.invoke(main, ["fetch", "ld_listing"]).exit_code == 0
    meta = json.loads((root / "data/ld_listing/meta.json").read_text())
    assert meta["loader"] == "myloaders.loaders:listing" and meta["path"] == "mine"
    assert list(meta["raw_sha256"]) == ["a.txt"]
    import myloaders.loaders as mod

    assert Path(mod.SEEN[-1]) == root / "mine"
    assert r.invoke(main, ["fetch", "ld_seeded"]).exit_code == 0
    seeded = json.loads((root / "data/ld_seeded/meta.json").read_text())
    assert seeded["generator_params"]["root"] == str(root / "mine") and list(seeded["raw_sha256"]) == ["a.txt"]
    out = r.invoke(main, ["train", "ld_seeded", "GCN"])
    assert out.exit_code == 0, out.output


def test_a_loader_may_return_pyg_s_tudataset_with_or_without_node_labels(loader_project):
    root = loader_project
    r = CliRunner()
    for tid in ("ld_tu_plain", "ld_tu"):
        out = r.invoke(main, ["fetch", tid])
        assert out.exit_code == 0, out.output
    plain = json.loads((root / "data/ld_tu_plain/meta.json").read_text())
    assert plain["counts"]["num_graphs"] == 24 and "structural" in plain["notes"]["node_features"]
    with np.load(root / "data/ld_tu_plain/graph.npz") as npz:
        degrees = np.concatenate(rf.write_tu(root / "scratch", node_labels=False)["degrees"])
        assert np.allclose(npz["x"][:, 1], np.log1p(degrees))  # degrees within each graph
    labelled = json.loads((root / "data/ld_tu/meta.json").read_text())
    assert labelled["counts"]["num_features"] == 2 and labelled["counts"]["num_classes"] == 2
    out = r.invoke(main, ["train", "ld_tu_plain", "GCN"])
    assert out.exit_code == 0, out.output


def test_a_loader_s_knowledge_graph_is_recorded_relational(loader_project):
    root = loader_project
    assert CliRunner().invoke(main, ["fetch", "ld_kg"]).exit_code == 0
    meta = json.loads((root / "data/ld_kg/meta.json").read_text())
    assert meta["relational"] is True and meta["split"] == "relational_canonical"


def test_the_catalogue_tu_processor_reads_a_collection_without_node_labels(tmp_path):
    from netzbench.catalog.loaders import tudataset

    want = rf.write_tu(tmp_path, name="PLAIN", node_labels=False)
    arrays, counts, dropped = tudataset(tmp_path)
    assert dropped == {"duplicate_edges": want["duplicate_edges"], "self_loops": 0, "weights": False}
    assert counts["num_graphs"] == 24 and arrays["x"].shape == (want["num_nodes"], 2)
    assert np.allclose(arrays["x"][:, 1], np.log1p(np.concatenate(want["degrees"])))


# ----------------------------------------------------------------------------- catalogue unchanged

#: sha256 of meta.json and graph.npz of catalogue fetches: graph.npz computed before the declared readers
#: existed; meta.json since it records the task's epochs and the common counts and dropped (graphs/counts.py)
CATALOGUE = {
    "random_tsp": {"meta.json": "e15bb47e13dced79e2845e39f2af118a523feff32a99deb069f7204b794e5067"},
    "karate": {"graph.npz": "9e6aacfe48d58d60ec5c79a0dc19e924ed2551be7cb009a2e53b8b8e217ceae0",
               "meta.json": "818addcc1f2ef2806d66b0fe7ff5008bbf08ad7cc1b4cf7b4e03203b9bf4d054"},
    "cora": {"graph.npz": "53ecfa6e663cd4cb19b02ecae1bf0ba9e751c721149ed5a6ec66cc1dc0038b98",
             "meta.json": "fed41308feb1d159efd56cd0eafb0fab7e2da400f45944cdb19da7476c2fecb2"},
    "mutag": {"graph.npz": "0a65958f12447273e8a2be0960d945a98d1ef467b7d9ea04c6020b4e98b62a4e",
              "meta.json": "e53f46523638b75c3c55299a960903ebae301cb854eb46644a7be118f11e4523"},
    "euroroad": {"graph.npz": "d04d4060d9006a61b1749c9ddbd89ed445b92a11082ad0c35e37a9b7a47be978",
                 "meta.json": "7cd884441dde7f2c3f7bc4ed492511d021dba7598ac953a5f293f972ba9ed002"},
    "celegans": {"graph.npz": "4e907d45247a0fbc87d21f2e48967908a8dfa195af2081306ff5329949842589",
                 "meta.json": "c427210e0fab09784905d78cbc6a7f6c07839a69e9049666dba961bc3e14ba6f"},
    "train_terrorists": {"graph.npz": "53d260485b409b9d5ea25028f7da51b3d1463938cc1c1fae241f51d1efd4d0cd",
                         "meta.json": "225421e539d688f03538e349d143323c27d28aaf08d5e9b4eec1f70255eef6e2"},
    "hospital_contacts": {"graph.npz": "44dc6d4d999738feeba7bc43e70c685faa77235209ee342bfd0fe56e8330eef9",
                          "meta.json": "71b1c9bdb10848e0c7c29149e20c8a09cbb53249a4cef973322b477b6d66c456"},
    "terrorists_911": {"graph.npz": "04ad5749d0e208baab3e1c66c0b5fc56816feefb34f679d50acdd155cac7b66e",
                       "meta.json": "0ba334a0b2bc53e41e95e2c1d4e18593e2e2cba0838db5d9d93076c70b134ba8"},
    "london_transport": {"graph.npz": "aea5a90a2b3238d952286fdde4ce180b52562995d5a8fc91de5e2d6af1fdae5d",
                         "meta.json": "0efee89720a51d39ecf65abd09213fa4132ab19a63d653a5239ad8e6dc241fa6"},
}
OFFLINE = ("random_tsp", "karate")


def _fetch_catalogue(tasks, data_root: Path) -> dict:
    from netzbench.catalog.data import fetch_task

    params = make_params(tasks=list(tasks), train={"epochs": {t: 3 for t in tasks}})
    hashes = {}
    for t in tasks:
        fetch_task(t, as_settings(params), data_root)
        hashes[t] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((data_root / t).iterdir())
                     if p.name != CARD}  # the card describes the data: its own test is tests/test_cards.py
    return hashes


def test_catalogue_fetch_bytes_are_unchanged_offline(tmp_path):
    assert _fetch_catalogue(OFFLINE, tmp_path) == {t: CATALOGUE[t] for t in OFFLINE}


def test_catalogue_fetch_bytes_are_unchanged_from_the_mirror(tmp_path, mirror, monkeypatch):
    monkeypatch.setenv("NETZBENCH_MIRROR", str(mirror))
    tasks = [t for t in CATALOGUE if t not in OFFLINE]
    assert _fetch_catalogue(tasks, tmp_path) == {t: CATALOGUE[t] for t in tasks}


# ------------------------------------------------------------------------- the mirror, declared

MIRRORED = {  # task -> (mirror folder, entry, the catalogue task with the same processed bytes or None)
    "my_euroroad": ("euroroad", {"format": "gml", "family": "link_pred"}, "euroroad"),
    "my_train": ("train_terrorists", {"family": "link_pred"}, "train_terrorists"),
    "my_hospital": ("hospital_contacts", {"family": "link_pred"}, "hospital_contacts"),
    "my_911": ("terrorists_911", {"format": "ucinet", "family": "link_pred"}, "terrorists_911"),
    "my_london": ("london_transport", {"family": "link_pred"}, "london_transport"),
    "my_cora": ("cora", {"format": "planetoid", "family": "node_cls"}, "cora"),
    "my_mutag": ("mutag", {"family": "graph_cls"}, None),
    "my_proteins": ("proteins", {"format": "tu", "family": "graph_cls"}, None),
    "my_wn18rr": ("wordnet18rr", {"format": "triples", "family": "link_pred"}, None),
    "my_dnc": ("dnc_emails", {"format": "konect", "family": "link_pred"}, None),
}


def test_the_mirror_s_formats_declared_as_custom_tasks(tmp_path, mirror, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NETZBENCH_MIRROR", str(mirror))
    (tmp_path / "raw").mkdir()
    tasks = {}
    for tid, (folder, entry, _) in MIRRORED.items():
        os.symlink(mirror / folder, tmp_path / "raw" / folder)  # the mirror is read-only; so is raw input
        tasks[tid] = {**entry, "path": f"raw/{folder}"}
    _project(tmp_path, tasks)
    r = CliRunner()
    try:
        for tid in MIRRORED:
            out = r.invoke(main, ["fetch", tid])
            assert out.exit_code == 0, (tid, out.output)
        same = [c for _, _, c in MIRRORED.values() if c]
        _fetch_catalogue(same, tmp_path / "catalogue")
        for tid, (_, _, twin) in MIRRORED.items():
            if twin:
                assert (tmp_path / "data" / tid / "graph.npz").read_bytes() == \
                    (tmp_path / "catalogue" / twin / "graph.npz").read_bytes(), tid
        meta = {t: json.loads((tmp_path / "data" / t / "meta.json").read_text()) for t in MIRRORED}
        assert meta["my_wn18rr"]["counts"]["num_nodes"] == 40943 and meta["my_wn18rr"]["counts"]["num_relations"] == 11
        assert meta["my_wn18rr"]["relational"] is True and meta["my_wn18rr"]["counts"]["num_train_triples"] == 86835
        assert meta["my_mutag"]["format"] == "tu" and meta["my_mutag"]["counts"]["num_graphs"] == 188
        assert meta["my_proteins"]["counts"]["num_graphs"] == 1113
        assert meta["my_train"]["format"] == "konect" and meta["my_dnc"]["dropped"]["timestamps"] is True
        # MUTAG read without PyG gives the arrays PyG's TUDataset gives the catalogue
        _fetch_catalogue(["mutag"], tmp_path / "catalogue")
        with np.load(tmp_path / "data/my_mutag/graph.npz") as mine, np.load(tmp_path / "catalogue/mutag/graph.npz") as cat:
            for key in ("x", "edge_index", "y", "node_ptr", "edge_ptr"):
                assert np.array_equal(mine[key], cat[key]), key
        out = r.invoke(main, ["train", "my_mutag", "GCN"])
        assert out.exit_code == 0, out.output
    finally:
        _forget(MIRRORED)


def test_the_python_api_takes_pyg_s_tudataset_without_node_labels(loader_project):
    from torch_geometric.datasets import TUDataset

    from netzbench.catalog.data import write_loader_task

    root = loader_project
    meta = write_loader_task(root / "api" / "plain", "plain", "graph_cls",
                             lambda r: TUDataset(str(root / "tu_root"), "PLAIN"), root=root)
    assert meta["counts"]["num_graphs"] == 24 and meta["counts"]["num_features"] == 2
