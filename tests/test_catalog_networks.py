"""Network datasets for link prediction: raw-format readers, catalogue entries, fetch end to end.

Real data: the shared mirror (``NETZBENCH_MIRROR``); those tests skip without it.
Formats the mirror lacks (the Netzschleuder ``<net>.csv.zip``, SNAP edge lists,
KONECT tarballs) are exercised with small fixtures in their real layout, served
through the real fetch code (mirror folder or a stubbed ``download``).
"""

from __future__ import annotations

import ast
import gzip
import io
import json
import os
import shutil
import tarfile
import urllib.error
import zipfile
from pathlib import Path

import numpy as np
import pytest

import netzbench.params as P
from netzbench.catalog import fetch
from netzbench.graphs.layout import load_arrays
from netzbench.catalog.data import fetch_task
from netzbench.graphs.edges import undirected_pairs
from netzbench.catalog.readers import edge_records, gml, network_formats as F, streaming
from netzbench.catalog.readers import networks as N
from netzbench.catalog.table import DATASETS, TASKS
from helpers import as_settings

ENTRIES = Path(__file__).resolve().parents[1] / "src/netzbench/catalog/entries/networks.py"

PAPER_IDS = {
    "biology": ["celegans", "budapest_connectome", "hospital_contacts", "high_school_contacts"],
    "social": ["facebook_friends", "dblp_coauthor", "dnc_emails"],
    "knowledge": ["wordnet"],
    "infrastructure": ["power_grid", "euroroad", "us_roads", "eu_airlines", "london_transport", "urban_streets"],
    "finance": ["product_space", "board_directors", "us_patents"],
    "computing": ["internet_as", "internet_topology", "as_skitter", "route_views"],
    "security": ["terrorists_911", "train_terrorists"],
}


# ----------------------------------------------------------------------------- helpers


def _params() -> dict:
    return P.merge(P.DEFAULTS, {})


def _fetch(task: str, tmp_path: Path, monkeypatch, root: str = "data") -> tuple[dict, dict, Path]:
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    meta = fetch_task(task, as_settings(_params()), data_root=tmp_path / root)
    assert meta["status"] == "ok", meta
    npz = tmp_path / root / task / "graph.npz"
    return meta, load_arrays(npz), npz


def _check_layout(arrays: dict, counts: dict) -> None:
    """The processed single-graph link-prediction layout, as every network here writes it."""
    ei, n = arrays["edge_index"], int(arrays["num_nodes"])
    assert "x" not in arrays  # structural features at training time
    assert ei.dtype == np.int64 and ei.shape == (2, counts["num_edges"])
    assert n == counts["num_nodes"]
    assert np.array_equal(undirected_pairs(ei), ei)  # unique pairs i < j, sorted, no self-loops
    assert ei.max() < n
    assert (np.bincount(ei.ravel(), minlength=n) > 0).all()  # no isolated nodes


@pytest.fixture
def mirror(monkeypatch) -> Path:
    value = os.environ.get("NETZBENCH_MIRROR")
    if not value:
        pytest.skip("NETZBENCH_MIRROR is not set: the real-data tests need the dataset mirror")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"NETZBENCH_MIRROR={value} is not a directory")
    return path


def _manifest_stats(mirror: Path, dataset: str) -> dict:
    manifest = json.loads((mirror / "manifest.json").read_text(encoding="utf-8"))
    return next(d["stats"] for d in manifest["datasets"] if d["id"] == dataset)


@pytest.fixture
def offline(monkeypatch):
    """No mirror; ``download`` serves registered fixture files and refuses every other URL."""
    monkeypatch.delenv("NETZBENCH_MIRROR", raising=False)
    served: dict[str, Path] = {}
    calls: list[str] = []

    def download(url, dst, expected=None, timeout=60.0, sidecar=None, git_blob=None):
        calls.append(url)
        if url not in served:
            raise urllib.error.URLError(f"offline test, not served: {url}")
        shutil.copyfile(served[url], dst)
        actual = fetch.sha256_file(dst)
        if expected and actual != expected:
            raise fetch.ChecksumMismatch(Path(dst).name, expected, actual, url)
        return actual

    monkeypatch.setattr(fetch, "download", download)
    return served, calls


