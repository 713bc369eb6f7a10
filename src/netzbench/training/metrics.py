r"""Evaluation metrics computed in torch (no host round-trips per epoch).

- accuracy and macro-F1 (mean over classes present in targets or predictions
  of :math:`2\,tp / (2\,tp + fp + fn)`);
- ROC-AUC by the rank-sum (Mann–Whitney) identity
  :math:`\mathrm{AUC} = (R_+ - n_+(n_+ + 1)/2) / (n_+ n_-)` with tied scores
  given their average rank;
- average precision :math:`\sum_k P(k)\,\Delta R(k)` over the ranked list;
- MAE and RMSE.
"""

from __future__ import annotations

import torch


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    return (logits.argmax(-1) == y).float().mean().item() if y.numel() else float("nan")


def macro_f1(logits: torch.Tensor, y: torch.Tensor, num_classes: int) -> float:
    if y.numel() == 0:
        return float("nan")
    pred = logits.argmax(-1)
    idx = y * num_classes + pred
    cm = torch.bincount(idx, minlength=num_classes * num_classes).reshape(num_classes, num_classes).double()
    tp = cm.diag()
    fp = cm.sum(0) - tp
    fn = cm.sum(1) - tp
    present = (cm.sum(0) + cm.sum(1)) > 0
    f1 = 2 * tp / (2 * tp + fp + fn).clamp_min(1e-12)
    return f1[present].mean().item()


def _average_ranks(scores: torch.Tensor) -> torch.Tensor:
    """1-based ranks of ``scores`` with ties averaged."""
    sorted_scores, order = torch.sort(scores, stable=True)
    _, inverse, counts = torch.unique_consecutive(sorted_scores, return_inverse=True, return_counts=True)
    ends = torch.cumsum(counts, 0).double()
    avg = ends - (counts.double() - 1) / 2  # mean of the ranks start..end of each tie block
    ranks = torch.empty_like(scores, dtype=torch.float64)
    ranks[order] = avg[inverse]
    return ranks


def roc_auc(scores: torch.Tensor, labels: torch.Tensor) -> float:
    labels = labels.bool()
    n_pos = int(labels.sum())
    n_neg = labels.numel() - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = _average_ranks(scores.double())
    return ((ranks[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


def average_precision(scores: torch.Tensor, labels: torch.Tensor) -> float:
    labels = labels.bool()
    n_pos = int(labels.sum())
    if n_pos == 0:
        return float("nan")
    order = torch.argsort(scores, descending=True, stable=True)
    hits = labels[order].double()
    precision = torch.cumsum(hits, 0) / torch.arange(1, hits.numel() + 1, dtype=torch.float64)
    return (precision * hits).sum().item() / n_pos


def mae(pred: torch.Tensor, y: torch.Tensor) -> float:
    return (pred - y).abs().mean().item() if y.numel() else float("nan")


def rmse(pred: torch.Tensor, y: torch.Tensor) -> float:
    return (pred - y).pow(2).mean().sqrt().item() if y.numel() else float("nan")
