"""Graph classification and regression: shuffled mini-batches of graphs, mean-pool (or native) heads.

Each epoch draws a new order of the training graphs from the seed's own
stream and steps once per batch of ``BATCH_SIZE[family]`` graphs (the
reference implementation's sizes, :mod:`.planning`); validation and held-out sets are
evaluated whole. Loss: cross-entropy (BCE over the observed entries for
multi-label targets); regression: MSE or L1 (``regression_loss`` switch),
always reported as MAE and RMSE.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ..protocol import Protocol
from . import metrics as M
from .fit import FitResult, Hyper, check_output, distinct_values, features, fit, is_constant
from .node import majority_share
from .planning import BATCH_SIZE
from .splits import random_index_split, split_rng


def graph_split(split: str, arrays: dict, seed: int, protocol: Protocol) -> tuple[np.ndarray, ...]:
    """Indices of train/val/test graphs: the dataset's ``split`` array, else a per-seed cut
    (``graph_split``: 80/10/10, or 80/20 with the 20 % serving as validation and test set)."""
    n_graphs = len(arrays["node_ptr"]) - 1
    if split == "dataset_split":
        code = np.asarray(arrays["split"])
        return tuple(np.flatnonzero(code == i) for i in range(3))
    if protocol.graph_split == "80_20":
        train, holdout, _ = random_index_split(n_graphs, seed, frac=(0.8, 0.2, 0.0))
        return train, holdout, holdout
    return random_index_split(n_graphs, seed)


def _graphs(arrays: dict, x_all: torch.Tensor, y_all: torch.Tensor) -> list:
    from torch_geometric.data import Data

    node_ptr, edge_ptr, ei = arrays["node_ptr"], arrays["edge_ptr"], arrays["edge_index"]
    return [Data(x=x_all[node_ptr[g]:node_ptr[g + 1]],
                 edge_index=torch.as_tensor(ei[:, edge_ptr[g]:edge_ptr[g + 1]], dtype=torch.long),
                 y=y_all[g:g + 1], num_nodes=int(node_ptr[g + 1] - node_ptr[g]))
            for g in range(len(node_ptr) - 1)]


def train_graph_level(build, arrays: dict, seed: int, hp: Hyper, family: str, split: str = "", device="cpu",
                      on_epoch=None, protocol: Protocol | dict | None = None) -> FitResult:
    from torch_geometric.data import Batch

    protocol = Protocol.of(protocol)
    x_all = features(arrays)
    regression = family == "graph_reg"
    y_np = np.asarray(arrays["y"])
    # multi-label classification: a float [G, T] target, NaN where a label is missing
    multilabel = (not regression) and y_np.ndim == 2
    y_all = torch.as_tensor(y_np, dtype=torch.float32 if (regression or multilabel) else torch.long)
    if regression and y_all.dim() == 1:
        y_all = y_all.unsqueeze(-1)
    parts = graph_split(split, arrays, seed, protocol)
    empty = [name for name, idx in zip(("train", "val", "test"), parts) if len(idx) == 0]
    if empty:
        raise ValueError(f"the {'/'.join(empty)} split has no graphs ({len(arrays['node_ptr']) - 1} graphs in all)")
    graphs = _graphs(arrays, x_all, y_all)
    val_b, test_b = (Batch.from_data_list([graphs[g] for g in idx]).to(device) for idx in parts[1:])
    out_dim = y_all.shape[1] if (regression or multilabel) else int(y_all.max()) + 1
    model = build(x_all.shape[1], hp.hidden_channels, out_dim).to(device)
    order_rng = split_rng(seed, "graph_batches")
    size = BATCH_SIZE[family]
    train_idx = parts[0]

    def batches():
        order = train_idx[order_rng.permutation(len(train_idx))]
        for i in range(0, len(order), size):
            chunk = order[i:i + size]
            yield Batch.from_data_list([graphs[g] for g in chunk]).to(device), len(chunk)

    def loss_fn(out, y):
        if regression:
            return F.mse_loss(out, y) if protocol.regression_loss == "mse" else F.l1_loss(out, y)
        if multilabel:
            mask = ~torch.isnan(y)
            return F.binary_cross_entropy_with_logits(out[mask], y[mask])
        return F.cross_entropy(out, y)

    what = ("one row of targets per graph: [graphs in the batch, num_targets]" if regression or multilabel
            else "one row of class logits per graph: [graphs in the batch, num_classes]")

    def step(b):
        out = model(b.x, b.edge_index, b.batch)
        check_output(out, (b.num_graphs, out_dim), what)
        return loss_fn(out, b.y)

    def evaluate():
        row = {}
        for name, b in (("val", val_b), ("test", test_b)):
            out = model(b.x, b.edge_index, b.batch)
            if regression:
                row[f"{name}_mae"] = M.mae(out, b.y)
                row[f"{name}_rmse"] = M.rmse(out, b.y)
            elif multilabel:  # accuracy over the observed (graph, label) entries
                mask = ~torch.isnan(b.y)
                M.require_finite("multi-label accuracy", out)
                row[f"{name}_acc"] = ((out > 0).float()[mask] == b.y[mask]).float().mean().item()
            else:
                row[f"{name}_acc"] = M.accuracy(out, b.y)
                row[f"{name}_f1"] = M.macro_f1(out, b.y, out_dim)
        out = model(test_b.x, test_b.edge_index, test_b.batch)
        predicted = out if regression or multilabel else out.argmax(-1)
        row["test_constant"] = is_constant(predicted)
        row["test_distinct"] = distinct_values(predicted)  # values (rows) or classes predicted: 1 iff constant
        return row

    result = fit(model, hp, step, evaluate, on_epoch, batches)
    # a dataset's own split is the same for every seed; a per-seed cut (either graph_split) is redrawn
    result.split = {"redrawn": split != "dataset_split", "n_train": len(train_idx), "n_test": len(parts[2])}
    if regression:
        train_mean = y_all[torch.as_tensor(train_idx)].mean(0)
        result.baseline = {"test_constant_mae": M.mae(train_mean.expand_as(test_b.y), test_b.y)}
    elif not multilabel:
        result.baseline = {"test_majority_acc": majority_share(test_b.y)}
    return result