# ----------------------------------------------------------------------------- catalogue


def test_catalogue_entries():
    for category, ids in PAPER_IDS.items():
        for ds_id in ids:
            ds, task = DATASETS[ds_id], TASKS[ds_id]
            assert ds.category == category and ds.families == ("link_pred",) and ds.in_paper
            assert task.family == "link_pred" and task.split == "random_edge_80_10_10"
            assert 40 <= task.epochs <= 120
            assert ds.processor_ref.startswith("netzbench.catalog.readers.networks:link_pred")
            assert ds.sources and ds.license and ds.citation and ds.description
            netz = [i for i, s in enumerate(ds.sources) if s.format == "netzschleuder-csv"]
            assert netz in ([], [0])  # Netzschleuder first where it hosts the network
            for s in ds.sources:
                assert s.files and s.format in {
                    "netzschleuder-csv", "gml", "konect", "ucinet-csv-matrix", "multiplex-edges",
                    "sociopatterns-tij", "edgelist"}
    headline = {"euroroad": 80, "board_directors": 40, "internet_as": 40, "terrorists_911": 120}
    assert {t: TASKS[t].epochs for t in headline} == headline
    assert TASKS["karate_link_pred"].dataset == "karate" and TASKS["karate_link_pred"].family == "link_pred"


def test_entries_module_is_import_light():
    tree = ast.parse(ENTRIES.read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name.split(".")[0] for n in top if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "").split(".")[0] for n in top if isinstance(n, ast.ImportFrom)}
    assert not names & {"torch", "torch_geometric", "networkx", "numpy"}


# ----------------------------------------------------------------------------- real mirror data

# task -> manifest-derived expectations; comments say why a processed count differs
MIRROR_EXPECTED = {
    # directed multigraph: 2,359 records (manifest "edges"), 2,345 distinct directed pairs,
    # 2,148 neuron pairs once directions are merged
    "celegans": lambda s: dict(num_nodes=s["nodes"], num_edge_records=s["edges"], num_edges=2148,
                               num_directed_edges=2345),
    "hospital_contacts": lambda s: dict(num_nodes=s["nodes"], num_edges=s["distinct_pairs"],
                                        num_edge_records=s["contact_records"]),
    "high_school_contacts": lambda s: dict(num_nodes=s["nodes"], num_edges=s["distinct_pairs"],
                                           num_edge_records=s["contact_records"]),
    # 14 of the 362 declared profiles were friends of the removed ego only: isolated, dropped
    "facebook_friends": lambda s: dict(num_declared_nodes=s["nodes"], num_nodes=s["nodes"] - 14,
                                       num_edges=s["edges"]),
    # 39,264 timestamped emails; 25 of the 1,891 ids occur only in self-addressed mail (self-loops,
    # dropped); 5,517 sender->recipient pairs, 4,384 unordered pairs
    "dnc_emails": lambda s: dict(num_edge_records=s["edge_lines"], num_nodes=s["distinct_nodes"] - 25,
                                 num_edges=4384, num_directed_edges=5517),
    "power_grid": lambda s: dict(num_nodes=s["power_gml"]["nodes"], num_edges=s["power_gml"]["edges"]),
    "euroroad": lambda s: dict(num_nodes=s["nodes"], num_edges=s["edges"]),
    # 3,588 airline routes over 37 layers; the same airport pair served by several airlines is one edge
    "eu_airlines": lambda s: dict(num_nodes=s["nodes_in_edges"], num_edge_records=s["edge_lines"],
                                  num_edges=2953),
    # 441 layer links; 11 station pairs are linked in two layers
    "london_transport": lambda s: dict(num_nodes=s["nodes_in_edges"], num_edge_records=s["edge_lines"],
                                       num_edges=430),
    "internet_as": lambda s: dict(num_nodes=s["nodes"], num_edges=s["edges"]),
    # asymmetric 0/1 matrix symmetrised, one self-loop and the blank cell dropped
    "terrorists_911": lambda s: dict(num_nodes=s["matrix_shape"][0], num_edges=s["undirected_edges"]),
    "train_terrorists": lambda s: dict(num_nodes=s["distinct_nodes"], num_edges=s["edge_lines"]),
}


