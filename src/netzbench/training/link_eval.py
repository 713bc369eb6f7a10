r"""Validation and test negatives of homogeneous link prediction: the ``link_eval_negatives`` switch.

Every setting gives each held-out split (``val``, ``test``) two things:

- **pooled negatives** for ROC-AUC and average precision;
- **each positive's own candidates** for MRR and Hits@k: a positive :math:`(u, v)` is ranked
  against :data:`RANKING_CANDIDATES` :math:`= K` negatives, :math:`K/2` that replace its tail,
  :math:`(u, w)`, and :math:`K/2` its head, :math:`(w, v)` (the candidates of a side are
  distinct; where a side has fewer eligible :math:`w` than :math:`K/2`, its candidates repeat
  cyclically, and a side with none takes the other side's).

A candidate :math:`w` of a fixed endpoint :math:`s` is *eligible* when :math:`w \ne s` (no self-loop)
and :math:`(s, w)` is no known edge: for the validation split no training or validation edge, for
the test split no edge of the graph at all (training, validation, test). The validation split thus
never depends on the test edges, and no candidate is the positive itself. The settings differ in
how :math:`w` is chosen:

- ``uniform`` (the paper): pooled negatives are the split's own (:class:`.link.EdgeSplit`: one per
  positive, uniform among the non-edges, drawn with the split); candidates :math:`w` uniform among
  the eligible nodes.
- ``degree`` (degree-corrected, Aiyappa et al. 2025): :math:`w` drawn from the endpoint list of the
  split's own positives, where a node appears as often as it ends one of them, so a negative's
  endpoints have exactly the positives' degree distribution (whatever the degree measured: the
  training degree of a held-out edge's endpoints is one short of its full degree, and a list of
  *training*-edge endpoints would over-correct, making a degree-only scorer worse than chance);
  pooled negatives, one per positive, have both endpoints drawn so (rejecting known edges,
  self-loops and duplicates).
- ``hard`` (HeaRT, Li et al. 2023): for each fixed endpoint :math:`s`, the eligible :math:`w` are
  ranked by three scores on the *training* graph -- resource allocation
  :math:`\sum_{c \in N(s) \cap N(w)} 1/d_c`, personalized PageRank from :math:`s` (restart
  probability :data:`PPR_ALPHA`, :data:`PPR_ITERATIONS` power iterations
  :math:`x \leftarrow \alpha e_s + (1 - \alpha) P^\top x`, :math:`P = D^{-1}A`) and, where the graph
  has node features, their cosine similarity -- and combined by the minimum of the ranks, so
  :math:`w` is hard when any one score ranks it high. A score ranks only the :math:`w` it scores
  above 0 and only its top :math:`K/2`, ties counted pessimistically (a block of tied scores takes
  the rank of its last member; a tie across the cut is left out), so a score that cannot tell
  candidates apart contributes none of them. The :math:`K/2` of smallest rank are kept; when fewer
  are ranked (an endpoint with no training edge), uniform eligible nodes complete them. Pooled
  negatives for AUC/AP are every positive's candidates together (:math:`mK` pairs, a pair counted
  as often as it is a candidate).

All of it is a deterministic function of the seed and the data, the same for every model of a cell
(the four link heuristics score exactly these pairs too). Every draw comes from this module's own
streams (:func:`.splits.split_rng` purposes ``link_eval_*``), never from the split's, so the
``uniform`` setting's pooled negatives, and the paper protocol's AUC and AP, are the split's as
before. Scores are computed blockwise (about :data:`BLOCK_ENTRIES` dense entries at a time).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch

from ..models.heuristics import BLOCK_ENTRIES, degrees, training_adjacency
from .leakage import pair_ids
from .splits import split_rng

#: K: candidates per positive for MRR / Hits@k, half replacing each endpoint (benchmarks/RESULTS.md: the choice)
RANKING_CANDIDATES = 50
#: personalized PageRank of the ``hard`` setting: restart probability and power iterations
PPR_ALPHA, PPR_ITERATIONS = 0.15, 8
SETTINGS = ("uniform", "degree", "hard")
#: rounds of a rejection sampler before it gives up (a graph with too few non-edges)
MAX_ROUNDS = 1000


@dataclass
class HeldOut:
    """One held-out split's evaluation pairs: positives, pooled negatives, each positive's candidates."""

    pos: np.ndarray  # [2, m]
    neg: np.ndarray | None  # [2, m'] pooled negatives for AUC/AP; None: the candidates pooled (``hard``)
    fixed: np.ndarray  # [m, K] the endpoint a candidate keeps
    other: np.ndarray  # [m, K] the node that replaces the other endpoint
    head_side: np.ndarray  # [m, K] True where the head u is replaced: the pair is (other, fixed)

    def candidate_pairs(self) -> np.ndarray:
        """The candidates as oriented pairs ``[2, m * K]``, row-major (positive by positive)."""
        src = np.where(self.head_side, self.other, self.fixed)
        dst = np.where(self.head_side, self.fixed, self.other)
        return np.stack([src.reshape(-1), dst.reshape(-1)])


class _Known:
    """The edges a negative of one split must avoid: sorted undirected ids and a 0/1 adjacency."""

    def __init__(self, num_nodes: int, pairs: np.ndarray):
        self.n = num_nodes
        self.ids = np.unique(pair_ids(pairs, num_nodes))
        self.adj = training_adjacency(num_nodes, pairs)  # symmetric, self-loops dropped

    def has(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ids = np.minimum(a, b) * self.n + np.maximum(a, b)
        if self.ids.size == 0:
            return np.zeros(ids.shape, dtype=bool)
        at = np.minimum(np.searchsorted(self.ids, ids), self.ids.size - 1)
        return self.ids[at] == ids


def _later_duplicates(rows: np.ndarray) -> np.ndarray:
    """True where an entry repeats one further left in its row (the first occurrence is kept)."""
    order = np.argsort(rows, axis=1, kind="stable")
    ranked = np.take_along_axis(rows, order, 1)
    dup_sorted = np.zeros(rows.shape, dtype=bool)
    dup_sorted[:, 1:] = ranked[:, 1:] == ranked[:, :-1]
    dup = np.zeros(rows.shape, dtype=bool)
    np.put_along_axis(dup, order, dup_sorted, 1)
    return dup


def _compact(rows: np.ndarray) -> np.ndarray:
    """Valid entries (>= 0) first in each row, then repeated cyclically over the empty slots; a row with
    none stays all -1."""
    order = np.argsort(rows < 0, axis=1, kind="stable")
    rows = np.take_along_axis(rows, order, 1)
    valid = (rows >= 0).sum(1)
    idx = np.arange(rows.shape[1])[None, :] % np.maximum(valid, 1)[:, None]
    return np.where(valid[:, None] > 0, np.take_along_axis(rows, idx, 1), -1)


def _fill(rows: np.ndarray, sources: np.ndarray, known: _Known, weights: np.ndarray, draw,
          rng: np.random.Generator) -> np.ndarray:
    """Fill the empty slots (-1) of ``rows`` [r, c] with distinct eligible nodes not already in the row,
    drawn in proportion to ``weights`` (nodes of weight 0 never) without replacement: by rejection
    (``draw(size)`` gives nodes with those weights) where a row's pool has room to spare, else exactly
    (exponential keys, Efraimidis-Spirakis). Rows whose pool runs out are completed cyclically."""
    n = known.n
    rows = np.take_along_axis(rows, np.argsort(rows < 0, axis=1, kind="stable"), 1)  # the nodes it has first
    ok = weights > 0
    have = (rows >= 0).sum(1)
    pool = ok.sum() - ok[sources] - known.adj[sources] @ ok.astype(np.float64) - have
    need = rows.shape[1] - have
    roomy = np.flatnonzero((need > 0) & (pool >= 2 * need))
    if roomy.size:
        part, src = rows[roomy], sources[roomy]
        empty = part < 0
        part[empty] = draw(int(empty.sum()))
        fresh = empty.copy()  # drawn since the last check
        for _ in range(MAX_ROUNDS):
            r, c = np.nonzero(fresh)
            bad = empty & _later_duplicates(part)
            wrong = (part[r, c] == src[r]) | known.has(src[r], part[r, c])
            bad[r[wrong], c[wrong]] = True
            if not bad.any():
                break
            part[bad] = draw(int(bad.sum()))
            fresh = bad
        else:
            raise RuntimeError(f"link evaluation: no distinct candidates after {MAX_ROUNDS} rounds of rejection")
        rows[roomy] = part
    tight = np.flatnonzero((need > 0) & (pool < 2 * need) & (pool > 0))
    step = max(1, BLOCK_ENTRIES // max(n, 1))
    for start in range(0, tight.size, step):
        block = tight[start:start + step]
        keys = rng.exponential(size=(block.size, n)) / np.where(ok, weights, 1.0)
        keys[:, ~ok] = np.inf
        keys[np.arange(block.size), sources[block]] = np.inf
        adj = known.adj[sources[block]].tocoo()
        keys[adj.row, adj.col] = np.inf
        taken = rows[block]
        r_idx, c_idx = np.nonzero(taken >= 0)
        keys[r_idx, taken[r_idx, c_idx]] = np.inf
        order = np.argsort(keys, axis=1, kind="stable")
        for j, row in enumerate(block):
            slots = np.flatnonzero(rows[row] < 0)[:n]  # more empty slots than nodes: the rest repeat
            picks = order[j, :slots.size]
            rows[row, slots] = np.where(np.isfinite(keys[j, picks]), picks, -1)
    return _compact(rows)


def _ppr_columns(transition_t: sp.csr_matrix, sources: np.ndarray) -> np.ndarray:
    """Personalized PageRank from each of ``sources``, one column each ([n, b], float32):
    :data:`PPR_ITERATIONS` steps of :math:`X \\leftarrow \\alpha E + (1 - \\alpha) P^\\top X` from :math:`X = \\alpha E`."""
    n, cols = transition_t.shape[0], np.arange(sources.size)
    start = sp.csr_matrix((np.full(sources.size, PPR_ALPHA, dtype=np.float32), (sources, cols)),
                          shape=(n, sources.size))
    x, done = start, 0
    while done < PPR_ITERATIONS and x.nnz < 0.03 * x.shape[0] * x.shape[1]:  # the first hops are sparse
        x = (transition_t @ x) * np.float32(1 - PPR_ALPHA) + start
        done += 1
    x = x.toarray()
    for _ in range(PPR_ITERATIONS - done):
        x = transition_t @ x
        x *= np.float32(1 - PPR_ALPHA)
        x[sources, cols] += np.float32(PPR_ALPHA)
    return x


def _ranked(vals: np.ndarray, nodes: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """From each row's top ``count + 1`` scores ``vals`` (descending; ineligible -inf) and their ``nodes``:
    the first ``count`` nodes and their pessimistic ranks (how many score at least as high, minus one),
    -1 where not ranked (score <= 0, or tied with the score just past the cut)."""
    head = vals[:, :count]
    ranks = (head[:, None, :] >= head[:, :, None]).sum(-1) - 1
    keep = head > 0
    if vals.shape[1] > count:
        keep &= head != vals[:, count:count + 1]
    return nodes[:, :count], np.where(keep, ranks, -1)


def _hard_rows(sources_by_split: dict[str, np.ndarray], known: dict[str, _Known], count: int,
               train_pairs: np.ndarray, x: np.ndarray | None, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per split, the ``count`` hardest eligible nodes for each of its fixed endpoints (module docstring).

    The scores of a block of endpoints are computed once for both splits: each score's top entries are
    taken with the training edges masked, wide enough (``count + 1`` plus the endpoint's held-out
    degree) that removing a split's held-out neighbours afterwards still leaves its top ``count + 1``."""
    n = next(iter(known.values())).n
    adj = training_adjacency(n, train_pairs)
    deg = degrees(adj)
    inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
    ra_right = (sp.diags(inv) @ adj).tocsr()  # D^-1 A: resource allocation is A D^-1 A
    transition_t = ra_right.T.tocsr().astype(np.float32)  # P^T with P = D^-1 A
    feats = None
    if x is not None:
        x = np.asarray(x, dtype=np.float32).reshape(n, -1)
        norm = np.linalg.norm(x, axis=1, keepdims=True)
        feats = np.divide(x, norm, out=np.zeros_like(x), where=norm > 0)
        if (feats != 0).mean() < 0.1:
            feats = sp.csr_matrix(feats)
    held = {name: _Known(n, np.stack([k.ids // n, k.ids % n])[:, ~np.isin(k.ids, pair_ids(train_pairs, n))])
            for name, k in known.items()}  # each split's held-out neighbours, beyond the training graph
    perm = rng.permutation(n)  # ties among equal ranks, and the uniform completion, in a seeded order
    offsets = {name: rng.integers(0, n, s.size) for name, s in sources_by_split.items()}
    union = np.unique(np.concatenate(list(sources_by_split.values())))
    if feats is None:  # an endpoint without training edges has no score above 0: uniform completion only
        union = union[deg[union] > 0]
    extra = np.max([np.diff(h.adj.indptr)[union] for h in held.values()], axis=0)
    union = union[np.argsort(extra, kind="stable")]  # endpoints of many held-out edges together: narrow blocks
    extra = extra[np.argsort(extra, kind="stable")]
    picks = {name: np.full((s.size, count), -1, dtype=np.int64) for name, s in sources_by_split.items()}
    step = max(1, BLOCK_ENTRIES // max(n, 1))
    for start in range(0, union.size, step):
        block = union[start:start + step]
        width = int(min(n, count + 1 + extra[start:start + step].max()))
        common = adj[block].tocoo()  # training neighbours, and the endpoint itself: ineligible in both splits
        tops = []
        linked = deg[block] > 0  # an endpoint without training edges: PageRank never leaves it
        if linked.all():
            ppr = _ppr_columns(transition_t, block)
        else:
            ppr = np.zeros((n, block.size), dtype=np.float32)
            if linked.any():
                ppr[:, linked] = _ppr_columns(transition_t, block[linked])
        scores = [((adj[block] @ ra_right).toarray(), 1), (ppr, 0)]
        if feats is not None:
            cos = feats[block] @ feats.T
            scores.append((cos.toarray() if sp.issparse(cos) else np.asarray(cos), 1))
        for h, dim in scores:  # dim: the axis of the candidates (PageRank is kept one column per endpoint)
            rows, cols = (common.row, common.col) if dim == 1 else (common.col, common.row)
            h[rows, cols] = -np.inf
            h[(np.arange(block.size), block) if dim == 1 else (block, np.arange(block.size))] = -np.inf
            top = torch.topk(torch.from_numpy(h), width, dim=dim)
            vals, nodes = top.values.numpy(), top.indices.numpy()
            tops.append((vals, nodes) if dim == 1 else (vals.T, nodes.T))
        for name, sources in sources_by_split.items():
            at = np.searchsorted(sources, block)
            mine = np.flatnonzero((at < sources.size) & (sources[np.minimum(at, sources.size - 1)] == block))
            if mine.size == 0:
                continue
            rows_of, src = mine, block[mine]  # rows of the block that are this split's endpoints
            nodes, ranks = [], []
            for vals, idx in tops:
                vals, idx = vals[rows_of].copy(), idx[rows_of]
                vals[held[name].has(src[:, None], idx)] = -np.inf  # this split's held-out neighbours
                order = np.argsort(-vals, axis=1, kind="stable")[:, :count + 1]
                got = _ranked(np.take_along_axis(vals, order, 1), np.take_along_axis(idx, order, 1), count)
                nodes.append(got[0])
                ranks.append(got[1])
            nodes, ranks = np.concatenate(nodes, axis=1), np.concatenate(ranks, axis=1)
            where = np.searchsorted(sources, src)
            key = (perm[nodes] + offsets[name][where][:, None]) % n
            invalid = np.iinfo(np.int64).max
            composite = np.where(ranks >= 0, ranks.astype(np.int64) * n + key, invalid)
            order = np.argsort(composite, axis=1, kind="stable")
            nodes, composite = np.take_along_axis(nodes, order, 1), np.take_along_axis(composite, order, 1)
            composite[_later_duplicates(nodes)] = invalid  # a node ranked by several scores: its best rank
            order = np.argsort(composite, axis=1, kind="stable")[:, :count]  # fewer columns in a tiny graph
            chosen = np.take_along_axis(nodes, order, 1)
            picks[name][where[:, None], np.arange(order.shape[1])] = np.where(
                np.take_along_axis(composite, order, 1) < invalid, chosen, -1)
    out = {}
    for name, sources in sources_by_split.items():
        out[name] = _fill(picks[name], sources, known[name], np.ones(n), lambda size: rng.integers(0, n, size), rng)
    return out


def _degree_pairs(endpoints: np.ndarray, known: _Known, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct pairs [2, count] (i < j), both endpoints drawn from ``endpoints`` (a node as often
    as its degree), never a known edge or a self-loop.

    A split too small to hold ``count`` such non-edges among its own endpoints (a few positives on a
    handful of nodes) is topped up with non-edges drawn uniformly over every node; a graph with fewer
    than ``count`` non-edges at all is an error."""
    n = known.n
    chosen = _draw_pairs(lambda size: endpoints[rng.integers(0, endpoints.size, size)], known, count,
                         np.zeros(0, dtype=np.int64))
    if chosen.size < count:
        chosen = _draw_pairs(lambda size: rng.integers(0, n, size), known, count, chosen)
    if chosen.size < count:
        raise ValueError(f"link_eval_negatives 'degree': cannot draw {count} degree-corrected negatives: only "
                         f"{chosen.size} non-edges were found")
    return np.stack([chosen // n, chosen % n])


def _draw_pairs(draw, known: _Known, count: int, chosen: np.ndarray) -> np.ndarray:
    """``chosen`` (pair ids ``i * n + j``, i < j) extended to ``count`` distinct non-edges, both endpoints
    from ``draw(size)``, in at most :data:`MAX_ROUNDS` rounds (fewer when they run out)."""
    n = known.n
    for _ in range(MAX_ROUNDS):
        need = count - chosen.size
        if need <= 0:
            break
        a, b = draw(2 * need + 16), draw(2 * need + 16)
        keep = (a != b) & ~known.has(a, b)
        ids = np.minimum(a, b)[keep] * n + np.maximum(a, b)[keep]
        ids = ids[~np.isin(ids, chosen)]
        _, first = np.unique(ids, return_index=True)
        chosen = np.concatenate([chosen, ids[np.sort(first)][:need]])
    return chosen


def _assemble(name: str, pos: np.ndarray, tail: np.ndarray, head: np.ndarray, neg) -> HeldOut:
    """One split's :class:`HeldOut` from its tail-side rows (fixed u) and head-side rows (fixed v)."""
    m, half = tail.shape
    empty_tail, empty_head = tail[:, 0] < 0, head[:, 0] < 0
    both = np.flatnonzero(empty_tail & empty_head)
    if both.size:
        u, v = pos[:, both[0]]
        raise ValueError(f"link_eval_negatives: the {name} positive ({u}, {v}) has no eligible negative: both "
                         "endpoints are linked to every other node")
    other = np.concatenate([np.where(empty_tail[:, None], head, tail), np.where(empty_head[:, None], tail, head)],
                           axis=1)
    head_side = np.concatenate([np.broadcast_to(empty_tail[:, None], (m, half)),
                                np.broadcast_to(~empty_head[:, None], (m, half))], axis=1)
    fixed = np.where(head_side, pos[1][:, None], pos[0][:, None])
    return HeldOut(pos.copy(), None if neg is None else neg.copy(), fixed, other, np.ascontiguousarray(head_side))


#: bytes of recent :func:`held_out_sets` results a process keeps: the runs of one seed share them
MEMO_BYTES = 128 << 20
_MEMO: OrderedDict[str, dict[str, HeldOut]] = OrderedDict()


def _digest(split, setting: str, seed: int, x, k: int) -> str:
    h = hashlib.blake2b(repr((setting, int(seed), int(k), int(split.num_nodes))).encode(), digest_size=20)
    for part in (split.train_pos, split.val_pos, split.test_pos, split.val_neg, split.test_neg, x):
        if part is not None:
            part = np.ascontiguousarray(part)
            h.update(repr((part.dtype.str, part.shape)).encode())
            h.update(part.tobytes())
    return h.hexdigest()


def held_out_sets(split, setting: str, seed: int, x: np.ndarray | None = None,
                  k: int = RANKING_CANDIDATES) -> dict[str, HeldOut]:
    """``{"val": HeldOut, "test": HeldOut}`` of ``split`` (:class:`.link.EdgeSplit`) under ``setting``
    (uniform | degree | hard; ``x``: node features for ``hard``'s cosine), ``k`` candidates per positive.

    A deterministic function of its inputs; a process remembers its last results (read-only,
    :data:`MEMO_BYTES` at most) so that the models of one seed that run in it build them once."""
    key = _digest(split, setting, seed, x, k)
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return dict(_MEMO[key])
    out = _build(split, setting, seed, x, k)
    for h in out.values():
        for part in (h.pos, h.neg, h.fixed, h.other, h.head_side):
            if part is not None:
                part.flags.writeable = False
    _MEMO[key] = out
    size = lambda sets: sum(p.nbytes for h in sets.values() for p in (h.fixed, h.other, h.head_side))  # noqa: E731
    while len(_MEMO) > 1 and sum(size(v) for v in _MEMO.values()) > MEMO_BYTES:
        _MEMO.popitem(last=False)
    return dict(out)


def _build(split, setting: str, seed: int, x, k: int) -> dict[str, HeldOut]:
    """:func:`held_out_sets`, computed."""
    if setting not in SETTINGS:
        raise ValueError(f"link_eval_negatives must be one of {list(SETTINGS)}, got {setting!r}")
    if k < 2 or k % 2:
        raise ValueError(f"the number of ranking candidates must be even and at least 2, got {k}")
    n, half = split.num_nodes, k // 2
    positives = {"val": split.val_pos, "test": split.test_pos}
    known = {"val": _Known(n, np.concatenate([split.train_pos, split.val_pos], axis=1)),
             "test": _Known(n, np.concatenate([split.train_pos, split.val_pos, split.test_pos], axis=1))}
    if setting == "hard":
        rng = split_rng(seed, "link_eval_hard")
        sources = {name: np.unique(pos) for name, pos in positives.items()}
        rows = _hard_rows(sources, known, half, split.train_pos, x, rng)
        return {name: _assemble(name, pos, rows[name][np.searchsorted(sources[name], pos[0])],
                                rows[name][np.searchsorted(sources[name], pos[1])], None)
                for name, pos in positives.items()}
    rng = split_rng(seed, f"link_eval_{setting}")
    out = {}
    for name, pos in positives.items():
        m = pos.shape[1]
        if setting == "uniform":
            weights, draw, pooled = np.ones(n), (lambda size: rng.integers(0, n, size)), \
                {"val": split.val_neg, "test": split.test_neg}[name]
        else:  # the split's positives' endpoint list: a node as often as it ends one of them
            stubs = np.asarray(pos, dtype=np.int64).reshape(-1)
            weights = np.bincount(stubs, minlength=n).astype(np.float64)
            draw = (lambda size, stubs=stubs: stubs[rng.integers(0, stubs.size, size)])
            pooled = _degree_pairs(stubs, known[name], m, rng)
        rows = _fill(np.full((2 * m, half), -1, dtype=np.int64), np.concatenate([pos[0], pos[1]]), known[name],
                     weights, draw, rng)
        out[name] = _assemble(name, pos, rows[:m], rows[m:], pooled)
    return out
