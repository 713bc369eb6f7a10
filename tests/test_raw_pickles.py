"""Pickled raw data never runs code at fetch (issue 24).

Planetoid's ``ind.<name>.*`` and ZINC's ``*.pickle`` are pickles, and PyG's
``.pt`` raw files are torch pickles. Each attack here plants a file whose
unpickling would write a marker file (the payload is checked to really run
under a plain ``pickle.load``); the fetch must stop with an error naming the
file (and the refused global or the checksum), and the marker must never
appear. The real mirror's files still load through the restricted unpickler
to the same objects and counts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import raw_fixtures as rf
from helpers import as_settings, make_params
from netzbench.catalog import custom, fetch, loaders
from netzbench.catalog.data import fetch_task
from netzbench.catalog.readers import pyg_misc, safe_pickle
from netzbench.catalog.readers.safe_pickle import UnsafePickle
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.cli import main

torch = pytest.importorskip("torch")

SUFFIXES = ("x", "tx", "allx", "y", "ty", "ally", "graph")


class Payload:
    """Unpickling this writes ``marker``: the attacker's code, as a pickle's ``__reduce__`` runs it."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('pwned')",)


def _evil(path: Path, marker: Path, protocol: int = 2) -> None:
    path.write_bytes(pickle.dumps(Payload(marker), protocol=protocol))


def test_the_payload_runs_under_a_plain_unpickle(tmp_path):
    """The attack files of these tests are real: a plain ``pickle.load`` runs their code."""
    marker = tmp_path / "ran"
    _evil(tmp_path / "evil.pickle", marker)
    with open(tmp_path / "evil.pickle", "rb") as fh:
        pickle.load(fh, encoding="latin1")
    assert marker.read_text() == "pwned"


# ------------------------------------------------------------------ a custom_tasks Planetoid folder


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A repository whose params.yaml declares ``evil``: a folder of ``ind.fixcite.*`` files, format guessed."""
    monkeypatch.chdir(tmp_path)
    rf.write_planetoid(tmp_path / "raw" / "evil")
    params = {"tasks": ["evil"], "models": ["GCN"], "seeds": [0],
              "custom_tasks": {"evil": {"path": "raw/evil", "family": "node_cls"}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    yield tmp_path
    for table in (TASKS, DATASETS, custom._REGISTERED):
        table.pop("evil", None)


@pytest.mark.parametrize("suffix", ["x", "ally", "graph"])
def test_an_evil_planetoid_folder_is_refused_and_runs_nothing(project, suffix):
    marker = project / "marker"
    target = project / "raw" / "evil" / f"ind.fixcite.{suffix}"
    _evil(target, marker)
    out = CliRunner().invoke(main, ["fetch", "evil"])
    assert out.exit_code != 0, out.output
    assert "Traceback" not in out.output
    assert f"ind.fixcite.{suffix}" in out.output and "__builtin__.exec" in out.output, out.output
    assert "refused" in out.output
    assert not marker.exists()
    assert not (project / "data" / "evil").exists()


def test_the_clean_planetoid_folder_still_fetches(project):
    out = CliRunner().invoke(main, ["fetch", "evil"])
    assert out.exit_code == 0, out.output
    meta = json.loads((project / "data" / "evil" / "meta.json").read_text())
    assert meta["format"] == "planetoid" and meta["counts"]["num_nodes"] == 572


# ------------------------------------------------------------------------ the catalogue's PubMed


@pytest.fixture
def pubmed_mirror(tmp_path, mirror, monkeypatch) -> Path:
    """A writable copy of the mirror's pubmed/ (its seven real files) with an evil ``ind.pubmed.allx``."""
    root = tmp_path / "mirror"
    shutil.copytree(mirror / "pubmed", root / "pubmed")
    monkeypatch.setenv("NETZBENCH_MIRROR", str(root))
    _evil(root / "pubmed" / "raw" / "ind.pubmed.allx", tmp_path / "marker")
    return root


