"""Node classification: cross-entropy on the training nodes, accuracy and macro-F1 on the others.

A binary task also records ROC-AUC (``val_auc``, ``test_auc``) of the class-1 log-odds
``logit_1 - logit_0``, and how many distinct test scores there were (``test_distinctscores``): the
headline of a task its dataset scores by ROC-AUC (:func:`netzbench.families.headline`), where a model
that predicts the majority class everywhere can still rank the nodes, so its collapse is judged on the
scores, not on the predicted classes. Its constant predictor scores 0.5 ROC-AUC (``test_constant_auc``).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from . import metrics as M
from . import sampling as S
from ..graphs.edges import message_passing_graph
from .fit import (FitResult, Hyper, check_output, distinct_values, features, fit, is_constant, maybe_adjacency,
                  maybe_sparse)
from .splits import random_node_split, stratified_node_split

#: ``train.node_split``: public = the task's own split; random = per-seed 20/30-per-class splits for every task
NODE_SPLITS = ("public", "random")


def node_masks(task_split: str, arrays: dict, seed: int, node_split: str = "public") -> tuple[torch.Tensor, ...]:
    """Train/val/test masks: the dataset's own (column ``seed % S`` of [N, S] masks) or a per-seed split;
    with ``node_split="random"``, the per-seed 20/30-per-class split whatever the dataset provides."""
    if node_split == "random":
        return tuple(torch.as_tensor(m) for m in random_node_split(arrays["y"], seed))
    if node_split != "public":
        raise ValueError(f"unknown train.node_split {node_split!r}; choose from {list(NODE_SPLITS)}")
    if task_split in ("planetoid", "dataset_masks"):
        masks = []
        for name in ("train_mask", "val_mask", "test_mask"):
            m = np.asarray(arrays[name], dtype=bool)
            masks.append(torch.as_tensor(m[:, seed % m.shape[1]] if m.ndim == 2 else m))
        return tuple(masks)
    if task_split.startswith("stratified_per_seed"):
        return tuple(torch.as_tensor(m) for m in stratified_node_split(arrays["y"], seed))
    raise ValueError(f"unknown node split {task_split!r}")


def split_redrawn(task_split: str, arrays: dict, node_split: str = "public") -> bool:
    """Whether seeds train and test on different nodes (:func:`node_masks`): a per-seed split, or a
    dataset's several mask columns (one per seed); one public mask is the same split for every seed."""
    if node_split == "random" or task_split.startswith("stratified_per_seed"):
        return True
    mask = np.asarray(arrays["test_mask"])
    return mask.ndim == 2 and mask.shape[1] > 1


def majority_share(y: torch.Tensor) -> float:
    """Accuracy of always predicting the most frequent class of ``y`` (NaN when empty)."""
    return float(torch.bincount(y).max()) / y.numel() if y.numel() else float("nan")


def train_node_cls(build, arrays: dict, seed: int, hp: Hyper, split: str, device="cpu", on_epoch=None) -> FitResult:
    x = features(arrays).to(device)
    edge_index = torch.as_tensor(arrays["edge_index"], dtype=torch.long).to(device)
    y = torch.as_tensor(arrays["y"], dtype=torch.long).to(device)
    train_m, val_m, test_m = (m.to(device) for m in node_masks(split, arrays, seed, hp.node_split))
    num_classes = int(y.max()) + 1
    model = build(x.shape[1], hp.hidden_channels, num_classes).to(device)
    n, x_dense = x.shape[0], x
    x = maybe_sparse(model, x)
    mp_edges = message_passing_graph(edge_index, n)
    what = "one row of class logits per node: [num_nodes, num_classes]"
    plan = S.plan(hp.sampling, model, mp_edges, n, seed)
    # what model_graph gives; not built where nothing passes messages over the whole graph
    graph = maybe_adjacency(model, mp_edges, n) if plan is None or not plan.infers else None
    del mp_edges  # the sampler keeps its own sorted copy
    batches = None
    if plan is None:
        def step(_batch):
            out = model(x, graph)
            check_output(out, (n, num_classes), what)
            return F.cross_entropy(out[train_m], y[train_m])
    else:
        train_nodes = torch.nonzero(train_m.cpu()).reshape(-1)

        def batches():
            return [(train_nodes[c], len(c)) for c in plan.train_chunks(len(train_nodes))]

        def step(batch):
            out = plan.forward(x_dense, batch, device)
            check_output(out, (len(batch), num_classes), what)
            return F.cross_entropy(out, y[batch.to(device)])

    def evaluate():
        out = model(x, graph) if plan is None or not plan.infers else plan.inference(x_dense, device)
        check_output(out, (n, num_classes), what)
        row = {}
        for name, m in (("val", val_m), ("test", test_m)):
            row[f"{name}_acc"] = M.accuracy(out[m], y[m])
            row[f"{name}_f1"] = M.macro_f1(out[m], y[m], num_classes)
        row["val_loss"] = float(F.cross_entropy(out[val_m], y[val_m])) if val_m.any() else float("nan")
        predicted = out[test_m].argmax(-1)
        row["test_constant"] = is_constant(predicted)
        row["test_distinct"] = distinct_values(predicted)  # classes predicted: 1 iff test_constant
        if num_classes == 2:
            score = out[:, 1] - out[:, 0]  # the log-odds of class 1
            row["val_auc"] = M.roc_auc(score[val_m], y[val_m])
            row["test_auc"] = M.roc_auc(score[test_m], y[test_m])
            row["test_distinctscores"] = distinct_values(score[test_m])
        return row

    result = fit(model, hp, step, evaluate, on_epoch, **({} if batches is None else {"batches": batches}))
    result.sampling = S.applied(plan)
    result.baseline = {"test_majority_acc": majority_share(y[test_m]),
                       **({"test_constant_auc": 0.5} if num_classes == 2 else {})}
    result.split = {"redrawn": split_redrawn(split, arrays, hp.node_split), "n_train": int(train_m.sum()),
                    "n_test": int(test_m.sum())}
    return result
