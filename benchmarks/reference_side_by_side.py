"""Run the reference implementation (the ``graphnetz`` package) on the paper's tasks obtainable here.

The reference is never a dependency of netzbench: install it into a scratch
virtual environment and run this script with that interpreter::

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install torch==2.13.0 graphnetz==0.2.0
    NETZBENCH_MIRROR=../shared/datasets /tmp/ref/bin/python benchmarks/reference_side_by_side.py \\
        --data data --out benchmarks/reference_runs.json [--tasks cora mutag] [--seeds 0 1 2]

Datasets come from the mirror, never from the network: Planetoid, TUDataset
and RelLinkPredDataset read their raw files staged from the mirror (the same
classes the reference's loaders use); the synthetic tasks use the reference's
own generators with its curated parameters; the Netzschleuder networks are
rebuilt the way the reference's ``Netz`` loader builds them (an undirected
simple graph from the edge list, node features ``eye(n)`` up to 8,192 nodes,
else ``[log1p(deg)/log n, its square, 1]`` over all edges) from netzbench's
processed edge list in ``--data/<task>/graph.npz`` (the mirror holds GML/CSV
exports, not the ``.csv.zip`` the reference downloads). Every (task, model,
seed) history is written to ``--out``; ``benchmarks/side_by_side.py`` turns
it into the published table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

TASKS = ("random_tsp", "mutag", "cora", "fb15k_237", "euroroad", "internet_as", "ising_lattice", "terrorists_911")
MODELS = ("GCN", "GAT", "GraphSAGE", "GraphTransformer", "GIN")
EYE_LIMIT = 8192  # the reference's Netz loader: one-hot features up to this many nodes


def _staged(mirror: Path, folder: str, target: Path) -> Path:
    """Copy the mirror's raw files of ``folder`` to ``target`` (a writable PyG raw folder)."""
    shutil.copytree(mirror / folder / "raw", target, dirs_exist_ok=True)
    return target


def _netz_like(graph_npz: Path):
    """A one-graph dataset built the way the reference's Netzschleuder loader builds one."""
    import networkx as nx
    from torch_geometric.data import Data
    from torch_geometric.utils import degree, from_networkx

    with np.load(graph_npz) as npz:
        ei = npz["edge_index"]
    g = nx.Graph()
    g.add_edges_from(zip(ei[0].tolist(), ei[1].tolist()))
    data = from_networkx(g)
    n = data.num_nodes
    if n <= EYE_LIMIT:
        data.x = torch.eye(n)
    else:
        deg = degree(data.edge_index[0], num_nodes=n, dtype=torch.float)
        log_deg = torch.log1p(deg) / math.log(max(n, 2))
        data.x = torch.stack([log_deg, log_deg.pow(2), torch.ones(n)], dim=1)
    return [Data(x=data.x, edge_index=data.edge_index, num_nodes=n)]


def task_for(name: str, mirror: Path, data_root: Path, scratch: Path):
    from graphnetz.benchmark import BENCHMARK_TASKS, Task
    from torch_geometric.datasets import Planetoid, RelLinkPredDataset, TUDataset

    curated = {t.name: t for per in BENCHMARK_TASKS.values() for ts in per.values() for t in ts}
    ref = curated[name]
    if name in ("random_tsp", "ising_lattice"):
        return ref  # the reference's own generator and parameters
    if name == "cora":
        _staged(mirror, "cora", scratch / "Cora" / "raw")
        return Task(name, ref.task_type, lambda _root: Planetoid(str(scratch), "Cora"), epochs=ref.epochs)
    if name == "mutag":
        _staged(mirror, "mutag", scratch / "MUTAG" / "raw")
        return Task(name, ref.task_type, lambda _root: TUDataset(str(scratch), "MUTAG"), epochs=ref.epochs)
    if name == "fb15k_237":
        _staged(mirror, "fb15k_237", scratch / "FB15k-237" / "raw")
        return Task(name, ref.task_type, lambda _root: RelLinkPredDataset(str(scratch), "FB15k-237"), epochs=ref.epochs)
    dataset = _netz_like(data_root / name / "graph.npz")
    return Task(name, ref.task_type, lambda _root: dataset, epochs=ref.epochs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="data", help="netzbench's processed data (for the Netzschleuder networks)")
    ap.add_argument("--out", default="benchmarks/reference_runs.json")
    ap.add_argument("--tasks", nargs="*", default=list(TASKS))
    ap.add_argument("--seeds", nargs="*", type=int, default=list(range(10)))
    args = ap.parse_args()
    mirror = Path(os.environ.get("NETZBENCH_MIRROR", "../shared/datasets")).resolve()
    torch.set_num_threads(1)
    import graphnetz
    from graphnetz import GAT, GCN, GIN, GraphSAGE, GraphTransformer
    from graphnetz.benchmark import run_benchmark

    classes = {"GCN": GCN, "GAT": GAT, "GraphSAGE": GraphSAGE, "GraphTransformer": GraphTransformer, "GIN": GIN}
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.is_file() else {"histories": {}, "seconds": {}}
    results["reference"] = {"graphnetz": getattr(graphnetz, "__version__", "?"), "torch": torch.__version__,
                            "seeds": args.seeds}
    for name in args.tasks:
        with tempfile.TemporaryDirectory(prefix="ref-") as tmp:
            task = task_for(name, mirror, Path(args.data), Path(tmp))
            t0 = time.time()
            report = run_benchmark(models=classes, tasks=[task], seeds=args.seeds, root=str(Path(tmp) / "root"),
                                   verbose=False, device="cpu")
            results["seconds"][name] = time.time() - t0
        results["histories"][name] = report.histories[name]
        out.write_text(json.dumps(results))  # after every task: an interrupted run keeps what it has
        print(f"{name}: {results['seconds'][name]:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
