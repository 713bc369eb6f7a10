"""The readers of declared datasets: one small fixture per format in its original layout, and bad files.

Every fixture carries the quirks real files have (``raw_fixtures``); the
counts are checked against what was written. Bad files must give one
message naming the format, the file, the line and what was found.
"""

from __future__ import annotations

import numpy as np
import pytest

import raw_fixtures as rf
from netzbench import readers
from netzbench.catalog.checks import DatasetError


def _read(path, family="link_pred", **kw):
    return readers.read_dataset(path, family, **kw)


def test_gml_link_pred_and_node_cls_with_a_node_attribute(tmp_path):
    want = rf.write_gml(tmp_path / "books")
    b = _read(tmp_path / "books")
    assert b.notes["format"] == "gml"
    assert b.counts["num_nodes"] == want["num_nodes"] and b.counts["num_edges"] == want["num_edges"]
    assert b.dropped["self_loops"] == 1 and b.dropped["duplicate_edges"] == 1 and b.dropped["edge_attributes"] == ["value"]
    node = _read(tmp_path / "books", "node_cls", format="gml", label="value")
    assert node.counts == {"num_nodes": 30, "num_edges": 36, "num_classes": 3}
    assert node.notes["label_mapping"] == want["label_mapping"]
    y = node.arrays["y"]
    assert y.tolist()[:3] == [1, 2, 0]  # l, n, c in sorted order c < l < n
    ei = node.arrays["edge_index"]
    assert ei.shape[1] == 2 * 36 and set(map(tuple, ei.T)) == {(b, a) for a, b in ei.T}  # both directions


def test_konect(tmp_path):
    want = rf.write_konect(tmp_path / "k")
    b = _read(tmp_path / "k")
    assert b.notes["format"] == "konect" and b.counts["num_nodes"] == want["num_nodes"]
    assert b.counts["num_edges"] == want["num_edges"] and b.counts["num_declared_nodes"] == 12
    assert b.dropped == {"self_loops": 1, "duplicate_edges": 1, "reverse_duplicates": 1, "weights": True}
    assert [f.name for f in b.files] == ["out.fixture_konect"]  # the README is not data


@pytest.mark.parametrize("writer", [rf.write_edgelist_csv, rf.write_edgelist_snap, rf.write_edgelist_named])
def test_edgelists(tmp_path, writer):
    want = writer(tmp_path / "e")
    b = _read(tmp_path / "e", format="edgelist")
    assert b.counts["num_nodes"] == want["num_nodes"] and b.counts["num_edges"] == want["num_edges"]
    for key in ("self_loops", "duplicate_edges", "extra_columns"):
        if key in want:
            assert b.dropped[key] == want[key], key
    assert readers.guess_format(tmp_path / "e") == "edgelist"


def test_edgelist_header_and_names_are_recorded(tmp_path):
    rf.write_edgelist_csv(tmp_path / "c")
    rf.write_edgelist_named(tmp_path / "n")
    assert _read(tmp_path / "c").notes["header"] == ["source", "target", "weight"]
    named = _read(tmp_path / "n")
    assert named.notes["header"] == ["from", "to"] and "sorted" in named.notes["node_ids"]


def test_netzschleuder_zip_link_pred_and_a_nodes_csv_column_as_class(tmp_path):
    want = rf.write_netzschleuder(tmp_path / "nz")
    b = _read(tmp_path / "nz")
    assert b.notes["format"] == "netzschleuder" and b.counts["num_nodes"] == want["num_nodes"]
    assert b.counts["num_edges"] == want["num_edges"] and b.dropped["edge_attributes"] == want["edge_attributes"]
    node = _read(tmp_path / "nz" / "fixture.csv.zip", "node_cls", label="club")
    assert node.counts["num_classes"] == 2 and node.notes["label_mapping"] == {"0": "blue", "1": "red"}


def test_sociopatterns(tmp_path):
    want = rf.write_sociopatterns(tmp_path / "sp")
    b = _read(tmp_path / "sp")
    assert b.notes["format"] == "sociopatterns" and [f.name for f in b.files] == ["tij_fixture.dat"]
    assert b.counts["num_nodes"] == want["num_nodes"] and b.counts["num_edges"] == want["num_edges"]
    assert b.counts["num_edge_records"] == 3 * want["num_edges"] and b.dropped["timestamps"] is True


