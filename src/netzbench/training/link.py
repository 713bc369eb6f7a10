"""Homogeneous link prediction: a held-out edge split per seed, BCE on positives and negatives.

Messages pass over the training edges only; validation and test negatives
are fixed per seed (as many as positives, never a true edge). Switches
(:mod:`netzbench.protocol`): the validation fraction (``link_split``),
training negatives drawn once or every epoch (``link_negatives``), and the
inputs of a featureless graph (``structural_features``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ..graphs.edges import undirected_pairs
from ..graphs.features import IDENTITY_LIMIT, identity_features, log_degree_features, structural_features
from ..models.heuristics import training_adjacency
from . import metrics as M
from .fit import FitResult, Hyper, check_output, fit, is_constant, maybe_sparse, model_graph, num_nodes
from .heuristic import score_heuristic
from .splits import sample_negative_pairs, split_rng

VAL_FRACTION = {"5_10": 0.05, "10_10": 0.10}


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


def link_inputs(arrays: dict, split: EdgeSplit, protocol: dict) -> torch.Tensor:
    """Node inputs: the graph's ``x``; for a featureless graph, structural features of the
    training edges, or (``reference``) one-hot identities up to :data:`IDENTITY_LIMIT` nodes and
    3-d log-degrees over every edge -- held-out ones included -- above it."""
    n = split.num_nodes
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    if protocol.get("structural_features") == "reference":
        x = identity_features(n) if n <= IDENTITY_LIMIT else log_degree_features(n, undirected_pairs(arrays["edge_index"]))
        return torch.as_tensor(x)
    return torch.as_tensor(structural_features(n, split.train_pos))


def train_link_pred(build, arrays: dict, seed: int, hp: Hyper, device="cpu", on_epoch=None,
                    protocol: dict | None = None) -> FitResult:
    protocol = protocol or {}
    n = num_nodes(arrays)
    split = random_edge_split(n, arrays["edge_index"], seed, val=VAL_FRACTION[protocol.get("link_split", "10_10")])
    x = link_inputs(arrays, split, protocol).to(device)
    tp = torch.as_tensor(split.train_pos, dtype=torch.long).to(device)
    mp_edges = torch.cat([tp, tp.flip(0)], dim=1)  # message passing only over training edges
    model = build(x.shape[1], hp.hidden_channels, hp.hidden_channels)
    if getattr(model, "heuristic", False):  # never trained: scored once from the training edges
        return score_heuristic(model, training_adjacency(n, split.train_pos),
                               {"val": (split.val_pos, split.val_neg, None),
                                "test": (split.test_pos, split.test_neg, None)})
    model = model.to(device)
    x = maybe_sparse(model, x)
    mp_edges = model_graph(model, mp_edges, n)
    neg_rng = split_rng(seed, "train_negatives")
    eval_sets = {
        name: (torch.as_tensor(np.concatenate([pos, neg], axis=1), dtype=torch.long).to(device),
               torch.cat([torch.ones(pos.shape[1]), torch.zeros(neg.shape[1])]).to(device))
        for name, pos, neg in (("val", split.val_pos, split.val_neg), ("test", split.test_pos, split.test_neg))
    }
    n_pos = tp.shape[1]
    train_labels = torch.cat([torch.ones(n_pos), torch.zeros(n_pos)]).to(device)
    fixed = None
    if protocol.get("link_negatives") == "fixed":  # drawn once, never a held-out negative either
        taken = np.concatenate([split.all_pair_ids, split.val_neg[0] * n + split.val_neg[1],
                                split.test_neg[0] * n + split.test_neg[1]])
        fixed = torch.as_tensor(sample_negative_pairs(n, taken, n_pos, neg_rng), dtype=torch.long).to(device)

    def step(_batch):
        neg = fixed if fixed is not None else \
            torch.as_tensor(sample_negative_pairs(n, split.all_pair_ids, n_pos, neg_rng), dtype=torch.long).to(device)
        z = model(x, mp_edges)
        scores = model.score(z, torch.cat([tp, neg], dim=1))
        check_output(scores, (2 * n_pos,), "one score per node pair: [num_pairs]")
        return F.binary_cross_entropy_with_logits(scores, train_labels)

    def evaluate():
        z = model(x, mp_edges)
        row = {}
        for name, (pairs, labels) in eval_sets.items():
            s = model.score(z, pairs)
            row.update(M.pair_metrics(name, s, labels))
            if name == "test":
                row["test_constant"] = is_constant(s)
        return row

    result = fit(model, hp, step, evaluate, on_epoch)
    result.baseline = {"test_constant_auc": 0.5}
    return result
