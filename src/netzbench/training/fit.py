"""The optimisation loop every family shares, and the model inputs it feeds.

One epoch is one pass over the family's batches (full batch for node- and
link-level tasks: one optimiser step, or neighbour-sampled mini-batches where
``train.sampling`` applies, :mod:`.sampling`; shuffled mini-batches of graphs
for graph-level tasks); at every evaluated epoch the loop records ``train_loss``
(the mean over the epoch's batches, weighted by batch size) and the family's
validation and held-out series (``<split>_<metric>``), under
``torch.inference_mode``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np
import torch

from ..graphs.features import structural_features
from .metrics import NonFiniteScores

warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
warnings.filterwarnings("ignore", message="Sparse invariant checks are implicitly disabled")


class Diverged(RuntimeError):
    """Training produced a non-finite loss or non-finite outputs; carries the history so far."""

    def __init__(self, message: str, history: dict | None = None, epochs: list | None = None):
        super().__init__(message)
        self.history, self.epochs = history or {}, epochs or []


class OutputShapeError(ValueError):
    """A model's output does not have the shape the task needs."""


def check_output(out: torch.Tensor, expected: tuple[int, ...], what: str) -> None:
    """Raise :class:`OutputShapeError` unless ``out.shape == expected`` (``what`` names the dimensions)."""
    if tuple(out.shape) != tuple(expected):
        raise OutputShapeError(f"the model's output has shape {list(out.shape)}; this task needs {list(expected)} "
                               f"({what})")


@dataclass(frozen=True)
class Hyper:
    hidden_channels: int
    lr: float
    weight_decay: float
    epochs: int
    eval_every: int = 1
    param_budget: int | None = None  # set: the width is chosen per model to fit it (training/budget.py)
    node_split: str = "public"  # node classification: public | random (training/node.py)
    #: node- and link-level: train.sampling (training/sampling.py); None = full batch
    sampling: dict | None = None
    #: knowledge graphs: train.parallel_edges (fused | per_edge), how attention layers pass messages over
    #: the directed triples (:func:`multigraph_graph`)
    parallel_edges: str = "fused"


@dataclass
class FitResult:
    history: dict[str, list[float]]
    epochs: list[int]
    num_params: int
    baseline: dict[str, float] = field(default_factory=dict)  # what a constant predictor scores on the test set
    #: the split's design, for the report's paired tests: ``{"redrawn": bool (a new split per seed),
    #: "n_train": int, "n_test": int}`` (units: nodes, graphs, edges or triples); None where not recorded
    split: dict | None = None
    #: where held-out positives reached training (:mod:`.leakage`): channel names, empty when nowhere
    leakage: list[str] = field(default_factory=list)
    #: whether training (and evaluation) sampled neighbourhoods (:func:`.sampling.applied`); None where it cannot
    sampling: dict | None = None


def adam(params, lr: float, weight_decay: float) -> torch.optim.Adam:
    """Adam with the fused kernel. Its update :math:`\\theta \\leftarrow \\theta - \\eta\\,\\hat m / (\\sqrt{\\hat v}
    + \\epsilon)` takes the square root with the vector unit's own instruction, correctly rounded on every
    CPU; the unfused step calls ``Tensor.sqrt``, which on the CPU goes to MKL's vector maths, whose rounding
    differs between processors of one vendor even under ``MKL_CBWR`` (portable arithmetic would not be)."""
    return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay, fused=True)


def fit(model: torch.nn.Module, hp: Hyper, step: Callable[[object], torch.Tensor],
        evaluate: Callable[[], dict[str, float]], on_epoch: Callable[[int], None] | None = None,
        batches: Callable[[], Iterable[tuple[object, int]]] = lambda: [(None, 1)]) -> FitResult:
    """Adam over ``hp.epochs`` epochs; ``step(batch)`` returns a batch's loss, ``batches()`` yields
    ``(batch, size)`` for one epoch (default: one full batch)."""
    opt = adam(model.parameters(), lr=hp.lr, weight_decay=hp.weight_decay)
    history: dict[str, list[float]] = {}
    evaluated: list[int] = []
    for epoch in range(1, hp.epochs + 1):
        model.train()
        total, count = 0.0, 0
        for batch, size in batches():
            opt.zero_grad(set_to_none=True)
            loss = step(batch)
            loss.backward()
            opt.step()
            total += float(loss.detach()) * size
            count += size
        if not np.isfinite(total):  # stop at once: every later number would come from broken weights
            raise Diverged(f"diverged at epoch {epoch}: train_loss is {total / count} (non-finite outputs or an "
                           "exploding optimiser; try a smaller learning rate)", history, evaluated)
        if epoch % hp.eval_every == 0 or epoch == hp.epochs:
            model.eval()
            with torch.inference_mode():
                row = {"train_loss": total / count}
                try:
                    row.update(evaluate())
                except NonFiniteScores as exc:
                    raise Diverged(f"diverged at epoch {epoch}: {exc}", history, evaluated) from exc
            for key, value in row.items():
                history.setdefault(key, []).append(float(value))
            evaluated.append(epoch)
        if on_epoch is not None:
            on_epoch(epoch)
    num_params = sum(p.numel() for p in model.parameters())
    return FitResult(history, evaluated, num_params)


