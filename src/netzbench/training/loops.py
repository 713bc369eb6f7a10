"""One trainer per task family, sharing a single full-batch Adam loop.

Every family records, at each evaluated epoch, ``train_loss``, a validation
series and a held-out test series (``<split>_<metric>``), so checkpoint
selection and search never score on held-out data. Evaluation runs under
``torch.inference_mode`` and metrics stay in torch.

| family    | loss                          | headline  | extra series |
|-----------|-------------------------------|-----------|--------------|
| node_cls  | cross-entropy on train mask   | test_acc  | *_f1 (macro) |
| graph_cls | cross-entropy (BCE multilabel)| test_acc  | *_f1 (macro) |
| graph_reg | L1                            | test_mae  | *_rmse       |
| link_pred | BCE on positive + negatives   | test_auc  | *_ap         |
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

from ..graphs.edges import message_passing_graph, undirected_pairs
from ..graphs.features import structural_features
from . import metrics as M
from .splits import random_index_split, sample_negative_pairs, split_rng, stratified_node_split

warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
warnings.filterwarnings("ignore", message="Sparse invariant checks are implicitly disabled")

@dataclass(frozen=True)
class Hyper:
    hidden_channels: int
    lr: float
    weight_decay: float
    epochs: int
    eval_every: int = 1


@dataclass
class FitResult:
    history: dict[str, list[float]]
    epochs: list[int]
    num_params: int


def _num_nodes(arrays: dict) -> int:
    return int(np.asarray(arrays["num_nodes"]).reshape(-1)[0])


def _features(arrays: dict) -> torch.Tensor:
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    return torch.as_tensor(structural_features(_num_nodes(arrays), arrays["edge_index"]))


#: inputs sparser than this (and at least this wide) are given as CSR to encoders that accept it
SPARSE_DENSITY, SPARSE_MIN_DIM = 0.1, 64


def maybe_sparse(model: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """``x`` as a sparse CSR tensor when it is sparse bag-of-words-like and the encoder
    accepts it: the same computation, far fewer flops in the first layer."""
    encoder = getattr(model, "encoder", None)
    if not getattr(encoder, "sparse_input", False) or x.dim() != 2 or x.shape[1] < SPARSE_MIN_DIM:
        return x
    if (x != 0).float().mean().item() >= SPARSE_DENSITY:
        return x
    return x.to_sparse_csr()


def maybe_adjacency(model: torch.nn.Module, edge_index: torch.Tensor, num_nodes: int):
    """The transposed CSR adjacency (rows = targets) for encoders that aggregate by spmm,
    else ``edge_index`` unchanged. Only for a fixed graph (node classification, link prediction)."""
    if not getattr(getattr(model, "encoder", None), "sparse_adjacency", False):
        return edge_index
    from torch_geometric.utils import to_torch_csr_tensor

    return to_torch_csr_tensor(edge_index.flip(0), size=(num_nodes, num_nodes))


def _features_collection(arrays: dict) -> torch.Tensor:
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    total = int(arrays["node_ptr"][-1])
    return torch.as_tensor(structural_features(total, arrays["edge_index"]))


def _fit(model: torch.nn.Module, hp: Hyper, step: Callable[[], torch.Tensor],
         evaluate: Callable[[], dict[str, float]], on_epoch: Callable[[int], None] | None = None) -> FitResult:
    opt = torch.optim.Adam(model.parameters(), lr=hp.lr, weight_decay=hp.weight_decay)
    history: dict[str, list[float]] = {}
    evaluated: list[int] = []
    for epoch in range(1, hp.epochs + 1):
        model.train()
        opt.zero_grad(set_to_none=True)
        loss = step()
        loss.backward()
        opt.step()
        if epoch % hp.eval_every == 0 or epoch == hp.epochs:
            model.eval()
            with torch.inference_mode():
                row = {"train_loss": float(loss.detach())}
                row.update(evaluate())
            for key, value in row.items():
                history.setdefault(key, []).append(float(value))
            evaluated.append(epoch)
        if on_epoch is not None:
            on_epoch(epoch)
    num_params = sum(p.numel() for p in model.parameters())
    return FitResult(history, evaluated, num_params)


def node_masks(task_split: str, arrays: dict, seed: int) -> tuple[torch.Tensor, ...]:
    """Train/val/test masks: the dataset's own (column ``seed % S`` of [N, S] masks) or a per-seed split."""
    if task_split in ("planetoid", "dataset_masks"):
        masks = []
        for name in ("train_mask", "val_mask", "test_mask"):
            m = np.asarray(arrays[name], dtype=bool)
            masks.append(torch.as_tensor(m[:, seed % m.shape[1]] if m.ndim == 2 else m))
        return tuple(masks)
    if task_split.startswith("stratified_per_seed"):
        return tuple(torch.as_tensor(m) for m in stratified_node_split(arrays["y"], seed))
    raise ValueError(f"unknown node split {task_split!r}")


