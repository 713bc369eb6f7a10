r"""Across tasks: the rank table and mean-rank aggregations.

Per task :math:`n` the :math:`k` models are ranked by their score (seed
mean), rank 1 = best after applying the metric direction of that task, ties
receiving the average of the ranks they span (``scipy.stats.rankdata``,
``method="average"``).  The rank table :math:`r_{n,i}` has shape
``(N tasks, k models)`` and each row sums to :math:`k(k+1)/2`.

Mean ranks under a weighting :math:`w_n \ge 0`:

.. math:: \bar r_i = \frac{\sum_n w_n r_{n,i}}{\sum_n w_n}.

Aggregations (only ``uniform`` has a Friedman/Nemenyi null distribution; the
others are diagnostics):

``uniform``
    :math:`w_n = 1`.
``reliability``
    :math:`w_n = 1/\bar h_n`, with :math:`\bar h_n` the mean CI half-width
    of task :math:`n` (tasks measured more precisely count more).
``hierarchical``
    average within groups (e.g. research category), then uniformly across
    groups, i.e. :math:`w_n = 1/(G\,|g(n)|)` for :math:`G` groups.
``custom``
    user weights.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["rank_matrix", "mean_ranks", "aggregate_ranks", "AGGREGATIONS", "reliability_weights", "hierarchical_weights"]

AGGREGATIONS = ("uniform", "reliability", "hierarchical", "custom")


def as_rank_table(ranks, name: str = "ranks") -> np.ndarray:
    r = np.asarray(ranks, dtype=float)
    if r.ndim != 2:
        raise ValueError(f"{name} must be 2-D (N tasks, k models), got shape {r.shape}")
    if np.isnan(r).any():
        raise ValueError(f"{name} contains NaN")
    return r


def rank_matrix(scores, higher_is_better) -> np.ndarray:
    """Rank models within each task.

    Parameters
    ----------
    scores : array_like, shape (N, k)
        Score of model ``i`` on task ``n`` (typically the seed mean).
    higher_is_better : bool or array_like of bool, shape (N,)
        Metric direction, globally or per task (e.g. ``False`` for MAE).

    Returns
    -------
    numpy.ndarray, shape (N, k)
        Ranks, 1 = best, ties averaged.  ``N == 0`` gives an empty ``(0, k)``
        array.

    Raises
    ------
    ValueError
        If ``scores`` is not 2-D, contains NaN (drop incomplete models before
        ranking), or ``higher_is_better`` has the wrong length.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2:
        raise ValueError(f"scores must be 2-D (N tasks, k models), got shape {s.shape}")
    bad = np.flatnonzero(np.isnan(s).any(axis=1))
    if bad.size:
        raise ValueError(f"scores contain NaN in task row(s) {bad.tolist()}; drop incomplete models before ranking")
    n_tasks, k = s.shape
    hib = np.asarray(higher_is_better, dtype=bool)
    if hib.ndim == 0:
        hib = np.full(n_tasks, bool(hib))
    if hib.shape != (n_tasks,):
        raise ValueError(f"higher_is_better must be a bool or have length N={n_tasks}, got shape {hib.shape}")
    if n_tasks == 0 or k == 0:
        return np.zeros((n_tasks, k))
    signed = np.where(hib[:, None], -s, s)
    return stats.rankdata(signed, method="average", axis=1).astype(float)


