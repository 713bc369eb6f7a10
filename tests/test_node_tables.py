"""Edge list + node table readers (MUSAE/FEATHER, Geom-GCN) and labels from side tables.

Fixtures are written here in the releases' own layouts with their quirks
(Twitch's ``new_id``, quoted page names, a features JSON that omits a
node, Geom-GCN's dense and index-list feature fields, a class of one
node, SocioPatterns' headerless metadata in two layouts, CoMuNe node
tables); the counts are computed from what was written. The Geom-GCN and
TU readings are also checked against PyG's own parsers of those files.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from netzbench import readers
from netzbench.catalog import custom
from netzbench.catalog.checks import check_arrays
from netzbench.catalog.readers import node_tables
from netzbench.training.splits import stratified_node_split


def _pairs(edges, keep=None) -> set:
    """Unique undirected pairs of ``edges`` (self-loops dropped), ids mapped through ``keep``."""
    keep = keep or (lambda v: v)
    return {(min(keep(a), keep(b)), max(keep(a), keep(b))) for a, b in edges if a != b}


def _edge_set(bundle) -> set:
    ei = bundle.arrays["edge_index"]
    return {(int(a), int(b)) for a, b in ei.T}


# ---------------------------------------------------------------------------------- fixtures


def write_twitch(folder: Path, name: str = "musae_ENGB") -> dict:
    """Twitch: ``id`` is the account number, ``new_id`` the node id of edges and features; rows sorted
    by account, not by node; ``mature`` True/False; a node without edges; a node the JSON omits and one
    with an empty bag; edges ``from,to`` with a repeat, a reversed repeat and a self-loop."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 14
    mature = {i: "True" if i % 3 == 0 else "False" for i in range(n)}
    account = {i: 70_000_000 + 9_973 * ((i * 5) % n) for i in range(n)}
    rows = sorted(range(n), key=lambda i: account[i])
    lines = ["id,days,mature,views,partner,new_id"]
    lines += [f"{account[i]},{100 + i},{mature[i]},{1000 * i},False,{i}" for i in rows]
    (folder / f"{name}_target.csv").write_text("\n".join(lines) + "\n")
    edges = [(i, i + 1) for i in range(n - 2)] + [(0, 5), (3, 9)]  # node 13 has no edge
    records = edges + [(0, 1), (1, 0), (4, 4)]
    (folder / f"{name}_edges.csv").write_text("from,to\n" + "".join(f"{a},{b}\n" for a, b in records))
    bags = {str(i): sorted({(i * 7) % 11, (i * 3) % 11, 12 if i == 2 else 0}) for i in range(n) if i not in (6, 8)}
    bags["8"] = []
    (folder / f"{name}_features.json").write_text(json.dumps(dict(sorted(bags.items(), key=lambda kv: -int(kv[0])))))
    x = np.zeros((n, 13), dtype=np.float32)
    for k, bag in bags.items():
        x[int(k), bag] = 1
    return {"num_nodes": n, "edges": edges, "mature": mature, "x": x, "self_loops": 1, "duplicate_edges": 1}


