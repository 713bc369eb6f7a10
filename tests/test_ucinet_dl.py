"""UCINET DL files under ``format: ucinet``: read by content, beside the CSV adjacency matrix.

The fixtures are written here, in the layouts of UCINET's DL help (full and
half matrices, edge and node lists, label sections, embedded labels,
stacked matrices, two-mode data), with what a reader must find. Bad files
must give one message naming the format, the file and the line.
"""

from __future__ import annotations

import numpy as np
import pytest

import raw_fixtures as rf
from netzbench import readers
from netzbench.catalog.readers import network_bundles as NB
from netzbench.catalog.readers import networks as N
from netzbench.catalog.readers.ucinet_dl import is_dl, parse_dl, read_ucinet_dl

#: five people, a symmetric friendship matrix, a self-tie (pat), russ with no tie
FULL = """DL N=5
FORMAT = FULLMATRIX
LABELS:
barry,david,lin,pat,russ
DATA:
0 1 1 0 0
1 0 0 1 0
1 0 0 1 0
0 1 1 1 0
0 0 0 0 0
"""
#: the undirected pairs of FULL, as positions
FULL_PAIRS = [(0, 1), (0, 2), (1, 3), (2, 3)]


def _write(folder, name, text, newline=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, newline=newline)
    return folder / name


def _pairs(records):
    return sorted({(min(s, d), max(s, d)) for s, d in zip(records.src.tolist(), records.dst.tolist()) if s != d})


def _read(path, **kw):
    return readers.read_dataset(path, "link_pred", **kw)


def _dropped(bundle, reverse: int) -> dict:
    """``bundle.dropped`` less ``reverse_duplicates`` (checked to be ``reverse`` where it is reported): a
    record ``v u`` after ``u v`` names the same undirected edge, never a duplicate."""
    dropped = dict(bundle.dropped)
    assert dropped.pop("reverse_duplicates", reverse) == reverse
    return dropped


# ---------------------------------------------------------------------------------- recognised by content


@pytest.mark.parametrize("name", ["krack.dat", "krack.txt", "krack.csv", "KRACK", "net.DL"])
def test_a_dl_file_is_ucinet_whatever_its_suffix(tmp_path, name):
    path = _write(tmp_path / "raw", name, FULL)
    assert is_dl(path) and NB.is_ucinet(path)
    assert readers.guess_format(tmp_path / "raw") == "ucinet"
    b = _read(tmp_path / "raw")
    assert b.notes["format"] == "ucinet" and [f.name for f in b.files] == [name]
    assert b.counts["num_edges"] == len(FULL_PAIRS) and b.counts["num_declared_nodes"] == 5


def test_the_first_word_decides_any_case_after_a_bom_and_blank_lines(tmp_path):
    assert is_dl(_write(tmp_path, "a.dat", "\ufeff\n\n  dl n=2\ndata:\n0 1\n1 0\n"))
    assert is_dl(_write(tmp_path, "b.txt", "Dl,N=2\ndata:\n0 1\n1 0\n"))
    assert not is_dl(_write(tmp_path, "c.txt", "DLX 1 2\n"))  # a word starting with DL is not DL
    assert not is_dl(_write(tmp_path, "d.dat", "1 2 3\n"))
    assert not is_dl(tmp_path)  # a folder


def test_a_dl_dat_file_is_not_a_sociopatterns_contact_list(tmp_path):
    path = _write(tmp_path / "dl", "contacts.dat", FULL)
    assert not NB.is_sociopatterns(path)
    assert readers.guess_format(tmp_path / "dl") == "ucinet"
    with pytest.raises(readers.ReadError, match=r"format 'sociopatterns': .*look like 'ucinet'"):
        _read(tmp_path / "dl", format="sociopatterns")
    # named like a contact list, the content still says DL (sociopatterns is tried before ucinet)
    _write(tmp_path / "tij", "tij_school.dat", FULL)
    assert readers.guess_format(tmp_path / "tij") == "ucinet"


def test_a_sociopatterns_file_is_not_taken_as_dl(tmp_path):
    rf.write_sociopatterns(tmp_path / "sp")
    for path in (tmp_path / "sp").iterdir():
        assert not is_dl(path) and not NB.is_ucinet(path)
    assert readers.guess_format(tmp_path / "sp") == "sociopatterns"
    with pytest.raises(readers.ReadError, match="format 'ucinet'"):
        _read(tmp_path / "sp", format="ucinet")
    # a SocioPatterns list without its tij_ name beside a DL file: each format takes its own file
    _write(tmp_path / "both", "contacts.dat", "140\t1157\t1232\n160\t1157\t1232\n")
    _write(tmp_path / "both", "friends.dat", FULL)
    assert NB.network_file(tmp_path / "both", "ucinet").name == "friends.dat"
    assert NB.network_file(tmp_path / "both", "sociopatterns").name == "contacts.dat"


