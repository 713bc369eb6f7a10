"""The leakage guard: did a held-out edge reach training?

A link task holds out validation and test positives; a model must not see
them, in either direction, in what it trains on. Each link trainer calls
:func:`held_out_leaks` once per seed with its held-out positives and the
edges of every training channel:

- ``message_passing``: the graph the encoder passes messages over;
- ``train_negatives``: pairs trained as non-edges (a held-out positive
  there is trained as a negative);
- ``structural_features``: the edges the inputs of a featureless graph
  are computed from (degrees over all edges see the held-out ones).

The names of the channels that hold one are recorded with the seed
(``leakage``); the strict protocol must leave every one empty (tested over
the catalogue), and the report flags a cell whose seeds saw held-out edges.
Pairs are compared as undirected ids, so a reversed edge counts; a
knowledge graph's triples are compared with their relation (the same two
entities under another relation are a different fact).
"""

from __future__ import annotations

import numpy as np

#: the training channels a held-out positive must not reach, in the order they are reported
CHANNELS = ("message_passing", "train_negatives", "structural_features")


def pair_ids(pairs: np.ndarray, num_nodes: int) -> np.ndarray:
    """Undirected ids ``min(u, v) * n + max(u, v)`` of the pairs ``[2, m]`` (a pair and its reverse agree)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(2, -1)
    lo, hi = np.minimum(pairs[0], pairs[1]), np.maximum(pairs[0], pairs[1])
    return lo * int(num_nodes) + hi


def triple_ids(triples: np.ndarray, num_nodes: int, num_relations: int) -> np.ndarray:
    """Ids of (head, relation, tail) triples ``[3, m]``, a triple and its inverse (tail, relation, head)
    agreeing: symmetric under reversal like :func:`pair_ids`."""
    triples = np.asarray(triples, dtype=np.int64).reshape(3, -1)
    lo, hi = np.minimum(triples[0], triples[2]), np.maximum(triples[0], triples[2])
    return (lo * int(num_relations) + triples[1]) * int(num_nodes) + hi


def held_out_leaks(held_out: np.ndarray, **channels: np.ndarray | None) -> list[str]:
    """The names (in :data:`CHANNELS` order) of the ``channels`` whose ids hold any of
    the ``held_out`` ids (from :func:`pair_ids` or :func:`triple_ids`); a channel given as None is not
    used by this run. Empty: no held-out positive reached training."""
    unknown = set(channels) - set(CHANNELS)
    if unknown:
        raise ValueError(f"unknown leakage channel(s) {sorted(unknown)}; known: {list(CHANNELS)}")
    held = np.unique(np.asarray(held_out, dtype=np.int64))
    out = []
    for name in CHANNELS:
        ids = channels.get(name)
        if ids is not None and held.size and np.isin(np.asarray(ids, dtype=np.int64), held).any():
            out.append(name)
    return out
