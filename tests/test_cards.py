"""Dataset cards: the graph statistics against independent computations, the split audits on planted
leaks, and the cards of catalogue tasks against their meta.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from helpers import as_settings, make_params
from netzbench.catalog import graph_stats as gs
from netzbench.catalog.card import build_card, card_text
from netzbench.cli import main
from netzbench.graphs.layout import GRAPH, save_arrays, write_meta


def _pairs(edges):
    return gs.pairs_of(np.asarray(edges, dtype=np.int64).T)


# ------------------------------------------------------------------------------------ statistics


def test_homophily_at_its_bounds():
    two_cliques = [(a, b) for part in ((0, 1, 2), (3, 4, 5)) for a in part for b in part if a < b] + [(2, 3)]
    y = np.array([0, 0, 0, 1, 1, 1])
    h = gs.homophily(_pairs(two_cliques), y)
    assert h["edge_homophily"] == pytest.approx(6 / 7)
    bipartite = [(a, b) for a in (0, 1, 2) for b in (3, 4, 5)]
    h = gs.homophily(_pairs(bipartite), y)
    # no edge within a class; balanced classes: h_adj = (0 - 1/2) / (1 - 1/2); the neighbour's class
    # determines the node's, so LI = 1
    assert h["edge_homophily"] == 0 and h["adjusted_homophily"] == pytest.approx(-1.0)
    assert h["label_informativeness"] == pytest.approx(1.0)
    one_class = gs.homophily(_pairs(bipartite), np.zeros(6, dtype=int))
    assert one_class["edge_homophily"] == 1 and one_class["adjusted_homophily"] is None
    assert one_class["label_informativeness"] is None


def _random_graph(n=60, m=200, k=3, seed=0):
    rng = np.random.default_rng(seed)
    edges = {tuple(sorted(rng.choice(n, 2, replace=False).tolist())) for _ in range(m)}
    return sorted(edges), rng.integers(0, k, n)


def test_adjusted_homophily_is_newman_s_assortativity():
    nx = pytest.importorskip("networkx")
    for seed in range(3):
        edges, y = _random_graph(seed=seed)
        g = nx.Graph(edges)
        nx.set_node_attributes(g, {i: int(c) for i, c in enumerate(y)}, "c")
        want = nx.attribute_assortativity_coefficient(g, "c")
        assert gs.homophily(_pairs(edges), y)["adjusted_homophily"] == pytest.approx(want, abs=1e-6)


def test_label_informativeness_is_mutual_information_over_entropy():
    from scipy.stats import entropy

    edges, y = _random_graph(k=4, seed=5)
    ends = [(y[a], y[b]) for a, b in edges] + [(y[b], y[a]) for a, b in edges]  # a random edge, either way round
    joint = np.zeros((4, 4))
    for a, b in ends:
        joint[a, b] += 1
    joint /= joint.sum()
    marginal = joint.sum(axis=1)
    mi = entropy(marginal) + entropy(joint.sum(axis=0)) - entropy(joint.reshape(-1))
    assert gs.homophily(_pairs(edges), y)["label_informativeness"] == pytest.approx(mi / entropy(marginal), abs=1e-6)


def test_components_and_degrees():
    pairs = _pairs([(0, 1), (1, 2), (3, 4)])
    assert gs.components(pairs, 6) == {"count": 3, "largest": 3, "largest_share": 0.5}
    assert gs.degree_summary(gs.degrees(pairs, 6)) == {"min": 0, "median": 1.0, "mean": 1.0, "max": 2}


def _collection(graphs, labels, x=None):
    """Bundle arrays of a collection of (n, edges) graphs."""
    node_ptr = np.concatenate([[0], np.cumsum([n for n, _ in graphs])]).astype(np.int64)
    edge_ptr = np.concatenate([[0], np.cumsum([len(e) for _, e in graphs])]).astype(np.int64)
    ei = np.concatenate([np.asarray(e, dtype=np.int64).reshape(-1, 2) for _, e in graphs]).T
    return {"x": x if x is not None else np.ones((int(node_ptr[-1]), 1), dtype=np.float32), "edge_index": ei,
            "node_ptr": node_ptr, "edge_ptr": edge_ptr, "y": np.asarray(labels, dtype=np.int64)}


def test_wl_hashes_see_isomorphic_copies_and_tell_different_graphs_apart():
    cycle = (6, [(i, (i + 1) % 6) for i in range(6)])
    p = [3, 5, 1, 0, 2, 4]
    permuted = (6, [(p[a], p[b]) for a, b in cycle[1]])
    path = (6, [(i, i + 1) for i in range(5)])
    star = (6, [(0, i) for i in range(1, 6)])
    a = _collection([cycle, permuted, path, star], [0, 0, 0, 0])
    h = gs.wl_hashes(a["edge_index"], a["node_ptr"], a["edge_ptr"], a["x"])
    assert h[0] == h[1] and len({h[0], h[2], h[3]}) == 3
    # node features are the initial colours: the same cycle with one node marked is another graph
    x = a["x"].copy()
    x[0, 0] = 2.0
    assert gs.wl_hashes(a["edge_index"], a["node_ptr"], a["edge_ptr"], x)[0] != h[0]


def test_wl_groups_agree_with_networkx():
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(3)
    graphs = []
    for i in range(30):
        g = nx.gnm_random_graph(7, 8 + i % 3, seed=int(rng.integers(1 << 30)))
        graphs.append(g)
        if i % 4 == 0:  # an isomorphic copy with shuffled node ids
            perm = dict(zip(range(7), rng.permutation(7).tolist()))
            graphs.append(nx.relabel_nodes(g, perm))
    a = _collection([(7, list(g.edges())) for g in graphs], [0] * len(graphs))
    ours = gs.wl_hashes(a["edge_index"], a["node_ptr"], a["edge_ptr"], a["x"])
    theirs = [nx.weisfeiler_lehman_graph_hash(g, iterations=3) for g in graphs]
    group = lambda hs: sorted(sorted(i for i, v in enumerate(hs) if v == h) for h in set(hs))  # noqa: E731
    assert group(ours) == group(theirs)
    assert len(set(ours)) < len(ours)  # the planted copies were found


# ------------------------------------------------------------------------------------ audits


def _task(tmp_path, name, family, split, arrays, **meta):
    out = tmp_path / name
    out.mkdir()
    save_arrays(out / GRAPH, arrays)
    write_meta(out, {"task": name, "dataset": name, "family": family, "split": split, "status": "ok",
                     "synthetic": False, **meta})
    return out


def test_a_graph_duplicated_across_splits_is_a_warning(tmp_path):
    cycle = (5, [(i, (i + 1) % 5) for i in range(5)])
    shifted = (5, [((a + 2) % 5, (b + 2) % 5) for a, b in cycle[1]])  # the same cycle, other ids
    path = (5, [(i, i + 1) for i in range(4)])
    star = (5, [(0, i) for i in range(1, 5)])
    arrays = _collection([cycle, path, star, shifted], [1, 0, 1, 1])
    arrays["split"] = np.array([0, 0, 1, 2], dtype=np.int8)
    card = build_card(_task(tmp_path, "dup", "graph_cls", "dataset_split", arrays))
    assert card["split"]["test_identical_to_training"] == 1 and card["split"]["validation_identical_to_training"] == 0
    assert "1 test graph(s) are identical (WL hash, same label) to a training graph" in card["warnings"]
    arrays["y"] = np.array([1, 0, 1, 0])  # the copy now carries another label: a conflict, not a leak
    card = build_card(_task(tmp_path, "conflict", "graph_cls", "dataset_split", arrays))
    assert card["split"]["test_identical_to_training"] == 0 and card["split"]["identical_with_other_labels"] == 1
    assert any("carry different labels" in w for w in card["warnings"])


def _kg(test_pairs):
    train = np.array([[0, 1], [1, 2], [2, 3], [3, 4]]).T
    test = np.asarray(test_pairs).reshape(-1, 2).T
    return {"num_nodes": np.asarray(6), "num_relations": np.asarray(2),
            "train_edge_index": train, "train_edge_type": np.array([0, 1, 0, 1]),
            "valid_edge_index": np.array([[0], [3]]), "valid_edge_type": np.array([0]),
            "test_edge_index": test, "test_edge_type": np.zeros(test.shape[1], dtype=np.int64)}


def test_a_held_out_reverse_edge_is_a_warning(tmp_path):
    card = build_card(_task(tmp_path, "clean", "link_pred", "relational_canonical", _kg([[0, 2], [1, 4]])))
    assert card["warnings"] == [] and card["split"]["test"]["reverse_pair_in_training"] == 0
    card = build_card(_task(tmp_path, "leak", "link_pred", "relational_canonical", _kg([[2, 1], [0, 2], [0, 1]])))
    test = card["split"]["test"]
    # (2, 1) reverses the training pair (1, 2); (0, 1, r0) is a training triple itself
    assert test["reverse_pair_in_training"] == 1 and test["repeat_a_training_triple"] == 1
    assert test["pair_in_training"] == 1
    assert any(w.startswith("1 of 3 test triple(s) (33.3%) have their reverse pair") for w in card["warnings"])
    assert "1 test triple(s) are also training triples" in card["warnings"]


def test_node_masks_overlapping_and_a_class_missing_from_training(tmp_path):
    y = np.array([0, 0, 1, 1, 2, 2])
    masks = {"train_mask": np.array([1, 1, 1, 0, 0, 0], bool), "val_mask": np.array([0, 0, 0, 1, 0, 0], bool),
             "test_mask": np.array([1, 0, 0, 0, 1, 1], bool)}
    arrays = {"x": np.eye(6, dtype=np.float32), "edge_index": np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]]),
              "num_nodes": np.asarray(6), "y": y, **masks}
    card = build_card(_task(tmp_path, "nodes", "node_cls", "dataset_masks", arrays))
    assert card["split"]["in_several_splits"] == 1 and card["split"]["test_classes_not_in_train"] == [2]
    assert card["labels"]["counts"] == [2, 2, 2] and card["labels"]["majority_share"] == pytest.approx(1 / 3, abs=1e-4)
    assert len(card["warnings"]) == 2


def test_a_pair_listed_in_both_directions_is_a_link_split_warning(tmp_path):
    arrays = {"edge_index": np.array([[0, 1, 2, 1], [1, 2, 3, 0]]), "num_nodes": np.asarray(4)}
    card = build_card(_task(tmp_path, "twice", "link_pred", "random_edge_80_10_10", arrays))
    assert card["split"]["pairs_listed_twice"] == 1 and card["sizes"]["edges"] == 3
    assert "hold one copy out while training on the other" in card["warnings"][0]


# ------------------------------------------------------------------------------------ catalogue tasks


def _fetched(tmp_path, tasks):
    from netzbench.catalog.data import fetch_task

    params = make_params(tasks=list(tasks))
    return {t: fetch_task(t, as_settings(params), tmp_path) for t in tasks}


def _agrees(card, meta):
    counts = meta["counts"]
    if card["family"] in ("graph_cls", "graph_reg"):
        assert card["sizes"]["graphs"] == counts["num_graphs"]
    else:
        assert card["sizes"]["nodes"] == counts["num_nodes"]
    if "num_train_triples" not in counts:  # a knowledge graph's num_edges counts pairs over every split
        assert card["sizes"]["edges"] == counts["num_edges"]
    if "num_classes" in counts and card["family"] != "link_pred":  # a link task keeps a node dataset's count
        assert card["labels"]["classes"] == counts["num_classes"]


def test_cards_of_offline_catalogue_tasks_agree_with_meta(tmp_path):
    metas = _fetched(tmp_path, ["karate", "random_tsp", "ising_lattice"])
    for task, meta in metas.items():
        card = build_card(tmp_path / task)
        assert card["status"] == "ok" and card["task"] == task
        if "counts" in meta:
            _agrees(card, meta)
    karate = build_card(tmp_path / "karate")
    assert karate["sizes"]["nodes"] == 34 and karate["sizes"]["edges"] == 78
    assert karate["labels"]["edge_homophily"] > 0.7  # the two factions of the club
    assert build_card(tmp_path / "random_tsp")["instance"].startswith("generated")


@pytest.mark.mirror
def test_cards_from_the_mirror_agree_with_meta_and_published_homophily(tmp_path, mirror, monkeypatch):
    monkeypatch.setenv("NETZBENCH_MIRROR", str(mirror))
    metas = _fetched(tmp_path, ["cora", "citeseer", "mutag", "euroroad", "terrorists_911", "wordnet18rr"])
    for task, meta in metas.items():
        _agrees(build_card(tmp_path / task), meta)
    # Platonov et al. 2023, Table 1: Cora h_edge 0.81, h_adj 0.77, LI 0.59; CiteSeer 0.74, 0.67, 0.45
    for task, want in (("cora", (0.81, 0.77, 0.59)), ("citeseer", (0.74, 0.67, 0.45))):
        labels = build_card(tmp_path / task)["labels"]
        got = (labels["edge_homophily"], labels["adjusted_homophily"], labels["label_informativeness"])
        assert got == pytest.approx(want, abs=0.006), task


def test_netzbench_card_prints_the_card_and_its_json(tmp_path):
    _fetched(tmp_path, ["karate"])
    result = CliRunner().invoke(main, ["card", "karate", "--data-root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "karate (node_cls" in result.output and "edge homophily" in result.output
    assert card_text(build_card(tmp_path / "karate")) in result.output
    result = CliRunner().invoke(main, ["card", "karate", "--data-root", str(tmp_path), "--json"])
    assert json.loads(result.output)["sizes"]["nodes"] == 34
    result = CliRunner().invoke(main, ["card", "nosuch", "--data-root", str(tmp_path)])
    assert result.exit_code != 0 and "netzbench fetch nosuch" in result.output


def _offline_tasks(mirror_root) -> list[str]:
    from netzbench.catalog.custom import process
    from netzbench.catalog.table import DATASETS, TASKS

    def here(ds) -> bool:  # the catalogue's own (custom tasks other tests registered are not)
        return ds.processor is not process and (not ds.needs_download or (mirror_root / ds.id).is_dir())

    return sorted(t for t, spec in TASKS.items() if spec.dataset in DATASETS and here(DATASETS[spec.dataset]))


def _mirror_at_collection() -> Path:
    return Path(os.environ.get("NETZBENCH_MIRROR") or "/nonexistent")


@pytest.mark.mirror
def test_at_least_30_catalogue_tasks_are_obtainable_offline(mirror):
    assert len(_offline_tasks(mirror)) >= 30  # the mirror's datasets and every generated one


@pytest.mark.mirror
@pytest.mark.parametrize("task", _offline_tasks(_mirror_at_collection()))  # one test each: spread over workers
def test_every_catalogue_task_obtainable_offline_has_a_card_that_agrees_with_meta(task, tmp_path, mirror,
                                                                                   monkeypatch):
    from netzbench.catalog.data import fetch_task

    monkeypatch.setenv("NETZBENCH_MIRROR", str(mirror))
    meta = fetch_task(task, as_settings(make_params(tasks=[task])), tmp_path)
    card = build_card(tmp_path / task)
    assert card["status"] == meta["status"], task
    if meta["status"] == "ok" and "counts" in meta:
        _agrees(card, meta)
    json.dumps(card)  # what `netzbench card --json` prints


def test_fetch_writes_the_card_beside_the_data_and_the_card_is_not_in_its_hash(tmp_path):
    from netzbench.graphs.layout import CARD, data_hash

    _fetched(tmp_path, ["karate", "random_tsp"])
    for task in ("karate", "random_tsp"):
        path = tmp_path / task / CARD
        card = json.loads(path.read_text())
        assert card["data"] == data_hash(tmp_path / task) and card["sizes"]["nodes"] > 0
    before, stamp = data_hash(tmp_path / "karate"), (tmp_path / "karate" / CARD).stat().st_mtime_ns
    _fetched(tmp_path, ["karate"])  # the same data: the card is kept, not computed again
    assert (tmp_path / "karate" / CARD).stat().st_mtime_ns == stamp
    (tmp_path / "karate" / CARD).write_text("{}")  # a card never moves the data's hash (nor a seed's key)
    assert data_hash(tmp_path / "karate") == before
    assert build_card(tmp_path / "karate")["sizes"]["nodes"] == 34
    _fetched(tmp_path, ["karate"])  # an unreadable or foreign card is replaced
    assert json.loads((tmp_path / "karate" / CARD).read_text())["data"] == before


def test_the_report_lists_each_task_s_card_and_its_warnings(tmp_path):
    """A card in the run records (fetch wrote it, plan copied its figures) becomes REPORT.md's dataset table."""
    import test_report_stage as trs
    from netzbench.catalog.card import card_summary, current_card
    from netzbench.records import read_record, write_record
    from netzbench.report.stage import run_report_stage

    collection = _collection([(5, [(i, (i + 1) % 5) for i in range(5)]), (5, [(i, (i + 1) % 5) for i in range(5)]),
                              (5, [(i, i + 1) for i in range(4)])], [1, 1, 0])
    data = _task(tmp_path, "dupmols", "graph_cls", "random_graph_80_10_10", collection)
    current_card(data)
    summary = card_summary(data)
    assert summary["graphs"] == 3 and summary["classes"] == 2 and len(summary["warnings"]) == 1
    work = tmp_path / "work"
    work.mkdir()
    rng = np.random.default_rng(0)
    for task, family, metric, direction in trs.TASKS:
        for i, model in enumerate(trs.MODELS):
            seeds = {str(s): trs._seed_entry(float(0.6 + 0.03 * i + rng.normal(0, 0.01))) for s in range(trs.S)}
            record = trs._record(task, family, metric, direction, model, seeds)
            if task == "mutag":
                record["card"] = summary
            write_record(work / "metrics/runs" / task / f"{model}.json", record)
    assert read_record(work / "metrics/runs/mutag/GCN.json")["card"] == summary  # the schema takes it
    run_report_stage(as_settings(trs._params()), root=work)
    text = (work / "reports/REPORT.md").read_text()
    assert "- **Datasets** (their cards: `netzbench card <task>`" in text
    row = next(line for line in text.splitlines() if line.startswith("  | `mutag` |"))
    assert "| 3 | 15 | 14 | 2 | 0.667 |" in row and "2 graph(s) have an identical copy (WL hash" in row  # 5 + 5 + 4 edges
    assert not any(line.startswith("  | `karate` |") for line in text.splitlines())  # no card in its records
