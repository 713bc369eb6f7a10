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

from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

from . import metrics as M
from .splits import random_index_split, sample_negative_pairs, split_rng, stratified_node_split

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


def structural_features(num_nodes: int, edge_index: np.ndarray) -> np.ndarray:
    """Features for graphs without any: ``[1, log(1 + degree)]`` per node (documented in the README)."""
    deg = np.bincount(edge_index.reshape(-1), minlength=num_nodes).astype(np.float32)
    return np.stack([np.ones(num_nodes, dtype=np.float32), np.log1p(deg)], axis=1)


def _num_nodes(arrays: dict) -> int:
    return int(np.asarray(arrays["num_nodes"]).reshape(-1)[0])


def _features(arrays: dict) -> torch.Tensor:
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    return torch.as_tensor(structural_features(_num_nodes(arrays), arrays["edge_index"]))


def _fit(model: torch.nn.Module, hp: Hyper, step: Callable[[], torch.Tensor],
         evaluate: Callable[[], dict[str, float]]) -> FitResult:
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
    num_params = sum(p.numel() for p in model.parameters())
    return FitResult(history, evaluated, num_params)


def node_masks(task_split: str, arrays: dict, seed: int) -> tuple[torch.Tensor, ...]:
    if task_split == "planetoid":
        return tuple(torch.as_tensor(arrays[m]) for m in ("train_mask", "val_mask", "test_mask"))
    if task_split.startswith("stratified_per_seed"):
        return tuple(torch.as_tensor(m) for m in stratified_node_split(arrays["y"], seed))
    raise ValueError(f"unknown node split {task_split!r}")


def train_node_cls(build, arrays: dict, seed: int, hp: Hyper, split: str) -> FitResult:
    x = _features(arrays)
    edge_index = torch.as_tensor(arrays["edge_index"], dtype=torch.long)
    y = torch.as_tensor(arrays["y"], dtype=torch.long)
    train_m, val_m, test_m = node_masks(split, arrays, seed)
    num_classes = int(y.max()) + 1
    model = build(x.shape[1], hp.hidden_channels, num_classes)

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

    return _fit(model, hp, step, evaluate)


def _graph_batch(arrays: dict, idx: np.ndarray, x_all: torch.Tensor, y_all: torch.Tensor):
    from torch_geometric.data import Batch, Data

    node_ptr, edge_ptr, ei = arrays["node_ptr"], arrays["edge_ptr"], arrays["edge_index"]
    graphs = []
    for g in idx:
        n0, n1, e0, e1 = node_ptr[g], node_ptr[g + 1], edge_ptr[g], edge_ptr[g + 1]
        graphs.append(Data(x=x_all[n0:n1], edge_index=torch.as_tensor(ei[:, e0:e1], dtype=torch.long),
                           y=y_all[g:g + 1], num_nodes=int(n1 - n0)))
    return Batch.from_data_list(graphs)


def train_graph_level(build, arrays: dict, seed: int, hp: Hyper, family: str) -> FitResult:
    x_all = torch.as_tensor(arrays["x"], dtype=torch.float32)
    regression = family == "graph_reg"
    y_np = arrays["y"]
    y_all = torch.as_tensor(y_np, dtype=torch.float32 if regression else torch.long)
    if regression and y_all.dim() == 1:
        y_all = y_all.unsqueeze(-1)
    multilabel = (not regression) and y_all.dim() == 2
    n_graphs = len(arrays["node_ptr"]) - 1
    parts = random_index_split(n_graphs, seed)
    batches = [_graph_batch(arrays, idx, x_all, y_all) for idx in parts]
    if regression:
        out_dim = y_all.shape[1]
    elif multilabel:
        out_dim = y_all.shape[1]
    else:
        out_dim = int(y_all.max()) + 1
    model = build(x_all.shape[1], hp.hidden_channels, out_dim)
    train_b = batches[0]

    def loss_fn(out, y):
        if regression:
            return F.l1_loss(out, y)
        if multilabel:
            y = y.float()
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
            elif multilabel:
                y = b.y.float()
                mask = ~torch.isnan(y)
                row[f"{name}_acc"] = ((out > 0).float()[mask] == y[mask]).float().mean().item()
            else:
                row[f"{name}_acc"] = M.accuracy(out, b.y)
                row[f"{name}_f1"] = M.macro_f1(out, b.y, out_dim)
        return row

    return _fit(model, hp, step, evaluate)


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
    from ..catalog.loaders import undirected_pairs

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


def train_link_pred(build, arrays: dict, seed: int, hp: Hyper) -> FitResult:
    n = _num_nodes(arrays)
    x = _features(arrays)
    split = random_edge_split(n, arrays["edge_index"], seed)
    tp = torch.as_tensor(split.train_pos, dtype=torch.long)
    mp_edges = torch.cat([tp, tp.flip(0)], dim=1)  # message passing only over training edges
    model = build(x.shape[1], hp.hidden_channels, hp.hidden_channels)
    neg_rng = split_rng(seed, "train_negatives")
    eval_sets = {
        name: (torch.as_tensor(np.concatenate([pos, neg], axis=1), dtype=torch.long),
               torch.cat([torch.ones(pos.shape[1]), torch.zeros(neg.shape[1])]))
        for name, pos, neg in (("val", split.val_pos, split.val_neg), ("test", split.test_pos, split.test_neg))
    }
    n_pos = tp.shape[1]
    train_labels = torch.cat([torch.ones(n_pos), torch.zeros(n_pos)])

    def step():
        neg = torch.as_tensor(sample_negative_pairs(n, split.all_pair_ids, n_pos, neg_rng), dtype=torch.long)
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

    return _fit(model, hp, step, evaluate)


def train(family: str, split: str, build, arrays: dict, seed: int, hp: Hyper) -> FitResult:
    """Dispatch to the family's trainer."""
    if family == "node_cls":
        return train_node_cls(build, arrays, seed, hp, split)
    if family in ("graph_cls", "graph_reg"):
        return train_graph_level(build, arrays, seed, hp, family)
    if family == "link_pred":
        return train_link_pred(build, arrays, seed, hp)
    raise ValueError(f"unknown task family {family!r}")