def write_facebook(folder: Path, name: str = "musae_facebook") -> dict:
    """Facebook page-page: ``id,facebook_id,page_name,page_type``, quoted names with commas and
    non-ASCII text, UTF-8 BOM, CRLF, edges ``id_1,id_2``; string classes."""
    folder.mkdir(parents=True, exist_ok=True)
    kinds = ["tvshow", "government", "company", "politician"]
    n = 12
    names = [f'"Page {i}, Official"' if i % 4 == 0 else f"Seite {i} \u00fc" for i in range(n)]
    text = "id,facebook_id,page_name,page_type\r\n" + "".join(
        f"{i},{145647315578475 + i},{names[i]},{kinds[i % 4]}\r\n" for i in range(n))
    (folder / f"{name}_target.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())
    edges = [(i, (i + 1) % n) for i in range(n)] + [(0, 6)]
    (folder / f"{name}_edges.csv").write_text("id_1,id_2\r\n" + "".join(f"{a},{b}\r\n" for a, b in edges), newline="")
    (folder / f"{name}_features.json").write_text(json.dumps({str(i): [i % 5, 5 + i % 2] for i in range(n)}))
    return {"num_nodes": n, "edges": edges, "kinds": [kinds[i % 4] for i in range(n)]}


def write_deezer(folder: Path, name: str = "deezer_europe") -> dict:
    """Deezer Europe / LastFM: ``id,target`` and ``node_1,node_2``, no features file here."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 10
    (folder / f"{name}_target.csv").write_text("id,target\n" + "".join(f"{i},{i % 2}\n" for i in range(n)))
    edges = [(i, (i + 2) % n) for i in range(n)]
    (folder / f"{name}_edges.csv").write_text("node_1,node_2\n" + "".join(f"{a},{b}\n" for a, b in edges))
    return {"num_nodes": n, "edges": edges}


def write_webkb(folder: Path, n: int = 20, width: int = 1703, shuffled: bool = True) -> dict:
    """Geom-GCN WebKB: a dense 0/1 vector of 1703 values per node, 5 classes, one with a single node
    (Texas' class 1), a node without edges, directed records with reciprocal pairs, a self-loop and a
    repeated record; nodes listed out of order (``shuffled``: PyG takes line k for node k)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    x = (rng.random((n, width)) < 0.01).astype(np.float32)
    y = [0, 2, 3, 4] * (n // 4)
    y[7] = 1  # the only node of class 1
    order = list(range(1, n)) + [0] if shuffled else list(range(n))
    lines = ["node_id\tfeature\tlabel"] + [f"{i}\t{','.join(str(int(v)) for v in x[i])}\t{y[i]}" for i in order]
    (folder / "out1_node_feature_label.txt").write_text("\n".join(lines) + "\n")
    edges = [(i, i + 1) for i in range(n - 2)] + [(i + 1, i) for i in range(0, n - 2, 3)] + [(2, 9), (5, 5), (2, 9)]
    (folder / "out1_graph_edges.txt").write_text("node_id\tnode_id\n" + "".join(f"{a}\t{b}\n" for a, b in edges))
    return {"num_nodes": n, "edges": edges, "x": x, "y": y, "self_loops": 1, "duplicate_edges": 1}


def write_film(folder: Path, n: int = 16) -> dict:
    """Geom-GCN Actor (``film``): the feature field lists the indices of the nonzero features (of 932),
    rows of different lengths."""
    folder.mkdir(parents=True, exist_ok=True)
    bags = {i: sorted({(i * 37) % 932, (i * 101) % 932, 931 if i == 3 else 5}) [: 1 + i % 3] for i in range(n)}
    bags[3] = [4, 931]
    y = [i % 5 for i in range(n)]
    lines = ["node_id\tfeature\tlabel"] + [f"{i}\t{','.join(map(str, bags[i]))}\t{y[i]}" for i in range(n)]
    (folder / "out1_node_feature_label.txt").write_text("\n".join(lines) + "\n")
    edges = [(i, (i + 3) % n) for i in range(n)]
    (folder / "out1_graph_edges.txt").write_text("node_id\tnode_id\n" + "".join(f"{a}\t{b}\n" for a, b in edges))
    x = np.zeros((n, 932), dtype=np.float32)
    for i, bag in bags.items():
        x[i, bag] = 1
    return {"num_nodes": n, "edges": edges, "x": x, "y": y}


def write_multiplex_nodes(folder: Path, header: str = "nodeID nodeLabel city") -> dict:
    """CoMuNe ``<name>_multiplex.edges`` + ``<name>_nodes.txt`` with a city column (a city with a blank
    in its name, as the last column) and a node no layer links."""
    folder.mkdir(parents=True, exist_ok=True)
    cities = ["Rome", "Milan", "Rome", "New York", "Milan", "Rome", "Turin", "New York"]
    n = len(cities)
    rows = [(1, i + 1, i + 2) for i in range(n - 2)] + [(2, 1, 2), (2, 3, 6)]  # node 8 in no layer
    (folder / "fx_multiplex.edges").write_text("".join(f"{a} {b} {c} 1\n" for a, b, c in rows))
    (folder / "fx_nodes.txt").write_text(header + "\n" + "".join(f"{i + 1} AP{i:02d} {c}\n" for i, c in
                                                                    enumerate(cities)))
    (folder / "fx_layers.txt").write_text("layerID layerLabel\n1 air\n2 rail\n")
    return {"num_nodes": n, "edges": [(b, c) for _, b, c in rows], "cities": cities}


def write_sociopatterns_meta(folder: Path, index_column: bool = False) -> dict:
    """``tij_<name>.dat`` + headerless ``metadata_<name>.dat`` ``id<TAB>class<TAB>gender`` (the original
    layout), or with a leading 0-based row index (face2face's re-export); a person without contacts."""
    folder.mkdir(parents=True, exist_ok=True)
    people = [(1558, "2BIO1", "F"), (1201, "MP", "M"), (1660, "2BIO1", "NaN"), (1100, "PC*", "F"),
              (1315, "MP", "M"), (1002, "PC*", "M")]
    pairs = [(1558, 1201), (1201, 1660), (1660, 1100), (1100, 1315), (1558, 1660)]  # 1002: no contact
    (folder / "tij_fx.dat").write_text("".join(f"{20 * k}\t{i}\t{j}\n" for k in range(2) for i, j in pairs))
    rows = [(k, *p) if index_column else p for k, p in enumerate(people)]
    (folder / "metadata_fx.dat").write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
    return {"num_nodes": len(people), "edges": pairs, "people": people}


# ---------------------------------------------------------------------------------- MUSAE


def test_twitch_new_id_mature_class_and_multi_hot_features(tmp_path):
    want = write_twitch(tmp_path / "ENGB")
    b = readers.read_musae(tmp_path / "ENGB", label="mature")
    n = want["num_nodes"]
    assert b.counts == {"num_nodes": n, "num_edges": len(_pairs(want["edges"])), "num_classes": 2,
                        "num_features": 13}
    assert b.notes["label_mapping"] == {"0": "False", "1": "True"}
    assert b.arrays["y"].tolist() == [int(want["mature"][i] == "True") for i in range(n)]  # by new_id
    assert np.array_equal(b.arrays["x"], want["x"]) and b.arrays["x"].dtype == np.float32
    assert b.notes["nodes_without_features"] == 1 and b.notes["node_ids"] == "column 'new_id' of musae_ENGB_target.csv"
    assert b.notes["unused_columns"] == ["id", "days", "views", "partner"]
    assert b.dropped == {"self_loops": 1, "duplicate_edges": 1}
    assert _edge_set(b) == {p for a, c in _pairs(want["edges"]) for p in ((a, c), (c, a))}
    assert b.arrays["edge_index"][:, b.arrays["edge_index"][0] == 13].size == 0  # isolated, kept
    assert [f.name for f in b.files] == ["musae_ENGB_edges.csv", "musae_ENGB_target.csv", "musae_ENGB_features.json"]
    assert readers.guess_format(tmp_path / "ENGB") == "musae"


def test_facebook_string_classes_quoted_names_and_deezer_without_features(tmp_path):
    want = write_facebook(tmp_path / "fb")
    b = readers.read_dataset(tmp_path / "fb", "node_cls", label="page_type")
    assert b.notes["format"] == "musae" and b.counts["num_nodes"] == want["num_nodes"]
    assert b.counts["num_edges"] == len(_pairs(want["edges"])) and b.counts["num_features"] == 7
    assert b.notes["label_mapping"] == {"0": "company", "1": "government", "2": "politician", "3": "tvshow"}
    assert [b.notes["label_mapping"][str(c)] for c in b.arrays["y"]] == want["kinds"]
    assert b.notes["unused_columns"] == ["facebook_id", "page_name"] and b.notes["header"] == ["id_1", "id_2"]
    want = write_deezer(tmp_path / "dz")
    d = readers.read_dataset(tmp_path / "dz" / "deezer_europe_target.csv", "node_cls", format="musae", label="target")
    assert "x" not in d.arrays and "structural" in d.notes["node_features"] and "label_mapping" not in d.notes
    assert d.counts == {"num_nodes": want["num_nodes"], "num_edges": len(_pairs(want["edges"])), "num_classes": 2}


def test_musae_link_pred_uses_the_edges_and_counts_the_table_s_isolated_nodes(tmp_path):
    want = write_twitch(tmp_path / "t")
    b = readers.read_dataset(tmp_path / "t", "link_pred")
    assert b.notes["format"] == "musae" and "x" not in b.arrays and "y" not in b.arrays
    assert b.counts == {"num_nodes": want["num_nodes"] - 1, "num_edges": len(_pairs(want["edges"])),
                        "num_edge_records": len(want["edges"]) + 3, "num_declared_nodes": want["num_nodes"]}
    assert b.dropped == {"self_loops": 1, "duplicate_edges": 1, "isolated_nodes": 1}


def test_an_edge_list_named_edges_csv_alone_is_still_an_edge_list(tmp_path):
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "roads_edges.csv").write_text("node_1,node_2\n0,1\n1,2\n")
    assert readers.guess_format(tmp_path / "e") == "edgelist"
    write_deezer(tmp_path / "two" / "a")
    write_deezer(tmp_path / "two" / "b")
    with pytest.raises(readers.ReadError, match=r"one pair of .*found '2: a/deezer_europe_edges.csv, "
                                                r"b/deezer_europe_edges.csv \(point `path:` at one folder\)'"):
        readers.read_musae(tmp_path / "two", label="target")


# ---------------------------------------------------------------------------------- Geom-GCN


def test_webkb_dense_features_and_a_class_of_one_node_survives_the_split(tmp_path):
    want = write_webkb(tmp_path / "texas")
    b = readers.read_dataset(tmp_path / "texas", "node_cls")
    assert b.notes["format"] == "geomgcn" and b.notes["label"] == "label" and "dense" in b.notes["node_features"]
    assert b.counts == {"num_nodes": want["num_nodes"], "num_edges": len(_pairs(want["edges"])), "num_classes": 5,
                        "num_features": 1703}
    assert np.array_equal(b.arrays["x"], want["x"]) and b.arrays["y"].tolist() == want["y"]
    assert b.dropped == {"self_loops": want["self_loops"], "duplicate_edges": want["duplicate_edges"]}
    assert not (b.arrays["edge_index"] == want["num_nodes"] - 1).any()  # node 19 has no edge and is kept
    single = int(np.flatnonzero(b.arrays["y"] == 1)[0])
    for seed in range(5):
        train, val, test = stratified_node_split(b.arrays["y"], seed)
        assert train[single] and not val[single] and not test[single]
        assert set(np.unique(b.arrays["y"][train]).tolist()) == {0, 1, 2, 3, 4}
    assert readers.guess_format(tmp_path / "texas") == "geomgcn"


def test_film_feature_indices_become_a_multi_hot_x(tmp_path):
    want = write_film(tmp_path / "film")
    b = readers.read_geomgcn(tmp_path / "film")
    assert b.counts["num_features"] == 932 and "indices" in b.notes["node_features"]
    assert np.array_equal(b.arrays["x"], want["x"]) and b.arrays["y"].tolist() == want["y"]
    link = readers.read_geomgcn(tmp_path / "film", "link_pred")
    assert link.counts["num_directed_edges"] == len(set(want["edges"])) and "x" not in link.arrays


@pytest.mark.parametrize("writer, cls", [(lambda d: write_webkb(d, shuffled=False), "WebKB"), (write_film, "Actor")])
def test_geomgcn_reads_what_pyg_reads(tmp_path, writer, cls):
    """x and y as PyG's ``WebKB``/``Actor`` parse the same files; edges those of PyG made undirected."""
    import torch_geometric.datasets as pyg

    want = writer(tmp_path / "mine")
    name = "texas" if cls == "WebKB" else "film"
    raw = tmp_path / "pyg" / (name if cls == "WebKB" else "") / "raw"
    raw.mkdir(parents=True)
    for f in ("out1_node_feature_label.txt", "out1_graph_edges.txt"):
        (raw / f).write_bytes((tmp_path / "mine" / f).read_bytes())
    masks = np.zeros(want["num_nodes"], dtype=bool)
    for i in range(10):
        np.savez(raw / f"{name}_split_0.6_0.2_{i}.npz", train_mask=masks, val_mask=masks, test_mask=masks)
    data = pyg.WebKB(str(tmp_path / "pyg"), name)[0] if cls == "WebKB" else pyg.Actor(str(tmp_path / "pyg"))[0]
    b = readers.read_geomgcn(tmp_path / "mine")
    assert np.array_equal(b.arrays["x"], data.x.numpy()) and np.array_equal(b.arrays["y"], data.y.numpy())
    assert _edge_set(b) == {p for a, c in _pairs(data.edge_index.numpy().T.tolist()) for p in ((a, c), (c, a))}


# ---------------------------------------------------------------------------------- side tables


def test_multiplex_class_from_the_nodes_table_keeps_nodes_of_no_layer(tmp_path):
    want = write_multiplex_nodes(tmp_path / "m")
    b = readers.read_dataset(tmp_path / "m", "node_cls", label="city")
    assert b.notes["format"] == "multiplex" and b.notes["label"] == "city"
    assert b.counts == {"num_nodes": want["num_nodes"], "num_edges": len(_pairs(want["edges"])), "num_classes": 4}
    assert b.notes["label_mapping"] == {"0": "Milan", "1": "New York", "2": "Rome", "3": "Turin"}
    assert [b.notes["label_mapping"][str(c)] for c in b.arrays["y"]] == want["cities"]
    assert [f.name for f in b.files] == ["fx_multiplex.edges", "fx_nodes.txt"] and b.dropped["layers"] is True
    assert b.notes["node_ids"] == "column 1 of fx_nodes.txt (every node listed there kept)"
    # a name with blanks is only read as such in the class column when that is the last one
    with pytest.raises(readers.ReadError, match=r"fx_nodes.txt, line 5: expected 3 blank-separated fields per line, "
                                                r"as the header \(nodeID nodeLabel city\); found '4 AP03 New York'"):
        readers.read_multiplex(tmp_path / "m", "node_cls", "nodeLabel")
    write_multiplex_nodes(tmp_path / "m", header="nodeID nodeLabel")
    last = readers.read_multiplex(tmp_path / "m", "node_cls", "nodeLabel")
    assert last.counts["num_classes"] == want["num_nodes"] and "AP03 New York" in last.notes["label_mapping"].values()


@pytest.mark.parametrize("index_column", [False, True])
def test_sociopatterns_class_from_headerless_metadata_in_both_layouts(tmp_path, index_column):
    want = write_sociopatterns_meta(tmp_path / "sp", index_column)
    b = readers.read_dataset(tmp_path / "sp", "node_cls", label="class")
    assert b.notes["format"] == "sociopatterns" and [f.name for f in b.files] == ["tij_fx.dat", "metadata_fx.dat"]
    assert b.counts == {"num_nodes": want["num_nodes"], "num_edges": len(_pairs(want["edges"])), "num_classes": 3}
    by_id = sorted(want["people"])  # nodes numbered by increasing badge id
    assert [b.notes["label_mapping"][str(c)] for c in b.arrays["y"]] == [p[1] for p in by_id]
    assert b.notes["node_ids"].startswith(f"column {2 if index_column else 1} of metadata_fx.dat")
    gender = readers.read_sociopatterns(tmp_path / "sp", "node_cls", f"column{4 if index_column else 3}")
    assert gender.notes["label_mapping"] == {"0": "F", "1": "M", "2": "NaN"}  # 'NaN' is a class, not a float


# ---------------------------------------------------------------------------------- TU node features


def test_tu_node_attributes_and_one_hot_node_labels_are_concatenated_as_pyg_does(tmp_path):
    from torch_geometric.io import read_tu_data

    name, raw = "FXATTR", tmp_path / "raw"
    raw.mkdir()
    sizes = [3, 4, 3, 5]
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    edges = [(s + i, s + (i + 1) % k) for s, k in zip(ptr[:-1], sizes) for i in range(k)]
    n = int(ptr[-1])
    attrs = np.round(np.arange(n * 2).reshape(n, 2) * 0.25, 2)
    labels = np.stack([np.arange(n) % 3 + 1, np.arange(n) % 2], axis=1)  # two label columns, from 1 and from 0
    (raw / f"{name}_A.txt").write_text("".join(f"{a + 1}, {b + 1}\n{b + 1}, {a + 1}\n" for a, b in edges))
    graphs = [g + 1 for g, k in enumerate(sizes) for _ in range(k)]
    (raw / f"{name}_graph_indicator.txt").write_text("".join(f"{g}\n" for g in graphs))
    (raw / f"{name}_graph_labels.txt").write_text("1\n2\n1\n2\n")
    (raw / f"{name}_node_attributes.txt").write_text("".join(f"{a}, {c}\n" for a, c in attrs))
    (raw / f"{name}_node_labels.txt").write_text("".join(f"{a}, {c}\n" for a, c in labels))
    b = readers.read_dataset(tmp_path, "graph_cls", format="tu")
    expected = np.concatenate([attrs, np.eye(3)[labels[:, 0] - 1], np.eye(2)[labels[:, 1]]], axis=1)
    assert b.counts["num_features"] == 7 and np.allclose(b.arrays["x"], expected)
    assert np.allclose(b.arrays["x"], read_tu_data(str(raw), name)[0].x.numpy())
    assert b.notes["node_features"] == "2 node attribute(s) + one-hot node labels (5 columns)"


# ---------------------------------------------------------------------------------- bad files


def _write(folder: Path, files: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


_T = "id,target\n0,1\n1,0\n2,1\n"
_G = "node_id\tfeature\tlabel\n0\t1,0,0\t1\n1\t0,1,0\t0\n2\t0,0,1\t1\n"


@pytest.mark.parametrize("files, fmt, label, parts", [
    ({"x_edges.csv": "node_1,node_2\n0,1\n1,2\n2,7\n", "x_target.csv": _T}, "musae", "target",
     ["format 'musae'", "x_edges.csv, line 4", "expected node ids listed in x_target.csv", "found '2,7'"]),
    ({"x_edges.csv": "node_1,node_2\n0,1\n", "x_target.csv": "id,target\n0,1\n1,0,3\n"}, "musae", "target",
     ["x_target.csv, line 3", "2 comma-separated fields per line", "found '1,0,3'"]),
    ({"x_edges.csv": "node_1,node_2\n0,1\n", "x_target.csv": "id,target\n0,1\n0,0\n"}, "musae", "target",
     ["x_target.csv, line 3", "each node id once", "found '0,0'"]),
    ({"x_edges.csv": "node_1,node_2\n0,1\n", "x_target.csv": _T}, "musae", "mature",
     ["x_target.csv, line 1", "naming the class column (one of ['target'])", "found \"label 'mature'\""]),
    ({"x_edges.csv": "node_1,node_2\n0,1\n", "x_target.csv": _T, "x_features.json": '{\n"0": [1],\n"9": [2]\n}'},
     "musae", "target", ["x_features.json, line 3", "node ids of the node table as keys", "found '9'"]),
    ({"x_edges.csv": "node_1,node_2\n0,1\n", "x_target.csv": _T, "x_features.json": '{"0": [1, -2]}'},
     "musae", "target", ["x_features.json, line 1", "found '0: [1, -2]'"]),
    ({"out1_graph_edges.txt": "node_id\tnode_id\n0\t1\n2\t3\n", "out1_node_feature_label.txt": _G}, "geomgcn",
     None, ["format 'geomgcn'", "out1_graph_edges.txt, line 3", "listed in out1_node_feature_label.txt",
            "found '2\\t3'"]),
    ({"out1_graph_edges.txt": "node_id\tnode_id\n0\t1\n", "out1_node_feature_label.txt": _G + "3\t1,0,0\n"},
     "geomgcn", None, ["out1_node_feature_label.txt, line 5", "3 TAB-separated fields", "found '3\\t1,0,0'"]),
    ({"out1_graph_edges.txt": "node_id\tnode_id\n0\t1\n", "out1_node_feature_label.txt": _G + "3\t0.5,1\t0\n"},
     "geomgcn", None, ["line 5", "a feature vector of 3 values (as on line 2) or distinct feature indices",
                       "found '3\\t0.5,1\\t0'"]),
    ({"out1_graph_edges.txt": "node_id\tnode_id\n0\t1\n", "out1_node_feature_label.txt": _G + "3\t\t0\n"},
     "geomgcn", None, ["out1_node_feature_label.txt, line 5", "a feature vector of 3 values", "found '3\\t\\t0'"]),
    ({"out1_graph_edges.txt": "node_id\tnode_id\n0\t1\n", "out1_node_feature_label.txt": _G + "1\t0,1,0\t0\n"},
     "geomgcn", None, ["out1_node_feature_label.txt, line 5", "each node id once"]),
    ({"out1_graph_edges.txt": "node_id\tnode_id\n0\t1\n", "out1_node_feature_label.txt": _G}, "geomgcn", "kind",
     ["line 1", "a class column 'kind' after node_id and feature",
      "found \"columns ['node_id', 'feature', 'label']\""]),
    ({"a_multiplex.edges": "1 1 2 1\n\n1 2 5 1\n", "a_nodes.txt": "nodeID nodeLabel\n1 x\n2 y\n3 z\n"}, "multiplex",
     "nodeLabel", ["format 'multiplex'", "a_multiplex.edges, line 3", "listed in a_nodes.txt", "found '1 2 5 1'"]),
    ({"a_multiplex.edges": "1 1 2 1\n", "a_nodes.txt": "nodeID nodeLabel nodeX\n1 x 0.1\n2 y\n"}, "multiplex",
     "nodeLabel", ["a_nodes.txt, line 3", "3 blank-separated fields per line", "found '2 y'"]),
    ({"a_multiplex.edges": "1 1 2 1\n", "a_nodes.txt": "nodeID nodeLabel\n1 x\n2 y\n"}, "multiplex", "city",
     ["a_nodes.txt, line 1", "a column 'city' (the class)", "found \"columns ['nodeID', 'nodeLabel']\""]),
    ({"tij_s.dat": "20\t1\t2\n40\t2\t9\n", "metadata_s.dat": "1\tA\n2\tB\n"}, "sociopatterns", "class",
     ["format 'sociopatterns'", "tij_s.dat, line 2", "listed in metadata_s.dat", "found '40\\t2\\t9'"]),
    ({"tij_s.dat": "20\t1\t2\n", "metadata_s.dat": "1\tA\n2\n"}, "sociopatterns", "class",
     ["metadata_s.dat, line 2", "a class in column 2 on every line", "found '2'"]),
    ({"tij_s.dat": "20\t1\t2\n", "metadata_s.dat": "1\tA\n2\tB\n"}, "sociopatterns", "gender",
     ["a column 'gender' (the class)", "found \"columns ['class', 'column1', 'column2']\""]),
    ({"tij_s.dat": "20\t1\t2\n"}, "sociopatterns", "class",
     ["metadata_s.dat beside tij_s.dat", "found 'no such file'"]),
])
def test_a_bad_file_gives_one_line_naming_format_file_line_and_what_was_found(tmp_path, files, fmt, label, parts):
    _write(tmp_path / "d", files)
    with pytest.raises(readers.ReadError) as info:
        readers.read_dataset(tmp_path / "d", "node_cls", format=fmt, label=label)
    message = str(info.value)
    assert "\n" not in message
    for part in parts:
        assert part in message, (part, message)


def test_a_dense_x_too_large_is_refused_with_its_size(tmp_path, monkeypatch):
    write_twitch(tmp_path / "t")
    monkeypatch.setattr(node_tables, "MAX_FEATURE_VALUES", 100)
    with pytest.raises(readers.ReadError, match=r"musae_ENGB_features.json: expected node features that fit a dense "
                                                r"x \(at most 100 values\); found '14 nodes x 13 features'"):
        readers.read_musae(tmp_path / "t", label="mature")


# ---------------------------------------------------------------------------------- custom_tasks


@pytest.mark.parametrize("writer, entry, fmt, want", [
    (write_twitch, {"format": "musae", "label": "mature"}, "musae", {"num_classes": 2, "num_features": 13}),
    (write_webkb, {"format": "geomgcn"}, "geomgcn", {"num_classes": 5, "num_features": 1703}),
    (write_film, {"label": "label"}, "geomgcn", {"num_classes": 5, "num_features": 932}),
    (write_multiplex_nodes, {"format": "multiplex", "label": "city"}, "multiplex", {"num_classes": 4}),
    (write_sociopatterns_meta, {"label": "class"}, "sociopatterns", {"num_classes": 3}),
])
def test_custom_tasks_round_trip(tmp_path, writer, entry, fmt, want):
    written = writer(tmp_path / "raw")
    entry = {**entry, "family": "node_cls", "path": str(tmp_path / "raw")}
    custom._check_entry("fx_table", entry)  # params.yaml accepts the entry (label with this format)
    arrays, counts, record = custom.process(str(tmp_path / "data" / "fx_table"), "node_cls", path=entry["path"],
                                            format=entry.get("format"), label=entry.get("label"))
    assert counts["num_nodes"] == written["num_nodes"] and counts["num_edges"] == len(_pairs(written["edges"]))
    for key, value in want.items():
        assert counts[key] == value, key
    assert record["format"] == fmt and len(record["raw_sha256"]) >= 2 and record["notes"]["label"]
    check_arrays("fx_table", "node_cls", "stratified_per_seed_50_25_25", arrays)
    # the files' features, else (multiplex, SocioPatterns) one-hot node ids: catalog.positional's default
    width = want.get("num_features", written["num_nodes"])
    assert arrays["x"].shape == (written["num_nodes"], width) and arrays["x"].dtype == np.float32
    assert ("node_features" in record) == ("num_features" not in want)