def test_the_csv_matrix_still_reads_as_ucinet(tmp_path):
    want = rf.write_ucinet(tmp_path / "u")
    b = _read(tmp_path / "u")
    assert b.notes["format"] == "ucinet" and b.files[0].name == "HIJACKERS.csv"
    assert b.counts["num_nodes"] == want["num_nodes"] and b.counts["num_edges"] == want["num_edges"]
    assert N.edge_values(b.files[0], "ucinet") == {"weights": False}


def test_a_dl_matrix_gives_the_csv_matrix_bundle(tmp_path):
    dl = _read(_write(tmp_path / "dl", "f.dat", FULL))
    rows = FULL.split("DATA:\n")[1].split("\n")[:5]
    names = "barry,david,lin,pat,russ".split(",")
    csv = '"",' + ",".join(names) + "\n" + "".join(f"{n}," + r.replace(" ", ",") + "\n" for n, r in zip(names, rows))
    table = _read(_write(tmp_path / "csv", "f.csv", csv))
    assert np.array_equal(dl.arrays["edge_index"], table.arrays["edge_index"])
    assert dl.counts == table.counts and dl.dropped == table.dropped


# ---------------------------------------------------------------------------------- full matrices


def test_full_matrix_reverse_records_self_loops_and_declared_nodes(tmp_path):
    records = read_ucinet_dl(_write(tmp_path, "f.dat", FULL))
    assert records.declared_nodes == 5 and records.directed is None
    assert records.src.size == 2 * len(FULL_PAIRS) + 1  # each undirected tie twice, pat's self-tie once
    assert _pairs(records) == FULL_PAIRS
    b = _read(tmp_path / "f.dat")
    # the reverse records name the same edges: not duplicates; russ has no tie: an isolated declared node
    assert _dropped(b, 4) == {"self_loops": 1, "duplicate_edges": 0, "isolated_nodes": 1}
    assert b.counts == {"num_nodes": 4, "num_edges": 4, "num_edge_records": 9, "num_declared_nodes": 5}
    assert b.arrays["edge_index"].T.tolist() == [list(p) for p in FULL_PAIRS]
    dl = parse_dl(tmp_path / "f.dat")
    assert dl.layout == "fullmatrix" and dl.row_labels == ["barry", "david", "lin", "pat", "russ"]


def test_header_spelling_keywords_over_several_lines_and_crlf(tmp_path):
    text = ("dl\r\n  n = 5,   nm=1\r\nFormat=FullMatrix\r\nlabels:\r\n\"barry\" david\r\nlin,\r\npat russ\r\n"
            "data:\r\n" + FULL.split("DATA:\n")[1].replace("\n", "\r\n"))
    records = read_ucinet_dl(_write(tmp_path, "h.txt", text, newline=""))
    assert _pairs(records) == FULL_PAIRS and records.declared_nodes == 5
    assert parse_dl(tmp_path / "h.txt").row_labels == ["barry", "david", "lin", "pat", "russ"]
    # no FORMAT: a full matrix; values separated by commas; no labels at all
    records = read_ucinet_dl(_write(tmp_path, "plain.dat", "DL N=3 DATA:\n0,1,0\n1,0,1\n0,1,0\n"))
    assert _pairs(records) == [(0, 1), (1, 2)]


def test_stacked_matrices_are_aggregated_with_their_number_and_weights_recorded(tmp_path):
    text = """DL N = 4, NM = 2
FORMAT = FULLMATRIX DIAGONAL = PRESENT
LEVEL LABELS:
friendship, "asks advice"
DATA:
0 1 0 0
1 0 0 0
0 0 0 0
0 0 0 0

0 3 0 0
0 0 0 0
0 0 0 0.5
0 0 0 0
"""
    path = _write(tmp_path / "k", "krack.dat", text)
    dl = parse_dl(path)
    assert dl.layers == 2 and dl.weighted and dl.level_labels == ["friendship", "asks advice"]
    assert N.edge_values(path, "ucinet") == {"weights": True, "layers": 2}
    b = _read(tmp_path / "k")
    assert b.counts["num_edges"] == 2 and b.counts["num_nodes"] == 4  # {0,1} in both layers, {2,3} in one
    assert _dropped(b, 1) == {"self_loops": 0, "duplicate_edges": 1, "weights": True, "layers": 2}
    assert readers.read_ucinet(tmp_path / "k").dropped == b.dropped