def test_an_evil_pubmed_allx_fails_its_checksum_and_runs_nothing(pubmed_mirror, tmp_path):
    with pytest.raises(fetch.ChecksumMismatch, match=r"ind\.pubmed\.allx .*expected sha256 508e538e") as exc:
        fetch_task("pubmed", as_settings(make_params(data={"on_missing": "fail"})), tmp_path / "data")
    assert exc.value.actual == fetch.sha256_file(pubmed_mirror / "pubmed" / "raw" / "ind.pubmed.allx")
    assert not (tmp_path / "marker").exists() and not (tmp_path / "data" / "pubmed").exists()


def test_without_its_checksum_the_evil_allx_meets_the_restricted_unpickler(pubmed_mirror, tmp_path, monkeypatch):
    ds = DATASETS["pubmed"]
    src = ds.sources[0]
    monkeypatch.setitem(DATASETS, "pubmed", dataclasses.replace(ds, sources=(dataclasses.replace(
        src, files=tuple(dataclasses.replace(f, git_blob=None, sha256=None) if f.name == "ind.pubmed.allx" else f
                         for f in src.files)),)))
    with pytest.raises(UnsafePickle, match=r"ind\.pubmed\.allx: refused to unpickle the global __builtin__\.exec"):
        fetch_task("pubmed", as_settings(make_params(data={"on_missing": "fail"})), tmp_path / "data")
    assert not (tmp_path / "marker").exists()


def test_every_unpickled_catalogue_file_has_a_checksum_from_the_canonical_files(mirror):
    """Planetoid pickles carry a sha256 -- the mirror's bytes, whose git blob is the manifest's
    (kimiyoung/planetoid's tree); PubMed's allx (not in the mirror) the sha256 of MANIFEST.md's Git LFS
    pointer and the manifest's git blob."""
    manifest = json.loads((mirror / "manifest.json").read_text())
    blobs = {(d["id"], f["file"]): f["git_blob_sha1"] for d in manifest["datasets"] for f in d["files"]}
    checked = 0
    for ds in DATASETS.values():
        for source in ds.sources:
            if source.format != "planetoid":
                continue
            for rf_ in source.files:
                assert rf_.sha256, (ds.id, rf_.name)
                path = mirror / (ds.mirror or ds.id) / rf_.mirror_path
                if not rf_.git_blob:
                    assert fetch.sha256_file(path) == rf_.sha256, (ds.id, rf_.name)
                    assert fetch.git_blob_sha1(path) == blobs[(ds.id, rf_.mirror_path)], (ds.id, rf_.name)
                    checked += 1
                else:
                    assert not path.exists()
                    pubmed = next(d for d in manifest["datasets"] if d["id"] == ds.id)
                    assert re.search(rf"MISSING {rf_.name}: expected git blob SHA-1 {rf_.git_blob}", pubmed["identical"])
                    assert f"`{rf_.sha256}`" in (mirror / "MANIFEST.md").read_text()  # the LFS pointer's sha256
    assert checked == 8 + 8 + 7


def test_git_blob_sha1_is_git_s_and_a_download_checks_it(tmp_path):
    src = tmp_path / "ind.x.allx"
    src.write_bytes(b"planetoid bytes\n")
    if shutil.which("git"):
        want = subprocess.run(["git", "hash-object", str(src)], capture_output=True, text=True, check=True).stdout.strip()
        assert fetch.git_blob_sha1(src) == want
    blob = fetch.git_blob_sha1(src)
    good = tmp_path / "good" / "ind.x.allx"
    assert fetch.download(src.as_uri(), good, git_blob=blob) == hashlib.sha256(src.read_bytes()).hexdigest()
    assert good.read_bytes() == src.read_bytes()
    with pytest.raises(fetch.ChecksumMismatch, match="git blob SHA-1"):
        fetch.download(src.as_uri(), tmp_path / "bad" / "ind.x.allx", git_blob="0" * 40)
    assert not (tmp_path / "bad" / "ind.x.allx").exists()


# -------------------------------------------------------------------------------- ZINC and .pt