def test_ucinet_matrix_beside_an_attribute_csv(tmp_path):
    want = rf.write_ucinet(tmp_path / "u")
    b = _read(tmp_path / "u")
    assert b.notes["format"] == "ucinet" and b.files[0].name == "HIJACKERS.csv"
    assert b.counts["num_nodes"] == want["num_nodes"] and b.counts["num_edges"] == want["num_edges"]


def test_multiplex_layers_aggregated(tmp_path):
    want = rf.write_multiplex(tmp_path / "m")
    b = _read(tmp_path / "m")
    assert b.notes["format"] == "multiplex" and b.counts["num_edges"] == want["num_edges"]
    assert b.dropped["duplicate_edges"] == 1 and b.dropped["layers"] is True


@pytest.mark.parametrize("node_labels, attributes", [(True, False), (True, True), (False, False)])
def test_tu_with_and_without_node_labels_and_attributes(tmp_path, node_labels, attributes):
    want = rf.write_tu(tmp_path / "raw", node_labels=node_labels, attributes=attributes)
    b = _read(tmp_path, "graph_cls")
    assert b.notes["format"] == "tu"
    for key in ("num_graphs", "num_nodes", "num_edges", "num_classes", "num_features"):
        assert b.counts[key] == want[key], key
    assert b.notes["label_mapping"] == want["label_mapping"]  # -1/1 -> 0/1, recorded
    assert sorted(np.unique(b.arrays["y"]).tolist()) == [0, 1]
    assert b.dropped["duplicate_edges"] == 1 and b.dropped["self_loops"] == 0
    node_ptr, edge_ptr, ei = b.arrays["node_ptr"], b.arrays["edge_ptr"], b.arrays["edge_index"]
    for g in range(want["num_graphs"]):  # local ids, both directions, per graph
        local = ei[:, edge_ptr[g]:edge_ptr[g + 1]]
        assert local.min() >= 0 and local.max() < node_ptr[g + 1] - node_ptr[g]
    if not node_labels and not attributes:
        # structural features with degrees counted within each graph, checked against the written degrees
        degrees = np.concatenate(want["degrees"])
        assert np.allclose(b.arrays["x"][:, 1], np.log1p(degrees)) and np.all(b.arrays["x"][:, 0] == 1)
        assert "structural" in b.notes["node_features"]
    if attributes:
        assert np.allclose(b.arrays["x"][:3, :2], [[0.0, 1.0], [0.5, 1.0], [1.0, 1.0]])


def test_tu_regression_targets(tmp_path):
    rf.write_tu(tmp_path, name="FIXREG", targets=True)
    b = _read(tmp_path, "graph_reg", format="tu")
    assert b.arrays["y"].shape == (24, 1) and b.arrays["y"].dtype == np.float32
    assert b.arrays["y"][3, 0] == pytest.approx(0.75)


def test_planetoid(tmp_path):
    want = rf.write_planetoid(tmp_path / "raw")
    b = _read(tmp_path, "node_cls")
    assert b.notes["format"] == "planetoid" and len(b.files) == 8
    for key in ("num_nodes", "num_edges", "num_classes", "num_features"):
        assert b.counts[key] == want[key], key
    assert b.arrays["train_mask"].sum() == 12 and b.arrays["val_mask"].sum() == 500 and b.arrays["test_mask"].sum() == 40


def test_named_triples(tmp_path):
    want = rf.write_triples(tmp_path / "kg")
    b = _read(tmp_path / "kg")
    assert b.notes["format"] == "triples"
    for key in ("num_nodes", "num_relations", "num_train_triples", "num_valid_triples", "num_test_triples", "num_edges"):
        assert b.counts[key] == want[key], key
    assert b.dropped["duplicate_train_triples"] == 1
    assert b.arrays["train_edge_type"].max() == 2 and b.arrays["train_edge_index"].shape == (2, want["num_train_triples"])