def num_nodes(arrays: dict) -> int:
    return int(np.asarray(arrays["num_nodes"]).reshape(-1)[0])


def features(arrays: dict) -> torch.Tensor:
    """The node features: the dataset's ``x``, else structural features of its edges.

    A collection stores graph-local node ids (:mod:`netzbench.graphs.collection`): each
    edge is shifted by its graph's node offset first, so degrees are counted per graph.
    """
    if "x" in arrays:
        return torch.as_tensor(arrays["x"], dtype=torch.float32)
    if "node_ptr" in arrays:
        node_ptr, edge_ptr = np.asarray(arrays["node_ptr"]), np.asarray(arrays["edge_ptr"])
        offsets = np.repeat(node_ptr[:-1], np.diff(edge_ptr))
        return torch.as_tensor(structural_features(int(node_ptr[-1]), np.asarray(arrays["edge_index"]) + offsets))
    return torch.as_tensor(structural_features(num_nodes(arrays), arrays["edge_index"]))


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


def model_graph(model: torch.nn.Module, edge_index: torch.Tensor, num_nodes: int):
    """The graph a fixed-graph task passes messages over
    (:func:`netzbench.graphs.edges.message_passing_graph`), in the form ``model``'s encoder takes."""
    from ..graphs.edges import message_passing_graph

    return maybe_adjacency(model, message_passing_graph(edge_index, num_nodes), num_nodes)


def maybe_adjacency(model: torch.nn.Module, edge_index: torch.Tensor, num_nodes: int):
    """The transposed CSR adjacency (rows = targets) for encoders that aggregate by spmm,
    else ``edge_index`` unchanged. Only for a fixed simple graph (node classification, link prediction)."""
    if not getattr(getattr(model, "encoder", None), "sparse_adjacency", False):
        return edge_index
    from torch_geometric.utils import to_torch_csr_tensor

    return to_torch_csr_tensor(edge_index.flip(0), size=(num_nodes, num_nodes))


def multigraph_graph(model: torch.nn.Module, edge_index: torch.Tensor, num_nodes: int, parallel_edges: str):
    """The graph of a multigraph's edges [2, E] (a knowledge graph's triples, parallel edges kept) in the
    form ``model``'s encoder takes: ``parallel_edges: fused``, a CSR adjacency with one stored entry per
    edge for encoders that aggregate by spmm over one (:func:`netzbench.models.fused.multigraph_adjacency`:
    the same function as the per-edge layers, summed in another order); else the edge index itself."""
    if parallel_edges == "fused" and getattr(getattr(model, "encoder", None), "parallel_edges", False):
        from ..models.fused import multigraph_adjacency

        return multigraph_adjacency(edge_index, num_nodes)
    return edge_index


def distinct_values(values: torch.Tensor) -> float:
    """How many distinct predictions (rows; single values for a score vector) ``values`` holds: a model
    whose scores take a handful of values ranks by ties, whatever its metric says. NaN for none."""
    if values.numel() == 0:
        return float("nan")
    flat = values.detach().reshape(values.shape[0], -1)
    if flat.shape[1] == 1:  # single values: the plain unique, the same count (NaNs distinct in both), far faster
        return float(torch.unique(flat).numel())
    return float(torch.unique(flat, dim=0).shape[0])


def is_constant(values: torch.Tensor) -> float:
    """1.0 when every prediction (row) is the same -- a collapsed predictor -- else 0.0; NaN for none."""
    if values.numel() == 0:
        return float("nan")
    return float(bool((values == values[:1]).all()))