@pytest.mark.mirror
@pytest.mark.parametrize("task", sorted(MIRROR_EXPECTED))
def test_mirror_counts_and_determinism(task, mirror, tmp_path, monkeypatch):
    meta, arrays, npz = _fetch(task, tmp_path, monkeypatch, "a")
    counts = meta["counts"]
    expected = MIRROR_EXPECTED[task](_manifest_stats(mirror, DATASETS[task].mirror or task))
    assert {k: counts.get(k) for k in expected} == expected
    _check_layout(arrays, counts)
    raw = set(meta["raw_sha256"])
    assert any(raw == {f.name for f in s.files} for s in DATASETS[task].sources if s.format == meta["format"])
    # same raw bytes -> byte-identical processed data
    _, _, npz2 = _fetch(task, tmp_path, monkeypatch, "b")
    assert npz.read_bytes() == npz2.read_bytes()


@pytest.mark.mirror
def test_board_directors_from_the_original_files(mirror, tmp_path, monkeypatch):
    """The mirror has the original edge list (every edge listed both ways), not Netzschleuder's csv.zip:
    the second source is used, and the graph has Netzschleuder's counts (MANIFEST.md)."""
    meta, arrays, npz = _fetch("board_directors", tmp_path, monkeypatch, "a")
    assert meta["counts"] == {"num_edge_records": 7710, "num_nodes": 1421, "num_edges": 3855}
    assert meta["dropped"]["self_loops"] == 0
    assert set(meta["raw_sha256"]) == {"net1m_2011-08-01.txt"}
    assert meta["raw_sha256"]["net1m_2011-08-01.txt"] == DATASETS["board_directors"].sources[1].files[0].sha256
    _check_layout(arrays, meta["counts"])
    _, _, npz2 = _fetch("board_directors", tmp_path, monkeypatch, "b")
    assert npz.read_bytes() == npz2.read_bytes()


@pytest.mark.mirror
def test_mirror_alternative_gml_exports_agree(mirror):
    # Newman's power.gml and Netzschleuder's GML export: the same graph, same numbering
    a, _ = N.simple_bundle(gml.read_gml(mirror / "power_grid/power.gml"), False)
    b, _ = N.simple_bundle(gml.read_gml(mirror / "power_grid/us_power_grid.gml"), False)
    assert np.array_equal(a["edge_index"], b["edge_index"])
    # facebook: Netzschleuder export vs upstream original: the same graph, renumbered
    a, ca = N.simple_bundle(gml.read_gml(mirror / "facebook_friends/Facebook_fiends.gml"), False)
    b, cb = N.simple_bundle(gml.read_gml(mirror / "facebook_friends/bfmaier_anonymized_fb_network.gml"), False)
    assert ca == cb
    assert sorted(np.bincount(a["edge_index"].ravel())) == sorted(np.bincount(b["edge_index"].ravel()))
    # the train edge file read as KONECT and as a plain edge list
    k, _ = N.simple_bundle(F.read_konect(mirror / "train_terrorists/train-data.txt"), False)
    e, _ = N.simple_bundle(F.read_edgelist(mirror / "train_terrorists/train-data.txt"), False)
    assert np.array_equal(k["edge_index"], e["edge_index"])


# ----------------------------------------------------------------------------- Netzschleuder zip

_NETZ_NODES = (
    "# index, name, _pos\n"
    '0,Zürich,"array([0.1, 0.2])"\n'
    '1,Genève,"array([0.3, 0.4])"\n'
    '2,"Basel, BS","array([0.5, 0.6])"\n'
    + "".join(f'{i},n{i},"array([0.0, {i}.0])"\n' for i in range(3, 10))
)
# 10 vertices, vertex 9 isolated; a self-loop (4,4); 3-1 repeats 1-3 (multigraph / other direction)
_NETZ_EDGES = [(0, 1), (1, 2), (2, 0), (1, 3), (3, 1), (4, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 3)]
_NETZ_PAIRS = [(0, 1), (0, 2), (1, 2), (1, 3), (3, 8), (4, 5), (5, 6), (6, 7), (7, 8)]