def test_openke(tmp_path):
    want = rf.write_openke(tmp_path / "ok")
    b = _read(tmp_path / "ok")
    assert b.notes["format"] == "openke"
    for key, value in want.items():
        assert b.counts[key] == value, key
    # "head tail relation": the second column is the tail
    assert b.arrays["train_edge_index"][:, 0].tolist() == [0, 1] and b.arrays["train_edge_type"][0] == 0


def _wordnet18_layout(folder):
    """PyG's WordNet18 download: OpenKE's content (count line, ``head tail relation``) as train/valid/test.txt."""
    want = rf.write_openke(folder)
    for split in ("train", "valid", "test"):
        (folder / f"{split}2id.txt").rename(folder / f"{split}.txt")
    for extra in ("entity2id.txt", "relation2id.txt"):
        (folder / extra).unlink()
    return want


def test_openke_triples_saved_as_train_txt_are_read_by_content(tmp_path):
    want = _wordnet18_layout(tmp_path / "wn18")
    assert readers.guess_format(tmp_path / "wn18") == "openke"
    for declared in ("openke", None):
        b = _read(tmp_path / "wn18", format=declared)
        assert b.notes["format"] == "openke" and "recognised" not in b.notes
        for key in ("num_train_triples", "num_valid_triples", "num_test_triples"):
            assert b.counts[key] == want[key], key
        assert b.counts["num_nodes"] == want["num_nodes"]  # no entity2id.txt: the largest id + 1
        assert sorted(f.name for f in b.files) == ["test.txt", "train.txt", "valid.txt"]
        # "head tail relation": the second column is the tail, as in train2id.txt
        assert b.arrays["train_edge_index"][:, 0].tolist() == [0, 1] and b.arrays["train_edge_type"][0] == 0


def test_a_declared_format_the_content_contradicts_is_read_by_content_and_said(tmp_path):
    want = _wordnet18_layout(tmp_path / "wn18")
    b = _read(tmp_path / "wn18", format="triples")  # as the names suggest; the count line says otherwise
    assert b.notes["format"] == "openke" and b.counts["num_train_triples"] == want["num_train_triples"]
    assert b.notes["recognised"].startswith("declared format 'triples', but train.txt holds a count line")
    rf.write_triples(tmp_path / "named")
    b = _read(tmp_path / "named", format="openke")
    assert b.notes["format"] == "triples" and "read as 'triples'" in b.notes["recognised"]
    with pytest.raises(readers.ReadError, match=r"format 'openke': .*expected split files \(train2id.txt"):
        _read(rf.write_konect(tmp_path / "k") and tmp_path / "k", format="openke")


# ------------------------------------------------------------------------------------------ bad files


def _bad(tmp_path, name, text, newline=None):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text, newline=newline)