@pytest.fixture
def fake_mirror(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "mirror"
    monkeypatch.setenv("NETZBENCH_MIRROR", str(root))
    return root


def _zinc_mols(n: int, seed: int) -> list[dict]:
    g = torch.Generator().manual_seed(seed)
    mols = []
    for _ in range(n):
        k = int(torch.randint(1, 9, (1,), generator=g))
        adj = torch.triu((torch.rand(k, k, generator=g) < 0.4).long() * torch.randint(1, 4, (k, k), generator=g), 1)
        mols.append({"num_atom": k, "atom_type": torch.randint(0, 28, (k,), generator=g), "bond_type": adj + adj.t(),
                     "logP_SA_cycle_normalized": torch.randn(1, generator=g)})
    return mols


def _write_zinc(raw: Path, protocol: int = pickle.DEFAULT_PROTOCOL) -> dict:
    raw.mkdir(parents=True, exist_ok=True)
    mols = {}
    for seed, (split, n) in enumerate((("train", 12), ("val", 5), ("test", 5))):
        mols[split] = _zinc_mols(n, seed)
        (raw / f"{split}.pickle").write_bytes(pickle.dumps(mols[split], protocol=protocol))
        (raw / f"{split}.index").write_text(",".join(str(i) for i in range(n - 1, 0, -2)) + "\n")
    return mols


def test_an_evil_zinc_pickle_is_refused_and_runs_nothing(fake_mirror, tmp_path):
    raw = fake_mirror / "zinc" / "raw"
    _write_zinc(raw)
    _evil(raw / "val.pickle", tmp_path / "marker", protocol=4)
    with pytest.raises(UnsafePickle, match=r"val\.pickle: refused to unpickle the global builtins\.exec"):
        fetch_task("zinc", as_settings(make_params(data={"on_missing": "fail"})), tmp_path / "data")
    assert not (tmp_path / "marker").exists()


def test_an_evil_raw_pt_is_refused_even_where_pyg_would_retry_it_unrestricted(fake_mirror, tmp_path, monkeypatch):
    """PyG's ``fs.torch_load`` retries a refused file with ``weights_only=False``; inside netzbench's
    processors that retry is refused too, even when the user's environment forces full loads."""
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    raw = fake_mirror / "mnist_superpixels" / "raw"
    raw.mkdir(parents=True)
    torch.save([Payload(tmp_path / "marker")], raw / "MNISTSuperpixels.pt")
    with pytest.warns(UserWarning, match="Weights only load failed"):  # PyG's own, before it retries
        with pytest.raises(UnsafePickle, match=r"^MNISTSuperpixels raw file MNISTSuperpixels\.pt: refused to "
                                                r"unpickle the global exec"):
            fetch_task("mnist_superpixels", as_settings(make_params(data={"on_missing": "fail"})), tmp_path / "data")
    assert not (tmp_path / "marker").exists()
    assert os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD") == "1"  # the user's setting is back
    assert "TORCH_FORCE_WEIGHTS_ONLY_LOAD" not in os.environ


@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL])
def test_zinc_pickles_of_tensors_load_restricted_to_what_pyg_reads(tmp_path, protocol):
    """The restricted load equals a plain one, and the processor gives the arrays PyG's ``ZINC`` class gave
    (the processor before the restricted reader; PyG unpickles only these fixture files, written here)."""
    from torch_geometric.datasets import ZINC

    from netzbench.catalog.readers.staging import offline, pyg_graphs

    raw = tmp_path / "raw"
    mols = _write_zinc(raw, protocol)
    restricted = safe_pickle.load(raw / "train.pickle", "tensors")
    assert len(restricted) == len(mols["train"])
    for mine, theirs in zip(restricted, mols["train"]):
        assert mine.keys() == theirs.keys() and mine["num_atom"] == theirs["num_atom"]
        for key in ("atom_type", "bond_type", "logP_SA_cycle_normalized"):
            assert mine[key].dtype == theirs[key].dtype and torch.equal(mine[key], theirs[key]), key
    arrays, counts = pyg_misc.zinc(raw)
    xs, eis, ys, split = [], [], [], []
    for split_id, name in enumerate(("train", "val", "test")):
        for g in pyg_graphs(offline(ZINC)(str(tmp_path), subset=True, split=name)):
            atom = g.x.numpy().reshape(-1)
            x = np.zeros((len(atom), pyg_misc.ZINC_ATOM_TYPES), dtype=np.float32)
            x[np.arange(len(atom)), atom] = 1.0
            xs.append(x)
            eis.append(g.edge_index.numpy())
            ys.append(g.y.numpy().reshape(-1)[:1])
            split.append(split_id)
    before, before_counts = pyg_misc.collection(xs, eis, ys, split, regression=True)
    assert counts == before_counts and counts["num_graphs"] == 6 + 2 + 2
    assert arrays.keys() == before.keys()
    for key in arrays:
        assert arrays[key].dtype == before[key].dtype and np.array_equal(arrays[key], before[key]), key


