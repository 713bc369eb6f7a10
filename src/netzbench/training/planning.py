"""What planning must know of how training runs, without torch: batch sizes and when sampling applies.

The planner (:mod:`netzbench.run.plan`), the estimate (:mod:`netzbench.run.estimate`)
and the training loops (:mod:`.graph_level`, :mod:`.sampling`) all read these
from here, so the one definition is result code: hashed into every per-seed key
and a dependency of the train stage (:mod:`netzbench.identity`). Importing it
imports nothing but the standard library.
"""

from __future__ import annotations

#: graphs per optimiser step of the graph-level families (:mod:`.graph_level`); other families train full
#: batch, or neighbour-sampled in batches of ``train.sampling.batch_size`` target nodes (:mod:`.sampling`)
BATCH_SIZE = {"graph_cls": 32, "graph_reg": 64}

#: ``train.sampling``'s modes and evaluations (:mod:`netzbench.params` validates against the same tuples)
SAMPLING_MODES, SAMPLING_EVALS = ("auto", "full", "neighbour"), ("full", "layerwise", "sampled")


def batch_size(family: str) -> int | None:
    """Graphs per optimiser step of ``family`` (None: not mini-batched by graph)."""
    return BATCH_SIZE.get(family)


def sampling_applies(setting: dict | None, num_edges: int) -> bool:
    """Whether a graph of ``num_edges`` message-passing (directed) edges trains neighbour-sampled under
    ``train.sampling`` = ``setting`` (None: a graph-level task or a knowledge graph, full batch):
    ``mode: neighbour`` always, ``auto`` from ``min_edges`` edges on, ``full`` never."""
    if not setting:
        return False
    mode = setting.get("mode", "full")
    return mode == "neighbour" or (mode == "auto" and num_edges >= int(setting["min_edges"]))