def _two_layer_15(crlf: bool) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """A DL file laid out as the issue's real download: ``N=15 NM=2`` on the first line, ``FORMAT =
    FULLMATRIX DIAGONAL PRESENT`` on one line, ROW/COLUMN/LEVEL LABELS sections, two stacked 15 x 15
    matrices; the ties of each layer as position pairs."""
    names = [f"P{k:02d}" for k in range(15)]
    names[3] = '"Maria Lopez"'  # a quoted label with a blank, beside bare ones
    first = [(k, k + 1) for k in range(14)]  # a path
    second = [(0, k) for k in range(5, 15, 3)]  # a star
    lines = ["DL N=15 NM=2", "FORMAT = FULLMATRIX DIAGONAL PRESENT", "ROW LABELS:", *names, "COLUMN LABELS:",
             ", ".join(names), "LEVEL LABELS:", "KINSHIP", '"BUSINESS TIES"', "DATA:"]
    for ties in (first, second):
        m = np.zeros((15, 15), dtype=int)
        for i, j in ties:
            m[i, j] = m[j, i] = 1
        lines += [" ".join(map(str, row)) for row in m]
    return ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n"), first, second


@pytest.mark.parametrize("crlf", [True, False])
def test_the_issues_layout_keywords_without_equals_labels_sections_and_two_layers(tmp_path, crlf):
    text, first, second = _two_layer_15(crlf)
    path = _write(tmp_path / "d", "kin.dat", text, newline="")
    dl = parse_dl(path)
    assert dl.layers == 2 and dl.layout == "fullmatrix" and not dl.weighted
    assert dl.row_labels[3] == "Maria Lopez" and dl.row_labels[14] == "P14" and dl.col_labels == dl.row_labels
    assert dl.level_labels == ["KINSHIP", "BUSINESS TIES"]
    assert _pairs(dl.records) == sorted(set(first) | set(second))
    # the layers are kept: each record knows its matrix, and the bundle's notes count them by level
    per_layer = [_pairs(type(dl.records)(dl.records.src[dl.record_layers == k], dl.records.dst[dl.record_layers == k]))
                 for k in (0, 1)]
    assert per_layer == [sorted(first), sorted(second)]
    assert dl.levels() == {"KINSHIP": 2 * len(first), "BUSINESS TIES": 2 * len(second)}
    b = _read(tmp_path / "d")
    assert b.counts["num_nodes"] == 15 and b.counts["num_edges"] == len(set(first) | set(second))
    assert b.notes["levels"] == {"KINSHIP": 28, "BUSINESS TIES": 8} and b.dropped["layers"] == 2


@pytest.mark.parametrize("header", [
    "DL N=3 FORMAT=FULLMATRIX DIAGONAL=PRESENT",  # all on the DL line, with =
    "dl n 3 format fullmatrix diagonal present",  # no = at all
    "DL\nDIAGONAL PRESENT, FORMAT = FULLMATRIX\nN = 3",  # any order, commas, several lines
    "DL FORMAT FULLMATRIX\nN=3  DIAGONAL  =  PRESENT",  # the size last, = with blanks
    "DL FM N 3",  # UCINET's short format name as a bare word after FORMAT... is not a keyword
])
def test_keywords_in_any_order_and_number_per_line_with_or_without_equals(tmp_path, header):
    text = header + "\nDATA:\n0 1 0\n1 0 1\n0 1 1\n"
    path = _write(tmp_path, "k.dat", text)
    if header == "DL FM N 3":
        with pytest.raises(readers.ReadError, match="DL keywords"):
            parse_dl(path)
        return
    dl = parse_dl(path)
    assert dl.records.declared_nodes == 3 and dl.layout == "fullmatrix"
    assert _pairs(dl.records) == [(0, 1), (1, 2)]
    assert (2, 2) in set(zip(dl.records.src.tolist(), dl.records.dst.tolist()))  # the diagonal read