def mean_ranks(ranks, weights=None) -> np.ndarray:
    r"""Weighted mean rank per model, :math:`\sum_n w_n r_{n,i} / \sum_n w_n`.

    ``weights=None`` means uniform.  Weights must have shape ``(N,)``, be
    finite and non-negative with a positive sum (``ValueError`` otherwise);
    they are normalised here.  ``N == 0`` returns NaN for every model.
    """
    r = as_rank_table(ranks)
    n_tasks, k = r.shape
    if n_tasks == 0:
        return np.full(k, np.nan)
    if weights is None:
        return r.mean(axis=0)
    w = np.asarray(weights, dtype=float)
    if w.shape != (n_tasks,):
        raise ValueError(f"weights must have shape ({n_tasks},), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    total = w.sum()
    if not total > 0:
        raise ValueError("weights must have a positive sum")
    return (w / total) @ r


def reliability_weights(ci_half_widths) -> np.ndarray | None:
    """Weights :math:`1/\\bar h_n` from per-task mean CI half-widths.

    Defined answers for degenerate half-widths:

    * NaN (no interval, e.g. one seed) or ``inf``: weight 0 (task excluded);
    * ``0`` (zero-variance task): the limit of :math:`1/h` -- if any task has
      half-width 0, the zero-width tasks share the weight uniformly and all
      other tasks get 0;
    * every half-width NaN/inf: returns ``None`` (no usable weights).

    Negative half-widths raise ``ValueError``.
    """
    h = np.asarray(ci_half_widths, dtype=float)
    if h.ndim != 1:
        raise ValueError(f"ci_half_widths must be 1-D, got shape {h.shape}")
    if np.any(h < 0):
        raise ValueError("ci_half_widths must be non-negative")
    zero = h == 0
    if zero.any():
        return zero.astype(float)
    usable = np.isfinite(h)
    if not usable.any():
        return None
    w = np.zeros(h.shape)
    w[usable] = 1.0 / h[usable]
    return w


def hierarchical_weights(groups) -> np.ndarray:
    """Weights :math:`1/(G\\,|g(n)|)`: mean within each group, then across groups."""
    labels = list(groups)
    counts: dict = {}
    for g in labels:
        counts[g] = counts.get(g, 0) + 1
    n_groups = len(counts)
    return np.array([1.0 / (n_groups * counts[g]) for g in labels], dtype=float)


def aggregate_ranks(ranks, aggregation: str = "uniform", *, ci_half_widths=None, groups=None, weights=None) -> np.ndarray:
    """Mean ranks under one of the aggregations in :data:`AGGREGATIONS`.

    Parameters
    ----------
    ranks : array_like, shape (N, k)
        Rank table from :func:`rank_matrix`.
    aggregation : str
        ``"uniform"``, ``"reliability"`` (needs ``ci_half_widths`` of shape
        (N,), see :func:`reliability_weights` for NaN/zero handling; all-NaN
        half-widths give NaN mean ranks), ``"hierarchical"`` (needs
        ``groups``, N hashable labels) or ``"custom"`` (needs ``weights`` of
        shape (N,)).  Arguments not used by the chosen aggregation are ignored.

    Raises
    ------
    ValueError
        Unknown aggregation (the message lists the choices), a missing or
        mis-shaped argument.
    """
    r = as_rank_table(ranks)
    n_tasks, k = r.shape
    if aggregation == "uniform":
        return mean_ranks(r)
    if aggregation == "reliability":
        if ci_half_widths is None:
            raise ValueError("aggregation='reliability' needs ci_half_widths (shape (N,))")
        h = np.asarray(ci_half_widths, dtype=float)
        if h.shape != (n_tasks,):
            raise ValueError(f"ci_half_widths must have shape ({n_tasks},), got {h.shape}")
        w = reliability_weights(h)
        if w is None:
            return np.full(k, np.nan)
        return mean_ranks(r, w)
    if aggregation == "hierarchical":
        if groups is None:
            raise ValueError("aggregation='hierarchical' needs groups (N labels)")
        labels = list(groups)
        if len(labels) != n_tasks:
            raise ValueError(f"groups must have {n_tasks} labels, got {len(labels)}")
        if n_tasks == 0:
            return np.full(k, np.nan)
        return mean_ranks(r, hierarchical_weights(labels))
    if aggregation == "custom":
        if weights is None:
            raise ValueError("aggregation='custom' needs weights (shape (N,))")
        return mean_ranks(r, weights)
    raise ValueError(f"unknown aggregation {aggregation!r}; valid choices: {', '.join(AGGREGATIONS)}")
