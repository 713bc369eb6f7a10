r"""Relational link prediction (knowledge graphs) with a DistMult decoder.

The encoder embeds the entities from the training triples; a triple scores
:math:`\langle z_h, r, z_t\rangle = \sum_d z_{h,d} r_d z_{t,d}`, trained with
BCE on every training triple and one fresh corruption of it per epoch.
Validation/test: ROC-AUC and AP against one corruption per triple, and
MRR / Hits@{1,3,10} ranking each true tail among ``RANKING_NEGATIVES`` fixed
tail corruptions that are not known true triples (filtered, sampled ranking).

Switches (:mod:`netzbench.protocol`): the message-passing graph
(``relational_message_passing``), the training corruptions
(``relational_negatives``), the AUC corruptions (``relational_eval``), the
relation vectors' initialisation (``relation_init``, applied when the model
is built) and the inputs of a featureless graph (``structural_features``).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ..graphs.features import log_degree_features, structural_features
from ..models.heuristics import training_adjacency
from . import metrics as M
from .fit import FitResult, Hyper, check_output, fit, is_constant, maybe_sparse, model_graph, num_nodes
from .heuristic import score_heuristic
from .splits import split_rng

#: corrupted candidates per held-out triple for the (filtered, sampled) ranking metrics
RANKING_NEGATIVES = 100
#: redraws of a tail corruption that hits a training triple (then it is kept, as in the reference)
MAX_REDRAWS = 8


def _corrupt(triples: np.ndarray, num_nodes: int, rng: np.random.Generator) -> np.ndarray:
    """One corrupted triple per triple: head or tail (with equal probability) replaced at random."""
    out = triples.copy()
    side = rng.random(triples.shape[1]) < 0.5
    out[0, side] = rng.integers(0, num_nodes, side.sum())
    out[2, ~side] = rng.integers(0, num_nodes, (~side).sum())
    return out


def _is_known(true_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Membership of ``ids`` in the sorted, unique ``true_ids`` (binary search)."""
    pos = np.minimum(np.searchsorted(true_ids, ids), len(true_ids) - 1)
    return true_ids[pos] == ids


def _triple_ids(triples: np.ndarray, num_relations: int, num_nodes: int) -> np.ndarray:
    return (triples[0] * num_relations + triples[1]) * num_nodes + triples[2]


def _corrupt_tails_filtered(triples: np.ndarray, num_nodes: int, num_relations: int, true_ids: np.ndarray,
                            rng: np.random.Generator) -> np.ndarray:
    """One tail corruption per triple, redrawn (at most :data:`MAX_REDRAWS` times) when it is a known triple."""
    out = triples.copy()
    out[2] = rng.integers(0, num_nodes, triples.shape[1])
    for _ in range(MAX_REDRAWS):
        bad = _is_known(true_ids, _triple_ids(out, num_relations, num_nodes))
        if not bad.any():
            break
        out[2, bad] = rng.integers(0, num_nodes, int(bad.sum()))
    return out


def _ranking_candidates(triples: np.ndarray, num_nodes: int, true_ids: np.ndarray, num_relations: int,
                        rng: np.random.Generator, k: int = RANKING_NEGATIVES) -> np.ndarray:
    """For each triple, ``k`` tail corruptions that are not true triples (filtered setting), [m, k].

    ``true_ids`` is sorted and unique (``np.unique``): membership is a binary search.
    """
    m = triples.shape[1]
    tails = rng.integers(0, num_nodes, size=(m, k))
    base = (triples[0][:, None] * num_relations + triples[1][:, None]) * num_nodes
    bad = _is_known(true_ids, base + tails)
    while bad.any():  # resample the corruptions that hit a known true triple
        tails[bad] = rng.integers(0, num_nodes, size=int(bad.sum()))
        bad = _is_known(true_ids, base + tails)
    return tails


def held_out_sets(trip: dict, n: int, num_rel: int, seed: int) -> dict[str, tuple[np.ndarray, ...]]:
    """Per held-out split (``val``, ``test``): its triples, one corruption per triple (AUC/AP) and
    :data:`RANKING_NEGATIVES` filtered tail candidates per triple (MRR/Hits), all fixed per seed."""
    true_ids = np.unique(np.concatenate([_triple_ids(t, num_rel, n) for t in trip.values()]))
    rng = split_rng(seed, "relational_eval")
    out = {}
    for name, key in (("val", "valid"), ("test", "test")):
        pos = trip[key]
        neg = _corrupt(pos, n, rng)
        out[name] = (pos, neg, _ranking_candidates(pos, n, true_ids, num_rel, rng))
    return out


