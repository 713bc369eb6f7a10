r"""Relational link prediction (knowledge graphs) with a DistMult decoder.

The encoder embeds the entities from the training triples; a triple scores
:math:`\langle z_h, r, z_t\rangle = \sum_d z_{h,d} r_d z_{t,d}`, trained with
BCE on every training triple and one fresh corruption of it per epoch.
Validation/test, every epoch, on the canonical split (the same for every seed):

- ROC-AUC and AP against one corruption per triple: drawn anew at every
  evaluation or fixed per seed (``relational_eval_negatives``: resampled |
  fixed), replacing the tail or, with equal odds, the head or the tail
  (``relational_eval_side``: tail | head_or_tail); unfiltered, as the reference;
- filtered MRR and Hits@{1,3,10} over head *and* tail corruptions: each
  held-out triple ranked among :data:`RANKING_NEGATIVES` tail candidates
  :math:`(h, r, t')` and as many head candidates :math:`(h', r, t)`, none of
  them a known triple (training, validation or test), fixed per seed; the
  mean over both sides (ties broken at random in expectation,
  :func:`.metrics.rank_metrics`);
- under ``relational_ranking: full``, also the test triples ranked against every
  entity, head and tail, every known triple filtered (:mod:`.full_rank`:
  ``test_full_mrr``, ``test_full_hits{1,3,10}``), at the last evaluation and at
  the earliest best validation MRR only (what ``epoch_selection`` can pick; NaN
  at the other epochs), and the constant predictor's value
  (``test_constant_full_mrr``); a heuristic is ranked so once.

Switches (:mod:`netzbench.protocol`): the message-passing graph
(``relational_message_passing``; along the triples as given, GAT and
GraphTransformer sum over the parallel edges as sparse products unless
``train.parallel_edges`` is ``per_edge``), the training corruptions
(``relational_negatives``: tails redrawn up to :data:`MAX_REDRAWS` times when
they hit a training triple, the reference's; or heads or tails redrawn until
they are no known triple in either direction, so no held-out fact is ever
trained as false), the AUC corruptions (the two switches above), whether
training triples that restate a held-out one (same relation, either direction)
stay in training (``relational_held_out_overlap``: keep, the canonical split's;
drop), the relation vectors' initialisation (``relation_init``, applied when
the model is built) and the inputs of a featureless graph
(``structural_features``).

Each seed records its split design (``split``: not redrawn; training and test
triples) and the leakage guard's verdict (``leakage``,
:func:`.leakage.held_out_leaks`, triples compared with their relation and in
either direction): the training triples carry the messages and the degree
features (WN18RR's canonical training triples restate a third of its held-out
ones reversed: ``message_passing`` and ``structural_features`` unless they are
dropped); the reference's tail corruptions can draw a held-out triple (any
whose head and relation, or tail and relation, start a training triple:
FB15k-237 about 80 of its 272k corruptions per epoch), so the paper protocol
records ``train_negatives`` there.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ..graphs.features import log_degree_features, structural_features
from ..models.adapters import DistMultLink
from ..models.distmult import train_scores
from ..models.heuristics import training_adjacency
from ..protocol import Protocol
from . import full_rank as FR
from . import metrics as M
from .fit import (FitResult, Hyper, check_output, distinct_values, fit, is_constant, maybe_sparse, model_graph,
                  multigraph_graph, num_nodes)
from .heuristic import score_heuristic
from .leakage import held_out_leaks, triple_ids
from .splits import split_rng

#: filtered candidates per held-out triple and side (tails, heads) for the ranking metrics: 100 in all, the cost of
#: the 100 tail-only candidates before (benchmarks/RESULTS.md)
RANKING_NEGATIVES = 50
#: redraws of a tail corruption that hits a training triple (then it is kept, as in the reference)
MAX_REDRAWS = 8
#: rounds of redrawing a corruption that is a known triple before giving up (``relational_negatives: head_or_tail``)
MAX_ROUNDS = 1000
#: triples scored per call of a model's ``score`` when corruptions are scored generically
SCORE_CHUNK = 1 << 20
#: triples whose candidates are scored together: the [chunk, k, hidden] products (one buffer, reused) stay in
#: cache; each score is the same one-row sum whatever the chunk
RANK_CHUNK = 128


def _corrupt_sides(triples: np.ndarray, num_nodes: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One corrupted triple per triple, head or tail (with equal probability) replaced at random, and
    where the head was."""
    out = triples.copy()
    side = rng.random(triples.shape[1]) < 0.5
    out[0, side] = rng.integers(0, num_nodes, side.sum())
    out[2, ~side] = rng.integers(0, num_nodes, (~side).sum())
    return out, side


