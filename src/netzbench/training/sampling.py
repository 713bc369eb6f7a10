r"""Neighbour-sampled mini-batches for node- and link-level tasks (``train.sampling``).

A graph too large to train full batch trains on subgraphs instead
(Hamilton et al., 2017): a step takes a batch of target nodes :math:`B` (node
classification: a shuffled chunk of the training nodes; link prediction: the
endpoints of a chunk of training pairs and of their negatives) and samples,
hop by hop, at most ``fanouts[l]`` of every frontier node's in-neighbours,
uniformly without replacement (all of them when it has fewer). Hop 0's
frontier is :math:`B`; hop :math:`l+1`'s is the nodes hop :math:`l` reached
first. The model runs on the sampled nodes and edges, relabelled with the
targets first, and the loss is taken on the targets' rows. With as many hops
as the model has message-passing layers, every target sees a random subset of
its receptive field; a sample is never larger than
:math:`|B|\,(1 + f_0 + f_0 f_1 + \dots)` nodes, whatever the graph's size.

Every draw comes from one ``torch.Generator`` seeded from the run seed, so a
seed's history is the same twice. Evaluation stays exact: layer by layer
over all neighbourhoods (``eval: layerwise``, :mod:`netzbench.training.layerwise`;
an encoder without layers to offer evaluates full) or the whole graph at
once (``eval: full``); or it runs over sampled neighbourhoods of every node
in chunks (``eval: sampled``: an approximation, drawn from its own fixed
stream so every epoch scores the same subgraphs). Which applied is in every
seed's record (``sampling``).

``mode: auto`` samples a graph with at least ``min_edges`` message-passing
(directed) edges; ``full`` never samples; ``neighbour`` always does (node
classification and homogeneous link prediction only: graph-level tasks are
mini-batched by graph already, a knowledge graph trains full batch).
"""

from __future__ import annotations

from typing import Callable

import torch

from .layerwise import layerwise_inference, layerwise_ready
from .planning import SAMPLING_EVALS as EVALS, SAMPLING_MODES as MODES, sampling_applies as applies

#: stream offsets of the sampler's generators (kept apart from every other seeded draw)
_TRAIN_STREAM, _EVAL_STREAM = 0x5A3D, 0x5A3E


def generator(seed: int, stream: int) -> torch.Generator:
    """A CPU generator for one of the sampler's streams of run ``seed``."""
    return torch.Generator().manual_seed((int(seed) * 1_000_003 + stream) % (2 ** 63))