def _netz_edges_csv(with_text_props: bool) -> str:
    if with_text_props:
        rows = [f'{s},{t},{i * 1.5},"layer, {i % 2}"' for i, (s, t) in enumerate(_NETZ_EDGES)]
        return "# source, target, weight, layer\n" + "\n".join(rows) + "\n"
    return "# source, target, time\n" + "".join(f"{s},{t},{100 + i}\n" for i, (s, t) in enumerate(_NETZ_EDGES))


def _netz_zip(path: Path, with_text_props: bool) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("edges.csv", _netz_edges_csv(with_text_props))
        zf.writestr("nodes.csv", _NETZ_NODES)
        zf.writestr("gprops.csv", "# prop_name, value\nname, fixture\n")
    return path


def _expected_pairs() -> np.ndarray:
    # vertex 9 has no edge: indices 0..8 keep their numbers
    return np.asarray(_NETZ_PAIRS, dtype=np.int64).T


def test_netzschleuder_zip_download(offline, tmp_path, monkeypatch):
    served, calls = offline
    url = DATASETS["board_directors"].sources[0].url
    served[url] = _netz_zip(tmp_path / "fixture.csv.zip", with_text_props=True)
    meta, arrays, npz = _fetch("board_directors", tmp_path, monkeypatch, "a")
    assert calls == [url] and meta["format"] == "netzschleuder-csv"
    assert np.array_equal(arrays["edge_index"], _expected_pairs())
    assert meta["counts"] == {"num_nodes": 9, "num_edges": 9, "num_edge_records": 11, "num_declared_nodes": 10}
    _check_layout(arrays, meta["counts"])
    _, _, npz2 = _fetch("board_directors", tmp_path, monkeypatch, "b")  # from the verified cache
    assert npz.read_bytes() == npz2.read_bytes()


def test_netzschleuder_members_in_mirror(tmp_path, monkeypatch):
    folder = tmp_path / "mirror" / "urban_streets" / "netzschleuder"
    folder.mkdir(parents=True)
    (folder / "edges.csv").write_text(_netz_edges_csv(with_text_props=False), encoding="utf-8")
    (folder / "nodes.csv").write_text(_NETZ_NODES, encoding="utf-8")
    monkeypatch.setenv("NETZBENCH_MIRROR", str(tmp_path / "mirror"))
    meta, arrays, _ = _fetch("urban_streets", tmp_path, monkeypatch)
    assert np.array_equal(arrays["edge_index"], _expected_pairs())
    assert meta["counts"]["num_declared_nodes"] == 10


def test_netzschleuder_fast_and_csv_paths_agree(tmp_path):
    for with_text in (False, True):
        d = tmp_path / str(with_text)
        d.mkdir()
        (d / "edges.csv").write_text(_netz_edges_csv(with_text), encoding="utf-8")
        (d / "nodes.csv").write_text(_NETZ_NODES, encoding="utf-8")
        for chunk in (None, 24):  # tiny chunks: the fast path must survive chunk boundaries
            rec = F.read_netzschleuder_csv(d / "edges.csv", d / "nodes.csv", chunk_bytes=chunk)
            assert rec.directed is None and rec.declared_nodes == 10
            assert list(zip(rec.src.tolist(), rec.dst.tolist())) == _NETZ_EDGES
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "edges.csv").write_text("# source, target\n0,12\n", encoding="utf-8")
    (bad / "nodes.csv").write_text(_NETZ_NODES, encoding="utf-8")
    with pytest.raises(ValueError, match="outside"):
        F.read_netzschleuder_csv(bad / "edges.csv", bad / "nodes.csv")
    (bad / "edges.csv").write_text("source,target\n0,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="header"):
        F.read_netzschleuder_csv(bad / "edges.csv")


# ----------------------------------------------------------------------------- SNAP / KONECT archives


def test_snap_edgelist_streamed(offline, tmp_path, monkeypatch):
    served, _ = offline
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 400, size=(3000, 2)) * 7 + 10  # sparse, unordered ids with repeats and loops
    text = "# Undirected graph: fixture\n# FromNodeId\tToNodeId\n" + "".join(f"{a}\t{b}\n" for a, b in raw)
    gz = tmp_path / "as-skitter.txt.gz"
    gz.write_bytes(gzip.compress(text.encode(), mtime=0))
    served["https://snap.stanford.edu/data/as-skitter.txt.gz"] = gz
    monkeypatch.setattr(streaming, "CHUNK_BYTES", 100)  # many chunk boundaries
    meta, arrays, _ = _fetch("as_skitter", tmp_path, monkeypatch)
    ids = np.unique(raw[raw[:, 0] != raw[:, 1]])
    expect = undirected_pairs(np.searchsorted(ids, raw.T))  # ids renumbered in increasing order
    assert np.array_equal(arrays["edge_index"], expect)
    assert meta["counts"]["num_nodes"] == ids.size and meta["counts"]["num_edge_records"] == 3000