def test_keywords_without_equals_end_a_label_section_and_diagonal_absent_bare(tmp_path):
    text = "DL N 3\nLABELS:\nx y z\nFORMAT LOWERHALF\nDIAGONAL ABSENT\nDATA:\n1\n0 1\n"
    dl = parse_dl(_write(tmp_path, "h.dat", text))
    assert dl.row_labels == ["x", "y", "z"] and dl.layout == "lowerhalf"
    assert _pairs(dl.records) == [(0, 1), (1, 2)]


def test_level_labels_embedded_before_each_matrix(tmp_path):
    text = ("DL N=2 NM=2 FORMAT FULLMATRIX\nLEVEL LABELS EMBEDDED\nROW LABELS EMBEDDED COLUMN LABELS EMBEDDED\n"
            'DATA:\nfriends\na b\na 0 1\nb 1 0\n"asks advice"\na b\na 0 0\nb 1 0\n')
    dl = parse_dl(_write(tmp_path, "l.dat", text))
    assert dl.level_labels == ["friends", "asks advice"] and dl.row_labels == ["a", "b"]
    assert dl.levels() == {"friends": 2, "asks advice": 1}
    bad = text.replace('"asks advice"', "asks advice")
    with pytest.raises(readers.ReadError, match=r"line 9: expected one level label before matrix 2"):
        parse_dl(_write(tmp_path, "b.dat", bad))


def test_zero_one_values_are_not_weights_and_one_matrix_records_no_layers(tmp_path):
    path = _write(tmp_path, "f.dat", FULL.replace("0 1 1 0 0", "0 1.0 1 0 0"))
    assert N.edge_values(path, "ucinet") == {"weights": False}
    assert "weights" not in _read(path).dropped and "layers" not in _read(path).dropped


def test_labels_embedded_in_a_full_matrix_quoted_labels_and_a_repeated_header(tmp_path):
    text = """DL N=3 NM=2
LABELS EMBEDDED
DATA:
"Majed Moqed" "Hani Hanjour" Atta
"Majed Moqed" 0 1 0
"Hani Hanjour" 1 0 0
Atta 0 0 0
"Majed Moqed" "Hani Hanjour" Atta
"Majed Moqed" 0 0 0
"Hani Hanjour" 0 0 1
Atta 0 1 0
"""
    dl = parse_dl(_write(tmp_path, "e.dat", text))
    assert dl.row_labels == ["Majed Moqed", "Hani Hanjour", "Atta"] and dl.layers == 2
    assert _pairs(dl.records) == [(0, 1), (1, 2)]
    lines = text.split("\n")
    del lines[7]  # the second matrix without the label line: read the same
    assert _pairs(read_ucinet_dl(_write(tmp_path, "f.dat", "\n".join(lines)))) == [(0, 1), (1, 2)]


def test_diagonal_absent_in_a_full_matrix(tmp_path):
    records = read_ucinet_dl(_write(tmp_path, "d.dat", "dl n=3 diagonal=absent\ndata:\n1 0\n1 1\n0 1\n"))
    assert list(zip(records.src.tolist(), records.dst.tolist())) == [(0, 1), (1, 0), (1, 2), (2, 1)]


# ---------------------------------------------------------------------------------- half matrices


@pytest.mark.parametrize("layout, diagonal, rows", [
    ("LOWERHALF", "PRESENT", ["0", "1 0", "1 0 0", "0 1 1 1", "0 0 0 0 0"]),
    ("LOWERHALF", "ABSENT", ["1", "1 0", "0 1 1", "0 0 0 0"]),
    ("UPPERHALF", "PRESENT", ["0 1 1 0 0", "0 0 1 0", "0 1 0", "1 0", "0"]),
    ("UPPERHALF", "ABSENT", ["1 1 0 0", "0 1 0", "1 0", "0"]),
])
def test_half_matrices_give_the_full_matrix_edges(tmp_path, layout, diagonal, rows):
    text = f"DL N=5\nFORMAT = {layout}\nDIAGONAL = {diagonal}\nDATA:\n" + "\n".join(rows) + "\n"
    records = read_ucinet_dl(_write(tmp_path, "h.dat", text))
    assert _pairs(records) == FULL_PAIRS and records.directed is False and records.declared_nodes == 5
    assert records.src.size == len(FULL_PAIRS) + (diagonal == "PRESENT")  # each tie once, pat's self-tie
    b = _read(tmp_path / "h.dat")
    assert b.counts["num_edges"] == 4 and b.dropped["isolated_nodes"] == 1


# ---------------------------------------------------------------------------------- edge and node lists


