"""Knowledge graphs' full filtered ranking (training/full_rank.py): what one evaluation pass costs (prints
figures; not a test).

On FB15k-237 from the mirror (14,541 entities, 20,466 test triples: 2 x 20,466 rankings against every
entity), times one pass of :func:`netzbench.training.full_rank.evaluate` -- what ``relational_ranking:
full`` adds to a strict seed, once or twice (the last and the best-validation checkpoint) -- for
DistMult on 64-d embeddings (the roster's GNNs and the MLP; random N(0, 1) embeddings and relations:
the cost does not depend on the values, except through near ties, which the last line measures with
every entity tied, with --tied) and for two heuristics, beside one epoch's sampled ranking (50 filtered candidates per
triple and side, validation and test). Prints wall and CPU seconds (the CPU time of this process, all its
threads: less sensitive to a shared machine's load), the peak resident memory and the MRR.
Usage (from the repository root)::

    NETZBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_full_rank.py [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--task", default="fb15k_237")
    ap.add_argument("--heuristics", default="AdamicAdar,PreferentialAttachment")
    ap.add_argument("--tied", action="store_true", help="also time a collapsed model (every entity tied)")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from helpers import make_params  # the tests' params builder: validated defaults

    from netzbench.catalog.data import fetch_task
    from netzbench.graphs.layout import task_arrays
    from netzbench.models import heuristics as H
    from netzbench.models.adapters import DistMultLink
    from netzbench.training import full_rank as FR
    from netzbench.training import metrics as M
    from netzbench.training import relational as R
    from netzbench.training.seed import peak_rss_mb

    class Table(torch.nn.Module):
        def __init__(self, table):
            super().__init__()
            self.table = torch.nn.Parameter(table)

        def forward(self, x, edge_index):
            return self.table

    with tempfile.TemporaryDirectory(prefix="netzbench-fullrank-") as tmp:
        fetch_task(args.task, make_params(tasks=[args.task]), tmp)
        arrays = task_arrays(Path(tmp) / args.task, 0)
    n = int(arrays["num_nodes"].reshape(-1)[0])
    num_rel = int(arrays["num_relations"].reshape(-1)[0])
    trip = {s: np.stack([arrays[f"{s}_edge_index"][0], arrays[f"{s}_edge_type"], arrays[f"{s}_edge_index"][1]])
            .astype(np.int64) for s in ("train", "valid", "test")}
    test = trip["test"]
    print(f"{args.task}: {n} entities, {num_rel} relations, {test.shape[1]} test triples, "
          f"{args.threads} threads; peak RSS before {peak_rss_mb():.0f} MB", flush=True)

    t0 = time.perf_counter()
    known = FR.KnownTriples(np.concatenate(list(trip.values()), axis=1), n, num_rel)
    constant = FR.constant_mrr(test, known)
    print(f"filter index + constant predictor's MRR ({constant:.5f}): {time.perf_counter() - t0:.2f} s", flush=True)

    gen = torch.Generator().manual_seed(0)
    model = DistMultLink(Table(torch.randn(n, 64, generator=gen)), num_rel, 64)
    with torch.no_grad():
        model.relations.normal_(generator=gen)
        z = model(None, None)
        held = R.held_out_sets(trip, n, num_rel, 0)
        t0, c0 = time.perf_counter(), time.process_time()
        for h in held.values():  # one epoch's sampled ranking, both held-out splits
            pos = torch.as_tensor(h["pos"])
            tt, tc = R._score_corrupted(model, z, pos, torch.as_tensor(h["tails"]), "tail")
            ht, hc = R._score_corrupted(model, z, pos, torch.as_tensor(h["heads"]), "head")
            M.rank_metrics("x", torch.cat([tc, hc]), torch.cat([tt, ht]))
        print(f"sampled ranking (one epoch, val + test, 2 x 50 candidates): {time.perf_counter() - t0:.2f} s "
              f"({time.process_time() - c0:.2f} s CPU)", flush=True)
        for label, zz in (("DistMult, 64-d", z),) + ((("DistMult, every entity tied", torch.ones_like(z)),)
                                                      if args.tied else ()):
            t0, c0 = time.perf_counter(), time.process_time()
            got = FR.evaluate("test", model, zz, test, known)
            print(f"full ranking, {label}: {time.perf_counter() - t0:.2f} s ({time.process_time() - c0:.2f} s CPU), "
                  f"MRR {got['test_full_mrr']:.5f}, peak RSS {peak_rss_mb():.0f} MB", flush=True)
    adj = H.training_adjacency(n, trip["train"][[0, 2]])
    for name in filter(None, args.heuristics.split(",")):
        t0, c0 = time.perf_counter(), time.process_time()
        got = FR.evaluate("test", getattr(H, name)(), None, test, known, adjacency=adj)
        print(f"full ranking, {name}: {time.perf_counter() - t0:.2f} s ({time.process_time() - c0:.2f} s CPU), "
              f"MRR {got['test_full_mrr']:.5f}, peak RSS {peak_rss_mb():.0f} MB", flush=True)


if __name__ == "__main__":
    main()
