"""Node classification: cross-entropy on the training nodes, accuracy and macro-F1 on the others."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ..graphs.edges import message_passing_graph
from . import metrics as M
from .fit import FitResult, Hyper, features, fit, is_constant, maybe_adjacency, maybe_sparse
from .splits import stratified_node_split


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


def majority_share(y: torch.Tensor) -> float:
    """Accuracy of always predicting the most frequent class of ``y`` (NaN when empty)."""
    return float(torch.bincount(y).max()) / y.numel() if y.numel() else float("nan")


def train_node_cls(build, arrays: dict, seed: int, hp: Hyper, split: str, device="cpu", on_epoch=None) -> FitResult:
    x = features(arrays).to(device)
    edge_index = torch.as_tensor(arrays["edge_index"], dtype=torch.long).to(device)
    y = torch.as_tensor(arrays["y"], dtype=torch.long).to(device)
    train_m, val_m, test_m = (m.to(device) for m in node_masks(split, arrays, seed))
    num_classes = int(y.max()) + 1
    model = build(x.shape[1], hp.hidden_channels, num_classes).to(device)
    x = maybe_sparse(model, x)
    edge_index = maybe_adjacency(model, message_passing_graph(edge_index, x.shape[0]), x.shape[0])

    def step(_batch):
        out = model(x, edge_index)
        return F.cross_entropy(out[train_m], y[train_m])

    def evaluate():
        out = model(x, edge_index)
        row = {}
        for name, m in (("val", val_m), ("test", test_m)):
            row[f"{name}_acc"] = M.accuracy(out[m], y[m])
            row[f"{name}_f1"] = M.macro_f1(out[m], y[m], num_classes)
        row["val_loss"] = float(F.cross_entropy(out[val_m], y[val_m])) if val_m.any() else float("nan")
        row["test_constant"] = is_constant(out[test_m].argmax(-1))
        return row

    result = fit(model, hp, step, evaluate, on_epoch)
    result.baseline = {"test_majority_acc": majority_share(y[test_m])}
    return result
