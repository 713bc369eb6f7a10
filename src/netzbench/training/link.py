"""Homogeneous link prediction: a held-out edge split per seed, BCE on positives and negatives.

Messages pass over the training edges only. Each held-out split (validation,
test) is scored two ways (:mod:`.link_eval`, switch ``link_eval_negatives``):
ROC-AUC and average precision of its positives against pooled negatives, and
MRR / Hits@{1,3,10} of each positive ranked against its own
:data:`.link_eval.RANKING_CANDIDATES` negatives (ties broken at random in
expectation, :func:`.metrics.rank_metrics`), every epoch, the candidates scored
with the model's ``score`` in one batched call. ``uniform`` (the paper) keeps
the split's own negatives for AUC/AP, one per positive, never a true edge,
fixed per seed; ``degree`` and ``hard`` draw degree-corrected or HeaRT-style
hard ones, fixed per seed and shared by every model. Other switches
(:mod:`netzbench.protocol`): the validation fraction (``link_split``),
training negatives drawn once or every epoch (``link_negatives``), and the
inputs of a featureless graph (``structural_features``).

Each seed records its split design (``split``: redrawn per seed, with its
numbers of training and test edges; a generated graph is redrawn with the
seed too) and the leakage guard's verdict (``leakage``,
:func:`.leakage.held_out_leaks` over the message-passing edges, the training
negatives -- the fixed ones, or for fresh ones the held-out pairs the sampler
could draw, none since it avoids every edge -- and the edges the structural
features were computed from: degrees over every edge, under
``structural_features: reference`` above :data:`IDENTITY_LIMIT` nodes, see
the held-out ones). Series: ``{val,test}_{auc,ap,mrr,hits1,hits3,hits10}``,
``test_constant`` and ``test_distinct`` (distinct test scores).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ..graphs.edges import message_passing_graph, undirected_pairs
from ..graphs.features import (IDENTITY_LIMIT, identity_features, laplacian_eigenvectors, log_degree_features,
                               structural_features)
from ..models.adapters import DotProductLink
from ..models.dot_product import train_scores
from ..models.heuristics import training_adjacency
from ..protocol import LINK_EVAL_VIEWS, Protocol, in_view
from . import metrics as M
from . import sampling as S
from .fit import (FitResult, Hyper, check_output, distinct_values, fit, is_constant, maybe_adjacency, maybe_sparse,
                  num_nodes)
from .heuristic import score_heuristic
from .leakage import held_out_leaks, pair_ids
from .link_eval import RANKING_CANDIDATES, held_out_sets
from .splits import sample_negative_pairs, split_rng

VAL_FRACTION = {"5_10": 0.05, "10_10": 0.10}
#: pairs scored per call of a model's ``score`` (bounds the [pairs, hidden] temporaries)
SCORE_CHUNK = 1 << 20
#: pairs per block when the dot-product scores are computed in place (the [block, hidden] buffers stay in cache)
DOT_CHUNK = 4096


@dataclass
class EdgeSplit:
    num_nodes: int
    train_pos: np.ndarray  # (2, m) undirected pairs i < j
    val_pos: np.ndarray
    test_pos: np.ndarray
    val_neg: np.ndarray
    test_neg: np.ndarray
    all_pair_ids: np.ndarray  # every positive pair id i*n+j (never sampled as a negative)


def random_edge_split(num_nodes: int, edge_index: np.ndarray, seed: int, val: float = 0.1,
                      test: float = 0.1) -> EdgeSplit:
    """Held-out edge split per seed (RandomLinkSplit-style, on undirected pairs).

    Validation and test negatives are sampled once (fixed for all epochs),
    equal in number to the positives, never overlapping any true edge or each
    other. Self-loops are pairs like any other when the graph has them (only
    the reference implementation's Ising grid does).
    """
    pairs = undirected_pairs(edge_index, self_loops=True)
    rng = split_rng(seed, "edge_split")
    perm = rng.permutation(pairs.shape[1])
    n_val = int(round(val * len(perm)))
    n_test = int(round(test * len(perm)))
    val_pos = pairs[:, perm[:n_val]]
    test_pos = pairs[:, perm[n_val:n_val + n_test]]
    train_pos = pairs[:, perm[n_val + n_test:]]
    ids = pairs[0] * num_nodes + pairs[1]
    neg = sample_negative_pairs(num_nodes, ids, n_val + n_test, rng)
    return EdgeSplit(num_nodes, train_pos, val_pos, test_pos, neg[:, :n_val], neg[:, n_val:], ids)


def link_inputs(arrays: dict, split: EdgeSplit, protocol: Protocol) -> torch.Tensor:
    """Node inputs: the graph's ``x``; for a featureless graph, the ``laplacian_k`` lowest Laplacian
    eigenvectors of this seed's training graph where the dataset asks for them (a declared graph's
    ``features: laplacian``), else structural features of the training edges, or (``reference``)
    one-hot identities up to :data:`IDENTITY_LIMIT` nodes and 3-d log-degrees over every edge --
    held-out ones included -- above it."""
    n = split.num_nodes
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    if "laplacian_k" in arrays:  # positional features from the training edges only: nothing held out leaks
        return torch.as_tensor(laplacian_eigenvectors(split.train_pos, n, int(arrays["laplacian_k"])))
    if protocol.structural_features == "reference":
        x = identity_features(n) if n <= IDENTITY_LIMIT else log_degree_features(n, undirected_pairs(arrays["edge_index"]))
        return torch.as_tensor(x)
    return torch.as_tensor(structural_features(n, split.train_pos))


def feature_edges(arrays: dict, split: EdgeSplit, protocol: Protocol) -> np.ndarray | None:
    """The pairs [2, e] the inputs of :func:`link_inputs` were computed from; None where no edge enters
    them (the graph's own ``x``, one-hot identities)."""
    if "x" in arrays:
        return None
    if "laplacian_k" not in arrays and protocol.structural_features == "reference":
        return undirected_pairs(arrays["edge_index"]) if split.num_nodes > IDENTITY_LIMIT else None
    return split.train_pos


def _leakage(arrays: dict, split: EdgeSplit, protocol: Protocol, train_negatives: np.ndarray | None,
             trained: bool) -> list[str]:
    """The guard's verdict for this seed (module docstring); a heuristic (``trained`` False) sees the
    training graph only."""
    n = split.num_nodes
    held = pair_ids(np.concatenate([split.val_pos, split.test_pos], axis=1), n)
    channels = {"message_passing": pair_ids(split.train_pos, n)}
    if trained:
        features = feature_edges(arrays, split, protocol)
        channels["structural_features"] = None if features is None else pair_ids(features, n)
        channels["train_negatives"] = (pair_ids(train_negatives, n) if train_negatives is not None
                                       else np.setdiff1d(held, split.all_pair_ids))  # what fresh draws can hit
    return held_out_leaks(held, **channels)


def _train_scores(model, z: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    """``model.score`` of ``pairs`` with gradients; the dot product blockwise (models/dot_product.py: the
    same bits at a fraction of the memory traffic)."""
    return train_scores(z, pairs) if type(model).score is DotProductLink.score else model.score(z, pairs)


def _score_pairs(model, z: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    """``model.score`` of ``pairs`` [2, p], one call per :data:`SCORE_CHUNK` pairs (one for most tasks); the
    dot product without gradients blockwise in two reused buffers, the same per-pair products and sums."""
    if type(model).score is DotProductLink.score and not (torch.is_grad_enabled() and z.requires_grad):
        p = pairs.shape[1]
        out = z.new_empty(p)
        a, b = z.new_empty((min(p, DOT_CHUNK), z.shape[1])), z.new_empty((min(p, DOT_CHUNK), z.shape[1]))
        for i in range(0, p, DOT_CHUNK):
            j = min(i + DOT_CHUNK, p)
            head = torch.index_select(z, 0, pairs[0, i:j], out=a[:j - i])
            torch.sum(head.mul_(torch.index_select(z, 0, pairs[1, i:j], out=b[:j - i])), -1, out=out[i:j])
        return out
    if pairs.shape[1] <= SCORE_CHUNK:
        return model.score(z, pairs)
    return torch.cat([model.score(z, pairs[:, i:i + SCORE_CHUNK]) for i in range(0, pairs.shape[1], SCORE_CHUNK)])


def train_link_pred(build, arrays: dict, seed: int, hp: Hyper, device="cpu", on_epoch=None,
                    protocol: Protocol | dict | None = None) -> FitResult:
    protocol = Protocol.of(protocol)
    n = num_nodes(arrays)
    split = random_edge_split(n, arrays["edge_index"], seed, val=VAL_FRACTION[protocol.link_split])
    setting = protocol.link_eval_negatives
    held = held_out_sets(split, setting, seed, arrays.get("x"))
    views = {view: held_out_sets(split, negatives, seed, arrays.get("x"))
             for view, negatives in EVAL_VIEWS.get(setting, {}).items()}  # hard: degree-corrected beside it
    design = {"redrawn": True, "n_train": int(split.train_pos.shape[1]), "n_test": int(split.test_pos.shape[1])}
    x = link_inputs(arrays, split, protocol).to(device)
    tp = torch.as_tensor(split.train_pos, dtype=torch.long).to(device)
    mp_edges = torch.cat([tp, tp.flip(0)], dim=1)  # message passing only over training edges
    model = build(x.shape[1], hp.hidden_channels, hp.hidden_channels)
    if getattr(model, "heuristic", False):  # never trained: scored once from the training edges
        adjacency = training_adjacency(n, split.train_pos)
        result = score_heuristic(model, adjacency, {name: (h.pos, h.neg, [(h.fixed, h.other)]) for name, h in held.items()})
        for view, sets in views.items():
            seen = score_heuristic(model, adjacency, {name: (h.pos, h.neg, [(h.fixed, h.other)])
                                                      for name, h in sets.items()})
            result.history.update({in_view(key, view): v for key, v in seen.history.items() if key not in OWN_SERIES})
        result.split, result.leakage = design, _leakage(arrays, split, protocol, None, trained=False)
        result.baseline.update(_baseline(views))
        return result
    model = model.to(device)
    x_dense = x
    x = maybe_sparse(model, x)
    mp_edges = message_passing_graph(mp_edges, n)
    plan = S.plan(hp.sampling, model, mp_edges, n, seed)
    # what model_graph gives; not built where nothing passes messages over the whole graph
    mp_edges = maybe_adjacency(model, mp_edges, n) if plan is None or not plan.infers else None
    neg_rng = split_rng(seed, "train_negatives")
    eval_sets = {}
    for name, h in [*held.items(), *((f"{name}_{view}", h) for view, sets in views.items() for name, h in sets.items())]:
        m, cand = h.pos.shape[1], torch.as_tensor(h.candidate_pairs(), dtype=torch.long).to(device)
        neg = h.neg if h.neg is not None else np.zeros((2, 0), dtype=np.int64)  # hard: the candidates pooled
        pairs = torch.as_tensor(np.concatenate([h.pos, neg], axis=1), dtype=torch.long).to(device)
        if h.neg is None:
            pairs, cand = torch.cat([pairs, cand], dim=1), None
        labels = torch.cat([torch.ones(m), torch.zeros(pairs.shape[1] - m)]).to(device)
        eval_sets[name] = (pairs, labels, m, cand)
    n_pos = tp.shape[1]
    train_labels = torch.cat([torch.ones(n_pos), torch.zeros(n_pos)]).to(device)
    fixed = None
    if protocol.link_negatives == "fixed":  # drawn once, never a held-out negative either
        taken = np.concatenate([split.all_pair_ids, split.val_neg[0] * n + split.val_neg[1],
                                split.test_neg[0] * n + split.test_neg[1]])
        fixed = torch.as_tensor(sample_negative_pairs(n, taken, n_pos, neg_rng), dtype=torch.long).to(device)
    leakage = _leakage(arrays, split, protocol, None if fixed is None else fixed.cpu().numpy(), trained=True)

    def negatives():
        return fixed if fixed is not None else \
            torch.as_tensor(sample_negative_pairs(n, split.all_pair_ids, n_pos, neg_rng), dtype=torch.long).to(device)

    what = "one score per node pair: [num_pairs]"
    batches = None
    if plan is None:
        def step(_batch):
            neg = negatives()
            z = model(x, mp_edges)
            scores = _train_scores(model, z, torch.cat([tp, neg], dim=1))
            check_output(scores, (2 * n_pos,), what)
            return F.binary_cross_entropy_with_logits(scores, train_labels)
    else:
        def batches():  # one epoch: this epoch's negatives, positives and negatives chunked alike
            neg = negatives()
            return [((tp[:, c], neg[:, c]), 2 * len(c)) for c in plan.train_chunks(n_pos)]

        def step(batch):
            pairs = torch.cat(batch, dim=1)
            targets, local = torch.unique(pairs.cpu(), return_inverse=True)  # the pairs' endpoints, once each
            z = plan.forward(x_dense, targets, device)
            scores = _train_scores(model, z, local.to(device))
            check_output(scores, (pairs.shape[1],), what)
            labels = torch.cat([torch.ones(batch[0].shape[1]), torch.zeros(batch[1].shape[1])]).to(device)
            return F.binary_cross_entropy_with_logits(scores, labels)

    def evaluate():
        z = model(x, mp_edges) if plan is None or not plan.infers else plan.inference(x_dense, device)
        row = {}
        for name, (pairs, labels, m, cand) in eval_sets.items():
            s = _score_pairs(model, z, pairs)
            check_output(s, (pairs.shape[1],), "one score per node pair: [num_pairs]")
            row.update(M.pair_metrics(name, s, labels))
            ranked = s[m:] if cand is None else _score_pairs(model, z, cand)
            check_output(ranked, (m * RANKING_CANDIDATES,), "one score per node pair: [num_pairs]")
            row.update(M.rank_metrics(name, ranked.reshape(m, RANKING_CANDIDATES), s[:m]))
            if name == "test":
                row["test_constant"] = is_constant(s)
                row["test_distinct"] = distinct_values(s)
        return row

    result = fit(model, hp, step, evaluate, on_epoch, **({} if batches is None else {"batches": batches}))
    result.sampling = S.applied(plan)
    result.baseline = _baseline(views)
    result.split, result.leakage = design, leakage
    return result


#: second views of the evaluation: under a ``link_eval_negatives`` setting, the settings whose negatives every
#: link model is also scored against (:data:`netzbench.protocol.LINK_EVAL_VIEWS`), each in its own series
EVAL_VIEWS = {"hard": {view: view for view in LINK_EVAL_VIEWS}}
#: series of the run's own evaluation that a view does not repeat
OWN_SERIES = ("test_constant", "test_distinct")


def _baseline(views: dict) -> dict[str, float]:
    """The constant predictor's test values, in the run's own view and in each second view."""
    own = {"auc": 0.5, "mrr": M.chance_mrr(RANKING_CANDIDATES)}
    return {f"test_constant_{m}": v for m, v in own.items()} | {
        f"test_constant_{view}_{m}": v for view in views for m, v in own.items()}
