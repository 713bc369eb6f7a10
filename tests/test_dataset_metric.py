"""Each dataset scored by its standard metric (issue 52): the catalogue's ``Dataset.metric``, meta.json's
``metric``, the headline it selects, and the ROC-AUC series a binary node task records."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import netzbench.params
from netzbench.catalog.card import card_text, current_card
from netzbench.catalog.data import fetch_task
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.families import METRIC_FAMILIES, headline
from netzbench.identity import task_spec
from netzbench.records import validate_seed_entry
from netzbench.params_file import read_yaml
from netzbench.training.fit import Hyper
from netzbench.training.node import train_node_cls
from helpers import as_settings

REPO = Path(__file__).resolve().parents[1]

#: the heterophily datasets the catalogue lists (Platonov et al. 2023) and the metric their authors score
#: them by: ROC-AUC for the binary, imbalanced ones, accuracy for the multi-class ones
HETEROPHILY = {"roman_empire": "accuracy", "amazon_ratings": "accuracy", "minesweeper": "roc_auc",
               "tolokers": "roc_auc", "questions": "roc_auc"}


@pytest.mark.parametrize("dataset,metric", sorted(HETEROPHILY.items()))
def test_every_heterophily_dataset_has_its_authors_metric(dataset, metric):
    ds = DATASETS[dataset]
    assert ds.metric == metric
    assert "Platonov" in ds.metric_source and ("ROC-AUC" in ds.metric_source) and "accuracy" in ds.metric_source


def test_the_dataset_listing_names_the_metric_and_its_source(tmp_path):
    from netzbench.listing import dataset_rows

    rows = {r["id"]: r for r in dataset_rows(None, tmp_path)}
    assert rows["minesweeper"]["metric"] == "roc_auc" and "Platonov" in rows["minesweeper"]["metric_source"]
    assert rows["cora"]["metric"] is None and rows["cora"]["metric_source"] is None


def test_the_catalogue_lists_no_other_heterophily_dataset():
    listed = {d.id for d in DATASETS.values() if "Platonov" in d.citation}
    assert listed == set(HETEROPHILY)


def test_every_metric_choice_names_its_source_and_serves_node_classification():
    chosen = {d.id: d for d in DATASETS.values() if d.metric is not None}
    assert set(HETEROPHILY) <= set(chosen)
    for d in chosen.values():
        assert d.metric_source and set(d.families) <= set(METRIC_FAMILIES)


def test_no_published_task_changes_metric():
    """``protocol: paper`` keeps the paper's metric for the paper's tasks: none of the published run's tasks
    has a metric other than its family's default, so its headlines (and its seeds' keys) stay what they were."""
    params = read_yaml(REPO / "params.yaml")
    for task_id in params["tasks"]:
        task = TASKS[task_id]
        metric = DATASETS[task.dataset].metric
        assert metric is None or metric == METRIC_FAMILIES.get(task.family), task_id


def test_headline_follows_the_metric():
    assert headline("node_cls") == ("test_acc", "higher")
    assert headline("node_cls", {}, "accuracy") == ("test_acc", "higher")
    assert headline("node_cls", {}, "roc_auc") == ("test_auc", "higher")
    assert headline("node_cls", {"link_metric": "mrr"}, "roc_auc") == ("test_auc", "higher")
    assert headline("link_pred", {"link_metric": "mrr"}, None) == ("test_mrr", "higher")
    with pytest.raises(ValueError, match="cannot be scored by"):
        headline("graph_reg", {}, "roc_auc")
    with pytest.raises(ValueError, match="cannot be scored by"):
        headline("node_cls", {}, "f1_illicit")


def _hetero_npz(path: Path, labels: np.ndarray, seed: int = 0) -> None:
    n = labels.size
    rng = np.random.default_rng(seed)
    edges = np.array([[i, (i + 1) % n] for i in range(n)], dtype=np.int64)
    masks = np.zeros((3, 10, n), dtype=bool)
    for s in range(10):
        perm = rng.permutation(n)
        masks[0, s, perm[: n // 2]], masks[1, s, perm[n // 2: 3 * n // 4]], masks[2, s, perm[3 * n // 4:]] = (
            True, True, True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, node_features=rng.normal(size=(n, 4)).astype(np.float32), node_labels=labels.astype(np.int64),
             edges=edges, train_masks=masks[0], val_masks=masks[1], test_masks=masks[2])


@pytest.fixture
def fake_mirror(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "mirror"
    root.mkdir()
    monkeypatch.setenv("NETZBENCH_MIRROR", str(root))
    return root


def test_meta_names_a_non_default_metric_only(fake_mirror, tmp_path):
    params = netzbench.params.merge(netzbench.params.DEFAULTS, {})
    _hetero_npz(fake_mirror / "questions" / "raw" / "questions.npz", np.arange(40) % 5 == 0)
    _hetero_npz(fake_mirror / "roman_empire" / "raw" / "roman_empire.npz", np.arange(40) % 3)
    questions = fetch_task("questions", as_settings(params), data_root=tmp_path / "data")
    roman = fetch_task("roman_empire", as_settings(params), data_root=tmp_path / "data")
    assert questions["metric"] == "roc_auc" and task_spec(questions)["metric"] == "roc_auc"
    assert "metric" not in roman and "metric" not in task_spec(roman)  # accuracy: the default, no new key
    # the card states the class imbalance and the constant predictor's score in the task's metric
    q_card, r_card = (current_card(tmp_path / "data" / t)["labels"] for t in ("questions", "roman_empire"))
    assert q_card["metric"] == "roc_auc" and q_card["constant_predictor"] == 0.5
    assert q_card["minority_share"] == 0.2 and q_card["imbalance_ratio"] == 4.0 and q_card["majority_share"] == 0.8
    assert r_card["metric"] == "accuracy" and r_card["constant_predictor"] == r_card["majority_share"] == 0.35
    assert r_card["imbalance_ratio"] == round(14 / 13, 2)
    assert "constant predictor 0.5" in card_text(current_card(tmp_path / "data" / "questions"))


def roc_auc_score(y, score) -> float:
    """ROC-AUC by its definition: the share of (positive, negative) pairs ranked right, ties counted half."""
    pos, neg = score[y == 1][:, None], score[y == 0][None, :]
    return float(((pos > neg) + 0.5 * (pos == neg)).mean())


class _FixedScores(torch.nn.Module):
    """Logits fixed in advance (a zero-weight parameter so Adam has something to step)."""

    def __init__(self, logits: torch.Tensor):
        super().__init__()
        self.logits = logits
        self.w = torch.nn.Parameter(torch.zeros(()))

    def forward(self, x, graph):
        return self.logits + self.w


def _binary_arrays(n: int = 60, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.25).astype(np.int64)
    train = np.zeros(n, bool)
    val = np.zeros(n, bool)
    test = np.zeros(n, bool)
    train[:20], val[20:40], test[40:] = True, True, True
    return {"x": rng.normal(size=(n, 3)).astype(np.float32), "y": y,
            "edge_index": np.array([np.arange(n - 1), np.arange(1, n)]), "train_mask": train, "val_mask": val,
            "test_mask": test}


def test_a_binary_node_task_records_roc_auc_of_the_log_odds():
    arrays = _binary_arrays()
    logits = torch.as_tensor(np.random.default_rng(3).normal(size=(60, 2)), dtype=torch.float32)
    hp = Hyper(hidden_channels=4, lr=0.0, weight_decay=0.0, epochs=2)
    result = train_node_cls(lambda i, h, c: _FixedScores(logits), arrays, 0, hp, "dataset_masks")
    score = (logits[:, 1] - logits[:, 0]).numpy()
    for split, mask in (("val", arrays["val_mask"]), ("test", arrays["test_mask"])):
        assert result.history[f"{split}_auc"][-1] == pytest.approx(roc_auc_score(arrays["y"][mask], score[mask]))
    assert result.history["test_distinctscores"][-1] == 20
    # every series name is one the run-record schema accepts (the per-seed cache refuses others)
    validate_seed_entry({"status": "ok", "history": result.history, "epochs": result.epochs,
                         "seconds": 0.1, "num_params": result.num_params, "baseline": result.baseline,
                         "peak_rss_mb": 1.0, "hidden_channels": 4, "split": result.split, "leakage": []})
    assert result.baseline["test_constant_auc"] == 0.5
    assert result.baseline["test_majority_acc"] == pytest.approx(1 - arrays["y"][40:].mean())


def test_a_constant_scorer_has_chance_auc_and_one_distinct_score():
    arrays = _binary_arrays(seed=1)
    logits = torch.tensor([[2.0, -1.0]]).repeat(60, 1)  # the majority class everywhere, one score
    hp = Hyper(hidden_channels=4, lr=0.0, weight_decay=0.0, epochs=1)
    result = train_node_cls(lambda i, h, c: _FixedScores(logits), arrays, 0, hp, "dataset_masks")
    assert result.history["test_auc"] == [0.5] and result.history["test_distinctscores"] == [1.0]


def test_a_multiclass_node_task_records_no_auc():
    arrays = _binary_arrays()
    arrays["y"] = np.arange(60) % 3
    logits = torch.as_tensor(np.random.default_rng(0).normal(size=(60, 3)), dtype=torch.float32)
    hp = Hyper(hidden_channels=4, lr=0.0, weight_decay=0.0, epochs=1)
    result = train_node_cls(lambda i, h, c: _FixedScores(logits), arrays, 0, hp, "dataset_masks")
    assert "test_auc" not in result.history and "test_constant_auc" not in result.baseline


def test_the_binary_heterophily_tasks_have_budgets_that_converge():
    """The budgets found on a 2-core CPU (issue 52; the figures are in the catalogue entry)."""
    assert {t: TASKS[t].epochs for t in HETEROPHILY} == {"roman_empire": 100, "amazon_ratings": 100,
                                                          "minesweeper": 200, "tolokers": 300, "questions": 100}
