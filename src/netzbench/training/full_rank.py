r"""Filtered ranking of knowledge-graph triples against every entity, as the knowledge-graph literature reports it.

For each held-out triple :math:`(h, r, t)` and each side, the true entity is ranked among *all*
:math:`n` entities in its place: tails :math:`(h, r, t')` and heads :math:`(h', r, t)`. Filtered
setting: a candidate that makes a known triple (training, validation or test, as given) is left out,
the true entity itself included (it is the one ranked). With :math:`a` remaining candidates scoring
above the true triple and :math:`t` tied with it, the rank follows the project's convention
(:mod:`.metrics`): uniform on :math:`a+1, \dots, a+t+1` when ties are broken at random, so MRR is
:math:`E[1/R]` and Hits@k is :math:`P(R \le k)`, averaged over every triple and both sides
(:func:`full_rank_metrics`: ``{name}_full_mrr``, ``{name}_full_hits{1,3,10}``).

Scores come in blocks of triples, each block a dense ``[b, n]`` matrix of about
:data:`BLOCK_ENTRIES` entries, so memory stays bounded whatever the graph; every candidate is counted,
and the filtered ones are taken out again from their own scores (:func:`rank_counts`):

- DistMult (:class:`~netzbench.models.adapters.DistMultLink`): one matrix product
  :math:`(z_h \odot w_r) Z^\top` per block, over the *distinct* rows of :math:`Z` (each counted as
  often as entities share it: a collapsed model has one), a head side as the tail side of the inverse
  triple (the score is symmetric). A product kernel may sum a row in another order than the
  elementwise product and sum by which the sampled ranking (:mod:`.relational`) scores a triple, so a
  candidate that ties the true triple there might not tie it here. Every candidate within the rounding
  bound of the true score (:meth:`DistMultRows.block`: :math:`2 d\,\epsilon\,\lVert z_h \odot
  w_r\rVert (\lVert z_{t'}\rVert + \lVert z_t\rVert)`) is therefore scored again the elementwise way,
  the true triple always; the rest lie farther from it than both roundings together, so their order is
  the elementwise one. The ranks are thus exactly those of scoring every candidate elementwise (the
  tests' brute-force reference), at the cost of a matrix product.
- A link heuristic (:mod:`netzbench.models.heuristics`): its ``scores`` of each kept endpoint against
  every entity (relations ignored, as for its sampled ranking).
- Any other model: its ``score`` of every candidate triple, :data:`SCORE_TRIPLES` at a time.
"""

from __future__ import annotations

import numpy as np
import torch

from . import metrics as M

#: dense score entries per block of triples (16 MB of float32)
BLOCK_ENTRIES = 1 << 22
#: candidate triples per call of a model's own ``score`` (generic models)
SCORE_TRIPLES = 1 << 18
#: near-tied candidates rescored elementwise per step (bounds the [pairs, d] gathers)
EXACT_CHUNK = 1 << 16
SIDES = ("tail", "head")


