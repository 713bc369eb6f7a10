"""Small datasets written in their original raw layouts, with the quirks real files have.

Each ``write_<format>(folder)`` writes the files into ``folder`` (created)
and returns what a reader must find: the counts, what was dropped, the
label mapping. Imported by the tests as ``from raw_fixtures import ...``.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import numpy as np

CRLF = "\r\n"


def _ring(n: int, start: int = 0) -> list[tuple[int, int]]:
    return [(start + i, start + (i + 1) % n) for i in range(n)]


def write_gml(folder: Path, n: int = 30) -> dict:
    """Newman-style GML: a ``Creator`` line, quoted labels with blanks, a ``value`` class per node,
    weighted edges, one repeated edge, one listed in reverse, a self-loop; CRLF line ends."""
    folder.mkdir(parents=True, exist_ok=True)
    classes = "lnc"
    lines = ['Creator "Mark Newman on Fri Jul 21 12:44:53 2006"', "graph", "[", "  directed 0"]
    for i in range(n):
        lines += ["  node", "  [", f"    id {i}", f'    label "Book number {i} (2004)"', f'    value "{classes[i % 3]}"',
                  "  ]"]
    edges = _ring(n) + [(i, i + 3) for i in range(0, n - 3, 5)]
    for s, t in edges + [(0, 1), (1, 0), (4, 4)]:
        lines += ["  edge", "  [", f"    source {s}", f"    target {t}", "    value 2", "  ]"]
    lines.append("]")
    (folder / "books.gml").write_bytes(CRLF.join(lines).encode() + CRLF.encode())
    return {"num_nodes": n, "num_edges": len(edges), "self_loops": 1, "duplicate_edges": 1, "num_classes": 3,
            "label_mapping": {"0": "c", "1": "l", "2": "n"}}


def write_konect(folder: Path, n: int = 12) -> dict:
    """KONECT ``out.<name>``: ``% sym posweighted`` and ``% E N N`` headers, 1-based ids, weights,
    a repeated line, a reversed one, a self-loop, CRLF."""
    folder.mkdir(parents=True, exist_ok=True)
    records = [(s + 1, t + 1) for s, t in _ring(n)] + [(1, 2), (3, 2), (5, 5)]
    body = "".join(f"{s} {t} 1{CRLF}" for s, t in records)
    (folder / "out.fixture_konect").write_text(f"% sym posweighted{CRLF}% {len(records)} {n} {n}{CRLF}{body}",
                                                newline="")
    (folder / "README.fixture_konect").write_text("A KONECT README, not data.\n")
    return {"num_nodes": n, "num_edges": n, "self_loops": 1, "duplicate_edges": 1, "reverse_duplicates": 1}


def write_edgelist_csv(folder: Path, n: int = 20) -> dict:
    """CSV with comment lines, a ``source, target, weight`` header, comma-space separators, CRLF."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = _ring(n) + [(0, 1), (1, 0), (3, 3)]
    text = "# exported by a tool" + CRLF + "source, target, weight" + CRLF
    text += "".join(f"{s}, {t}, 0.5{CRLF}" for s, t in rows)
    (folder / "edges.csv").write_text(text, newline="")
    return {"num_nodes": n, "num_edges": n, "self_loops": 1, "duplicate_edges": 1, "extra_columns": 1}


def write_edgelist_snap(folder: Path, n: int = 15) -> dict:
    """SNAP style: ``#`` comment header, tab-separated, ids with gaps (10, 20, ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [(10 * s, 10 * t) for s, t in _ring(n)]
    text = f"# Directed graph: fixture.txt\n# Nodes: {n} Edges: {n}\n# FromNodeId\tToNodeId\n"
    (folder / "fixture.txt").write_text(text + "".join(f"{s}\t{t}\n" for s, t in rows))
    return {"num_nodes": n, "num_edges": n, "self_loops": 0, "duplicate_edges": 0}


def write_edgelist_named(folder: Path) -> dict:
    """Names as node ids and a ``from to`` header."""
    folder.mkdir(parents=True, exist_ok=True)
    names = ["ana", "ben", "cleo", "dan", "eve", "finn", "gus", "hal", "ida", "jo", "kim", "lea"]
    rows = [(names[s], names[t]) for s, t in _ring(len(names))] + [("ana", "ben")]
    (folder / "friends.tsv").write_text("from\tto\n" + "".join(f"{s}\t{t}\n" for s, t in rows))
    return {"num_nodes": len(names), "num_edges": len(names), "duplicate_edges": 1}


def write_netzschleuder(folder: Path, n: int = 16) -> dict:
    """``<net>.csv.zip`` with ``edges.csv`` (a quoted vector property) and ``nodes.csv`` (a class column)."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = _ring(n) + [(0, 1), (2, 2)]
    edges = "# source, target, weight, _pos\n" + "".join(f'{s},{t},1.5,"array([0.1, 0.2])"\n' for s, t in rows)
    nodes = "# index, name, club, _pos\n" + "".join(f'{i},Member {i},{"red" if i % 2 else "blue"},'
                                                     f'"array([{i}.0, 1.0])"\n' for i in range(n))
    with zipfile.ZipFile(folder / "fixture.csv.zip", "w") as zf:
        zf.writestr("edges.csv", edges)
        zf.writestr("nodes.csv", nodes)
        zf.writestr("gprops.csv", "# prop_name, value\nname, fixture\n")
    return {"num_nodes": n, "num_edges": n, "self_loops": 1, "duplicate_edges": 1, "num_classes": 2,
            "edge_attributes": ["weight", "_pos"]}