def _corrupt(triples: np.ndarray, num_nodes: int, rng: np.random.Generator) -> np.ndarray:
    """One corrupted triple per triple: head or tail (with equal probability) replaced at random."""
    return _corrupt_sides(triples, num_nodes, rng)[0]


def _sorted_unique(ids: np.ndarray) -> np.ndarray:
    """``np.unique`` of integer ids by a sort: the same array, without the hash table that numpy's unique
    builds first (many times slower on hundreds of thousands of scattered ids)."""
    ids = np.sort(np.asarray(ids).reshape(-1))
    first = np.ones(ids.shape, dtype=bool)
    first[1:] = ids[1:] != ids[:-1]
    return ids[first]


#: above this many ids, :func:`_is_known` searches them in sorted order (neighbouring searches share cache lines)
SORTED_SEARCH = 4096


def _is_known(true_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Membership of ``ids`` in the sorted, unique ``true_ids`` (binary search; many ids in sorted order)."""
    if ids.size <= SORTED_SEARCH:
        pos = np.minimum(np.searchsorted(true_ids, ids), len(true_ids) - 1)
        return true_ids[pos] == ids
    order = np.argsort(ids, axis=None)
    flat = ids.reshape(-1)[order]
    known = np.empty(ids.shape, dtype=bool)
    known.reshape(-1)[order] = true_ids[np.minimum(np.searchsorted(true_ids, flat), len(true_ids) - 1)] == flat
    return known


def _triple_ids(triples: np.ndarray, num_relations: int, num_nodes: int) -> np.ndarray:
    return (triples[0] * num_relations + triples[1]) * num_nodes + triples[2]


def _corrupt_tails_filtered(triples: np.ndarray, num_nodes: int, num_relations: int, true_ids: np.ndarray,
                            rng: np.random.Generator) -> np.ndarray:
    """One tail corruption per triple, redrawn (at most :data:`MAX_REDRAWS` times) when it is a known triple."""
    out = triples.copy()
    out[2] = rng.integers(0, num_nodes, triples.shape[1])
    todo = np.arange(triples.shape[1])  # the triples drawn since the last check: only they can have become known
    for _ in range(MAX_REDRAWS):
        todo = todo[_is_known(true_ids, _triple_ids(out[:, todo], num_relations, num_nodes))]
        if not todo.size:
            break
        out[2, todo] = rng.integers(0, num_nodes, todo.size)
    return out


def _known_corruptions(out: np.ndarray, side: np.ndarray, num_nodes: int, num_relations: int,
                       known: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Redraw the corrupted entity (head where ``side``, else tail) of every triple of ``out`` whose
    undirected id (:func:`.leakage.triple_ids`) is in the sorted ``known``, until none is."""
    bad = np.arange(out.shape[1])  # the triples drawn since the last check: only they can have become known
    for _ in range(MAX_ROUNDS):
        bad = bad[_is_known(known, triple_ids(out[:, bad], num_nodes, num_relations))]
        if not bad.size:
            return out
        heads, tails = bad[side[bad]], bad[~side[bad]]
        out[0, heads] = rng.integers(0, num_nodes, heads.size)
        out[2, tails] = rng.integers(0, num_nodes, tails.size)
    raise RuntimeError(f"relational_negatives: {bad.size} corruptions still hit known triples after "
                       f"{MAX_ROUNDS} rounds (a relation that links nearly every pair?)")


def _corrupt_unknown(triples: np.ndarray, num_nodes: int, num_relations: int, known: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
    """``relational_negatives: head_or_tail``: one corruption per triple, head or tail with equal odds,
    redrawn until it is no known triple in either direction (``known``: sorted undirected ids)."""
    return _known_corruptions(*_corrupt_sides(triples, num_nodes, rng), num_nodes, num_relations, known, rng)


def _ranking_candidates(triples: np.ndarray, num_nodes: int, true_ids: np.ndarray, num_relations: int,
                        rng: np.random.Generator, k: int = RANKING_NEGATIVES, side: str = "tail") -> np.ndarray:
    """For each triple, ``k`` corruptions of its tail (``side="tail"``: candidate tails) or its head
    (candidate heads) that are not true triples (filtered setting), [m, k].

    ``true_ids`` is sorted and unique (:func:`_sorted_unique`): membership is a binary search.
    """
    m = triples.shape[1]
    cand = rng.integers(0, num_nodes, size=(m, k))

    def ids(c, rows):  # the corrupted triples' ids, candidates ``c`` of the triples ``rows``
        if side == "tail":
            return (triples[0][rows] * num_relations + triples[1][rows]) * num_nodes + c
        return (c * num_relations + triples[1][rows]) * num_nodes + triples[2][rows]

    rows, cols = np.nonzero(_is_known(true_ids, ids(cand, np.arange(m)[:, None])))
    while rows.size:  # resample the corruptions that hit a known true triple; only those are checked again
        cand[rows, cols] = rng.integers(0, num_nodes, size=rows.size)
        hit = _is_known(true_ids, ids(cand[rows, cols], rows))
        rows, cols = rows[hit], cols[hit]
    return cand


def held_out_sets(trip: dict, n: int, num_rel: int, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """Per held-out split (``val``, ``test``), fixed per seed: its triples (``pos``), one corruption per
    triple of the head or the tail (``either``) and of the tail (``tail``), for AUC/AP, and
    :data:`RANKING_NEGATIVES` filtered tail and head candidates per triple (``tails``, ``heads`` [m, k]).
    ``either`` and ``tails`` come from the ``relational_eval`` stream as before; the rest from their own."""
    true_ids = _sorted_unique(np.concatenate([_triple_ids(t, num_rel, n) for t in trip.values()]))
    rng = split_rng(seed, "relational_eval")
    tail_rng, head_rng = split_rng(seed, "relational_eval_tail"), split_rng(seed, "relational_eval_heads")
    out = {}
    for name, key in (("val", "valid"), ("test", "test")):
        pos = trip[key]
        out[name] = {"pos": pos, "either": _corrupt(pos, n, rng),
                     "tails": _ranking_candidates(pos, n, true_ids, num_rel, rng),
                     "tail": _fresh_tails(pos, n, tail_rng),
                     "heads": _ranking_candidates(pos, n, true_ids, num_rel, head_rng, side="head")}
    return out


def _fresh_tails(pos: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """One random tail per triple (unfiltered): ``relational_eval_side: tail``."""
    fresh = pos.copy()
    fresh[2] = rng.integers(0, n, pos.shape[1])
    return fresh


def _eval_negatives(pos: np.ndarray, n: int, tail_only: bool, rng: np.random.Generator) -> np.ndarray:
    """``relational_eval_negatives: resampled``: one corruption per triple drawn now, of the tail or of
    the head or the tail."""
    return _fresh_tails(pos, n, rng) if tail_only else _corrupt(pos, n, rng)


def _score_corrupted(model, z: torch.Tensor, pos: torch.Tensor, cand: torch.Tensor, side: str):
    """Scores of each triple of ``pos`` [3, m] ([m]) and of its ``k`` candidate tails or heads ``cand``
    [m, k] ([m, k]), all through one elementwise product and sum per triple, so that a candidate that ties
    the triple mathematically ties it in floating point too (a matrix-product kernel sums the columns of a
    row in different orders). DistMult: :math:`(z_h \\odot r) \\cdot z_{t'}`, a head corruption as a tail
    corruption of the inverse triple (the score is symmetric); another model: ``score`` of the corrupted
    triples, :data:`SCORE_CHUNK` at a time."""
    true = pos[2] if side == "tail" else pos[0]
    every = torch.cat([true[:, None], cand], dim=1)
    m, k = every.shape
    if type(model).score is DistMultLink.score:
        hr = model.head_relation(z, pos if side == "tail" else pos[[2, 1, 0]])
        if (torch.is_grad_enabled() and hr.requires_grad) or hr.dtype != z.dtype:  # in place: no graph, one dtype
            out = torch.cat([(hr[i:i + RANK_CHUNK, None, :] * z[every[i:i + RANK_CHUNK]]).sum(-1)
                             for i in range(0, m, RANK_CHUNK)]) if m else hr.new_zeros((0, k))
            return out[:, 0], out[:, 1:]
        out = hr.new_empty((m, k))
        buf = hr.new_empty((min(m, RANK_CHUNK) * k, hr.shape[1]))  # one gather buffer: no fresh pages per chunk
        for i in range(0, m, RANK_CHUNK):
            j = min(i + RANK_CHUNK, m)
            cand_z = torch.index_select(z, 0, every[i:j].reshape(-1), out=buf[:(j - i) * k]).view(j - i, k, -1)
            torch.sum(cand_z.mul_(hr[i:j, None, :]), -1, out=out[i:j])  # z_t' * hr: the same product, commuted
    else:
        trip = pos.repeat_interleave(k, dim=1)
        trip[0 if side == "head" else 2] = every.reshape(-1)
        out = torch.cat([model.score(z, trip[:, i:i + SCORE_CHUNK])
                         for i in range(0, trip.shape[1], SCORE_CHUNK)]).reshape(m, k)
    return out[:, 0], out[:, 1:]


def _reachable_by_tail_corruption(held: np.ndarray, train: np.ndarray, n: int, num_rel: int) -> np.ndarray:
    """The held-out triples [3, m] that a tail corruption of a training triple can produce, in either
    direction: those whose (head, relation) or (tail, relation) starts a training triple."""
    starts = _sorted_unique(train[0] * num_rel + train[1])
    reach = _is_known(starts, held[0] * num_rel + held[1]) | _is_known(starts, held[2] * num_rel + held[1])
    return held[:, reach]


def _inputs(arrays: dict, train_edges: np.ndarray, n: int, protocol: Protocol) -> torch.Tensor:
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    if protocol.structural_features == "reference":  # 3-d log-degrees of the training heads
        return torch.as_tensor(log_degree_features(n, train_edges[0]))
    return torch.as_tensor(structural_features(n, train_edges))


def train_relational(build, arrays: dict, seed: int, hp: Hyper, device="cpu", on_epoch=None,
                     protocol: Protocol | dict | None = None) -> FitResult:
    protocol = Protocol.of(protocol)
    n = num_nodes(arrays)
    num_rel = int(np.asarray(arrays["num_relations"]).reshape(-1)[0])
    canonical = {s: np.stack([arrays[f"{s}_edge_index"][0], arrays[f"{s}_edge_type"], arrays[f"{s}_edge_index"][1]])
                 .astype(np.int64) for s in ("train", "valid", "test")}
    held = np.concatenate([canonical["valid"], canonical["test"]], axis=1)
    held_ids = triple_ids(held, n, num_rel)
    trip = dict(canonical)
    if protocol.relational_held_out_overlap == "drop":
        trip["train"] = trip["train"][:, ~np.isin(triple_ids(trip["train"], n, num_rel), held_ids)]
    train_ids_undirected = triple_ids(trip["train"], n, num_rel)
    # a learnt input row per entity: the protocol's choice, or the model's own (``entity_inputs``: DistMult)
    embedded = ((protocol.relational_inputs == "embedding" or getattr(build, "entity_inputs", False))
                and "x" not in arrays)
    x = None if embedded else _inputs(arrays, trip["train"][[0, 2]], n, protocol).to(device)
    ei = torch.as_tensor(trip["train"][[0, 2]], dtype=torch.long).to(device)
    model = build(hp.hidden_channels if embedded else x.shape[1], hp.hidden_channels, hp.hidden_channels)
    held_out = held_out_sets(canonical, n, num_rel, seed)  # filtered against every known fact
    resampled = protocol.relational_eval_negatives == "resampled"
    tail_only = protocol.relational_eval_side == "tail"
    eval_rng = split_rng(seed, "relational_eval_resampled")
    design = {"redrawn": False, "n_train": int(trip["train"].shape[1]), "n_test": int(trip["test"].shape[1])}
    fixed_neg = "tail" if tail_only else "either"
    baseline = {"test_constant_auc": 0.5, "test_constant_mrr": M.chance_mrr(RANKING_NEGATIVES)}
    full = protocol.relational_ranking == "full"
    if full:  # filtered against every fact of the canonical split, whatever training keeps
        known_facts = FR.KnownTriples(np.concatenate([canonical[s] for s in ("train", "valid", "test")], axis=1),
                                      n, num_rel)
        baseline["test_constant_full_mrr"] = FR.constant_mrr(canonical["test"], known_facts)
    if getattr(model, "heuristic", False):  # never trained: scored once on the undirected training graph
        sets = {}
        for name, h in held_out.items():  # (head, tail) pairs: relations ignored
            pos, k = h["pos"], h["tails"].shape[1]
            neg = _eval_negatives(pos, n, tail_only, eval_rng) if resampled else h[fixed_neg]
            sets[name] = (pos[[0, 2]], neg[[0, 2]], [(np.repeat(pos[0][:, None], k, 1), h["tails"]),
                                                     (np.repeat(pos[2][:, None], k, 1), h["heads"])])
        adjacency = training_adjacency(n, trip["train"][[0, 2]])
        result = score_heuristic(model, adjacency, sets)
        if full:
            ranked = FR.evaluate("test", model, None, canonical["test"], known_facts, adjacency=adjacency)
            result.history.update({key: [value] for key, value in ranked.items()})
        result.split, result.baseline = design, baseline
        result.leakage = held_out_leaks(held_ids, message_passing=train_ids_undirected)
        return result
    if embedded:  # a learnt input row per entity, a parameter of the model (the optimiser trains it)
        model.entity_embedding = torch.nn.Embedding(n, hp.hidden_channels)
        std = getattr(build, "entity_init_std", None)  # the model's own scale (models/kge.py), else N(0, 1)
        if std is not None:
            torch.nn.init.normal_(model.entity_embedding.weight, 0.0, float(std))
    model = model.to(device)
    inputs = (lambda: model.entity_embedding.weight) if embedded else (lambda x=maybe_sparse(model, x): x)
    if protocol.relational_message_passing == "directed_triples":
        mp_edges = multigraph_graph(model, ei, n, hp.parallel_edges)  # head -> tail, one message per triple
    else:
        mp_edges = model_graph(model, torch.cat([ei, ei.flip(0)], dim=1), n)
    train_ids = _sorted_unique(_triple_ids(trip["train"], num_rel, n))
    eval_sets = {name: (h["pos"], torch.as_tensor(h["pos"]).to(device), torch.as_tensor(h[fixed_neg]).to(device),
                        torch.as_tensor(h["tails"]).to(device), torch.as_tensor(h["heads"]).to(device))
                 for name, h in held_out.items()}
    train_pos = torch.as_tensor(trip["train"]).to(device)
    neg_rng = split_rng(seed, "train_negatives")
    labels = torch.cat([torch.ones(train_pos.shape[1]), torch.zeros(train_pos.shape[1])]).to(device)
    tail_filtered = protocol.relational_negatives == "tail_filtered"
    known = _sorted_unique(np.concatenate([train_ids_undirected, held_ids]))  # every fact, in either direction
    # the held-out triples the training corruptions can draw: the reference's, filtered against training
    # triples only, reach some; head_or_tail ones are redrawn while known, so none by construction
    drawable = (triple_ids(_reachable_by_tail_corruption(held, trip["train"], n, num_rel), n, num_rel)
                if tail_filtered else np.setdiff1d(held_ids, known))
    leakage = held_out_leaks(held_ids, message_passing=train_ids_undirected, train_negatives=drawable,
                             structural_features=None if "x" in arrays or embedded else train_ids_undirected)

    # DistMult's own scores: blockwise, the same bits at a fraction of the memory traffic (models/distmult.py)
    fused = type(model).score is DistMultLink.score and type(model).head_relation is DistMultLink.head_relation

    def step(_batch):
        neg = (_corrupt_tails_filtered(trip["train"], n, num_rel, train_ids, neg_rng) if tail_filtered
               else _corrupt_unknown(trip["train"], n, num_rel, known, neg_rng))
        z = model(inputs(), mp_edges)
        neg = torch.as_tensor(neg).to(device)
        scores = (train_scores(z, model.relations, train_pos, neg) if fused
                  else torch.cat([model.score(z, train_pos), model.score(z, neg)]))
        check_output(scores, (labels.shape[0],), "one score per triple: [num_triples]")
        return F.binary_cross_entropy_with_logits(scores, labels)

    # relational_ranking: full: the checkpoints a report can select (the last evaluation; the earliest best
    # validation MRR), kept to be ranked against every entity once training is over
    kept = {"evaluations": 0, "best": -np.inf, "best_at": None, "best_state": None, "best_z": None, "last_z": None}

    def keep(z, val_mrr: float):
        kept["last_z"] = z
        if np.isfinite(val_mrr) and val_mrr > kept["best"]:
            kept.update(best=val_mrr, best_at=kept["evaluations"], best_z=z,
                        best_state={k: v.clone() for k, v in model.state_dict().items()})
        kept["evaluations"] += 1

    def evaluate():
        z = model(inputs(), mp_edges)
        row = {}
        for name, (pos_np, pos, neg, tails, heads) in eval_sets.items():
            if resampled:  # one corruption per triple, drawn anew at every evaluation (unfiltered)
                neg = torch.as_tensor(_eval_negatives(pos_np, n, tail_only, eval_rng)).to(device)
            sp, sn = model.score(z, pos), model.score(z, neg)
            s = torch.cat([sp, sn])
            lab = torch.cat([torch.ones_like(sp), torch.zeros_like(sn)])
            row.update(M.pair_metrics(name, s, lab))
            (t_true, t_cand), (h_true, h_cand) = (_score_corrupted(model, z, pos, tails, "tail"),
                                                  _score_corrupted(model, z, pos, heads, "head"))
            row.update(M.rank_metrics(name, torch.cat([t_cand, h_cand]), torch.cat([t_true, h_true])))
            if name == "test":
                row["test_constant"] = is_constant(s)
                row["test_distinct"] = distinct_values(s)
        if full:
            keep(z, row["val_mrr"])
        return row

    result = fit(model, hp, step, evaluate, on_epoch)
    if full:
        result.history.update(_full_ranking(model, kept, canonical["test"], known_facts, len(result.epochs)))
    result.baseline, result.split, result.leakage = baseline, design, leakage
    return result


def _full_ranking(model, kept: dict, test: np.ndarray, known: FR.KnownTriples, length: int) -> dict[str, list]:
    """``relational_ranking: full``: the test triples ranked against every entity (:mod:`.full_rank`) at the
    last evaluation and at the earliest best validation MRR (what ``final`` and ``best_val`` select), one
    series each of ``length`` evaluations, NaN at the others."""
    at = {length - 1: FR.evaluate("test", model, kept["last_z"], test, known)}  # the trained model as it ends
    if kept["best_at"] is not None and kept["best_at"] != length - 1:
        with torch.no_grad():
            model.load_state_dict(kept["best_state"])
        at[kept["best_at"]] = FR.evaluate("test", model, kept["best_z"], test, known)
    return {key: [at[i][key] if i in at else float("nan") for i in range(length)] for key in at[length - 1]}
