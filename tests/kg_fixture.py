"""A small knowledge graph shaped like Nations (14 entities, 55 relations, about 2,400 triples), made here.

The entities fall in four blocs; each relation holds, with probability 0.9, between the ordered bloc
pairs it favours (30 % of them, drawn per relation) and never elsewhere, so whether a triple is true
depends on who the two entities are, not on their degree (which is about the same for all). What a
model can reach on it: ranking each test triple against one uniform tail corruption, knowing the
blocs and the favoured pairs, gives an AUC of 0.75 (:func:`oracle_auc`); a model that cannot tell
entities apart gives 0.5.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

NUM_ENTITIES, NUM_RELATIONS, BLOCS = 14, 55, (4, 4, 3, 3)


def nations_like(seed: int = 0) -> tuple[dict[str, np.ndarray], dict]:
    """``(parts, truth)``: the [m, 3] (head, relation, tail) triples of train/valid/test (80/10/10,
    shuffled) and what generated them (``bloc`` per entity, ``p[r, bloc_h, bloc_t]``)."""
    rng = np.random.default_rng(seed)
    bloc = np.repeat(np.arange(len(BLOCS)), BLOCS)
    p = np.where(rng.random((NUM_RELATIONS, len(BLOCS), len(BLOCS))) < 0.3, 0.9, 0.0)
    triples = []
    for r in range(NUM_RELATIONS):
        prob = p[r][bloc[:, None], bloc[None, :]]
        np.fill_diagonal(prob, 0.0)
        h, t = np.nonzero(rng.random((NUM_ENTITIES, NUM_ENTITIES)) < prob)
        triples += [(a, r, b) for a, b in zip(h.tolist(), t.tolist())]
    triples = np.asarray(triples, dtype=np.int64)[rng.permutation(len(triples))]
    a, b = int(len(triples) * 0.8), int(len(triples) * 0.9)
    return {"train": triples[:a], "valid": triples[a:b], "test": triples[b:]}, {"bloc": bloc, "p": p}


def arrays(seed: int = 0) -> dict[str, np.ndarray]:
    """The fixture in the relational arrays layout (``relational_canonical``)."""
    parts, _ = nations_like(seed)
    out = {"num_nodes": np.asarray(NUM_ENTITIES), "num_relations": np.asarray(NUM_RELATIONS)}
    for split, t in parts.items():
        out[f"{split}_edge_index"] = t[:, [0, 2]].T.copy()
        out[f"{split}_edge_type"] = t[:, 1].copy()
    return out


def write_triples(folder: Path, seed: int = 0) -> Path:
    """The fixture as a ``triples`` dataset: ``train.txt``/``valid.txt``/``test.txt`` of named
    ``head<TAB>relation<TAB>tail`` lines (country and relation names, as Nations has)."""
    folder.mkdir(parents=True, exist_ok=True)
    parts, _ = nations_like(seed)
    for split, t in parts.items():
        lines = [f"country{h:02d}\trel{r:02d}\tcountry{tl:02d}" for h, r, tl in t.tolist()]
        (folder / f"{split}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def oracle_auc(seed: int = 0) -> float:
    """The AUC of the generating probabilities on the test triples against one uniform tail
    corruption each (ties broken at random): the most a model can reach here, about 0.75."""
    from scipy.stats import mannwhitneyu

    parts, truth = nations_like(seed)
    rng = np.random.default_rng(seed + 1)
    test = parts["test"]
    neg = test.copy()
    neg[:, 2] = rng.integers(0, NUM_ENTITIES, len(test))

    def score(t):
        return truth["p"][t[:, 1], truth["bloc"][t[:, 0]], truth["bloc"][t[:, 2]]] + 1e-9 * rng.random(len(t))

    pos, negs = score(test), score(neg)
    return float(mannwhitneyu(pos, negs).statistic / (len(pos) * len(negs)))