def write_sociopatterns(folder: Path) -> dict:
    """``tij_<name>.dat``: tab-separated ``t i j`` contacts every 20 s, badge ids as issued."""
    folder.mkdir(parents=True, exist_ok=True)
    badges = [1157, 1232, 1191, 1159, 1144, 1178, 1101, 1205, 1260, 1263, 1295, 1340]
    pairs = [(badges[i], badges[(i + 1) % len(badges)]) for i in range(len(badges))]
    lines = [f"{140 + 20 * k}\t{i}\t{j}" for k in range(3) for i, j in pairs]
    (folder / "tij_fixture.dat").write_text("\n".join(lines) + "\n")
    (folder / "metadata_fixture.dat").write_text("".join(f"{b}\tNUR\n" for b in badges))
    return {"num_nodes": len(badges), "num_edges": len(pairs), "duplicate_edges": 2 * len(pairs)}


def write_ucinet(folder: Path) -> dict:
    """UCINET CSV export: UTF-8 BOM, an empty quoted corner cell, names, 0/1 cells, a blank cell,
    asymmetric ties, and an attribute CSV beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    names = ["Majed Moqed", "Khalid Al-Mihdhar", "Hani Hanjour", "Nawaf Alhazmi", "Salem Alhazmi", "Ahmed Alnami",
             "Ahmed Alghamdi", "Hamza Alghamdi", "Mohand Alshehri", "Fayez Ahmed", "Marwan Al-Shehhi", "Mohamed Atta"]
    n = len(names)
    m = np.zeros((n, n), dtype=int)
    for s, t in _ring(n):
        m[s, t] = 1  # one direction only: the undirected pairs are the ring
    m[2, 1] = 1  # both directions for one pair
    rows = ['"",' + ",".join(names)]
    for i, name in enumerate(names):
        cells = [str(v) for v in m[i]]
        if i == 4:
            cells[0] = ""  # a blank cell: no recorded tie
        rows.append(f"{name}," + ",".join(cells))
    (folder / "HIJACKERS.csv").write_text("\ufeff" + "\r\n".join(rows) + "\r\n", encoding="utf-8", newline="")
    (folder / "HIJACKERS_ATTR.csv").write_text('"",Strength\n' + "".join(f"{x},1\n" for x in names))
    return {"num_nodes": n, "num_edges": n}


def write_multiplex(folder: Path, n: int = 10) -> dict:
    """CoMuNe-lab ``<name>_multiplex.edges``: ``layer node node weight``, the same pair in two layers."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [(1, s + 1, t + 1) for s, t in _ring(n)] + [(2, 1, 2), (2, 1, 5)]
    (folder / "fixture_multiplex.edges").write_text("".join(f"{layer} {s} {t} 1\n" for layer, s, t in rows))
    (folder / "fixture_layers.txt").write_text("layerID layerLabel\n1 bus\n2 tram\n")
    return {"num_nodes": n, "num_edges": n + 1, "duplicate_edges": 1}


def write_tu(folder: Path, name: str = "FIXMOL", graphs: int = 24, node_labels: bool = True,
             attributes: bool = False, targets: bool = False) -> dict:
    """A TU collection: ``i, j`` lines with both directions, 1-based ids, ``-1``/``1`` graph labels,
    CRLF line ends; one repeated edge record. Graphs alternate triangles and 4-cycles with a tail."""
    folder.mkdir(parents=True, exist_ok=True)
    A, indicator, labels, node_lab, attrs, degrees = [], [], [], [], [], []
    first = 1
    for g in range(graphs):
        n = 3 if g % 2 == 0 else 5
        ids = list(range(first, first + n))
        pairs = list(zip(ids, ids[1:])) + [(ids[-1], ids[0])] if n == 3 else \
            list(zip(ids[:4], ids[1:4] + [ids[0]])) + [(ids[3], ids[4])]
        deg = np.zeros(n)
        for a, b in pairs:
            A += [(a, b), (b, a)]
            deg[a - first] += 1
            deg[b - first] += 1
        degrees.append(deg)
        indicator += [g + 1] * n
        labels.append(-1 if g % 2 == 0 else 1)
        node_lab += [(i % 2) + 1 for i in range(n)]
        attrs += [(0.5 * i, 1.0) for i in range(n)]
        first += n
    A.append(A[0])  # a repeated record
    (folder / f"{name}_A.txt").write_text("".join(f"{a}, {b}{CRLF}" for a, b in A), newline="")
    (folder / f"{name}_graph_indicator.txt").write_text("".join(f"{g}{CRLF}" for g in indicator), newline="")
    (folder / f"{name}_graph_labels.txt").write_text("".join(f"{y}{CRLF}" for y in labels), newline="")
    if node_labels:
        (folder / f"{name}_node_labels.txt").write_text("".join(f"{v}{CRLF}" for v in node_lab), newline="")
    if attributes:
        (folder / f"{name}_node_attributes.txt").write_text("".join(f"{a}, {b}{CRLF}" for a, b in attrs),
                                                             newline="")
    if targets:
        (folder / f"{name}_graph_attributes.txt").write_text("".join(f"{0.25 * g}{CRLF}" for g in range(graphs)),
                                                              newline="")
    (folder / "README.txt").write_text("TU README\n")
    nodes = len(indicator)
    return {"num_graphs": graphs, "num_nodes": nodes, "num_edges": (len(A) - 1) // 2, "num_classes": 2,
            "duplicate_edges": 1, "self_loops": 0, "label_mapping": {"0": -1, "1": 1},
            "num_features": (2 if attributes else 0) + (2 if node_labels else 0) or 2, "degrees": degrees}