def test_edgelist1_with_numbers_labels_and_weights(tmp_path):
    text = """dl n=5 format=edgelist1
labels:
barry david lin pat russ
data:
1 2
barry lin 1
2 4 2.5
lin pat
4 4
david barry
1 5 0
"""
    path = _write(tmp_path / "el", "e.txt", text)
    dl = parse_dl(path)
    assert dl.layout == "edgelist" and dl.weighted and dl.records.declared_nodes == 5
    assert _pairs(dl.records) == FULL_PAIRS  # '1 5 0': a zero weight is no tie
    b = _read(tmp_path / "el")
    assert _dropped(b, 1) == {"self_loops": 1, "duplicate_edges": 0, "weights": True, "isolated_nodes": 1}


def test_edgelist1_with_embedded_names_numbered_by_first_appearance(tmp_path):
    text = 'DL N=5 FORMAT=EDGELIST1 LABELS EMBEDDED:\nDATA:\nbarry david\nbarry lin\n"da vid" pat\nlin pat\n'
    dl = parse_dl(_write(tmp_path, "e.dat", text))
    assert dl.row_labels == ["barry", "david", "lin", "da vid", "pat"]
    assert list(zip(dl.records.src.tolist(), dl.records.dst.tolist())) == [(0, 1), (0, 2), (3, 4), (2, 4)]
    b = _read(tmp_path / "e.dat")
    assert b.counts["num_nodes"] == 5 and b.counts["num_edges"] == 4 and "isolated_nodes" not in b.dropped
    assert "first appear" in b.notes["node_ids"]
    with pytest.raises(readers.ReadError, match=r"e\.dat, line 7: expected at most 5 distinct node names"):
        read_ucinet_dl(_write(tmp_path, "e.dat", text + "zoe ann\n"))


def test_nodelist1_links_the_first_node_to_each_of_the_others(tmp_path):
    text = "DL N=5\nFORMAT = NODELIST1\nDATA:\n1 2 3\n4 2 3\n5\n"
    records = read_ucinet_dl(_write(tmp_path, "n.dat", text))
    assert list(zip(records.src.tolist(), records.dst.tolist())) == [(0, 1), (0, 2), (3, 1), (3, 2)]
    assert _read(tmp_path / "n.dat").dropped["isolated_nodes"] == 1


def test_lists_of_several_matrices_separated_by_bangs(tmp_path):
    text = "dl n=4 nm=2 format=edgelist1\ndata:\n1 2\n2 3\n!\n2 1\n3 4\n"
    path = _write(tmp_path, "e.dat", text)
    assert _pairs(read_ucinet_dl(path)) == [(0, 1), (1, 2), (2, 3)]
    assert N.edge_values(path, "ucinet") == {"weights": False, "layers": 2}
    assert _read(path).dropped["layers"] == 2
    with pytest.raises(readers.ReadError, match=r"line 8: expected NM = 2 list\(s\) separated by '!'"):
        read_ucinet_dl(_write(tmp_path, "e.dat", text + "!\n1 4\n"))


# ---------------------------------------------------------------------------------- two-mode


def test_two_mode_rows_and_columns_are_two_node_sets(tmp_path):
    text = """DL NR=3, NC=4
ROW LABELS:
ann bob cat
COLUMN LABELS:
club1 club2 club3 club4
DATA:
1 0 1 0
0 1 0 0
1 0 0 0
"""
    dl = parse_dl(_write(tmp_path / "tm", "clubs.dat", text))
    assert dl.two_mode and dl.records.declared_nodes == 7 and dl.records.directed is False
    # column j is node 3 + j: columns numbered after the rows
    assert list(zip(dl.records.src.tolist(), dl.records.dst.tolist())) == [(0, 3), (0, 5), (1, 4), (2, 3)]
    assert dl.row_labels == ["ann", "bob", "cat"] and dl.col_labels == ["club1", "club2", "club3", "club4"]
    b = _read(tmp_path / "tm")
    assert b.counts["num_declared_nodes"] == 7 and b.counts["num_nodes"] == 6 and b.dropped["isolated_nodes"] == 1
    assert b.notes["node_ids"].startswith("two-mode")


def test_two_mode_edge_list_and_embedded_labels(tmp_path):
    text = "DL NR=2 NC=3 FORMAT=EDGELIST2\nDATA:\n1 3\n2 1\n2 3\n"
    records = read_ucinet_dl(_write(tmp_path, "e.dat", text))
    assert list(zip(records.src.tolist(), records.dst.tolist())) == [(0, 4), (1, 2), (1, 4)]
    text = "DL NR=2 NC=2\nLABELS EMBEDDED\nDATA:\nx y\na 1 0\nb 1 1\n"
    dl = parse_dl(_write(tmp_path, "m.dat", text))
    assert dl.row_labels == ["a", "b"] and dl.col_labels == ["x", "y"]
    assert list(zip(dl.records.src.tolist(), dl.records.dst.tolist())) == [(0, 2), (1, 2), (1, 3)]


