"""Torch metrics against independent references (scipy, hand computation)."""

import numpy as np
import pytest
import torch
from scipy.stats import mannwhitneyu

from netzbench.training import metrics as M


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_roc_auc_equals_mann_whitney_u(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=200), 1)  # rounding creates ties
    labels = rng.random(200) < 0.4
    u = mannwhitneyu(scores[labels], scores[~labels]).statistic
    expected = u / (labels.sum() * (~labels).sum())
    assert M.roc_auc(torch.tensor(scores), torch.tensor(labels)) == pytest.approx(expected, abs=1e-12)


def test_roc_auc_edge_cases():
    assert M.roc_auc(torch.tensor([0.1, 0.9]), torch.tensor([0, 1])) == 1.0
    assert M.roc_auc(torch.tensor([0.9, 0.1]), torch.tensor([0, 1])) == 0.0
    assert M.roc_auc(torch.tensor([0.5, 0.5]), torch.tensor([0, 1])) == 0.5
    assert np.isnan(M.roc_auc(torch.tensor([0.1, 0.2]), torch.tensor([1, 1])))


def test_average_precision_by_hand():
    scores = torch.tensor([0.9, 0.8, 0.7, 0.6, 0.5])
    labels = torch.tensor([1, 0, 1, 0, 1])
    # precision at each positive: 1/1, 2/3, 3/5
    assert M.average_precision(scores, labels) == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)


def test_accuracy_macro_f1_mae_rmse():
    logits = torch.tensor([[2.0, 0.0], [0.0, 1.0], [3.0, 0.0], [0.0, 2.0]])
    y = torch.tensor([0, 1, 1, 1])
    assert M.accuracy(logits, y) == 0.75
    # class 0: tp 1, fp 1, fn 0 -> 2/3; class 1: tp 2, fp 0, fn 1 -> 4/5
    assert M.macro_f1(logits, y, 2) == pytest.approx((2 / 3 + 4 / 5) / 2)
    pred, target = torch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 3.0, 2.0])
    assert M.mae(pred, target) == pytest.approx(1.0)
    assert M.rmse(pred, target) == pytest.approx(np.sqrt(5 / 3))


def _ap_by_thresholds(scores: np.ndarray, labels: np.ndarray) -> float:
    """Average precision from its definition, one threshold per distinct score (plain loops)."""
    n_pos, total, prev_recall = labels.sum(), 0.0, 0.0
    for t in sorted(set(scores.tolist()), reverse=True):
        retrieved = scores >= t
        tp = (labels & retrieved).sum()
        recall = tp / n_pos
        total += (recall - prev_recall) * tp / retrieved.sum()
        prev_recall = recall
    return total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_average_precision_with_ties_matches_the_threshold_definition(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=300), 1)  # many ties
    labels = rng.random(300) < 0.3
    got = M.average_precision(torch.tensor(scores), torch.tensor(labels))
    assert got == pytest.approx(_ap_by_thresholds(scores, labels), abs=1e-12)
    # the order of tied pairs cannot matter: the same pairs listed positives-first and positives-last
    order = np.lexsort((labels, -scores))
    back = np.lexsort((~labels, -scores))
    a = M.average_precision(torch.tensor(scores[order]), torch.tensor(labels[order]))
    b = M.average_precision(torch.tensor(scores[back]), torch.tensor(labels[back]))
    assert a == b == got


def test_constant_scorer_gets_the_positive_rate_not_one():
    # positives listed first: ranking them first among ties would give AP 1.0
    labels = torch.tensor([1] * 30 + [0] * 70)
    scores = torch.zeros(100)
    assert M.average_precision(scores, labels) == pytest.approx(0.3)
    assert M.roc_auc(scores, labels) == 0.5
    row = M.pair_metrics("test", scores, labels)
    assert row == {"test_auc": 0.5, "test_ap": pytest.approx(0.3)}