def write_planetoid(folder: Path, name: str = "fixcite", train: int = 12, other: int = 520, test: int = 40,
                    features: int = 6, classes: int = 3) -> dict:
    """Planetoid pickles ``ind.<name>.*`` (scipy sparse features, one-hot labels, an adjacency dict
    with a duplicate neighbour) and the text ``test.index`` (unsorted); PyG takes 500 validation nodes."""
    import scipy.sparse as sp

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    n_all = train + other
    n = n_all + test
    label = np.arange(n) % classes
    onehot = np.eye(classes)[label]
    x = rng.random((n, features)) + onehot[:, :1]
    test_index = np.arange(n_all, n)[::-1]
    objects = {"x": sp.csr_matrix(x[:train]), "allx": sp.csr_matrix(x[:n_all]), "tx": sp.csr_matrix(x[n_all:]),
               "y": onehot[:train], "ally": onehot[:n_all], "ty": onehot[n_all:]}
    graph = {i: [(i + 1) % n, (i - 1) % n] for i in range(n)}
    graph[0] = graph[0] + [1]  # a duplicate neighbour
    objects["graph"] = graph
    for suffix, obj in objects.items():
        with open(folder / f"ind.{name}.{suffix}", "wb") as fh:
            pickle.dump(obj, fh, protocol=2)
    (folder / f"ind.{name}.test.index").write_text("".join(f"{i}\n" for i in test_index))
    return {"num_nodes": n, "num_edges": n, "num_classes": classes, "num_features": features}


def write_triples(folder: Path) -> dict:
    """Named triples ``head<TAB>relation<TAB>tail`` in train/valid/test, Freebase-like names, a repeated
    train triple, CRLF in one file."""
    folder.mkdir(parents=True, exist_ok=True)
    ents = [f"/m/0{i:03d}x" for i in range(20)]
    rels = ["/film/genre", "/people/person/nationality", "/location/contains"]
    train = [(ents[i], rels[i % 3], ents[(i + 1) % 20]) for i in range(20)] + [(ents[i], rels[0], ents[(i + 5) % 20])
                                                                            for i in range(0, 20, 2)]
    valid = [(ents[i], rels[1], ents[(i + 2) % 20]) for i in range(0, 20, 4)]
    test = [(ents[i], rels[2], ents[(i + 3) % 20]) for i in range(1, 20, 4)]
    (folder / "train.txt").write_text("\n".join("\t".join(t) for t in train + [train[0]]) + "\n")
    (folder / "valid.txt").write_text(CRLF.join("\t".join(t) for t in valid) + CRLF, newline="")
    (folder / "test.txt").write_text("\n".join("\t".join(t) for t in test) + "\n")
    every = {frozenset((h, t)) for h, _, t in train + valid + test}
    return {"num_nodes": 20, "num_relations": 3, "num_train_triples": len(train), "num_valid_triples": len(valid),
            "num_test_triples": len(test), "num_edges": len(every), "duplicate_train_triples": 1}


def write_openke(folder: Path) -> dict:
    """OpenKE ``*2id.txt``: a count line first, then ``head tail relation``; entity2id/relation2id."""
    folder.mkdir(parents=True, exist_ok=True)
    n, k = 15, 2
    train = [(i, (i + 1) % n, i % k) for i in range(n)] + [(i, (i + 4) % n, 1) for i in range(0, n, 3)]
    valid = [(i, (i + 2) % n, 0) for i in range(0, n, 5)]
    test = [(i, (i + 3) % n, 1) for i in range(1, n, 5)]
    for stem, rows in (("train2id", train), ("valid2id", valid), ("test2id", test)):
        (folder / f"{stem}.txt").write_text(f"{len(rows)}\n" + "".join(f"{h} {t} {r}\n" for h, t, r in rows))
    (folder / "entity2id.txt").write_text(f"{n}\n" + "".join(f"Q{i}\t{i}\n" for i in range(n)))
    (folder / "relation2id.txt").write_text(f"{k}\n" + "".join(f"P{i}\t{i}\n" for i in range(k)))
    return {"num_nodes": n, "num_relations": k, "num_train_triples": len(train), "num_valid_triples": len(valid),
            "num_test_triples": len(test)}
