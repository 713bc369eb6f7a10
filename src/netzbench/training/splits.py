"""Per-seed splits. Every split draws from its own generator seeded by the run
seed, so splits do not depend on model initialisation order and are identical
for every model of a task (seed-aligned pairing in the report)."""

from __future__ import annotations

import numpy as np

from ..graphs.rng import rng_for


def split_rng(seed: int, purpose: str) -> np.random.Generator:
    """The stream for ``purpose`` under run seed ``seed`` (:func:`netzbench.graphs.rng.rng_for`)."""
    return rng_for(purpose, seed)


def stratified_node_split(y: np.ndarray, seed: int, frac=(0.5, 0.25, 0.25)) -> tuple[np.ndarray, ...]:
    """Boolean train/val/test masks, stratified by class.

    Per class of size c: ``max(1, round(frac[0]·c))`` train nodes, then
    ``round(frac[1]·c)`` validation nodes, the rest test (so every class with
    at least one node is in train). Nodes labelled < 0 (a missing label: :mod:`netzbench.catalog.checks`)
    are in no mask.
    """
    rng = split_rng(seed, "stratified_node_split")
    n = len(y)
    masks = [np.zeros(n, dtype=bool) for _ in range(3)]
    for cls in np.unique(y[y >= 0]):
        idx = np.flatnonzero(y == cls)
        idx = idx[rng.permutation(len(idx))]
        n_train = max(1, int(round(frac[0] * len(idx))))
        n_val = int(round(frac[1] * len(idx)))
        masks[0][idx[:n_train]] = True
        masks[1][idx[n_train:n_train + n_val]] = True
        masks[2][idx[n_train + n_val:]] = True
    return tuple(masks)


#: labelled nodes per class for training and validation under ``train.node_split: random``
PER_CLASS_TRAIN, PER_CLASS_VAL = 20, 30


def random_node_split(y: np.ndarray, seed: int, per_class: tuple[int, int] = (PER_CLASS_TRAIN, PER_CLASS_VAL)
                      ) -> tuple[np.ndarray, ...]:
    """Boolean train/val/test masks: ``per_class`` = (20, 30) random nodes of every class for training
    and validation, the rest test (Shchur et al. 2018, "Pitfalls of Graph Neural Network Evaluation").

    A class too small for that (``c <= 20 + 30`` nodes) keeps one node for test and splits the other
    ``c - 1`` between training and validation in the same 20:30 proportion, rounded, with at least one
    training node (so 50 nodes give 20/29/1, 3 nodes 1/1/1, 2 nodes 1/0/1); a class of one node is
    training only. The formula meets 20/30/rest at ``c = 51``. Nodes labelled < 0 are in no mask.
    """
    rng = split_rng(seed, "random_node_split")  # its own stream: identical for every model of a task and seed
    y = np.asarray(y)
    n_tr, n_va = per_class
    masks = [np.zeros(len(y), dtype=bool) for _ in range(3)]
    for cls in np.unique(y[y >= 0]):
        idx = np.flatnonzero(y == cls)
        idx = idx[rng.permutation(len(idx))]
        labelled = min(n_tr + n_va, len(idx) - 1)  # at least one test node when the class has two
        n_train = min(len(idx), max(1, (2 * n_tr * labelled + n_tr + n_va) // (2 * (n_tr + n_va))))
        n_val = max(0, labelled - n_train)
        masks[0][idx[:n_train]] = True
        masks[1][idx[n_train:n_train + n_val]] = True
        masks[2][idx[n_train + n_val:]] = True
    return tuple(masks)


def random_index_split(n: int, seed: int, frac=(0.8, 0.1, 0.1), purpose: str = "graphs") -> tuple[np.ndarray, ...]:
    """Shuffle ``range(n)`` per seed and cut it ``frac`` (train/val/test indices)."""
    perm = split_rng(seed, purpose).permutation(n)
    n_train = int(round(frac[0] * n))
    n_val = int(round(frac[1] * n))
    return perm[:n_train], perm[n_train:n_train + n_val], perm[n_train + n_val:]


def sample_negative_pairs(num_nodes: int, forbidden: set[int] | np.ndarray, count: int,
                          rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct undirected non-edges (i < j), avoiding ``forbidden`` pair ids ``i*n+j``."""
    forbidden = np.asarray(sorted(forbidden) if isinstance(forbidden, set) else forbidden, dtype=np.int64)
    max_pairs = num_nodes * (num_nodes - 1) // 2 - len(np.unique(forbidden))
    if count > max_pairs:
        raise ValueError(f"cannot sample {count} negative pairs: only {max_pairs} non-edges exist")
    chosen = np.zeros(0, dtype=np.int64)
    while len(chosen) < count:
        need = count - len(chosen)
        a = rng.integers(0, num_nodes, size=2 * need + 16)
        b = rng.integers(0, num_nodes, size=2 * need + 16)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        ids = lo[lo != hi] * num_nodes + hi[lo != hi]
        ids = ids[~np.isin(ids, forbidden) & ~np.isin(ids, chosen)]
        _, first = np.unique(ids, return_index=True)
        ids = ids[np.sort(first)]
        chosen = np.concatenate([chosen, ids[:need]])
    return np.stack([chosen // num_nodes, chosen % num_nodes])