# ----------------------------------------------------------------------------- the unpickler itself


def test_a_persistent_id_and_an_unlisted_numpy_global_are_refused(tmp_path):
    class WithPid(pickle.Pickler):
        def persistent_id(self, obj):
            return "storage" if isinstance(obj, str) else None

    path = tmp_path / "ind.p.x"
    with open(path, "wb") as fh:
        WithPid(fh, protocol=2).dump(["a"])
    with pytest.raises(UnsafePickle, match=r"ind\.p\.x: refused to unpickle a persistent id \('storage'\)"):
        safe_pickle.load_planetoid(path)
    path.write_bytes(pickle.dumps(np.float64(1.5), protocol=2))  # numpy's scalar(): not in Planetoid files
    with pytest.raises(UnsafePickle, match=r"numpy\._core\.multiarray\.scalar"):
        safe_pickle.load_planetoid(path)
    # the tensor allow-list is not the Planetoid one, and the other way round
    path.write_bytes(pickle.dumps({"t": torch.zeros(2)}))
    with pytest.raises(UnsafePickle, match=r"torch\._utils\._rebuild_tensor_v2 .*numpy arrays, scipy sparse"):
        safe_pickle.load_planetoid(path)


def _plain(path: Path):
    with open(path, "rb") as fh, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # scipy's old module path, as the files name it
        return pickle.load(fh, encoding="latin1")


@pytest.mark.parametrize("dataset", ["cora", "citeseer", "pubmed"])
def test_the_mirror_s_planetoid_pickles_load_restricted_to_the_same_objects(mirror, dataset):
    """Each real ``ind.<name>.*`` pickle in the mirror (Python 2, scipy's old module paths) reads through
    the allow-list to what a plain unpickle gives (the mirror's own files are trusted for the comparison)."""
    seen = 0
    for suffix in SUFFIXES:
        path = mirror / dataset / "raw" / f"ind.{dataset}.{suffix}"
        if not path.exists():  # pubmed's allx is not in the mirror
            continue
        mine, plain = safe_pickle.load_planetoid(path), _plain(path)
        assert type(mine) is type(plain), suffix
        if suffix == "graph":
            assert mine == plain and list(mine) == list(plain)
        elif hasattr(plain, "todense"):
            assert mine.shape == plain.shape and mine.dtype == plain.dtype and (mine != plain).nnz == 0
        else:
            assert mine.dtype == plain.dtype and np.array_equal(mine, plain)
        seen += 1
    assert seen == (6 if dataset == "pubmed" else 7)


@pytest.mark.parametrize("dataset,nodes,pairs,features,classes,dropped", [
    ("cora", 2708, 5278, 1433, 7, {"duplicate_edges": 302, "self_loops": 0, "weights": False}),
    ("citeseer", 3327, 4552, 3703, 6, {"duplicate_edges": 112, "self_loops": 248, "weights": False}),
])
def test_the_mirror_s_planetoid_processes_to_the_published_counts(mirror, dataset, nodes, pairs, features, classes,
                                                                  dropped):
    """The counts and drops the processor gave before the restricted reader (the published meta.json's)."""
    arrays, counts, found = loaders.planetoid(mirror / dataset / "raw")
    assert counts == {"num_nodes": nodes, "num_edges": pairs, "num_features": features, "num_classes": classes}
    assert arrays["x"].shape == (nodes, features) and int(arrays["train_mask"].sum()) == classes * 20
    assert found == {k: v for k, v in dropped.items() if k != "weights"}  # meta.json adds weights: False
