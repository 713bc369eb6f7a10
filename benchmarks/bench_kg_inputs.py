"""Knowledge graphs: fixed degree features against learnt entity embeddings (prints figures; not a test).

For the catalogue's knowledge graphs obtainable here (FB15k-237 and WN18RR from the mirror), trains
GCN, GraphSAGE and the MLP under the strict protocol with ``relational_inputs: features`` (the paper's
input: a degree feature vector per entity) and ``embedding`` (strict's: a learnt 64-d vector per
entity), seeds 0-2, each task's epoch budget, and prints mean +- sd over seeds of the test MRR
(filtered, head and tail corruptions) and AUC at the last epoch, with the seconds per seed.
Usage (from the repository root)::

    NETZBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_kg_inputs.py [--seeds 3] [--tasks fb15k_237]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from arithmetic_first import configure_arithmetic


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--tasks", default="fb15k_237,wordnet18rr")
    ap.add_argument("--models", default="GCN,GraphSAGE,MLP")
    args = ap.parse_args()
    configure_arithmetic(params=None)  # the default mode (fit_seed here), before torch
    import warnings

    warnings.filterwarnings("ignore")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from helpers import make_params  # the tests' params builder: validated defaults

    from netzbench.catalog.data import fetch_task
    from netzbench.graphs.layout import read_meta, task_arrays
    from netzbench.models.registry import resolve_model
    from netzbench.protocol import for_task, resolve
    from netzbench.training.seed import fit_seed

    hp = {"hidden_channels": 64, "lr": 0.01, "weight_decay": 0.0, "eval_every": 1}
    print(f"{'task':<12} {'model':<10} {'inputs':<10} {'test MRR':>16} {'test AUC':>16} {'s/seed':>7}")
    with tempfile.TemporaryDirectory(prefix="netzbench-kg-") as tmp:
        for task in args.tasks.split(","):
            fetch_task(task, make_params(tasks=[task]), tmp, echo=lambda m: None)
            meta = read_meta(Path(tmp) / task)
            for model in args.models.split(","):
                for inputs in ("features", "embedding"):
                    protocol = {**for_task(resolve("strict"), "link_pred", relational=True), "relational_inputs": inputs}
                    mrr, auc, secs = [], [], []
                    for seed in range(args.seeds):
                        res = fit_seed(resolve_model(model), "link_pred", "relational_canonical",
                                       task_arrays(Path(tmp) / task, seed), seed, {**hp, "epochs": meta["epochs"]},
                                       protocol=protocol)
                        mrr.append(res["history"]["test_mrr"][-1])
                        auc.append(res["history"]["test_auc"][-1])
                        secs.append(res["seconds"])
                    print(f"{task:<12} {model:<10} {inputs:<10} {np.mean(mrr):>8.3f} +- {np.std(mrr, ddof=1):.3f} "
                          f"{np.mean(auc):>8.3f} +- {np.std(auc, ddof=1):.3f} {np.mean(secs):>7.0f}", flush=True)


if __name__ == "__main__":
    main()
