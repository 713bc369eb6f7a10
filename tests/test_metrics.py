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