class KnownTriples:
    """Every known triple, indexed for the filter: per side, the entities that complete a (fixed entity,
    relation) into a known triple."""

    def __init__(self, triples: np.ndarray, num_nodes: int, num_relations: int):
        trip = np.unique(np.asarray(triples, dtype=np.int64).reshape(3, -1), axis=1)  # a repeated triple once
        self.n, self.num_relations = num_nodes, num_relations
        self._index = {}
        for side, (fixed, free) in {"tail": (0, 2), "head": (2, 0)}.items():
            keys = trip[fixed] * num_relations + trip[1]
            order = np.lexsort((trip[free], keys))
            self._index[side] = (keys[order], trip[free][order])

    def completions(self, fixed: np.ndarray, relation: np.ndarray, side: str) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, entities)``: for each query ``i`` (a fixed entity and relation), every entity that
        completes it into a known triple on ``side`` (the replaced slot), as flat index pairs."""
        keys, values = self._index[side]
        query = np.asarray(fixed, dtype=np.int64) * self.num_relations + np.asarray(relation, dtype=np.int64)
        lo, hi = np.searchsorted(keys, query, "left"), np.searchsorted(keys, query, "right")
        counts = hi - lo
        rows = np.repeat(np.arange(query.size), counts)
        starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
        return rows, values[starts + np.arange(rows.size)]


class DistMultRows:
    """Scores of every entity in the replaced slot for DistMult: a matrix product per block against the
    *distinct* entity embeddings (a collapsed model, or entities of equal degree features, have few), near
    ties rescored elementwise (module docstring)."""

    def __init__(self, model, z: torch.Tensor):
        self.model, self.z, self.device = model, z, z.device
        M.require_finite("full-rank MRR", z)
        M.require_finite("full-rank MRR", model.relations)  # finite inputs: no NaN among the products
        distinct, columns = np.unique(z.detach().cpu().numpy(), axis=0, return_inverse=True)  # entity -> row
        self.distinct = torch.as_tensor(distinct).to(z.device)
        self.columns = torch.as_tensor(columns.reshape(-1)).to(z.device)
        counts = torch.bincount(self.columns, minlength=self.distinct.shape[0])
        self.weights = None if bool((counts == 1).all()) else counts.to(torch.float64)
        self.norms = torch.linalg.vector_norm(self.distinct, dim=1)
        self.max_norm = self.norms.max() if self.norms.numel() else self.norms.new_zeros(())

    def block(self, pos: torch.Tensor, side: str) -> tuple[torch.Tensor, torch.Tensor]:
        r"""``(diff [b, u], true [b])`` of the triples ``pos`` [3, b] on ``side``: each distinct
        embedding's score minus the true score, exact (elementwise) wherever a summation order could
        decide its sign: two orders of :math:`a \cdot b` land within
        :math:`2 \gamma_d \lVert a\rVert \lVert b\rVert` of each other (:math:`\gamma_d \approx
        d\,\epsilon / 2`), and every candidate within twice that (with the largest norm of a candidate,
        plus the true tail's) of the true score is rescored; the true score always is."""
        hr = self.model.head_relation(self.z, pos if side == "tail" else pos[[2, 1, 0]])
        true_col = self.columns[pos[2] if side == "tail" else pos[0]]
        true = self._exact(hr, torch.arange(hr.shape[0], device=hr.device), true_col)
        diff = torch.matmul(hr, self.distinct.T).sub_(true[:, None])
        tol = (2 * hr.shape[1] * torch.finfo(hr.dtype).eps) * torch.linalg.vector_norm(hr, dim=1) \
            * (self.max_norm + self.norms[true_col])
        near_r, near_c = torch.nonzero(diff.abs() <= tol[:, None], as_tuple=True)
        if near_r.numel():
            diff[near_r, near_c] = self._exact(hr, near_r, near_c) - true[near_r]
        return diff, true

    def _exact(self, hr: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        r"""The elementwise scores :math:`\sum_d z_{e,d} (z_h \odot w_r)_d` of block ``rows`` with the
        distinct embeddings ``cols`` (the product and order by which :mod:`.relational` sums a triple)."""
        out = hr.new_empty(rows.shape[0])
        for i in range(0, rows.shape[0], EXACT_CHUNK):
            j = min(i + EXACT_CHUNK, rows.shape[0])
            out[i:j] = (self.distinct.index_select(0, cols[i:j]) * hr.index_select(0, rows[i:j])).sum(-1)
        return out


class HeuristicRows:
    """Scores of every entity in the replaced slot for a link heuristic (relations ignored)."""

    columns = weights = None  # one column per entity

    def __init__(self, model, adjacency):
        self.model, self.adjacency, self.device = model, adjacency, torch.device("cpu")

    def block(self, pos: torch.Tensor, side: str):
        kept = (pos[0] if side == "tail" else pos[2]).numpy()
        n = self.adjacency.shape[0]
        every = np.broadcast_to(np.arange(n), (kept.size, n))
        scores = torch.as_tensor(self.model.scores(self.adjacency, kept, every), dtype=torch.float64)
        M.require_finite("full-rank MRR", scores)
        true = scores[torch.arange(kept.size), pos[2] if side == "tail" else pos[0]]
        return scores.sub_(true[:, None]), true


class ModelRows:
    """Scores of every entity in the replaced slot from any model's own ``score`` of each candidate triple."""

    columns = weights = None  # one column per entity

    def __init__(self, model, z: torch.Tensor, num_nodes: int):
        self.model, self.z, self.n, self.device = model, z, num_nodes, z.device

    def block(self, pos: torch.Tensor, side: str):
        b, n = pos.shape[1], self.n
        trip = pos.repeat_interleave(n, dim=1)
        trip[2 if side == "tail" else 0] = torch.arange(n, device=pos.device).repeat(b)
        scores = torch.cat([self.model.score(self.z, trip[:, i:i + SCORE_TRIPLES])
                            for i in range(0, trip.shape[1], SCORE_TRIPLES)]).reshape(b, n)
        M.require_finite("full-rank MRR", scores)
        true = scores[torch.arange(b, device=scores.device), pos[2] if side == "tail" else pos[0]]
        return scores.sub_(true[:, None]), true


def block_size(rows, num_nodes: int) -> int:
    """Triples per block: about :data:`BLOCK_ENTRIES` dense scores (one per entity, or per distinct
    embedding), or for a model's own ``score`` :data:`SCORE_TRIPLES` candidate triples (one call)."""
    if isinstance(rows, ModelRows):
        return max(1, SCORE_TRIPLES // max(1, num_nodes))
    width = rows.distinct.shape[0] if isinstance(rows, DistMultRows) else num_nodes
    return max(1, BLOCK_ENTRIES // max(1, width))


def rank_counts(rows, pos: np.ndarray, known: KnownTriples, block: int | None = None,
                progress=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Per held-out triple and side (tails first, then heads: ``[2m]``), how many unfiltered candidates
    score above the true triple and how many tie it. ``rows`` gives score blocks (:class:`DistMultRows`,
    :class:`HeuristicRows`, :class:`ModelRows`), one column per entity or (``rows.columns``: entity ->
    column, ``rows.weights``: entities per column) per group of entities that score alike.

    A block holds each candidate's score minus the true one (its sign decides). Every candidate is
    counted first; the filtered ones (every known completion, and the true entity
    itself) are then taken out again, from their own scores."""
    pos = np.asarray(pos, dtype=np.int64).reshape(3, -1)
    m, n = pos.shape[1], known.n
    block = block or block_size(rows, n)
    above = torch.zeros(2 * m, dtype=torch.float64)
    tied = torch.zeros(2 * m, dtype=torch.float64)
    for s, side in enumerate(SIDES):
        for start in range(0, m, block):
            part = pos[:, start:start + block]
            b = part.shape[1]
            fixed, free = (part[0], part[2]) if side == "tail" else (part[2], part[0])
            diff, true = rows.block(torch.as_tensor(part).to(rows.device), side)  # scores minus the true one
            M.require_finite("full-rank MRR", true)
            dev = diff.device
            if rows.weights is None:
                up, level = (diff > 0).sum(1).double(), (diff == 0).sum(1).double()
            else:  # a column stands for as many entities as share its embedding
                w = rows.weights.to(dev)
                up, level = (diff > 0).to(torch.float64) @ w, (diff == 0).to(torch.float64) @ w
            r, e = known.completions(fixed, part[1], side)
            ids = np.unique(np.concatenate([r * n + e, np.arange(b) * n + free]))  # the true entity once
            r, e = torch.as_tensor(ids // n).to(dev), torch.as_tensor(ids % n).to(dev)
            got = diff[r, e if rows.columns is None else rows.columns[e]]
            up -= torch.bincount(r, weights=(got > 0).double(), minlength=b)
            level -= torch.bincount(r, weights=(got == 0).double(), minlength=b)
            at = slice(s * m + start, s * m + start + b)
            above[at], tied[at] = up.cpu(), level.cpu()
            if progress is not None:
                progress(s * m + start + b, 2 * m)
    return above, tied


def full_rank_metrics(name: str, above: torch.Tensor, tied: torch.Tensor) -> dict[str, float]:
    """``{name}_full_mrr`` and ``{name}_full_hits{1,3,10}`` from :func:`rank_counts`."""
    row = {f"{name}_full_mrr": M.expected_reciprocal_rank(above, tied).mean().item()}
    for k in M.HITS_AT:
        row[f"{name}_full_hits{k}"] = M.expected_hits(above, tied, k).mean().item()
    return row


def constant_mrr(pos: np.ndarray, known: KnownTriples) -> float:
    """The full filtered MRR of a constant scorer (every candidate tied): the mean over triples and sides
    of :math:`H_{k+1}/(k+1)`, :math:`k` the unfiltered candidates of each."""
    pos = np.asarray(pos, dtype=np.int64).reshape(3, -1)
    counts = []
    for side in SIDES:
        fixed, free = (pos[0], pos[2]) if side == "tail" else (pos[2], pos[0])
        r, e = known.completions(fixed, pos[1], side)
        filtered = np.bincount(r, minlength=pos.shape[1])
        counts.append(known.n - filtered - (~_has(r, e, free)).astype(np.int64))
    k = torch.as_tensor(np.concatenate(counts), dtype=torch.float64)
    return M.expected_reciprocal_rank(torch.zeros_like(k), k).mean().item()


def _has(rows: np.ndarray, entities: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Per query ``i``: is ``free[i]`` among its completions (the true triple is known)?"""
    hit = np.zeros(free.size, dtype=bool)
    hit[rows[entities == free[rows]]] = True
    return hit


def rows_for(model, z: torch.Tensor | None, num_nodes: int, adjacency=None):
    """The score-block maker for ``model`` (module docstring)."""
    from ..models.adapters import DistMultLink

    if getattr(model, "heuristic", False):
        return HeuristicRows(model, adjacency)
    if type(model).score is DistMultLink.score and type(model).head_relation is DistMultLink.head_relation:
        return DistMultRows(model, z)
    return ModelRows(model, z, num_nodes)


def evaluate(name: str, model, z, pos: np.ndarray, known: KnownTriples, adjacency=None) -> dict[str, float]:
    """``{name}_full_mrr``, ``{name}_full_hits{1,3,10}`` of ``model`` (embeddings ``z``; a heuristic:
    the training ``adjacency``) on the held-out triples ``pos`` [3, m]."""
    with torch.inference_mode():
        return full_rank_metrics(name, *rank_counts(rows_for(model, z, known.n, adjacency), pos, known))