def _tar(path: Path, members: dict[str, str]) -> Path:
    with tarfile.open(path, "w:bz2" if path.suffix == ".bz2" else "w:gz") as tf:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def test_konect_tarball_after_netzschleuder_fails(offline, tmp_path, monkeypatch):
    served, calls = offline
    out = "% sym positive\n% 6 4 4\n1 2 1 1000\n2 3 1 1001\n2 1 1 1002\n3 4 1 1003\n4 4 1 1004\n1 3 2 1005\n"
    url = "http://konect.cc/files/download.tsv.dblp_coauthor.tar.bz2"
    served[url] = _tar(tmp_path / "konect.tar.bz2", {
        "dblp_coauthor/out.dblp_coauthor": out,
        "dblp_coauthor/meta.dblp_coauthor": "name: fixture\n",
    })
    meta, arrays, _ = _fetch("dblp_coauthor", tmp_path, monkeypatch)
    assert calls == [DATASETS["dblp_coauthor"].sources[0].url, url]  # Netzschleuder tried first
    assert meta["format"] == "konect"
    assert arrays["edge_index"].tolist() == [[0, 0, 1, 2], [1, 2, 2, 3]]
    assert meta["counts"] == {"num_nodes": 4, "num_edges": 4, "num_edge_records": 6, "num_declared_nodes": 4}


def test_snap_tar_member(offline, tmp_path, monkeypatch):
    served, _ = offline
    served["https://snap.stanford.edu/data/as-733.tar.gz"] = _tar(tmp_path / "as-733.tar.gz", {
        "as19991231.txt": "# old\n1\t2\n",
        "as20000102.txt": "# Undirected graph\n# FromNodeId\tToNodeId\n0\t1\n1\t0\n1\t2\n",
    })
    meta, arrays, _ = _fetch("route_views", tmp_path, monkeypatch)
    assert meta["format"] == "edgelist" and arrays["edge_index"].tolist() == [[0, 1], [1, 2]]