def train_node_cls(build, arrays: dict, seed: int, hp: Hyper, split: str, device="cpu", on_epoch=None) -> FitResult:
    x = _features(arrays).to(device)
    edge_index = torch.as_tensor(arrays["edge_index"], dtype=torch.long).to(device)
    y = torch.as_tensor(arrays["y"], dtype=torch.long).to(device)
    train_m, val_m, test_m = (m.to(device) for m in node_masks(split, arrays, seed))
    num_classes = int(y.max()) + 1
    model = build(x.shape[1], hp.hidden_channels, num_classes).to(device)
    x = maybe_sparse(model, x)
    edge_index = maybe_adjacency(model, message_passing_graph(edge_index, x.shape[0]), x.shape[0])

    def step():
        out = model(x, edge_index)
        return F.cross_entropy(out[train_m], y[train_m])

    def evaluate():
        out = model(x, edge_index)
        row = {}
        for name, m in (("val", val_m), ("test", test_m)):
            row[f"{name}_acc"] = M.accuracy(out[m], y[m])
            row[f"{name}_f1"] = M.macro_f1(out[m], y[m], num_classes)
        row["val_loss"] = float(F.cross_entropy(out[val_m], y[val_m])) if val_m.any() else float("nan")
        return row

    return _fit(model, hp, step, evaluate, on_epoch)


def _graph_batch(arrays: dict, idx: np.ndarray, x_all: torch.Tensor, y_all: torch.Tensor):
    from torch_geometric.data import Batch, Data

    node_ptr, edge_ptr, ei = arrays["node_ptr"], arrays["edge_ptr"], arrays["edge_index"]
    graphs = []
    for g in idx:
        n0, n1, e0, e1 = node_ptr[g], node_ptr[g + 1], edge_ptr[g], edge_ptr[g + 1]
        graphs.append(Data(x=x_all[n0:n1], edge_index=torch.as_tensor(ei[:, e0:e1], dtype=torch.long),
                           y=y_all[g:g + 1], num_nodes=int(n1 - n0)))
    return Batch.from_data_list(graphs)


def graph_split(split: str, arrays: dict, seed: int) -> tuple[np.ndarray, ...]:
    """Indices of train/val/test graphs: the dataset's ``split`` array or a per-seed 80/10/10 cut."""
    n_graphs = len(arrays["node_ptr"]) - 1
    if split == "dataset_split":
        code = np.asarray(arrays["split"])
        return tuple(np.flatnonzero(code == i) for i in range(3))
    return random_index_split(n_graphs, seed)