# ---------------------------------------------------------------------------------- errors with the line


@pytest.mark.parametrize("text, line, parts", [
    ("DL N=3\nDATA:\n0 1 0\n1 0\n0 0 0\n", 4, ["a row of 3 values (row 2 of matrix 1", "found '2 value(s): 1 0'"]),
    ("DL N=3\nDATA:\n0 1 0\n1 0 0 1\n0 0 0\n", 4, ["a row of 3 values", "4 value(s)"]),
    ("DL N=3\nDATA:\n0 1 0\n1 0 0\n", 4, ["3 rows per matrix (N = 3)", "2 row(s) in matrix 1"]),
    ("DL N=2 NM=2\nDATA:\n0 1\n1 0\n0 1\n", 5, ["2 rows per matrix (N = 2, NM = 2)", "1 row(s) in matrix 2"]),
    ("DL N=2\nDATA:\n0 1\n1 0\n1 1\n", 5, ["nothing after the last matrix", "found '1 1'"]),
    ("DL N=3\nLABELS:\na,b\nDATA:\n0 1 0\n1 0 0\n0 0 0\n", 3, ["expected 3 labels (N = 3)", "2 label(s): a, b"]),
    ("DL N=2\nLABELS:\na b\nc\nDATA:\n0 1\n1 0\n", 4, ["expected 2 labels (N = 2)", "3 label(s)"]),
    ("DL N=2 NM=2\nLEVEL LABELS:\nfriends\nDATA:\n0 1\n1 0\n0 1\n1 0\n", 3, ["2 labels (NM = 2)"]),
    ("DL NR=1 NC=2\nCOLUMN LABELS:\nx\nDATA:\n1 1\n", 3, ["2 labels (NC = 2)"]),
    ("DL N=3\nFORMAT = BLOCKMATRIX\nDATA:\n0\n", 2, ["expected FORMAT = FULLMATRIX", "BLOCKMATRIX"]),
    ("DL N=2 FORMAT=LOWERHALF\nDATA:\n0\n1\n", 4, ["a row of 2 values (row 2 of matrix 1; N = 2, LOWERHALF)"]),
    ("DL N=2\nDATA:\n0 x\n1 0\n", 3, ["numbers in the matrix ('x' is not one", "LABELS EMBEDDED"]),
    ("DL N=2\nLABELS EMBEDDED\nDATA:\na b\nb 0 1\na 1 0\n", 5, ["row label 'a' (row 1 of matrix 1"]),
    ("DL N=3 FORMAT=EDGELIST1\nDATA:\n1 2\n2 4\n", 4, ["node numbers 1..3 (N = 3) or labels ('4' is neither"]),
    ("DL N=3 FORMAT=EDGELIST1\nDATA:\n1 2 1 7\n", 3, ["'i j [w]' per line (EDGELIST)"]),
    ("DL N=3\nFORMAT = EDGELIST1 WEIGHTS = YES\nDATA:\n1 2\n", 2, ["DL keywords", "WEIGHTS = YES"]),
    ("DL N=0\nDATA:\n", 1, ["N = a positive whole number"]),
    ("DL NM=2\nDATA:\n0\n", 1, ["N= (the number of nodes)"]),
])
def test_errors_name_the_file_and_the_line(tmp_path, text, line, parts):
    path = _write(tmp_path / "bad", "bad.dat", text)
    with pytest.raises(readers.ReadError) as info:
        _read(tmp_path / "bad", format="ucinet")
    message = str(info.value)
    assert info.value.line == line, message
    for part in ["format 'ucinet'", f"bad.dat, line {line}: ", *parts]:
        assert part in message, (part, message)
    with pytest.raises(readers.ReadError):  # the reader itself raises the same error
        read_ucinet_dl(path)


def test_an_error_without_a_line(tmp_path):
    with pytest.raises(readers.ReadError, match=r"bad\.dat: expected a 'DATA:' line, then the data") as info:
        read_ucinet_dl(_write(tmp_path, "bad.dat", "DL N=3\nLABELS:\na b c\n"))
    assert info.value.line is None
