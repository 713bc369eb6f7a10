"""Scoring a link-prediction heuristic (:mod:`netzbench.models.heuristics`): one evaluation, no training.

The link trainers hand over a model with ``heuristic = True`` before any
optimisation: it sees the seed's own split (the same held-out pairs,
negatives and ranking candidates as every trained model of the cell's task,
so the cells pair seed by seed) and scores pairs from the adjacency of the
*training* edges only. The history holds the trained models' series for the
family (``val_auc``, ``val_ap``, ``test_auc``, ``test_ap``, ``test_constant``;
relational tasks add ``*_mrr`` and ``*_hits{1,3,10}``), each with a single
value recorded as epoch 1 (``epochs = [1]``: the one evaluation; there is no
``train_loss``, and ``num_params`` is 0). Counts tie a lot; average precision
and the ranks are tie-aware, as for every model.
"""

from __future__ import annotations

import numpy as np
import torch

from . import metrics as M
from .fit import FitResult, is_constant


def _all_scores(model, adjacency, sets: dict[str, tuple]) -> dict[str, tuple]:
    """Every score the evaluation needs, from one call of ``model.scores`` (one pass over the heads'
    two-hop neighbourhoods, whichever set a head is in): per set ``(positive, negative, candidate)``
    scores, the last [m, k] or None. A negative row repeats its tail to the common width."""
    width = 1 + max((c.shape[1] for _, _, c in sets.values() if c is not None), default=0)
    heads, tails, sizes = [], [], []
    for pos, neg, candidates in sets.values():
        own = pos[1][:, None] if candidates is None else np.concatenate([pos[1][:, None], candidates], axis=1)
        heads += [pos[0], neg[0]]
        tails += [np.pad(own, ((0, 0), (0, width - own.shape[1])), mode="edge"),
                  np.repeat(np.asarray(neg[1])[:, None], width, axis=1)]
        sizes += [pos.shape[1], neg.shape[1]]
    scores = model.scores(adjacency, np.concatenate(heads), np.concatenate(tails))
    parts = np.split(scores, np.cumsum(sizes)[:-1])
    out = {}
    for i, (name, (_, _, candidates)) in enumerate(sets.items()):
        own, negative = parts[2 * i], parts[2 * i + 1]
        out[name] = (own[:, 0], negative[:, 0], None if candidates is None else own[:, 1:1 + candidates.shape[1]])
    return out


def score_heuristic(model, adjacency, sets: dict[str, tuple]) -> FitResult:
    """One evaluation of ``model`` on ``sets[name] = (pos [2, m], neg [2, m'], candidates [m, k] or None)``
    (heads and tails; ``candidates``: each positive's tail corruptions for MRR / Hits@k), ``val`` then
    ``test``, from the training-graph ``adjacency``."""
    row: dict[str, float] = {}
    for name, (s_pos, s_neg, cand) in _all_scores(model, adjacency, sets).items():
        s = torch.as_tensor(np.concatenate([s_pos, s_neg]), dtype=torch.float64)
        labels = torch.cat([torch.ones(s_pos.size), torch.zeros(s_neg.size)])
        row.update(M.pair_metrics(name, s, labels))
        if cand is not None:
            row.update(M.rank_metrics(name, torch.as_tensor(cand, dtype=torch.float64),
                                      torch.as_tensor(s_pos, dtype=torch.float64)))
        if name == "test":
            row["test_constant"] = is_constant(s)
    return FitResult({key: [float(v)] for key, v in row.items()}, [1], 0, {"test_constant_auc": 0.5})