def _fresh_tails(pos: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``relational_eval: resampled``: a random tail per triple (unfiltered), drawn at every evaluation."""
    fresh = pos.copy()
    fresh[2] = rng.integers(0, n, pos.shape[1])
    return fresh


def _inputs(arrays: dict, n: int, protocol: dict) -> torch.Tensor:
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    if protocol.get("structural_features") == "reference":  # 3-d log-degrees of the training heads
        return torch.as_tensor(log_degree_features(n, arrays["train_edge_index"][0]))
    return torch.as_tensor(structural_features(n, arrays["train_edge_index"]))


def train_relational(build, arrays: dict, seed: int, hp: Hyper, device="cpu", on_epoch=None,
                     protocol: dict | None = None) -> FitResult:
    protocol = protocol or {}
    n = num_nodes(arrays)
    num_rel = int(np.asarray(arrays["num_relations"]).reshape(-1)[0])
    trip = {s: np.stack([arrays[f"{s}_edge_index"][0], arrays[f"{s}_edge_type"], arrays[f"{s}_edge_index"][1]])
            .astype(np.int64) for s in ("train", "valid", "test")}
    x = _inputs(arrays, n, protocol).to(device)
    ei = torch.as_tensor(arrays["train_edge_index"], dtype=torch.long).to(device)
    model = build(x.shape[1], hp.hidden_channels, hp.hidden_channels)
    held_out = held_out_sets(trip, n, num_rel, seed)
    resampled = protocol.get("relational_eval_negatives") == "resampled"
    eval_rng = split_rng(seed, "relational_eval_resampled")
    if getattr(model, "heuristic", False):  # never trained: scored once on the undirected training graph
        sets = {name: (pos[[0, 2]], (_fresh_tails(pos, n, eval_rng) if resampled else neg)[[0, 2]], cands)
                for name, (pos, neg, cands) in held_out.items()}  # (head, tail): relations ignored
        return score_heuristic(model, training_adjacency(n, trip["train"][[0, 2]]), sets)
    model = model.to(device)
    x = maybe_sparse(model, x)
    if protocol.get("relational_message_passing") == "directed_triples":
        mp_edges = ei  # head -> tail, one message per triple: no CSR adjacency (it would merge parallel edges)
    else:
        mp_edges = model_graph(model, torch.cat([ei, ei.flip(0)], dim=1), n)
    train_ids = np.unique(_triple_ids(trip["train"], num_rel, n))
    eval_sets = {name: (pos, torch.as_tensor(pos).to(device), torch.as_tensor(neg).to(device),
                        torch.as_tensor(cands).to(device)) for name, (pos, neg, cands) in held_out.items()}
    train_pos = torch.as_tensor(trip["train"]).to(device)
    neg_rng = split_rng(seed, "train_negatives")
    labels = torch.cat([torch.ones(train_pos.shape[1]), torch.zeros(train_pos.shape[1])]).to(device)
    tail_filtered = protocol.get("relational_negatives") == "tail_filtered"

    def step(_batch):
        neg = (_corrupt_tails_filtered(trip["train"], n, num_rel, train_ids, neg_rng) if tail_filtered
               else _corrupt(trip["train"], n, neg_rng))
        z = model(x, mp_edges)
        scores = torch.cat([model.score(z, train_pos), model.score(z, torch.as_tensor(neg).to(device))])
        check_output(scores, (labels.shape[0],), "one score per triple: [num_triples]")
        return F.binary_cross_entropy_with_logits(scores, labels)

    def evaluate():
        z = model(x, mp_edges)
        row = {}
        for name, (pos_np, pos, neg, cands) in eval_sets.items():
            if resampled:  # a random tail per triple, drawn anew at every evaluation (unfiltered)
                neg = torch.as_tensor(_fresh_tails(pos_np, n, eval_rng)).to(device)
            sp, sn = model.score(z, pos), model.score(z, neg)
            s = torch.cat([sp, sn])
            lab = torch.cat([torch.ones_like(sp), torch.zeros_like(sn)])
            row.update(M.pair_metrics(name, s, lab))
            row.update(M.rank_metrics(name, model.score_tails(z, pos, cands), sp))  # candidates [m, k]
            if name == "test":
                row["test_constant"] = is_constant(s)
        return row

    result = fit(model, hp, step, evaluate, on_epoch)
    result.baseline = {"test_constant_auc": 0.5}
    return result
