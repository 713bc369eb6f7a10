r"""Evaluation metrics computed in torch (no host round-trips per epoch).

- accuracy and macro-F1 (mean over classes present in targets or predictions
  of :math:`2\,tp / (2\,tp + fp + fn)`);
- ROC-AUC by the rank-sum (Mann–Whitney) identity
  :math:`\mathrm{AUC} = (R_+ - n_+(n_+ + 1)/2) / (n_+ n_-)` with tied scores
  given their average rank;
- average precision :math:`\sum_k P(k)\,\Delta R(k)` over the ranked list, tie-aware (one
  threshold per distinct score: a constant scorer gets the positive rate, not 1.0);
- the rank of a positive among its own candidates (:func:`tail_ranks`, ties counted half) and,
  for MRR and Hits@k, their expectation when ties are broken uniformly at random
  (:func:`rank_metrics`): with :math:`a` candidates above and :math:`t` tied, the rank is uniform on
  :math:`a+1, \dots, a+t+1`, so :math:`E[1/R] = (H_{a+t+1} - H_a)/(t+1)` and
  :math:`P(R \le k) = \min(1, \max(0, (k - a)/(t + 1)))`. A constant scorer against :math:`K`
  candidates thus gets the chance values :math:`H_{K+1}/(K+1)` and :math:`k/(K+1)`, whatever
  the order of its ties;
- MAE and RMSE.

Every metric refuses non-finite scores (:class:`NonFiniteScores`): a NaN
output has no rank and no class, and ranking it anyway invents a number (a
NaN score list can come out as AUC 0.0 with AP 1.0).
"""

from __future__ import annotations

import math

import torch


class NonFiniteScores(ValueError):
    """A metric was given NaN or infinite model outputs."""


def require_finite(metric: str, values: torch.Tensor) -> None:
    """Raise :class:`NonFiniteScores` when ``values`` (model outputs) hold NaN or inf."""
    if values.is_floating_point() and not bool(torch.isfinite(values).all()):
        bad = int((~torch.isfinite(values)).sum())
        raise NonFiniteScores(f"{metric}: {bad} of {values.numel()} model outputs are not finite (NaN or inf)")


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    require_finite("accuracy", logits)
    return (logits.argmax(-1) == y).float().mean().item() if y.numel() else float("nan")


def macro_f1(logits: torch.Tensor, y: torch.Tensor, num_classes: int) -> float:
    if y.numel() == 0:
        return float("nan")
    require_finite("macro-F1", logits)
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
    require_finite("ROC-AUC", scores)
    ranks = _average_ranks(scores.double())
    return ((ranks[labels].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


def average_precision(scores: torch.Tensor, labels: torch.Tensor) -> float:
    r"""Average precision with tied scores as one threshold: :math:`\sum_t (R_t - R_{t-1}) P_t` over the
    distinct scores :math:`t` (every pair scoring at least :math:`t` is retrieved together).

    It does not depend on the order of tied pairs, so a constant scorer gets the positive rate
    :math:`n_+ / n` (chance), never 1.0 because its positives happen to be listed first. Without
    ties it is the usual :math:`\sum_k P(k)\,\Delta R(k)` over the ranked list.
    """
    labels = labels.bool()
    n_pos = int(labels.sum())
    if n_pos == 0:
        return float("nan")
    require_finite("average precision", scores)
    order = torch.argsort(scores, descending=True, stable=True)
    ranked = scores[order]
    tp = torch.cumsum(labels[order].double(), 0)
    last = torch.ones_like(ranked, dtype=torch.bool)  # the last pair of each block of tied scores
    last[:-1] = ranked[1:] != ranked[:-1]
    tp_at = tp[last]
    precision = tp_at / torch.arange(1, ranked.numel() + 1, dtype=torch.float64)[last]
    recall_gain = torch.diff(tp_at, prepend=tp_at.new_zeros(1)) / n_pos
    # a sum of products in float64 can land one ulp above 1 (a perfect ranking): AP lies in [0, 1]
    return min(1.0, (precision * recall_gain).sum().item())


def _above_and_tied(candidate_scores: torch.Tensor, true_scores: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row of ``candidate_scores`` [m, k]: how many candidates score above the true score, and how many tie it."""
    above = (candidate_scores > true_scores[:, None]).sum(1).double()
    return above, (candidate_scores == true_scores[:, None]).sum(1).double()


def tail_ranks(candidate_scores: torch.Tensor, true_scores: torch.Tensor) -> torch.Tensor:
    """1-based rank of each true score among its row of candidate scores [m, k], ties counted half: the
    expected rank when ties are broken at random, ``(k + 2) / 2`` for a constant scorer."""
    above, tied = _above_and_tied(candidate_scores, true_scores)
    return 1 + above + 0.5 * tied


def expected_reciprocal_rank(above: torch.Tensor, tied: torch.Tensor) -> torch.Tensor:
    r""":math:`E[1/R]` for a rank uniform on :math:`a+1, \dots, a+t+1`: :math:`(H_{a+t+1} - H_a)/(t+1)`
    (harmonic numbers through the digamma function, :math:`H_n = \psi(n+1) + \gamma`); exactly
    :math:`1/(a+1)` without ties."""
    block = torch.special.digamma(above + tied + 2) - torch.special.digamma(above + 1)
    return torch.where(tied == 0, 1.0 / (above + 1), block / (tied + 1))


def expected_hits(above: torch.Tensor, tied: torch.Tensor, k: int) -> torch.Tensor:
    r""":math:`P(R \le k)` for a rank uniform on :math:`a+1, \dots, a+t+1`: :math:`\min(1, \max(0, (k-a)/(t+1)))`."""
    return ((k - above) / (tied + 1)).clamp(0.0, 1.0)


def pair_metrics(name: str, scores: torch.Tensor, labels: torch.Tensor) -> dict[str, float]:
    """``{name}_auc`` and ``{name}_ap`` of a scored set of positive and negative pairs."""
    return {f"{name}_auc": roc_auc(scores, labels), f"{name}_ap": average_precision(scores, labels)}


#: the cut-offs of the Hits@k series
HITS_AT = (1, 3, 10)


def chance_mrr(k: int) -> float:
    """The MRR of a constant (or random) scorer against ``k`` candidates per positive: :math:`H_{k+1}/(k+1)`."""
    return sum(1.0 / i for i in range(1, k + 2)) / (k + 1)


def rank_metrics(name: str, candidate_scores: torch.Tensor, true_scores: torch.Tensor) -> dict[str, float]:
    """``{name}_mrr`` and ``{name}_hits{1,3,10}``: each true score ranked among its own row of candidate
    scores [m, k], ties broken at random in expectation (module docstring), averaged over the rows."""
    require_finite("MRR", candidate_scores)
    require_finite("MRR", true_scores)
    above, tied = _above_and_tied(candidate_scores, true_scores)
    row = {f"{name}_mrr": expected_reciprocal_rank(above, tied).mean().item()}
    for k in HITS_AT:
        row[f"{name}_hits{k}"] = expected_hits(above, tied, k).mean().item()
    return row


def mae(pred: torch.Tensor, y: torch.Tensor) -> float:
    require_finite("MAE", pred)
    return (pred - y).abs().mean().item() if y.numel() else float("nan")


def rmse(pred: torch.Tensor, y: torch.Tensor) -> float:
    require_finite("RMSE", pred)
    # math.sqrt, not Tensor.sqrt: MKL's vector sqrt rounds differently on different CPUs
    return math.sqrt((pred - y).pow(2).mean().item()) if y.numel() else float("nan")