def train_graph_level(build, arrays: dict, seed: int, hp: Hyper, family: str, split: str = "", device="cpu",
                      on_epoch=None) -> FitResult:
    x_all = _features_collection(arrays)
    regression = family == "graph_reg"
    y_np = np.asarray(arrays["y"])
    # multi-label classification: a float [G, T] target, NaN where a label is missing
    multilabel = (not regression) and y_np.ndim == 2
    y_all = torch.as_tensor(y_np, dtype=torch.float32 if (regression or multilabel) else torch.long)
    if regression and y_all.dim() == 1:
        y_all = y_all.unsqueeze(-1)
    parts = graph_split(split, arrays, seed)
    empty = [name for name, idx in zip(("train", "val", "test"), parts) if len(idx) == 0]
    if empty:
        raise ValueError(f"the {'/'.join(empty)} split has no graphs ({len(arrays['node_ptr']) - 1} graphs in all)")
    batches = [_graph_batch(arrays, idx, x_all, y_all).to(device) for idx in parts]
    if regression or multilabel:
        out_dim = y_all.shape[1]
    else:
        out_dim = int(y_all.max()) + 1
    model = build(x_all.shape[1], hp.hidden_channels, out_dim).to(device)
    train_b = batches[0]

    def loss_fn(out, y):
        if regression:
            return F.l1_loss(out, y)
        if multilabel:
            mask = ~torch.isnan(y)
            return F.binary_cross_entropy_with_logits(out[mask], y[mask])
        return F.cross_entropy(out, y)

    def step():
        return loss_fn(model(train_b.x, train_b.edge_index, train_b.batch), train_b.y)

    def evaluate():
        row = {}
        for name, b in (("val", batches[1]), ("test", batches[2])):
            out = model(b.x, b.edge_index, b.batch)
            if regression:
                row[f"{name}_mae"] = M.mae(out, b.y)
                row[f"{name}_rmse"] = M.rmse(out, b.y)
            elif multilabel:  # accuracy over the observed (graph, label) entries
                mask = ~torch.isnan(b.y)
                row[f"{name}_acc"] = ((out > 0).float()[mask] == b.y[mask]).float().mean().item()
            else:
                row[f"{name}_acc"] = M.accuracy(out, b.y)
                row[f"{name}_f1"] = M.macro_f1(out, b.y, out_dim)
        return row

    return _fit(model, hp, step, evaluate, on_epoch)


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
    other.
    """
    pairs = undirected_pairs(edge_index)
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


def train_link_pred(build, arrays: dict, seed: int, hp: Hyper, device="cpu", on_epoch=None) -> FitResult:
    n = _num_nodes(arrays)
    split = random_edge_split(n, arrays["edge_index"], seed)
    # structural features (when the graph has none) see only training edges: no leak of held-out ones
    x = _features(arrays if "x" in arrays else {"num_nodes": n, "edge_index": split.train_pos}).to(device)
    tp = torch.as_tensor(split.train_pos, dtype=torch.long).to(device)
    mp_edges = torch.cat([tp, tp.flip(0)], dim=1)  # message passing only over training edges
    model = build(x.shape[1], hp.hidden_channels, hp.hidden_channels).to(device)
    x = maybe_sparse(model, x)
    mp_edges = maybe_adjacency(model, message_passing_graph(mp_edges, n), n)
    neg_rng = split_rng(seed, "train_negatives")
    eval_sets = {
        name: (torch.as_tensor(np.concatenate([pos, neg], axis=1), dtype=torch.long).to(device),
               torch.cat([torch.ones(pos.shape[1]), torch.zeros(neg.shape[1])]).to(device))
        for name, pos, neg in (("val", split.val_pos, split.val_neg), ("test", split.test_pos, split.test_neg))
    }
    n_pos = tp.shape[1]
    train_labels = torch.cat([torch.ones(n_pos), torch.zeros(n_pos)]).to(device)

    def step():
        neg = torch.as_tensor(sample_negative_pairs(n, split.all_pair_ids, n_pos, neg_rng), dtype=torch.long).to(device)
        z = model(x, mp_edges)
        scores = model.score(z, torch.cat([tp, neg], dim=1))
        return F.binary_cross_entropy_with_logits(scores, train_labels)

    def evaluate():
        z = model(x, mp_edges)
        row = {}
        for name, (pairs, labels) in eval_sets.items():
            s = model.score(z, pairs)
            row[f"{name}_auc"] = M.roc_auc(s, labels)
            row[f"{name}_ap"] = M.average_precision(s, labels)
        return row

    return _fit(model, hp, step, evaluate, on_epoch)


#: corrupted candidates per held-out triple for the (filtered, sampled) ranking metrics
RANKING_NEGATIVES = 100


def _corrupt(triples: np.ndarray, num_nodes: int, rng: np.random.Generator) -> np.ndarray:
    """One corrupted triple per triple: head or tail (with equal probability) replaced at random."""
    out = triples.copy()
    side = rng.random(triples.shape[1]) < 0.5
    out[0, side] = rng.integers(0, num_nodes, side.sum())
    out[2, ~side] = rng.integers(0, num_nodes, (~side).sum())
    return out


def _ranking_candidates(triples: np.ndarray, num_nodes: int, true_ids: np.ndarray, num_relations: int,
                        rng: np.random.Generator, k: int = RANKING_NEGATIVES) -> np.ndarray:
    """For each triple, ``k`` tail corruptions that are not true triples (filtered setting), [m, k].

    ``true_ids`` is sorted and unique (``np.unique``): membership is a binary search.
    """
    m = triples.shape[1]
    tails = rng.integers(0, num_nodes, size=(m, k))
    base = (triples[0][:, None] * num_relations + triples[1][:, None]) * num_nodes

    def known(ids):
        pos = np.minimum(np.searchsorted(true_ids, ids), len(true_ids) - 1)
        return true_ids[pos] == ids

    bad = known(base + tails)
    while bad.any():  # resample the corruptions that hit a known true triple
        tails[bad] = rng.integers(0, num_nodes, size=int(bad.sum()))
        bad = known(base + tails)
    return tails


def train_relational(build, arrays: dict, seed: int, hp: Hyper, device="cpu", on_epoch=None) -> FitResult:
    r"""Relational link prediction (knowledge graphs) with a DistMult decoder.

    The encoder passes messages over the training triples (relation types
    ignored, both directions); a triple scores
    :math:`\langle z_h, r, z_t\rangle = \sum_d z_{h,d} r_d z_{t,d}`. Training
    uses one corrupted triple per positive (head or tail replaced), fresh
    every epoch. Validation/test: ROC-AUC and AP against one fixed corruption
    per triple, and MRR / Hits@{1,3,10} ranking each true tail among
    ``RANKING_NEGATIVES`` fixed tail corruptions that are not known true
    triples (filtered, sampled ranking).
    """
    n = _num_nodes(arrays)
    num_rel = int(np.asarray(arrays["num_relations"]).reshape(-1)[0])
    trip = {s: np.stack([arrays[f"{s}_edge_index"][0], arrays[f"{s}_edge_type"], arrays[f"{s}_edge_index"][1]])
            .astype(np.int64) for s in ("train", "valid", "test")}
    x = _features({"x": arrays["x"]} if "x" in arrays else
                  {"num_nodes": n, "edge_index": arrays["train_edge_index"]}).to(device)
    ei = torch.as_tensor(arrays["train_edge_index"], dtype=torch.long).to(device)
    mp_edges = torch.cat([ei, ei.flip(0)], dim=1)
    model = build(x.shape[1], hp.hidden_channels, hp.hidden_channels).to(device)
    x = maybe_sparse(model, x)
    mp_edges = maybe_adjacency(model, message_passing_graph(mp_edges, n), n)
    true_ids = np.unique(np.concatenate([(t[0] * num_rel + t[1]) * n + t[2] for t in trip.values()]))
    rng = split_rng(seed, "relational_eval")
    eval_sets = {}
    for name, key in (("val", "valid"), ("test", "test")):
        pos = trip[key]
        neg = _corrupt(pos, n, rng)
        eval_sets[name] = (torch.as_tensor(pos).to(device), torch.as_tensor(neg).to(device),
                           torch.as_tensor(_ranking_candidates(pos, n, true_ids, num_rel, rng)).to(device))
    train_pos = torch.as_tensor(trip["train"]).to(device)
    neg_rng = split_rng(seed, "train_negatives")
    labels = torch.cat([torch.ones(train_pos.shape[1]), torch.zeros(train_pos.shape[1])]).to(device)

    def step():
        neg = torch.as_tensor(_corrupt(trip["train"], n, neg_rng)).to(device)
        z = model(x, mp_edges)
        scores = torch.cat([model.score(z, train_pos), model.score(z, neg)])
        return F.binary_cross_entropy_with_logits(scores, labels)

    def evaluate():
        z = model(x, mp_edges)
        row = {}
        for name, (pos, neg, cands) in eval_sets.items():
            sp, sn = model.score(z, pos), model.score(z, neg)
            s = torch.cat([sp, sn])
            lab = torch.cat([torch.ones_like(sp), torch.zeros_like(sn)])
            row[f"{name}_auc"] = M.roc_auc(s, lab)
            row[f"{name}_ap"] = M.average_precision(s, lab)
            cand_scores = model.score_tails(z, pos, cands)  # [m, k]
            rank = 1 + (cand_scores > sp[:, None]).sum(1).double() + 0.5 * (cand_scores == sp[:, None]).sum(1).double()
            row[f"{name}_mrr"] = (1.0 / rank).mean().item()
            for k in (1, 3, 10):
                row[f"{name}_hits{k}"] = (rank <= k).double().mean().item()
        return row

    return _fit(model, hp, step, evaluate, on_epoch)


def train(family: str, split: str, build, arrays: dict, seed: int, hp: Hyper, device="cpu",
          on_epoch: Callable[[int], None] | None = None) -> FitResult:
    """Dispatch to the family's trainer (on ``device``; ``on_epoch(epoch)`` after every epoch)."""
    if family == "node_cls":
        return train_node_cls(build, arrays, seed, hp, split, device, on_epoch)
    if family in ("graph_cls", "graph_reg"):
        return train_graph_level(build, arrays, seed, hp, family, split, device, on_epoch)
    if family == "link_pred" and split == "relational_canonical":
        return train_relational(build, arrays, seed, hp, device, on_epoch)
    if family == "link_pred":
        return train_link_pred(build, arrays, seed, hp, device, on_epoch)
    raise ValueError(f"unknown task family {family!r}")