@pytest.mark.parametrize("files, family, fmt, parts", [
    ({"out.bad": "% sym unweighted\n% 3 3 3\n1 2\n2 x\n"}, "link_pred", "konect",
     ["format 'konect'", "out.bad, line 4", "found '2 x'"]),
    ({"edges.csv": "source,target\n1,2\n3\n"}, "link_pred", "edgelist", ["format 'edgelist'", "edges.csv, line 3", "found '3'"]),
    ({"e.txt": "# ids\n1 2\n2 3\n3 x4\n"}, "link_pred", "edgelist", ["e.txt, line 4", "found '3 x4'"]),
    ({"g.gml": "graph [\n node [ id 1 ]\n node [ id 2 ]\n edge [ source 1 target 2 ]\n ]\n]\n"}, "link_pred", "gml",
     ["format 'gml'", "g.gml, line 6", "found \"unbalanced ']'\""]),
    ({"X_A.txt": "1, 2\n2, 1\n3; 4\n", "X_graph_indicator.txt": "1\n1\n2\n2\n", "X_graph_labels.txt": "1\n-1\n"},
     "graph_cls", "tu", ["format 'tu'", "X_A.txt, line 3", "found '3; 4'"]),
    ({"X_A.txt": "1, 2\n2, 1\n3, 4\n", "X_graph_indicator.txt": "1\n1\n2\n2\n", "X_graph_labels.txt": "1\n-1\n1\n"},
     "graph_cls", "tu", ["X_graph_labels.txt", "one line per graph (2)", "found '3 data lines'"]),
    ({"X_A.txt": "1, 2\n2, 3\n", "X_graph_indicator.txt": "1\n1\n2\n", "X_graph_labels.txt": "1\n-1\n"},
     "graph_cls", "tu", ["X_A.txt, line 2", "both ends of an edge in the same graph", "found '2, 3'"]),
    ({"train.txt": "a\tr\tb\nc\td\n", "valid.txt": "a\tr\tb\n", "test.txt": "a\tr\tb\n"}, "link_pred", "triples",
     ["format 'triples'", "train.txt, line 2", "found 'c\\td'"]),
    ({"train2id.txt": "3\n0 1 0\n1 2 0\n", "valid2id.txt": "1\n0 2 0\n", "test2id.txt": "1\n1 0 0\n"}, "link_pred",
     "openke", ["format 'openke'", "train2id.txt", "3 triples (line 1)", "found '2 triple lines'"]),
    ({"out.k": "% sym unweighted\n1 2\n"}, "link_pred", "gml", ["format 'gml'", "the files look like 'konect'"]),
    ({"out.k": "% sym unweighted\n1 2\n"}, "node_cls", "konect", ["family this format serves", "found 'node_cls'"]),
])
def test_a_bad_file_names_format_file_line_and_what_was_found(tmp_path, files, family, fmt, parts):
    for name, text in files.items():
        _bad(tmp_path / "d", name, text)
    with pytest.raises(readers.ReadError) as info:
        _read(tmp_path / "d", family, format=fmt)
    message = str(info.value)
    for part in parts:
        assert part in message, (part, message)
    assert isinstance(info.value, DatasetError)


def test_line_numbers_count_comments_header_and_crlf(tmp_path):
    _bad(tmp_path, "e.csv", "# comment\r\nsource,target\r\n\r\n1,2\r\n2;3\r\n", newline="")
    with pytest.raises(readers.ReadError, match=r"e\.csv, line 5: .*found '2;3'"):
        _read(tmp_path / "e.csv", format="edgelist")


def test_a_folder_of_no_known_format_says_what_it_holds(tmp_path):
    _bad(tmp_path, "notes.docx", "x")
    _bad(tmp_path, "data.xyz", "x")
    with pytest.raises(readers.ReadError, match="data.xyz, notes.docx; give `format:`"):
        readers.guess_format(tmp_path)


@pytest.mark.parametrize("writer, fmt", [(rf.write_gml, "gml"), (rf.write_konect, "konect"),
                                         (rf.write_netzschleuder, "netzschleuder"), (rf.write_sociopatterns, "sociopatterns"),
                                         (rf.write_ucinet, "ucinet"), (rf.write_multiplex, "multiplex"),
                                         (rf.write_tu, "tu"), (rf.write_planetoid, "planetoid"),
                                         (rf.write_triples, "triples"), (rf.write_openke, "openke"),
                                         (rf.write_edgelist_csv, "edgelist")])
def test_the_format_is_guessed_from_the_files(tmp_path, writer, fmt):
    writer(tmp_path / "x")
    assert readers.guess_format(tmp_path / "x") == fmt


def test_every_record_and_node_of_an_edge_list_is_accounted_for(tmp_path):
    # SNAP's email-Eu-core in small: directed lines, reverse lines, self-loops, a node with only a self-loop
    _bad(tmp_path, "email.txt", "0 1\n1 0\n2 2\n1 2\n3 3\n1 2\n")
    b = _read(tmp_path / "email.txt", format="edgelist")
    assert b.counts["num_nodes"] == 3 and b.counts["num_edges"] == 2 and b.counts["num_edge_records"] == 6
    assert b.dropped["self_loops"] == 2 and b.dropped["duplicate_edges"] == 1
    assert b.dropped["reverse_duplicates"] == 1 and b.dropped["self_loop_only_nodes"] == 1  # node 3
    assert "isolated_nodes" not in b.dropped  # node 2 has an edge to 1: only 3 is lost, and said
    d = b.dropped
    assert b.counts["num_edge_records"] == (b.counts["num_edges"] + d["self_loops"] + d["duplicate_edges"]
                                            + d["reverse_duplicates"])