def test_konect_structures(tmp_path):
    p = tmp_path / "out.x"
    p.write_text("% asym unweighted\n1 2\n2 1\n", encoding="utf-8")
    rec = F.read_konect(p)
    assert rec.directed is True
    _, counts = N.simple_bundle(rec, rec.directed)
    assert counts["num_directed_edges"] == 2 and counts["num_edges"] == 1
    # two-mode: right ids are a separate range, shifted past the left side
    p.write_text("% bip unweighted\n% 3 2 3\n1 1\n1 2\n2 3\n", encoding="utf-8")
    rec = F.read_konect(p)
    assert rec.src.tolist() == [1, 1, 2] and rec.dst.tolist() == [3, 4, 5] and rec.declared_nodes == 5
    p.write_text("1 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="header"):
        F.read_konect(p)


# ----------------------------------------------------------------------------- other formats


def test_gml_reader_robust(tmp_path):
    p = tmp_path / "g.gml"
    p.write_bytes(
        'Creator "fixture"\n# a comment line\ngraph [\n  directed 1\n  multigraph 1\n'
        '  name "Straßen [test] # not a comment"\n'
        '  node [ id 10 label "Zürich" ]\n  node [ id 3 label "dup" ]\n  node [ id 7 label "dup" ]\n'
        '  node [ id 99 ]\n'
        '  edge [ source 10 target 3 value 2 ]\n  edge [ source 10 target 3 ]\n'
        '  edge [ source 3 target 10 ]\n  edge [ source 7 target 7 ]\n  edge [ source 7 target 10 ]\n]\n'.encode()
    )
    rec = gml.read_gml(p)
    assert rec.directed is True and rec.declared_nodes == 4
    arrays, counts = N.simple_bundle(rec, rec.directed)
    # ids 3, 7, 10 -> 0, 1, 2 (99 isolated, 7-7 a loop)
    assert arrays["edge_index"].tolist() == [[0, 1], [2, 2]]
    assert counts["num_directed_edges"] == 3 and counts["num_edge_records"] == 5
    p.write_text("graph [ node [ id 0 ] edge [ source 0 target 1 ] ]", encoding="utf-8")
    with pytest.raises(ValueError, match="not declared"):
        gml.read_gml(p)
    p.write_text('graph [ node [ id 0 label "x ] ]', encoding="utf-8")
    with pytest.raises(ValueError, match="unterminated"):
        gml.read_gml(p)
    p.write_text("graph [ node [ id 0 ] node [ id 0 ] ]", encoding="utf-8")
    with pytest.raises(ValueError, match="duplicate"):
        gml.read_gml(p)


def test_ucinet_matrix(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text('\ufeff"",a,b,c\na,0,1,\nb,0,0,0\nc,1,0,1\n', encoding="utf-8")
    arrays, counts = N.simple_bundle(F.read_ucinet_csv_matrix(p), False)
    assert arrays["edge_index"].tolist() == [[0, 0], [1, 2]] and counts["num_declared_nodes"] == 3
    p.write_text("0,1\n1,0\n", encoding="utf-8")  # unlabelled
    assert F.read_ucinet_csv_matrix(p).src.tolist() == [0, 1]
    p.write_text('"",a,b\nb,0,1\na,1,0\n', encoding="utf-8")
    with pytest.raises(ValueError, match="labels"):
        F.read_ucinet_csv_matrix(p)


def test_sociopatterns_original_layout_with_text_columns(tmp_path):
    # the SocioPatterns originals carry class labels after "t i j"; the text columns force the
    # line-by-line path, which must give the same records as the numeric fast path
    p, q = tmp_path / "tij_orig.dat", tmp_path / "tij.dat"
    p.write_text("20\t5\t9\tPC\tMP*1\n40\t9\t5\tMP*1\tPC\n40\t2\t5\tPSI\tPC\n", encoding="utf-8")
    q.write_text("20\t5\t9\n40\t9\t5\n40\t2\t5\n", encoding="utf-8")
    a, b = F.read_sociopatterns_tij(p), F.read_sociopatterns_tij(q)
    assert a.src.tolist() == b.src.tolist() == [5, 9, 2] and a.dst.tolist() == b.dst.tolist() == [9, 5, 5]
    assert N.simple_bundle(a, False)[0]["edge_index"].tolist() == [[0, 1], [1, 2]]


def test_unknown_format_and_empty_graph(tmp_path):
    with pytest.raises(ValueError, match="no network reader"):
        N.read_records(tmp_path, "graphml")
    with pytest.raises(ValueError, match="no edge"):
        N.simple_bundle(edge_records.EdgeRecords(np.array([1]), np.array([1])), False)


def test_ragged_lines_are_not_bulk_parsed(tmp_path):
    # 2 + 4 + 6 fields = 3 lines x 4: the total fits, the lines do not
    p = tmp_path / "ragged.txt"
    p.write_text("1 2 9 9\n3 4\n5 6 7 7 7 7\n", encoding="utf-8")
    assert streaming.read_columns(p).tolist() == [[1, 2], [3, 4], [5, 6]]
    q = tmp_path / "edges.csv"
    q.write_text("# source, target, w\n1,2\n3,4,5,6\n", encoding="utf-8")
    rec = F.read_netzschleuder_csv(q)
    assert rec.src.tolist() == [1, 3] and rec.dst.tolist() == [2, 4]