class NeighbourSampler:
    """Samples the in-neighbourhoods of target nodes over a fixed ``[2, E]`` edge index (sources, targets).

    The edges are kept as CSR by target (``rowptr``, ``sources``): a node's in-neighbours are one slice.
    """

    def __init__(self, edge_index: torch.Tensor, num_nodes: int, fanouts: list[int], gen: torch.Generator):
        if not fanouts or any(int(f) < 1 for f in fanouts):
            raise ValueError(f"fanouts must be a non-empty list of integers >= 1, got {fanouts!r}")
        edge_index = edge_index.cpu()
        order = torch.argsort(edge_index[1], stable=True)
        self.sources = edge_index[0, order].contiguous()
        counts = torch.bincount(edge_index[1], minlength=num_nodes)
        self.rowptr = torch.zeros(num_nodes + 1, dtype=torch.long)
        self.rowptr[1:] = torch.cumsum(counts, 0)
        self.num_nodes, self.fanouts, self.gen = num_nodes, [int(f) for f in fanouts], gen
        self._local = torch.full((num_nodes,), -1, dtype=torch.long)  # global -> local id, reset after each sample

    def with_generator(self, gen: torch.Generator) -> "NeighbourSampler":
        """The same graph (shared, not copied) sampled from another stream."""
        other = object.__new__(NeighbourSampler)
        other.__dict__.update(self.__dict__, gen=gen, _local=torch.full((self.num_nodes,), -1, dtype=torch.long))
        return other

    def _hop(self, frontier: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        """At most ``k`` in-neighbours of every node of ``frontier``: (sources, targets), global ids."""
        start = self.rowptr[frontier]
        deg = self.rowptr[frontier + 1] - start
        total = int(deg.sum())
        if total == 0:
            empty = torch.zeros(0, dtype=torch.long)
            return empty, empty
        owner = torch.repeat_interleave(torch.arange(len(frontier)), deg)  # which frontier node each edge feeds
        first = torch.cumsum(deg, 0) - deg
        edge = start[owner] + torch.arange(total) - first[owner]
        keys = torch.rand(total, generator=self.gen)
        order = torch.argsort(keys)
        order = order[torch.argsort(owner[order], stable=True)]  # grouped by owner, random within each group
        rank = torch.arange(total) - first[owner]  # owner[order] == owner: the groups keep their places
        keep = order[rank < k]
        return self.sources[edge[keep]], frontier[owner[keep]]

    def sample(self, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The sampled subgraph around distinct ``targets``: its nodes (global ids, ``targets`` first) and
        its edges ``[2, e]`` in local ids."""
        targets = targets.cpu()
        local = self._local
        nodes = [targets]
        local[targets] = torch.arange(len(targets))
        count, frontier = len(targets), targets
        src_all, dst_all = [], []
        for k in self.fanouts:
            src, dst = self._hop(frontier, k)
            src_all.append(src)
            dst_all.append(dst)
            fresh = src[local[src] < 0]
            if len(fresh) == 0:
                break
            uniq, inverse = torch.unique(fresh, return_inverse=True)
            seen = torch.full((len(uniq),), len(fresh), dtype=torch.long)
            seen.scatter_reduce_(0, inverse, torch.arange(len(fresh)), "amin")
            frontier = uniq[torch.argsort(seen)]  # in the order they were first reached
            local[frontier] = torch.arange(count, count + len(frontier))
            count += len(frontier)
            nodes.append(frontier)
        nodes = torch.cat(nodes)
        src, dst = torch.cat(src_all), torch.cat(dst_all)
        edges = torch.stack([local[src], local[dst]])
        local[nodes] = -1
        return nodes, edges


class SampledPlan:
    """How one seed trains and evaluates sampled: the samplers over the message-passing graph ``edges``
    (a ``[2, E]`` edge index of ``num_nodes`` nodes, :func:`netzbench.graphs.edges.message_passing_graph`)
    and the model they feed. ``eval`` is the evaluation that applies: ``layerwise`` asked of a model
    without :func:`layerwise_ready` layers evaluates ``full``."""

    def __init__(self, setting: dict, model, edges: torch.Tensor, num_nodes: int, seed: int):
        from .fit import maybe_adjacency

        self.model = model
        self.batch_size, self.setting = int(setting["batch_size"]), setting
        self.eval_mode = setting["eval"]
        if self.eval_mode == "layerwise" and not layerwise_ready(model):
            self.eval_mode = "full"
        self.train = NeighbourSampler(edges, num_nodes, setting["fanouts"], generator(seed, _TRAIN_STREAM))
        self.eval = self.train.with_generator(generator(seed, _EVAL_STREAM))
        self._eval_seed = self.eval.gen.initial_seed()  # every evaluation restarts the eval stream here
        self.graph = lambda local_edges, n: maybe_adjacency(model, local_edges, n)

    @property
    def infers(self) -> bool:
        """Whether evaluation runs through :meth:`inference` (else the model on the whole graph)."""
        return self.eval_mode != "full"

    def train_chunks(self, count: int) -> list[torch.Tensor]:
        """One epoch's batches: positions ``0..count-1`` shuffled from the training stream, in chunks."""
        return chunks(count, self.batch_size, self.train.gen)

    def forward(self, x: torch.Tensor, targets: torch.Tensor, device) -> torch.Tensor:
        """The model's rows for distinct ``targets`` on a freshly sampled neighbourhood."""
        return sampled_forward(self.model, x, self.train, targets, self.graph, device)

    def inference(self, x: torch.Tensor, device) -> torch.Tensor:
        """Every node's row: exact, layer by layer (``eval: layerwise``), or from sampled neighbourhoods,
        the same ones at every evaluation (``eval: sampled``)."""
        if self.eval_mode == "layerwise":
            return layerwise_inference(self.model, x, self.train.rowptr, self.train.sources, device)
        self.eval.gen.manual_seed(self._eval_seed)
        return sampled_inference(self.model, x, self.eval, self.batch_size, self.graph, device)


def plan(setting: dict | None, model, edges: torch.Tensor, num_nodes: int, seed: int) -> SampledPlan | None:
    """The seed's :class:`SampledPlan` when ``setting`` samples the message-passing graph ``edges``, else
    None: full batch."""
    if not applies(setting, int(edges.shape[1])):
        return None
    return SampledPlan(setting, model, edges, num_nodes, seed)


def applied(plan: SampledPlan | None) -> dict:
    """What a seed's record says (``sampling``): ``{"train": "full"}``, or ``{"train": "neighbour",
    "eval": "full" | "layerwise" | "sampled", "fanouts": [...], "batch_size": b}``."""
    if plan is None:
        return {"train": "full"}
    return {"train": "neighbour", "eval": plan.eval_mode, "fanouts": list(plan.train.fanouts),
            "batch_size": plan.batch_size}


def chunks(n: int, size: int, gen: torch.Generator | None) -> list[torch.Tensor]:
    """``range(n)`` in chunks of ``size``, shuffled with ``gen`` (in order when ``gen`` is None)."""
    order = torch.randperm(n, generator=gen) if gen is not None else torch.arange(n)
    return list(torch.split(order, size))


def sampled_forward(model, x: torch.Tensor, sampler: NeighbourSampler, targets: torch.Tensor,
                    graph: Callable[[torch.Tensor, int], object], device) -> torch.Tensor:
    """``model``'s outputs for ``targets`` computed on their sampled neighbourhood (rows in ``targets``' order);
    ``graph(edges, n)`` puts the subgraph's local edges in the form the model takes."""
    nodes, edges = sampler.sample(targets)
    out = model(x[nodes.to(x.device)], graph(edges.to(device), len(nodes)))
    return out[:len(targets)]


def sampled_inference(model, x: torch.Tensor, sampler: NeighbourSampler, batch_size: int,
                      graph: Callable[[torch.Tensor, int], object], device) -> torch.Tensor:
    """``model``'s outputs for every node, each chunk of ``batch_size`` nodes on its sampled neighbourhood."""
    parts = [sampled_forward(model, x, sampler, chunk, graph, device)
             for chunk in chunks(sampler.num_nodes, batch_size, None)]
    return torch.cat(parts)
