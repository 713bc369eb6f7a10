"""Scoring a link-prediction heuristic (:mod:`netzbench.models.heuristics`): one evaluation, no training.

The link trainers hand over a model with ``heuristic = True`` before any
optimisation: it sees the seed's own split -- the same held-out positives,
pooled negatives and per-positive ranking candidates as every trained model
of the cell's task (:mod:`.link_eval` for homogeneous graphs, the filtered
head and tail corruptions of :mod:`.relational` for knowledge graphs), so the
cells pair seed by seed -- and scores pairs from the adjacency of the
*training* edges only. A candidate is scored as the pair (kept endpoint,
replacement): the heuristics are symmetric, and the kept endpoints are the
few distinct heads their row-wise products are computed for. The history
holds the trained models' series (``{val,test}_{auc,ap,mrr,hits1,hits3,hits10}``,
``test_constant``, ``test_distinct``), each with a single value recorded as
epoch 1 (``epochs = [1]``: the one evaluation; there is no ``train_loss``,
and ``num_params`` is 0). Counts tie a lot; average precision and the ranks
are tie-aware, as for every model.
"""

from __future__ import annotations

import numpy as np
import torch

from . import metrics as M
from .fit import FitResult, distinct_values, is_constant


def _all_scores(model, adjacency, sets: dict[str, tuple]) -> dict[str, tuple]:
    """Every score the evaluation needs, from one call of ``model.scores`` on flat pairs (one pass over
    the distinct heads' two-hop neighbourhoods, whichever set a head is in): per set the positives',
    the pooled negatives' (None: the candidates pooled) and each candidate block's [m, k] scores."""
    heads, tails, sizes = [], [], []
    for pos, neg, blocks in sets.values():
        pairs = [pos] + ([neg] if neg is not None else []) + [np.stack([f.reshape(-1), o.reshape(-1)])
                                                              for f, o in blocks]
        heads += [p[0] for p in pairs]
        tails += [p[1] for p in pairs]
        sizes += [p.shape[1] for p in pairs]
    scores = model.scores(adjacency, np.concatenate(heads), np.concatenate(tails))
    parts = iter(np.split(scores, np.cumsum(sizes)[:-1]))
    out = {}
    for name, (pos, neg, blocks) in sets.items():
        s_pos = next(parts)
        s_neg = next(parts) if neg is not None else None
        out[name] = (s_pos, s_neg, [next(parts).reshape(f.shape) for f, _ in blocks])
    return out


def score_heuristic(model, adjacency, sets: dict[str, tuple]) -> FitResult:
    """One evaluation of ``model`` on ``sets[name] = (pos [2, m], neg [2, m'] or None, blocks)``, ``val``
    then ``test``, from the training-graph ``adjacency``: AUC/AP of the positives against ``neg`` (None:
    against every candidate), MRR / Hits@k of each positive against its candidates, ``blocks`` a list of
    ``(fixed, other)`` [m, k] (kept endpoint, replacement) whose rankings are averaged (a knowledge
    graph's tail and head corruptions; one block for a homogeneous graph)."""
    row: dict[str, float] = {}
    for name, (s_pos, s_neg, cands) in _all_scores(model, adjacency, sets).items():
        pooled = s_neg if s_neg is not None else np.concatenate([c.reshape(-1) for c in cands])
        s = torch.as_tensor(np.concatenate([s_pos, pooled]), dtype=torch.float64)
        labels = torch.cat([torch.ones(s_pos.size), torch.zeros(pooled.size)])
        row.update(M.pair_metrics(name, s, labels))
        if cands:
            row.update(M.rank_metrics(name, torch.as_tensor(np.concatenate(cands), dtype=torch.float64),
                                      torch.as_tensor(np.tile(s_pos, len(cands)), dtype=torch.float64)))
        if name == "test":
            row["test_constant"] = is_constant(s)
            row["test_distinct"] = distinct_values(s)
    return FitResult({key: [float(v)] for key, v in row.items()}, [1], 0, {"test_constant_auc": 0.5})
